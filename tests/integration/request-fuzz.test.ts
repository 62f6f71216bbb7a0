/**
 * Property-based fuzzing of `POST /api/chat` before and at the start of the stream: over ten
 * thousand generated request bodies and header sets against the real handler, with fake
 * dependencies (no chain: a network nobody listens on, a memory store, a mock model that
 * answers text). Whatever a client sends, the answer is a 4xx problem document or a valid
 * stream that ends with exactly one `d:`; never a 5xx.
 *
 * Each case carries its own expectation from an oracle written from docs/decisions.md (limits and statuses),
 * not from the schema: a body the design calls valid must stream, one it calls invalid must be
 * a 400, and where the design is silent (e.g. a 16-digit limit, a padded address) either is
 * accepted. Nothing here ever leaves the machine: the only outbound requests (signed approvals)
 * go to 127.0.0.1:9, which the guarded fetch refuses before connecting.
 */
import { entropyToMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import fc from "fast-check";
import { bytesToHex, getAddress, zeroAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { MAX_BODY_BYTES } from "../../lib/stream/chat-request";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv } from "../../lib/env";
import { inspectMessages } from "../../lib/safety/content-safety";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import { decodeAll, findSequenceViolations, type StreamEvent } from "../../lib/stream";
import { offlineNetwork } from "../support/offline-fixtures";
import { signApprovalFor } from "../support/chat-handler";

// ---------------------------------------------------------------------------------------------
// The handler under test, with dependencies that never touch a chain.

const QUOTE_SECRET = "fuzz-quote-secret-0123456789abcdef0123456789abcdef";
// Port 9 (discard) on loopback, and loopback is not allowlisted: refused before connecting.
const network = offlineNetwork;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV4({
  doStream: async () => ({
    stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Fuzzed hello." },
      { type: "text-end", id: "t" },
      { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
    ]),
  }),
});
const env = parseEnv({ RATE_LIMIT_REQUESTS: "100000", RATE_LIMIT_WINDOW_SECONDS: "50", QUOTE_SECRET });
const deps = createAppDependencies(env, {
  network,
  store: createMemoryStore(),
  baseModel: { model, modelId: "fuzz", isDemo: false },
});

const printSummary = console.info.bind(console);

beforeAll(() => {
  // Thousands of streams each log their payments; keep the run's output readable.
  vi.spyOn(console, "info").mockImplementation(() => undefined);
});

afterAll(async () => {
  vi.restoreAllMocks();
  await deps.store.close();
});

// ---------------------------------------------------------------------------------------------
// The oracle: what docs/decisions.md says about a body, independently of lib/stream/chat-request.ts.

type Verdict = "valid" | "invalid" | "either";

function combine(verdicts: Verdict[]): Verdict {
  if (verdicts.includes("invalid")) return "invalid";
  return verdicts.includes("either") ? "either" : "valid";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const MAX_MESSAGES = 100;
const MAX_MESSAGE_CHARS = 16_000;
const MAX_TOTAL_CHARS = 64_000;

/** Length limits in "characters": UTF-16 units and code points may disagree; then either. */
function judgeLength(text: string, max: number): Verdict {
  const units = text.length;
  const codePoints = [...text].length;
  if (units <= max && codePoints <= max) return "valid";
  if (units > max && codePoints > max) return "invalid";
  return "either";
}

function judgeMessages(value: unknown): Verdict {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_MESSAGES) return "invalid";
  const verdicts: Verdict[] = [];
  let total = "";
  for (const message of value) {
    if (!isPlainObject(message)) return "invalid";
    if (Object.keys(message).some((key) => key !== "role" && key !== "content")) return "invalid";
    if (!["user", "assistant", "system"].includes(message.role as string)) return "invalid";
    if (typeof message.content !== "string") return "invalid";
    verdicts.push(judgeLength(message.content, MAX_MESSAGE_CHARS));
    total += message.content;
  }
  if ((value.at(-1) as { role: string }).role !== "user") return "invalid";
  verdicts.push(judgeLength(total, MAX_TOTAL_CHARS));
  return combine(verdicts);
}

function judgeAddress(value: unknown): Verdict {
  if (typeof value !== "string") return "invalid";
  const trimmed = value.trim();
  if (/^0[xX][0-9a-fA-F]{40}$/.test(trimmed) && (trimmed !== value || trimmed.startsWith("0X"))) {
    // Padded or 0X-prefixed: the design does not say; a server may normalise or refuse.
    return trimmed.slice(2).toLowerCase() === zeroAddress.slice(2) ? "invalid" : "either";
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) return "invalid";
  if (value.toLowerCase() === zeroAddress) return "invalid";
  const hex = value.slice(2);
  if (hex === hex.toLowerCase()) return "valid";
  // All upper case carries no checksum (EIP-55) and should be valid, but the server refuses
  // it today: a known lib/ bug, pinned by its own test below, so the fuzz keeps exploring.
  if (hex === hex.toUpperCase()) return "either";
  return getAddress(value.toLowerCase()) === value ? "valid" : "invalid";
}

