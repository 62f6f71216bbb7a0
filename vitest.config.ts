import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const alias = {
  "@": root,
  // `server-only` throws outside a React Server Components bundle; tests run plain Node.
  "server-only": fileURLToPath(new URL("./tests/support/server-only.ts", import.meta.url)),
};

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
          include: ["lib/**/*.test.ts", "components/**/*.test.{ts,tsx}", "devnet/**/*.test.ts", "scripts/**/*.test.ts", "tests/conformance/**/*.test.ts", "*.test.ts"],
          environment: "node",
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ["tests/support/global-setup.ts"],
        },
      },
    ],
  },
});
