import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { afterEach, describe, expect, it } from "vitest";
import { DevnetFaults } from "../faults";
import { paymentIdentifierActivity, paymentIdentifierCacheFor } from "./payment-identifier-cache";
import type { PaidServiceHandler } from "./paid-request-handler";

const ID = "pay_0123456789abcdef0123456789abcdef";

function paymentHeader(signature: string, id?: string): string {
  const extensions = id ? { [PAYMENT_IDENTIFIER]: { ...declarePaymentIdentifierExtension(false), info: { required: false, id } } } : undefined;
  const payload = { x402Version: 2, accepted: { scheme: "exact", network: "eip155:31337" }, payload: { signature }, ...(extensions ? { extensions } : {}) };
  return encodePaymentSignatureHeader(payload as unknown as PaymentPayload);
}

/** A stand-in paid handler: each call "settles" (200 with a PAYMENT-RESPONSE naming the call). */
function fakeService(behaviour: { status?: number; delayMs?: number } = {}) {
  let calls = 0;
  const handler: PaidServiceHandler = {
    accepts: [],
    async handle(request, response) {
      calls += 1;
      const call = calls;
      if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
      const status = request.headers["payment-signature"] ? (behaviour.status ?? 200) : 402;
      response.writeHead(status, { "Content-Type": "application/json", ...(status === 200 ? { "PAYMENT-RESPONSE": `settled-${call}` } : {}) });
      response.end(JSON.stringify({ answer: call }));
    },
  };
  return { handler, calls: () => calls };
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(handler: PaidServiceHandler): Promise<string> {
  server = createServer((request, response) => void handler.handle(request, response));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`;
}

const send = (url: string, header?: string) => fetch(url, { headers: header ? { "payment-signature": header } : {} });

describe("payment identifier cache (a demo service's deduplication)", () => {
  it("answers a repeated identifier with the first answer and the same PAYMENT-RESPONSE, settling once", async () => {
    const faults = new DevnetFaults();
    const service = fakeService();
    const url = await serve(paymentIdentifierCacheFor(faults, "weather").guard(service.handler));
    const first = await send(url, paymentHeader("0xaa", ID));
    const second = await send(url, paymentHeader("0xaa", ID));
    expect(second.status).toBe(200);
    expect(second.headers.get("payment-response")).toBe(first.headers.get("payment-response"));
    expect(await second.json()).toEqual(await first.json());
    expect(service.calls()).toBe(1);
    expect(paymentIdentifierActivity(faults, "weather")).toEqual({ seen: [ID, ID], settlements: 1 });
    // Another world's service of the same name keeps its own record.
    expect(paymentIdentifierActivity(new DevnetFaults(), "weather")).toEqual({ seen: [], settlements: 0 });
  });

  it("refuses the same identifier with another signed payment (409) and charges nothing", async () => {
    const faults = new DevnetFaults();
    const service = fakeService();
    const url = await serve(paymentIdentifierCacheFor(faults, "weather").guard(service.handler));
    await send(url, paymentHeader("0xaa", ID));
    const other = await send(url, paymentHeader("0xbb", ID));
    expect(other.status).toBe(409);
    expect(service.calls()).toBe(1);
  });

  it("processes payments without an identifier normally and counts each settlement", async () => {
    const faults = new DevnetFaults();
    const service = fakeService();
    const url = await serve(paymentIdentifierCacheFor(faults, "weather").guard(service.handler));
    await send(url, paymentHeader("0xaa"));
    await send(url, paymentHeader("0xaa"));
    await send(url);
    expect(service.calls()).toBe(3);
    expect(paymentIdentifierActivity(faults, "weather")).toEqual({ seen: [], settlements: 2 });
  });

  it("remembers only settled answers: after a failure the same identifier is processed again", async () => {
    const faults = new DevnetFaults();
    const service = fakeService({ status: 500 });
    const url = await serve(paymentIdentifierCacheFor(faults, "weather").guard(service.handler));
    await send(url, paymentHeader("0xaa", ID));
    await send(url, paymentHeader("0xaa", ID));
    expect(service.calls()).toBe(2);
    expect(paymentIdentifierActivity(faults, "weather")).toEqual({ seen: [ID, ID], settlements: 0 });
  });

  it("refuses a repeat while the first is still being handled, so one identifier never settles twice", async () => {
    const faults = new DevnetFaults();
    const service = fakeService({ delayMs: 200 });
    const url = await serve(paymentIdentifierCacheFor(faults, "weather").guard(service.handler));
    const [first, second] = await Promise.all([
      send(url, paymentHeader("0xaa", ID)),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => send(url, paymentHeader("0xbb", ID))),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(409);
    expect(service.calls()).toBe(1);
  });
});
