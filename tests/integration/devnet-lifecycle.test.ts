/**
 * The local world's life cycle: nothing it starts outlives its owner, `npm run devnet`'s entry
 * point starts quickly and stops cleanly, and interval mining with confirmations works.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { DEVNET_PROCESS_TAG, DEVNET_SUITE_TAG, startDevnet, waitForTaggedProcessesGone, type Devnet } from "../../devnet";
import { readDevnetCoordinates } from "../../lib/network/devnet-coordinates";

const children: ChildProcess[] = [];

/** Runs a TypeScript entry point the way `npm run devnet` does (tsx), with extra environment. */
function runTypeScript(file: string, args: string[], environment: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...environment },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function firstLineMatching(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    const errors: string[] = [];
    createInterface({ input: child.stderr! }).on("line", (line) => errors.push(line));
    child.once("exit", (code) => reject(new Error(`exited with ${code} before ${pattern}: ${errors.join("\n")}`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = pattern.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

describe("no process outlives its owner", () => {
  it("anvil is gone within seconds after its owner is killed with SIGKILL", async () => {
    const owner = runTypeScript("tests/support/devnet-owner.ts", [], {});
    const line = await firstLineMatching(owner, /^\{.*"ready":true.*\}$/, 30_000);
    const { anvilPid, processTag } = JSON.parse(line[0]) as { anvilPid: number; processTag: string };
    expect(() => process.kill(anvilPid, 0)).not.toThrow();

    owner.kill("SIGKILL");
    await exited(owner);
    const remaining = await waitForTaggedProcessesGone(DEVNET_PROCESS_TAG, processTag, 5_000);
    expect(remaining).toEqual([]);
    expect(() => process.kill(anvilPid, 0)).toThrow();
  });

  it("stop() ends anvil and its reaper, and is safe to call twice", async () => {
    const devnet = await startDevnet();
    await Promise.all([devnet.stop(), devnet.stop()]);
    await devnet.ended;
    expect(await waitForTaggedProcessesGone(DEVNET_PROCESS_TAG, devnet.processes.processTag, 2_000)).toEqual([]);
  });
});

describe("npm run devnet (devnet/cli.ts)", () => {
  it("is ready in a few seconds, writes valid coordinates, and stops cleanly on Ctrl-C", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "devnet-cli-")), "devnet.json");
    const suiteTag = `cli-${randomUUID()}`;
    const started = performance.now();
    const cli = runTypeScript("devnet/cli.ts", ["--file", file], { [DEVNET_SUITE_TAG]: suiteTag });
    const ready = await firstLineMatching(cli, /ready in (\d+) ms/, 30_000);
    const readyMs = performance.now() - started;
    console.info(`devnet cli: ready in ${ready[1]} ms by its own clock, ${Math.round(readyMs)} ms from spawn`);
    expect(readyMs).toBeLessThan(15_000);

    const coordinates = readDevnetCoordinates(file);
    expect(coordinates.services.length).toBeGreaterThanOrEqual(7);
    expect((await fetch(`${coordinates.facilitatorUrl}/health`)).status).toBe(200);

    cli.kill("SIGINT");
    expect(await exited(cli)).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(await waitForTaggedProcessesGone(DEVNET_SUITE_TAG, suiteTag, 5_000)).toEqual([]);
  });
});

describe("interval mining", () => {
  let devnet: Devnet | undefined;
  afterEach(async () => {
    await devnet?.stop();
    devnet = undefined;
  });

  it("mines on its own every block time, and settles after the configured confirmations", async () => {
    devnet = await startDevnet({ blockTimeSeconds: 1, confirmations: 2 });
    const chain = createPublicClient({ transport: http(devnet.rpcUrl) });
    const first = await chain.getBlockNumber({ cacheTime: 0 });
    // Polled, not slept: a new block within a few block times, with no transaction sent.
    await expect.poll(() => chain.getBlockNumber({ cacheTime: 0 }), { timeout: 5_000, interval: 100 }).toBeGreaterThan(first);

    const account = privateKeyToAccount(devnet.accounts.agent.privateKey as Hex);
    const client = new x402Client()
      .register(devnet.network as Network, new ExactEvmScheme(account))
      .setSpendControls({ allowedAssets: [{ network: devnet.network as Network, asset: devnet.usdc }] });
    const weather = devnet.services.find((service) => service.name === "weather");
    const response = await wrapFetchWithPayment(fetch, client)(`${weather?.url}?city=Oslo`);
    expect(response.status).toBe(200);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    const receipt = await chain.getTransactionReceipt({ hash: settlement.transaction as Hex });
    // Reported only once the block after the one including it existed: two confirmations.
    expect(await chain.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(receipt.blockNumber + 1n);
  });

  it("with instant mining, extra confirmations are mined on demand", async () => {
    // No heartbeat, so that every block after the settlement's is one the facilitator mined.
    devnet = await startDevnet({ blockTimeSeconds: 0, heartbeatSeconds: 0, confirmations: 3 });
    const chain = createPublicClient({ transport: http(devnet.rpcUrl) });
    const account = privateKeyToAccount(devnet.accounts.agent.privateKey as Hex);
    const client = new x402Client()
      .register(devnet.network as Network, new ExactEvmScheme(account))
      .setSpendControls({ allowedAssets: [{ network: devnet.network as Network, asset: devnet.usdc }] });
    const weather = devnet.services.find((service) => service.name === "weather");
    const response = await wrapFetchWithPayment(fetch, client)(`${weather?.url}?city=Oslo`);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    const receipt = await chain.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(await chain.getBlockNumber({ cacheTime: 0 })).toBe(receipt.blockNumber + 2n);
  });
});
