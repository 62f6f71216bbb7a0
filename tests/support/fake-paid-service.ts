/**
 * Test support: a paid x402 v2 service as a fetch function, for unit tests of the purchase
 * path. It answers 402 with real `PAYMENT-REQUIRED` terms, and a paid request with whatever the
 * test's `onPayment` decides (an answer, or a thrown network error), after recording the
 * authorization it received.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { NetworkConfig } from "../../lib/network/network-config";

export type ReceivedAuthorization = { nonce: `0x${string}`; validBefore: bigint; value: bigint; from: string; to: string };

export type FakePaidService = {
  url: string;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  /** Every authorization that reached the service. */
  received: ReceivedAuthorization[];
  /** Requests seen, with whether they carried a payment. */
  requests: { method: string; paid: boolean; redirect?: RequestRedirect }[];
};

export const MERCHANT = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc" as const;

export function fakePaidService(
  network: NetworkConfig,
  options: { amount?: bigint; maxTimeoutSeconds?: number; onPayment: (authorization: ReceivedAuthorization) => Response | Promise<Response> },
): FakePaidService {
  const url = "https://paid.example/data";
  const received: ReceivedAuthorization[] = [];
  const requests: FakePaidService["requests"] = [];
  const accepts = [
    {
      scheme: "exact",
      network: network.caip2,
      asset: network.usdc,
      amount: String(options.amount ?? 15_000n),
      payTo: MERCHANT,
      maxTimeoutSeconds: options.maxTimeoutSeconds ?? 120,
      extra: { name: network.usdcName, version: network.usdcVersion },
    },
  ];
  return {
    url,
    received,
    requests,
    async fetch(_input, init) {
      const headers = new Headers(init?.headers);
      const header = headers.get("payment-signature");
      requests.push({ method: init?.method ?? "GET", paid: header !== null, redirect: init?.redirect });
      if (!header) {
        const required = encodePaymentRequiredHeader({
          x402Version: 2,
          error: "payment required",
          resource: { url, description: "data", mimeType: "application/json" },
          accepts,
        } as never);
        return new Response(JSON.stringify({ error: "payment required" }), {
          status: 402,
          headers: { "PAYMENT-REQUIRED": required, "content-type": "application/json" },
        });
      }
      const payload = decodePaymentSignatureHeader(header) as unknown as { payload: { authorization: Record<string, string> } };
      const authorization = payload.payload.authorization;
      const entry: ReceivedAuthorization = {
        nonce: authorization.nonce as `0x${string}`,
        validBefore: BigInt(authorization.validBefore!),
        value: BigInt(authorization.value!),
        from: authorization.from!,
        to: authorization.to!,
      };
      received.push(entry);
      return options.onPayment(entry);
    },
  };
}

/** A paid answer with a `PAYMENT-RESPONSE` naming `txHash`. */
export function paidAnswer(txHash: `0x${string}`, body: unknown = { ok: true }): Response {
  const settlement = encodePaymentResponseHeader({ success: true, transaction: txHash, network: "eip155:31337" } as never);
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json", "PAYMENT-RESPONSE": settlement } });
}

/** A 402 to the paid request, as a service that pretends nothing was paid. */
export function refusedAnswer(): Response {
  return new Response(JSON.stringify({ error: "payment required" }), { status: 402, headers: { "content-type": "application/json" } });
}
