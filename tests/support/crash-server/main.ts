/**
 * Test support: the chat endpoint in a process of its own, on the durable store, that can be
 * told to die by SIGKILL at one step of a paid turn (CRASH_AT): after a journal entry with
 * that status (`quoted`, `signing`, `confirmed`, `delivered`), or `paid-response`, as soon as
 * the service's answer to the paid request arrives. Restarted on the same data, it shows what
 * a crash leaves behind. Run with `tsx --conditions=react-server`.
 *
 * Besides `POST /api/chat` it answers `POST /test/reconcile` (one reconciler run) and
 * `GET /test/state?payer=` (the journal's history and the ledger's daily sums), for the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { reconcilePendingPayments } from "../../../lib/agent/purchase/reconcile-pending";
import { createAppDependencies, startReconcilerFor } from "../../../lib/app/create-app-dependencies";
import { reconcileDependenciesOf } from "../../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../../lib/chat/handle-chat-request";
import { parseEnv } from "../../../lib/env";
import type { PaymentJournal } from "../../../lib/journal/payment-journal";
import { createStore, databaseOptionsFromEnv } from "../../../lib/store/create-store";

const env = parseEnv(process.env);
const crashAt = process.env.CRASH_AT ?? "";
const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};

const store = createStore({ database: databaseOptionsFromEnv(env) });
const journal = store.journal;
const crashingJournal: PaymentJournal = {
  record: async (entry) => {
    await journal.record(entry);
    if (entry.status === crashAt && entry.id.startsWith("pay_")) die();
  },
  get: (id) => journal.get(id),
  events: (id) => journal.events(id),
  unsettled: (limit) => journal.unsettled(limit),
  history: (query) => journal.history(query),
  ofRequest: (requestKey, limit) => journal.ofRequest(requestKey, limit),
  hasPaid: (payer, payTo) => journal.hasPaid(payer, payTo),
};
const deps = createAppDependencies(env, { store: { ...store, journal: crashingJournal } });
// As a long-lived server does: the reconciler runs on its own timer (RECONCILE_INTERVAL_SECONDS).
startReconcilerFor(deps);
const fetchOutbound = deps.fetch;
deps.fetch = async (input, init) => {
  const response = await fetchOutbound(input, init);
  const paid = new Headers(init?.headers).has("payment-signature");
  if (paid && crashAt === "paid-response") die();
  return response;
};

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/test/reconcile") {
    return sendJson(response, await reconcilePendingPayments({ ...reconcileDependenciesOf(deps), log: () => {} }));
  }
  if (url.pathname === "/test/state") {
    const payer = url.searchParams.get("payer") ?? "";
    const [history, spent] = await Promise.all([deps.store.journal.history({ payer, limit: 50 }), deps.store.ledger.spentToday(payer)]);
    return sendJson(response, { history, spent });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === "string") headers.set(name, value);
  const answer = await handleChatRequest(
    new Request(`http://127.0.0.1${url.pathname}`, { method: request.method, headers, body: Buffer.concat(chunks) }),
    () => deps,
  );
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (answer.body) Readable.fromWeb(answer.body as never).pipe(response);
  else response.end();
}

function sendJson(response: ServerResponse, body: unknown): void {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)));
}

const server = createServer((request, response) => {
  handle(request, response).catch((error: unknown) => {
    if (!response.headersSent) response.writeHead(500);
    response.end(String(error));
  });
});
// READY only once the database is open and migrated: five servers creating their embedded
// databases at once on a cold two-core machine take tens of seconds, and that belongs to the
// start, not to the paid turn's deadline (a turn that ran out of time would pay nothing and so
// never reach the step it is told to die at).
await store.journal.history({ payer: "0x0000000000000000000000000000000000000001", limit: 1 });
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`READY ${typeof address === "object" && address ? address.port : 0}\n`);
});
