import type { LocalAccount } from "viem";

/**
 * Where a server-signed payer's money comes from when its account holds none of its own: a
 * grant the user signed once (lib/grants/grant-payer.ts). The payment is reserved in `budget`
 * too, and `fund` moves exactly its amount into the account just before it is signed.
 */
export type PayerFunding = {
  /** Whose USDC pays (its balance is the one checked). */
  owner: `0x${string}`;
  /** The grant's budget in the ledger (`id` names the grant, as `d:` shows it). */
  budget: { id: string; key: string; limit: bigint; label: string };
  /** `pulled` of it moved now (in `transaction`); the rest was the owner's money already on the account. */
  fund(amount: bigint): Promise<{ ok: true; pulled: bigint; transaction?: `0x${string}` } | { ok: false; message: string }>;
  /** Lets Permit2 move the account's USDC, where a scheme needs it (a metered permit) and it is missing. */
  approvePermit2(): Promise<{ ok: true } | { ok: false; message: string }>;
  /** Gives the owner back what the account holds once its source has ended and nothing is in flight; the amount returned. */
  returnIdleFloat(): Promise<bigint>;
  /** Names the source in the stream and the journal ("grant 0123…"). */
  source: string;
};

/** A payer key and what funds it (a grant): the door builds it, the purchase signs with it. */
export type FundedPayer = { account: LocalAccount; funding: PayerFunding };
