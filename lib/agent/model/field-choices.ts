/**
 * Inputs that take only some values, for the offline demo model: the set an MCP tool's schema
 * declares (`enum`), or one a listing's description spells out ("one of: sales, traffic",
 * "Which dataset: sales (default) or stations"). A value for such an input is one of the set,
 * as the service spells it, or none: the model never sends a value outside it.
 */
import type { InputField } from "./listing-inputs";
import type { RequestReading } from "./request-reading";
import { coinSymbol } from "./request-vocabulary";
import { contentStems, wordsOf } from "./words";

/** A set longer than this is no short list written out in a description. */
const MAX_LISTED_CHOICES = 20;
const CHOICE = /^[\p{L}\p{N}][\p{L}\p{N}_.+-]{0,39}$/u;

/** The values `field` takes, when it says; `undefined` when it takes any. */
export function choicesOf(field: InputField): readonly unknown[] | undefined {
  if (field.choices && field.choices.length > 0) return field.choices;
  return listedIn(field.description);
}

/**
 * "one of: a, b or c", "one of a | b", or a list of two or more single words after the
 * description's last colon ("Base currency: USD, EUR, GBP"); a list of examples ("e.g.: BTC,
 * ETH", "such as: …") is no fixed set, and neither is a phrase ("at most 6000 characters").
 */
function listedIn(description: string | undefined): string[] | undefined {
  if (!description) return undefined;
  const plain = description.replace(/\s*\([^)]*\)/g, "").trim();
  const match = /\bone of\s*:?\s*(.+)$/i.exec(plain) ?? /:\s*([^:]+)$/.exec(plain);
  if (!match) return undefined;
  if (/(?:e\.g\.?|eg|such as|like|for example|examples?)\s*:?\s*$/i.test(plain.slice(0, match.index + match[0].length - match[1]!.length))) return undefined;
  const items = match[1]!
    .replace(/[.;]\s*$/, "")
    .split(/\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s*\|\s*|\s*\/\s*/)
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  if (items.length < 2 || items.length > MAX_LISTED_CHOICES || !items.every((item) => CHOICE.test(item))) return undefined;
  return items;
}

/** Whether two values name the same thing: the same text in any case, or the same coin ("ether", "ETH"). */
export function sameChoice(choice: unknown, value: unknown): boolean {
  const [left, right] = [text(choice).toLowerCase(), text(value).toLowerCase()];
  if (left === right) return true;
  const [leftCoin, rightCoin] = [coinSymbol(left), coinSymbol(right)];
  return leftCoin !== undefined && leftCoin === rightCoin;
}

/** The choice `value` names, as the service spells it. */
export function matchingChoice(choices: readonly unknown[], value: unknown): unknown {
  return choices.find((choice) => sameChoice(choice, value));
}

/**
 * The choice the request names, the earliest in its words: as written in any case ("SALES"),
 * as a word form ("station" for "stations"), or as a coin's name for its symbol ("solana" for
 * SOL). Choices already given to another input are passed over.
 */
export function choiceInRequest(choices: readonly unknown[], reading: RequestReading, used: ReadonlySet<string>): unknown {
  const words = wordsOf(reading.request);
  const stems = words.map((word) => contentStems(word)[0]);
  let best: { choice: unknown; at: number } | undefined;
  for (const choice of choices) {
    if (used.has(text(choice))) continue;
    const lower = text(choice).toLowerCase();
    const choiceStem = contentStems(lower).join(" ");
    const at = words.findIndex((word, index) => word === lower || (choiceStem !== "" && stems[index] === choiceStem) || sameChoice(choice, word));
    if (at >= 0 && (!best || at < best.at)) best = { choice, at };
  }
  return best?.choice;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : (JSON.stringify(value) ?? "");
}
