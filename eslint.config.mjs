import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import shape from "./eslint-rules/no-import-cycle.mjs";

/**
 * The layers of lib/, lowest first (docs/architecture.md). A module may import its own layer and
 * the layers below it, never one above: a folder is a unit (everything under `lib/x402`), and so
 * is a file at the top of lib/. Every entry at the top of lib/ belongs to exactly one layer
 * (tests/conformance/lint-shape.test.ts checks it, so a new folder cannot slip past the rule).
 */
export const LIB_LAYERS = [
  [
    "lib/money.ts",
    "lib/base-error.ts",
    "lib/clock.ts",
    "lib/timeout.ts",
    "lib/json-limits.ts",
    "lib/network-presets.ts",
    "lib/csv",
    "lib/crypto",
    "lib/safety",
  ],
  ["lib/errors.ts", "lib/env-values.ts", "lib/limits"],
  ["lib/stream", "lib/net", "lib/db", "lib/env.ts", "lib/env-fixes.ts"],
  ["lib/x402", "lib/network", "lib/auth"],
  ["lib/access", "lib/grants", "lib/journal", "lib/channels", "lib/evidence", "lib/client", "lib/boot-check.ts"],
  ["lib/store"],
  ["lib/agent", "lib/payments"],
  ["lib/doors"],
  ["lib/chat", "lib/mcp", "lib/suggestions", "lib/cron", "lib/sign-in"],
  ["lib/app"],
];

/**
 * The doors of one layer are siblings: none imports another, so what two of them share has to
 * move down into `lib/doors` (the MCP server once borrowed the chat's admission and run).
 */
export const SIBLING_DOORS = ["lib/chat", "lib/mcp", "lib/suggestions", "lib/cron", "lib/sign-in"];

/** One zone per layer: its files may not import anything from the layers above it. */
const layerZones = LIB_LAYERS.slice(0, -1).map((layer, index) => ({
  target: layer,
  from: LIB_LAYERS.slice(index + 1).flat(),
  message: `lib/ is layered (docs/architecture.md): layer ${index + 1} may not import a higher layer. Move what both need down, into the lower module or a small types file.`,
}));

const siblingZones = SIBLING_DOORS.map((door) => ({
  target: door,
  from: SIBLING_DOORS.filter((other) => other !== door),
  message: `${door} is a door: it imports no other door (docs/architecture.md). Move what both need into lib/doors.`,
}));

/** Files that are over the line limit for a reason, each until the change that ends the reason. */
const MAX_LINES_EXEMPT = [];

const config = [
  ...nextVitals,
  ...nextTypescript,
  {
    ignores: [".next/**", ".vercel/**", "node_modules/**", ".devnet/**", "test-results/**", "next-env.d.ts"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      // A name declared again in an inner scope hides the outer one: a shadowed `release` once
      // kept an Idempotency-Key claimed forever while every check passed.
      "@typescript-eslint/no-shadow": ["error", { ignoreOnInitialization: true }],
    },
  },
  {
    // The shape of lib/: no import cycle (type-only imports included; eslint-rules/no-import-cycle.mjs
    // says why not import/no-cycle), no import up the layers, nothing from the app, the devnet,
    // scripts or tests, and no module over 250 lines.
    files: ["lib/**/*.{ts,tsx}"],
    ignores: ["lib/**/*.test.{ts,tsx}"],
    plugins: { shape },
    rules: {
      "shape/no-import-cycle": "error",
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            ...layerZones,
            ...siblingZones,
            {
              target: "lib",
              from: ["app", "components", "devnet", "tests", "scripts"],
              message: "lib/ is the core: the app, the devnet, scripts and tests use it, never the other way round.",
            },
          ],
        },
      ],
      // Plain lines, as `wc -l` counts them: a module that outgrows this has more than one job.
      "max-lines": ["error", { max: 250, skipBlankLines: false, skipComments: false }],
    },
  },
  // Flat config refuses an empty `files`; the exemption block exists only while one is listed.
  ...(MAX_LINES_EXEMPT.length > 0 ? [{ files: MAX_LINES_EXEMPT, rules: { "max-lines": "off" } }] : []),
];

export default config;
