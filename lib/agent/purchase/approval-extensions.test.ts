/**
 * A user's approval echoes the 402's extensions the whole way: request 1 freezes them into the
 * approval (as many as its PAYMENT-SIGNATURE header can carry back), the header returns them,
 * verification checks them against the nonce, and the paid request sends them to the service.
 */
import { decodePaymentSignatureHeader as decodeOfficial, encodePaymentRequiredHeader } from "@x402/core/http";
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { beforeEach, describe, expect, it } from "vitest";
import { paidAnswer } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { agentRequest, chain, clock, dependencies, newRequestTracker, resetPurchaseHarness, user } from "../../../tests/support/purchase-harness";
import { verifyApproval } from "../../chat/verify-approval";
import { encodePaymentSignatureHeader, MAX_PAYMENT_SIGNATURE_HEADER_CHARS } from "../../x402/payment-signature-header";
import { walletTypedDataOf } from "../../x402/approval-typed-data";
import { runApprovedPurchase, runPurchase } from "./run-purchase";

const URL_ = "https://paid.example/translate";
const PAYEE = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const bazaar = { info: { input: { type: "http", method: "POST", bodyType: "json", body: { text: "hi" } } }, schema: { type: "object" } };
/** Within the echo's budget alone, but too much beside a long body for the header to carry back. */
const bulky = { info: { notes: ["n".repeat(3_500), "n".repeat(3_500)] } };
const declaredIdentifier = declarePaymentIdentifierExtension(false);
const id = "pay_0123456789abcdef0123456789abcdef";

beforeEach(resetPurchaseHarness);

/** A v2 service whose 402 declares `extensions`; it keeps each payload it is paid with. */
function service(extensions: Record<string, unknown>) {
  const payloads: Record<string, unknown>[] = [];
  const accepts = [
    {
      scheme: "exact",
      network: offlineNetwork.caip2,
      asset: offlineNetwork.usdc,
      amount: "15000",
      payTo: PAYEE,
      maxTimeoutSeconds: 120,
      extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion },
    },
  ];
  const fetch = async (_input: string, init?: RequestInit): Promise<Response> => {
    const header = new Headers(init?.headers).get("payment-signature");
    if (!header) {
      const required = encodePaymentRequiredHeader({ x402Version: 2, resource: { url: URL_ }, accepts, extensions } as never);
      return new Response("{}", { status: 402, headers: { "PAYMENT-REQUIRED": required } });
    }
    const payload = decodeOfficial(header) as unknown as { payload: { authorization: { nonce: string } } };
    payloads.push(payload as unknown as Record<string, unknown>);
    return paidAnswer(chain.settle(payload.payload.authorization.nonce));
  };
  return { url: URL_, fetch, payloads, received: [], requests: [] };
}

async function approveAndPay(extensions: Record<string, unknown>, body: string) {
  const paid = service(extensions);
  const deps = dependencies(paid);
  const first = await runPurchase(deps, { ...agentRequest(paid), method: "POST", body, paymentIdentifier: id, payer: { kind: "user", address: user.address } });
  if (first.status !== "awaiting-approval") throw new Error(`expected an approval, got ${first.status}`);
  const { approval } = first;
  const header = encodePaymentSignatureHeader(approval, await user.signTypedData(walletTypedDataOf(approval)));
  const approved = await verifyApproval({
    header,
    walletAddress: user.address,
    network: offlineNetwork,
    quoteSecret: deps.quoteSecret,
    now: clock.now(),
    serviceName: () => "Translator",
  });
  const outcome = await runApprovedPurchase(
    deps,
    {
      payer: user.address,
      limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 1_000_000n },
      maxPayments: 3,
      tracker: newRequestTracker(),
      deadline: clock.now() + 43_500,
    },
    approved,
  );
  return { approval, header, approved, outcome, payloads: paid.payloads };
}

describe("a user's approval and the 402's extensions", () => {
  it("carries every declared extension, as declared (a user's payment gets no identifier of ours), to the service", async () => {
    const { approval, approved, outcome, payloads } = await approveAndPay({ bazaar, [PAYMENT_IDENTIFIER]: declaredIdentifier }, '{"text":"hi"}');
    expect(approval.extensions).toEqual({ [PAYMENT_IDENTIFIER]: declaredIdentifier, bazaar });
    expect(JSON.stringify(approval.extensions)).not.toContain(id);
    expect(approved.extensions).toEqual(approval.extensions);
    expect(outcome).toMatchObject({ status: "delivered" });
    expect(payloads).toHaveLength(1);
    expect(payloads[0]?.extensions).toEqual(approval.extensions);
  });

  it("keeps the first extensions that its header can carry back beside a long body, and the payment goes through", async () => {
    const body = JSON.stringify({ text: "t".repeat(4_080) });
    const { approval, header, outcome, payloads } = await approveAndPay({ [PAYMENT_IDENTIFIER]: declaredIdentifier, bazaar, bulky }, body);
    expect(Object.keys(approval.extensions ?? {})).toEqual([PAYMENT_IDENTIFIER, "bazaar"]);
    expect(header.length).toBeLessThan(MAX_PAYMENT_SIGNATURE_HEADER_CHARS);
    expect(outcome).toMatchObject({ status: "delivered" });
    expect(payloads[0]?.extensions).toEqual(approval.extensions);
  });

  it("sends none where the 402 declared none", async () => {
    const { approval, outcome, payloads } = await approveAndPay({}, '{"text":"hi"}');
    expect(approval).not.toHaveProperty("extensions");
    expect(outcome).toMatchObject({ status: "delivered" });
    expect(payloads[0]).not.toHaveProperty("extensions");
  });
});
