/**
 * Nothing lost on a crash: the server is killed (SIGKILL) at each step of a paid turn (after
 * the quote, after signing began, once the service's answer to the payment arrived, after the
 * settlement, after delivery and before the last stream line), then started again on the same
 * data. Once the reconciler has run, the journal names the payment with its true on-chain
 * outcome, the daily budget counts it exactly once, and a client retry with the same
 * Idempotency-Key pays nothing more. On the embedded database and on a real PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPublicClient, createWalletClient, erc20Abi, http, publicActions } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { decodeAll } from "../../lib/stream";
import { startCrashServer, type CrashServer } from "../support/crash-server/start-crash-server";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../support/postgres-server";

const STEPS = ["quoted", "signing", "paid-response", "confirmed", "delivered"] as const;
const PRICE = 10_000n; // the weather service: 0.01 USDC
/**
 * The turns' deadline on PostgreSQL, where a dead turn's in-flight claim is shared and lapses
 * 5 s after it. (On the embedded database, five servers opening theirs at once take long enough
 * that the default 45 s is kept.)
 */
const DEADLINE_MS = 20_000;
const QUESTION = {
  messages: [{ role: "user", content: "What's the weather in Lisbon?" }],
  spendingLimits: { perPayment: "0.01", perRequest: "0.01", daily: "0.01" },
};

let devnet: Devnet;
let workDir: string;
let postgres: PostgresServerHandle | undefined;
const servers: CrashServer[] = [];

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "x402-crash-"));
  devnet = await startDevnet({ writeFile: path.join(workDir, "devnet.json") });
  if (!skipPostgresTests) postgres = await startPostgresServer();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await postgres?.stop();
  await devnet?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const chain = () => createPublicClient({ transport: http(devnet.rpcUrl) });
const balanceOf = (address: `0x${string}`) =>
  chain().readContract({ address: devnet.usdc as `0x${string}`, abi: erc20Abi, functionName: "balanceOf", args: [address] });

let funding = Promise.resolve();
/** A fresh agent wallet with 1 USDC; transfers are queued so their nonces never collide. */
function fundedAgent(): Promise<{ key: `0x${string}`; address: `0x${string}` }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  const work = funding.then(async () => {
    const funder = createWalletClient({
      account: privateKeyToAccount(devnet.accounts.agent.privateKey as `0x${string}`),
      transport: http(devnet.rpcUrl),
    }).extend(publicActions);
    const hash = await funder.writeContract({
      address: devnet.usdc as `0x${string}`,
      abi: erc20Abi,
      functionName: "transfer",
      args: [address, 1_000_000n],
      chain: null,
    });
    await funder.waitForTransactionReceipt({ hash });
  });
  funding = work.catch(() => undefined);
  return work.then(() => ({ key, address }));
}

async function start(env: Record<string, string>): Promise<CrashServer> {
  const server = await startCrashServer(env);
  servers.push(server);
  return server;
}

