/**
 * Several instances of the production build (`next start`) on one PostgreSQL, one Redis and the
 * local world, as a deployment with more than one server runs. What must hold across instances:
 *
 * 1. the agent wallet's daily cap, raced from every instance at once (five runs, each must hold);
 * 2. an API key's daily budget, raced the same way;
 * 3. one `Idempotency-Key` sent to two instances at the same moment runs once;
 * 4. an instance killed (SIGKILL) at each step of a payment, the request retried on another:
 *    paid at most once, and the client told what happened (the recorded outcome, or `409` with
 *    `Retry-After` while the dead instance's claim has not lapsed);
 * 5. afterwards the journal equals the chain: every transfer out of the agent wallet, once, with
 *    its hash, and `daily.spent` equal to what moved.
 *
 * Two groups of servers, each on a database of its own, so that each group's journal and budget
 * can be compared with exactly the transfers made while it ran (the chain and the agent wallet
 * are shared): group A (open access, cap 0.05 USDC) for the cap race, group B
 * (AGENT_WALLET_ACCESS=authenticated, API keys) for the rest.
 *
 * The instances are made to look like separate hosts: each clock runs a little ahead or behind
 * (CLOCK_SPREAD_MS, tests/support/clock-skew.cjs), and PostgreSQL is reached over a link with
 * latency (tests/support/latency-proxy.ts). With clocks that agree to the microsecond the cap
 * race almost never shows a ledger that compares one instance's clock with another's (25 runs
 * on the build before the database-clock fix all held); with a 1.5 s spread every run of that
 * build paid 6 to 8 times under a cap of 5.
 */
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { createPublicClient, erc20Abi, http, parseAbiItem } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { formatUsdc, parseUsdc } from "../../lib/money";
import { decodeStream, type FinishEvent, type PaymentEvent, type PaymentStatus } from "../../lib/stream";
import { startLatencyProxy, type LatencyProxy } from "../support/latency-proxy";
import { startPostgresServer, type PostgresServerHandle } from "../support/postgres-server";
import { startRedisServer, type RedisServerHandle } from "../support/redis-server";
import { REPO_ROOT, startAppServer, type AppServer } from "./support/app-server";
import "./support/context";

const { devnetFile, rpcUrl, usdc, agentAddress, adminToken } = inject("e2e");
const CRON_SECRET = "many-instances-cron-secret-0123456789abcdef";
/**
 * The request deadline of every server here: short, so a dead instance's claim lapses soon. Not
 * shorter: the agent's authorization lives about deadline − 7 s, and x402's facilitator refuses
 * one with less than 6 s left when the service settles it, which the slow service (3 s between
 * verifying and settling) reaches with a 15 s deadline.
 */
const DEADLINE_MS = 20_000;
/** The most a `Retry-After` may say: the claim lapses a few seconds after the deadline. */
const MAX_RETRY_AFTER_SECONDS = DEADLINE_MS / 1000 + 15;
const CAP = "0.05";
const WEATHER_PRICE = usdcUnits("0.01");
/** The local world's slow analysis service ("Devnet Sentiment Lab"). */
const SLOW_PRICE = usdcUnits("0.04");
const CAP_RUNS = 5;
/** More than one request per city would be one intent; these are 16 different purchases. */
const CITIES = [
  "Tokyo",
  "Lisbon",
  "Oslo",
  "Nairobi",
  "Lima",
  "Hanoi",
  "Dakar",
  "Quito",
  "Riga",
  "Tunis",
  "Porto",
  "Kyoto",
  "Cairo",
  "Seoul",
  "Vienna",
  "Dublin",
];

// No cache: a block number read before a run must be the chain's head at that moment (viem caches it 4 s by default).
const chain = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/**
 * The servers reach PostgreSQL through a proxy that delays each packet this long each way, as a
 * managed database across a network would (on one machine a round trip takes a fraction of a
 * millisecond): the gaps between an instance reading the database and acting on what it read
 * are as wide as in a deployment, e.g. between a payment's settlement and its recorded outcome.
 */
const DATABASE_LATENCY_MS = 4;

let postgres: PostgresServerHandle | undefined;
let redis: RedisServerHandle | undefined;
let proxy: LatencyProxy | undefined;
/** Every server started here and not yet stopped, so afterAll stops them whatever failed. */
const live = new Set<AppServer>();