/** "USDC decimal strings or numbers, at most 6 decimals, finite, >= 0". */
function judgeAmount(value: unknown): Verdict {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return "invalid";
    const text = String(value);
    if (/e/i.test(text)) return value >= 1 ? "either" : "invalid"; // 1e21 is whole; 1e-7 is not
    const decimals = text.split(".")[1]?.length ?? 0;
    if (decimals > 6) return "invalid";
    return value >= 1e15 ? "either" : "valid";
  }
  if (typeof value !== "string") return "invalid";
  const strict = /^(\d+)(?:\.(\d{1,6}))?$/.exec(value);
  if (strict) return (strict[1] ?? "").length > 15 ? "either" : "valid";
  // Padded, "1." or ".5": not the documented form; a server may accept or refuse.
  if (/^\s*(\d+(\.\d{0,6})?|\.\d{1,6})\s*$/.test(value)) return "either";
  return "invalid";
}

function judgeLimits(value: unknown): Verdict {
  if (!isPlainObject(value)) return "invalid";
  const verdicts: Verdict[] = [];
  for (const [key, amount] of Object.entries(value)) {
    if (key !== "perPayment" && key !== "perRequest" && key !== "daily") return "invalid";
    verdicts.push(judgeAmount(amount));
  }
  return combine(verdicts);
}

function judgeBody(value: unknown): Verdict {
  if (!isPlainObject(value)) return "invalid";
  if (Object.keys(value).some((key) => !["messages", "walletAddress", "spendingLimits"].includes(key))) return "invalid";
  const verdicts = [judgeMessages(value.messages)];
  if ("walletAddress" in value) verdicts.push(judgeAddress(value.walletAddress));
  if ("spendingLimits" in value) verdicts.push(judgeLimits(value.spendingLimits));
  return combine(verdicts);
}

/** The media type of a Content-Type: JSON, clearly not JSON, or a JSON-ish variant. */
function judgeContentType(value: string | undefined): Verdict {
  if (value === undefined) return "invalid";
  const mediaType = value.split(";")[0]?.trim().toLowerCase() ?? "";
  if (mediaType === "application/json") return "valid";
  if (mediaType.startsWith("application/json") || /json/.test(mediaType)) return "either";
  return "invalid";
}

// ---------------------------------------------------------------------------------------------
// Sending one case and checking everything the design promises about the answer.

type FuzzCase = {
  body: string | Uint8Array;
  headers: Record<string, string>;
  /** A signed approval that matches its quote: 200 instead of 402 when the body is valid. */
  validSignature?: boolean;
};

type Outcome = { status: number; code?: string };

const stats = { requests: 0, byStatus: new Map<number, number>(), byCode: new Map<string, number>() };
const PROBLEM_KEYS = new Set(["type", "title", "status", "detail", "code", "instance", "errors"]);
const textEncoder = new TextEncoder();

function bytesOf(body: string | Uint8Array): Uint8Array {
  return typeof body === "string" ? textEncoder.encode(body) : body;
}

/** Decodes like a server should: UTF-8 (fatal, BOM stripped), then JSON. */
function parseBody(bytes: Uint8Array): { ok: true; value: unknown; hadBom: boolean } | { ok: false } {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    const hadBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
    return { ok: true, value: JSON.parse(text) as unknown, hadBom };
  } catch {
    return { ok: false };
  }
}

function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase());
  return entry?.[1];
}

/**
 * A header value as HTTP sees it: only spaces, tabs, CR and LF are trimmed (the Fetch
 * standard), not every Unicode space as String.prototype.trim does. A PAYMENT-SIGNATURE of one
 * no-break space is a header with a (bad) value, not an absent one; a seed found this.
 */
function httpTrim(value: string | undefined): string | undefined {
  return value?.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, "");
}

