// The process reaper: a tiny process between an owner and its child (anvil, or next in
// `npm run dev`), so that the child never outlives its owner, whatever way the owner ends
// (normal exit, Ctrl-C, SIGTERM, a crash, or SIGKILL, which no handler in the owner can catch).
//
// The owner spawns this file with a pipe on our stdin and never writes to it. When the owner
// ends, for any reason, the kernel closes its end of the pipe and we read end-of-file: that is
// our cue to stop the child. The owner can also close the pipe on purpose to stop it cleanly.
//
// Usage: node process-reaper.mjs [--inherit-stdio] <command> [arguments...]
// Without --inherit-stdio the child is anvil, and our stdout carries one JSON object per line
// for the owner:
//   {"type":"listening","host":"127.0.0.1","port":8545,"pid":123}  anvil is ready
//   {"type":"exited","code":0,"signal":null}                        the child has ended
//   {"type":"error","message":"..."}                                the child could not start
// With --inherit-stdio the child writes to our stdout and stderr (a terminal, usually), and we
// exit with its exit code.
// Plain JavaScript on purpose: it must start in milliseconds with no TypeScript loader.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const KILL_GRACE_MS = 3000;
const inheritStdio = process.argv[2] === "--inherit-stdio";
const [binary, ...childArguments] = process.argv.slice(inheritStdio ? 3 : 2);

// The owner may already be gone when we write: a broken pipe must not crash us before anvil is stopped.
process.stdout.on("error", () => {});

function send(message, callback) {
  if (inheritStdio) return callback?.();
  process.stdout.write(`${JSON.stringify(message)}\n`, () => callback?.());
}

if (!binary) {
  send({ type: "error", message: "process-reaper: no command given" }, () => process.exit(2));
} else {
  const child = spawn(binary, childArguments, { stdio: ["ignore", inheritStdio ? "inherit" : "pipe", "inherit"] });
  let stopping = false;

  const stopChild = () => {
    if (stopping) return;
    stopping = true;
    child.kill("SIGTERM");
    // anvil stops on SIGTERM within milliseconds; SIGKILL is only for a wedged process.
    setTimeout(() => child.kill("SIGKILL"), KILL_GRACE_MS).unref();
  };

  if (child.stdout) {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /Listening on ([0-9.]+):(\d+)/.exec(line);
      if (match) send({ type: "listening", host: match[1], port: Number(match[2]), pid: child.pid });
    });
  }

  child.on("error", (error) => {
    if (inheritStdio) console.error(`process-reaper: ${error.message}`);
    send({ type: "error", message: error.message }, () => process.exit(1));
  });
  child.on("exit", (code, signal) => {
    send({ type: "exited", code, signal }, () => process.exit(inheritStdio ? (code ?? 1) : 0));
  });

  process.stdin.on("end", stopChild);
  process.stdin.on("close", stopChild);
  process.stdin.on("error", stopChild);
  process.stdin.resume();
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, stopChild);
}
