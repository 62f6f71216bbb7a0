import { z } from "zod";
import {
  exchangeRates,
  newsHeadlines,
  premiumReport,
  sentimentAnalysis,
  spotPrice,
  SUPPORTED_CURRENCIES,
  translation,
  weatherReport,
} from "./demo-data";

/** One query parameter, as discovery documents it. */
export type QueryParameter = { description: string; example: string };

export type ServiceContext = {
  /** How long the slow service takes to answer. */
  slowDelayMs: number;
  /** Aborted when the caller has gone away: the slow service stops waiting. */
  signal: AbortSignal;
};

export type QueryResult = { ok: true; body: Record<string, unknown> } | { ok: false; detail: string };

/** A paid demo service, independent of how it is served (x402 v1 or v2). */
export type DemoService = {
  /** Stable kebab-case name: used in coordinates, fault switches and tests. */
  name: string;
  /** The human-facing name in discovery. */
  serviceName: string;
  path: string;
  x402Version: 1 | 2;
  /** Price per call in USDC base units (6 decimals). */
  price: bigint;
  description: string;
  tags: string[];
  queryParameters: Record<string, QueryParameter>;
  /** Listed in discovery, but nothing ever answers at its URL. */
  alwaysOffline: boolean;
  /** An example answer, for discovery's output schema. */
  exampleOutput: Record<string, unknown>;
  /** Why the query is unusable, or undefined when it is fine. Checked before any payment is verified. */
  checkQuery(query: URLSearchParams): string | undefined;
  /** Validates the query, then produces the answer. Runs only for a verified payment. */
  answer(query: URLSearchParams, context: ServiceContext): Promise<QueryResult>;
};

type ServiceDefinition<Query> = Omit<DemoService, "answer" | "checkQuery" | "exampleOutput" | "alwaysOffline"> & {
  alwaysOffline?: boolean;
  query: z.ZodType<Query>;
  /** How long to take before answering (only the slow service waits). */
  delayMs?: (context: ServiceContext) => number;
  produce(query: Query, context: ServiceContext): Record<string, unknown>;
};

/** x402 carries at most five tags per resource (longer lists are refused in payment payloads). */
const MAX_TAGS = 5;

function defineService<Query>(definition: ServiceDefinition<Query>): DemoService {
  if (definition.tags.length > MAX_TAGS) throw new Error(`${definition.name}: at most ${MAX_TAGS} tags`);
  const { query: schema, produce, delayMs, ...rest } = definition;
  const example = schema.parse(Object.fromEntries(Object.entries(rest.queryParameters).map(([key, parameter]) => [key, parameter.example])));
  return {
    ...rest,
    alwaysOffline: rest.alwaysOffline ?? false,
    exampleOutput: produce(example, { slowDelayMs: 0, signal: new AbortController().signal }),
    checkQuery(query) {
      const parsed = schema.safeParse(Object.fromEntries(query.entries()));
      return parsed.success ? undefined : describeIssues(parsed.error);
    },
    async answer(query, context) {
      const parsed = schema.safeParse(Object.fromEntries(query.entries()));
      if (!parsed.success) return { ok: false, detail: describeIssues(parsed.error) };
      const wait = delayMs?.(context) ?? 0;
      if (wait > 0) await abortableDelay(wait, context.signal);
      return { ok: true, body: produce(parsed.data, context) };
    },
  };
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => issue.message).join("; ");
}

const usdc = (decimal: string): bigint => {
  const [whole = "0", fraction = ""] = decimal.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
};