/** The statuses the design allows for a case; several when the design is silent. */
function allowedStatuses(fuzzCase: FuzzCase): { allowed: Set<number>; parsed: unknown } {
  const bytes = bytesOf(fuzzCase.body);
  const contentType = judgeContentType(headerValue(fuzzCase.headers, "content-type"));
  const signature = httpTrim(headerValue(fuzzCase.headers, "payment-signature")) ?? "";
  const allowed = new Set<number>();
  if (contentType !== "valid") allowed.add(400);
  if (contentType === "invalid") return { allowed, parsed: undefined };
  // A credential is checked before the body is read, and one that fails is refused: no fuzzed
  // Authorization header is a real API key, so any at all is 401.
  if (headerValue(fuzzCase.headers, "authorization") !== undefined) {
    allowed.add(401);
    return { allowed, parsed: undefined };
  }
  if (bytes.byteLength > MAX_BODY_BYTES) return { allowed: new Set([400]), parsed: undefined };
  const parsed = parseBody(bytes);
  if (!parsed.ok) return { allowed: new Set([400]), parsed: undefined };
  let verdict = judgeBody(parsed.value);
  if (parsed.hadBom && verdict === "valid") verdict = "either";
  if (verdict !== "valid") allowed.add(400);
  if (verdict === "invalid") return { allowed, parsed: parsed.value };
  const messages = (parsed.value as { messages: { role: string; content: string }[] }).messages;
  if (!inspectMessages(messages).safe) {
    allowed.add(403);
    return { allowed, parsed: parsed.value };
  }
  const signatureOutcome = signature === "" ? 200 : fuzzCase.validSignature ? 200 : 402;
  allowed.add(signatureOutcome);
  // An Idempotency-Key the server cannot use may be refused (the design is silent on its form).
  const idempotencyKey = headerValue(fuzzCase.headers, "idempotency-key")?.trim() ?? "";
  if (signatureOutcome === 200 && idempotencyKey !== "" && !/^[A-Za-z0-9._:-]{1,128}$/.test(idempotencyKey)) allowed.add(400);
  return { allowed, parsed: parsed.value };
}

async function send(fuzzCase: FuzzCase): Promise<Outcome> {
  const callsBefore = model.doStreamCalls.length;
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", { method: "POST", headers: fuzzCase.headers, body: fuzzCase.body as BodyInit }),
    () => deps,
  );
  stats.requests += 1;
  stats.byStatus.set(response.status, (stats.byStatus.get(response.status) ?? 0) + 1);
  const { allowed, parsed } = allowedStatuses(fuzzCase);
  const describeCase = () =>
    `case: ${JSON.stringify({ headers: fuzzCase.headers, body: typeof fuzzCase.body === "string" ? fuzzCase.body.slice(0, 400) : `<${fuzzCase.body.byteLength} bytes>` })}`;

  // Never a 5xx, never rate limited here, and only what the design allows for this case.
  expect(response.status, describeCase()).toBeLessThan(500);
  expect([200, 400, 401, 402, 403], describeCase()).toContain(response.status);
  expect([...allowed], `status ${response.status}; ${describeCase()}`).toContain(response.status);

  if (response.status !== 200) {
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    const text = await response.text();
    const problem = JSON.parse(text) as Record<string, unknown>;
    expect(
      Object.keys(problem).every((key) => PROBLEM_KEYS.has(key)),
      text,
    ).toBe(true);
    expect(problem.status).toBe(response.status);
    expect(typeof problem.title === "string" && problem.title.length > 0).toBe(true);
    expect(typeof problem.detail === "string" && problem.detail.length > 0).toBe(true);
    expect(typeof problem.type).toBe("string");
    expect(typeof problem.code).toBe("string");
    const code = problem.code as string;
    stats.byCode.set(code, (stats.byCode.get(code) ?? 0) + 1);
    if (response.status === 400) expect(code.startsWith("bad_request:"), text).toBe(true);
    if (response.status === 401) {
      expect(code, text).toBe("unauthorized:bad_key");
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="x402-agent"/);
    }
    if (response.status === 402) {
      expect(code.startsWith("payment_required:"), text).toBe(true);
      expect(httpTrim(headerValue(fuzzCase.headers, "payment-signature"))).toBeTruthy();
    }
    if (response.status === 403) {
      expect(code).toBe("forbidden:unsafe_content");
      const messages = (parsed as { messages: { role: string; content: string }[] }).messages;
      expect(inspectMessages(messages).safe).toBe(false);
    }
    if (problem.errors !== undefined) {
      expect(Array.isArray(problem.errors)).toBe(true);
      for (const error of problem.errors as unknown[]) {
        expect(error).toEqual({ path: expect.any(String), message: expect.any(String) });
      }
    }
    // Refused before the stream: the model was never asked.
    expect(model.doStreamCalls.length, describeCase()).toBe(callsBefore);
    model.doStreamCalls.length = 0;
    return { status: response.status, code };
  }

  expect(["text/event-stream; charset=utf-8", "text/plain; charset=utf-8"]).toContain(response.headers.get("content-type"));
  const items = decodeAll(new Uint8Array(await response.arrayBuffer()));
  expect(
    items.filter((item) => item.kind === "malformed"),
    describeCase(),
  ).toEqual([]);
  const events = items.flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
  expect(findSequenceViolations(events), describeCase()).toEqual([]);
  expect(events.filter((event) => event.type === "finish")).toHaveLength(1);
  expect(events.at(-1)?.type).toBe("finish");
  // A stream that carries a payment never reports one as settled: nothing here can pay.
  expect(events.some((event) => event.type === "payment" && (event.payment.status === "confirmed" || event.payment.status === "delivered"))).toBe(false);
  model.doStreamCalls.length = 0;
  return { status: 200 };
}