/** Sends the turn; a server that dies mid-stream ends it early. Returns the raw stream text. */
async function chat(server: CrashServer, key: string): Promise<{ status: number; text: string; retryAfter: number | undefined }> {
  try {
    const response = await fetch(`${server.origin}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key, accept: "text/plain" },
      body: JSON.stringify(QUESTION),
    });
    const text = await response.text().catch(() => "");
    const retryAfter = response.headers.get("retry-after");
    return { status: response.status, text, retryAfter: retryAfter === null ? undefined : Number(retryAfter) };
  } catch {
    return { status: 0, text: "", retryAfter: undefined };
  }
}

type State = { history: { id: string; status: string; txHash?: string; amount?: string }[]; spent: { settled: string; reserved: string } };
async function state(server: CrashServer, payer: string): Promise<State> {
  return (await (await fetch(`${server.origin}/test/state?payer=${payer}`)).json()) as State;
}

/**
 * `reconciledBy`: "timer" leaves it to the restarted server's own reconciler timer, with no
 * request at all; "request" runs the reconciler on demand, as the cron route does.
 */
async function scenario(step: (typeof STEPS)[number], database: Record<string, string>, reconciledBy: "timer" | "request" = "request") {
  const agent = await fundedAgent();
  const env = {
    ...database,
    DEVNET_FILE: path.join(workDir, "devnet.json"),
    AGENT_PRIVATE_KEY: agent.key,
    AGENT_AUTHORIZATION_TTL_SECONDS: "10",
    DEMO_MODEL_CHUNK_DELAY_MS: "0",
    RATE_LIMIT_REQUESTS: "1000",
    RECONCILE_INTERVAL_SECONDS: reconciledBy === "timer" ? "1" : "0",
    // This is about the money a crash leaves open, not about discovery: no unpaid probes of the
    // listings (their bounded wait comes on top of every turn of five servers at once).
    DISCOVERY_PROBES: "false",
  };
  const before = await balanceOf(agent.address);
  const key = `crash-${step}-${Date.now()}`;

  const doomed = await start({ ...env, CRASH_AT: step });
  const first = await chat(doomed, key);
  // tsx runs the server in a child of its own and exits with 128 + 9 when that child is killed.
  // A turn that ended without reaching its step leaves the server up: said at once, with how the
  // turn ended, instead of waiting for the test's timeout.
  const ended = await Promise.race([doomed.exited, new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 15_000))]);
  expect(["SIGKILL", "137"], `the server did not die at "${step}"; the turn ended: ${first.text.slice(-600)}`).toContain(ended);
  expect(first.text.split("\n").some((line) => line.startsWith("d:"))).toBe(false);

  const revived = await start(env);
  // The reconciler decides whatever the crash left open (authorizations expire within seconds).
  let payments: State["history"] = [];
  for (let attempt = 0; attempt < 60; attempt += 1) {
    if (reconciledBy === "request") await fetch(`${revived.origin}/test/reconcile`, { method: "POST" });
    payments = (await state(revived, agent.address)).history;
    if (payments.length > 0 && payments.every((payment) => ["confirmed", "delivered", "failed"].includes(payment.status))) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const moved = before - (await balanceOf(agent.address));
  expect(payments).toHaveLength(1);
  const payment = payments[0]!;
  if (moved > 0n) {
    expect(moved).toBe(PRICE);
    expect(["confirmed", "delivered"]).toContain(payment.status);
    expect(payment.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chain().getTransactionReceipt({ hash: payment.txHash as `0x${string}` })).status).toBe("success");
  } else {
    expect(payment.status).toBe("failed");
  }
  expect((await state(revived, agent.address)).spent).toEqual({ settled: moved.toString(), reserved: "0" });

  // The client retries the same request: never a second payment. On a PostgreSQL server the
  // dead request's in-flight claim is shared and lasts until its deadline has passed: the 409
  // says when (Retry-After), and the client waits that long, as a client should. The embedded
  // database's process held its in-flight claims in memory, so they died with it.
  let retry = await chat(revived, key);
  if (database.DATA_DIR) expect(retry.status).toBe(200);
  for (let attempt = 0; retry.status === 409 && attempt < 5; attempt += 1) {
    const wait = retry.retryAfter;
    expect(wait, "a 409 says when to come back").toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(Math.ceil(DEADLINE_MS / 1000) + 5);
    await new Promise((resolve) => setTimeout(resolve, (wait ?? 1) * 1000));
    retry = await chat(revived, key);
  }
  expect(retry.status).toBe(200);
  const finish = decodeAll(retry.text).flatMap((item) => (item.kind === "event" && item.event.type === "finish" ? [item.event.finish] : []));
  expect(finish).toHaveLength(1);
  expect(before - (await balanceOf(agent.address))).toBe(moved);
  expect((await state(revived, agent.address)).spent.settled).toBe(moved.toString());
  await revived.stop();
  return { step, moved };
}

/** Five servers started, killed and restarted at once: about a minute on a quiet machine. */
const SCENARIO_TIMEOUT_MS = 240_000;

describe("SIGKILL at each step of a paid turn, then a restart on the same data", () => {
  it(
    "on the embedded database (PGlite)",
    async () => {
      // Where the crash left the outcome open, the server's own timer settles it after the restart.
      const results = await Promise.all(
        STEPS.map((step) =>
          scenario(
            step,
            { DATA_DIR: mkdtempSync(path.join(workDir, `pglite-${step}-`)) },
            step === "paid-response" || step === "signing" ? "timer" : "request",
          ),
        ),
      );
      // The crash points are where they claim to be: before the payment left, nothing moved; after, it did.
      expect(results.map((result) => [result.step, result.moved > 0n])).toEqual([
        ["quoted", false],
        ["signing", false],
        ["paid-response", true],
        ["confirmed", true],
        ["delivered", true],
      ]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it.skipIf(skipPostgresTests)(
    "on PostgreSQL",
    async () => {
      const databases = await Promise.all(STEPS.map(() => postgres!.database()));
      const results = await Promise.all(STEPS.map((step, index) => scenario(step, { DATABASE_URL: databases[index]!, CHAT_DEADLINE_MS: String(DEADLINE_MS) })));
      expect(results.map((result) => result.moved > 0n)).toEqual([false, false, true, true, true]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