const text = (label: string, max = 64) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} is at most ${max} characters`);

function abortableDelay(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/**
 * The demo services of the local world. Prices differ on purpose; `premium-report` costs more
 * than the app's default per-payment limit (1.00 USDC), so it exercises `limit-exceeded`.
 */
export const DEMO_SERVICES: readonly DemoService[] = [
  defineService({
    name: "weather",
    serviceName: "Devnet Weather",
    path: "/weather",
    x402Version: 2,
    price: usdc("0.01"),
    description: "Current weather and a three-day forecast for a city (synthetic demo data).",
    tags: ["weather", "forecast", "temperature", "rain", "climate"],
    queryParameters: { city: { description: "City name", example: "Lisbon" } },
    query: z.object({ city: text("city") }),
    produce: ({ city }) => weatherReport(city),
  }),
  defineService({
    name: "crypto-price",
    serviceName: "Devnet Crypto Prices",
    path: "/crypto/price",
    x402Version: 2,
    price: usdc("0.02"),
    description: "Spot crypto market quote in US dollars for a coin or token such as BTC, ETH or SOL (synthetic demo data).",
    tags: ["crypto", "price", "bitcoin", "ethereum", "token"],
    queryParameters: { symbol: { description: "Ticker symbol, e.g. BTC", example: "BTC" } },
    query: z.object({ symbol: text("symbol", 10).regex(/^[A-Za-z0-9]+$/, "symbol is letters and digits only") }),
    produce: ({ symbol }) => spotPrice(symbol),
  }),
  defineService({
    name: "news-headlines",
    serviceName: "Devnet News",
    path: "/news",
    x402Version: 2,
    price: usdc("0.03"),
    description: "The latest news headlines on a topic (synthetic demo data).",
    tags: ["news", "headlines", "articles", "topic", "current events"],
    queryParameters: { topic: { description: "Topic to search the news for", example: "renewable energy" } },
    query: z.object({ topic: text("topic") }),
    produce: ({ topic }) => newsHeadlines(topic),
  }),
  defineService({
    name: "premium-report",
    serviceName: "Devnet Premium Research",
    path: "/reports/premium",
    x402Version: 2,
    price: usdc("5.00"),
    description: "An in-depth premium research report on a market or topic: figures, outlook and risks (synthetic demo data).",
    tags: ["report", "research", "premium", "market", "outlook"],
    queryParameters: { topic: { description: "Market or topic of the report", example: "electric vehicles" } },
    query: z.object({ topic: text("topic") }),
    produce: ({ topic }) => premiumReport(topic),
  }),
  defineService({
    name: "slow-analysis",
    serviceName: "Devnet Sentiment Lab",
    path: "/analysis/sentiment",
    x402Version: 2,
    price: usdc("0.04"),
    description: "Deep market sentiment analysis for a topic; thorough, so it takes a while to answer (synthetic demo data).",
    tags: ["sentiment", "analysis", "social", "mood", "slow"],
    queryParameters: { topic: { description: "Topic to analyse", example: "ethereum" } },
    query: z.object({ topic: text("topic") }),
    delayMs: (context) => context.slowDelayMs,
    produce: ({ topic }, context) => sentimentAnalysis(topic, context.slowDelayMs),
  }),
  defineService({
    name: "translate",
    serviceName: "Devnet Translate",
    path: "/translate",
    x402Version: 2,
    price: usdc("0.015"),
    description: "Translates a short text into another language (synthetic demo data). Listed, but its server is down.",
    tags: ["translate", "translation", "language", "text"],
    queryParameters: {
      text: { description: "Text to translate", example: "good morning" },
      to: { description: "Target language code", example: "pt" },
    },
    alwaysOffline: true,
    query: z.object({ text: text("text", 500), to: text("to", 8) }),
    produce: ({ text: source, to }) => translation(source, to),
  }),
  defineService({
    name: "fx-rates",
    serviceName: "Devnet FX Rates (x402 v1)",
    path: "/fx/rates",
    x402Version: 1,
    price: usdc("0.05"),
    description: "Foreign exchange rates against a base currency such as EUR or USD; a legacy service that speaks x402 v1 (synthetic demo data).",
    tags: ["fx", "forex", "exchange rates", "currency", "v1"],
    queryParameters: { base: { description: `Base currency: ${SUPPORTED_CURRENCIES.join(", ")}`, example: "EUR" } },
    query: z.object({
      base: z
        .string({ error: "base is required" })
        .trim()
        .toUpperCase()
        .pipe(z.enum(SUPPORTED_CURRENCIES, { error: `base is one of ${SUPPORTED_CURRENCIES.join(", ")}` })),
    }),
    produce: ({ base }) => exchangeRates(base),
  }),
];

export function findDemoService(name: string): DemoService | undefined {
  return DEMO_SERVICES.find((service) => service.name === name);
}
