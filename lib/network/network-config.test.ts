import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "../env";
import { DevnetCoordinates } from "./devnet-coordinates";
import { infrastructureUrls, networkConfigFromDevnet, networkConfigFromEnv } from "./network-config";
import { NETWORK_PRESETS } from "../network-presets";

const key = `0x${"11".repeat(32)}`;
const address = `0x${"22".repeat(20)}`;
const devnet = DevnetCoordinates.parse({
  rpcUrl: "http://127.0.0.1:8545",
  chainId: 31337,
  network: "eip155:31337",
  usdc: address,
  facilitatorUrl: "http://127.0.0.1:4021",
  services: [
    { name: "weather", url: "http://127.0.0.1:4022/weather", price: "0.01", x402Version: 2 },
    { name: "news", url: "http://127.0.0.1:4023/news", price: "0.03", x402Version: 2 },
  ],
  accounts: { agent: { address, privateKey: key }, user: { address, privateKey: key }, unfunded: { address, privateKey: key }, merchant: { address } },
});

describe("networkConfigFromDevnet", () => {
  it("allowlists the local services' hosts and the operator's, never the chain's RPC or the facilitator", () => {
    const network = networkConfigFromDevnet(devnet, parseEnv({ OUTBOUND_ALLOWLIST: "10.0.0.7:9000" }));
    expect(network.outboundAllowlist).toEqual(["127.0.0.1:4022", "127.0.0.1:4023", "10.0.0.7:9000"]);
  });

  it("names the RPC and the facilitator as the network's own servers", () => {
    expect(infrastructureUrls(networkConfigFromDevnet(devnet, parseEnv({})))).toEqual(["http://127.0.0.1:8545", "http://127.0.0.1:4021"]);
  });
});

describe("infrastructureUrls", () => {
  it("on Base, the operator's RPC and facilitator", () => {
    const network = { rpcUrl: "https://rpc.example/key", facilitatorUrl: "https://facilitator.example/x402", devnet: undefined };
    expect(infrastructureUrls(network)).toEqual(["https://rpc.example/key", "https://facilitator.example/x402"]);
  });

  it("keeps the local world's own servers where discovery is pointed elsewhere", () => {
    const network = { ...networkConfigFromDevnet(devnet, parseEnv({})), facilitatorUrl: "http://127.0.0.1:5000" };
    expect(infrastructureUrls(network)).toEqual(["http://127.0.0.1:8545", "http://127.0.0.1:5000", "http://127.0.0.1:4021"]);
  });
});

