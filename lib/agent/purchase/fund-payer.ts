/**
 * A funded payer's money, just before it signs (a grant's payer key, lib/grants/grant-payer.ts):
 * Permit2's approval where the scheme needs it and the account lacks it, then exactly the
 * payment's amount from the owner, less any float the account already holds. Runs after the
 * budgets held the payment, so nothing moves for a payment the limits refuse.
 */
import { formatUsdc } from "../../money";
import type { PayerFunding } from "./purchase-types";

export type Funded = { ok: true; words: string } | { ok: false; message: string };

export async function fundPayer(funding: PayerFunding, amount: bigint, permit2Missing: boolean): Promise<Funded> {
  const ready = permit2Missing ? await funding.approvePermit2() : ({ ok: true } as const);
  if (!ready.ok) return ready;
  const moved = await funding.fund(amount);
  if (!moved.ok) return moved;
  const price = formatUsdc(amount);
  if (moved.pulled === 0n) return { ok: true, words: `Its ${price} USDC is what ${funding.source} left on the payer account before (float).` };
  const pulled = formatUsdc(moved.pulled);
  const part = moved.pulled === amount ? `Its ${price} USDC` : `${pulled} USDC of it (the rest float from before)`;
  return { ok: true, words: `${part} came from ${funding.source} (transaction ${moved.transaction}).` };
}
