/**
 * Reads what a user asks for, for the offline demo model: which kind of service, whether to
 * buy or only to look, and the parameter (city, symbol, topic). Deterministic on purpose.
 */
export type DemoIntent =
  | { kind: "help" }
  | { kind: "declined" }
  | { kind: "discover"; query: string | undefined }
  | { kind: "buy"; query: string; parameter?: { name: string; value: string } };

const DISCOVERY_WORDS = /\b(find|search|discover|list|compare|which services|what services|show me( the)? services|services? (for|that)|options)\b/i;
const BUY_WORDS = /\b(buy|purchase|get|fetch|call|use|pay for|order)\b/i;

const KNOWN_SYMBOLS: Record<string, string> = {
  bitcoin: "BTC",
  btc: "BTC",
  ether: "ETH",
  ethereum: "ETH",
  eth: "ETH",
  solana: "SOL",
  sol: "SOL",
  usdc: "USDC",
  dogecoin: "DOGE",
  doge: "DOGE",
};

function titleCase(text: string): string {
  return text
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(" ");
}

function findCity(text: string): string {
  // Up to three words after "in"/"for"/…, cut at words that end a place name.
  const match = /\b(?:in|for|at|of)\s+([\p{L}][\p{L}'-]*(?:\s+[\p{L}][\p{L}'-]*){0,2})/u.exec(text);
  const candidate = match?.[1]?.replace(/\s*\b(today|tomorrow|now|please|right|this|and|or|then)\b.*$/i, "").trim();
  if (candidate && !/^(the|a|an|weather|me)$/i.test(candidate)) return titleCase(candidate);
  const capitalised = text.match(/\b\p{Lu}[\p{L}'-]+/gu)?.filter((word) => !/^(What|Whats|What's|How|Is|Get|Tell|Show|Please|The|I)$/.test(word));
  return capitalised?.at(-1) ?? "London";
}

function findSymbol(text: string): string {
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const symbol = KNOWN_SYMBOLS[word];
    if (symbol) return symbol;
  }
  const ticker = /\b([A-Z]{2,6})\b/.exec(text)?.[1];
  return ticker && ticker !== "USD" ? ticker : "BTC";
}

function findTopic(text: string, fallback = "technology"): string {
  const match = /\b(?:about|on|regarding|for)\s+([\p{L}\p{N}][\p{L}\p{N}\s-]{0,40}?)\s*(?:[?.!,]|$|\btoday\b|\bplease\b)/iu.exec(text);
  return match?.[1]?.trim() || fallback;
}

/** A document id as people write it: "doc-7", or "document 7" (which is doc-7). */
function findDocumentId(text: string): string {
  const named = /\b(doc-[A-Za-z0-9-]{1,28})\b/i.exec(text)?.[1];
  if (named) return named.toLowerCase();
  const numbered = /\bdocument\s+(?:#|no\.?\s*)?(\d{1,9})\b/i.exec(text)?.[1];
  return numbered ? `doc-${numbered}` : "doc-1";
}

export function readDemoIntent(text: string): DemoIntent {
  const lower = text.toLowerCase();
  // The page reports a rejected approval in words; nothing is to be bought then.
  if (/\b(i )?(declined|rejected|refused|cancel(l)?ed)\b.*\bpayment\b|\bdon'?t pay\b/.test(lower)) return { kind: "declined" };
  const wantsList = DISCOVERY_WORDS.test(text) && !/\bbuy\b|\bpurchase\b/.test(lower);

  let topic: DemoIntent | undefined;
  // The most specific service words win: "news about bitcoin" is news, "a report on ETH" a report.
  if (/\b(weather|forecast|temperature|rain(ing)?|sunny|humid)/.test(lower)) {
    topic = { kind: "buy", query: "weather", parameter: { name: "city", value: findCity(text) } };
  } else if (/\b(archive|archived|document)\b/.test(lower)) {
    topic = { kind: "buy", query: "archive document", parameter: { name: "id", value: findDocumentId(text) } };
  } else if (/\b(premium|report)\b/.test(lower)) {
    topic = { kind: "buy", query: "premium report", parameter: { name: "topic", value: findTopic(text, "the market") } };
  } else if (/\b(analysis|analyse|analyze|sentiment)\b/.test(lower)) {
    topic = { kind: "buy", query: "analysis", parameter: { name: "topic", value: findTopic(text) } };
  } else if (/\b(news|headlines?)\b/.test(lower)) {
    topic = { kind: "buy", query: "news headlines", parameter: { name: "topic", value: findTopic(text) } };
  } else if (/\b(exchange rates?|fx|forex|currency|currencies)\b/.test(lower)) {
    topic = { kind: "buy", query: "exchange rates", parameter: { name: "base", value: /\b([A-Z]{3})\b/.exec(text)?.[1] ?? "EUR" } };
  } else if (/\btranslat/.test(lower)) {
    topic = { kind: "buy", query: "translate", parameter: { name: "text", value: /["“](.+?)["”]/.exec(text)?.[1] ?? text.slice(0, 100) } };
  } else if (/\b(crypto|bitcoin|btc|ethereum|eth|solana|token price|spot price|coin)\b/.test(lower)) {
    topic = { kind: "buy", query: "crypto price", parameter: { name: "symbol", value: findSymbol(text) } };
  }

  if (wantsList) return { kind: "discover", query: topic?.kind === "buy" ? topic.query : undefined };
  if (topic) return topic;
  const named = /\b(?:buy|purchase|call|use|pay for)\s+(?:the\s+|a\s+|an\s+)?([\p{L}\p{N}][\p{L}\p{N}\s-]{1,40}?)(?:\s+service)?\s*(?:[?.!]|$)/iu.exec(text);
  if (named?.[1] && BUY_WORDS.test(text)) return { kind: "buy", query: named[1].trim() };
  return { kind: "help" };
}
