import { describe, expect, it, vi } from "vitest";
import { checkConfigurationAtBoot } from "./boot-check";
import { ConfigError } from "./env";
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
