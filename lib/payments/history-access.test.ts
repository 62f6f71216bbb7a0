import { describe, expect, it } from "vitest";
import { payerFor } from "./history-access";

const wallet = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const grantAccount = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
const stranger = "0x90F79bf6EB2c4f870365E785982E1f101E93b906" as const;
const grantAccountOf = (address: `0x${string}`) => (address === wallet ? grantAccount : stranger);

describe("whose history a signed-in wallet may read", () => {
  it("its own, and the account that pays under its grants; no one else's", () => {
    const viewer = { kind: "wallet", address: wallet } as const;
    expect(payerFor(viewer, undefined, undefined, grantAccountOf)).toBe(wallet);
    expect(payerFor(viewer, grantAccount, undefined, grantAccountOf)).toBe(grantAccount);
    expect(payerFor(viewer, grantAccount.toLowerCase() as `0x${string}`, undefined, grantAccountOf)).toBe(grantAccount);
    expect(() => payerFor(viewer, stranger, undefined, grantAccountOf)).toThrow(expect.objectContaining({ code: "forbidden:not_your_wallet" }));
    // Without a relayer there is no grant account to read.
    expect(() => payerFor(viewer, grantAccount, undefined)).toThrow(expect.objectContaining({ code: "forbidden:not_your_wallet" }));
  });
});
