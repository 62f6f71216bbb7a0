import "server-only";
/**
 * The service's configuration: one zod schema over the environment, read once. A bad value
 * fails at start with a message that names the variable and says how to fix it.
 */
import { z } from "zod";
import { BaseError } from "./base-error";
import { PayeePolicySettings } from "./limits/payee-policy";
import { FIXES } from "./env-fixes";
import {
  usdcAmount,
  privateKey,
  flag,
  addressList,
  appUrl,
  chainId,
  contractAddress,
  httpUrl,
  explorerUrl,
  networkLabel,
  integer,
  temperature,
} from "./env-values";
import { NETWORK_PRESETS } from "./network-presets";

/** What a custom network cannot do without; the presets and the local world bring their own. */
const CUSTOM_NETWORK_VARIABLES = ["CHAIN_ID", "RPC_URL", "FACILITATOR_URL", "ASSET_ADDRESS", "ASSET_NAME", "ASSET_VERSION"] as const;

export const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    X402_NETWORK: z.enum(["local", "base-sepolia", "base", "custom"]).default("local"),
    DEVNET_FILE: z.string().default(".devnet/devnet.json"),
    /** On `local`, these two override the coordinates file's (another facilitator, another node). */
    RPC_URL: httpUrl.optional(),
    FACILITATOR_URL: httpUrl.optional(),
    /** The chain (`custom`); with a preset it may only repeat the preset's id. */
    CHAIN_ID: chainId.optional(),
    /**
     * The EIP-3009 token paid in and its EIP-712 domain (`custom`); on the other networks they
     * override the built-in USDC. Amounts are counted in 6 decimals, as USDC's.
     */
    ASSET_ADDRESS: contractAddress.optional(),
    ASSET_NAME: z.string().min(1).max(64).optional(),
    ASSET_VERSION: z.string().min(1).max(16).optional(),
    EXPLORER_URL: explorerUrl.optional(),
    /** What people read for the network; default: the preset's name, or `Chain <id>`. */
    NETWORK_LABEL: networkLabel.optional(),
    AGENT_PRIVATE_KEY: privateKey.optional(),
    /** The account that submits grants' permits and pulls from them (pays their gas); unset means AGENT_PRIVATE_KEY's. */
    GRANT_RELAYER_PRIVATE_KEY: privateKey.optional(),
    /** The most one grant may allow, USDC. */
    GRANT_MAX_AMOUNT: usdcAmount.default(100_000_000n),
    QUOTE_SECRET: z.string().min(32, "must be at least 32 characters of random text").optional(),
    OPENAI_API_KEY: z.string().min(1).optional(),
    OPENAI_BASE_URL: z.url().optional(),
    MODEL: z.string().min(1).default("gpt-4o-mini"),
    TEMPERATURE_DEFAULT: temperature(0.5),
    TEMPERATURE_PAYMENT: temperature(0.2),
    TEMPERATURE_DISCOVERY: temperature(0.8),
    REDIS_URL: z.url().optional(),
    DATABASE_URL: z
      .url()
      .refine((value) => /^postgres(ql)?:\/\//.test(value), "expected a postgres:// or postgresql:// URL")
      .optional(),
    DATA_DIR: z.string().default(".data"),
    LIMIT_DEFAULT_PER_PAYMENT: usdcAmount.default(1_000_000n),
    LIMIT_DEFAULT_PER_REQUEST: usdcAmount.default(2_000_000n),
    LIMIT_DEFAULT_DAILY: usdcAmount.default(10_000_000n),
    LIMIT_MAX_PER_PAYMENT: usdcAmount.default(10_000_000n),
    LIMIT_MAX_PER_REQUEST: usdcAmount.default(25_000_000n),
    LIMIT_MAX_DAILY: usdcAmount.default(100_000_000n),
    /**
     * Who may make the agent wallet pay: unset means open on the local world, named callers
     * elsewhere (API keys, and the signed-in wallets of AGENT_WALLET_ALLOWED_WALLETS);
     * `signed-in` also lets any wallet that signs in spend a small budget of its own.
     */
    AGENT_WALLET_ACCESS: z.enum(["open", "authenticated", "signed-in"]).optional(),
    /** Signed-in wallets the operator lets spend the agent wallet (SIGNED_IN_BUDGET_*), comma-separated. */
    AGENT_WALLET_ALLOWED_WALLETS: addressList.default([]),
    /** The agent wallet's own daily cap over every caller together; unset means LIMIT_MAX_DAILY. */
    AGENT_WALLET_DAILY_CAP: usdcAmount.optional(),
    /** The budget of each wallet signed in with Sign-In with Ethereum, when the agent wallet pays for it. */
    SIGNED_IN_BUDGET_PER_PAYMENT: usdcAmount.default(1_000_000n),
    SIGNED_IN_BUDGET_PER_REQUEST: usdcAmount.default(2_000_000n),
    SIGNED_IN_BUDGET_DAILY: usdcAmount.default(5_000_000n),
    /** In `signed-in` access, the budget of a signed-in wallet the operator did not list. */
    OPEN_SIGN_IN_BUDGET_PER_PAYMENT: usdcAmount.default(50_000n),
    OPEN_SIGN_IN_BUDGET_PER_REQUEST: usdcAmount.default(100_000n),
    OPEN_SIGN_IN_BUDGET_DAILY: usdcAmount.default(250_000n),
    /** In `signed-in` access, what all unlisted signed-in wallets together may spend per rolling 24 h. */
    OPEN_SIGN_IN_DAILY_CAP: usdcAmount.default(2_000_000n),
    /** Sign-in attempts (nonce and signature) per client address per RATE_LIMIT_WINDOW_SECONDS. */
    SIGN_IN_RATE_LIMIT_REQUESTS: integer(1, 10_000, 10),
    /**
     * The app's own address as people reach it (scheme, host, port): the only site a Sign-In
     * with Ethereum message may name. Required outside the local world.
     */
    APP_URL: appUrl.optional(),
    /** The operator's payee policy: comma-separated allow and deny lists (lib/limits/payee-policy.ts). */
    ...PayeePolicySettings.shape,
    RATE_LIMIT_REQUESTS: integer(1, 100_000, 20),
    /** Requests per window for each named caller (API key, signed-in wallet); unset means RATE_LIMIT_REQUESTS. */
    RATE_LIMIT_CALLER_REQUESTS: z.coerce.number().int().min(1).max(100_000).optional(),
    RATE_LIMIT_WINDOW_SECONDS: integer(1, 50, 50),
    CHAT_DEADLINE_MS: integer(1_000, 48_000, 45_000),
    MAX_PAYMENTS_PER_REQUEST: integer(1, 10, 3),
    MAX_AGENT_STEPS: integer(1, 20, 8),
    APPROVAL_TTL_SECONDS: integer(30, 3_600, 300),
    AGENT_AUTHORIZATION_TTL_SECONDS: integer(10, 300, 20),
    DEMO_MODEL_CHUNK_DELAY_MS: integer(0, 1_000, 12),
    OUTBOUND_ALLOWLIST: z.string().default(""),
    OUTBOUND_TIMEOUT_MS: integer(1_000, 48_000, 15_000),
    /**
     * Unpaid probes of listed services (lib/evidence): on unless "false". Off, discovery still
     * ranks by our own payments' outcomes but sends no request of its own.
     */
    DISCOVERY_PROBES: flag.optional(),
    /** The most a discovery waits for the probes of the few listings it answers first. */
    DISCOVERY_PROBE_BUDGET_MS: integer(0, 10_000, 1_500),
    TRUST_PROXY_HEADERS: flag.optional(),
    SESSION_SECRET: z.string().min(32, "must be at least 32 characters of random text").optional(),
    ADMIN_TOKEN: z.string().min(32, "must be at least 32 characters of random text").optional(),
    CRON_SECRET: z.string().min(16, "must be at least 16 characters of random text").optional(),
    RECONCILE_INTERVAL_SECONDS: integer(0, 3_600, 15),
    CHANNEL_IDLE_REFUND_SECONDS: integer(60, 2_592_000, 3_600),
    /** Cooperative refunds a channel's service may fail in a row before the payer withdraws alone. */
    CHANNEL_WITHDRAW_AFTER_FAILURES: integer(1, 1_000, 3),
    CHANNEL_DEPOSIT_CALLS: integer(1, 100_000, 100),
    TRUST_PROXY_HOPS: integer(1, 10, 1),
    BODY_READ_TIMEOUT_MS: integer(100, 30_000, 10_000),
    VERCEL: z.string().optional(),
  })
  .superRefine((env, context) => {
    if (env.X402_NETWORK !== "local" && !env.QUOTE_SECRET) {
      context.addIssue({
        code: "custom",
        path: ["QUOTE_SECRET"],
        message: `is required when X402_NETWORK is ${env.X402_NETWORK}`,
      });
    }
    if (env.X402_NETWORK !== "local" && !env.APP_URL) {
      context.addIssue({ code: "custom", path: ["APP_URL"], message: `is required when X402_NETWORK is ${env.X402_NETWORK}` });
    }
    if (env.X402_NETWORK === "base" && !env.FACILITATOR_URL) {
      context.addIssue({ code: "custom", path: ["FACILITATOR_URL"], message: "is required when X402_NETWORK is base" });
    }
    if (env.X402_NETWORK === "custom") {
      for (const variable of CUSTOM_NETWORK_VARIABLES) {
        if (env[variable] === undefined) context.addIssue({ code: "custom", path: [variable], message: "is required when X402_NETWORK is custom" });
      }
    } else {
      const preset = NETWORK_PRESETS[env.X402_NETWORK];
      // The local world's chain id is in its coordinates file, compared when that is read.
      if (env.X402_NETWORK !== "local" && env.CHAIN_ID !== undefined && env.CHAIN_ID !== preset.chainId) {
        context.addIssue({
          code: "custom",
          path: ["CHAIN_ID"],
          message: `must be ${preset.chainId} (${preset.label}) or unset when X402_NETWORK is ${env.X402_NETWORK}`,
        });
      }
      // Another token signs with its own domain: the built-in USDC's name would make every
      // signature invalid, so an overriding address brings its name and version with it.
      if (env.ASSET_ADDRESS !== undefined) {
        for (const variable of ["ASSET_NAME", "ASSET_VERSION"] as const) {
          if (env[variable] === undefined)
            context.addIssue({ code: "custom", path: [variable], message: "is required when ASSET_ADDRESS is set (the token's EIP-712 domain)" });
        }
      }
    }
    if (env.OPEN_SIGN_IN_BUDGET_PER_PAYMENT > env.OPEN_SIGN_IN_BUDGET_PER_REQUEST || env.OPEN_SIGN_IN_BUDGET_PER_REQUEST > env.OPEN_SIGN_IN_BUDGET_DAILY) {
      context.addIssue({
        code: "custom",
        path: ["OPEN_SIGN_IN_BUDGET_PER_PAYMENT"],
        message: "must not exceed OPEN_SIGN_IN_BUDGET_PER_REQUEST, which must not exceed OPEN_SIGN_IN_BUDGET_DAILY",
      });
    }
    const pairs = [
      ["LIMIT_DEFAULT_PER_PAYMENT", "LIMIT_MAX_PER_PAYMENT"],
      ["LIMIT_DEFAULT_PER_REQUEST", "LIMIT_MAX_PER_REQUEST"],
      ["LIMIT_DEFAULT_DAILY", "LIMIT_MAX_DAILY"],
    ] as const;
    for (const [defaultKey, maxKey] of pairs) {
      if (env[defaultKey] > env[maxKey]) {
        context.addIssue({ code: "custom", path: [defaultKey], message: `must not exceed ${maxKey}` });
      }
    }
  });

export type Env = z.infer<typeof EnvSchema>;

/** FIXES by setting; a key of FIXES that names no setting (a typo) fails the type check here. */
const fixes: Partial<Record<keyof Env, string>> & Record<Exclude<keyof typeof FIXES, keyof Env>, never> = FIXES;

/** A setting that is missing or wrong: found at boot, and `503` if met by a running server. */
export class ConfigError extends BaseError<"config"> {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      "config",
      "Invalid configuration:\n" +
        problems
          .map(({ variable, message }) => {
            const fix = fixes[variable as keyof Env];
            return `  - ${variable} ${message}${fix ? ` (fix: ${fix})` : ""}`;
          })
          .join("\n"),
    );
  }
}

/** Parses an environment; empty strings count as unset. Throws ConfigError naming each bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ""));
  const result = EnvSchema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const variable = String(issue.path[0] ?? "environment");
      // Cross-variable rules already read as a sentence ("is required when …").
      const message = /^(is|must) /.test(issue.message) ? issue.message : `is invalid: ${issue.message}`;
      return { variable, message };
    }),
  );
}

let cached: Env | undefined;

/** The process's configuration, parsed once. */
export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** Tests only: forget the cached configuration. */
export function resetEnvForTests(): void {
  cached = undefined;
}
