import "server-only";
/**
 * A grant as a payer of the purchase core: the wallet's payer key signs as the agent wallet
 * does, and just before it signs, `fund` pulls exactly the payment's amount from the user under
 * their Permit2 allowance (grant-funds.ts). What the grant has spent is the ledger scope
 * `grant:<id>`, reserved beside the user's own limits in one step, so the database refuses a
 * payment past the grant on every instance before the chain would.
 *
 * `fund` reads the grant again first: a revoke in the app (on any instance) stops the next pull
 * at once, whatever the request that started earlier believed.
 */
import type { Hex, LocalAccount } from "viem";
import { localAccount } from "../crypto/secp256k1";
import { formatUsdc } from "../money";
import { idleFloat, returnEndedFloat, type FloatReturn } from "./grant-float";
import type { GrantFunds, MoveOutcome } from "./grant-funds";
import { grantScope, grantState, type GrantRecord, type GrantStore } from "./grants";
import { payerKeyOf } from "./payer-key";

/** `pulled` of the amount came from the user now (in `transaction`); the rest was float already held. */
export type FundOutcome = { ok: true; pulled: bigint; transaction?: `0x${string}` } | { ok: false; message: string };

/** The shape the purchase core takes as a payer's funding (purchase-types.ts `PayerFunding`). */
export type GrantFunding = {
  /** Whose USDC pays: the grant's wallet. */
  owner: `0x${string}`;
  /** The grant's budget, reserved beside the user's own limits. */
  budget: { id: string; key: string; limit: bigint; label: string };
  /** Moves `amount` from the owner to the payer key; a refusal says why in words. */
  fund(amount: bigint): Promise<FundOutcome>;
  /** Lets Permit2 move the payer key's USDC (a metered payment is a Permit2 permit), once per payer key. */
  approvePermit2(): Promise<{ ok: true } | { ok: false; message: string }>;
  /**
   * Once the grant has ended (revoked, expired; not replaced, whose float is the newer grant's)
   * and no payment of the payer key is in flight, returns what it holds (an `upto` remainder, a
   * pull whose payment failed) to the owner (grant-float.ts); the amount returned, 0 when
   * nothing was. While the grant is active its float pays the next payment instead: what the
   * ledger counts as spent from the grant is what settled, and float plus the allowance left on
   * chain always covers the rest.
   */
  returnIdleFloat(): Promise<bigint>;
  /** What the journal and the stream call the source of the money. */
  source: string;
};

export type GrantPayer = {
  account: LocalAccount;
  funding: GrantFunding;
  /** `funding.returnIdleFloat` with its whole outcome (grant-float.ts): the reconciler's sweep reads it. */
  returnFloat(): Promise<FloatReturn>;
};

export type GrantPayerOptions = {
  relayerPrivateKey: Hex;
  chainId: number;
  grants: Pick<GrantStore, "get" | "claimFloat" | "releaseFloat">;
  funds: Pick<GrantFunds, "pull" | "balanceOf" | "approvePermit2" | "sweep">;
  /** What the ledger holds reserved for a payer now (its payments in flight), on every instance. */
  reservedFor(payer: `0x${string}`): Promise<bigint>;
  now: () => number;
  /** A test's clock for the store's decision that a grant ended (grant-float.ts); unset, the database's. */
  storeNow?: () => number;
};

export function createGrantPayers(options: GrantPayerOptions): (grant: GrantRecord) => GrantPayer {
  return (grant) => {
    const payerKey = payerKeyOf(options.relayerPrivateKey, options.chainId, grant.walletAddress);
    const account = localAccount(payerKey);
    const label = `your grant of ${formatUsdc(grant.amount)} USDC`;
    const returnFloat = () => returnEndedFloat(options, grant, { key: payerKey, address: account.address });
    return {
      account,
      returnFloat,
      funding: {
        owner: grant.walletAddress,
        budget: { id: grant.id, key: grantScope(grant.id), limit: grant.amount, label },
        source: `grant ${grant.id}`,
        async fund(amount) {
          const current = await options.grants.get(grant.id);
          const state = current ? grantState(current, options.now()) : "revoked";
          if (state !== "active") return { ok: false, message: `The grant is ${state}, so nothing more is paid from it` };
          try {
            const float = await idleFloat(options, account.address, amount);
            const need = amount - (float === "in-flight" ? 0n : float);
            if (need <= 0n) return { ok: true, pulled: 0n };
            const moved = await options.funds.pull(grant.walletAddress, account.address, need);
            return moved.ok ? { ok: true, pulled: need, transaction: moved.transaction } : { ok: false, message: refusalWords(moved, need) };
          } catch {
            // Not sent, or sent and not seen mined in time: either way nothing is signed to the
            // service, and a pull that did land is float the user gets back.
            return { ok: false, message: `The chain did not confirm moving ${formatUsdc(amount)} USDC from your wallet in time` };
          }
        },
        async returnIdleFloat() {
          const outcome = await returnFloat();
          return outcome.state === "returned" ? outcome.returned : 0n;
        },
        async approvePermit2() {
          try {
            const approved = await options.funds.approvePermit2(payerKey);
            return approved.ok ? { ok: true } : { ok: false, message: `The chain refused Permit2's approval for the payer account (${approved.detail})` };
          } catch {
            return { ok: false, message: "The chain did not confirm Permit2's approval for the payer account in time" };
          }
        },
      },
    };
  };
}

function refusalWords(moved: Extract<MoveOutcome, { ok: false }>, amount: bigint): string {
  const price = `${formatUsdc(amount)} USDC`;
  if (moved.reason === "exceeds-allowance") {
    return `Permit2 refused to move ${price} from your wallet: what is left of the allowance you signed is less (spent, lowered by a newer grant, or locked down from your wallet)`;
  }
  if (moved.reason === "expired") return `Permit2 refused to move ${price} from your wallet: the allowance you signed has expired`;
  return `The chain refused to move ${price} from your wallet (${moved.detail})`;
}
