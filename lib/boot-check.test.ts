import { describe, expect, it, vi } from "vitest";
import { checkChainAtBoot, checkConfigurationAtBoot } from "./boot-check";
import { ConfigError } from "./env";
import type { ChainCheckResult } from "./network/chain-check";
import { problemResponse } from "./errors";

describe("configuration at boot", () => {
  it("stops with the variable and its fix when a setting is wrong", () => {
    const stop = vi.fn();
    expect(checkConfigurationAtBoot({ X402_NETWORK: "base-sepolia" }, stop)).toBe(false);
    expect(stop).toHaveBeenCalledTimes(1);
    const message = String(stop.mock.calls[0]?.[0]);
    expect(message).toMatch(/QUOTE_SECRET is required when X402_NETWORK is base-sepolia/);
    expect(message).toMatch(/fix: generate one with `openssl rand -hex 32`/);
  });

  it("lets a good configuration through", () => {
    const stop = vi.fn();
    expect(checkConfigurationAtBoot({ X402_NETWORK: "local" }, stop)).toBe(true);
    expect(stop).not.toHaveBeenCalled();
  });

  it("a running server that meets a bad setting answers 503, naming nothing internal", async () => {
    const response = problemResponse(new ConfigError([{ variable: "QUOTE_SECRET", message: "is required" }]), () => {});
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("60");
    const body = (await response.json()) as { code: string; detail: string };
    expect(body.code).toBe("unavailable:not_configured");
    expect(body.detail).not.toMatch(/QUOTE_SECRET/);
  });
});

describe("the chain at boot", () => {
  const custom = {
    X402_NETWORK: "custom",
    CHAIN_ID: "10",
    RPC_URL: "https://rpc.example/v2/key",
    FACILITATOR_URL: "https://facilitator.example/x402",
    ASSET_ADDRESS: "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85",
    ASSET_NAME: "USD Coin",
    ASSET_VERSION: "2",
    QUOTE_SECRET: "q".repeat(32),
    APP_URL: "https://agent.example",
  };
  const answering = (result: ChainCheckResult) => vi.fn(async () => result);

  it("stops the server when the chain contradicts the configuration, naming the variable", async () => {
    const stop = vi.fn();
    const check = answering({
      status: "mismatch",
      error: new ConfigError([{ variable: "ASSET_VERSION", message: 'is "2", but the token\'s version() is "1"' }]),
    });
    expect(await checkChainAtBoot(custom, { stop, warn: vi.fn(), check })).toBe(false);
    expect(check).toHaveBeenCalledWith(expect.objectContaining({ name: "custom", chainId: 10, rpcUrl: custom.RPC_URL }));
    expect(String(stop.mock.calls[0]?.[0])).toMatch(/cannot start.*ASSET_VERSION is "2", but the token's version\(\) is "1" \(fix: /s);
  });

  it("starts, warning loudly, when the RPC does not answer", async () => {
    const stop = vi.fn();
    const warn = vi.fn();
    expect(await checkChainAtBoot(custom, { stop, warn, check: answering({ status: "unreachable", reason: "connection refused" }) })).toBe(true);
    expect(stop).not.toHaveBeenCalled();
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/WARNING.*did not answer.*connection refused/);
  });

  it("starts quietly when the chain matches", async () => {
    const warn = vi.fn();
    expect(await checkChainAtBoot(custom, { stop: vi.fn(), warn, check: answering({ status: "match", unverified: [] }) })).toBe(true);
    expect(warn).not.toHaveBeenCalled();
  });

  it("leaves unchecked the local world's own coordinates, and a local world that is not running", async () => {
    const check = answering({ status: "match", unverified: [] });
    expect(await checkChainAtBoot({ X402_NETWORK: "local" }, { stop: vi.fn(), warn: vi.fn(), check })).toBe(true);
    // The file is missing: the local world is not running, and requests answer 503 until it is.
    expect(
      await checkChainAtBoot(
        { X402_NETWORK: "local", DEVNET_FILE: "/nonexistent/devnet.json", RPC_URL: "http://127.0.0.1:9545" },
        { stop: vi.fn(), warn: vi.fn(), check },
      ),
    ).toBe(true);
    expect(check).not.toHaveBeenCalled();
  });
});