// ---------------------------------------------------------------------------------------------
// Generators.

const SPECIAL_TEXT = [
  "\uD800",
  "\uDBFF",
  "\uDC00",
  "\uDFFF", // lone surrogates
  "\u202E",
  "\u202D",
  "\u2066",
  "\u2067",
  "\u2069",
  "\u200E",
  "\u200F", // bidi controls
  "\u200B",
  "\u200C",
  "\u200D",
  "\u2060",
  "\uFEFF",
  "\u00AD", // zero-width / invisible
  "\u0000",
  "\u0007",
  "\u001B[31m",
  "\r\n",
  "\t",
  "\u2028",
  "\u2029",
  "\u0301",
  "\uFDFA",
  "\u{1F600}",
  "\u{1F469}\u200D\u{1F4BB}",
  "ｆｕｌｌ",
  "İ",
  "ß",
  "ﬁ",
  "data: x\n\n",
  "d:{}",
  '0:"x"',
  "</script>",
  "${x}",
  "%s%n",
  "\\u0000",
  "NaN",
  "-0",
  "1e308",
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  {
    weight: 3,
    arbitrary: fc.array(fc.oneof(fc.constantFrom(...SPECIAL_TEXT), fc.string({ maxLength: 6 })), { maxLength: 12 }).map((parts) => parts.join("")),
  },
);

const role = fc.constantFrom("user", "assistant", "system");
const message = fc.record({ role, content: text });
const userMessage = fc.record({ role: fc.constant("user"), content: text });

const addressBytes = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => bytesToHex(bytes));
const validAddress = fc.oneof(
  addressBytes.map((hex) => getAddress(hex)),
  addressBytes,
  addressBytes.map((hex) => `0x${hex.slice(2).toUpperCase()}`),
);
/** Flips the case of one letter of a checksummed address: almost always a wrong checksum. */
function wrongChecksum(address: string, index: number): string {
  const letters = [...address.slice(2)].map((char, position) => ({ char, position })).filter(({ char }) => /[a-fA-F]/.test(char));
  if (letters.length === 0) return `${address}0`;
  const { char, position } = letters[index % letters.length] as { char: string; position: number };
  const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
  return `0x${address.slice(2, 2 + position)}${flipped}${address.slice(3 + position)}`;
}
const badAddress: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(addressBytes, fc.nat()).map(([hex, index]) => wrongChecksum(getAddress(hex), index)),
  fc.constantFrom(
    zeroAddress,
    "0x0000000000000000000000000000000000000000".toUpperCase(),
    "0x",
    "0x123",
    "70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8 ",
    " 0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0X70997970C51812DC3A010C7D01B50E0D17DC79C8",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8\u200B",
    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8a",
    "0xg0997970c51812dc3a010c7d01b50e0d17dc79c8",
    "vitalik.eth",
    "",
  ),
  addressBytes.map((hex) => hex.slice(0, 41)),
  fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.nat(), { maxLength: 2 }), fc.object({ maxDepth: 1 })),
  text,
);

const validAmount: fc.Arbitrary<unknown> = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 12n }).map((units) => (Number(units) / 1e6).toString()),
  fc.nat({ max: 1_000_000 }),
  fc.nat({ max: 100_000_000 }).map((units) => units / 1e6),
  fc.constantFrom("0", "0.5", "1", "1.000000", "25", "0.000001", -0, 0, 10, 1e6),
);
const badAmount: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    "-1",
    "-0.5",
    "1e3",
    "1E-7",
    "NaN",
    "nan",
    "Infinity",
    "-Infinity",
    "0x10",
    "1,5",
    "1.1234567",
    "0.0000001",
    "",
    " ",
    "١٢",
    "１",
    "1_000",
    "+1",
    "1.2.3",
    "9".repeat(40),
    "1" + "0".repeat(31),
    " 1 ",
    "1.",
    ".5",
    "\u200B1",
    1e308,
    -1,
    -0.000001,
    0.0000001,
    1e-7,
    0.1 + 0.2,
    1e21,
    2 ** 53 + 1,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    true,
    false,
    null,
    [],
    {},
    [1],
    { value: 1 },
  ),
  fc.double().filter((value) => !Number.isFinite(value) || value < 0 || !/^\d+(\.\d{1,6})?$/.test(String(value))),
  fc.string({ maxLength: 12 }),
);
const limitKey = fc.constantFrom("perPayment", "perRequest", "daily");
const validLimits = fc.record({ perPayment: validAmount, perRequest: validAmount, daily: validAmount }, { requiredKeys: [] });

const validBody = fc.record(
  {
    messages: fc.tuple(fc.array(message, { maxLength: 4 }), userMessage).map(([rest, last]) => [...rest, last]),
    walletAddress: validAddress,
    spendingLimits: validLimits,
  },
  { requiredKeys: ["messages"] },
);

