import "server-only";
/**
 * `spending_status`: the caller's limits, what is spent and reserved against them in the
 * rolling day, and the caller's latest payments from the journal. A caller sees its own
 * payments only: those whose request key's namespace is its own (an API key's, a signed-in
 * wallet's, or, for anonymous callers, the client address's), through the chat or this server,
 * compared whole, never by prefix.
 */
import { describeLimits } from "../../access/caller-limits";
import { toPaymentView } from "../../payments/payment-view";
import { isOwnRequestKey, limitsOf } from "../call-scope";
import { readDailyRoom } from "../daily-room";
import type { McpContext } from "../mcp-context";
import { toolResult } from "../tool-result";
import { formatUsdc } from "../../money";
import type { Caller } from "../../access/caller";

/** The agent wallet's latest payments searched for the caller's, and how many of those are shown. */
const SEARCHED_PAYMENTS = 200;
const SHOWN_PAYMENTS = 10;

export const SPENDING_STATUS = {
  name: "spending_status",
  title: "Spending status",
  description:
    "This caller's spending limits in USDC (per payment, per request, daily) and where each comes from, what is spent and reserved against the daily limits in the last 24 hours, and this caller's most recent payments from the agent wallet (status, service, amount, transaction hash). Reads only.",
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
} as const;

export async function spendingStatus(context: McpContext) {
  const { deps } = context;
  const resolved = limitsOf(context, undefined);
  const { limits } = resolved;
  const payer = deps.agentAccount?.address;
  const now = deps.storeClock?.();
  const [daily, history] = await Promise.all([
    readDailyRoom(deps.store.ledger, limits, payer, now),
    payer ? deps.store.journal.history({ payer, limit: SEARCHED_PAYMENTS }) : Promise.resolve([]),
  ]);
  const own = history.filter((payment) => payment.requestKey !== undefined && isOwnRequestKey(context, payment.requestKey));
  return toolResult({
    caller: describeCaller(context.caller),
    access: deps.settings.access.mode,
    agentWallet: payer ?? null,
    network: deps.network.caip2,
    limits: {
      perPayment: formatUsdc(limits.perPayment),
      perRequest: formatUsdc(limits.perRequest),
      daily: formatUsdc(limits.daily),
      sources: describeLimits(resolved),
    },
    today: { limits: daily.limits, left: formatUsdc(daily.left) },
    recentPayments: own.slice(0, SHOWN_PAYMENTS).map((payment) => toPaymentView(payment, deps.network)),
  });
}

function describeCaller(caller: Caller) {
  switch (caller.kind) {
    case "key":
      return { kind: "api-key", id: caller.id, name: caller.name };
    case "account":
      return { kind: "signed-in wallet", address: caller.address };
    default:
      return { kind: "anonymous" };
  }
}
