import { EVM_NETWORK_CHAIN_ID_MAP, getEvmChainIdV1 } from "@x402/evm/v1";
import { describe, expect, it } from "vitest";
import { LOCAL_V1_NETWORK, registerLocalV1Network } from "./local-v1-network";

describe("registerLocalV1Network", () => {
  it("teaches @x402/evm's v1 scheme the local chain's name, idempotently", () => {
    registerLocalV1Network(31337);
    registerLocalV1Network(31337);
    expect(getEvmChainIdV1(LOCAL_V1_NETWORK)).toBe(31337);
  });

  it("refuses to re-point a name that already means another chain", () => {
    expect(() => registerLocalV1Network(31337, "base")).toThrow(/already means chain 8453/);
    expect((EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>).base).toBe(8453);
  });
});
