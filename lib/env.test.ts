import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "./env";

describe("parseEnv", () => {
  it("applies defaults for an empty environment (the local world)", () => {
    const env = parseEnv({});
    expect(env.X402_NETWORK).toBe("local");
    expect(env.LIMIT_DEFAULT_PER_PAYMENT).toBe(1_000_000n);
    expect(env.CHAT_DEADLINE_MS).toBe(45_000);
    expect(env.TEMPERATURE_PAYMENT).toBeLessThanOrEqual(0.3);
    expect(env.TEMPERATURE_DISCOVERY).toBeGreaterThanOrEqual(0.8);
  });

  it("names the bad variable and the fix", () => {
    expect(() => parseEnv({ X402_NETWORK: "mainnet" })).toThrow(ConfigError);
    expect(() => parseEnv({ X402_NETWORK: "mainnet" })).toThrow(/X402_NETWORK is invalid.*fix: set it to local, base-sepolia or base/s);
    expect(() => parseEnv({ AGENT_PRIVATE_KEY: "0x1234" })).toThrow(/AGENT_PRIVATE_KEY is invalid: expected a 0x-prefixed 32-byte hex private key/);
    expect(() => parseEnv({ LIMIT_MAX_DAILY: "-3" })).toThrow(/LIMIT_MAX_DAILY is invalid/);
    expect(() => parseEnv({ CHAT_DEADLINE_MS: "60000" })).toThrow(/CHAT_DEADLINE_MS.*between 1000 and 48000/s);
  });

  it("lists every problem at once, including rules across variables", () => {
    try {
      parseEnv({ X402_NETWORK: "base", LIMIT_DEFAULT_DAILY: "500" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const variables = (error as ConfigError).problems.map((problem) => problem.variable).sort();
      expect(variables).toEqual(["APP_URL", "FACILITATOR_URL", "LIMIT_DEFAULT_DAILY", "QUOTE_SECRET"]);
    }
  });

  it("takes APP_URL as an origin only, and the allowed wallets as a list of addresses", () => {
    expect(parseEnv({ APP_URL: "https://Agent.Example/" }).APP_URL).toBe("https://agent.example");
    for (const bad of ["https://agent.example/app", "https://agent.example/?x=1", "https://user:pw@agent.example", "ftp://agent.example"]) {
      expect(() => parseEnv({ APP_URL: bad }), bad).toThrow(/APP_URL/);
    }
    const wallet = "0x52908400098527886E0F7030069857D2E4169EE7";
    expect(parseEnv({ AGENT_WALLET_ALLOWED_WALLETS: ` ${wallet}, ` }).AGENT_WALLET_ALLOWED_WALLETS).toEqual([wallet.toLowerCase()]);
    expect(() => parseEnv({ AGENT_WALLET_ALLOWED_WALLETS: "0x1234" })).toThrow(/AGENT_WALLET_ALLOWED_WALLETS/);
    expect(parseEnv({}).AGENT_WALLET_ALLOWED_WALLETS).toEqual([]);
  });

  it("treats empty strings as unset", () => {
    expect(parseEnv({ OPENAI_API_KEY: "", REDIS_URL: "" }).OPENAI_API_KEY).toBeUndefined();
  });
});
