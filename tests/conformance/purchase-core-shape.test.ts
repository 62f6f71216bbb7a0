/**
 * The purchase core's shape (docs/purchase-core.md), checked on the source itself:
 *
 * - outside the scheme modules (lib/agent/purchase/schemes/, lib/x402/schemes/ and the channel
 *   path lib/agent/purchase/channels/) no file in
 *   lib/ branches on a scheme's name or reads a scheme's own terms off an option (`.upto`): the
 *   purchase asks the option's scheme, the 402 parser asks the offer reader registered by name;
 * - no `as unknown as` on the purchase path (lib/agent/purchase/): the transports hand over
 *   what they read, typed, and the payment payload is the SDK's `PaymentPayload`.
 *
 * A new exception is a design change: move the decision into the scheme (or the transport)
 * rather than widening these lists.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const SCHEME_MODULES = ["lib/agent/purchase/schemes/", "lib/x402/schemes/", "lib/agent/purchase/channels/"];
/** Wire halves of one scheme each, named for it: they may read their own scheme's terms. */
const SCHEME_WIRE_FILES = ["lib/x402/upto-permit2.ts", "lib/x402/transfer-authorization.ts"];

/** A test of a scheme's name, or a read of the upto terms, or an `isUpto`-style flag. */
const SCHEME_BRANCH =
  /scheme ?(===|!==) ?["'](exact|upto|batch-settlement)["']|["'](exact|upto|batch-settlement)["'] ?(===|!==)|\.(upto|channel)\b|case ["'](exact|upto|batch-settlement)["']|\bis(Upto|Exact|Channel)\b|\bupto \? /;

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(root, folder), { recursive: true, encoding: "utf8" })
    .map((name) => path.posix.join(folder, name.split(path.sep).join("/")))
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file));
}

/** The lines of a file that match, as `file:line: text`, comments left out. */
function matches(file: string, pattern: RegExp): string[] {
  return readFileSync(path.join(root, file), "utf8")
    .split("\n")
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && pattern.test(line))
    .map(({ line, index }) => `${file}:${index + 1}: ${line.trim()}`);
}

describe("the purchase core's shape", () => {
  it("has no branch on a scheme's name outside the scheme modules", () => {
    const outside = sourceFiles("lib").filter((file) => !SCHEME_MODULES.some((folder) => file.startsWith(folder)) && !SCHEME_WIRE_FILES.includes(file));
    expect(outside.length).toBeGreaterThan(100);
    expect(outside.flatMap((file) => matches(file, SCHEME_BRANCH))).toEqual([]);
  });

  it("finds such a branch where one is written (the check can fail)", () => {
    for (const line of [
      'if (option.scheme === "upto") {',
      "const unit = option.upto?.unitPrice;",
      "const delay = option.channel?.withdrawDelay;",
      'if (option.scheme === "batch-settlement") {',
      'case "exact":',
      'scheme: isUpto ? "upto" : "exact",',
      "const terms = upto ? permit : transfer;",
    ])
      expect(SCHEME_BRANCH.test(line), line).toBe(true);
    expect(SCHEME_BRANCH.test("const scheme = schemeOf(option);")).toBe(false);
  });

  it("has no `as unknown as` on the purchase path", () => {
    expect(sourceFiles("lib/agent/purchase").flatMap((file) => matches(file, /\bas unknown as\b/))).toEqual([]);
  });
});
