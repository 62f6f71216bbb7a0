/** What the offline demo model says: help, a list of services, the outcome of a purchase. */
import type { DemoIntent } from "./demo-intent";

export const LABEL = "*(Offline demo model: no AI service is connected; answers are scripted.)*";

export type ServiceEntry = {
  name?: string;
  resource?: string;
  price?: string;
  description?: string;
  /** The service's example call (see lib/x402/call-usage.ts `exampleCall`). */
  example?: { method?: string; url?: string; query?: string[]; path?: Record<string, string>; template?: string; body?: Record<string, unknown> };
};

export function helpText(userText: string): string {
  const greeting = /^\s*(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(userText) ? "Hello! " : "";
  return [
    LABEL,
    "",
    `${greeting}I am the offline demo agent. I find paid HTTP services that speak x402 and pay them in USDC, within your spending limits. Try:`,
    "",
    "- “What's the weather in Lisbon?”",
    "- “Find me a service for crypto prices”",
    "- “Get today's headlines about AI”",
    "- “Buy the premium report”",
    "- “Compare the prices of all services”",
    "",
    "With an OpenAI-compatible model configured (`OPENAI_API_KEY`), I can handle any request.",
  ].join("\n");
}

export function listText(services: ServiceEntry[], intent: DemoIntent): string {
  if (services.length === 0) return `${LABEL}\n\nI found no paid services${intent.kind === "discover" && intent.query ? ` for “${intent.query}”` : ""}.`;
  const sorted = [...services].sort((left, right) => Number(left.price ?? 0) - Number(right.price ?? 0));
  const lines = sorted.map((service) => `- **${service.name ?? "service"}**: ${service.price ?? "?"} USDC per call${service.description ? ` — ${service.description}` : ""}`);
  return [LABEL, "", `I found ${services.length} paid service${services.length === 1 ? "" : "s"}, cheapest first:`, "", ...lines, "", "Ask me to use one and I will pay for it within your limits."].join("\n");
}

export function purchaseText(value: unknown): string {
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
        LABEL,
        "",
        `I paid **${result.amountUsdc} USDC** to ${result.service} (transaction \`${result.txHash}\`). Here is what it returned:`,
        "",
        formatData(result.result?.data),
      ].join("\n");
    case "free":
      return [LABEL, "", `${result.service} answered without asking for payment:`, "", formatData(result.result?.data)].join("\n");
    case "already-paid":
      return [LABEL, "", `This wallet already paid ${result.service} for this, so it served it again after a sign-in; **nothing was paid now**:`, "", formatData(result.result?.data)].join("\n");
    case "awaiting-approval":
      return `${LABEL}\n\n${result.service} asks ${result.amountUsdc} USDC. Approve the payment in your wallet to continue.`;
    case "pending":
      return `${LABEL}\n\n${result.message ?? "The payment is still settling."}`;
    default: {
      const reason = result.reason === "limit-exceeded"
        ? "It would exceed your spending limits, so I did not pay."
        : result.reason === "insufficient-balance"
          ? "The paying wallet does not hold enough USDC."
          : result.reason === "service-unavailable"
            ? "The service is offline."
            : "The payment did not go through.";
      return `${LABEL}\n\n${reason} ${result.message ?? ""}`.trim();
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
  for (const [key, item] of Object.entries(data as Record<string, unknown>)) {
    if (item && typeof item === "object") {
      lines.push(`${indent}- **${key}**:`, formatData(item, depth + 1));
    } else {
      lines.push(`${indent}- **${key}**: ${String(item)}`);
    }
  }
  return lines.join("\n");
}

function summarise(item: Record<string, unknown>): string {
  return Object.entries(item)
    .filter(([, value]) => typeof value !== "object")
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(", ");
}
