import "server-only";
/**
 * Asks the chain whether the configuration describes it: the RPC's chain id, and the token's
 * contract, decimals and EIP-712 domain. A wrong value cannot lose money (the facilitator and
 * the token refuse a signature made for another chain or domain), but every payment would
 * fail with a message far from its cause; this names the variable instead.
 */
import {
  AbiDecodingZeroDataError,
  BaseError as ViemError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  createPublicClient,
  domainSeparator,
  http,
  parseAbi,
} from "viem";
import { ConfigError } from "../env";
import type { NetworkConfig } from "./network-config";

/** What the check reads from the configuration. */
export type ChainCheckSubject = Pick<NetworkConfig, "name" | "label" | "chainId" | "rpcUrl" | "usdc" | "usdcName" | "usdcVersion">;

export type ChainCheckResult =
  /** `unverified`: the variables the token gave no way to check (no name(), version() or DOMAIN_SEPARATOR()). */
  | { status: "match"; unverified: ("ASSET_NAME" | "ASSET_VERSION")[] }
  | { status: "mismatch"; error: ConfigError }
  /** The RPC did not answer (down, refused, too slow): nothing is known either way. */
  | { status: "unreachable"; reason: string };

/** The amounts this app counts in (lib/money.ts): USDC's 6 decimals. */
const ASSET_DECIMALS = 6;

const tokenAbi = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function decimals() view returns (uint8)",
  "function DOMAIN_SEPARATOR() view returns (bytes32)",
]);

/**
 * Checks the configured network against its chain. Never throws: a chain that contradicts the
 * configuration is `mismatch` with a ConfigError naming each variable, an RPC that does not
 * answer is `unreachable`.
 *
 * @example const result = await checkNetworkChain(networkConfigFromEnv(env));
 */
export async function checkNetworkChain(network: ChainCheckSubject, options: { timeoutMs?: number } = {}): Promise<ChainCheckResult> {
  const client = createPublicClient({ transport: http(network.rpcUrl, { timeout: options.timeoutMs ?? 4_000, retryCount: 0 }) });
  try {
    const chainId = await client.getChainId();
    if (chainId !== network.chainId) {
      // The token's answers would come from another chain: nothing more is worth reading.
      return mismatch([
        network.name === "custom"
          ? { variable: "CHAIN_ID", message: `is ${network.chainId}, but the RPC (RPC_URL) answers eth_chainId ${chainId}` }
          : { variable: "RPC_URL", message: `answers eth_chainId ${chainId}, but ${network.label} is chain ${network.chainId}` },
      ]);
    }
    const code = await client.getCode({ address: network.usdc });
    if (!code || code === "0x") {
      return mismatch([{ variable: "ASSET_ADDRESS", message: `is ${network.usdc}, which has no contract on chain ${chainId}` }]);
    }
    const read = <T>(functionName: "name" | "version" | "decimals" | "DOMAIN_SEPARATOR") =>
      readIfPresent(() => client.readContract({ address: network.usdc, abi: tokenAbi, functionName }) as Promise<T>);
    const [name, version, decimals, separator] = await Promise.all([
      read<string>("name"),
      read<string>("version"),
      read<number>("decimals"),
      read<`0x${string}`>("DOMAIN_SEPARATOR"),
    ]);

    const problems: { variable: string; message: string }[] = [];
    if (decimals === undefined) {
      problems.push({ variable: "ASSET_ADDRESS", message: `is ${network.usdc}, whose contract does not answer decimals(): not an ERC-20 token` });
    } else if (decimals !== ASSET_DECIMALS) {
      problems.push({ variable: "ASSET_ADDRESS", message: `is a token with ${decimals} decimals; amounts here are counted in ${ASSET_DECIMALS}, like USDC's` });
    }
    if (name !== undefined && name !== network.usdcName) {
      problems.push({ variable: "ASSET_NAME", message: `is ${quoted(network.usdcName)}, but the token's name() is ${quoted(name)}` });
    }
    if (version !== undefined && version !== network.usdcVersion) {
      problems.push({ variable: "ASSET_VERSION", message: `is ${quoted(network.usdcVersion)}, but the token's version() is ${quoted(version)}` });
    }
    // What name() and version() could not show, the domain separator can: it hashes both.
    const unread = [...(name === undefined ? (["ASSET_NAME"] as const) : []), ...(version === undefined ? (["ASSET_VERSION"] as const) : [])];
    if (problems.length === 0 && unread.length > 0 && separator !== undefined) {
      const expected = domainSeparator({ domain: { name: network.usdcName, version: network.usdcVersion, chainId, verifyingContract: network.usdc } });
      if (expected.toLowerCase() !== separator.toLowerCase()) {
        return mismatch(unread.map((variable) => ({ variable, message: "does not match the token's EIP-712 domain (its DOMAIN_SEPARATOR())" })));
      }
      return { status: "match", unverified: [] };
    }
    return problems.length > 0 ? mismatch(problems) : { status: "match", unverified: separator === undefined ? unread : [] };
  } catch (error) {
    return { status: "unreachable", reason: error instanceof ViemError ? error.shortMessage : String(error) };
  }
}

function mismatch(problems: { variable: string; message: string }[]): ChainCheckResult {
  return { status: "mismatch", error: new ConfigError(problems) };
}

/** A contract's text in a log line: quoted, and no longer than a name should be. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/**
 * A view the token may not have: undefined when the contract reverts or returns nothing
 * readable (no such function), while an RPC that does not answer still throws.
 */
async function readIfPresent<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    const absent =
      error instanceof ViemError &&
      error.walk(
        (cause) =>
          cause instanceof ContractFunctionRevertedError ||
          cause instanceof ContractFunctionZeroDataError ||
          cause instanceof AbiDecodingZeroDataError ||
          // Bytes that do not decode as the declared type: a function by that selector, but not this one.
          (cause instanceof ViemError && /^(AbiDecoding|PositionOutOfBounds)/.test(cause.name)),
      ) !== null;
    if (absent) return undefined;
    throw error;
  }
}