beforeAll(async () => {
  [postgres, redis] = await Promise.all([startPostgresServer(), startRedisServer()]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([...live].map((server) => server.stop()));
  live.clear();
  await Promise.allSettled([proxy?.stop(), redis?.stop(), postgres?.stop()]);
}, 60_000);

/** A new database: its URL for this test (direct), and for the servers (through the slow link). */
async function newDatabase(): Promise<{ direct: string; forServers: string }> {
  if (!postgres) throw new Error("PostgreSQL did not start");
  const direct = await postgres.database();
  const url = new URL(direct);
  proxy ??= await startLatencyProxy({ host: url.hostname, port: Number(url.port) }, DATABASE_LATENCY_MS);
  url.port = String(proxy.port);
  return { direct, forServers: url.toString() };
}

// ---------------------------------------------------------------------------------------------
// Servers, requests and what the chain and the journal say

function usdcUnits(text: string): bigint {
  const units = parseUsdc(text);
  if (units === undefined) throw new Error(`not a USDC amount: ${text}`);
  return units;
}

function baseEnv(databaseUrl: string): Record<string, string> {
  if (!redis) throw new Error("Redis did not start");
  return {
    X402_NETWORK: "local",
    DEVNET_FILE: devnetFile,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    ADMIN_TOKEN: adminToken,
    CRON_SECRET,
    RATE_LIMIT_REQUESTS: "1000",
    CHAT_DEADLINE_MS: String(DEADLINE_MS),
  };
}

/** Loaded into each server to move its clock (tests/support/clock-skew.cjs). */
const CLOCK_SKEW_MODULE = path.join(REPO_ROOT, "tests/support/clock-skew.cjs");

/**
 * The instances' clocks disagree by this much (the first behind, the last ahead), as separate
 * hosts' clocks do: whatever an instance stamps with its own clock and another compares with
 * its own must not let a payment past a limit.
 */
const CLOCK_SPREAD_MS = 1_500;

/** The skew of instance `index` of `count`: spread evenly over CLOCK_SPREAD_MS, centred on the real time. */
function skewOf(index: number, count: number): number {
  return count < 2 ? 0 : Math.round(-CLOCK_SPREAD_MS / 2 + (index * CLOCK_SPREAD_MS) / (count - 1));
}

async function startServer(env: Record<string, string>, skewMs = 0): Promise<AppServer> {
  const skewed = skewMs === 0 ? env : { ...env, NODE_OPTIONS: `--require ${CLOCK_SKEW_MODULE}`, TEST_CLOCK_SKEW_MS: String(skewMs) };
  const server = await startAppServer(skewed, { timeoutMs: 90_000 });
  live.add(server);
  return server;
}

async function stopServers(servers: AppServer[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      live.delete(server);
      await server.stop();
    }),
  );
}

type Problem = { code?: string; status?: number; title?: string; detail?: string };

type ChatOutcome = {
  server: string;
  status: number;
  headers: Headers;
  problem?: Problem;
  payments: PaymentEvent[];
  /** The `0:` text, joined. */
  text: string;
  finish?: FinishEvent;
  /** Why the response broke off before its `d:` line (the server died, say). */
  cut?: string;
};

type ChatOptions = {
  idempotencyKey: string;
  token?: string;
  /** Called with each `p:` event as it arrives (synchronously, before the next is read). */
  onPayment?: (payment: PaymentEvent) => void;
  timeoutMs?: number;
};

const userMessage = (content: string) => JSON.stringify({ messages: [{ role: "user", content }] });

/** POST /api/chat with the offline demo model; reads the whole stream (or what came before it broke). */
async function chat(server: AppServer, content: string, options: ChatOptions): Promise<ChatOutcome> {
  const headers: Record<string, string> = { "content-type": "application/json", "idempotency-key": options.idempotencyKey };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const outcome: ChatOutcome = { server: server.url, status: 0, headers: new Headers(), payments: [], text: "" };
  let response: Response;
  try {
    response = await fetch(`${server.url}/api/chat`, {
      method: "POST",
      headers,
      body: userMessage(content),
      signal: AbortSignal.timeout(options.timeoutMs ?? 90_000),
    });
  } catch (error) {
    return { ...outcome, cut: `no response: ${String(error)}` };
  }
  outcome.status = response.status;
  outcome.headers = response.headers;
  if (!response.ok || !response.body) {
    outcome.problem = (await response.json().catch(() => ({}))) as Problem;
    return outcome;
  }
  try {
    for await (const item of decodeStream(response.body)) {
      if (item.kind !== "event") continue;
      const { event } = item;
      if (event.type === "payment") {
        outcome.payments.push(event.payment);
        options.onPayment?.(event.payment);
      } else if (event.type === "text") {
        outcome.text += event.text;
      } else if (event.type === "finish") {
        outcome.finish = event.finish;
      }
    }
  } catch (error) {
    outcome.cut = String(error);
  }
  if (!outcome.finish && !outcome.cut) outcome.cut = "the stream ended without its d: line";
  return outcome;
}

