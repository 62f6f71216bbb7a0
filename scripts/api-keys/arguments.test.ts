import { describe, expect, it } from "vitest";
import { parseArguments, parseExpiry } from "./arguments";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;
const CREATE = ["create", "--name", "ci", "--daily", "5", "--per-request", "1", "--per-payment", "0.5"];

function error(argv: string[]): string {
  const parsed = parseArguments(argv, NOW);
  if (parsed.ok) throw new Error(`expected a refusal of ${argv.join(" ")}`);
  return parsed.error;
}

describe("parseArguments", () => {
  it("reads create with USDC decimals as base units, the agent wallet allowed and no expiry by default", () => {
    expect(parseArguments(CREATE, NOW)).toEqual({
      ok: true,
      command: { kind: "create", name: "ci", budget: { perPayment: 500_000n, perRequest: 1_000_000n, daily: 5_000_000n }, agentWallet: true, expiresAt: null },
    });
  });

  it("reads --no-agent-wallet, --expires and --option=value", () => {
    const parsed = parseArguments([...CREATE, "--no-agent-wallet", "--expires=30d"], NOW);
    expect(parsed).toMatchObject({ ok: true, command: { agentWallet: false, expiresAt: NOW + 30 * DAY } });
  });

  it("reads list, revoke and help", () => {
    expect(parseArguments(["list"], NOW)).toEqual({ ok: true, command: { kind: "list" } });
    expect(parseArguments(["revoke", "0123456789abcdef"], NOW)).toEqual({ ok: true, command: { kind: "revoke", id: "0123456789abcdef" } });
    for (const argv of [[], ["help"], ["--help"], ["-h"], ["list", "--help"]])
      expect(parseArguments(argv, NOW)).toEqual({ ok: true, command: { kind: "help" } });
  });

  it("refuses a missing or bad budget, naming the option", () => {
    expect(error(["create", "--name", "ci", "--daily", "5", "--per-request", "1"])).toBe("--per-payment is required (USDC, for example 0.5)");
    expect(error(CREATE.map((word) => (word === "0.5" ? "0.0000001" : word)))).toMatch(/^--per-payment 0.0000001 is not a USDC amount/);
    expect(error([...CREATE.slice(0, 3), "--daily=-5", ...CREATE.slice(5)])).toMatch(/^--daily -5 is not a USDC amount/);
    expect(error(CREATE.map((word) => (word === "5" ? "five" : word)))).toMatch(/^--daily five is not a USDC amount/);
    expect(error(CREATE.map((word) => (word === "5" ? "0.9" : word)))).toBe("expected --per-payment <= --per-request <= --daily");
  });

  it("refuses a missing, empty or control-character name", () => {
    expect(error(CREATE.slice(0, 1).concat(CREATE.slice(3)))).toBe("--name is required");
    expect(error(CREATE.map((word) => (word === "ci" ? "   " : word)))).toMatch(/^--name /);
    expect(error(CREATE.map((word) => (word === "ci" ? "a\u001b[31mb" : word)))).toBe("--name must not contain control characters");
  });

  it("refuses unknown commands and options, stray arguments and options of another command", () => {
    expect(error(["delete", "x"])).toBe("unknown command: delete");
    expect(error([...CREATE, "--colour"])).toMatch(/colour/);
    expect(error(["list", "extra"])).toBe("list takes no arguments (got extra)");
    expect(error(["list", "--name", "ci"])).toBe("--name belongs to create");
    expect(error(["revoke"])).toBe("revoke takes one key id (see list)");
    expect(error(["revoke", "a", "b"])).toBe("revoke takes one key id (see list)");
    expect(error(["revoke", "x402k_0123456789abcdef_secret"])).toMatch(/^not a key id/);
    expect(error([...CREATE, "stray"])).toBe("create takes options only (got stray)");
    expect(error(["create", "--name"])).toMatch(/name/);
  });
});

describe("parseExpiry", () => {
  it("reads durations from now, dates as UTC midnight and full timestamps", () => {
    expect(parseExpiry("30d", NOW)).toBe(NOW + 30 * DAY);
    expect(parseExpiry("12h", NOW)).toBe(NOW + 12 * 60 * 60 * 1000);
    expect(parseExpiry("2027-01-01", NOW)).toBe(Date.UTC(2027, 0, 1));
    expect(parseExpiry("2027-01-01T12:30:00Z", NOW)).toBe(Date.UTC(2027, 0, 1, 12, 30));
    expect(parseExpiry("2027-01-01T12:30:00+02:00", NOW)).toBe(Date.UTC(2027, 0, 1, 10, 30));
  });

  it("refuses the past, now, nonsense and impossible dates", () => {
    expect(parseExpiry("2025-01-01", NOW)).toBe("--expires 2025-01-01 is not in the future");
    expect(parseExpiry("0d", NOW)).toBe("--expires 0d is not in the future");
    for (const text of ["30", "30m", "1y", "tomorrow", "", "2027-1-1", "01/01/2027"]) expect(parseExpiry(text, NOW)).toMatch(/expected a duration/);
    expect(parseExpiry("2027-02-30", NOW)).toBe("--expires 2027-02-30 is not a valid date");
    expect(parseExpiry("2027-13-01", NOW)).toBe("--expires 2027-13-01 is not a valid date");
  });
});
