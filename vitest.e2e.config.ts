import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Browser tests: headless Debian Chromium (playwright-core) against the built app served by
 * `next start`, wired to a local world started by the global setup. One file at a time: the
 * machine has 2 cores and the tests read shared on-chain balances.
 */
export default defineConfig({
  resolve: {
    alias: {
      "@": fileURLToPath(new URL(".", import.meta.url)),
      "server-only": fileURLToPath(new URL("./tests/support/server-only.ts", import.meta.url)),
    },
  },
  test: {
    name: "e2e",
    include: ["tests/e2e/**/*.e2e.test.ts"],
    environment: "node",
    globalSetup: ["tests/e2e/support/global-setup.ts"],
    fileParallelism: false,
    silent: "passed-only",
    testTimeout: 120_000,
    hookTimeout: 900_000,
    teardownTimeout: 30_000,
    // How long expect.poll waits for the page: a loaded 2-core machine can take seconds to
    // render what a quiet one shows at once. A bound on waiting, not a speed assertion.
    expect: { poll: { timeout: 15_000 } },
  },
});
