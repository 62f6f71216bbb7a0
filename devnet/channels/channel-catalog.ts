import { z } from "zod";
import { usdc } from "../services/define-service";
import { DEMO_NOTE, seededFraction, spotPrice } from "../services/demo-data";

/**
 * How a channel service treats its payers: it serves every voucher and claims what it charged
 * (honest); it tries to claim past the payer's highest voucher (the contract refuses: a claim
 * never exceeds the `maxClaimableAmount` the payer signed); or it takes the deposit and then
 * refuses every voucher (the payer gets the rest back with a withdrawal, after the delay).
 */
export const CHANNEL_BEHAVIOURS = ["honest", "over-claims", "refuses-vouchers"] as const;
export type ChannelBehaviour = (typeof CHANNEL_BEHAVIOURS)[number];

/**
 * A service paid per call through an x402 `batch-settlement` channel: one deposit, then a signed
 * voucher per call that the service checks by itself (no chain transaction), claimed and
 * settled in batches.
 */
export type ChannelService = {
  /** Stable kebab-case name: coordinates, tests. */
  name: string;
  /** The human-facing name in discovery (1-32 printable ASCII characters). */
  serviceName: string;
  path: string;
  /** Price per call in USDC base units: sub-cent, where a channel pays off. */
  price: bigint;
  /** The deposit the 402 suggests (`extra.minDeposit`), in base units: many calls' worth. */
  minDeposit: bigint;
  description: string;
  tags: string[];
  /** Query parameters, each with an example (the coordinates' example call uses them). */
  parameters: Record<string, { description: string; example: string }>;
  input: z.ZodType<Record<string, string>>;
  produce(input: Record<string, string>): Record<string, unknown>;
  behaviour: ChannelBehaviour;
};

const word = (label: string) => z.string().trim().min(1, `${label} is required`).max(32, `${label} is at most 32 characters`);
const Symbol = z.object({ symbol: word("symbol").regex(/^[A-Za-z0-9]+$/, "symbol is letters and digits only") });

/** A tick: the spot price with a sequence-like stamp, so consecutive calls look like a feed. */
function priceTick({ symbol }: Record<string, string>): Record<string, unknown> {
  return { ...spotPrice(symbol ?? ""), tickAt: new Date().toISOString(), billing: "per call, through a payment channel" };
}

const SENSES = ["noun", "verb", "adjective", "adverb"] as const;

function definition({ word: term = "" }: Record<string, string>): Record<string, unknown> {
  const partOfSpeech = SENSES[Math.floor(seededFraction(term, 1) * SENSES.length)] ?? "noun";
  return {
    demo: true,
    note: DEMO_NOTE,
    word: term.toLowerCase(),
    partOfSpeech,
    definition: `A made-up ${partOfSpeech} sense of “${term.toLowerCase()}”, for the demo.`,
  };
}

export const CHANNEL_SERVICES: readonly ChannelService[] = [
  {
    name: "tick-feed",
    serviceName: "Devnet Tick Feed",
    path: "/ticks/latest",
    price: usdc("0.001"),
    minDeposit: usdc("0.05"),
    description: "The latest price tick for a market symbol, 0.001 USDC a call through a payment channel (synthetic demo data).",
    tags: ["crypto", "price", "tick", "stream", "channel"],
    parameters: { symbol: { description: "Ticker symbol, e.g. BTC", example: "BTC" } },
    input: Symbol,
    produce: priceTick,
    behaviour: "honest",
  },
  {
    name: "word-lookup",
    serviceName: "Devnet Word Lookup",
    path: "/dictionary/define",
    price: usdc("0.0005"),
    minDeposit: usdc("0.02"),
    description: "A short definition of an English word, 0.0005 USDC a call through a payment channel (synthetic demo data).",
    tags: ["dictionary", "definition", "words", "language", "channel"],
    parameters: { word: { description: "The word to define", example: "ephemeral" } },
    input: z.object({ word: word("word").regex(/^[\p{L}-]+$/u, "word is letters only") }),
    produce: definition,
    behaviour: "honest",
  },
  {
    name: "greedy-ticks",
    serviceName: "Devnet Greedy Ticks",
    path: "/ticks/greedy",
    price: usdc("0.0008"),
    minDeposit: usdc("0.04"),
    description: "Price ticks at 0.0008 USDC a call through a payment channel; hostile: tries to claim more than the vouchers allow.",
    tags: ["crypto", "price", "tick", "hostile", "channel"],
    parameters: { symbol: { description: "Ticker symbol, e.g. BTC", example: "ETH" } },
    input: Symbol,
    produce: priceTick,
    behaviour: "over-claims",
  },
  {
    name: "deposit-trap",
    serviceName: "Devnet Tick Trap",
    path: "/ticks/trap",
    price: usdc("0.0009"),
    minDeposit: usdc("0.03"),
    description: "Price ticks at 0.0009 USDC a call through a payment channel; hostile: takes the deposit, then refuses every voucher.",
    tags: ["crypto", "price", "tick", "hostile", "channel"],
    parameters: { symbol: { description: "Ticker symbol, e.g. BTC", example: "SOL" } },
    input: Symbol,
    produce: priceTick,
    behaviour: "refuses-vouchers",
  },
];
