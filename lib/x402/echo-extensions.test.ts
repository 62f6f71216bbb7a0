import { declarePaymentIdentifierExtension, extractPaymentIdentifier, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import type { PaymentPayload } from "@x402/core/types";
import { describe, expect, it } from "vitest";
import { echoedExtensions } from "./echo-extensions";
import { ECHO_BUDGET_CHARS, MAX_ECHOED_EXTENSIONS } from "../stream/extension-echo-bounds";
import { paymentIdentifierFor } from "./payment-identifier";

const id = paymentIdentifierFor("a-quote-secret-for-tests-only-0123456789", "purchase:req-1:aaaa");
const bazaar = {
  info: { input: { type: "http", method: "POST", bodyType: "json", body: { text: "hi" } }, output: { example: { ok: true } } },
  schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { input: { type: "object" } }, required: ["input"] },
};
const foo = { info: { anything: ["a", 1, null] } };

/** `levels` objects nested in one another. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let level = 1; level < levels; level += 1) value = { inner: value };
  return value;
}

describe("echoedExtensions", () => {
  it("echoes every declared extension, bazaar included, plus our payment identifier, and leaves the 402 untouched", () => {
    const declared = declarePaymentIdentifierExtension(false);
    const paymentRequired = { x402Version: 2, accepts: [], extensions: { bazaar, foo, [PAYMENT_IDENTIFIER]: declared } };
    const before = structuredClone(paymentRequired);
    const extensions = echoedExtensions(paymentRequired, id);
    expect(extensions).toEqual({ bazaar, foo, [PAYMENT_IDENTIFIER]: { ...declared, info: { required: false, id } } });
    expect(paymentRequired).toEqual(before);
    expect(extensions?.bazaar).not.toBe(bazaar);
    // What a service reads with the SDK.
    expect(extractPaymentIdentifier({ x402Version: 2, extensions } as unknown as PaymentPayload)).toBe(id);
  });

  it("echoes the declarations without an identifier when the service does not declare payment-identifier, or we have none", () => {
    expect(echoedExtensions({ x402Version: 2, accepts: [], extensions: { bazaar, foo } }, id)).toEqual({ bazaar, foo });
    const declared = declarePaymentIdentifierExtension(true);
    expect(echoedExtensions({ x402Version: 2, accepts: [], extensions: { bazaar, [PAYMENT_IDENTIFIER]: declared } }, undefined)).toEqual({
      bazaar,
      [PAYMENT_IDENTIFIER]: declared,
    });
  });

  it("sends nothing for v1 or a 402 without extensions", () => {
    expect(echoedExtensions({ x402Version: 1, accepts: [], extensions: { bazaar } }, id)).toBeUndefined();
    expect(echoedExtensions({ x402Version: 2, accepts: [] }, id)).toBeUndefined();
    expect(echoedExtensions({ x402Version: 2, accepts: [], extensions: "bazaar" }, id)).toBeUndefined();
  });

  it("drops an extension too deep, too large or past the budget, keeping the others and our identifier", () => {
    const declared = declarePaymentIdentifierExtension(false);
    const deep = nested(12);
    const wide = { info: { values: Array.from({ length: 600 }, (_, index) => index) } };
    const long = { info: { text: "x".repeat(ECHO_BUDGET_CHARS) } };
    const paymentRequired = { x402Version: 2, accepts: [], extensions: { deep, wide, long, bazaar, foo, [PAYMENT_IDENTIFIER]: declared } };
    const extensions = echoedExtensions(paymentRequired, id);
    expect(Object.keys(extensions ?? {}).sort()).toEqual(["bazaar", "foo", PAYMENT_IDENTIFIER]);
    expect(extractPaymentIdentifier({ x402Version: 2, extensions } as unknown as PaymentPayload)).toBe(id);
    expect(JSON.stringify(extensions).length).toBeLessThanOrEqual(ECHO_BUDGET_CHARS + 100);
  });

  it("echoes at most MAX_ECHOED_EXTENSIONS, and never lets a declared __proto__ set a prototype", () => {
    const many = Object.fromEntries(Array.from({ length: MAX_ECHOED_EXTENSIONS + 5 }, (_, index) => [`ext-${index}`, { info: {} }]));
    expect(Object.keys(echoedExtensions({ x402Version: 2, accepts: [], extensions: many }, id) ?? {})).toHaveLength(MAX_ECHOED_EXTENSIONS);
    const hostile = JSON.parse('{"x402Version":2,"accepts":[],"extensions":{"__proto__":{"polluted":true}}}') as unknown;
    const extensions = echoedExtensions(hostile, id);
    // zod's record leaves the key out; if it ever came through, it would stay a plain key.
    if (extensions) expect(Object.getPrototypeOf(extensions)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
