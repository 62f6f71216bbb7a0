/**
 * Refuses message content that contains a wallet secret (docs/decisions.md, statuses: 403 unsafe
 * content), so that a private key or seed phrase pasted by mistake never reaches the model
 * provider, the logs or a paid service. Content is normalised first (invisible and bidi
 * characters removed, NFKC), and detection runs on the normalised text, so a key split by
 * zero-width spaces is still caught; the normalised text is what callers should pass on.
 *
 * Nothing here logs, and results never include the content or the matched secret.
 * The module is pure, so the browser can use it to warn before sending.
 */
import { normalizeText } from "./normalize-text";
import { containsPrivateKey } from "./private-key-detector";
import { containsSeedPhrase } from "./seed-phrase-detector";

export type UnsafeContentReason = "private_key" | "seed_phrase";

export type ContentInspection = { safe: true; normalized: string } | { safe: false; reason: UnsafeContentReason };

/**
 * Normalises one message and checks it for a private key or seed phrase.
 *
 * @example
 * inspectMessageContent("What does the weather service cost?");
 * // { safe: true, normalized: "What does the weather service cost?" }
 * inspectMessageContent("my key: 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
 * // { safe: false, reason: "private_key" }
 */
export function inspectMessageContent(text: string): ContentInspection {
  const normalized = normalizeText(text);
  // Every role is held to the same rule: the role is chosen by whoever sends the request, so
  // an "assistant" message is no more the agent's own words than a "user" one.
  if (containsPrivateKey(normalized)) {
    return { safe: false, reason: "private_key" };
  }
  if (containsSeedPhrase(normalized)) return { safe: false, reason: "seed_phrase" };
  return { safe: true, normalized };
}

export type MessagesInspection<Message> = { safe: true; messages: Message[] } | { safe: false; reason: UnsafeContentReason; messageIndex: number };

/**
 * Inspects every message; returns the first problem (with the message's index), or the
 * messages with their content normalised.
 *
 * @example
 * const result = inspectMessages(body.messages);
 * if (!result.safe) throw new AppError("forbidden:unsafe_content");
 * const messages = result.messages; // normalised content, same roles
 */
export function inspectMessages<Message extends { role: string; content: string }>(messages: readonly Message[]): MessagesInspection<Message> {
  const normalizedMessages: Message[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    const inspection = inspectMessageContent(message.content);
    if (!inspection.safe) return { safe: false, reason: inspection.reason, messageIndex };
    normalizedMessages.push({ ...message, content: inspection.normalized });
  }
  return { safe: true, messages: normalizedMessages };
}
