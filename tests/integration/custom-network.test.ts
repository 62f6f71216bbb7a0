/**
 * Any EVM chain by configuration alone: a local world on a chain id of its own, described to
 * the app as `X402_NETWORK=custom` (CHAIN_ID, RPC_URL, FACILITATOR_URL, ASSET_*), as an operator
 * would describe any other chain. The chain check reads the real chain and the real Circle USDC;
 * a chat turn built from that environment pays on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { concat, createPublicClient, createTestClient, domainSeparator, erc20Abi, http, parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { checkChainAtBoot } from "../../lib/boot-check";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv } from "../../lib/env";
import { checkNetworkChain, type ChainCheckResult } from "../../lib/network/chain-check";
import { networkConfigFromEnv, type NetworkConfig } from "../../lib/network/network-config";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import { decodeStream, type StreamEvent } from "../../lib/stream";

/** Not the local world's usual 31337: the app must take the chain from CHAIN_ID alone. */
const CHAIN_ID = 4242;

let devnet: Devnet;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "custom-network-"));
  devnet = await startDevnet({ chainId: CHAIN_ID, writeFile: join(workDir, "devnet.json") });
});

afterAll(async () => {
  await devnet?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** The local world described as an operator describes any chain. */
function customEnvironment(changes: Record<string, string> = {}): Record<string, string> {
  return {
    X402_NETWORK: "custom",
    CHAIN_ID: String(devnet.chainId),
    RPC_URL: devnet.rpcUrl,
    FACILITATOR_URL: devnet.facilitatorUrl,
    ASSET_ADDRESS: devnet.usdc,
    ASSET_NAME: devnet.usdcName,
    ASSET_VERSION: devnet.usdcVersion,
    NETWORK_LABEL: "Test chain",
    AGENT_PRIVATE_KEY: devnet.accounts.agent.privateKey,
    AGENT_WALLET_ACCESS: "open",
    QUOTE_SECRET: "custom-network-test-quote-secret-0123456789",
    APP_URL: "http://127.0.0.1:3000",
    OUTBOUND_ALLOWLIST: [...new Set(devnet.services.map((service) => new URL(service.url).host))].join(","),
    DEMO_MODEL_CHUNK_DELAY_MS: "0",
    ...changes,
  };
}

function customNetwork(changes: Record<string, string> = {}): NetworkConfig {
  return networkConfigFromEnv(parseEnv(customEnvironment(changes)));
}

function mismatchedVariables(result: ChainCheckResult): string[] {
  if (result.status !== "mismatch") throw new Error(`expected a mismatch, got ${JSON.stringify(result)}`);
  return result.error.problems.map((problem) => problem.variable);
}

/** Runtime code of a contract that answers every call with the same 32-byte word. */
function answeringWith(word: number): Hex {
  return `0x60${word.toString(16).padStart(2, "0")}60005260206000f3`;
}

/**
 * Runtime code of a token with decimals() = 6 and DOMAIN_SEPARATOR() = `separator`, and no
 * name() or version(): the domain can then only be checked through the separator.
 */
function tokenWithSeparatorOnly(separator: Hex): Hex {
  return concat([
    "0x60003560e01c", // selector = calldata[0:4]
    "0x8063313ce56714601d57", // decimals() → 0x1d
    "0x633644e515146028576000", // DOMAIN_SEPARATOR() → 0x28, else
    "0x80fd", // revert
    "0x5b600660005260206000f3", // 0x1d: return 6
    "0x5b7f",
    separator,
    "0x60005260206000f3", // 0x28: return the separator
  ]);
}

async function deploy(address: Hex, bytecode: Hex): Promise<void> {
  const client = createTestClient({ mode: "anvil", transport: http(devnet.rpcUrl) });
  await client.setCode({ address, bytecode });
}

describe("the chain check", () => {
  it("passes for the values the chain and Circle's USDC really have", async () => {
    expect(await checkNetworkChain(customNetwork())).toEqual({ status: "match", unverified: [] });
  });

  it("names CHAIN_ID when the RPC answers for another chain", async () => {
    const result = await checkNetworkChain(customNetwork({ CHAIN_ID: "8453" }));
    expect(mismatchedVariables(result)).toEqual(["CHAIN_ID"]);
    expect(result.status === "mismatch" && result.error.message).toMatch(/CHAIN_ID is 8453, but the RPC \(RPC_URL\) answers eth_chainId 4242 \(fix: /);
  });

  it("names RPC_URL when a preset's RPC is another chain's", async () => {
    const preset = networkConfigFromEnv(
      parseEnv({ X402_NETWORK: "base-sepolia", RPC_URL: devnet.rpcUrl, QUOTE_SECRET: "q".repeat(32), APP_URL: "https://agent.example" }),
    );
    const result = await checkNetworkChain(preset);
    expect(mismatchedVariables(result)).toEqual(["RPC_URL"]);
    expect(result.status === "mismatch" && result.error.message).toMatch(/RPC_URL answers eth_chainId 4242, but Base Sepolia is chain 84532/);
  });

  it("names ASSET_NAME and ASSET_VERSION when the token's name() or version() differ", async () => {
    const wrongName = await checkNetworkChain(customNetwork({ ASSET_NAME: "USDC" }));
    expect(mismatchedVariables(wrongName)).toEqual(["ASSET_NAME"]);
    expect(wrongName.status === "mismatch" && wrongName.error.message).toMatch(/ASSET_NAME is "USDC", but the token's name\(\) is "USD Coin"/);

    const wrongVersion = await checkNetworkChain(customNetwork({ ASSET_VERSION: "1" }));
    expect(mismatchedVariables(wrongVersion)).toEqual(["ASSET_VERSION"]);
    expect(wrongVersion.status === "mismatch" && wrongVersion.error.message).toMatch(/ASSET_VERSION is "1", but the token's version\(\) is "2"/);

    expect(mismatchedVariables(await checkNetworkChain(customNetwork({ ASSET_NAME: "USDC", ASSET_VERSION: "1" })))).toEqual(["ASSET_NAME", "ASSET_VERSION"]);
  });

  it("names ASSET_ADDRESS for an address without a contract, or a contract that is no 6-decimal token", async () => {
    const empty = await checkNetworkChain(customNetwork({ ASSET_ADDRESS: `0x${"ab".repeat(20)}` }));
    expect(mismatchedVariables(empty)).toEqual(["ASSET_ADDRESS"]);
    expect(empty.status === "mismatch" && empty.error.message).toMatch(/has no contract on chain 4242/);

    const eighteen = `0x${"e1".repeat(20)}` as const;
    await deploy(eighteen, answeringWith(18));
    const wide = await checkNetworkChain(customNetwork({ ASSET_ADDRESS: eighteen }));
    expect(wide.status === "mismatch" && wide.error.message).toMatch(/ASSET_ADDRESS is a token with 18 decimals; amounts here are counted in 6/);

    const reverting = `0x${"e2".repeat(20)}` as const;
    await deploy(reverting, "0x600080fd");
    const notToken = await checkNetworkChain(customNetwork({ ASSET_ADDRESS: reverting }));
    expect(notToken.status === "mismatch" && notToken.error.message).toMatch(/ASSET_ADDRESS is 0x[eE]2.*does not answer decimals\(\)/);
  });

  it("checks a token without name() or version() through its DOMAIN_SEPARATOR()", async () => {
    const address = `0x${"d5".repeat(20)}` as const;
    const separator = domainSeparator({ domain: { name: "Dollar", version: "3", chainId: CHAIN_ID, verifyingContract: address } });
    await deploy(address, tokenWithSeparatorOnly(separator));
    expect(await checkNetworkChain(customNetwork({ ASSET_ADDRESS: address, ASSET_NAME: "Dollar", ASSET_VERSION: "3" }))).toEqual({
      status: "match",
      unverified: [],
    });
    expect(mismatchedVariables(await checkNetworkChain(customNetwork({ ASSET_ADDRESS: address, ASSET_NAME: "Dollar", ASSET_VERSION: "2" })))).toEqual([
      "ASSET_NAME",
      "ASSET_VERSION",
    ]);
  });

  it("says `unreachable`, not wrong, when the RPC does not answer", async () => {
    const result = await checkNetworkChain(customNetwork({ RPC_URL: "http://127.0.0.1:9" }), { timeoutMs: 2_000 });
    expect(result.status).toBe("unreachable");
  });

  it("at boot: stops a server whose configuration the chain contradicts, on custom and on a local world with the operator's values", async () => {
    const passes = { stop: vi.fn(), warn: vi.fn() };
    expect(await checkChainAtBoot(customEnvironment(), passes)).toBe(true);
    expect(passes.stop).not.toHaveBeenCalled();
    expect(passes.warn).not.toHaveBeenCalled();

    const stop = vi.fn();
    expect(await checkChainAtBoot(customEnvironment({ ASSET_VERSION: "1" }), { stop, warn: vi.fn() })).toBe(false);
    expect(String(stop.mock.calls[0]?.[0])).toMatch(/cannot start.*ASSET_VERSION is "1", but the token's version\(\) is "2" \(fix: /s);

    const local = { X402_NETWORK: "local", DEVNET_FILE: join(workDir, "devnet.json"), RPC_URL: devnet.rpcUrl };
    expect(await checkChainAtBoot(local, { stop: vi.fn(), warn: vi.fn() })).toBe(true);
    const localStop = vi.fn();
    expect(
      await checkChainAtBoot({ ...local, ASSET_ADDRESS: devnet.usdc, ASSET_NAME: "USD Coin", ASSET_VERSION: "9" }, { stop: localStop, warn: vi.fn() }),
    ).toBe(false);
    expect(String(localStop.mock.calls[0]?.[0])).toMatch(/ASSET_VERSION is "9"/);
  });
});

describe("a chat turn on a custom network", () => {
  it("pays the weather service on that chain, with the dependencies built from the environment alone", async () => {
    const env = parseEnv(customEnvironment());
    const deps = createAppDependencies(env, {
      store: createMemoryStore(),
      baseModel: createBaseModel({ apiKey: undefined, baseUrl: undefined, modelId: env.MODEL, demoChunkDelayMs: 0 }),
    });
    expect(deps.network).toMatchObject({
      name: "custom",
      label: "Test chain",
      chainId: CHAIN_ID,
      caip2: `eip155:${CHAIN_ID}`,
      networkNames: [`eip155:${CHAIN_ID}`],
      devnet: undefined,
    });

    const chain = createPublicClient({ transport: http(devnet.rpcUrl) });
    const balanceOf = (owner: string) => chain.readContract({ address: devnet.usdc as Hex, abi: erc20Abi, functionName: "balanceOf", args: [owner as Hex] });
    const agent = devnet.accounts.agent.address;
    const merchant = devnet.accounts.merchant.address;
    const [agentBefore, merchantBefore] = await Promise.all([balanceOf(agent), balanceOf(merchant)]);

    try {
      const response = await handleChatRequest(
        new Request("http://127.0.0.1/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "What's the weather in Lisbon?" }] }),
        }),
        () => deps,
      );
      expect(response.status).toBe(200);
      const events: StreamEvent[] = [];
      for await (const item of decodeStream(response.body!)) if (item.kind === "event") events.push(item.event);

      const finish = events.flatMap((event) => (event.type === "finish" ? [event.finish] : [])).at(-1);
      expect(finish).toMatchObject({ finishReason: "payment-complete", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      const payments = events.flatMap((event) => (event.type === "payment" && event.payment.id.startsWith("pay_") ? [event.payment] : []));
      expect(payments.map((payment) => payment.status)).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
      expect(new Set(payments.flatMap((payment) => (payment.network ? [payment.network] : [])))).toEqual(new Set([`eip155:${CHAIN_ID}`]));
      expect(payments.find((payment) => payment.status === "confirmed")?.txHash).toBe(finish?.txHash);

      const receipt = await chain.getTransactionReceipt({ hash: finish!.txHash as Hex });
      expect(receipt.status).toBe("success");
      const price = parseUnits(devnet.services.find((service) => service.name === "weather")!.price, 6);
      expect(await balanceOf(agent)).toBe(agentBefore - price);
      expect(await balanceOf(merchant)).toBe(merchantBefore + price);
    } finally {
      await deps.store.close();
    }
  });
});
