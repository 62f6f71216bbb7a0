import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { DevnetCoordinates } from "./devnet-coordinates";
import { infrastructureUrls, networkConfigFromDevnet } from "./network-config";

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
