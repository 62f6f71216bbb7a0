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
    expect(() => parseEnv({ X402_NETWORK: "mainnet" })).toThrow(/X402_NETWORK is invalid.*fix: set it to local, base-sepolia, base or custom/s);
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

/** The variables of a problem list, sorted. */
function problemVariables(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems.map((problem) => problem.variable).sort();
  }
  return [];
}

describe("X402_NETWORK=custom: any EVM chain", () => {
  const usdcOnOptimism = "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85";
  const custom = {
    X402_NETWORK: "custom",
    CHAIN_ID: "10",
    RPC_URL: "https://rpc.example/v2/key",
    FACILITATOR_URL: "https://facilitator.example/x402",
    ASSET_ADDRESS: usdcOnOptimism,
    ASSET_NAME: "USD Coin",
    ASSET_VERSION: "2",
    QUOTE_SECRET: "q".repeat(32),
    APP_URL: "https://agent.example",
  };
  const required = ["CHAIN_ID", "RPC_URL", "FACILITATOR_URL", "ASSET_ADDRESS", "ASSET_NAME", "ASSET_VERSION"] as const;

  it("takes the chain, its RPC, its facilitator and its token", () => {
    const env = parseEnv({ ...custom, EXPLORER_URL: "https://optimistic.etherscan.io/", NETWORK_LABEL: "  OP Mainnet " });
    expect(env).toMatchObject({ X402_NETWORK: "custom", CHAIN_ID: 10, ASSET_ADDRESS: usdcOnOptimism, ASSET_NAME: "USD Coin", ASSET_VERSION: "2" });
    expect(env.EXPLORER_URL).toBe("https://optimistic.etherscan.io");
    expect(env.NETWORK_LABEL).toBe("OP Mainnet");
    expect(parseEnv({ ...custom, ASSET_ADDRESS: usdcOnOptimism.toLowerCase() }).ASSET_ADDRESS).toBe(usdcOnOptimism);
  });

  it("requires every one of them, naming each missing variable and the fix", () => {
    expect(problemVariables({ X402_NETWORK: "custom" })).toEqual([...required, "APP_URL", "QUOTE_SECRET"].sort());
    for (const variable of required) {
      const { [variable]: _left, ...rest } = custom;
      expect(problemVariables(rest), variable).toEqual([variable]);
      expect(() => parseEnv(rest)).toThrow(new RegExp(`${variable} is required when X402_NETWORK is custom \\(fix: `));
    }
  });

  it("refuses values of the wrong shape", () => {
    for (const [variable, value] of [
      ["CHAIN_ID", "0"],
      ["CHAIN_ID", "0x0a"],
      ["CHAIN_ID", "ten"],
      ["CHAIN_ID", "99999999999999999"],
      ["RPC_URL", "ws://rpc.example"],
      ["FACILITATOR_URL", "file:///etc/passwd"],
      // The same address with one letter's case flipped: a broken checksum, likely a typo.
      ["ASSET_ADDRESS", usdcOnOptimism.replace("b2C", "b2c")],
      ["ASSET_ADDRESS", "0x1234"],
      ["EXPLORER_URL", "https://explorer.example/?key=1"],
      ["EXPLORER_URL", "javascript:alert(1)"],
      ["NETWORK_LABEL", "OP\nMainnet"],
      ["NETWORK_LABEL", "x".repeat(49)],
    ] as const) {
      expect(problemVariables({ ...custom, [variable]: value }), `${variable}=${value}`).toEqual([variable]);
    }
  });
});

describe("a preset with the operator's values", () => {
  const sepolia = { X402_NETWORK: "base-sepolia", QUOTE_SECRET: "q".repeat(32), APP_URL: "https://agent.example" };

  it("takes CHAIN_ID only when it is the preset's", () => {
    expect(parseEnv({ ...sepolia, CHAIN_ID: "84532" }).CHAIN_ID).toBe(84532);
    expect(problemVariables({ ...sepolia, CHAIN_ID: "8453" })).toEqual(["CHAIN_ID"]);
    expect(() => parseEnv({ ...sepolia, CHAIN_ID: "8453" })).toThrow(/CHAIN_ID must be 84532 \(Base Sepolia\) or unset when X402_NETWORK is base-sepolia/);
  });

  it("takes another token only with its EIP-712 name and version", () => {
    const token = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
    expect(problemVariables({ ...sepolia, ASSET_ADDRESS: token })).toEqual(["ASSET_NAME", "ASSET_VERSION"]);
    expect(parseEnv({ ...sepolia, ASSET_ADDRESS: token, ASSET_NAME: "USDC", ASSET_VERSION: "2" }).ASSET_ADDRESS).toBe(token);
  });
});
