/**
 * Where a purchase's progress goes, as a listener: the payment tracker reports each step to it.
 * The chat's `StreamWriter` is one (it writes `p:` lines); MCP's progress notifications are
 * another, plugged in directly (`CheckedRunListener`, run-listener.ts), with no stream bytes
 * encoded and decoded again in between. Either way each event passes the stream's schema and
 * ordering rules.
 */
import type { StreamWriter } from "../../stream";

export type PaymentListener = Pick<StreamWriter, "payment" | "statusOf">;
