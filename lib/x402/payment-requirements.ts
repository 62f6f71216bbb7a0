/**
 * Reads a service's 402 answer (x402 v1 body or v2 `PAYMENT-REQUIRED` header) and picks the
 * option this deployment can pay: scheme `exact` by EIP-3009, or (where the payer can sign it)
 * `upto` by Permit2, on our network, in our USDC. The service's words are data: nothing here
 * trusts a field it has not validated.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { getAddress } from "viem";
import { z } from "zod";
import { withinJsonLimits } from "../json-limits";
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

/**
 * An `upto` option's extra (x402 v2, EVM): the token's EIP-712 domain, Permit2 as the only
 * transfer method, and the facilitator whose account alone may settle the permit (it is signed
 * into the witness). A service may describe its metering there too (what a unit is and its
 * price in base units); when it does, the agent holds the settlement to it.
 */
const uptoExtra = z.looseObject({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(16),
  assetTransferMethod: z.literal("permit2").optional(),
  facilitatorAddress: address,
  metering: z
    .looseObject({ unit: z.string().max(64).optional(), unitPrice: baseUnits })
    .optional()
    .catch(undefined),
});

const UptoRequirementV2 = z.looseObject({
  scheme: z.literal("upto"),
  network: z.string(),
  amount: baseUnits,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: uptoExtra,
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

const RequirementV1 = z
  .looseObject({
    scheme: z.string(),
    network: z.string(),
    maxAmountRequired: baseUnits,
    asset: address,
    payTo: address,
    resource: z.string().optional(),
    description: z.string().optional(),
    maxTimeoutSeconds: z.number().int().positive().max(86_400),
    extra: domainExtra,
  })
  .transform((terms) => ({ ...terms, amount: terms.maxAmountRequired }));

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
  /**
   * Present for an `upto` option: `amount` is then the ceiling the payer signs, and the service
   * settles what it used, at most that. `unitPrice` is the price per unit the 402 declared.
   */
  upto?: { facilitator: `0x${string}`; unitPrice?: bigint };
};

/** The schemes this code can pay: `exact` (EIP-3009) and `upto` (Permit2, x402 v2). */
export type SchemeName = "exact" | "upto";

export type SelectionOptions = {
  /** The schemes the payer can sign; `exact` alone unless named. */
  schemes?: readonly SchemeName[];
  /**
   * Whether an amount is within the payer's limits. With both schemes offered, `exact` is taken
   * when its price fits, else `upto` when its ceiling fits (docs/decisions.md, "Metered
   * payments: upto").
   */
  fits?: (amount: bigint) => boolean;
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
  return parsePaymentRequired(body);
}

/** A payment request handed over as it is (an MCP tool's `PaymentRequired`, a 402's JSON body), read by the same schemas. */
export function parsePaymentRequired(value: unknown): PaymentRequired | undefined {
  const v2 = PaymentRequiredV2.safeParse(value);
  if (v2.success) return v2.data;
  const v1 = PaymentRequiredV1.safeParse(value);
  return v1.success ? v1.data : undefined;
}

export type SelectionResult = { ok: true; option: PayableRequirement } | { ok: false; reason: string };

/**
 * Picks the option we pay: on our network, in our USDC, of a scheme the payer can sign; the
 * cheapest of a scheme. Between schemes: `exact` (a known price) when it fits the limits, else
 * `upto` when its ceiling fits, and `upto` as well when its ceiling is below the exact price
 * (its worst case is then cheaper than the certain price). Nothing fitting: the cheapest exact
 * (else upto) option, for the limit check to refuse by name.
 */
export function selectPayableRequirement(paymentRequired: PaymentRequired, network: PayableNetwork, selection: SelectionOptions = {}): SelectionResult {
  const schemes = selection.schemes ?? ["exact"];
  const options: PayableRequirement[] = [];
  for (const raw of paymentRequired.accepts) {
    const option = toPayable(paymentRequired.x402Version, raw);
    if (!option) continue;
    const scheme = option.upto ? "upto" : option.requirements.scheme === "exact" ? "exact" : undefined;
    if (!scheme || !schemes.includes(scheme)) continue;
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
  const exact = options.find((option) => !option.upto);
  const upto = options.find((option) => option.upto);
  const fits = selection.fits ?? (() => true);
  if (exact && upto) {
    if (fits(exact.amount) && exact.amount <= upto.amount) return { ok: true, option: exact };
    if (fits(upto.amount)) return { ok: true, option: upto };
  }
  return { ok: true, option: (exact ?? upto) as PayableRequirement };
}

function toPayable(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined {
  // The object is signed over (canonical JSON in the nonce) and echoed back: bound it first.
  if (!withinJsonLimits(raw)) return undefined;
  if (raw.scheme === "upto") return version === 2 ? toPayableUpto(raw) : undefined;
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

/** An `upto` option (x402 v2 only; on EVM, Permit2 only). */
function toPayableUpto(raw: Record<string, unknown>): PayableRequirement | undefined {
  const parsed = UptoRequirementV2.safeParse(raw);
  if (!parsed.success) return undefined;
  const terms = parsed.data;
  const unitPrice = terms.extra.metering?.unitPrice;
  return {
    x402Version: 2,
    requirements: raw,
    amount: BigInt(terms.amount),
    asset: getAddress(terms.asset),
    payTo: getAddress(terms.payTo),
    network: terms.network,
    maxTimeoutSeconds: terms.maxTimeoutSeconds,
    domain: { name: terms.extra.name, version: terms.extra.version },
    upto: { facilitator: getAddress(terms.extra.facilitatorAddress), ...(unitPrice === undefined ? {} : { unitPrice: BigInt(unitPrice) }) },
  };
}
