/**
 * The operator's payee policy: which payees, assets and networks the deployment may pay, set
 * in code from the environment and checked before anything is signed. A deny list always wins;
 * an allow list, when given, is the only way in. Addresses compare case-insensitively (EIP-55
 * is only a checksum); networks as their CAIP-2 or v1 names.
 */
import { z } from "zod";

export type PayeePolicy = {
  allowedPayees?: ReadonlySet<string>;
  deniedPayees: ReadonlySet<string>;
  allowedAssets?: ReadonlySet<string>;
  deniedAssets: ReadonlySet<string>;
  allowedNetworks?: ReadonlySet<string>;
  deniedNetworks: ReadonlySet<string>;
};

export const OPEN_POLICY: PayeePolicy = { deniedPayees: new Set(), deniedAssets: new Set(), deniedNetworks: new Set() };

export type PolicyTerms = { payTo: string; asset: string; network: string };
export type PolicyCheck = { ok: true } | { ok: false; message: string };

export function checkPayeePolicy(policy: PayeePolicy, terms: PolicyTerms): PolicyCheck {
  const payTo = terms.payTo.toLowerCase();
  const asset = terms.asset.toLowerCase();
  const refusal = (what: string) => ({ ok: false as const, message: `the operator's policy does not allow paying ${what}` });
  if (policy.deniedPayees.has(payTo) || (policy.allowedPayees && !policy.allowedPayees.has(payTo))) return refusal(`the payee ${terms.payTo}`);
  if (policy.deniedAssets.has(asset) || (policy.allowedAssets && !policy.allowedAssets.has(asset))) return refusal(`in the asset ${terms.asset}`);
  if (policy.deniedNetworks.has(terms.network) || (policy.allowedNetworks && !policy.allowedNetworks.has(terms.network)))
    return refusal(`on the network ${terms.network}`);
  return { ok: true };
}

const AddressList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected comma-separated 0x addresses")).max(1_000))
  .transform((items) => new Set(items.map((item) => item.toLowerCase())));

const NetworkList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9-]{1,32}(:[A-Za-z0-9-]{1,64})?$/, "expected comma-separated network names, e.g. eip155:8453")).max(100))
  .transform((items) => new Set(items));

/** The environment's lists: each a comma-separated string, empty or absent meaning no list. */
export const PayeePolicySettings = z.object({
  PAYEES_ALLOWED: AddressList.optional(),
  PAYEES_DENIED: AddressList.optional(),
  ASSETS_ALLOWED: AddressList.optional(),
  ASSETS_DENIED: AddressList.optional(),
  NETWORKS_ALLOWED: NetworkList.optional(),
  NETWORKS_DENIED: NetworkList.optional(),
});

export function payeePolicyOf(settings: z.output<typeof PayeePolicySettings>): PayeePolicy {
  const allow = (set: Set<string> | undefined) => (set && set.size > 0 ? set : undefined);
  return {
    allowedPayees: allow(settings.PAYEES_ALLOWED),
    deniedPayees: settings.PAYEES_DENIED ?? new Set(),
    allowedAssets: allow(settings.ASSETS_ALLOWED),
    deniedAssets: settings.ASSETS_DENIED ?? new Set(),
    allowedNetworks: allow(settings.NETWORKS_ALLOWED),
    deniedNetworks: settings.NETWORKS_DENIED ?? new Set(),
  };
}
