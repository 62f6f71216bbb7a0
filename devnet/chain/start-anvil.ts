import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { anvilBinaryPath } from "./anvil-binary-path";
import { DEVNET_PROCESS_TAG, DEVNET_SUITE_TAG } from "./process-tags";

export type StartAnvilOptions = {
  chainId: number;
  mnemonic: string;
  accountCount: number;
  /** Ether given to each dev account at genesis. */
  balanceEther: number;
  /**
   * n > 0: besides a block per transaction, a block every n seconds (anvil's mixed mining), so
   * that the latest block's time keeps up with the clock while no transaction arrives, as a real
   * chain's does. 0 or absent: a block per transaction only.
   */
  heartbeatSeconds?: number;
  startTimeoutMs?: number;
};

export type AnvilProcess = {
  rpcUrl: string;
  port: number;
  anvilPid: number;
  reaperPid: number;
  /** Unique per devnet; also set as `X402_DEVNET_PROCESS` in the environment of anvil and its reaper. */
  processTag: string;
  /** Stops anvil and its reaper and waits until both have exited. Safe to call more than once. */
  stop(): Promise<void>;
  /** Resolves when anvil has ended, whether stopped or not (a crash shows up here). */
  ended: Promise<void>;
};

const ReaperMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("listening"), host: z.string(), port: z.number().int().positive(), pid: z.number().int().positive() }),
  z.object({ type: z.literal("exited"), code: z.number().nullable(), signal: z.string().nullable() }),
  z.object({ type: z.literal("error"), message: z.string() }),
]);

/** Plain JavaScript, so it starts in milliseconds (see the file for the protocol). */
export const REAPER_PATH = fileURLToPath(new URL("./process-reaper.mjs", import.meta.url));
const STOP_TIMEOUT_MS = 5000;
const STDERR_TAIL_LINES = 20;

/**
 * Starts anvil on 127.0.0.1 on a free port, behind the reaper (see process-reaper.mjs) that ends
 * it when this process ends, however it ends. Resolves once anvil accepts JSON-RPC.
 */
export async function startAnvil(options: StartAnvilOptions): Promise<AnvilProcess> {
  const processTag = randomUUID();
  const anvilArguments = [
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--chain-id",
    String(options.chainId),
    "--mnemonic",
    options.mnemonic,
    "--accounts",
    String(options.accountCount),
    "--balance",
    String(options.balanceEther),
    ...((options.heartbeatSeconds ?? 0) > 0 ? ["--mixed-mining", "--block-time", String(options.heartbeatSeconds)] : []),
  ];
  const environment: NodeJS.ProcessEnv = { ...process.env, [DEVNET_PROCESS_TAG]: processTag };
  // The reaper is plain JavaScript: a TypeScript loader inherited through NODE_OPTIONS would only slow it down.
  delete environment.NODE_OPTIONS;
  if (process.env[DEVNET_SUITE_TAG]) environment[DEVNET_SUITE_TAG] = process.env[DEVNET_SUITE_TAG];

  const reaper = spawn(process.execPath, [REAPER_PATH, anvilBinaryPath(), ...anvilArguments], {
    stdio: ["pipe", "pipe", "pipe"],
    env: environment,
    // Its own process group: a Ctrl-C in the terminal reaches only the owner, which then stops
    // the servers before the chain, instead of anvil dying under an in-flight settlement.
    detached: true,
  });

  const stderrTail: string[] = [];
  createInterface({ input: reaper.stderr }).on("line", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
  });

  const exited = new Promise<void>((resolve) => reaper.once("exit", () => resolve()));
  let anvilPid: number | undefined;

  const stop = once(async () => {
    // Closing the pipe is the reaper's signal to stop anvil; it exits right after anvil does.
    reaper.stdin.end();
    const stopped = await Promise.race([exited.then(() => true), delay(STOP_TIMEOUT_MS).then(() => false)]);
    if (!stopped) {
      killQuietly(anvilPid, "SIGKILL");
      killQuietly(reaper.pid, "SIGKILL");
      await exited;
    }
  });

  try {
    const listening = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`anvil did not start within ${options.startTimeoutMs ?? 15_000} ms`)), options.startTimeoutMs ?? 15_000);
      reaper.once("error", (error) => reject(error));
      reaper.once("exit", (code) => reject(new Error(`anvil exited before it was ready (reaper code ${code})`)));
      createInterface({ input: reaper.stdout }).on("line", (line) => {
        const message = parseReaperMessage(line);
        if (message?.type === "listening") {
          clearTimeout(timer);
          resolve({ port: message.port, pid: message.pid });
        } else if (message?.type === "error") {
          clearTimeout(timer);
          reject(new Error(`anvil could not start: ${message.message}`));
        }
      });
    });
    anvilPid = listening.pid;
    return {
      rpcUrl: `http://127.0.0.1:${listening.port}`,
      port: listening.port,
      anvilPid: listening.pid,
      reaperPid: reaper.pid ?? 0,
      processTag,
      stop,
      ended: exited,
    };
  } catch (error) {
    await stop();
    const detail = stderrTail.length > 0 ? `\n${stderrTail.join("\n")}` : "";
    throw new Error(`${error instanceof Error ? error.message : String(error)}${detail}`, { cause: error });
  }
}

function parseReaperMessage(line: string): z.infer<typeof ReaperMessage> | undefined {
  try {
    const parsed = ReaperMessage.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function killQuietly(pid: number | undefined, signal: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

function once<T>(action: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= action());
}
