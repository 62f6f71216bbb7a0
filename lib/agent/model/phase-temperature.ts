/**
 * Temperature by phase, as the spec's table asks: low when the model is confirming a payment,
 * high while it explores discovery results, balanced otherwise. Decided per model call from
 * what the call is answering, not once per request.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from "@ai-sdk/provider";

export type PhaseTemperatures = { payment: number; standard: number; discovery: number };

export type Phase = keyof PhaseTemperatures;

export function phaseOf(prompt: LanguageModelV4Prompt): Phase {
  const last = prompt.at(-1);
  if (last?.role === "tool") {
    const toolNames = last.content.flatMap((part) => (part.type === "tool-result" ? [part.toolName] : []));
    if (toolNames.includes("call_paid_service")) return "payment";
    if (toolNames.includes("discover_services")) return "discovery";
  }
  if (last?.role === "user") {
    const text = last.content.map((part) => (part.type === "text" ? part.text : "")).join(" ");
    if (/\b(find|discover|search|list|compare|which services|what services)\b/i.test(text)) return "discovery";
  }
  return "standard";
}

export function withPhaseTemperature(params: LanguageModelV4CallOptions, temperatures: PhaseTemperatures): LanguageModelV4CallOptions {
  return { ...params, temperature: temperatures[phaseOf(params.prompt)] };
}
