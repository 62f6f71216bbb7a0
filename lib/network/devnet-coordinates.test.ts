import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DevnetCoordinates, readDevnetCoordinates } from "./devnet-coordinates";

const key = `0x${"11".repeat(32)}`;
const address = `0x${"22".repeat(20)}`;
/** Only the fields every reader may rely on; the added ones get defaults. */
const minimal = {
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 31337,
  network: "eip155:31337",
  usdc: address,
  facilitatorUrl: "http://127.0.0.1:4021",
  services: [{ name: "weather", url: "http://127.0.0.1:4022/weather", price: "0.01", x402Version: 2 }],
  accounts: { agent: { address, privateKey: key }, user: { address, privateKey: key }, unfunded: { address, privateKey: key }, merchant: { address } },
};

function fileWith(content: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "coordinates-")), "devnet.json");
  writeFileSync(file, content);
  return file;
}

describe("DevnetCoordinates", () => {
  it("accepts the required fields alone and fills in the added ones", () => {
    const parsed = DevnetCoordinates.parse(minimal);
    expect(parsed).toMatchObject({ usdcName: "USD Coin", usdcVersion: "2", v1Network: "anvil", explorerUrl: null, blockTimeSeconds: 0, confirmations: 1 });
    expect(parsed.services[0]).toMatchObject({ offline: false, queryParams: {} });
  });

  it("refuses a malformed address, key, price or network", () => {
    expect(DevnetCoordinates.safeParse({ ...minimal, usdc: "0x12" }).success).toBe(false);
    expect(DevnetCoordinates.safeParse({ ...minimal, network: "base" }).success).toBe(false);
    expect(DevnetCoordinates.safeParse({ ...minimal, services: [{ ...minimal.services[0], price: "0.0000001" }] }).success).toBe(false);
    expect(DevnetCoordinates.safeParse({ ...minimal, accounts: { ...minimal.accounts, agent: { address, privateKey: "0x1" } } }).success).toBe(false);
  });
});

describe("readDevnetCoordinates", () => {
  it("reads a valid file", () => {
    expect(readDevnetCoordinates(fileWith(JSON.stringify(minimal))).chainId).toBe(31337);
  });

  it("says how to start the devnet when the file is missing", () => {
    expect(() => readDevnetCoordinates("/nonexistent/devnet.json")).toThrow(/npm run devnet/);
  });

  it("names the bad fields of an invalid file, and refuses text that is not JSON", () => {
    expect(() => readDevnetCoordinates(fileWith(JSON.stringify({ ...minimal, chainId: -1 })))).toThrow(/chainId/);
    expect(() => readDevnetCoordinates(fileWith("{"))).toThrow(/not valid JSON/);
  });
});
