/**
 * The payment our agent sends against the one the official client builds for the same 402.
 *
 * Ours is taken off the wire: a service answers 402 and keeps the payment header of the paid
 * request, and `runPurchase` (against a fake chain) is what pays it, so every step of the agent's
 * path (reading the 402, choosing the option, freezing the quote, echoing the extensions,
 * signing, building the payload, encoding the header) is the one in use. The official one is
 * `x402Client.createPaymentPayload` from @x402/core with @x402/evm's exact scheme (v2) and its
 * v1 scheme, signing with a viem local account.
 *
 * They must have the same fields at every level and the same values, except what each client
 * draws or derives for itself: the EIP-3009 nonce, the validity window and the signature (each
 * checked to be well-formed and to recover to its payer over its own authorization), and the
 * one field we add: the `payment-identifier` extension's `info.id`. The official client sends a
 * service's payment-identifier declaration back as declared unless a client extension adds an
 * id; ours adds the id of the purchase intent, so that a retry of the same intent is recognised
 * by the service (lib/x402/payment-identifier.ts). Both must pass @x402/core's own schema.
 */
import { x402Client } from "@x402/core/client";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import { PaymentPayloadSchema } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/client";
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { getAddress, recoverTypedDataAddress, type Hex } from "viem";
import { beforeEach, describe, expect, it } from "vitest";
import { runPurchase } from "@/lib/agent/purchase/run-purchase";
import type { NetworkConfig } from "@/lib/network/network-config";
import { paymentIdentifierFor } from "@/lib/x402/payment-identifier";
import { paidAnswer } from "../support/fake-paid-service";
import { offlineNetwork } from "../support/offline-fixtures";
import { agent, agentRequest, chain, dependencies, resetPurchaseHarness } from "../support/purchase-harness";
import { bazaarGet } from "./fixtures/bazaar";
import { v1ExactRequirement, v2ExactRequirement } from "./fixtures/payment-required";
import { SPEC } from "./fixtures/spec-fixture";

type Json = Record<string, unknown>;
type Authorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };

/** The spec's chain (Base Sepolia, its USDC), which both clients know by CAIP-2 id and by v1 name. */
const network: NetworkConfig = {
  ...offlineNetwork,
  name: "base-sepolia",
  chainId: 84532,
  caip2: SPEC.network,
  networkNames: [SPEC.network, SPEC.v1Network],
  usdc: SPEC.usdc,
  usdcName: "USDC",
  usdcVersion: "2",
};

const paymentIdentifier = paymentIdentifierFor("conformance-quote-secret-0123456789abcdef", "purchase:req-1:payload");

/** One v2 402: resource, the exact USDC option, and the extensions a real service declares. */
const v2PaymentRequired = {
  x402Version: 2,
  error: "PAYMENT-SIGNATURE header is required",
  resource: { url: SPEC.resource, description: "Access to premium market data", mimeType: "application/json" },
  accepts: [v2ExactRequirement],
  extensions: { bazaar: bazaarGet.value, [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) },
} as unknown as PaymentRequired;

const v1PaymentRequired = { x402Version: 1, error: "X-PAYMENT header is required", accepts: [v1ExactRequirement] } as unknown as PaymentRequired;

beforeEach(resetPurchaseHarness);

/**
 * A service at the spec's resource: 402 with `paymentRequired` (v2 in the PAYMENT-REQUIRED
 * header, v1 as the JSON body), and for a paid request the payment header it was sent, kept,
 * then a settlement the fake chain shows.
 */
function quotingService(paymentRequired: PaymentRequired) {
  const sent: { header: string; value: string }[] = [];
  const fetch = async (_input: string, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const name = paymentRequired.x402Version === 2 ? "PAYMENT-SIGNATURE" : "X-PAYMENT";
    const value = headers.get(name);
    if (value === null) {
      const wire: Record<string, string> = paymentRequired.x402Version === 2 ? { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired) } : {};
      const body = paymentRequired.x402Version === 2 ? {} : paymentRequired;
      return new Response(JSON.stringify(body), { status: 402, headers: { "content-type": "application/json", ...wire } });
    }
    sent.push({ header: name, value });
    const authorization = (decodePaymentSignatureHeader(value).payload as { authorization: Authorization }).authorization;
    return paidAnswer(chain.settle(authorization.nonce), { ok: true });
  };
  return { url: SPEC.resource, fetch, sent, received: [], requests: [] };
}

/** What our agent puts on the wire for this 402: the decoded header of its paid request. */
async function ourPayload(paymentRequired: PaymentRequired): Promise<Json> {
  const service = quotingService(paymentRequired);
  const outcome = await runPurchase({ ...dependencies(service), network }, agentRequest(service, { paymentIdentifier }));
  expect(outcome).toMatchObject({ status: "delivered" });
  expect(service.sent).toHaveLength(1);
  return decodePaymentSignatureHeader(service.sent[0]!.value) as unknown as Json;
}

/** What the official client builds for it, signing with the same key. */
async function officialPayload(paymentRequired: PaymentRequired): Promise<Json> {
  const client = new x402Client().register(SPEC.network, new ExactEvmScheme(agent)).registerV1(SPEC.v1Network, new ExactEvmSchemeV1(agent));
  // Through JSON, as the header carries it: an `extensions: undefined` key is not a field.
  return JSON.parse(JSON.stringify(await client.createPaymentPayload(paymentRequired))) as Json;
}

