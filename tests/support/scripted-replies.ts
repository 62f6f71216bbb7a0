/**
 * Replies for the fake OpenAI server (fake-openai-server.ts) that stand in for a model obeying
 * the user: what the hostile and access tests need to make the agent call a URL a person wrote.
 */
import type { ChatCompletionMessage, ScriptedReply } from "./fake-openai-server";

/** The text of a message, whether its content is a string or a list of parts. */
export function textOf(message: ChatCompletionMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}

/**
 * Calls the first URL of the last user message once (GET), then answers with the start of the
 * tool's result, so a test can see in the text what the call brought back.
 */
export function callUserNamedUrl(messages: ChatCompletionMessage[]): ScriptedReply {
  const last = messages.at(-1);
  if (last?.role === "tool") return { text: `Result: ${textOf(last).slice(0, 400)}` };
  const url = /https?:\/\/[^\s"']+/.exec(textOf(messages.findLast((message) => message.role === "user")))?.[0];
  return url ? { toolCalls: [{ name: "call_paid_service", arguments: { url, method: "GET" } }] } : { text: "Which URL?" };
}
