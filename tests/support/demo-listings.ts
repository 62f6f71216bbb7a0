/**
 * Listings as `discover_services` hands them to a model (name, resource, price, description,
 * tags, usage line, example call), built from input contracts with the app's own
 * `describeInputContract` and `exampleCall`, for unit tests of the offline demo model. The
 * services are made up (none is the local world's), so a test cannot pass by knowing ours.
 */
import type { ServiceEntry } from "../../lib/agent/model/listing-inputs";
import { describeInputContract, exampleCall } from "../../lib/x402/call-usage";
import type { InputContract, ParameterSpec } from "../../lib/x402/input-contract";

const ORIGIN = "https://api.example.test";

type Listing = { name: string; path: string; price: string; description: string; tags?: string[]; contract?: InputContract };

export function entry({ name, path, price, description, tags, contract }: Listing): ServiceEntry {
  const resource = `${ORIGIN}${path}`;
  return {
    name,
    resource,
    price,
    description,
    ...(tags ? { tags } : {}),
    ...(contract ? { usage: describeInputContract(contract), example: exampleCall(resource, contract) } : {}),
  };
}

const parameter = (name: string, description: string, example?: string, extra: Partial<ParameterSpec> = {}): ParameterSpec => ({
  name,
  type: "string",
  required: true,
  description,
  ...(example === undefined ? {} : { example }),
  ...extra,
});

const get = (query: ParameterSpec[], path: ParameterSpec[] = [], routeTemplate?: string): InputContract => ({
  method: "GET",
  query,
  path,
  ...(routeTemplate ? { routeTemplate } : {}),
});

export const FORECAST = entry({
  name: "Sky Forecasts",
  path: "/forecast",
  price: "0.01",
  description: "Current conditions and a short forecast for a town or city.",
  tags: ["weather", "forecast", "rain"],
  contract: get([parameter("place", "Town or city name", "Oslo")]),
});

export const COINS = entry({
  name: "Coin Board",
  path: "/coins/price",
  price: "0.02",
  description: "Spot prices for coins and tokens in US dollars.",
  tags: ["crypto", "price", "bitcoin"],
  contract: get([parameter("symbol", "Coin symbol, e.g. BTC", "BTC")]),
});

export const EQUITIES = entry({
  name: "Stock Quotes Live",
  path: "/equities/:ticker",
  price: "0.03",
  description: "Delayed equity prices by ticker.",
  tags: ["stocks", "shares", "equities"],
  contract: get([], [parameter("ticker", "Stock ticker symbol", "XYZ")], "/equities/:ticker"),
});

export const KEYWORDS = entry({
  name: "Word Miner",
  path: "/text/keywords",
  price: "0.02",
  description: "Finds the main keywords of a text.",
  tags: ["keywords", "nlp", "text"],
  contract: {
    method: "POST",
    query: [],
    path: [],
    body: {
      type: "json",
      fields: [parameter("text", "The text to read"), parameter("limit", "How many keywords, 1 to 10", undefined, { type: "integer", required: false })],
      example: JSON.stringify({ text: "Rivers and lakes freeze in winter.", limit: 5 }),
    },
  },
});

export const HEADLINES = entry({
  name: "Headline Wire",
  path: "/headlines",
  price: "0.03",
  description: "Recent headlines on a subject.",
  tags: ["news", "headlines"],
  contract: get([parameter("topic", "Subject of the headlines", "space travel")]),
});

export const RECORDS = entry({
  name: "Record Office",
  path: "/records/:id",
  price: "0.02",
  description: "A scanned record from the archive, by id.",
  tags: ["archive", "records", "document"],
  contract: get([], [parameter("id", "Record id, e.g. rec-1", "rec-1")], "/records/:id"),
});

const guide = (city: string, topic: string, price: string) =>
  entry({
    name: `City Guide: ${city} ${topic}`,
    path: `/guides/${city.toLowerCase()}/${topic}`,
    price,
    description: `Three picks for ${topic} in ${city}, for a stay of a few days.`,
    tags: ["city guide", "travel", city.toLowerCase(), topic],
    contract: get([parameter("days", "Length of the stay in days, 1 to 7", "2")]),
  });

export const GUIDES = [guide("Oslo", "museums", "0.004"), guide("Oslo", "food", "0.005"), guide("Rome", "museums", "0.006"), guide("Rome", "food", "0.007")];

/** A listing that takes no input at all, and needs none. */
export const FORTUNE = entry({ name: "Fortune Cookie", path: "/fortune", price: "0.001", description: "A random fortune.", tags: ["fortune"] });

/** A listing whose required input has no example: nothing to assume. */
export const TRANSLATOR = entry({
  name: "Lingo",
  path: "/translate",
  price: "0.01",
  description: "Translates a text into another language.",
  tags: ["translate", "translation"],
  contract: {
    method: "POST",
    query: [],
    path: [],
    body: { type: "json", fields: [parameter("text", "Text to translate"), parameter("to", "Target language code")] },
  },
});

export const CATALOGUE: readonly ServiceEntry[] = [FORECAST, COINS, EQUITIES, KEYWORDS, HEADLINES, RECORDS, ...GUIDES, FORTUNE, TRANSLATOR];

/** Stuffs its description with every word a request might use, again and again. */
export function keywordStuffer(words: string): ServiceEntry {
  return entry({
    name: "Best Deals",
    path: "/deals",
    price: "0.001",
    description: `${words} `.repeat(12).slice(0, 300),
    tags: ["deals"],
  });
}
