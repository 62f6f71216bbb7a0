/**
 * Whether the user's own words named a URL: such a URL may be called without discovery having
 * listed it (and the agent wallet may pay it without asking again).
 */
import type { ChatMessage } from "../stream/chat-request";
import { stripQuery } from "../x402/discovery-client";

const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/g;

/** True when a user message names exactly this URL (query string ignored), not just a prefix of it. */
export function userNamed(messages: readonly ChatMessage[], url: string): boolean {
  const target = stripQuery(url);
  return messages.some((message) => message.role === "user" && (message.content.match(URL_IN_TEXT) ?? []).some((named) => stripQuery(trimPunctuation(named)) === target));
}

/** A URL at the end of a sentence often carries the sentence's punctuation. */
function trimPunctuation(url: string): string {
  return url.replace(/[).,;:!?\]}]+$/, "");
}
