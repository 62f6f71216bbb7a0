import { z } from "zod";

/**
 * The local world's MCP tools: what each takes (a zod object, which the MCP server turns into
 * the JSON Schema `tools/list` advertises and the Bazaar lists), what it costs, and what it
 * answers. Three tools, one per case an agent must handle: a priced tool with a structured
 * input, a priced tool that fails after it has been paid, and a free tool.
 */
export type McpToolOutcome = { ok: true; text: string; structured?: Record<string, unknown> } | { ok: false; text: string };

export type DemoMcpTool = {
  /** The MCP tool name (what `tools/call` names): also its stable name in coordinates and tests. */
  name: string;
  /** The human-facing name in discovery (x402's `serviceName` rules: ≤ 32 printable ASCII). */
  serviceName: string;
  description: string;
  tags: string[];
  /** Price per call in USDC base units; undefined for a free tool (never listed in the Bazaar). */
  price: bigint | undefined;
  input: z.ZodObject;
  /** Example arguments, shown in discovery and the coordinates file. */
  example: Record<string, unknown>;
  exampleOutput: Record<string, unknown>;
  /**
   * Settles the payment, then fails: the case where money moved and no answer came. The agent
   * must report it as paid (with the transaction) and without data.
   */
  failsAfterPayment?: boolean;
  answer(args: Record<string, unknown>): McpToolOutcome;
};

const LANGUAGES = ["fr", "es", "de", "it", "pt"] as const;
type Language = (typeof LANGUAGES)[number];

/** A tiny word list: enough for demo sentences, deterministic, offline. */
const WORDS: Record<string, Record<Language, string>> = {
  hello: { fr: "bonjour", es: "hola", de: "hallo", it: "ciao", pt: "olá" },
  world: { fr: "monde", es: "mundo", de: "Welt", it: "mondo", pt: "mundo" },
  good: { fr: "bon", es: "bueno", de: "gut", it: "buono", pt: "bom" },
  morning: { fr: "matin", es: "mañana", de: "Morgen", it: "mattina", pt: "manhã" },
  thank: { fr: "merci", es: "gracias", de: "danke", it: "grazie", pt: "obrigado" },
  you: { fr: "vous", es: "tú", de: "du", it: "tu", pt: "você" },
  coffee: { fr: "café", es: "café", de: "Kaffee", it: "caffè", pt: "café" },
  please: { fr: "s'il vous plaît", es: "por favor", de: "bitte", it: "per favore", pt: "por favor" },
  friend: { fr: "ami", es: "amigo", de: "Freund", it: "amico", pt: "amigo" },
};

const TranslateInput = z.object({
  text: z.string().min(1).max(500).describe("The English text to translate"),
  target: z.enum(LANGUAGES).describe("The language to translate into (ISO 639-1 code)"),
});

const TextInput = z.object({
  text: z.string().min(1).max(2000).describe("The text to work on"),
});

export const TRANSLATE_TOOL: DemoMcpTool = {
  name: "translate",
  serviceName: "Local Translate (MCP)",
  description: "Translates short English text into French, Spanish, German, Italian or Portuguese, word by word.",
  tags: ["translate", "language", "mcp"],
  price: 20_000n,
  input: TranslateInput,
  example: { text: "hello world", target: "fr" },
  exampleOutput: { text: "hello world", target: "fr", translation: "bonjour monde" },
  answer(args) {
    const { text, target } = TranslateInput.parse(args);
    const translation = text
      .split(/\s+/)
      .map((word) => WORDS[word.toLowerCase().replace(/[^a-z]/g, "")]?.[target] ?? word)
      .join(" ");
    return { ok: true, text: JSON.stringify({ text, target, translation }), structured: { text, target, translation } };
  },
};

export const SUMMARIZE_TOOL: DemoMcpTool = {
  name: "summarize",
  serviceName: "Local Summarize (MCP)",
  description: "Summarizes a text. This demo tool always fails after it is paid: the payment settles and no summary comes back.",
  tags: ["summary", "text", "mcp"],
  price: 10_000n,
  input: TextInput,
  example: { text: "A long report about the weather in Lisbon." },
  exampleOutput: { summary: "Weather in Lisbon." },
  failsAfterPayment: true,
  answer() {
    return { ok: false, text: "The summarizer crashed after the payment was settled; no summary was produced." };
  },
};

export const WORD_COUNT_TOOL: DemoMcpTool = {
  name: "word_count",
  serviceName: "Local Word Count (MCP)",
  description: "Counts the words and characters of a text. Free.",
  tags: ["text", "count", "mcp"],
  price: undefined,
  input: TextInput,
  example: { text: "hello world" },
  exampleOutput: { words: 2, characters: 11 },
  answer(args) {
    const { text } = TextInput.parse(args);
    const words = text.trim().split(/\s+/).filter(Boolean).length;
    return { ok: true, text: JSON.stringify({ words, characters: text.length }), structured: { words, characters: text.length } };
  },
};

export const DEMO_MCP_TOOLS: readonly DemoMcpTool[] = [TRANSLATE_TOOL, SUMMARIZE_TOOL, WORD_COUNT_TOOL];
