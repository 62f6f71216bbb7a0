import "server-only";
/**
 * Checks the configuration when the server starts (Next.js calls `register` in
 * instrumentation.ts once per server process), so a bad setting stops `npm start` at once,
 * naming the variable and the fix, instead of surfacing on the first request.
 */
import { BaseError } from "./base-error";
import { parseEnv, type Env } from "./env";
import { checkNetworkChain, type ChainCheckResult, type ChainCheckSubject } from "./network/chain-check";
import { networkConfigFromEnv } from "./network/network-config";

/** How long boot waits for the chain's answer before it starts without it. */
const CHAIN_CHECK_TIMEOUT_MS = 4_000;

function exitWith(message: string): void {
  console.error(message);
  process.exit(1);
}

export function checkConfigurationAtBoot(source: Record<string, string | undefined> = process.env, stop: (message: string) => void = exitWith): boolean {
  try {
    parseEnv(source);
    return true;
  } catch (error) {
    if (!BaseError.isInstance(error) || error.code !== "config") throw error;
    stop(`The server cannot start. ${error.message}`);
    return false;
  }
}

/**
 * Checks the network against its chain once the configuration has parsed (docs/decisions.md,
 * "The chain check at boot"): a chain that contradicts the configuration stops the server,
 * naming the variable; an RPC that does not answer in time is logged loudly and the server
 * starts anyway, since an outage is not a setting and passes on its own. The local world is
 * checked only where the operator replaced what its coordinates file says (RPC_URL, ASSET_*):
 * the file is written by the devnet from what it deployed, and without the devnet running
 * there is nothing to check yet.
 *
 * @returns false when the server must not start.
 */
export async function checkChainAtBoot(
  source: Record<string, string | undefined> = process.env,
  options: {
    stop?: (message: string) => void;
    warn?: (message: string) => void;
    check?: (network: ChainCheckSubject) => Promise<ChainCheckResult>;
  } = {},
): Promise<boolean> {
  const { stop = exitWith, warn = console.error, check = (network) => checkNetworkChain(network, { timeoutMs: CHAIN_CHECK_TIMEOUT_MS }) } = options;
  let env: Env;
  let network: ChainCheckSubject;
  try {
    env = parseEnv(source);
    if (env.X402_NETWORK === "local" && !env.RPC_URL && !env.ASSET_ADDRESS && !env.ASSET_NAME && !env.ASSET_VERSION) return true;
    network = networkConfigFromEnv(env);
  } catch (error) {
    if (!BaseError.isInstance(error)) throw error;
    if (error.code === "config") {
      stop(`The server cannot start. ${error.message}`);
      return false;
    }
    // The local world is not running: requests answer 503 until it is, as before.
    return true;
  }
  const result = await check(network);
  if (result.status === "mismatch") {
    stop(`The server cannot start: the chain does not match the configuration. ${result.error.message}`);
    return false;
  }
  if (result.status === "unreachable") {
    warn(
      `WARNING: the chain's RPC (RPC_URL) did not answer at start (${result.reason}), so chain ${network.chainId} and its token ${network.usdc} were not checked. ` +
        "The server starts anyway; payments fail until the RPC answers.",
    );
  } else if (result.unverified.length > 0) {
    warn(
      `Note: the token ${network.usdc} has no name(), version() or DOMAIN_SEPARATOR() to read, so ${result.unverified.join(" and ")} could not be checked against it.`,
    );
  }
  return true;
}
