/**
 * Keys and seed phrases written with separators (dashes, dots, colons, ...), and the hex
 * lookalikes that must still pass: hashes quoted as hashes, UUIDs, dates, IPv6 addresses,
 * number lists and the chat page's shortened hashes.
 */
import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import fc from "fast-check";
import { generatePrivateKey } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { inspectMessageContent } from "./content-safety";
import { identifierTokens } from "./hex-identifiers";

function reason(text: string) {
  const result = inspectMessageContent(text);
  return result.safe ? "safe" : result.reason;
}

/**
 * A split key must mix at least 8 digits and 8 letters (split-key-detector.ts); about one
 * random key in 500,000 does not, and is caught only when written whole. Such keys are left out
 * so that these tests never flake on them.
 */
function mixes(hex: string): boolean {
  const digits = hex.replace(/[^0-9]/g, "").length;
  return digits >= 8 && hex.length - digits >= 8;
}

const KEYS = Array.from({ length: 8 }, () => generatePrivateKey().slice(2)).filter(mixes);

/** The key cut into groups of the given sizes, repeated until the key is used up. */
function groups(hex: string, sizes: readonly number[]): string[] {
  const parts: string[] = [];
  for (let at = 0, index = 0; at < hex.length; index += 1) {
    const size = sizes[index % sizes.length] ?? 4;
    parts.push(hex.slice(at, at + size));
    at += size;
  }
  return parts;
}

/** Groups joined by separators taken in turn from `separators`. */
function join(parts: readonly string[], separators: readonly string[]): string {
  return parts.reduce((text, part, index) => (index === 0 ? part : text + separators[(index - 1) % separators.length] + part), "");
}

const STYLES: Array<[string, (hex: string) => string]> = [
  ["0x then dashes between groups of four", (hex) => `0x${join(groups(hex, [4]), ["-"])}`],
  ["0x, a colon and spaced groups", (hex) => `0x: ${join(groups(hex, [8]), [" "])}`],
  ["dashes between groups of eight", (hex) => join(groups(hex, [8]), ["-"])],
  ["dashes between groups of uneven sizes", (hex) => join(groups(hex, [3, 5, 7, 2, 9]), ["-"])],
  ["a dash in the middle", (hex) => join(groups(hex, [32]), ["-"])],
  ["dots", (hex) => join(groups(hex, [8]), ["."])],
  ["underscores", (hex) => join(groups(hex, [16]), ["_"])],
  ["colons between bytes", (hex) => join(groups(hex, [2]), [":"])],
  ["commas", (hex) => join(groups(hex, [8]), [","])],
  ["commas and spaces", (hex) => join(groups(hex, [8]), [", "])],
  ["tabs", (hex) => join(groups(hex, [8]), ["\t"])],
  ["spaced dashes", (hex) => join(groups(hex, [4]), [" - "])],
  ["a mix of separators", (hex) => join(groups(hex, [4, 6]), ["-", ".", "_", ":", ",", " ", "\t", "\n", " - ", "/"])],
  ["en and em dashes", (hex) => join(groups(hex, [4]), ["\u2013", "\u2014"])],
  ["hyphens and minus signs", (hex) => join(groups(hex, [4]), ["\u2010", "\u2011", "\u2212"])],
  ["full-width and small hyphen-minus (folded to '-')", (hex) => join(groups(hex, [4]), ["\uFF0D", "\uFE63"])],
  ["full-width dots and colons (folded)", (hex) => join(groups(hex, [4]), ["\uFF0E", "\uFF1A"])],
  ["inside a sentence", (hex) => `My wallet key is 0x${join(groups(hex, [8]), ["-"])}, please pay with it.`],
  ["as a JSON array of strings", (hex) => JSON.stringify(groups(hex, [16]))],
  [
    "as OpenSSL prints it (a leading 00 byte, 15 bytes a line)",
    (hex) =>
      `priv:\n${groups(`00${hex}`, [30])
        .map((line) => `    ${join(groups(line, [2]), [":"])}:`)
        .join("\n")}`,
  ],
];

