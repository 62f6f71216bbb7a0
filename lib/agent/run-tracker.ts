import "server-only";
/**
 * The payment tracker of one run: it reports to the run's listener and, where the run may write
 * to the payer's journal, journals each step under the request key and the conversation.
 */
import type { ChatMessage } from "../stream/chat-request";
import type { NamedCall } from "./agent-run-types";
import type { AgentDependencies } from "./agent-dependencies";
import { conversationIdOf } from "./call-checks";
import type { PaymentListener } from "./purchase/payment-listener";
import { PaymentTracker } from "./purchase/payment-tracker";

export function runTracker(
  deps: AgentDependencies,
  input: { writer: PaymentListener; requestKey: string; messages: ChatMessage[]; namedCall?: NamedCall },
  journaled: boolean,
): PaymentTracker {
  const journal = journaled ? { journal: deps.store.journal, requestKey: input.requestKey, conversationId: conversationIdOf(input), now: deps.now } : undefined;
  return new PaymentTracker(input.writer, journal);
}
