import { describe, expect, it } from "vitest";
import { CLOCK_SKEW_SECONDS } from "../lib/agent/purchase/authorization-window";
import { DevnetOptions, parseDevnetCliOptions } from "./devnet-options";

describe("parseDevnetCliOptions", () => {
  it("reads flags, with or without =, over the environment", () => {
    expect(parseDevnetCliOptions(["--block-time", "2", "--confirmations=3"], { DEVNET_BLOCK_TIME: "5", DEVNET_SLOW_DELAY_MS: "10" })).toMatchObject({
      blockTimeSeconds: 2,
      confirmations: 3,
      slowDelayMs: 10,
      writeFile: ".devnet/devnet.json",
    });
  });

  it("reads the heartbeat of instant mining from --heartbeat or DEVNET_HEARTBEAT, 0 turning it off", () => {
    expect(parseDevnetCliOptions(["--heartbeat", "0"], { DEVNET_HEARTBEAT: "3" }).heartbeatSeconds).toBe(0);
    expect(parseDevnetCliOptions([], { DEVNET_HEARTBEAT: "3" }).heartbeatSeconds).toBe(3);
    expect(() => parseDevnetCliOptions(["--heartbeat", "61"], {})).toThrow(/heartbeatSeconds/);
  });

  it("writes where DEVNET_FILE or --file says", () => {
    expect(parseDevnetCliOptions([], { DEVNET_FILE: "/tmp/a.json" }).writeFile).toBe("/tmp/a.json");
    expect(parseDevnetCliOptions(["--file", "b.json"], { DEVNET_FILE: "/tmp/a.json" }).writeFile).toBe("b.json");
  });

  it("runs the channel services' claim rounds every 60 s unless --channel-claim-interval or DEVNET_CHANNEL_CLAIM_INTERVAL says otherwise (0: none on a timer)", () => {
    expect(DevnetOptions.parse(parseDevnetCliOptions([], {})).channelClaimIntervalSeconds).toBe(60);
    expect(parseDevnetCliOptions([], { DEVNET_CHANNEL_CLAIM_INTERVAL: "0" }).channelClaimIntervalSeconds).toBe(0);
    expect(parseDevnetCliOptions(["--channel-claim-interval", "5"], { DEVNET_CHANNEL_CLAIM_INTERVAL: "0" }).channelClaimIntervalSeconds).toBe(5);
    expect(() => parseDevnetCliOptions(["--channel-claim-interval", "-1"], {})).toThrow(/channelClaimIntervalSeconds/);
  });

  it("serves the MCP tools over SSE too only when --mcp-sse or DEVNET_MCP_SSE says 1", () => {
    expect(DevnetOptions.parse(parseDevnetCliOptions([], {})).mcpOverSse).toBe(false);
    expect(parseDevnetCliOptions([], { DEVNET_MCP_SSE: "1" }).mcpOverSse).toBe(true);
    expect(parseDevnetCliOptions(["--mcp-sse", "0"], { DEVNET_MCP_SSE: "1" }).mcpOverSse).toBe(false);
    expect(() => parseDevnetCliOptions(["--mcp-sse", "yes"], {})).toThrow(/must be 1 or 0/);
  });

  it("refuses unknown flags, missing values and bad numbers", () => {
    expect(() => parseDevnetCliOptions(["--block-tiem", "2"], {})).toThrow(/unknown option/);
    expect(() => parseDevnetCliOptions(["--block-time"], {})).toThrow(/needs a value/);
    expect(() => parseDevnetCliOptions(["--block-time", "fast"], {})).toThrow(/must be a number/);
    expect(() => parseDevnetCliOptions(["--confirmations", "0"], {})).toThrow(/confirmations/);
  });
});

describe("DevnetOptions", () => {
  it("defaults to instant mining, one confirmation, chain 31337 and 100 USDC per wallet", () => {
    expect(DevnetOptions.parse({})).toMatchObject({ blockTimeSeconds: 0, confirmations: 1, chainId: 31337, walletUsdc: 100_000_000n });
  });

  it("keeps an idle chain's latest block well inside the 60 s payers date authorizations back by default", () => {
    const { heartbeatSeconds } = DevnetOptions.parse({});
    expect(heartbeatSeconds).toBeGreaterThan(0);
    expect(heartbeatSeconds).toBeLessThanOrEqual(CLOCK_SKEW_SECONDS / 4);
  });
});
