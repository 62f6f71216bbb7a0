/** What the offline demo model says: help, a list of services, the choice it made and the outcome. */
import type { FilledInput, PlannedCall } from "./call-plan";
import { asText } from "./call-plan";
import type { InputField, ServiceEntry } from "./listing-inputs";
import type { RankedListing } from "./listing-relevance";

export type { ServiceEntry } from "./listing-inputs";

export const LABEL = "*(Offline demo model: no AI service is connected; answers follow fixed rules.)*";

/** Listings shown when nothing fits: enough to choose from, few enough to read. */
const CLOSEST_SHOWN = 3;

export function helpText(userText: string): string {
  const greeting = /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(userText) ? "Hello! " : "";
  return [
    LABEL,
    "",
    `${greeting}I am the offline demo agent. Ask in plain words for something a paid HTTP service could answer: I search the Bazaar for it with your words, pick the listing that fits best, fill in its inputs from your message and pay it in USDC, within your spending limits. For example:`,
    "",
    "- “What's the weather in Lisbon?”",
    "- “Extract the keywords from this: …”",
    "- “What are the best museums in Lisbon for a 2 day trip?”",
    "- “Compare the prices of all services”",
    "",
    "With an OpenAI-compatible model configured (`OPENAI_API_KEY`), I can handle any request.",
  ].join("\n");
}

export function listText(services: ServiceEntry[], query: string | undefined): string {
  if (services.length === 0) return `${LABEL}\n\nI found no paid services${query ? ` for “${query}”` : ""}.`;
  const sorted = [...services].sort((left, right) => Number(left.price ?? 0) - Number(right.price ?? 0));
  const lines = sorted.map(listingLine);
  return [
    LABEL,
    "",
    `I found ${services.length} paid service${services.length === 1 ? "" : "s"}, cheapest first:`,
    "",
    ...lines,
    "",
    "Ask me to use one and I will pay for it within your limits.",
  ].join("\n");
}

function listingLine(service: ServiceEntry): string {
  return `- **${service.name ?? "service"}**${service.mcp ? " (MCP tool)" : ""}: ${service.price ?? "?"} USDC per call${service.description ? ` — ${service.description}` : ""}`;
}

/** Nothing listed fits: what was searched, and the closest listings with their prices. */
export function nothingFitsText(searches: readonly (string | undefined)[], ranked: readonly RankedListing[]): string {
  const closest = ranked.slice(0, CLOSEST_SHOWN).map((listing) => listingLine(listing.entry));
  const queries = searches.filter((query): query is string => query !== undefined).map((query) => `“${shorten(query, 120)}”`);
  const listed = searches.includes(undefined) ? ", and looked through its list" : "";
  return [
    LABEL,
    "",
    `I searched the Bazaar for ${queries.join(", then for ")}${listed}: nothing listed fits this request, so I did not call or pay anything.`,
    ...(closest.length > 0 ? ["", "The closest listings:", "", ...closest] : ["", "The search found no listings at all."]),
    "",
    "Ask for one of these by what it does, or try other words.",
  ].join("\n");
}

/** A required input the request does not give and the service has no example for. */
export function askText(entry: ServiceEntry, missing: readonly InputField[]): string {
  const wanted = missing.map((field) => {
    // A set the description spells out is said there already; a declared enum is said here.
    const among = field.choices && field.choices.length > 0 ? ` (one of: ${field.choices.map((choice) => asText(choice)).join(", ")})` : "";
    return `- **${field.name}**${field.description ? `: ${field.description}` : ""}${among}`;
  });
  return [
    LABEL,
    "",
    `**${entry.name ?? "The service"}** (${entry.price ?? "?"} USDC per call) fits this request, but it needs ${missing.length === 1 ? "a value" : "values"} I cannot tell from your message, and it gives no example to assume:`,
    "",
    ...wanted,
    "",
    "Tell me and I will call it. Nothing was paid.",
  ].join("\n");
}

export function discoveryFailedText(message: string | undefined): string {
  return `${LABEL}\n\n${message ?? "Service discovery is unavailable right now."} Nothing was paid.`;
}

export type Choice = { entry: ServiceEntry; inputs: readonly FilledInput[]; found: number; query: string };

/** The answer after a call: which listing was chosen, what was assumed, then what happened. */
export function answerText(choice: Choice | undefined, outcome: unknown): string {
  if (!choice) return purchaseText(outcome);
  const { entry, inputs, found, query } = choice;
  const lines = [
    LABEL,
    "",
    `For “${shorten(query, 120)}” I chose **${entry.name ?? "a service"}** (${entry.price ?? "?"} USDC per call), the best fit of ${found} listing${found === 1 ? "" : "s"} found.`,
  ];
  if (inputs.length > 0) lines.push("", ...inputs.map(inputLine));
  lines.push("", ...outcomeLines(outcome));
  return lines.join("\n");
}

