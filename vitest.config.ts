import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const alias = {
  "@": root,
  // `server-only` throws outside a React Server Components bundle; tests run plain Node.
  "server-only": fileURLToPath(new URL("./tests/support/server-only.ts", import.meta.url)),
};

/** `npm run test:gc-storm`: a full garbage collection every GC_STORM_MS in each test process. */
const gcStorm = Boolean(process.env.GC_STORM_MS);

export default defineConfig({
  resolve: { alias },
  test: {
    // Logs (the server's payment log lines) are shown for failing tests only.
    silent: "passed-only",
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: [
            "lib/**/*.test.ts",
            "components/**/*.test.{ts,tsx}",
            "devnet/**/*.test.ts",
            "scripts/**/*.test.ts",
            "tests/conformance/**/*.test.ts",
            "*.test.ts",
          ],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // The storm collects in this process only; crash-recovery's servers run in child
          // processes it kills and restarts, so the storm would only slow its clients down
          // (four times, past its bound) without exercising the servers' weak links.
          exclude: gcStorm ? ["tests/integration/crash-recovery.test.ts"] : [],
          environment: "node",
          // Collections all the time make the storm run slower (tests/support/gc-storm.ts).
          testTimeout: gcStorm ? 90_000 : 60_000,
          hookTimeout: gcStorm ? 90_000 : 60_000,
          globalSetup: ["tests/support/global-setup.ts"],
          setupFiles: gcStorm ? ["tests/support/gc-storm.ts"] : [],
        },
      },
    ],
  },
});