describe("networkConfigFromEnv", () => {
  const secrets = { QUOTE_SECRET: "q".repeat(32), APP_URL: "https://agent.example" };
  const token = "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85";
  const custom = {
    ...secrets,
    X402_NETWORK: "custom",
    CHAIN_ID: "10",
    RPC_URL: "https://rpc.example/v2/key",
    FACILITATOR_URL: "https://facilitator.example/x402",
    ASSET_ADDRESS: token,
    ASSET_NAME: "USD Coin",
    ASSET_VERSION: "2",
  };

  it("custom: the chain the environment describes, named by its CAIP-2 id only", () => {
    const network = networkConfigFromEnv(parseEnv({ ...custom, OUTBOUND_ALLOWLIST: "10.0.0.7:9000" }));
    expect(network).toEqual({
      name: "custom",
      label: "Chain 10",
      chainId: 10,
      caip2: "eip155:10",
      networkNames: ["eip155:10"],
      usdc: token,
      usdcName: "USD Coin",
      usdcVersion: "2",
      rpcUrl: "https://rpc.example/v2/key",
      facilitatorUrl: "https://facilitator.example/x402",
      explorerUrl: undefined,
      agentPrivateKey: undefined,
      outboundAllowlist: ["10.0.0.7:9000"],
      devnet: undefined,
    });
    expect(infrastructureUrls(network)).toEqual(["https://rpc.example/v2/key", "https://facilitator.example/x402"]);
    const named = networkConfigFromEnv(parseEnv({ ...custom, NETWORK_LABEL: "OP Mainnet", EXPLORER_URL: "https://optimistic.etherscan.io" }));
    expect(named).toMatchObject({ label: "OP Mainnet", explorerUrl: "https://optimistic.etherscan.io" });
  });

  it("custom: an environment built without parseEnv still names what it lacks", () => {
    const env = { ...parseEnv(custom), ASSET_NAME: undefined, CHAIN_ID: undefined };
    expect(() => networkConfigFromEnv(env)).toThrow(ConfigError);
    expect(() => networkConfigFromEnv(env)).toThrow(/CHAIN_ID is required when X402_NETWORK is custom.*ASSET_NAME is required/s);
  });

  it("a preset keeps its values unless the operator overrides them", () => {
    const preset = NETWORK_PRESETS["base-sepolia"];
    const plain = networkConfigFromEnv(parseEnv({ ...secrets, X402_NETWORK: "base-sepolia" }));
    expect(plain).toMatchObject({
      name: "base-sepolia",
      label: "Base Sepolia",
      chainId: 84532,
      usdc: preset.usdc,
      usdcName: "USDC",
      usdcVersion: "2",
      explorerUrl: "https://sepolia.basescan.org",
    });
    expect(plain.networkNames).toEqual(["eip155:84532", "base-sepolia"]);

    const overridden = networkConfigFromEnv(
      parseEnv({
        ...secrets,
        X402_NETWORK: "base-sepolia",
        CHAIN_ID: "84532",
        ASSET_ADDRESS: token,
        ASSET_NAME: "Other Dollar",
        ASSET_VERSION: "1",
        EXPLORER_URL: "https://explorer.example/base-sepolia/",
        NETWORK_LABEL: "Sepolia of Base",
      }),
    );
    expect(overridden).toMatchObject({
      name: "base-sepolia",
      label: "Sepolia of Base",
      chainId: 84532,
      caip2: "eip155:84532",
      usdc: token,
      usdcName: "Other Dollar",
      usdcVersion: "1",
      explorerUrl: "https://explorer.example/base-sepolia",
    });
  });

  it("a preset refuses another chain id, also in an environment built without parseEnv", () => {
    expect(() => parseEnv({ ...secrets, X402_NETWORK: "base", FACILITATOR_URL: "https://f.example", CHAIN_ID: "84532" })).toThrow(
      /CHAIN_ID must be 8453 \(Base\)/,
    );
    const env = { ...parseEnv({ ...secrets, X402_NETWORK: "base", FACILITATOR_URL: "https://f.example" }), CHAIN_ID: 84532 };
    expect(() => networkConfigFromEnv(env)).toThrow(/CHAIN_ID must be 8453/);
  });

  describe("local, with the operator's RPC and facilitator", () => {
    const file = join(mkdtempSync(join(tmpdir(), "coordinates-")), "devnet.json");
    writeFileSync(file, JSON.stringify(devnet));
    const overrides = { X402_NETWORK: "local", DEVNET_FILE: file, RPC_URL: "http://127.0.0.1:9545", FACILITATOR_URL: "https://facilitator.example/x402" };

    it("reads the rest from the coordinates file", () => {
      const plain = networkConfigFromEnv(parseEnv({ X402_NETWORK: "local", DEVNET_FILE: file }));
      expect(plain).toMatchObject({ name: "local", label: "Local devnet", rpcUrl: "http://127.0.0.1:8545", facilitatorUrl: "http://127.0.0.1:4021" });

      const network = networkConfigFromEnv(parseEnv(overrides));
      expect(network).toMatchObject({
        name: "local",
        chainId: 31337,
        usdc: address,
        rpcUrl: "http://127.0.0.1:9545",
        facilitatorUrl: "https://facilitator.example/x402",
      });
      expect(network.networkNames).toEqual(["eip155:31337", "anvil"]);
      expect(network.outboundAllowlist).toEqual(["127.0.0.1:4022", "127.0.0.1:4023"]);
    });

    it("keeps both the overriding servers and the file's out of reach of service calls", () => {
      expect(infrastructureUrls(networkConfigFromEnv(parseEnv(overrides))).sort()).toEqual(
        ["http://127.0.0.1:9545", "https://facilitator.example/x402", "http://127.0.0.1:8545", "http://127.0.0.1:4021"].sort(),
      );
    });

    it("refuses a CHAIN_ID that is not the local world's", () => {
      expect(() => networkConfigFromEnv(parseEnv({ ...overrides, CHAIN_ID: "1" }))).toThrow(/CHAIN_ID must be 31337/);
      expect(networkConfigFromEnv(parseEnv({ ...overrides, CHAIN_ID: "31337" })).chainId).toBe(31337);
    });
  });
});