/** The field names at every level, with the type of every leaf. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shapeOf((value as Json)[key])]),
    );
  }
  return value === null ? "null" : typeof value;
}

/** The payload with what each client draws or derives for itself set aside. */
function withoutDerived(payload: Json): Json {
  const copy = structuredClone(payload) as Json & { payload: { authorization: Authorization; signature: string } };
  copy.payload.authorization = { ...copy.payload.authorization, nonce: "<nonce>", validAfter: "<validAfter>", validBefore: "<validBefore>" };
  copy.payload.signature = "<signature>";
  return copy;
}

/** Our payload less our one addition, the payment identifier's id. */
function withoutOurId(payload: Json): Json {
  const copy = structuredClone(payload) as Json & { extensions?: Record<string, { info?: Json }> };
  delete copy.extensions?.[PAYMENT_IDENTIFIER]?.info?.id;
  return copy;
}

/** Checks the authorization is well-formed and that its signature recovers to the payer over it. */
async function expectSignedByPayer(payload: Json, chainId: number): Promise<void> {
  const { authorization, signature } = payload.payload as { authorization: Authorization; signature: Hex };
  expect(authorization.nonce).toMatch(/^0x[0-9a-f]{64}$/i);
  expect(authorization.validAfter).toMatch(/^\d+$/);
  expect(authorization.validBefore).toMatch(/^\d+$/);
  expect(BigInt(authorization.validBefore)).toBeGreaterThan(BigInt(authorization.validAfter));
  expect(signature).toMatch(/^0x[0-9a-f]{130}$/i);
  const signer = await recoverTypedDataAddress({
    domain: { name: "USDC", version: "2", chainId, verifyingContract: getAddress(SPEC.usdc) },
    types: authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message: {
      from: getAddress(authorization.from),
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce as Hex,
    },
    signature,
  });
  expect(signer).toBe(agent.address);
  expect(getAddress(authorization.from)).toBe(agent.address);
}

describe("the v2 payment payload, ours and the official client's, for one 402", () => {
  it("has the same fields at every level and the same values, apart from nonce, window, signature and our payment identifier", async () => {
    const ours = await ourPayload(v2PaymentRequired);
    const official = await officialPayload(v2PaymentRequired);
    expect(shapeOf(withoutOurId(ours))).toEqual(shapeOf(official));
    expect(withoutDerived(withoutOurId(ours))).toEqual(withoutDerived(official));
    // Both echo the 402's resource, the chosen requirement as sent, and every extension (bazaar included).
    expect(official).toMatchObject({ resource: v2PaymentRequired.resource, accepted: v2ExactRequirement, extensions: v2PaymentRequired.extensions });
    expect((ours.extensions as Json).bazaar).toEqual(bazaarGet.value);

    // The one addition: our intent's identifier, as a service reads it with the SDK.
    expect(extractPaymentIdentifier(ours as unknown as PaymentPayload)).toBe(paymentIdentifier);
    expect(extractPaymentIdentifier(official as unknown as PaymentPayload)).toBeNull();
  });

  it("each is signed by the payer over its own authorization, for the quoted payee and amount", async () => {
    for (const payload of [await ourPayload(v2PaymentRequired), await officialPayload(v2PaymentRequired)]) {
      await expectSignedByPayer(payload, network.chainId);
      expect(payload.payload).toMatchObject({ authorization: { to: SPEC.payTo, value: "10000" } });
    }
  });

  it("both pass @x402/core's PaymentPayload schema", async () => {
    for (const payload of [await ourPayload(v2PaymentRequired), await officialPayload(v2PaymentRequired)]) {
      const parsed = PaymentPayloadSchema.safeParse(payload);
      expect(parsed.error).toBeUndefined();
      expect(parsed.data?.x402Version).toBe(2);
    }
  });

  it("without extensions in the 402, neither sends any", async () => {
    const { extensions: _left, ...bare } = v2PaymentRequired as unknown as Json;
    const ours = await ourPayload(bare as unknown as PaymentRequired);
    const official = await officialPayload(bare as unknown as PaymentRequired);
    expect(ours).not.toHaveProperty("extensions");
    expect(official).not.toHaveProperty("extensions");
    expect(withoutDerived(ours)).toEqual(withoutDerived(official));
  });
});

describe("the v1 payment payload, ours and the official client's, for one 402", () => {
  it("has the same fields and values apart from nonce, window and signature, each signed by the payer, both valid", async () => {
    const ours = await ourPayload(v1PaymentRequired);
    const official = await officialPayload(v1PaymentRequired);
    expect(shapeOf(ours)).toEqual(shapeOf(official));
    expect(withoutDerived(ours)).toEqual(withoutDerived(official));
    expect(official).toMatchObject({ x402Version: 1, scheme: "exact", network: SPEC.v1Network });
    for (const payload of [ours, official]) {
      await expectSignedByPayer(payload, network.chainId);
      const parsed = PaymentPayloadSchema.safeParse(payload);
      expect(parsed.error).toBeUndefined();
      expect(parsed.data?.x402Version).toBe(1);
    }
  });
});
