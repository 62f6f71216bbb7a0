import "server-only";
/**
 * How to fix each setting, shown beside the error at start-up (lib/env.ts ConfigError). Keyed by
 * the setting's name; lib/env.ts checks at compile time that every key names a setting (this file
 * does not import the Env type, so the two do not import each other).
 */
export const FIXES = {
  X402_NETWORK: "set it to local, base-sepolia, base or custom (any EVM chain, described by CHAIN_ID, RPC_URL, FACILITATOR_URL and ASSET_*)",
  RPC_URL: "set it to the JSON-RPC URL of the chain, e.g. https://sepolia.base.org",
  FACILITATOR_URL: "set it to the x402 facilitator base URL, e.g. https://x402.org/facilitator",
  CHAIN_ID: "set it to the chain's EIP-155 id in decimal, the one its RPC answers to eth_chainId (e.g. 8453); with a preset, leave it unset",
  ASSET_ADDRESS: "set it to the 0x address of the EIP-3009 token payments are made in (6 decimals, like USDC)",
  ASSET_NAME: "set it to the token's EIP-712 domain name, what its name() returns (e.g. USD Coin)",
  ASSET_VERSION: "set it to the token's EIP-712 domain version, what its version() returns (e.g. 2)",
  EXPLORER_URL: "set it to the block explorer's base URL, e.g. https://basescan.org (/tx/<hash> is appended), or leave it unset",
  NETWORK_LABEL: "use a short name people know the chain by (at most 48 characters), or leave it unset",
  AGENT_PRIVATE_KEY: "set it to the agent wallet's key (0x + 64 hex digits), or leave it unset to disable autonomous payments",
  QUOTE_SECRET: "generate one with `openssl rand -hex 32`",
  OPENAI_BASE_URL: "set it to an OpenAI-compatible API base, e.g. https://api.openai.com/v1",
  REDIS_URL: "set it to a redis:// URL, or leave it unset to keep budgets in the database and rate limits in memory (single instance only)",
  DATABASE_URL: "set it to a postgres:// URL (Neon, Vercel Postgres), or leave it unset for the embedded database in DATA_DIR",
  CHAT_DEADLINE_MS: "use a value between 1000 and 48000 (the route's maxDuration is 50 s)",
  RATE_LIMIT_WINDOW_SECONDS: "use a value between 1 and 50 (Retry-After never exceeds 50 s)",
  CRON_SECRET: "generate one with `openssl rand -hex 32` (Vercel sends it to cron routes as a Bearer token)",
  SESSION_SECRET: "generate one with `openssl rand -hex 32` (it signs the sign-in cookies; changing it signs everyone out)",
  ADMIN_TOKEN: "generate one with `openssl rand -hex 32`, or leave it unset to turn the operator's view of payment histories off",
  AGENT_WALLET_ACCESS:
    "set it to open (anyone who can reach the app may make the agent wallet pay), authenticated (API keys, and the wallets of AGENT_WALLET_ALLOWED_WALLETS once signed in) or signed-in (also any wallet that signs in, within OPEN_SIGN_IN_BUDGET_* and OPEN_SIGN_IN_DAILY_CAP)",
  AGENT_WALLET_ALLOWED_WALLETS: "list 0x addresses separated by commas",
  APP_URL: "set it to the app's public origin, e.g. https://agent.example.com: sign-in messages must name it",
  RECONCILE_INTERVAL_SECONDS: "use 0 to turn the in-process reconciler off, or up to 3600 seconds",
  CHANNEL_IDLE_REFUND_SECONDS: "use a number of seconds between 60 and 2592000 (30 days)",
  CHANNEL_WITHDRAW_AFTER_FAILURES: "use a whole number of failed refunds between 1 and 1000",
  CHANNEL_DEPOSIT_CALLS: "use a whole number of calls between 1 and 100000",
  TRUST_PROXY_HOPS: "set it to the number of proxies in front of the app that append to X-Forwarded-For (1-10)",
  BODY_READ_TIMEOUT_MS: "use a value between 100 and 30000",
} as const satisfies Record<string, string>;
