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
import type { GrantFunds, MoveOutcome } from "./grant-funds";
import { grantScope, grantState, type GrantRecord, type GrantStore } from "./grants";
import { payerKeyOf } from "./payer-key";

export type FundOutcome = { ok: true; transaction: `0x${string}` } | { ok: false; message: string };

/** The shape the purchase core takes as a payer's funding (purchase-types.ts `PayerFunding`). */
export type GrantFunding = {
  /** Whose USDC pays: the grant's wallet. */
  owner: `0x${string}`;
  /** The grant's budget, reserved beside the user's own limits. */
  budget: { key: string; limit: bigint; label: string };
  /** Moves `amount` from the owner to the payer key; a refusal says why in words. */
  fund(amount: bigint): Promise<FundOutcome>;
  /** What the journal and the stream call the source of the money. */
  source: string;
};

export type GrantPayer = { account: LocalAccount; funding: GrantFunding };

export type GrantPayerOptions = {
  relayerPrivateKey: Hex;
  chainId: number;
  grants: Pick<GrantStore, "get">;
  funds: Pick<GrantFunds, "pull">;
  now: () => number;
};

export function createGrantPayers(options: GrantPayerOptions): (grant: GrantRecord) => GrantPayer {
  return (grant) => {
    const account = localAccount(payerKeyOf(options.relayerPrivateKey, options.chainId, grant.walletAddress));
    const label = `your grant of ${formatUsdc(grant.amount)} USDC`;
    return {
      account,
      funding: {
        owner: grant.walletAddress,
        budget: { key: grantScope(grant.id), limit: grant.amount, label },
        source: `grant ${grant.id}`,
        async fund(amount) {
          const current = await options.grants.get(grant.id);
          const state = current ? grantState(current, options.now()) : "revoked";
          if (state !== "active") return { ok: false, message: `The grant is ${state}, so nothing more is paid from it` };
          try {
            const moved = await options.funds.pull(grant.walletAddress, account.address, amount);
            return moved.ok ? moved : { ok: false, message: refusalWords(moved, amount) };
          } catch {
            // Not sent, or sent and not seen mined in time: either way nothing is signed to the
            // service, and a pull that did land is float the user gets back.
            return { ok: false, message: `The chain did not confirm moving ${formatUsdc(amount)} USDC from your wallet in time` };
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