type Body = Record<string, unknown> & { messages: unknown };

/** One way to break (or bend) a valid body; some mutations keep it valid on purpose. */
const mutation: fc.Arbitrary<(body: Body) => unknown> = fc.oneof(
  fc.constant((body: Body) => {
    const { messages: _messages, ...rest } = body;
    return rest;
  }),
  fc.jsonValue({ maxDepth: 2 }).map((value) => (body: Body) => ({ ...body, messages: value })),
  fc.constantFrom<unknown>("hi", 1, null, true, {}, [], [[]], [null], ["hi"]).map((value) => (body: Body) => ({ ...body, messages: value })),
  fc
    .integer({ min: 101, max: 140 })
    .map((count) => (body: Body) => ({ ...body, messages: Array.from({ length: count }, () => ({ role: "user", content: "x" })) })),
  fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => (body: Body) => ({
    ...body,
    messages: [{ role: "user", content: "hi", [key || "extra"]: value }],
  })),
  fc
    .oneof(fc.constantFrom<unknown>("tool", "USER", "User", " user", "function", "developer", "", null, 1), fc.string({ maxLength: 8 }))
    .map((badRole) => (body: Body) => ({ ...body, messages: [{ role: badRole, content: "hi" }] })),
  fc
    .oneof(fc.constantFrom<unknown>(null, 5, true, [], {}, ["a"], { text: "hi" }), fc.jsonValue({ maxDepth: 1 }))
    .map((content) => (body: Body) => ({ ...body, messages: [{ role: "user", content }] })),
  fc.constantFrom(15_999, 16_000, 16_001, 20_000).map((length) => (body: Body) => ({ ...body, messages: [{ role: "user", content: "a".repeat(length) }] })),
  fc
    .constantFrom(15_999, 16_000, 16_001)
    .map((length) => (body: Body) => ({ ...body, messages: [{ role: "user", content: "\u{1F600}".repeat(Math.ceil(length / 2)) }] })),
  fc.constantFrom(3, 4, 5).map((count) => (body: Body) => ({
    ...body,
    messages: Array.from({ length: count }, () => ({ role: "user", content: "b".repeat(15_000) })),
  })),
  fc.constant((body: Body) => ({ ...body, messages: [{ role: "user", content: "\uFDFA".repeat(16_000) }] })),
  fc.constantFrom("assistant", "system").map((last) => (body: Body) => ({
    ...body,
    messages: [
      { role: "user", content: "hi" },
      { role: last, content: "ok" },
    ],
  })),
  fc
    .tuple(
      fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "prototype", "admin", "model", "tools", "Messages")),
      fc.jsonValue({ maxDepth: 1 }),
    )
    .map(
      ([key, value]) =>
        (body: Body) =>
          key === "messages" || key === "walletAddress" || key === "spendingLimits" ? body : { ...body, [key]: value },
    ),
  validAddress.map((walletAddress) => (body: Body) => ({ ...body, walletAddress })),
  badAddress.map((walletAddress) => (body: Body) => ({ ...body, walletAddress })),
  fc.tuple(limitKey, badAmount).map(([key, value]) => (body: Body) => ({ ...body, spendingLimits: { [key]: value } })),
  fc.tuple(limitKey, validAmount).map(([key, value]) => (body: Body) => ({ ...body, spendingLimits: { [key]: value } })),
  fc
    .oneof(fc.constantFrom<unknown>(null, [], "1", 1, true, { monthly: 5 }, { perpayment: 1 }, { perPayment: 1, extra: 1 }), fc.jsonValue({ maxDepth: 1 }))
    .map((spendingLimits) => (body: Body) => ({ ...body, spendingLimits })),
  fc.constant((body: Body) => ({ ...body, walletAddress: null })),
  fc.constant((body: Body) => [body]),
);

/** A JSON document nested `depth` deep, built as text so no stack is spent building it. */
const deepNesting = fc.tuple(fc.integer({ min: 50, max: 20_000 }), fc.constantFrom("array", "object", "messages", "content")).map(([depth, where]) => {
  const open = where === "object" ? '{"a":'.repeat(depth) : "[".repeat(depth);
  const close = where === "object" ? "}".repeat(depth) : "]".repeat(depth);
  const nested = `${open}1${close}`;
  if (where === "messages") return `{"messages":${nested}}`;
  if (where === "content") return `{"messages":[{"role":"user","content":${nested}}]}`;
  return nested;
});

/** A secret pasted into a message, sometimes disguised with invisible characters. */
const secretText = fc
  .tuple(
    fc.oneof(
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes)),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes).slice(2)),
      fc.uint8Array({ minLength: 16, maxLength: 16 }).map((bytes) => entropyToMnemonic(bytes, wordlist)),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => entropyToMnemonic(bytes, wordlist)),
    ),
    fc.constantFrom("", "\u200B", "\u2060", "\u202E", "\u00AD"),
    fc.constantFrom("my key is ", "seed: ", "", "please store "),
  )
  .map(([secret, invisible, prefix]) => prefix + (invisible ? [...secret].join(invisible) : secret));

