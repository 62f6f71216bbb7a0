/**
 * The command line of `npm run api-keys`, parsed into a command: pure, so every refusal is
 * tested without a database. Amounts come in as USDC decimals and leave as base units.
 */
import { parseArgs } from "node:util";
import { ApiKeyName, budgetInOrder } from "../../lib/access/api-key-rules";
import { ApiKeyId, type CallerBudget } from "../../lib/access/api-keys";
import { parseUsdc } from "../../lib/money";

export type Command =
  | { kind: "create"; name: string; budget: CallerBudget; agentWallet: boolean; expiresAt: number | null }
  | { kind: "list" }
  | { kind: "revoke"; id: string }
  | { kind: "help" };

/** A refusal of the command line: printed with the usage, exit code 2. */
export type Parsed = { ok: true; command: Command } | { ok: false; error: string };

export const USAGE = `Usage: npm run api-keys -- <command>

  create --name <name> --per-payment <USDC> --per-request <USDC> --daily <USDC>
         [--expires <30d | 12h | 2027-01-01 | 2027-01-01T12:00:00Z>] [--no-agent-wallet]
      Makes a key and prints its token once. Amounts are USDC (for example 0.5).
      --expires: a duration from now (d = days, h = hours) or a date (UTC).
      --no-agent-wallet: the key may not make the agent wallet pay.
  list
      Shows every key, newest first, revoked and expired ones included.
  revoke <id>
      Stops a key from working, at once and for good.

The database is the server's: DATABASE_URL, else the embedded one under DATA_DIR (.env and
.env.local are read). The embedded database allows one process: stop the app first.`;

const HOUR = 60 * 60 * 1000;
const UNIT_MS = { h: HOUR, d: 24 * HOUR } as const;

/**
 * @example
 * parseArguments(["revoke", "0123456789abcdef"], Date.now()); // { ok: true, command: { kind: "revoke", id: "0123456789abcdef" } }
 */
export function parseArguments(argv: string[], now: number): Parsed {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        name: { type: "string" },
        "per-payment": { type: "string" },
        "per-request": { type: "string" },
        daily: { type: "string" },
        expires: { type: "string" },
        "no-agent-wallet": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  const [verb, ...rest] = positionals;
  if (values.help || verb === "help" || verb === undefined) return { ok: true, command: { kind: "help" } };
  const createOnly = ["name", "per-payment", "per-request", "daily", "expires", "no-agent-wallet"].filter((option) => values[option] !== undefined);
  if (verb !== "create" && createOnly.length > 0) return refuse(`--${createOnly[0]} belongs to create`);
  switch (verb) {
    case "list":
      return rest.length === 0 ? { ok: true, command: { kind: "list" } } : refuse(`list takes no arguments (got ${rest.join(" ")})`);
    case "revoke":
      if (rest.length !== 1) return refuse("revoke takes one key id (see list)");
      return ApiKeyId.safeParse(rest[0]).success
        ? { ok: true, command: { kind: "revoke", id: rest[0]! } }
        : refuse(`not a key id: ${rest[0]} (16 hex digits, see list)`);
    case "create":
      if (rest.length > 0) return refuse(`create takes options only (got ${rest.join(" ")})`);
      return parseCreate(values, now);
    default:
      return refuse(`unknown command: ${verb}`);
  }
}

function parseCreate(values: Record<string, string | boolean | undefined>, now: number): Parsed {
  const name = ApiKeyName.safeParse(values.name);
  if (!name.success) return refuse(values.name === undefined ? "--name is required" : `--name ${name.error.issues[0]?.message ?? "is invalid"}`);
  const amounts: Partial<CallerBudget> = {};
  for (const [option, field] of [
    ["per-payment", "perPayment"],
    ["per-request", "perRequest"],
    ["daily", "daily"],
  ] as const) {
    const text = values[option];
    if (typeof text !== "string") return refuse(`--${option} is required (USDC, for example 0.5)`);
    const amount = parseUsdc(text);
    if (amount === undefined) return refuse(`--${option} ${text} is not a USDC amount (for example 0.5; at most 6 decimals)`);
    amounts[field] = amount;
  }
  const budget = amounts as CallerBudget;
  if (!budgetInOrder(budget)) return refuse("expected --per-payment <= --per-request <= --daily");
  let expiresAt: number | null = null;
  if (typeof values.expires === "string") {
    const parsed = parseExpiry(values.expires, now);
    if (typeof parsed === "string") return refuse(parsed);
    expiresAt = parsed;
  }
  return { ok: true, command: { kind: "create", name: name.data, budget, agentWallet: values["no-agent-wallet"] !== true, expiresAt } };
}

/** Epoch ms of `--expires`, or why it is refused. */
export function parseExpiry(text: string, now: number): number | string {
  const duration = /^(\d{1,6})([hd])$/.exec(text);
  let at: number;
  if (duration) at = now + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
  else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) at = Date.parse(`${text}T00:00:00Z`);
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) at = Date.parse(text);
  else return `--expires ${text}: expected a duration such as 30d or 12h, or a date such as 2027-01-01`;
  if (!Number.isSafeInteger(at) || (duration === null && !isRealDay(text.slice(0, 10)))) return `--expires ${text} is not a valid date`;
  if (at <= now) return `--expires ${text} is not in the future`;
  return at;
}

/** Date.parse rolls some impossible days over (February 30th is March 2nd), so the day must survive. */
function isRealDay(day: string): boolean {
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isSafeInteger(at) && new Date(at).toISOString().startsWith(day);
}

function refuse(error: string): Parsed {
  return { ok: false, error };
}
