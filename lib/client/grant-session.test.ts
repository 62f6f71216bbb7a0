import { describe, expect, it } from "vitest";
import { activeGrantFor, GrantSession } from "./grant-session";

const WALLET = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const active = {
  status: "active" as const,
  id: "0123456789abcdef",
  token: `x402g_0123456789abcdef_${"A".repeat(43)}`,
  walletAddress: WALLET,
  amount: "0.03",
  expiresAt: "2026-11-27T20:00:00.000Z",
};

describe("the grant this tab holds", () => {
  it("pays only for its own wallet, whatever the address's case", () => {
    expect(activeGrantFor(active, WALLET.toLowerCase())).toBe(active);
    expect(activeGrantFor(active, "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")).toBeUndefined();
    expect(activeGrantFor(active, undefined)).toBeUndefined();
    expect(activeGrantFor({ status: "ended", message: "The grant was revoked." }, WALLET)).toBeUndefined();
    expect(activeGrantFor(null, WALLET)).toBeUndefined();
  });

  it("reads back from storage only a well-formed grant token", () => {
    expect(GrantSession.safeParse(active).success).toBe(true);
    expect(GrantSession.safeParse({ ...active, token: "x402k_0123456789abcdef_secret" }).success).toBe(false);
    expect(GrantSession.safeParse({ ...active, walletAddress: "me" }).success).toBe(false);
  });
});
