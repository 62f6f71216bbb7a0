import { readFileSync } from "node:fs";
import { z } from "zod";

/**
 * The local world's coordinates: what `npm run devnet` (and `npm run dev`) writes to
 * `.devnet/devnet.json`, and what the app reads in local mode (`X402_NETWORK=local`,
 * `DEVNET_FILE`). Written by devnet/ and read by the app, so the schema lives here, outside
 * devnet/ (which the app must never import).
 *
 * The private keys in it are anvil's public development keys: they hold nothing of value.
 * Fields may be added over time; readers ignore the ones they do not know.
 */
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte hex address");
const PrivateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex private key");
const HttpUrl = z.url({ protocol: /^https?$/ });
/** A USDC amount as a decimal string ("0.01", "5"), at most 6 decimals. */
const UsdcDecimal = z.string().regex(/^\d{1,15}(\.\d{1,6})?$/, "expected a USDC amount such as 0.01");

export const DevnetService = z.object({
  /** Stable, kebab-case: also the key for fault switches. */
  name: z.string().min(1),
  /** Full URL of the paid endpoint, as discovery lists it. */
  url: HttpUrl,
  /** Price per call in USDC, as a decimal string. */
  price: UsdcDecimal,
  x402Version: z.union([z.literal(1), z.literal(2)]),
  /** Added fields (optional, so that a hand-written file with only the fields above still reads). */
  path: z.string().startsWith("/").optional(),
  /** Price per call in USDC base units (6 decimals), as an integer string. */
  amount: z.string().regex(/^\d+$/).optional(),
  description: z.string().default(""),
  /** The network as this service names it: CAIP-2 for v2, the v1 name for v1. */
  network: z.string().min(1).optional(),
  /** Query parameters the endpoint takes, with an example value each. */
  queryParams: z.record(z.string(), z.string()).default({}),
  method: z.enum(["GET", "POST"]).default("GET"),
  /**
   * A ready call with the service's example inputs: `url` with its query or path filled in
   * (the listed `url` of a route template keeps its `:name` segments), and any JSON body.
   */
  example: z.object({ url: HttpUrl, body: z.record(z.string(), z.unknown()).optional() }).optional(),
  /** Services of one group share a server, like one publisher's catalogue. */
  group: z.string().optional(),
  /** Listed in discovery, but nothing listens on its port. */
  offline: z.boolean().default(false),
  /**
   * The x402 scheme its 402 offers: "exact" (the price, exactly), "upto" (metered: `price` and
   * `amount` are the ceiling the payer signs, and the service settles what the call used) or
   * "batch-settlement" (a payment channel: one deposit, then a signed voucher per call at `price`).
   */
  scheme: z.enum(["exact", "upto", "batch-settlement"]).optional(),
  /**
   * A failing listing of the local world (devnet/README.md, "Listings that fail"): its 402 asks
   * more than its listing says; its 402 takes only another network than its listing names; it
   * answers 500 before any 402; or it settles and answers 500.
   */
  failure: z.enum(["asks-more-than-listed", "asks-another-network", "error-before-payment", "fails-after-payment"]).optional(),
  /** Who is paid, where it is not the merchant account (each channel service and each failing listing has its own payee). */
  payTo: Address.optional(),
  /** A channel service's terms (devnet/README.md, "Channel services"). */
  channel: z
    .object({
      /** The deposit its 402 suggests (`extra.minDeposit`), in base units. */
      minDeposit: z.string().regex(/^\d+$/),
      /** How long a payer who withdraws alone waits (the channel's `withdrawDelay`). */
      withdrawDelaySeconds: z.number().int().positive(),
      /**
       * "honest"; "over-claims" (tries to claim more than the vouchers allow: the contract
       * refuses); "refuses-vouchers" (takes the deposit, then refuses every voucher).
       */
      behaviour: z.enum(["honest", "over-claims", "refuses-vouchers"]),
    })
    .optional(),
  /** A metered service's terms, as its 402 states them in `extra.metering` (devnet/README.md). */
  metering: z
    .object({
      /** What one unit is: "100 characters", "row". */
      unit: z.string().min(1),
      /** USDC base units per unit, as an integer string. */
      unitPrice: z.string().regex(/^\d+$/),
      /** The most units one call may use: the ceiling divided by the unit price. */
      maxUnits: z.number().int().positive(),
    })
    .optional(),
});
export type DevnetService = z.infer<typeof DevnetService>;

