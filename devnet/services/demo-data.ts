import { createHash } from "node:crypto";

/**
 * Deterministic synthetic data for the demo services: the same question always gets the same
 * answer (so tests and screenshots are stable), and every answer says plainly that it is
 * made up, so nobody mistakes it for real weather, prices or news.
 */
export const DEMO_NOTE = "Synthetic demo data from the local x402 devnet. It is made up and must not be used for real decisions.";

export type DemoLabel = { demo: true; note: string };
const label: DemoLabel = { demo: true, note: DEMO_NOTE };

/** A stable pseudo-random number in [0, 1) for a seed and a draw index. */
export function seededFraction(seed: string, index: number): number {
  const digest = createHash("sha256").update(`${seed.toLowerCase()}#${index}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

function seededInteger(seed: string, index: number, min: number, max: number): number {
  return min + Math.floor(seededFraction(seed, index) * (max - min + 1));
}

function pick<T>(seed: string, index: number, options: readonly T[]): T {
  const choice = options[seededInteger(seed, index, 0, options.length - 1)];
  if (choice === undefined) throw new Error("pick from an empty list");
  return choice;
}

function titleCase(text: string): string {
  return text.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase());
}

const CONDITIONS = ["sunny", "partly cloudy", "cloudy", "light rain", "showers", "thunderstorms", "fog", "windy", "snow flurries"] as const;

export function weatherReport(city: string) {
  const temperature = seededInteger(city, 1, -5, 34);
  return {
    ...label,
    city: titleCase(city),
    conditions: pick(city, 2, CONDITIONS),
    temperatureCelsius: temperature,
    humidityPercent: seededInteger(city, 3, 20, 95),
    windKph: seededInteger(city, 4, 0, 45),
    forecast: [1, 2, 3].map((day) => ({
      day: `day ${day}`,
      conditions: pick(city, 10 + day, CONDITIONS),
      highCelsius: temperature + seededInteger(city, 20 + day, 0, 6),
      lowCelsius: temperature - seededInteger(city, 30 + day, 2, 9),
    })),
  };
}

/** The next high and low tides at a harbour, today. */
export function tideTimes(harbour: string) {
  const first = seededInteger(harbour, 1, 0, 359);
  const clock = (minutes: number) => `${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  // Two tides a day each way, about 6 h 12 min apart.
  const times = [0, 1, 2, 3].map((step) => first + step * 372);
  return {
    ...label,
    harbour: titleCase(harbour),
    tides: times.map((minutes, step) => ({
      kind: step % 2 === 0 ? "high" : "low",
      time: clock(minutes),
      heightMetres: Number(((step % 2 === 0 ? 2.5 : 0.4) + seededFraction(harbour, 10 + step)).toFixed(2)),
    })),
  };
}

/** Rough anchors so that the well-known symbols look plausible; others get a made-up price. */
const ANCHOR_PRICES_USD: Record<string, number> = { BTC: 65_000, ETH: 3_200, SOL: 150, USDC: 1, DAI: 1, LINK: 15, DOGE: 0.12, AVAX: 30 };

export function spotPrice(symbol: string) {
  const upper = symbol.toUpperCase();
  const anchor = ANCHOR_PRICES_USD[upper] ?? 0.5 + seededFraction(upper, 1) * 200;
  // Stablecoins stay at their peg; everything else wanders a few percent around its anchor.
  const drift = anchor === 1 ? 0 : (seededFraction(upper, 2) - 0.5) * 0.08;
  const price = anchor * (1 + drift);
  return {
    ...label,
    symbol: upper,
    quoteCurrency: "USD",
    price: price >= 1 ? price.toFixed(2) : price.toFixed(6),
    change24hPercent: Number(((seededFraction(upper, 3) - 0.5) * 12).toFixed(2)),
    volume24hUsd: Math.round(anchor * seededInteger(upper, 4, 10_000, 5_000_000)),
    source: "devnet synthetic price feed",
  };
}

const HEADLINE_TEMPLATES = [
  "{Topic} leaders meet to discuss the year ahead",
  "New study sheds light on {topic}",
  "Five things to know about {topic} this week",
  "Analysts split on the outlook for {topic}",
  "{Topic}: a quiet revolution few have noticed",
  "Local startup bets big on {topic}",
  "Why {topic} is suddenly everywhere",
  "Regulators take a fresh look at {topic}",
] as const;
const SOURCES = ["The Devnet Times", "Loopback Ledger", "Anvil Daily", "127 Gazette", "Block Zero News"] as const;

export function newsHeadlines(topic: string) {
  const fill = (template: string) => template.replaceAll("{topic}", topic.toLowerCase()).replaceAll("{Topic}", titleCase(topic));
  const start = seededInteger(topic, 1, 0, HEADLINE_TEMPLATES.length - 1);
  return {
    ...label,
    topic,
    headlines: [0, 1, 2, 3, 4].map((offset) => ({
      title: fill(HEADLINE_TEMPLATES[(start + offset) % HEADLINE_TEMPLATES.length] ?? HEADLINE_TEMPLATES[0]),
      source: pick(topic, 10 + offset, SOURCES),
      minutesAgo: seededInteger(topic, 20 + offset, 3, 600),
    })),
  };
}

export function premiumReport(topic: string) {
  const growth = Number(((seededFraction(topic, 1) - 0.3) * 30).toFixed(1));
  return {
    ...label,
    topic,
    title: `${titleCase(topic)}: the premium outlook`,
    executiveSummary: `A made-up deep dive into ${topic}: size, momentum and risks, written by the devnet to show what an expensive answer looks like.`,
    keyFigures: {
      marketSizeUsdBillions: seededInteger(topic, 2, 1, 900),
      annualGrowthPercent: growth,
      confidencePercent: seededInteger(topic, 3, 55, 95),
    },
    sections: [
      {
        heading: "Where things stand",
        body: `${titleCase(topic)} is ${growth >= 0 ? "growing" : "shrinking"} at ${Math.abs(growth)}% a year in this synthetic scenario.`,
      },
      {
        heading: "What to watch",
        body: `Three invented signals: ${pick(topic, 4, ["pricing", "regulation", "talent"])}, ${pick(topic, 5, ["supply", "demand", "sentiment"])} and ${pick(topic, 6, ["competition", "funding", "technology"])}.`,
      },
      {
        heading: "Risks",
        body: `The main made-up risk is ${pick(topic, 7, ["overcapacity", "a funding squeeze", "a regulatory shift", "slowing adoption"])}.`,
      },
    ],
    riskRating: pick(topic, 8, ["low", "moderate", "elevated", "high"] as const),
  };
}

export function sentimentAnalysis(topic: string, delayMs: number) {
  const score = Number(((seededFraction(topic, 1) - 0.5) * 2).toFixed(2));
  return {
    ...label,
    topic,
    sentiment: score > 0.2 ? "bullish" : score < -0.2 ? "bearish" : "neutral",
    score,
    sampleSize: seededInteger(topic, 2, 500, 50_000),
    analysisMs: delayMs,
  };
}

const CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD"] as const;
/** Units of each currency per US dollar, roughly; the demo wiggles them deterministically. */
const PER_USD: Record<(typeof CURRENCIES)[number], number> = { USD: 1, EUR: 0.92, GBP: 0.79, JPY: 150, CHF: 0.88, CAD: 1.36, AUD: 1.52 };

export function exchangeRates(base: string) {
  const baseCode = base.toUpperCase() as (typeof CURRENCIES)[number];
  const basePerUsd = PER_USD[baseCode];
  const rates: Record<string, string> = {};
  for (const code of CURRENCIES) {
    if (code === baseCode) continue;
    const wiggle = 1 + (seededFraction(`${baseCode}/${code}`, 1) - 0.5) * 0.02;
    rates[code] = ((PER_USD[code] / basePerUsd) * wiggle).toFixed(4);
  }
  return { ...label, base: baseCode, rates };
}

export const SUPPORTED_CURRENCIES = CURRENCIES;

export function translation(text: string, targetLanguage: string) {
  return { ...label, text, targetLanguage, translation: `[${targetLanguage}] ${text}` };
}

const STOP_WORDS = new Set([
  "the",
  "and",
  "for",
  "with",
  "that",
  "this",
  "from",
  "are",
  "was",
  "were",
  "has",
  "have",
  "its",
  "into",
  "than",
  "then",
  "but",
  "not",
  "you",
  "your",
  "our",
  "their",
  "they",
  "what",
  "which",
  "about",
]);

/** The most frequent words of a text (ties by first appearance): honest, if simple, "extraction". */
export function keywords(text: string, limit: number) {
  const counts = new Map<string, number>();
  for (const word of text.toLowerCase().match(/\p{L}[\p{L}\p{N}'-]{2,}/gu) ?? []) {
    if (!STOP_WORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((left, right) => right[1] - left[1]).slice(0, limit);
  return { ...label, words: text.split(/\s+/).filter(Boolean).length, keywords: ranked.map(([word, count]) => ({ word, count })) };
}

export function stockQuote(symbol: string) {
  const upper = symbol.toUpperCase();
  const price = 5 + seededFraction(`stock:${upper}`, 1) * 495;
  return {
    ...label,
    symbol: upper,
    currency: "USD",
    price: price.toFixed(2),
    changePercent: Number(((seededFraction(`stock:${upper}`, 2) - 0.5) * 6).toFixed(2)),
    exchange: pick(`stock:${upper}`, 3, ["DEVX", "LOOPBACK", "ANVIL-EXCHANGE"] as const),
  };
}

/** A made-up archived document: the same id is always the same document. */
export function archiveDocument(id: string) {
  const subject = pick(`archive:${id}`, 1, ["harbour records", "railway timetables", "city council minutes", "weather logs"] as const);
  const year = seededInteger(`archive:${id}`, 2, 1890, 1990);
  return {
    ...label,
    id,
    title: `${titleCase(subject)}, ${year}`,
    year,
    pages: seededInteger(`archive:${id}`, 3, 2, 40),
    summary: `Scanned ${subject} from ${year}.`,
  };
}

export function airQuality(city: string) {
  const index = seededInteger(`air:${city}`, 1, 8, 180);
  const category = index <= 50 ? "good" : index <= 100 ? "moderate" : index <= 150 ? "unhealthy for sensitive groups" : "unhealthy";
  return { ...label, city: titleCase(city), aqi: index, category, dominantPollutant: pick(`air:${city}`, 2, ["pm2.5", "pm10", "ozone", "no2"] as const) };
}

const GUIDE_ITEMS: Record<string, readonly string[]> = {
  food: ["the market hall", "a family-run bakery", "the harbour fish grill", "a late-night noodle bar"],
  museums: ["the city museum", "a small photography gallery", "the science centre", "the old observatory"],
  parks: ["the botanical garden", "the riverside walk", "the hilltop park", "a hidden courtyard garden"],
  transit: ["the day pass", "the night buses", "the airport train", "bike share docks"],
};

export const GUIDE_TOPICS = Object.keys(GUIDE_ITEMS);

/** A short, made-up city guide on one topic: the same city and topic always give the same picks. */
export function cityGuide(city: string, topic: string, days: number) {
  const items = GUIDE_ITEMS[topic] ?? [];
  const picks = [0, 1, 2].map((index) => pick(`${city}:${topic}`, index, items));
  return { ...label, city, topic, days, picks: [...new Set(picks)].map((item) => `${titleCase(item)} in ${city}`) };
}

/** Words as the text services count them: runs of letters and digits. */
function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
}

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** Counts, reading time and the most frequent words of a text (the metered text service). */
export function textAnalysis(text: string) {
  const words = wordsOf(text);
  return {
    ...label,
    characters: [...text].length,
    words: words.length,
    sentences: sentencesOf(text).length,
    // At 230 words a minute, a common estimate for reading prose.
    readingSeconds: Math.ceil((words.length / 230) * 60),
    topWords: keywords(text, 5).keywords,
  };
}

/** A text cut down to its first sentence and a word count (the metered summary service). */
export function textSummary(text: string) {
  const first = sentencesOf(text)[0] ?? text;
  return { ...label, summary: first.length > 160 ? `${first.slice(0, 157)}...` : first, words: wordsOf(text).length, sentences: sentencesOf(text).length };
}

export const DATASETS = ["sales", "stations"] as const;
export type Dataset = (typeof DATASETS)[number];

const REGIONS = ["north", "south", "east", "west"] as const;
const PRODUCTS = ["widget", "gadget", "gizmo", "sprocket"] as const;
const STATIONS = ["Harbour", "Airport", "Old Town", "Hilltop", "Riverside", "University"] as const;

/** The first `rows` rows of a made-up dataset (the metered data service): row n is always the same. */
export function datasetRows(dataset: Dataset, rows: number) {
  const data = Array.from({ length: rows }, (_unused, index) => {
    const seed = `${dataset}:${index + 1}`;
    return dataset === "sales"
      ? {
          id: index + 1,
          day: index + 1,
          region: pick(seed, 1, REGIONS),
          product: pick(seed, 2, PRODUCTS),
          units: seededInteger(seed, 3, 1, 500),
          revenueUsd: (seededFraction(seed, 4) * 10_000).toFixed(2),
        }
      : {
          id: index + 1,
          station: pick(seed, 1, STATIONS),
          temperatureCelsius: seededInteger(seed, 2, -5, 34),
          humidityPercent: seededInteger(seed, 3, 20, 95),
        };
  });
  return { ...label, dataset, rows: data.length, data };
}
