/**
 * The everyday words the demo model's request reader knows (request-reading.ts): coins,
 * currencies and languages by name, number words, and the words that end or rule out a place
 * or a code. General vocabulary only: no service is named here.
 */
/** Coins people name in words, and their usual ticker. */
export const COIN_SYMBOLS: Record<string, string> = {
  bitcoin: "BTC",
  btc: "BTC",
  ether: "ETH",
  ethereum: "ETH",
  eth: "ETH",
  solana: "SOL",
  sol: "SOL",
  dogecoin: "DOGE",
  doge: "DOGE",
  cardano: "ADA",
  ripple: "XRP",
  litecoin: "LTC",
  polkadot: "DOT",
  avalanche: "AVAX",
  usdc: "USDC",
  tether: "USDT",
};

export const CURRENCY_NAMES: Record<string, string> = {
  euro: "EUR",
  euros: "EUR",
  dollar: "USD",
  dollars: "USD",
  pound: "GBP",
  pounds: "GBP",
  sterling: "GBP",
  yen: "JPY",
  franc: "CHF",
  francs: "CHF",
  yuan: "CNY",
  renminbi: "CNY",
  rupee: "INR",
  rupees: "INR",
  real: "BRL",
  reais: "BRL",
  peso: "MXN",
  pesos: "MXN",
  krona: "SEK",
  kronor: "SEK",
  zloty: "PLN",
};

export const CURRENCY_CODES = new Set([
  "USD",
  "EUR",
  "GBP",
  "JPY",
  "CHF",
  "CAD",
  "AUD",
  "NZD",
  "CNY",
  "HKD",
  "SGD",
  "INR",
  "BRL",
  "MXN",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "CZK",
  "HUF",
  "TRY",
  "ZAR",
  "KRW",
]);

export const LANGUAGES: Record<string, string> = {
  english: "en",
  french: "fr",
  portuguese: "pt",
  spanish: "es",
  german: "de",
  italian: "it",
  dutch: "nl",
  japanese: "ja",
  chinese: "zh",
  korean: "ko",
  russian: "ru",
  arabic: "ar",
  hindi: "hi",
  polish: "pl",
  turkish: "tr",
  greek: "el",
  swedish: "sv",
  norwegian: "no",
  danish: "da",
  finnish: "fi",
  czech: "cs",
  ukrainian: "uk",
};

export const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  a: 1,
  an: 1,
  single: 1,
  couple: 2,
};

/** Units "a"/"an" may count ("a week", "an hour"); elsewhere "a" is only an article. */
export const COUNTABLE_AFTER_ARTICLE = new Set(["day", "week", "night", "hour", "month", "year", "minute"]);

/** Words after a number that are no unit of it ("2 of them", "5 for me"). */
export const FUNCTION_WORDS = new Set(["a", "an", "the", "of", "and", "or", "to", "for", "in", "on", "at", "with", "by", "from", "is", "are", "please"]);

/** Upper-case words that are not codes. */
export const NOT_CODES = new Set(["I", "A", "OK", "AM", "PM", "ID", "URL", "API", "PDF", "FAQ", "JSON", "HTTP", "HTTPS", "USA", "UK", "EU"]);

/** Capitalised words that do not name a place. */
export const NOT_PLACES = new Set([
  "monday",
  "tuesday",
  "wednesday",
  "thursday",
  "friday",
  "saturday",
  "sunday",
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
]);

/** Words that end (or rule out) a lower-case place name: "in new york today", "in the morning". */
export const PLACE_ENDS = new Set([
  "a",
  "an",
  "the",
  "this",
  "that",
  "my",
  "your",
  "our",
  "their",
  "its",
  "it",
  "me",
  "us",
  "and",
  "or",
  "but",
  "then",
  "for",
  "to",
  "at",
  "on",
  "with",
  "from",
  "by",
  "of",
  "today",
  "tonight",
  "tomorrow",
  "now",
  "right",
  "please",
  "currently",
  "next",
  "morning",
  "afternoon",
  "evening",
  "general",
  "total",
  "detail",
  "short",
  "particular",
  "advance",
  "time",
  "case",
  "order",
  "words",
]);

/** Prepositions after which a capitalised name is a place ("weather in Lisbon", "a guide for Porto"). */
export const PLACE_PREPOSITIONS = "in|at|to|near|around|for|across|visiting|within";

/** The symbol of a coin named in words ("bitcoin" → BTC), if it is one. */
export function coinSymbol(word: string): string | undefined {
  return COIN_SYMBOLS[word.toLowerCase()];
}

export function isCurrencyCode(code: string): boolean {
  return CURRENCY_CODES.has(code.toUpperCase());
}