/** Hashes of settlements the stream reported (`confirmed`/`delivered` events and `d:`). */
function settledHashes(outcome: ChatOutcome): Set<string> {
  const hashes = new Set<string>();
  for (const payment of outcome.payments) {
    if ((payment.status === "confirmed" || payment.status === "delivered") && payment.txHash) hashes.add(payment.txHash.toLowerCase());
  }
  for (const payment of outcome.finish?.payments ?? []) {
    if ((payment.status === "confirmed" || payment.status === "delivered") && payment.txHash) hashes.add(payment.txHash.toLowerCase());
  }
  return hashes;
}

/** Every hash the client was told about, in any `p:` event or in `d:`. */
function mentionedHashes(outcome: ChatOutcome): Set<string> {
  const hashes = new Set<string>();
  for (const payment of outcome.payments) if (payment.txHash) hashes.add(payment.txHash.toLowerCase());
  for (const payment of outcome.finish?.payments ?? []) if (payment.txHash) hashes.add(payment.txHash.toLowerCase());
  if (outcome.finish?.txHash) hashes.add(outcome.finish.txHash.toLowerCase());
  return hashes;
}

function describeOutcome(outcome: ChatOutcome): string {
  if (outcome.status !== 200)
    return `${outcome.status} ${outcome.problem?.code ?? ""} ${outcome.cut ?? ""} retry-after=${outcome.headers.get("retry-after")}`.trim();
  const steps = outcome.payments.filter((payment) => !payment.id.startsWith("disc_"));
  const last = steps.at(-1);
  // Why a payment failed or was left undecided, in the server's words.
  const why =
    last && (last.status === "failed" || last.status === "pending") && outcome.finish?.finishReason !== "limit-exceeded"
      ? ` (${last.message ?? last.reason ?? ""})`
      : "";
  // With no payment step, what the client was told is in the text.
  const said = steps.length === 0 && outcome.text ? ` “${outcome.text.slice(0, 240)}”` : "";
  return `200 ${outcome.finish?.finishReason ?? "(no d:)"} [${steps.map((payment) => payment.status).join(">")}]${why}${said}${outcome.cut ? ` cut: ${outcome.cut}` : ""}`;
}

const balance = () => chain.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [agentAddress] });

type Transfer = { txHash: string; to: string; value: bigint };

/** USDC transfers out of the agent wallet in blocks after `afterBlock`. */
async function transfersOut(afterBlock: bigint): Promise<Transfer[]> {
  const head = await chain.getBlockNumber();
  // The node refuses a range that starts past its head.
  if (head <= afterBlock) return [];
  const logs = await chain.getLogs({ address: usdc, event: TRANSFER, args: { from: agentAddress }, fromBlock: afterBlock + 1n, toBlock: head });
  return logs.map((log) => ({ txHash: (log.transactionHash ?? "").toLowerCase(), to: String(log.args.to), value: log.args.value ?? 0n }));
}

const sum = (values: bigint[]) => values.reduce((total, value) => total + value, 0n);

type PaymentRow = { id: string; status: string; amount: string | null; txHash: string | null; service: string | null; reason: string | null };
type Journal = { payments: PaymentRow[]; daily: { spent: string; reserved: string; limit: string } };