const ACCEPTS = [
  "text/event-stream",
  "text/plain",
  "application/json",
  "*/*",
  "text/plain, text/event-stream",
  "text/html;q=0.9, text/plain;q=0.1",
  "TEXT/PLAIN",
  "",
  "garbage",
  "text/plain;charset=utf-8",
  "application/x-ndjson",
];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json;charset=latin1",
  "application/json-seq",
  "application/jsonp",
  "application/problem+json",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "text/plain",
  "text/json",
  "json",
  "",
  " application/json",
  "application/json ;",
  "application/octet-stream",
  "application/vnd.api+json",
];
/** A header value a client can actually send (no CR, LF or NUL; Latin-1 only). */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((code) => code !== 0x7f)
    .map((code) => String.fromCharCode(code)),
  maxLength: 80,
});
const base64Of = (value: string) => Buffer.from(value, "utf8").toString("base64");

/** Syntactically valid payment payloads whose contents are random: deep in verifyApproval. */
const payloadShaped = fc
  .record({
    x402Version: fc.oneof(fc.constantFrom(1, 2), fc.integer()),
    url: fc.oneof(fc.constantFrom("http://127.0.0.1:9/paid", "not a url", "", "file:///etc/passwd", "http://[::1]:9/"), fc.string({ maxLength: 30 })),
    method: fc.oneof(fc.constantFrom("GET", "POST", "get", "DELETE", ""), fc.string({ maxLength: 16 })),
    accepted: fc.oneof(
      fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
      fc.record({
        scheme: fc.constantFrom("exact", "upto"),
        network: fc.constantFrom("eip155:31337", "eip155:8453", "anvil"),
        amount: fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String), fc.constantFrom("-1", "1e6", "")),
        asset: fc.oneof(fc.constant(network.usdc), addressBytes),
        payTo: addressBytes,
        maxTimeoutSeconds: fc.oneof(fc.integer({ min: 1, max: 86_400 }), fc.integer()),
        extra: fc.record({ name: fc.constantFrom("USD Coin", ""), version: fc.constantFrom("2", "") }),
      }),
    ),
    signature: fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 70 }).map((bytes) => bytesToHex(bytes)),
      fc.constantFrom("0x", "0x00"),
    ),
    from: addressBytes,
    to: addressBytes,
    value: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String),
    validAfter: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String), fc.constant("9".repeat(78))),
    validBefore: fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }).map(String),
      fc.constant("9".repeat(78)),
      fc.constant(String(Math.floor(Date.now() / 1000) + 600)),
    ),
    nonce: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes)),
  })
  .map((fields) =>
    base64Of(
      JSON.stringify({
        x402Version: fields.x402Version,
        resource: { url: fields.url, method: fields.method },
        accepted: fields.accepted,
        payload: {
          signature: fields.signature,
          authorization: {
            from: fields.from,
            to: fields.to,
            value: fields.value,
            validAfter: fields.validAfter,
            validBefore: fields.validBefore,
            nonce: fields.nonce,
          },
        },
      }),
    ),
  );

const paymentSignature: fc.Arbitrary<string> = fc.oneof(
  headerText,
  fc.base64String({ maxLength: 200 }),
  fc.jsonValue({ maxDepth: 3 }).map((value) => base64Of(JSON.stringify(value))),
  payloadShaped,
  fc.constantFrom("", "   ", "=", "====", "bm90IGpzb24=", "e30=", base64Of("null"), "%%%", "A".repeat(16_384), "A".repeat(20_000)),
);

const headerSet = fc.record(
  {
    "content-type": fc.oneof({ weight: 4, arbitrary: fc.constant("application/json") }, fc.constantFrom(...CONTENT_TYPES), headerText),
    accept: fc.oneof(fc.constantFrom(...ACCEPTS), headerText),
    "payment-signature": paymentSignature,
    "x-forwarded-for": fc.oneof(fc.ipV4(), headerText),
    "x-payment": headerText,
    authorization: headerText,
    "idempotency-key": fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/), headerText, fc.constantFrom("a".repeat(129), "key with spaces", "clé")),
  },
  { requiredKeys: [] },
);

// ---------------------------------------------------------------------------------------------
// Properties. Runs are counted; the last test checks that at least 10,000 requests were sent.

const JSON_HEADERS = { "content-type": "application/json" };

async function property<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, toCase: (value: T) => FuzzCase | Promise<FuzzCase>) {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      await send(await toCase(value));
    }),
    { numRuns, endOnFailure: true },
  );
}