describe("keys written with separators", () => {
  it("has generated keys to test", () => {
    expect(KEYS.length).toBeGreaterThanOrEqual(6);
  });

  it.each(STYLES)("flags generated keys written with %s", (_label, style) => {
    for (const key of KEYS) {
      const text = style(key);
      expect(text.replace(/[^0-9a-f]/gi, "")).toContain(key);
      expect(reason(text), text).toBe("private_key");
    }
  });

  it("flags a key cut anywhere, with any of the separators between its groups", () => {
    const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString("hex"));
    const separator = fc.constantFrom("-", ".", "_", ":", ",", ", ", " ", "\t", "\n", "\r\n", " - ", "\u2013", "\u2014", "\u2212", "-\n", ".\t");
    const sizes = fc.array(fc.integer({ min: 1, max: 16 }), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(key, sizes, fc.array(separator, { minLength: 1, maxLength: 4 }), fc.boolean(), (hex, groupSizes, separators, prefixed) => {
        fc.pre(mixes(hex));
        const text = `${prefixed ? "0x" : ""}${join(groups(hex, groupSizes), separators)}`;
        expect(reason(`here it is: ${text} thanks`)).toBe("private_key");
      }),
    );
  });
});

describe("hex lookalikes that must still pass", () => {
  const HASH_A = "0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b";
  const HASH_B = "0x1c4e3bd2ad1f4b1e9f20b6a8c3d5e7f90123456789abcdef0fedcba987654321";

  it.each([
    ["two tx hashes quoted as hashes, separated by a comma", `Settled, tx hashes ${HASH_A}, ${HASH_B}`],
    ["two tx hashes with a bare comma", `transactions: ${HASH_A},${HASH_B}`],
    ["two tx hashes with a dash", `hashes ${HASH_A} - ${HASH_B}`],
    ["a tx hash followed by hex-letter words and numbers", `tx ${HASH_A} - a bad cafe, 12 beef`],
    ["a UUID", "request id 550e8400-e29b-41d4-a716-446655440000"],
    ["two UUIDs", "ids 550e8400-e29b-41d4-a716-446655440000, 6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
    ["two upper-case UUIDs on lines", "550E8400-E29B-41D4-A716-446655440000\n6BA7B810-9DAD-11D1-80B4-00C04FD430C8"],
    ["two UUIDs with a bare comma", "550e8400-e29b-41d4-a716-446655440000,6ba7b810-9dad-11d1-80b4-00c04fd430c8"],
    ["dates and times", "Paid on 2024-05-12 10:30:45, 2024-05-13 11:00:00, 2024-06-01 09:15:30 and 2024-07-04 23:59:59 (UTC+02:00)."],
    ["ISO timestamps", "2024-05-12T10:30:45.123Z, 2024-05-13T11:00:00.000Z, 2025-01-31T08:00:00Z, 2025-12-24T18:30:00.999Z"],
    ["dates with month names", "Paid on Feb 12, 2024, Dec 1, 2024, Mar 3, 2025 and Dec 24, 2025; renewals Feb 14, 2026 and Feb 2, 2027."],
    ["two IPv6 addresses in full", "2001:0db8:85a3:0000:0000:8a2e:0370:7334, fe80:0000:0000:0000:0202:b3ff:fe1e:8329"],
    ["IPv6 addresses on lines", "2001:db8:85a3:0:0:8a2e:370:7334\nfe80:0:0:0:202:b3ff:fe1e:8329\n2001:db8:aaaa:bbbb:cccc:dddd:eeee:1"],
    ["compressed IPv6 addresses", "2001:db8::8a2e:370:7334, fe80::202:b3ff:fe1e:8329, ::ffff:c000:280, 2001:db8:abcd:12::1"],
    ["MAC addresses", "00:1a:2b:3c:4d:5e, 00:1a:2b:3c:4d:5f, a4-5e-60-e8-12-3b, 3c:22:fb:01:aa:bc, de:ad:be:ef:00:01, 02:42:ac:11:00:02"],
    ["card and phone numbers", "4111-1111-1111-1111, 5500-0000-0000-0004, 3400-0000-0000-009, +1-555-0100, +44 20 7946 0958"],
    ["a number list", Array.from({ length: 60 }, (_, index) => index * 7).join(", ")],
    ["version numbers", "upgraded 1.2.3 -> 2.0.0-beta.1, then 2.0.0, 2.1.0 and 10.4.12"],
    ["hex-letter prose with numbers", "A bad cafe: 12 beef, 34 dead-beef, 56 faded cabbage; add 7 decaf, 8 beads, a fee of 9.10 and 11 dabs."],
    ["short git hashes", "merged 38382f9, 169e3f8, 2ab3c4d, 0f1e2d3, aa11bb2, 9c8d7e6, 1234abc, def5678, 7a6b5c4 and ff00ee1"],
    ["an address and an amount", "Send 0.01 USDC to 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 on chain 84532, block 12-345-678"],
    [
      "the chat page's shortened hashes",
      "Paid 0.01 USDC. Receipt 0xcdcdcdcd…cdcdcdcd. Settlement: 0xCDCDCDCD…CDCDCDCD\n" +
        "Earlier: 0x1234abcd…9876fedc, 0xab12cd34…ef567890, 0x0a1b2c3d…4e5f6a7b, 0x9f8e7d6c…5b4a3928, 0x11aa22bb…33cc44dd",
    ],
    ["a hex string inside a longer word, with a dash after it", `id_${HASH_A.slice(2)}-v2`],
  ])("does not flag %s", (_label, text) => {
    expect(reason(text)).toBe("safe");
  });

  it("never flags a list of UUIDs, whatever separates them", () => {
    const separator = fc.constantFrom(", ", ",", "\n", " ", "; ", " - ", ". ");
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.uuid(), separator), { minLength: 1, maxLength: 12 }), fc.boolean(), (items, upper) => {
        const text = items.map(([uuid, sep]) => (upper ? uuid.toUpperCase() : uuid) + sep).join("");
        expect(reason(text)).toBe("safe");
      }),
    );
  });

  it("never flags a list of full IPv6 addresses", () => {
    const group = fc.integer({ min: 0, max: 0xffff }).map((value) => value.toString(16).padStart(4, "0"));
    const address = fc.array(group, { minLength: 8, maxLength: 8 }).map((parts) => parts.join(":"));
    fc.assert(
      fc.property(fc.array(address, { minLength: 1, maxLength: 8 }), fc.constantFrom(", ", "\n", " "), (addresses, separator) => {
        expect(reason(addresses.join(separator))).toBe("safe");
      }),
    );
  });
});