/** The agent wallet's journal as the operator reads it (`GET /api/payments`, every page). */
async function readJournal(server: AppServer): Promise<Journal> {
  const payments = new Map<string, PaymentRow>();
  let before: string | null = null;
  let daily: Journal["daily"] | undefined;
  for (let page = 0; page < 20; page += 1) {
    const query = new URLSearchParams({ limit: "200", ...(before ? { before } : {}) });
    const response = await fetch(`${server.url}/api/payments?${query}`, {
      headers: { authorization: `Bearer ${adminToken}` },
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status, `GET /api/payments with ADMIN_TOKEN answered ${response.status}`).toBe(200);
    const body = (await response.json()) as { payer: string; payments: PaymentRow[]; nextCursor: string | null; daily: Journal["daily"] };
    expect(body.payer.toLowerCase()).toBe(agentAddress.toLowerCase());
    daily ??= body.daily;
    for (const payment of body.payments) payments.set(payment.id, payment);
    if (!body.nextCursor) break;
    before = body.nextCursor;
  }
  if (!daily) throw new Error("no page of the journal was read");
  return { payments: [...payments.values()], daily };
}

type ReconcileReport = { checked: number; settled: number; released: number; stillPending: number; inFlight: number; failed: number };

/** Runs the cron reconciler until it finds nothing left to decide (bounded). */
async function reconcileUntilSettled(server: AppServer, timeoutMs = 90_000): Promise<ReconcileReport[]> {
  const reports: ReconcileReport[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${server.url}/api/cron/reconcile`, {
      headers: { authorization: `Bearer ${CRON_SECRET}` },
      signal: AbortSignal.timeout(30_000),
    });
    expect(response.status, "GET /api/cron/reconcile with CRON_SECRET").toBe(200);
    const report = (await response.json()) as ReconcileReport;
    reports.push(report);
    if (report.checked === 0) return reports;
    if (Date.now() > deadline) throw new Error(`the reconciler still had payments to decide after ${timeoutMs} ms: ${JSON.stringify(reports.slice(-3))}`);
    await sleep(1_000);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The journal equals the chain: after the reconciler has decided everything, the payments the
 * journal shows settled (`confirmed`/`delivered`) are exactly the transfers out of the agent
 * wallet since `afterBlock`, each once, with its hash and amount; nothing is left undecided;
 * no failed payment carries a hash of money that moved; and `daily.spent` is `expectedSpent`.
 */
async function expectJournalEqualsChain(
  server: AppServer,
  afterBlock: bigint,
  expectedSpent: (moved: bigint) => bigint,
): Promise<{ moved: bigint; journal: Journal }> {
  const reports = await reconcileUntilSettled(server);
  const [journal, transfers] = await Promise.all([readJournal(server), transfersOut(afterBlock)]);
  const problems: string[] = [];

  const onChain = new Map<string, bigint>();
  for (const transfer of transfers) {
    if (onChain.has(transfer.txHash)) problems.push(`transaction ${transfer.txHash} moved agent-wallet USDC twice`);
    onChain.set(transfer.txHash, (onChain.get(transfer.txHash) ?? 0n) + transfer.value);
  }
  const settled = journal.payments.filter((payment) => payment.status === "confirmed" || payment.status === "delivered");
  const journaled = new Map<string, PaymentRow>();
  for (const payment of settled) {
    const hash = payment.txHash?.toLowerCase();
    if (!hash || !/^0x[0-9a-f]{64}$/.test(hash) || /^0x0+$/.test(hash)) {
      problems.push(`journal payment ${payment.id} is ${payment.status} without a real transaction hash (${payment.txHash})`);
      continue;
    }
    if (journaled.has(hash)) problems.push(`transaction ${hash} is in the journal twice (${journaled.get(hash)?.id}, ${payment.id})`);
    journaled.set(hash, payment);
  }
  for (const [hash, value] of onChain) {
    const payment = journaled.get(hash);
    if (!payment) problems.push(`the chain shows ${formatUsdc(value)} USDC moved in ${hash}, which the journal does not show settled`);
    else if (payment.amount === null || usdcUnits(payment.amount) !== value)
      problems.push(`journal payment ${payment.id} says ${payment.amount} USDC, the chain moved ${formatUsdc(value)} in ${hash}`);
  }
  for (const [hash, payment] of journaled) {
    if (!onChain.has(hash))
      problems.push(`journal payment ${payment.id} is ${payment.status} with ${hash}, which moved no agent-wallet USDC on chain since this group began`);
  }
  for (const payment of journal.payments) {
    if (!["confirmed", "delivered", "failed"].includes(payment.status))
      problems.push(`journal payment ${payment.id} is still ${payment.status} after the reconciler ran`);
    if (payment.status === "failed" && payment.txHash && onChain.has(payment.txHash.toLowerCase()))
      problems.push(`journal payment ${payment.id} is failed, but its transaction ${payment.txHash} moved money`);
  }
  const moved = sum([...onChain.values()]);
  const summary = `chain: ${onChain.size} transfers, ${formatUsdc(moved)} USDC; journal: ${journal.payments.length} payments, ${settled.length} settled; daily ${JSON.stringify(journal.daily)}; reconciler runs ${JSON.stringify(reports)}`;
  expect(problems, summary).toEqual([]);
  expect(usdcUnits(journal.daily.spent), `daily.spent is ${journal.daily.spent} USDC; expected ${formatUsdc(expectedSpent(moved))} (${summary})`).toBe(
    expectedSpent(moved),
  );
  // Nothing is left held once every payment is decided (a crash's reservation is released by the reconciler).
  expect
    .soft(usdcUnits(journal.daily.reserved), `daily.reserved is ${journal.daily.reserved} USDC after the reconciler decided every payment (${summary})`)
    .toBe(0n);
  return { moved, journal };
}

/** A new API key in the servers' database, made with the operator's own command (`npm run api-keys`). */
async function createApiKey(databaseUrl: string, name: string, budget: { perPayment: string; perRequest: string; daily: string }): Promise<string> {
  const args = [
    path.join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"),
    "--conditions=react-server",
    "scripts/api-keys.ts",
    "create",
    "--name",
    name,
    "--per-payment",
    budget.perPayment,
    "--per-request",
    budget.perRequest,
    "--daily",
    budget.daily,
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 60_000 });
  const token = /x402k_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
  if (!token) throw new Error(`npm run api-keys -- create printed no token:\n${stdout}`);
  return token;
}

type RaceRun = { run: number; completed: number; moved: bigint; hashesMatch: boolean; outcomes: string[] };

/** Between the starts of the second half of a race's requests. */
const STAGGER_MS = 120;

/**
 * `count` weather purchases (distinct cities, distinct Idempotency-Keys), alternating between
 * the servers, all in flight together: the first half start at the same moment (their budget
 * checks collide), the second half one every STAGGER_MS after them, so that their checks land
 * while the first ones' payments settle and commit on other instances (a check that misses a
 * reservation turning into spending lets one payment too many through). Returns what completed
 * according to the streams and what moved on chain.
 */
async function race(servers: AppServer[], run: number, count: number, token?: string): Promise<RaceRun & { results: ChatOutcome[] }> {
  const before = await balance();
  const afterBlock = await chain.getBlockNumber();
  const prefix = randomUUID();
  const burst = Math.ceil(count / 2);
  const results = await Promise.all(
    CITIES.slice(0, count).map(async (city, index) => {
      if (index >= burst) await sleep((index - burst + 1) * STAGGER_MS);
      return chat(servers[index % servers.length] as AppServer, `What's the weather in ${city}?`, { idempotencyKey: `race-${prefix}-${index}`, token });
    }),
  );
  const moved = before - (await balance());
  const streamed = new Set(results.flatMap((result) => [...settledHashes(result)]));
  const chainHashes = new Set((await transfersOut(afterBlock)).map((transfer) => transfer.txHash));
  const hashesMatch = streamed.size === chainHashes.size && [...streamed].every((hash) => chainHashes.has(hash));
  return { run, completed: streamed.size, moved, hashesMatch, outcomes: results.map(describeOutcome), results };
}

