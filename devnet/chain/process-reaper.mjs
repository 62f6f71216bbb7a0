// The anvil reaper: a tiny process between the devnet's owner and anvil, so that anvil never
// outlives its owner, whatever way the owner ends (normal exit, Ctrl-C, SIGTERM, a crash, or
// SIGKILL, which no handler in the owner can catch).
//
// The owner spawns this file with a pipe on our stdin and never writes to it. When the owner
// ends, for any reason, the kernel closes its end of the pipe and we read end-of-file: that is
// our cue to stop anvil. The owner can also close the pipe on purpose to stop anvil cleanly.
//
// Usage: node anvil-reaper.mjs <anvil binary> [anvil arguments...]
// Stdout carries one JSON object per line for the owner:
//   {"type":"listening","host":"127.0.0.1","port":8545,"pid":123}  anvil is ready
//   {"type":"exited","code":0,"signal":null}                        anvil has ended
//   {"type":"error","message":"..."}                                anvil could not start
// Plain JavaScript on purpose: it must start in milliseconds with no TypeScript loader.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const KILL_GRACE_MS = 3000;
const [binary, ...anvilArguments] = process.argv.slice(2);

// The owner may already be gone when we write: a broken pipe must not crash us before anvil is stopped.
process.stdout.on("error", () => {});

function send(message, callback) {
  process.stdout.write(`${JSON.stringify(message)}\n`, () => callback?.());
}

if (!binary) {
  send({ type: "error", message: "anvil-reaper: no anvil binary given" }, () => process.exit(2));
} else {
  const anvil = spawn(binary, anvilArguments, { stdio: ["ignore", "pipe", "inherit"] });
  let stopping = false;

  const stopAnvil = () => {
    if (stopping) return;
    stopping = true;
    anvil.kill("SIGTERM");
    // anvil stops on SIGTERM within milliseconds; SIGKILL is only for a wedged process.
    setTimeout(() => anvil.kill("SIGKILL"), KILL_GRACE_MS).unref();
  };

  createInterface({ input: anvil.stdout }).on("line", (line) => {
    const match = /Listening on ([0-9.]+):(\d+)/.exec(line);
    if (match) send({ type: "listening", host: match[1], port: Number(match[2]), pid: anvil.pid });
  });

  anvil.on("error", (error) => {
    send({ type: "error", message: error.message }, () => process.exit(1));
  });
  anvil.on("exit", (code, signal) => {
    send({ type: "exited", code, signal }, () => process.exit(0));
  });

  process.stdin.on("end", stopAnvil);
  process.stdin.on("close", stopAnvil);
  process.stdin.on("error", stopAnvil);
  process.stdin.resume();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stopAnvil);
}
