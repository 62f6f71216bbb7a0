import { z } from "zod";

/** How often an instant-mining devnet also mines a block of its own, transactions or not. */
export const DEFAULT_HEARTBEAT_SECONDS = 5;

/** Options of `startDevnet`; every one has a default suited to `npm run dev`. */
export const DevnetOptions = z.object({
  /** 0 mines a block per transaction (instant); n > 0 mines a block every n seconds. */
  blockTimeSeconds: z.number().int().min(0).max(60).default(0),
  /**
   * With instant mining, also a block every n seconds, transactions or not (0 = never), so that
   * the chain's time moves on while it is idle, as a real chain's does. It must stay well under
   * the 60 s by which payers date an authorization's start back (its validAfter): a latest block
   * older than that makes every payment's simulation fail "not yet valid".
   */
  heartbeatSeconds: z.number().int().min(0).max(30).default(DEFAULT_HEARTBEAT_SECONDS),
  /** Blocks the facilitator waits for before reporting a settlement (1 = included in a block). */
  confirmations: z.number().int().min(1).max(64).default(1),
  /** How long the slow demo service takes to answer. */
  slowDelayMs: z.number().int().min(0).max(120_000).default(3_000),
  /** Bound on the facilitator's wait for a settlement receipt; past it, `settlement_pending`. */
  settleTimeoutMs: z.number().int().min(100).max(600_000).default(20_000),
  /** Bound on a service's wait for the facilitator (verify or settle); past it, the service answers 502. */
  facilitatorTimeoutMs: z.number().int().min(100).max(600_000).default(30_000),
  chainId: z.number().int().min(1).default(31337),
  /** USDC (base units, 6 decimals) minted to the agent and the demo user. */
  walletUsdc: z.bigint().min(0n).default(100_000_000n),
  /** Where to write the coordinates JSON; nothing is written when absent. Removed again on stop. */
  writeFile: z.string().min(1).optional(),
  /**
   * Also serve the MCP tools over the legacy HTTP+SSE transport, on a port of their own, and list
   * them in the Bazaar with `transport: "sse"` (next to the Streamable HTTP ones). Off by
   * default: the same tools twice would only crowd the demo's discovery.
   */
  mcpOverSse: z.boolean().default(false),
  /**
   * How often each channel service (x402 `batch-settlement`) claims the vouchers it holds and
   * settles what it claimed; 0 = never on a timer, only on stop and on `devnet.channels.flush()`
   * (what a test that counts transactions wants).
   */
  channelClaimIntervalSeconds: z.number().int().min(0).max(3_600).default(60),
});

export type StartDevnetOptions = z.input<typeof DevnetOptions>;
export type ResolvedDevnetOptions = z.output<typeof DevnetOptions>;

/**
 * Reads the command-line flags and environment of `npm run devnet` / `npm run dev`. Flags win
 * over the environment. `--block-time 2` (or `DEVNET_BLOCK_TIME=2`), `--heartbeat` (or
 * `DEVNET_HEARTBEAT`), `--confirmations`, `--slow-delay-ms`, `--settle-timeout-ms`, `--file` (or
 * `DEVNET_FILE`), `--mcp-sse 1` (or `DEVNET_MCP_SSE=1`), `--channel-claim-interval 60` (or
 * `DEVNET_CHANNEL_CLAIM_INTERVAL`).
 */
export function parseDevnetCliOptions(argv: readonly string[], environment: Readonly<Record<string, string | undefined>>): StartDevnetOptions {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (!argument.startsWith("--")) throw new Error(`unexpected argument "${argument}"`);
    const [name, inlineValue] = argument.slice(2).split("=", 2) as [string, string | undefined];
    const value = inlineValue ?? argv[++index];
    if (value === undefined) throw new Error(`--${name} needs a value`);
    flags.set(name, value);
  }
  const known = new Set(["block-time", "heartbeat", "confirmations", "slow-delay-ms", "settle-timeout-ms", "file", "mcp-sse", "channel-claim-interval"]);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`unknown option --${name}`);

  const number = (flag: string, variable: string): number | undefined => {
    const text = flags.get(flag) ?? environment[variable];
    if (text === undefined || text === "") return undefined;
    const value = Number(text);
    if (!Number.isFinite(value)) throw new Error(`--${flag} (${variable}) must be a number, not "${text}"`);
    return value;
  };
  const flag = (name: string, variable: string): boolean | undefined => {
    const text = flags.get(name) ?? environment[variable];
    if (text === undefined || text === "") return undefined;
    if (text === "1" || text === "true") return true;
    if (text === "0" || text === "false") return false;
    throw new Error(`--${name} (${variable}) must be 1 or 0, not "${text}"`);
  };
  const options: StartDevnetOptions = {
    blockTimeSeconds: number("block-time", "DEVNET_BLOCK_TIME"),
    heartbeatSeconds: number("heartbeat", "DEVNET_HEARTBEAT"),
    confirmations: number("confirmations", "DEVNET_CONFIRMATIONS"),
    slowDelayMs: number("slow-delay-ms", "DEVNET_SLOW_DELAY_MS"),
    settleTimeoutMs: number("settle-timeout-ms", "DEVNET_SETTLE_TIMEOUT_MS"),
    writeFile: flags.get("file") ?? (environment.DEVNET_FILE || ".devnet/devnet.json"),
    mcpOverSse: flag("mcp-sse", "DEVNET_MCP_SSE"),
    channelClaimIntervalSeconds: number("channel-claim-interval", "DEVNET_CHANNEL_CLAIM_INTERVAL"),
  };
  // Validate here so that a bad flag fails before anything starts, with the option's name.
  const parsed = DevnetOptions.safeParse(options);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "));
  }
  return options;
}
