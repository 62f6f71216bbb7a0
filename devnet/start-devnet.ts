import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { getAddress } from "viem";
import { formatUsdc } from "../lib/money";
import { DevnetCoordinates } from "../lib/network/devnet-coordinates";
import { LOCAL_V1_NETWORK, registerLocalV1Network } from "../lib/network/local-v1-network";
import { DEV_ACCOUNT_COUNT, ANVIL_MNEMONIC, devAccounts } from "./chain/dev-accounts";
import { installMulticall3 } from "./chain/install-multicall3";
import { localChain, localPublicClient, localTestClient, setMiningMode } from "./chain/local-chain";
import { startAnvil, type AnvilProcess } from "./chain/start-anvil";
import { DevnetOptions, type StartDevnetOptions } from "./devnet-options";
import type { DiscoveryItem } from "./facilitator/discovery-catalog";
import { createFacilitator } from "./facilitator/create-facilitator";
import { createFacilitatorSigner } from "./facilitator/facilitator-signer";
import { startFacilitatorServer } from "./facilitator/facilitator-server";
import { DevnetFaults } from "./faults";
import type { PaidServiceHandler } from "./services/paid-request-handler";
import { discoveryExtensionFor, type PaymentTerms } from "./services/payment-terms";
import { DEMO_SERVICES, type DemoService } from "./services/service-catalog";
import { findRefusingPort, startServiceHost, type ServiceHost } from "./services/service-host";
import { createV1ServiceHandler } from "./services/v1-service";
import { createV2ServiceHandler } from "./services/v2-service";
import { deployUsdc } from "./token/deploy-usdc";

/** A running local world: its coordinates, its fault switches, and the way to stop it. */
export type Devnet = DevnetCoordinates & {
  faults: DevnetFaults;
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
 * once (one per test file): anvil, Circle's USDC deployed and minted, the facilitator, and the
 * paid demo services.
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
  const stopAll = async () => {
    faults.stop();
    // Last started, first stopped: services, then the facilitator, then the chain.
    for (const stop of stack.reverse().splice(0)) await stop().catch(() => undefined);
  };

  try {
    const accounts = devAccounts(ANVIL_MNEMONIC);
    const anvil: AnvilProcess = await startAnvil({ chainId: options.chainId, mnemonic: ANVIL_MNEMONIC, accountCount: DEV_ACCOUNT_COUNT, balanceEther: 10_000 });
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
    ]);
    // Setup ran with instant mining; only now switch to the requested block time.
    await setMiningMode(testClient, options.blockTimeSeconds);

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
      token: { address: getAddress(usdc.address), name: usdc.name, version: usdc.version },
    };
    const running = await Promise.all(
      DEMO_SERVICES.map((service) =>
        startService(service, {
          terms,
          facilitatorUrl: facilitatorServer.url,
          facilitatorTimeoutMs: options.facilitatorTimeoutMs,
          slowDelayMs: options.slowDelayMs,
          faults,
          onStarted: (host) => stack.push(host.stop),
        }),
      ),
    );
    const hosts = new Map(running.flatMap((entry) => (entry.host ? [[entry.service.name, entry.host] as const] : [])));
    faults.attachServices(hosts.keys(), async (name, online) => {
      await hosts.get(name)?.setOnline(online);
    });

    const lastUpdated = new Date(startedAt).toISOString();
    facilitatorServer.setCatalog(running.map((entry) => discoveryItem(entry.service, entry.url, entry.handler, lastUpdated)));

    const coordinates = DevnetCoordinates.parse({
      rpcUrl: anvil.rpcUrl,
      chainId: options.chainId,
      network,
      usdc: terms.token.address,
      facilitatorUrl: facilitatorServer.url,
      services: running.map(({ service, url }) => ({
        name: service.name,
        url,
        price: formatUsdc(service.price),
        x402Version: service.x402Version,
        path: service.path,
        amount: service.price.toString(),
        description: service.description,
        network: service.x402Version === 1 ? LOCAL_V1_NETWORK : network,
        queryParams: Object.fromEntries(Object.entries(service.queryParameters).map(([key, parameter]) => [key, parameter.example])),
        offline: service.alwaysOffline,
      })),
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

type StartServiceOptions = {
  terms: PaymentTerms;
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
  slowDelayMs: number;
  faults: DevnetFaults;
  onStarted(host: ServiceHost): void;
};

type RunningService = { service: DemoService; url: string; handler: PaidServiceHandler; host: ServiceHost | undefined };

async function startService(service: DemoService, options: StartServiceOptions): Promise<RunningService> {
  // The offline service gets a URL where nothing listens, but its terms are real: it is listed.
  const host = service.alwaysOffline ? undefined : await startServiceHost();
  if (host) options.onStarted(host);
  const origin = host?.origin ?? `http://127.0.0.1:${await findRefusingPort()}`;
  const url = `${origin}${service.path}`;
  const environment = { faults: options.faults, slowDelayMs: options.slowDelayMs };
  const handler =
    service.x402Version === 1
      ? createV1ServiceHandler({ ...environment, service, terms: options.terms, resourceUrl: url, facilitatorUrl: options.facilitatorUrl, facilitatorTimeoutMs: options.facilitatorTimeoutMs })
      : await createV2ServiceHandler({ ...environment, service, terms: options.terms, facilitatorUrl: options.facilitatorUrl, facilitatorTimeoutMs: options.facilitatorTimeoutMs });
  host?.attach(handler);
  return { service, url, handler, host };
}

function discoveryItem(service: DemoService, url: string, handler: PaidServiceHandler, lastUpdated: string): DiscoveryItem {
  return {
    resource: url,
    type: "http",
    x402Version: service.x402Version,
    accepts: handler.accepts,
    lastUpdated,
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions: discoveryExtensionFor(service),
    metadata: { name: service.name, path: service.path, price: formatUsdc(service.price), amount: service.price.toString(), offline: service.alwaysOffline },
  };
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