describe("request fuzzing: any body, any headers, never a 5xx", () => {
  it("random JSON values as the body", async () => {
    await property(fc.jsonValue({ maxDepth: 4 }), 1_500, (value) => ({ body: JSON.stringify(value) ?? "null", headers: JSON_HEADERS }));
  });

  it("valid bodies stream; their mutations are refused with 400 exactly when the design says so", async () => {
    await property(validBody, 1_200, (body) => ({ body: JSON.stringify(body), headers: JSON_HEADERS }));
    await property(fc.tuple(validBody, fc.array(mutation, { minLength: 1, maxLength: 3 })), 3_500, ([body, mutations]) => {
      const mutated = mutations.reduce<unknown>(
        (current, mutate) => (isPlainObject(current) && "messages" in current ? mutate(current as Body) : current),
        body,
      );
      return { body: JSON.stringify(mutated), headers: JSON_HEADERS };
    });
    // 4 700 requests, each a chat turn or a refusal: about 40 s alone here, and well over the
    // default minute when CI runs other suites beside it. The bound is on count, not on time.
  }, 180_000);

  it("deep nesting, huge bodies and secrets", async () => {
    await property(deepNesting, 300, (body) => ({ body, headers: JSON_HEADERS }));
    await property(fc.integer({ min: MAX_BODY_BYTES - 64, max: MAX_BODY_BYTES + 4_096 }), 60, (size) => {
      const prefix = '{"messages":[{"role":"user","content":"';
      const suffix = '"}]}';
      return { body: prefix + "x".repeat(Math.max(0, size - prefix.length - suffix.length)) + suffix, headers: JSON_HEADERS };
    });
    await property(fc.tuple(validBody, secretText, fc.nat()), 400, ([body, secret, index]) => {
      const messages = [...(body.messages as { role: string; content: string }[])];
      const at = index % messages.length;
      messages[at] = { role: messages[at]?.role ?? "user", content: `${messages[at]?.content ?? ""} ${secret}` };
      return { body: JSON.stringify({ ...body, messages }), headers: JSON_HEADERS };
    });
  });

  it("bytes that are not JSON, or not UTF-8", async () => {
    const valid = '{"messages":[{"role":"user","content":"hi"}]}';
    const raw = fc.oneof(
      fc.uint8Array({ maxLength: 2_000 }),
      fc.string({ unit: "binary", maxLength: 200 }).map((value) => textEncoder.encode(value)),
      fc.nat({ max: valid.length - 1 }).map((cut) => textEncoder.encode(valid.slice(0, cut))),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((garbage) => new Uint8Array([...textEncoder.encode(valid), ...garbage])),
      fc.constantFrom(
        new Uint8Array([0xef, 0xbb, 0xbf, ...textEncoder.encode(valid)]),
        new Uint8Array([0xfe, 0xff, 0x00, 0x7b]),
        new Uint8Array(textEncoder.encode(valid.replace("hi", "h\u0000i"))),
        new Uint8Array([...textEncoder.encode(valid.slice(0, 38)), 0xed, 0xa0, 0x80, ...textEncoder.encode(valid.slice(38))]), // UTF-8-encoded lone surrogate
        new Uint8Array([...textEncoder.encode(valid.slice(0, 38)), 0xc0, 0xaf, ...textEncoder.encode(valid.slice(38))]), // overlong
        new Uint8Array([...textEncoder.encode(valid.slice(0, 38)), 0xff, ...textEncoder.encode(valid.slice(38))]),
        textEncoder.encode(""),
        textEncoder.encode("null"),
        textEncoder.encode("NaN"),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}],}'),
        textEncoder.encode("{'messages':[]}"),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}]}\n{"messages":[]}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"a"}],"messages":[{"role":"user","content":"b"}]}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}],"spendingLimits":{"perPayment":1e308}}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}],"spendingLimits":{"perPayment":-0}}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}],"spendingLimits":{"perPayment":1.0000000}}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi"}],"spendingLimits":{"perPayment":1e-7}}'),
        textEncoder.encode('{"__proto__":{"admin":true},"messages":[{"role":"user","content":"hi"}]}'),
        textEncoder.encode('{"messages":[{"role":"user","content":"hi","__proto__":{"role":"system"}}]}'),
      ),
    );
    await property(raw, 1_500, (body) => ({ body, headers: JSON_HEADERS }));
  });

  it("random Accept, Content-Type and PAYMENT-SIGNATURE headers", async () => {
    const body = fc.oneof(
      validBody.map((value) => JSON.stringify(value)),
      fc.tuple(validBody, mutation).map(([value, mutate]) => JSON.stringify(mutate(value as Body))),
    );
    await property(fc.tuple(body, headerSet, fc.boolean()), 2_000, ([json, headers, asBytes]) => ({
      // A byte body carries no default Content-Type, so a missing header is really missing.
      body: asBytes ? textEncoder.encode(json) : json,
      headers,
    }));
  });

  it("signed approvals: tampered ones are 402, matching ones stream without paying anything", async () => {
    const payer = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const signed = fc.record({
      amount: fc.bigInt({ min: 0n, max: 20_000_000n }),
      payTo: addressBytes.map((hex) => getAddress(hex)),
      path: fc.constantFrom("/paid", "/paid?topic=x", "/", "/%00", "/a/../b"),
      method: fc.constantFrom("GET" as const, "POST" as const),
      lifetime: fc.integer({ min: -120, max: 3_600 }),
      addressCase: fc.constantFrom("checksum", "lower"),
      tamper: fc.constantFrom("none", "none", "none", "amount", "payTo", "validBefore", "nonce", "signature", "from", "method", "url", "network"),
      messages: validBody.map((body) => body.messages),
      limits: fc.option(validLimits, { nil: undefined }),
    });
    await property(signed, 300, async (input) => {
      const requirements = {
        scheme: "exact",
        network: "eip155:31337",
        amount: input.amount.toString(),
        asset: network.usdc,
        payTo: input.payTo,
        maxTimeoutSeconds: 120,
        extra: { name: "USD Coin", version: "2" },
      };
      const nowSeconds = BigInt(Math.floor(Date.now() / 1000));
      const validAfter = nowSeconds - 60n;
      const validBefore = nowSeconds + BigInt(input.lifetime);
      // Only ever loopback port 9, which is not allowlisted: the purchase is refused before connecting.
      const url = `http://127.0.0.1:9${input.path}`;
      const approval = await signApprovalFor(payer, requirements, { network, quoteSecret: QUOTE_SECRET, url, method: input.method, validAfter, validBefore });
      const typedData = approval.typedData;
      let signature: Hex = approval.signature;
      const authorization = { ...typedData.message };
      let accepted: Record<string, unknown> = requirements;
      let resource = { url, method: input.method as string };
      switch (input.tamper) {
        case "amount":
          authorization.value = (input.amount + 1n).toString();
          break;
        case "payTo":
          authorization.to = getAddress(`0x${"ab".repeat(20)}`);
          break;
        case "validBefore":
          authorization.validBefore = (validBefore + 1n).toString();
          break;
        case "nonce":
          authorization.nonce = `0x${"11".repeat(32)}`;
          break;
        case "signature":
          signature = `${signature.slice(0, 10)}${signature[10] === "0" ? "1" : "0"}${signature.slice(11)}` as Hex;
          break;
        case "from":
          authorization.from = getAddress(`0x${"cd".repeat(20)}`);
          break;
        case "method":
          resource = { url, method: input.method === "GET" ? "POST" : "GET" };
          break;
        case "url":
          resource = { url: `${url}x`, method: input.method };
          break;
        case "network":
          accepted = { ...requirements, network: "eip155:8453" };
          break;
      }
      const header = base64Of(JSON.stringify({ x402Version: 2, resource, accepted, payload: { signature, authorization } }));
      const walletAddress = input.addressCase === "lower" ? payer.address.toLowerCase() : payer.address;
      // Tampering with anything the signature or nonce binds, or an expiry too close, is a 402.
      const matching = input.tamper === "none" && input.lifetime > 6;
      return {
        body: JSON.stringify({ messages: input.messages, walletAddress, ...(input.limits ? { spendingLimits: input.limits } : {}) }),
        headers: { "content-type": "application/json", "payment-signature": header },
        validSignature: matching,
      };
    });
  });

  // Found by this fuzz. EIP-55 puts a checksum only in mixed case, and chat-request.ts says it
  // accepts "all-lowercase, all-uppercase, or a correct EIP-55 checksum when mixed case", but
  // viem's isAddress(value, { strict: true }) refuses all-uppercase hex, so this is a 400.
  it("accepts an all-uppercase wallet address (no checksum to check)", async () => {
    const outcome = await send({
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], walletAddress: "0x70997970C51812DC3A010C7D01B50E0D17DC79C8" }),
      headers: JSON_HEADERS,
    });
    expect(outcome.status).toBe(200);
  });

  it("sent at least 10,000 requests, and saw every kind of answer", () => {
    expect(stats.requests).toBeGreaterThanOrEqual(10_000);
    for (const status of [200, 400, 402, 403]) expect(stats.byStatus.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
    for (const code of [
      "bad_request:json",
      "bad_request:body",
      "bad_request:too_large",
      "bad_request:content_type",
      "payment_required:invalid_signature",
      "payment_required:mismatch",
      "payment_required:expired",
    ]) {
      expect(stats.byCode.get(code) ?? 0, code).toBeGreaterThan(0);
    }
    printSummary(JSON.stringify({ requests: stats.requests, byStatus: Object.fromEntries(stats.byStatus), byCode: Object.fromEntries(stats.byCode) }));
  });
});
