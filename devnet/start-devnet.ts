import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { getAddress } from "viem";
import { DevnetCoordinates } from "../lib/network/devnet-coordinates";
import { LOCAL_V1_NETWORK, registerLocalV1Network } from "../lib/network/local-v1-network";
import { DEV_ACCOUNT_COUNT, ANVIL_MNEMONIC, devAccounts } from "./chain/dev-accounts";
import { installMulticall3 } from "./chain/install-multicall3";
import { installPermit2, PERMIT2 } from "./chain/install-permit2";
import { installUptoProxy, UPTO_PROXY } from "./chain/install-upto-proxy";
import { BATCH_SETTLEMENT, ERC3009_DEPOSIT_COLLECTOR, installBatchSettlement } from "./chain/install-batch-settlement";
import { localChain, localPublicClient, localTestClient, setIntervalMining } from "./chain/local-chain";
import { startAnvil, type AnvilProcess } from "./chain/start-anvil";
import { DevnetOptions, type StartDevnetOptions } from "./devnet-options";
import { assertCatalogueConforms } from "./conformance/x402-conformance";
import { createFacilitator } from "./facilitator/create-facilitator";
import { toDiscoveryResource } from "./facilitator/discovery-catalog";
import { createFacilitatorSigner } from "./facilitator/facilitator-signer";
import { startFacilitatorServer } from "./facilitator/facilitator-server";
import { DevnetFaults } from "./faults";
import { mcpCoordinatesEntries, mcpDiscoveryItems } from "./mcp/mcp-catalog";
import { startMcpServer } from "./mcp/mcp-server";
import { DEMO_MCP_TOOLS } from "./mcp/mcp-tools";
import { PaidRequestOutcomes } from "./services/paid-outcomes";
import type { PaymentTerms } from "./services/payment-terms";
import { coordinatesEntry, discoveryItem, startServices } from "./services/start-services";
import { CHANNEL_SERVICES } from "./channels/channel-catalog";
import { channelCoordinatesEntry, channelDiscoveryItem } from "./channels/channel-listing";
import { startChannelServices, type RunningChannelServices } from "./channels/channel-services";
import { ALL_SERVICES } from "./services/service-catalog";
import { approvePermit2 } from "./token/approve-permit2";
import { deployUsdc } from "./token/deploy-usdc";

/** A running local world: its coordinates, its fault switches, and the way to stop it. */
export type Devnet = DevnetCoordinates & {
  faults: DevnetFaults;
  /** How paid requests past verification ended (tests wait on these instead of sleeping). */
  paidRequests: PaidRequestOutcomes;
  /**
   * The channel services (x402 `batch-settlement`): `flush()` runs a claim round on each now
   * (claim the vouchers held, then settle; the hostile one tries to claim past them).
   * `closeService(name)` closes one service's port (a service gone away: its calls and refunds
   * cannot reach it), its claim rounds still run.
   */
  channels: Pick<RunningChannelServices, "flush"> & { closeService(name: string): Promise<void> };
  /** Milliseconds from the call to `startDevnet` until everything answered. */
  readyInMs: number;
  /** The processes behind the chain, for tests that check nothing is left running. */
  processes: { anvilPid: number; reaperPid: number; processTag: string };
  /** Stops the services, the facilitator and anvil, and removes the coordinates file. Idempotent. */
  stop(): Promise<void>;
  /** Resolves when the chain has ended: after `stop()`, or early if anvil died. */
  ended: Promise<void>;
};

type Stoppable = () => Promise<void>;

/**
 * Starts the whole local x402 world on 127.0.0.1, on free ports, so that several can run at
 * once (one per test file): anvil, Circle's USDC deployed and minted, the facilitator, the
 * paid demo services, and an MCP server whose tools are paid the same way.
 *
 * @example
 * const devnet = await startDevnet({ blockTimeSeconds: 0 });
 * try { ...use devnet.services, devnet.accounts... } finally { await devnet.stop(); }
 */
