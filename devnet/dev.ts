/**
 * `npm run dev`: the local world plus the app. Starts the devnet (writing .devnet/devnet.json),
 * then `next dev` on 127.0.0.1 with X402_NETWORK=local and DEVNET_FILE pointing at that file.
 * When either ends, the other is stopped; Ctrl-C and SIGTERM stop both. PORT picks the app's
 * port (default 3000); the devnet flags of `npm run devnet` work here too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { REAPER_PATH } from "./chain/start-anvil";
import { describeDevnet } from "./describe-devnet";
import { parseDevnetCliOptions } from "./devnet-options";
import { startDevnet, type Devnet } from "./start-devnet";
import { watchParent } from "./watch-parent";

const require = createRequire(import.meta.url);
const NEXT_STOP_TIMEOUT_MS = 10_000;

async function main(): Promise<void> {
  let options;
  try {
    options = parseDevnetCliOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`dev: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }
  const file = resolve(options.writeFile ?? ".devnet/devnet.json");
  const port = process.env.PORT || "3000";

  let devnet: Devnet;
  try {
    devnet = await startDevnet({ ...options, writeFile: file });
  } catch (error) {
    console.error(`dev: the local world could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(describeDevnet(devnet, file));
  console.log(`dev: local world ready in ${devnet.readyInMs} ms; starting the app on http://127.0.0.1:${port}`);

  // Run next's own entry point with this Node (the project's Node 22), not whatever `node` is on
  // PATH, behind the reaper, so that next cannot outlive this process even if it is SIGKILLed.
  const nextCommand = [process.execPath, require.resolve("next/dist/bin/next"), "dev", "-H", "127.0.0.1", "-p", port];
  const next: ChildProcess = spawn(process.execPath, [REAPER_PATH, "--inherit-stdio", ...nextCommand], {
    stdio: ["pipe", "inherit", "inherit"],
    env: { ...process.env, X402_NETWORK: "local", DEVNET_FILE: file, NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? "1" },
  });
  const nextExited = new Promise<number>((resolveExit) => {
    next.once("exit", (code, signal) => resolveExit(code ?? (signal ? 128 : 1)));
    next.once("error", (error) => {
      console.error(`dev: could not start next: ${error.message}`);
      resolveExit(1);
    });
  });

  let stopping = false;
  const shutdown = async (reason: string, exitCode: number | undefined) => {
    if (stopping) return;
    stopping = true;
    console.log(`\ndev: ${reason}; stopping...`);
    if (next.exitCode === null && next.signalCode === null) {
      // Closing the pipe makes the reaper send next SIGTERM (and SIGKILL if it lingers).
      next.stdin?.end();
      const timer = setTimeout(() => next.kill("SIGKILL"), NEXT_STOP_TIMEOUT_MS);
      await nextExited;
      clearTimeout(timer);
    }
    await devnet.stop();
    console.log("dev: stopped");
    process.exit(exitCode ?? (await nextExited));
  };

  // A terminal's Ctrl-C reaches next directly too (same process group); forwarding is harmless.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => void shutdown(`received ${signal}`, 0));
  }
  watchParent(() => void shutdown("parent process ended", 0));
  void nextExited.then((code) => shutdown(`next exited (code ${code})`, code));
  void devnet.ended.then(() => shutdown("the local chain ended unexpectedly", 1));
}

void main();
