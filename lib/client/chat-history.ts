/** The conversation as the page sends it back to the server, within the server's rules. */
import type { ChatMessage } from "@/lib/stream/chat-request";
import { MAX_MESSAGES, MAX_TOTAL_CHARS } from "@/lib/stream/chat-size-limits";
import { normalizeText } from "@/lib/safety/normalize-text";
import { containsPrivateKey } from "@/lib/safety/private-key-detector";
import { staleAskParts } from "./approval-state";
import type { AssistantTurn, Turn } from "./chat-types";
import { shortHex } from "./format";

/**
 * The text the assistant said in a turn, across all its requests, without the asks for an
 * approval that was since answered or expired (the model must not read a payment as still
 * waiting).
 */
export function assistantText(turn: AssistantTurn, nowMs = Date.now()): string {
  const stale = staleAskParts(turn, nowMs);
  return turn.parts
    .flatMap((part) => (part.kind === "text" && !stale.has(part.key) ? [part.text] : []))
    .join("\n\n")
    .trim();
}

/** A 0x-prefixed 32-byte hex string standing alone: a settlement hash in the agent's text. */
const PREFIXED_HASH = /\b0x[0-9a-f]{64}\b/gi;

/**
 * The assistant's text as it goes back to the server in the history. The server refuses any
 * message holding 64 hex digits that it cannot tell from a private key, whatever its role, and
 * the agent's answers quote settlement hashes; so hashes are shortened (the full ones stay on
 * the payment cards), and text that would still be refused is left out of the history rather
 * than making every later message fail. The check runs on the server's normalisation, so a hash
 * split by invisible characters is caught too. Only the key rule is repeated here: the seed
 * phrase detector carries the BIP-39 wordlist, too heavy for the page, and it never had an
 * exception for assistant messages, so nothing changed there.
 */
export function assistantHistoryText(turn: AssistantTurn): string | undefined {
  const text = normalizeText(assistantText(turn)).replace(PREFIXED_HASH, (hash) => shortHex(hash, 10, 8));
  if (!text || containsPrivateKey(normalizeText(text))) return undefined;
  return text;
}

/**
 * The conversation as the request body's `messages`, newest last, trimmed from the oldest end
 * to the server's count and size limits. Refused requests and empty answers are left out.
 */
export function buildMessages(turns: readonly Turn[], nextUserText: string): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const turn of turns) {
    if (turn.role === "user") {
      if (!turn.excluded) history.push({ role: "user", content: turn.content });
      continue;
    }
    const text = assistantHistoryText(turn);
    if (text) history.push({ role: "assistant", content: text });
  }
  history.push({ role: "user", content: nextUserText });
  let total = history.reduce((sum, message) => sum + message.content.length, 0);
  while (history.length > 1 && (history.length > MAX_MESSAGES || total > MAX_TOTAL_CHARS)) {
    const dropped = history.shift() as ChatMessage;
    total -= dropped.content.length;
  }
  return history;
}
