/**
 * Test support: a metered x402 v2 service (`upto`) as a fetch function, for unit tests of the
 * purchase path. Its 402 offers an upto ceiling (and, if asked, an exact price beside it); a
 * paid request is answered by the test's `onPayment`, after the permit it carried is recorded.
 */
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { NetworkConfig } from "../../lib/network/network-config";
import { MERCHANT } from "./fake-paid-service";

export const FACILITATOR = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;

/** What the service received: the scheme and, for upto, the permit's terms. */
export type ReceivedPermit = {
  scheme: string;
  payload: Record<string, unknown>;
  nonce: bigint;
  deadline: bigint;
  ceiling: bigint;
  from: string;
  to: string;
  facilitator: string;
};

export type FakeMeteredService = {
  url: string;
  fetch: (input: string, init?: RequestInit) => Promise<Response>;
  received: ReceivedPermit[];
  /** Requests seen, with whether they carried a payment (as FakePaidService keeps them). */
  requests: { method: string; paid: boolean; redirect?: RequestRedirect }[];
  accepts: Record<string, unknown>[];
};

export function uptoRequirement(
  network: NetworkConfig,
  options: { ceiling?: bigint; unitPrice?: bigint; maxTimeoutSeconds?: number } = {},
): Record<string, unknown> {
  return {
    scheme: "upto",
    network: network.caip2,
    asset: network.usdc,
    amount: String(options.ceiling ?? 50_000n),
    payTo: MERCHANT,
    maxTimeoutSeconds: options.maxTimeoutSeconds ?? 120,
    extra: {
      name: network.usdcName,
      version: network.usdcVersion,
      assetTransferMethod: "permit2",
      facilitatorAddress: FACILITATOR,
      metering: { unit: "100 characters", unitPrice: String(options.unitPrice ?? 1_000n), maxUnits: 50 },
    },
  };
}

export function fakeMeteredService(
  network: NetworkConfig,
  options: {
    ceiling?: bigint;
    unitPrice?: bigint;
    /** Also offer `exact` at this price. */
    exactPrice?: bigint;
    maxTimeoutSeconds?: number;
    onPayment: (permit: ReceivedPermit) => Response | Promise<Response>;
  },
): FakeMeteredService {
  const url = "https://metered.example/text/analyze";
  const received: ReceivedPermit[] = [];
  const requests: FakeMeteredService["requests"] = [];
  const accepts = [
    uptoRequirement(network, options),
    ...(options.exactPrice === undefined
      ? []
      : [
          {
            scheme: "exact",
            network: network.caip2,
            asset: network.usdc,
            amount: String(options.exactPrice),
            payTo: MERCHANT,
            maxTimeoutSeconds: 120,
            extra: { name: network.usdcName, version: network.usdcVersion },
          },
        ]),
  ];
  return {
    url,
    received,
    requests,
    accepts,
    async fetch(_input, init) {
      const header = new Headers(init?.headers).get("payment-signature");
      requests.push({ method: init?.method ?? "GET", paid: header !== null, redirect: init?.redirect });
      if (!header) {
        const required = encodePaymentRequiredHeader({
          x402Version: 2,
          error: "payment required",
          resource: { url, description: "metered", mimeType: "application/json" },
          accepts,
        } as never);
        return new Response(JSON.stringify({ error: "payment required" }), {
          status: 402,
          headers: { "PAYMENT-REQUIRED": required, "content-type": "application/json" },
        });
      }
      const payload = decodePaymentSignatureHeader(header) as unknown as { accepted: { scheme: string }; payload: Record<string, unknown> };
      const permit = payload.payload.permit2Authorization as
        { from: string; permitted: { amount: string }; nonce: string; deadline: string; witness: { to: string; facilitator: string } } | undefined;
      const entry: ReceivedPermit = {
        scheme: payload.accepted.scheme,
        payload: payload as unknown as Record<string, unknown>,
        nonce: permit ? BigInt(permit.nonce) : 0n,
        deadline: permit ? BigInt(permit.deadline) : 0n,
        ceiling: permit ? BigInt(permit.permitted.amount) : 0n,
        from: permit?.from ?? "",
        to: permit?.witness.to ?? "",
        facilitator: permit?.witness.facilitator ?? "",
      };
      received.push(entry);
      return options.onPayment(entry);
    },
  };
}

/** A metered answer: the settlement names `txHash` and `amount`, the body declares what was used. */
export function meteredAnswer(txHash: `0x${string}` | "", amount: bigint, metering?: { unitsUsed: number; unitPrice?: bigint; charged?: bigint }): Response {
  const settlement = encodePaymentResponseHeader({ success: true, transaction: txHash, network: "eip155:31337", amount: amount.toString() } as never);
  const body = {
    analysis: { characters: 250 },
    ...(metering
      ? {
          metering: {
            unit: "100 characters",
            unitsUsed: metering.unitsUsed,
            unitPrice: String(metering.unitPrice ?? 1_000n),
            charged: String(metering.charged ?? BigInt(metering.unitsUsed) * (metering.unitPrice ?? 1_000n)),
          },
        }
      : {}),
  };
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json", "PAYMENT-RESPONSE": settlement } });
}