/** The answer after a call to a URL the user gave: that URL, as written, then what happened. */
export function namedCallText(call: PlannedCall, listing: ServiceEntry | undefined, outcome: unknown): string {
  const listed = listing
    ? `Discovery lists it as **${listing.name ?? "a service"}** (${listing.price ?? "?"} USDC per call).`
    : "No discovery listing names it, so it counts as an unlisted URL.";
  return [
    LABEL,
    "",
    `You gave the URL ${shorten(call.url, 300)}, so I called exactly that (${call.method}${call.body ? " with the body you wrote" : ""}): its path and query as you wrote them, nothing filled in from the rest of your message. ${listed}`,
    "",
    ...outcomeLines(outcome),
  ].join("\n");
}

function inputLine(input: FilledInput): string {
  const value = `**${input.field.name}** = “${shorten(asText(input.value), 80)}”`;
  const about = input.field.description ? ` (${input.field.description})` : "";
  switch (input.from) {
    case "request":
      return `- ${value}, from your message`;
    case "clamped":
      return `- ${value}: the value you gave is outside what the service takes${about}, so I used the nearest it accepts`;
    case "example":
      return `- ${value}: you did not say${about}, so I assumed the service's own example`;
  }
}

function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function purchaseText(value: unknown): string {
  return [LABEL, "", ...outcomeLines(value)].join("\n");
}

function outcomeLines(value: unknown): string[] {
  const result = (value ?? {}) as {
    status?: string;
    service?: string;
    amountUsdc?: string;
    txHash?: string;
    message?: string;
    reason?: string;
    result?: { data?: unknown };
  };
  switch (result.status) {
    case "paid":
      return [
        `I paid **${result.amountUsdc} USDC** to ${result.service} (transaction \`${result.txHash}\`). Here is what it returned:`,
        "",
        formatData(result.result?.data),
      ];
    case "free":
      return [`${result.service} answered without asking for payment:`, "", formatData(result.result?.data)];
    case "already-paid":
      return [
        `This wallet already paid ${result.service} for this, so it served it again after a sign-in; **nothing was paid now**:`,
        "",
        formatData(result.result?.data),
      ];
    case "awaiting-approval":
      return [`${result.service} asks ${result.amountUsdc} USDC. Approve the payment in your wallet to continue.`];
    case "pending":
      return [result.message ?? "The payment is still settling."];
    case "refused":
      return [`Nothing was paid. ${result.message ?? ""}`.trim()];
    default: {
      const reason =
        result.reason === "limit-exceeded"
          ? "It would exceed your spending limits, so I did not pay."
          : result.reason === "insufficient-balance"
            ? "The paying wallet does not hold enough USDC."
            : result.reason === "service-unavailable"
              ? "The service is offline."
              : "The payment did not go through.";
      return [`${reason} ${result.message ?? ""}`.trim()];
    }
  }
}

/** Renders service data as Markdown: scalars as a list, arrays of items as bullets. */
function formatData(data: unknown, depth = 0): string {
  if (data === null || data === undefined) return "_(no data)_";
  if (typeof data !== "object") return String(data);
  const indent = "  ".repeat(depth);
  if (Array.isArray(data)) {
    return data
      .slice(0, 10)
      .map((item) => (item && typeof item === "object" ? `${indent}- ${summarise(item as Record<string, unknown>)}` : `${indent}- ${String(item)}`))
      .join("\n");
  }
  const lines: string[] = [];
  for (const [key, item] of Object.entries(withoutDemoMarkers(data as Record<string, unknown>, depth))) {
    if (item && typeof item === "object") {
      lines.push(`${indent}- **${key}**:`, formatData(item, depth + 1));
    } else {
      lines.push(`${indent}- **${key}**: ${String(item)}`);
    }
  }
  return lines.join("\n");
}

/**
 * A top-level `demo: true` and its `note` say the data is synthetic: the page's result card
 * shows that as one notice, so the answer's text does not repeat it as data.
 */
function withoutDemoMarkers(data: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth > 0 || data.demo !== true) return data;
  const { demo: _demo, note: _note, ...rest } = data;
  return rest;
}

function summarise(item: Record<string, unknown>): string {
  return Object.entries(item)
    .filter(([, value]) => typeof value !== "object")
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(", ");
}
