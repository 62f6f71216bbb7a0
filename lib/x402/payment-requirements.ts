/**
 * Reads a service's 402 answer (x402 v1 body or v2 `PAYMENT-REQUIRED` header) and picks the
 * option this deployment can pay: scheme `exact` by EIP-3009, our network, our USDC. The service's
 * words are data: nothing here trusts a field it has not validated.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { getAddress } from "viem";
import { z } from "zod";
import { withinJsonLimits } from "./json-limits";
import { serviceToken } from "./service-text";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const baseUnits = z.string().regex(/^\d{1,30}$/);
/**
 * The exact EVM scheme lets an option name how the asset moves (`extra.assetTransferMethod`):
 * we sign EIP-3009 authorizations only, so a `permit2` or `erc7710` option is not ours to pay;
 * an option that names no method is EIP-3009, the scheme's default.
 */
const domainExtra = z.looseObject({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(16),
  assetTransferMethod: z.literal("eip3009").optional(),
});

const RequirementV2 = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  amount: baseUnits,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: domainExtra,
});

const RequirementV1 = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  maxAmountRequired: baseUnits,
  asset: address,
  payTo: address,
  resource: z.string().optional(),
  description: z.string().optional(),
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: domainExtra,
}).transform((terms) => ({ ...terms, amount: terms.maxAmountRequired }));

const PaymentRequiredV2 = z.looseObject({
  x402Version: z.literal(2),
  resource: z.looseObject({ url: z.string() }).optional(),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  error: z.string().optional(),
});
const PaymentRequiredV1 = z.looseObject({
  x402Version: z.literal(1),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  error: z.string().optional(),
});

export type PaymentRequired = z.infer<typeof PaymentRequiredV2> | z.infer<typeof PaymentRequiredV1>;

/** What the payer side needs to know about its own network to choose an option. */
export type PayableNetwork = {
  /** Network names that mean our chain: its CAIP-2 id and any v1 name. */
  networkNames: readonly string[];
  usdc: `0x${string}`;
};

/** One payable option, frozen from the service's answer. */
export type PayableRequirement = {
  x402Version: 1 | 2;
  /** The requirement object exactly as the service sent it. */
  requirements: Record<string, unknown>;
  amount: bigint;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  network: string;
  maxTimeoutSeconds: number;
  domain: { name: string; version: string };
};

/**
 * Parses a 402 response's payment requirements (v2 header first, then a v1 JSON body).
 * Returns undefined when the answer is not a readable x402 402.
 */
export function readPaymentRequired(headers: Headers, body: unknown): PaymentRequired | undefined {
  const header = headers.get("PAYMENT-REQUIRED");
  if (header) {
    try {
      const parsed = PaymentRequiredV2.safeParse(decodePaymentRequiredHeader(header));
      if (parsed.success) return parsed.data;
    } catch {
      return undefined;
    }
  }
  const v2Body = PaymentRequiredV2.safeParse(body);
  if (v2Body.success) return v2Body.data;
  const v1Body = PaymentRequiredV1.safeParse(body);
  return v1Body.success ? v1Body.data : undefined;
}

export type SelectionResult =
  | { ok: true; option: PayableRequirement }
  | { ok: false; reason: string };

/** Picks the cheapest option we can pay: exact scheme, our network, our USDC. */
export function selectPayableRequirement(paymentRequired: PaymentRequired, network: PayableNetwork): SelectionResult {
  const options: PayableRequirement[] = [];
  for (const raw of paymentRequired.accepts) {
    const option = toPayable(paymentRequired.x402Version, raw);
    if (!option) continue;
    if (option.requirements.scheme !== "exact") continue;
    if (!network.networkNames.includes(option.network)) continue;
    if (option.asset.toLowerCase() !== network.usdc.toLowerCase()) continue;
    options.push(option);
  }
  if (options.length === 0) {
    // The service's own words, reduced to protocol tokens: they reach the model and the page.
    const offered = paymentRequired.accepts
      .slice(0, 5)
      .map((raw) => `${serviceToken(raw.scheme)} on ${serviceToken(raw.network)}`)
      .join(", ");
    const more = paymentRequired.accepts.length > 5 ? ` and ${paymentRequired.accepts.length - 5} more` : "";
    return { ok: false, reason: `the service accepts no payment this deployment can make (offered: ${offered || "nothing"}${more})` };
  }
  options.sort((left, right) => (left.amount < right.amount ? -1 : left.amount > right.amount ? 1 : 0));
  return { ok: true, option: options[0] as PayableRequirement };
}

function toPayable(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined {
  // The object is signed over (canonical JSON in the nonce) and echoed back: bound it first.
  if (!withinJsonLimits(raw)) return undefined;
  // v2 names the price `amount`, v1 `maxAmountRequired` (mapped to `amount` by its schema).
  const parsed = version === 2 ? RequirementV2.safeParse(raw) : RequirementV1.safeParse(raw);
  if (!parsed.success) return undefined;
  const terms = parsed.data;
  return {
    x402Version: version,
    requirements: raw,
    amount: BigInt(terms.amount),
    asset: getAddress(terms.asset),
    payTo: getAddress(terms.payTo),
    network: terms.network,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    domain: { name: terms.extra.name, version: terms.extra.version },
  };
}
