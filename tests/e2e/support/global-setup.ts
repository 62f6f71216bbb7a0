/**
 * Once per browser-test run: build the app (unless E2E_SKIP_BUILD=1), start the local world
 * in-process on free ports, write its coordinates file, and serve the built app against it with
 * `next start`. Everything started here is stopped in the returned teardown, also on failure.
 */
import { mkdirSync, existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startDevnet } from "../../../devnet";
import { DevnetCoordinates } from "../../../lib/network/devnet-coordinates";
import { buildAppOnce, REPO_ROOT, startAppServer, type AppServer } from "./app-server";
import { CHROMIUM_PATH } from "./browser";
import type { E2EContext } from "./context";

export const RESULTS_DIR = path.join(REPO_ROOT, "test-results/e2e");
/** The operator token of the served app, for the tests of the operator's view. */
const ADMIN_TOKEN = "e2e-operator-token-0123456789abcdef01234567";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install it with \`apt-get update && apt-get install -y chromium\`, or set CHROMIUM_PATH.`);
  }
  await buildAppOnce();

  const devnetFile = path.join(RESULTS_DIR, `devnet-${process.pid}.json`);
  const devnet = await startDevnet({ writeFile: devnetFile });
  let server: AppServer | undefined;
  const teardown = async () => {
    await server?.stop();
    await devnet.stop();
  };
  try {
    if (!existsSync(devnetFile)) writeFileSync(devnetFile, JSON.stringify(DevnetCoordinates.parse(devnet), null, 2));
    // A generous rate limit: every direct caller shares one bucket, and the suite sends many requests.
    // Each app server gets a fresh embedded database of its own (see startAppServer).
    server = await startAppServer({ X402_NETWORK: "local", DEVNET_FILE: devnetFile, RATE_LIMIT_REQUESTS: "1000", ADMIN_TOKEN });
    const context: E2EContext = {
      baseUrl: server.url,
      devnetFile,
      rpcUrl: devnet.rpcUrl,
      chainId: devnet.chainId,
      usdc: devnet.usdc as `0x${string}`,
      userAddress: devnet.accounts.user.address as `0x${string}`,
      agentAddress: devnet.accounts.agent.address as `0x${string}`,
      adminToken: ADMIN_TOKEN,
    };
    project.provide("e2e", context);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