describe("identifierTokens", () => {
  // The words of `text` and the gaps around them, as the split-key detector passes them.
  const tokens = (text: string) => {
    const words = text.match(/[0-9a-z]+/gi) ?? [];
    return identifierTokens(words, text.split(/[0-9a-z]+/i));
  };

  it("recognises identifiers only as whole shapes", () => {
    expect(tokens("550e8400-e29b-41d4-a716-446655440000")).toEqual([true, true, true, true, true]);
    // A sixth dashed group: longer than a UUID, so not one.
    expect(tokens("550e8400-e29b-41d4-a716-446655440000-ab12")).toEqual(Array(6).fill(false));
    expect(tokens("::1:2:3")).toEqual([true, true, true]);
    expect(tokens("fe80::1")).toEqual([true, true]);
    // Seven groups without `::` are not an address.
    expect(tokens("2001:db8:1:2:3:4:5")).toEqual(Array(7).fill(false));
    // Eight two-digit groups are bytes, as keys are printed, not an address.
    expect(tokens("4c:08:83:a6:91:02:93:7d")).toEqual(Array(8).fill(false));
    expect(tokens("10:30:45")).toEqual([false, false, false]);
  });
});

describe("seed phrases written with separators", () => {
  const MNEMONIC_12 = entropyToMnemonic(
    Uint8Array.from({ length: 16 }, (_, index) => index * 13),
    wordlist,
  ).split(" ");
  const MNEMONIC_24 = entropyToMnemonic(
    Uint8Array.from({ length: 32 }, (_, index) => 255 - index * 5),
    wordlist,
  ).split(" ");

  it.each(["-", ".", "_", ",", ":", "/", "\u2013", "\u2014", "\u2010", "\uFF0D", "-\n", " - ", "_-."])("flags 12 and 24 words joined by %j", (separator) => {
    expect(reason(MNEMONIC_12.join(separator))).toBe("seed_phrase");
    expect(reason(MNEMONIC_24.join(separator))).toBe("seed_phrase");
    expect(reason(`backup: ${MNEMONIC_12.join(separator)}.`)).toBe("seed_phrase");
  });

  it("flags words joined by a mix of separators", () => {
    const separators = ["-", ".", "_", ",", " ", "\n"];
    expect(reason(MNEMONIC_24.map((word, index) => word + (separators[index % separators.length] ?? "")).join(""))).toBe("seed_phrase");
  });

  it("does not flag 11 words joined by dashes", () => {
    expect(reason(MNEMONIC_12.slice(0, 11).join("-"))).toBe("safe");
  });
});