export async function startDevnet(input: StartDevnetOptions = {}): Promise<Devnet> {
  const startedAt = Date.now();
  const options = DevnetOptions.parse(input);
  const stack: Stoppable[] = [];
  const faults = new DevnetFaults();
  const paidRequests = new PaidRequestOutcomes();
  const stopAll = async () => {
    faults.stop();
    // Last started, first stopped: services, then the facilitator, then the chain.
    for (const stop of stack.reverse().splice(0)) await stop().catch(() => undefined);
  };

  try {
    const accounts = devAccounts(ANVIL_MNEMONIC);
    const anvil: AnvilProcess = await startAnvil({
      chainId: options.chainId,
      mnemonic: ANVIL_MNEMONIC,
      accountCount: DEV_ACCOUNT_COUNT,
      balanceEther: 10_000,
      // Instant mining alone leaves the latest block, and the time every eth_call runs at, as old
      // as the last transaction: after a minute idle, the facilitator's simulation saw the
      // agent's authorization (valid from now − 60 s) as "not yet valid" and no payment passed.
      // Interval mining needs no heartbeat: it mines on its own.
      heartbeatSeconds: options.blockTimeSeconds === 0 ? options.heartbeatSeconds : 0,
    });
    stack.push(anvil.stop);
    const chain = localChain(options.chainId, anvil.rpcUrl);
    const publicClient = localPublicClient(chain);
    const testClient = localTestClient(chain);

    const [usdc] = await Promise.all([
      deployUsdc({
        chain,
        publicClient,
        deployer: accounts.deployer,
        proxyAdmin: accounts.proxyAdmin,
        mints: [
          { to: accounts.agent.address, amount: options.walletUsdc },
          { to: accounts.user.address, amount: options.walletUsdc },
        ],
      }),
      installMulticall3(publicClient, testClient),
      // Permit2 and the x402 upto proxy at the addresses @x402/evm uses on every chain.
      installPermit2(publicClient, testClient).then(() => installUptoProxy(testClient)),
      // The batch-settlement channel contract and its ERC-3009 deposit collector, likewise.
      installBatchSettlement(testClient),
    ]);
    // The one-time step before any Permit2 payment (upto), for the wallets that hold USDC.
    await approvePermit2({ chain, publicClient, token: usdc.address, owners: [accounts.agent, accounts.user] });
    // Setup ran with instant mining; only now switch to the requested block time.
    if (options.blockTimeSeconds > 0) await setIntervalMining(testClient, options.blockTimeSeconds);

    const network = `eip155:${options.chainId}` as const;
    registerLocalV1Network(options.chainId, LOCAL_V1_NETWORK);
    const facilitatorServer = await startFacilitatorServer({
      faults,
      facilitator: createFacilitator({
        network,
        v1Network: LOCAL_V1_NETWORK,
        signer: createFacilitatorSigner({
          chain,
          publicClient,
          testClient,
          account: accounts.facilitator,
          confirmations: options.confirmations,
          settleTimeoutMs: options.settleTimeoutMs,
          instantMining: options.blockTimeSeconds === 0,
          faults,
        }),
      }),
    });
    stack.push(facilitatorServer.stop);

    const terms: PaymentTerms = {
      network,
      v1Network: LOCAL_V1_NETWORK,
      payTo: accounts.merchant.address,
      payeeKey: accounts.merchant.privateKey,
      token: { address: getAddress(usdc.address), name: usdc.name, version: usdc.version },
    };
    const running = await startServices(ALL_SERVICES, {
      terms,
      facilitatorUrl: facilitatorServer.url,
      facilitatorTimeoutMs: options.facilitatorTimeoutMs,
      slowDelayMs: options.slowDelayMs,
      faults,
      outcomes: paidRequests,
      onStarted: (host) => stack.push(host.stop),
    });

    // The channel services: paid per call with vouchers, claimed and settled in batches.
    if (!terms.payeeKey) throw new Error("the channel services need the payee's key");
    const channels = await startChannelServices(CHANNEL_SERVICES, {
      terms: { ...terms, payeeKey: terms.payeeKey },
      facilitatorUrl: facilitatorServer.url,
      chain,
      claimIntervalSeconds: options.channelClaimIntervalSeconds,
    });
    stack.push(channels.stop);

    // The MCP tools' server: x402 over MCP (Streamable HTTP) on its own port, paid through the same facilitator.
    const mcpServer = await startMcpServer({
      tools: DEMO_MCP_TOOLS,
      terms,
      facilitatorUrl: facilitatorServer.url,
      facilitatorTimeoutMs: options.facilitatorTimeoutMs,
    });
    stack.push(mcpServer.stop);
    const mcpServers = [mcpServer];
    if (options.mcpOverSse) {
      const sseServer = await startMcpServer({
        tools: DEMO_MCP_TOOLS,
        transport: "sse",
        terms,
        facilitatorUrl: facilitatorServer.url,
        facilitatorTimeoutMs: options.facilitatorTimeoutMs,
      });
      stack.push(sseServer.stop);
      mcpServers.push(sseServer);
    }

    const lastUpdated = new Date(startedAt).toISOString();
    const catalog = [
      ...running.map((entry) => discoveryItem(entry, lastUpdated)),
      ...channels.servers.map((server) => channelDiscoveryItem(server, lastUpdated)),
      ...mcpServers.flatMap((server) => mcpDiscoveryItems(server, lastUpdated)),
    ];
    // Every listing as discovery will answer it, against x402's schemas: a listing the official
    // client could not pay stops the world here, named, instead of failing each payment later.
    // The cheap checks only (a few ms); the full ones run in tests/integration/official-x402.test.ts.
    assertCatalogueConforms(catalog.map((item) => ({ name: item.metadata.name, listing: toDiscoveryResource(item) })));
    facilitatorServer.setCatalog(catalog);

    const coordinates = DevnetCoordinates.parse({
      rpcUrl: anvil.rpcUrl,
      chainId: options.chainId,
      network,
      usdc: terms.token.address,
      facilitatorUrl: facilitatorServer.url,
      services: [...running.map((entry) => coordinatesEntry(entry, { v2: network, v1: LOCAL_V1_NETWORK })), ...channels.servers.map(channelCoordinatesEntry)],
      mcpTools: mcpServers.flatMap(mcpCoordinatesEntries),
      accounts: {
        agent: accounts.agent,
        user: accounts.user,
        unfunded: accounts.unfunded,
        merchant: { address: accounts.merchant.address },
      },
      usdcName: usdc.name,
      usdcVersion: usdc.version,
      usdcDecimals: usdc.decimals,
      v1Network: LOCAL_V1_NETWORK,
      explorerUrl: null,
      blockTimeSeconds: options.blockTimeSeconds,
      confirmations: options.confirmations,
      faultsUrl: `${facilitatorServer.url}/_devnet/faults`,
      permit2: PERMIT2,
      uptoProxy: UPTO_PROXY,
      batchSettlement: BATCH_SETTLEMENT,
      erc3009DepositCollector: ERC3009_DEPOSIT_COLLECTOR,
      startedAt: lastUpdated,
    });

    if (options.writeFile) {
      const file = resolve(options.writeFile);
      writeCoordinates(file, coordinates);
      // Removed first on stop, so the app stops using the devnet before its parts go away.
      stack.push(async () => removeCoordinatesIfOurs(file, coordinates));
    }

    let stopping: Promise<void> | undefined;
    return {
      ...coordinates,
      faults,
      paidRequests,
      channels: {
        flush: channels.flush,
        closeService: async (name: string) => {
          const server = channels.servers.find((candidate) => candidate.service.name === name);
          if (!server) throw new Error(`the local world has no channel service ${name}`);
          await server.stop();
        },
      },
      readyInMs: Date.now() - startedAt,
      processes: { anvilPid: anvil.anvilPid, reaperPid: anvil.reaperPid, processTag: anvil.processTag },
      stop: () => (stopping ??= stopAll()),
      ended: anvil.ended,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function writeCoordinates(file: string, coordinates: DevnetCoordinates): void {
  mkdirSync(dirname(file), { recursive: true });
  // Written whole under a temporary name, then renamed: a reader never sees half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(coordinates, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

/** Another devnet may have taken the file over since; only our own coordinates are removed. */
function removeCoordinatesIfOurs(file: string, coordinates: DevnetCoordinates): void {
  try {
    const current = JSON.parse(readFileSync(file, "utf8")) as { rpcUrl?: unknown; startedAt?: unknown };
    if (current.rpcUrl === coordinates.rpcUrl && current.startedAt === coordinates.startedAt) rmSync(file, { force: true });
  } catch {
    // already gone, or not ours to judge
  }
}