/** A tool of the local world's MCP server (x402 over MCP: specs/transports-v2/mcp.md). */
export const DevnetMcpTool = z.object({
  /** Stable: the tool's name in tests and scripts. */
  name: z.string().min(1),
  /** The MCP endpoint (Streamable HTTP) the tool is called at; several tools share one. */
  url: HttpUrl,
  /** What `tools/call` names. */
  toolName: z.string().min(1),
  transport: z.enum(["streamable-http", "sse"]).default("streamable-http"),
  /** Price per call in USDC; "0" for a free tool. */
  price: UsdcDecimal,
  /** The same in base units (6 decimals), as an integer string. */
  amount: z.string().regex(/^\d+$/).optional(),
  description: z.string().default(""),
  /** Example arguments for the call. */
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** Listed in the Bazaar (priced tools); a free tool asks no payment and is not an x402 resource. */
  listed: z.boolean().default(true),
});
export type DevnetMcpTool = z.infer<typeof DevnetMcpTool>;

const KeyedAccount = z.object({ address: Address, privateKey: PrivateKey });

export const DevnetCoordinates = z.object({
  rpcUrl: HttpUrl,
  chainId: z.number().int().positive(),
  /** CAIP-2, as x402 v2 names networks: "eip155:31337". */
  network: z.string().regex(/^eip155:\d+$/),
  /** The USDC contract (Circle's FiatTokenV2_2 behind its proxy). */
  usdc: Address,
  facilitatorUrl: HttpUrl,
  services: z.array(DevnetService),
  /** Added: the tools of the local world's MCP server (absent in files written before it existed). */
  mcpTools: z.array(DevnetMcpTool).optional(),
  accounts: z.object({
    agent: KeyedAccount,
    user: KeyedAccount,
    unfunded: KeyedAccount,
    merchant: z.object({ address: Address }),
  }),
  /** Added fields (with defaults, so that a hand-written file with only the fields above still reads). */
  usdcName: z.string().default("USD Coin"),
  usdcVersion: z.string().default("2"),
  usdcDecimals: z.literal(6).default(6),
  /** The x402 v1 name of this chain (see lib/network/local-v1-network.ts). */
  v1Network: z.string().min(1).default("anvil"),
  /** The local chain has no block explorer. */
  explorerUrl: z.null().default(null),
  /** 0 = a block per transaction; n = a block every n seconds. */
  blockTimeSeconds: z.number().int().min(0).default(0),
  /** Blocks the facilitator waits for before it reports a settlement. */
  confirmations: z.number().int().min(1).default(1),
  /** Where to switch fault paths at run time (GET to read, POST a JSON change). */
  faultsUrl: HttpUrl.optional(),
  /** Uniswap's Permit2 (canonical address): what an `upto` payer approves and signs for. */
  permit2: Address.optional(),
  /** The x402 `upto` proxy: the spender an `upto` payer names in its Permit2 signature. */
  uptoProxy: Address.optional(),
  /** The x402 `batch-settlement` channel contract every voucher's EIP-712 domain names. */
  batchSettlement: Address.optional(),
  /** Where a channel deposit's ERC-3009 `ReceiveWithAuthorization` is signed to. */
  erc3009DepositCollector: Address.optional(),
  startedAt: z.iso.datetime().optional(),
});
export type DevnetCoordinates = z.infer<typeof DevnetCoordinates>;

/**
 * Reads and validates a devnet coordinates file (synchronously: it is small, and read once at
 * configuration time). Fails with a message that says what to do
 * when the file is missing (the devnet is not running) or does not match the schema.
 *
 * @example const devnet = readDevnetCoordinates(process.env.DEVNET_FILE ?? ".devnet/devnet.json");
 */
export function readDevnetCoordinates(path: string): DevnetCoordinates {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`No devnet coordinates at ${path}: start the local world with \`npm run devnet\` (or \`npm run dev\`).`);
    throw new Error(`Could not read the devnet coordinates at ${path} (${code ?? "unknown error"}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`The devnet coordinates at ${path} are not valid JSON; restart \`npm run devnet\` to rewrite them.`);
  }
  const parsed = DevnetCoordinates.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
    throw new Error(`The devnet coordinates at ${path} do not match the expected shape: ${problems}`);
  }
  return parsed.data;
}