// ---------------------------------------------------------------------------------------------

describe("group A: three instances, open access, AGENT_WALLET_DAILY_CAP=0.05", () => {
  let databaseUrl: string;
  let servers: AppServer[] = [];
  let afterBlock: bigint;
  /** The last block before the operator last cleared the day: daily.spent counts what moved after it. */
  let lastReset: bigint;

  beforeAll(async () => {
    const database = await newDatabase();
    databaseUrl = database.direct;
    afterBlock = lastReset = await chain.getBlockNumber();
    const env = { ...baseEnv(database.forServers), AGENT_WALLET_ACCESS: "open", AGENT_WALLET_DAILY_CAP: CAP };
    servers = await Promise.all([0, 1, 2].map((index) => startServer(env, skewOf(index, 3))));
  }, 180_000);

  afterAll(async () => {
    await stopServers(servers);
  }, 60_000);

  it(`never pays over the cap when ${CITIES.length} purchases race across the instances (${CAP_RUNS} runs)`, async () => {
    const database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
    const runs: RaceRun[] = [];
    try {
      for (let run = 1; run <= CAP_RUNS; run += 1) {
        if (run > 1) {
          // The operator clears the day: every reservation of the earlier run is forgotten, so
          // each run starts from an empty daily budget (the journal keeps every payment). Done
          // only between runs, with every request of the earlier run finished.
          await database.query("DELETE FROM budget_reservations");
          lastReset = await chain.getBlockNumber();
        }
        const { results, ...summary } = await race(servers, run, CITIES.length);
        runs.push(summary);
        for (const result of results) {
          const quoted = result.payments.find((payment) => payment.status === "quoted");
          if (quoted) expect(quoted.amount, `the weather service's price in run ${run}`).toBe(formatUsdc(WEATHER_PRICE));
        }
      }
    } finally {
      await database.end();
    }
    const table = runs
      .map(
        (run) =>
          `run ${run.run}: ${run.completed} completed, ${formatUsdc(run.moved)} USDC moved, stream hashes ${run.hashesMatch ? "=" : "≠"} chain; ${run.outcomes.join(" | ")}`,
      )
      .join("\n");
    const maxPaid = Number(usdcUnits(CAP) / WEATHER_PRICE);
    for (const run of runs) {
      expect(
        run.completed,
        `run ${run.run}: ${run.completed} purchases completed under a cap of ${CAP} USDC (at most ${maxPaid})\n${table}`,
      ).toBeLessThanOrEqual(maxPaid);
      expect(
        run.moved,
        `run ${run.run}: the chain moved ${formatUsdc(run.moved)} USDC for ${run.completed} completed purchases of ${formatUsdc(WEATHER_PRICE)}\n${table}`,
      ).toBe(BigInt(run.completed) * WEATHER_PRICE);
      expect(run.hashesMatch, `run ${run.run}: the settlements the streams reported are not the transfers the chain shows\n${table}`).toBe(true);
      expect(run.moved, `run ${run.run}: ${formatUsdc(run.moved)} USDC moved, over the cap\n${table}`).toBeLessThanOrEqual(usdcUnits(CAP));
    }
    // Otherwise nothing raced for the last unit of budget.
    expect(Math.max(...runs.map((run) => run.completed)), `no run reached the cap, so the race was never run to its edge\n${table}`).toBe(maxPaid);
  }, 400_000);

  it("journal equals chain for group A: every transfer once with its hash; daily.spent = what the last run moved", async () => {
    // Every payment of every run stays in the journal; the budget counts only since the last clearing.
    const sinceReset = sum((await transfersOut(lastReset)).map((transfer) => transfer.value));
    await expectJournalEqualsChain(servers[1] as AppServer, afterBlock, () => sinceReset);
  }, 180_000);
});

