import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inspectMessageContent, inspectMessages } from "./content-safety";
import { normalizeText } from "./normalize-text";

// Anvil's well-known first dev account key: public knowledge, safe to keep in a test.
const KEY = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const TX_HASH = "0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b";
const MNEMONIC_12 = entropyToMnemonic(new Uint8Array(16).fill(7), wordlist);
const MNEMONIC_24 = entropyToMnemonic(
  Uint8Array.from({ length: 32 }, (_, index) => index * 8),
  wordlist,
);
const WORDS = new Set(wordlist);

const ZERO_WIDTH = ["\u200B", "\u200C", "\u200D", "\u2060", "\uFEFF", "\u00AD"];
const BIDI = ["\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068", "\u2069"];

function reason(text: string) {
  const result = inspectMessageContent(text);
  return result.safe ? "safe" : result.reason;
}

describe("private keys", () => {
  it.each([
    ["bare", KEY],
    ["0x-prefixed", `0x${KEY}`],
    ["upper case", KEY.toUpperCase()],
    ["in a sentence", `Here is my wallet key ${KEY}, can you pay with it?`],
    ["in an env line", `AGENT_PRIVATE_KEY=0x${KEY}`],
    ["in JSON", `{"privateKey":"0x${KEY}"}`],
    ["quoted", `"${KEY}"`],
    ["split in two lines", `${KEY.slice(0, 32)}\n${KEY.slice(32)}`],
    ["in groups of four", KEY.match(/.{4}/g)!.join(" ")],
    ["0x then groups of eight on lines", `0x${KEY.match(/.{8}/g)!.join("\n")}`],
    ["wrapped by a terminal at 50 columns", `key: ${KEY.slice(0, 45)}\n${KEY.slice(45)}`],
    ["full-width digits and letters", KEY.replace(/[0-9a-f]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
  ])("flags a key %s", (_label, text) => {
    expect(reason(text)).toBe("private_key");
  });

  it("flags a key with zero-width and bidi characters inserted between its digits", () => {
    for (const invisible of [...ZERO_WIDTH, ...BIDI]) {
      const hidden = KEY.split("").join(invisible);
      expect(reason(hidden)).toBe("private_key");
      expect(reason(`0x${hidden}`)).toBe("private_key");
    }
  });

  it.each([
    `tx ${TX_HASH}`,
    `The transaction ${TX_HASH} settled.`,
    `Payment settled, txHash: ${TX_HASH}`,
    `hash = ${TX_HASH}`,
    `see https://sepolia.basescan.org/tx/${TX_HASH}`,
    `{"transactionHash":"${TX_HASH}"}`,
    `block ${TX_HASH}`,
  ])("does not flag a 0x transaction hash quoted as one: %s", (text) => {
    expect(reason(text)).toBe("safe");
  });

  it("still flags a hash-shaped string when the context says it is a key or secret", () => {
    expect(reason(`tx signing private key ${TX_HASH}`)).toBe("private_key");
    expect(reason(`secret for the tx: ${TX_HASH}`)).toBe("private_key");
    // Without 0x a bare 64-hex string is always treated as a key.
    expect(reason(`tx ${TX_HASH.slice(2)}`)).toBe("private_key");
    // Context too far away does not count.
    expect(reason(`tx: here are many words before the actual value ${TX_HASH}`)).toBe("private_key");
  });

  it("holds every role to the same rule: a 0x key in an assistant message is refused", () => {
    // The caller writes the roles, so "assistant" is no proof that the text is the agent's.
    for (const role of ["assistant", "user", "system"] as const) {
      expect(
        inspectMessages([
          { role, content: `Receipt 0x${KEY}` },
          { role: "user", content: "hi" },
        ]),
      ).toEqual({
        safe: false,
        reason: "private_key",
        messageIndex: 0,
      });
      expect(inspectMessages([{ role, content: `Paid 0.01 USDC, tx ${TX_HASH}` }]).safe).toBe(true);
    }
  });

  it.each([
    ["an address", "Send it to 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 please"],
    ["a signature (65 bytes)", `0x${"ab12".repeat(32)}1c`],
    ["63 hex digits", KEY.slice(1)],
    ["65 hex digits", `${KEY}a`],
    ["a hex string inside a longer word", `id_${KEY}`],
    ["a card-like number list", "4111 1111 1111 1111 4111 1111 1111 1111 4111 1111 1111 1111 4111 1111 1111 1111"],
    ["hex-letter words", "a bad cafe faced a dead beef decade; add a bead, a cab, a fee, a bed, a deed and a face"],
    ["two short git hashes", "merged 38382f9 and 169e3f8 today"],
  ])("does not flag %s", (_label, text) => {
    expect(reason(text)).toBe("safe");
  });
});

describe("seed phrases", () => {
  it("builds valid test phrases", () => {
    expect(MNEMONIC_12.split(" ")).toHaveLength(12);
    expect(MNEMONIC_24.split(" ")).toHaveLength(24);
  });

  it.each([
    ["a 12-word phrase", MNEMONIC_12],
    ["a 24-word phrase", MNEMONIC_24],
    ["anvil's default phrase", "test test test test test test test test test test test junk"],
    ["upper case", MNEMONIC_12.toUpperCase()],
    [
      "title case with commas",
      MNEMONIC_12.split(" ")
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join(", "),
    ],
    ["one word per line", MNEMONIC_24.split(" ").join("\n")],
    [
      "numbered",
      MNEMONIC_12.split(" ")
        .map((w, i) => `${i + 1}. ${w}`)
        .join("\n"),
    ],
    ["inside a sentence", `My recovery words are: ${MNEMONIC_12}. Please restore my wallet.`],
    ["with zero-width characters inside words", MNEMONIC_12.split("").join("\u200B")],
    ["with bidi overrides", `\u202E${MNEMONIC_12}\u202C`],
    ["a 15-word run", MNEMONIC_24.split(" ").slice(0, 15).join(" ")],
    ["a phrase with one word missing", MNEMONIC_24.split(" ").slice(0, 23).join(" ")],
  ])("flags %s", (_label, text) => {
    expect(reason(text)).toBe("seed_phrase");
  });

  it("does not flag 11 wordlist words", () => {
    expect(reason(MNEMONIC_12.split(" ").slice(0, 11).join(" "))).toBe("safe");
  });

  it("does not flag ordinary English", () => {
    const paragraphs = [
      "Find me a weather service that costs less than five cents, then buy today's forecast for Paris and tell me whether I need an umbrella.",
      "I want to compare the prices of every translation service you can find. Show them in a table with the network, the asset and the amount, and do not pay for anything yet.",
      "Last summer we drove along the coast for three days. The weather was perfect, the food was even better, and every small town had a market on the main square where people sold fruit, bread and fresh fish.",
      "The agent should only spend money within the limits I set. If a service asks for more than one dollar, stop and ask me first; otherwise go ahead, pay it, and give me the result together with the transaction link.",
      "Please check the balance of my wallet, then explain how the payment was verified and settled on chain. I am curious about what the facilitator does and why it needs a signature from me.",
      "Our team will review the proposal next week. Please prepare a short summary of the budget, the timeline and the main risks, and send it to everyone on the project before Friday afternoon.",
      "Can you buy a random joke, a quote of the day and the latest exchange rate, and then write a funny little poem about money, travel and the sun over the ocean?",
    ];
    for (const paragraph of paragraphs) expect(reason(paragraph)).toBe("safe");
    expect(reason(paragraphs.join("\n\n"))).toBe("safe");
  });
});

describe("normalisation", () => {
  it("removes zero-width, bidi and other format characters and applies NFKC", () => {
    const text = `pay\u200B \u202Efive\u202C cents\u2066 to the\u2069 \uFEFFweather ｓｅｒｖｉｃｅ\u00AD`;
    const result = inspectMessageContent(text);
    expect(result).toEqual({ safe: true, normalized: "pay five cents to the weather service" });
    for (const character of [...ZERO_WIDTH, ...BIDI, "\u061C", "\u180E", "\u{E0041}", "\uFE0F"]) {
      expect(normalizeText(`a${character}b`)).toBe("ab");
    }
  });

  it("keeps ordinary text, including other scripts and emoji, intact", () => {
    const text = "Grüße aus Zürich! 東京の天気は？ Привет 👋 — 3 × 4 = 12";
    expect(normalizeText(text)).toBe(text.normalize("NFKC"));
  });
});

describe("inspectMessages", () => {
  it("returns normalised messages when all are safe", () => {
    const result = inspectMessages([
      { role: "system", content: "be\u200B brief" },
      { role: "user", content: "hello" },
    ]);
    expect(result).toEqual({
      safe: true,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello" },
      ],
    });
  });

  it("returns the first problem and its index, never the content", () => {
    const result = inspectMessages([
      { role: "user", content: "hi" },
      { role: "assistant", content: `Settled, tx ${TX_HASH}` },
      { role: "user", content: MNEMONIC_12 },
      { role: "user", content: KEY },
    ]);
    expect(result).toEqual({ safe: false, reason: "seed_phrase", messageIndex: 2 });
    expect(JSON.stringify(result)).not.toContain(MNEMONIC_12.split(" ")[0]!);
  });
});

describe("properties", () => {
  const nonListWord = fc.stringMatching(/^[g-z]{1,12}$/).filter((word) => !WORDS.has(word));
  const separator = fc.constantFrom(" ", "\n", ", ", ". ", "; ", " - ", "!\n\n", " 42 ", " 2024 ");

  it("never flags text made of words outside the wordlist", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(nonListWord, separator), { maxLength: 200 }), (parts) => {
        expect(reason(parts.map(([word, sep]) => word + sep).join(""))).toBe("safe");
      }),
    );
  });

  it("never flags runs of fewer than 12 wordlist words broken by other words", () => {
    const listWord = fc.constantFrom(...wordlist);
    const shortRun = fc.array(listWord, { minLength: 1, maxLength: 11 }).map((words) => words.join(" "));
    fc.assert(
      fc.property(fc.array(fc.tuple(shortRun, nonListWord), { maxLength: 30 }), (parts) => {
        const text = parts.map(([run, breaker]) => `${run} ${breaker}`).join(" ");
        expect(inspectMessageContent(text)).toMatchObject({ safe: true });
      }),
    );
  });

  it("never flags short ASCII text (too short for a key or a 12-word phrase)", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 46 }), (text) => {
        expect(reason(text)).toBe("safe");
      }),
    );
  });

  it("always flags a random key, with or without 0x, hidden by invisible characters in any text", () => {
    const hexKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("hex"));
    const invisible = fc.constantFrom("", ...ZERO_WIDTH, ...BIDI);
    fc.assert(
      fc.property(fc.string(), hexKey, fc.boolean(), invisible, fc.string(), (before, key, prefixed, hidden, after) => {
        const text = `${before} ${prefixed ? "0x" : ""}${key.split("").join(hidden)} ${after}`;
        // Context words before a 0x key could legitimately make it a quoted hash; keep the test to plain prose.
        fc.pre(!/tx|transaction|hash|block/i.test(before));
        expect(reason(text)).toBe("private_key");
      }),
    );
  });
});