describe("group B: two instances, AGENT_WALLET_ACCESS=authenticated, API keys", () => {
  let databaseUrl: string;
  let servers: AppServer[] = [];
  let env: Record<string, string>;
  let afterBlock: bigint;
  /** A key with room for every purchase of cases 3 and 4. */
  let opsToken: string;

  beforeAll(async () => {
    const database = await newDatabase();
    databaseUrl = database.direct;
    afterBlock = await chain.getBlockNumber();
    // The wallet's cap is not what is tested here (group A does): room for every purchase below.
    env = { ...baseEnv(database.forServers), AGENT_WALLET_ACCESS: "authenticated", AGENT_WALLET_DAILY_CAP: "1" };
    servers = await Promise.all([0, 1].map((index) => startServer(env, skewOf(index, 2))));
    opsToken = await createApiKey(databaseUrl, "ops", { perPayment: "0.05", perRequest: "0.1", daily: "1" });
  }, 180_000);

  afterAll(async () => {
    await stopServers(servers);
  }, 60_000);

  it("never pays over an API key's daily budget when its requests race across the instances", async () => {
    const budget = usdcUnits("0.03");
    const runs: RaceRun[] = [];
    // A fresh key per run: a fresh budget, with nothing to clear.
    for (let run = 1; run <= 3; run += 1) {
      const token = await createApiKey(databaseUrl, `race-${run}`, { perPayment: "0.01", perRequest: "0.01", daily: formatUsdc(budget) });
      const { results: _results, ...summary } = await race(servers, run, 10, token);
      runs.push(summary);
    }
    const table = runs.map((run) => `run ${run.run}: ${run.completed} completed, ${formatUsdc(run.moved)} USDC moved; ${run.outcomes.join(" | ")}`).join("\n");
    const maxPaid = Number(budget / WEATHER_PRICE);
    for (const run of runs) {
      expect(
        run.completed,
        `run ${run.run}: ${run.completed} purchases completed on a key whose daily budget is ${formatUsdc(budget)} USDC\n${table}`,
      ).toBeLessThanOrEqual(maxPaid);
      expect(run.moved, `run ${run.run}: the chain moved ${formatUsdc(run.moved)} USDC for ${run.completed} completed purchases\n${table}`).toBe(
        BigInt(run.completed) * WEATHER_PRICE,
      );
      expect(run.hashesMatch, `run ${run.run}: the streams' settlements are not the chain's transfers\n${table}`).toBe(true);
    }
    expect(Math.max(...runs.map((run) => run.completed)), `no run used the whole budget\n${table}`).toBe(maxPaid);
  }, 300_000);

  it("runs one Idempotency-Key sent to two instances at the same moment once", async () => {
    for (let round = 1; round <= 3; round += 1) {
      const key = `same-${randomUUID()}`;
      const content = `What's the weather in ${CITIES[round]}?`;
      const before = await balance();
      const pair = await Promise.all(servers.map((server) => chat(server, content, { idempotencyKey: key, token: opsToken })));
      const moved = before - (await balance());
      const told = `round ${round}: ${pair.map(describeOutcome).join(" | ")}; moved ${formatUsdc(moved)} USDC`;
      const ran = pair.filter((outcome) => outcome.status === 200);
      const refused = pair.filter((outcome) => outcome.status === 409);
      expect(ran.length + refused.length, `every answer is 200 or 409: ${told}`).toBe(2);
      expect(ran.length, `at least one of them runs: ${told}`).toBeGreaterThanOrEqual(1);
      for (const outcome of refused) {
        expect(outcome.problem?.code, told).toBe("conflict:in_progress");
        expect(outcome.headers.get("content-type"), told).toMatch(/^application\/problem\+json/);
        const retryAfter = outcome.headers.get("retry-after");
        expect
          .soft(retryAfter ?? "(no Retry-After header)", `409 for a request still running should say when to retry (Retry-After): ${told}`)
          .toMatch(/^\d+$/);
        if (retryAfter) expect.soft(Number(retryAfter), told).toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
      }
      for (const outcome of ran) expect(outcome.finish, `a 200 ends with d: ${told}`).toBeDefined();
      if (ran.length === 2) {
        // Both answered: the later one must be the earlier's recorded outcome, not a second purchase.
        const [first, second] = ran.map(settledHashes) as [Set<string>, Set<string>];
        expect([...second], `two 200s must report the same payment: ${told}`).toEqual([...first]);
      }
      expect(moved, `one purchase of ${formatUsdc(WEATHER_PRICE)} at most: ${told}`).toBeLessThanOrEqual(WEATHER_PRICE);
      expect(moved, `the one that ran paid: ${told}`).toBe(WEATHER_PRICE);

      // Once it has ended, the same key again (on either instance) is its recorded outcome.
      const again = await chat(servers[round % 2] as AppServer, content, { idempotencyKey: key, token: opsToken });
      const paid = new Set(ran.flatMap((outcome) => [...settledHashes(outcome)]));
      expect(again.status, `the retry after the end: ${describeOutcome(again)}`).toBe(200);
      expect(
        [...mentionedHashes(again)].filter((hash) => paid.has(hash)),
        `the retry after the end names the recorded payment: ${describeOutcome(again)}; ${told}`,
      ).toHaveLength(1);
      expect(before - (await balance()), `the retry after the end paid again: ${describeOutcome(again)}`).toBe(WEATHER_PRICE);
    }
  }, 240_000);

  /**
   * The stream's payment steps, each a moment to crash at. The slow analysis service (0.04 USDC)
   * holds a paid request for a few seconds after verifying it (the local world's slowDelayMs,
   * 3 s by default) before it settles, so `verifying` is a window wide enough to land a SIGKILL
   * in; `confirmed` is the settled step (the chain proved the transfer, before delivery; its
   * `delivered` often arrives in the same chunk, so the kill lands right after both were sent,
   * before or after the server recorded the outcome for retries).
   */
  const STAGES: { stage: PaymentStatus; topic: string }[] = [
    { stage: "quoted", topic: "harbours" },
    { stage: "signing", topic: "lighthouses" },
    { stage: "verifying", topic: "canals" },
    { stage: "confirmed", topic: "bridges" },
  ];

  for (const [index, { stage, topic }] of STAGES.entries()) {
    it(`pays at most once and says so when an instance is killed at '${stage}' and the request is retried on another`, async () => {
      const victim = servers[index % 2] as AppServer;
      const survivor = servers[(index + 1) % 2] as AppServer;
      const key = `kill-${stage}-${randomUUID()}`;
      const content = `Get a sentiment analysis about ${topic}`;
      const before = await balance();
      const afterBlockHere = await chain.getBlockNumber();

      let killed: Promise<void> | undefined;
      const first = await chat(victim, content, {
        idempotencyKey: key,
        token: opsToken,
        onPayment: (payment) => {
          if (!killed && payment.status === stage && !payment.id.startsWith("disc_")) {
            live.delete(victim);
            killed = victim.kill("SIGKILL");
          }
        },
      });
      expect(killed, `the stream never showed '${stage}', so nothing was killed: ${describeOutcome(first)}`).toBeDefined();
      // A new instance takes the dead one's place (on a new port) while the retry goes on.
      const replacement = killed?.then(() => startServer(env, skewOf(index % 2, 2)));
      try {
        expect(first.finish, `the killed instance's stream cannot have ended normally: ${describeOutcome(first)}`).toBeUndefined();

        // The retry, on the instance that lives: 409 with Retry-After until the dead claim lapses.
        const attempts: string[] = [];
        const retryAfters: (string | null)[] = [];
        const started = Date.now();
        let retry: ChatOutcome;
        for (;;) {
          retry = await chat(survivor, content, { idempotencyKey: key, token: opsToken });
          attempts.push(`${((Date.now() - started) / 1000).toFixed(1)} s: ${describeOutcome(retry)}`);
          if (retry.status !== 409) break;
          expect(retry.problem?.code, attempts.join("\n")).toBe("conflict:in_progress");
          const retryAfter = retry.headers.get("retry-after");
          retryAfters.push(retryAfter);
          // Without the header, poll: the old claim lasted 60 s (bounded either way).
          const waitSeconds = retryAfter && /^\d+$/.test(retryAfter) ? Math.min(Number(retryAfter), MAX_RETRY_AFTER_SECONDS) : 5;
          if (Date.now() - started > 75_000) break;
          await sleep(waitSeconds * 1000 + 250);
        }
        const log = attempts.join("\n");
        // Every 409 says when to come back: the seconds until the dead holder's claim lapses.
        expect
          .soft(
            retryAfters.filter((value) => value === null || !/^\d+$/.test(value)),
            `409 after the holder died must carry Retry-After (seconds until its claim lapses):\n${log}`,
          )
          .toEqual([]);
        expect
          .soft(Math.max(0, ...retryAfters.map(Number).filter(Number.isFinite)), `Retry-After is longer than the deadline and a few seconds:\n${log}`)
          .toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
        expect(retry.status, `the retry never ran (bounded at 75 s):\n${log}`).toBe(200);
        expect(retry.finish, `the retry's stream ends with d:\n${log}`).toBeDefined();

        // Whatever the dead instance left is decided by now or soon; then count what moved.
        await reconcileUntilSettled(survivor);
        const transfers = await transfersOut(afterBlockHere);
        const moved = before - (await balance());
        const story = `killed at '${stage}': first ${describeOutcome(first)}; retries:\n${log}\nmoved ${formatUsdc(moved)} USDC in ${transfers.length} transfer(s)`;
        expect(first.payments.find((payment) => payment.status === "quoted")?.amount, `the slow service's price: ${story}`).toBe(formatUsdc(SLOW_PRICE));
        expect(moved, `paid more than once: ${story}`).toBeLessThanOrEqual(SLOW_PRICE);
        expect(transfers.length, story).toBeLessThanOrEqual(1);
        expect(sum(transfers.map((transfer) => transfer.value)), story).toBe(moved);
        // The client is told what happened: a payment that moved is named by its hash in the retry.
        if (transfers.length === 1) {
          expect([...mentionedHashes(retry)], `money moved (${transfers[0]?.txHash}) but the retry does not name its transaction: ${story}`).toContain(
            transfers[0]?.txHash,
          );
        } else {
          expect([...settledHashes(retry)], `nothing moved, yet the retry reports a settlement: ${story}`).toEqual([]);
        }
      } finally {
        if (replacement) servers[index % 2] = await replacement;
      }
    }, 300_000);
  }

  it("journal equals chain for group B: every transfer once with its hash; daily.spent = all that moved", async () => {
    await expectJournalEqualsChain(servers[0] as AppServer, afterBlock, (moved) => moved);
  }, 180_000);
});
