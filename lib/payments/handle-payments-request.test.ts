/**
 * `GET /api/payments` against a memory store: who may see what (401, 403, own wallet, operator),
 * the server's daily numbers, paging, filters and the CSV form of the same rows.
 */
import { privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import { parseCsv } from "../../tests/support/parse-csv";
import { createSessionToken, SESSION_COOKIE } from "../auth/session-cookie";
import { sessionSecretOf } from "../auth/session-secret";
import { parseEnv } from "../env";
import type { JournalEntry } from "../journal/payment-journal";
import { createMemoryStore } from "../store/create-memory-store";
import type { Store } from "../store/store-types";
import { handlePaymentsRequest, type PaymentsDependencies } from "./handle-payments-request";
import { PAYMENT_VIEW_FIELDS, type PaymentView } from "./payment-view";
import { PAYMENT_CSV_FIELDS, paymentCsvRow } from "./payments-csv";

const NOW = Date.UTC(2026, 0, 31, 12);
const USER = "0x52908400098527886E0F7030069857D2E4169EE7";
const OTHER = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const agent = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const ADMIN_TOKEN = "operator-token-0123456789abcdef0123456789";
const TX = `0x${"ab".repeat(32)}`;

type Body = { payer: string; payments: PaymentView[]; nextCursor: string | null; daily: { spent: string; reserved: string; limit: string } };

let store: Store;

function dependencies(env: Record<string, string> = { ADMIN_TOKEN }): PaymentsDependencies {
  return {
    env: parseEnv(env),
    network: { ...offlineNetwork, explorerUrl: "https://sepolia.basescan.org" },
    store,
    agentAccount: agent,
    settings: { limitSettings: { defaults: { daily: 10_000_000n } } },
    now: () => NOW,
    storeClock: () => NOW,
  };
}

function sessionCookieFor(address: string, chainId = 31337): string {
  const token = createSessionToken(
    { address: address as `0x${string}`, chainId, issuedAt: NOW - 1000, expiresAt: NOW + 60_000 },
    sessionSecretOf(parseEnv({})),
  );
  return `${SESSION_COOKIE}=${token}`;
}

function get(query = "", headers: Record<string, string> = {}, deps = dependencies()): Promise<Response> {
  return handlePaymentsRequest(new Request(`http://127.0.0.1:3000/api/payments${query}`, { headers }), () => deps);
}

async function record(entry: Partial<JournalEntry> & Pick<JournalEntry, "id" | "at">): Promise<void> {
  await store.journal.record({
    status: "delivered",
    payer: USER,
    payerKind: "user",
    service: "Weather Now",
    resource: "http://127.0.0.1:4021/weather?city=Lisbon",
    method: "GET",
    amount: 10_000n,
    asset: offlineNetwork.usdc,
    network: "eip155:31337",
    payTo: OTHER,
    txHash: TX,
    ...entry,
  });
}

beforeEach(async () => {
  store = createMemoryStore();
  await record({ id: "pay_1", at: NOW - 3000 });
  await record({ id: "pay_2", at: NOW - 2000, service: "News Today", amount: 50_000n });
  await record({ id: "pay_3", at: NOW - 1000, status: "failed", reason: "payment-failed", message: "The service failed.", txHash: undefined });
  await record({ id: "pay_other", at: NOW - 500, payer: OTHER });
  await record({ id: "pay_agent", at: NOW - 400, payer: agent.address, payerKind: "agent" });
  // The ledger counts what the server counts: 0.06 settled, 0.02 reserved.
  await store.ledger.reserve({ payer: USER, reservationId: "r1", amount: 60_000n, dailyLimit: 10_000_000n, now: NOW - 3000 });
  await store.ledger.commit("r1", { txHash: TX, now: NOW - 3000 });
  await store.ledger.reserve({ payer: USER, reservationId: "r2", amount: 20_000n, dailyLimit: 10_000_000n, now: NOW - 1000 });
});

describe("GET /api/payments: access", () => {
  it("refuses a request with no session and no token: 401 problem with WWW-Authenticate", async () => {
    const response = await get(`?payer=${USER}`);
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("www-authenticate")).toMatch(/SIWE realm="payments", Bearer realm="operator"/);
  });

  it("refuses a forged, expired or other-chain session with 401", async () => {
    expect((await get("", { cookie: `${SESSION_COOKIE}=e30.forged` })).status).toBe(401);
    const expired = createSessionToken({ address: USER, chainId: 31337, issuedAt: NOW - 90_000, expiresAt: NOW - 1 }, sessionSecretOf(parseEnv({})));
    expect((await get("", { cookie: `${SESSION_COOKIE}=${expired}` })).status).toBe(401);
    expect((await get("", { cookie: sessionCookieFor(USER, 8453) })).status).toBe(401);
  });

  it("refuses a signed-in wallet asking for another wallet's history: 403 problem", async () => {
    for (const payer of [OTHER, agent.address]) {
      const response = await get(`?payer=${payer}`, { cookie: sessionCookieFor(USER) });
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "forbidden:not_your_wallet", status: 403 });
    }
  });

  it("shows a signed-in wallet its own history (by default, and when named in any case) with the server's daily numbers", async () => {
    for (const query of ["", `?payer=${USER}`, `?payer=${USER.toLowerCase()}`]) {
      const response = await get(query, { cookie: sessionCookieFor(USER) });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Body;
      expect(body.payer).toBe(USER);
      expect(body.payments.map((payment) => payment.id)).toEqual(["pay_3", "pay_2", "pay_1"]);
      expect(body.daily).toEqual({ spent: "0.06", reserved: "0.02", limit: "10" });
      expect(body.nextCursor).toBeNull();
    }
  });

  it("gives each payment in decimal USDC, ISO times and its explorer link", async () => {
    const body = (await (await get("", { cookie: sessionCookieFor(USER) })).json()) as Body;
    expect(body.payments[1]).toEqual({
      id: "pay_2",
      status: "delivered",
      service: "News Today",
      resource: "http://127.0.0.1:4021/weather?city=Lisbon",
      method: "GET",
      amount: "0.05",
      ceiling: null,
      settlementFlag: null,
      asset: offlineNetwork.usdc,
      network: "eip155:31337",
      payTo: OTHER,
      txHash: TX,
      explorerUrl: `https://sepolia.basescan.org/tx/${TX}`,
      reason: null,
      message: null,
      createdAt: new Date(NOW - 2000).toISOString(),
      updatedAt: new Date(NOW - 2000).toISOString(),
      receipt: null,
    });
    expect(body.payments[0]).toMatchObject({ status: "failed", reason: "payment-failed", txHash: null, explorerUrl: null });
  });

  it("lets the operator's token read the agent wallet by default, and any wallet by name", async () => {
    const agentBody = (await (await get("", { authorization: `Bearer ${ADMIN_TOKEN}` })).json()) as Body;
    expect(agentBody.payer).toBe(agent.address);
    expect(agentBody.payments.map((payment) => payment.id)).toEqual(["pay_agent"]);
    const other = (await (await get(`?payer=${OTHER}`, { authorization: `Bearer ${ADMIN_TOKEN}` })).json()) as Body;
    expect(other.payments.map((payment) => payment.id)).toEqual(["pay_other"]);
  });

  it("refuses a wrong operator token, and any token when ADMIN_TOKEN is unset, even beside a valid session", async () => {
    const wrong = await get("", { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x`, cookie: sessionCookieFor(USER) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toMatch(/Bearer/);
    expect((await get("", { authorization: `Bearer ${ADMIN_TOKEN}` }, dependencies({}))).status).toBe(401);
    expect((await get("", { authorization: ADMIN_TOKEN })).status).toBe(401);
  });
});

describe("GET /api/payments: paging, filters, CSV", () => {
  it("pages newest first with the createdAt of the last item as the cursor", async () => {
    const first = await get("?limit=2", { cookie: sessionCookieFor(USER) });
    const page1 = (await first.json()) as Body;
    expect(page1.payments.map((payment) => payment.id)).toEqual(["pay_3", "pay_2"]);
    expect(page1.nextCursor).toBe(new Date(NOW - 2000).toISOString());
    expect(first.headers.get("link")).toBe(`</api/payments?limit=2&before=${encodeURIComponent(page1.nextCursor ?? "")}>; rel="next"`);
    const page2 = (await (await get(`?limit=2&before=${encodeURIComponent(page1.nextCursor ?? "")}`, { cookie: sessionCookieFor(USER) })).json()) as Body;
    expect(page2.payments.map((payment) => payment.id)).toEqual(["pay_1"]);
    expect(page2.nextCursor).toBeNull();
    // Epoch milliseconds work as a cursor too.
    const byEpoch = (await (await get(`?before=${NOW - 2000}`, { cookie: sessionCookieFor(USER) })).json()) as Body;
    expect(byEpoch.payments.map((payment) => payment.id)).toEqual(["pay_1"]);
  });

  it("filters by status and by service", async () => {
    const failed = (await (await get("?status=failed", { cookie: sessionCookieFor(USER) })).json()) as Body;
    expect(failed.payments.map((payment) => payment.id)).toEqual(["pay_3"]);
    const news = (await (await get("?service=News%20Today", { cookie: sessionCookieFor(USER) })).json()) as Body;
    expect(news.payments.map((payment) => payment.id)).toEqual(["pay_2"]);
  });

  it.each(["?limit=0", "?limit=201", "?status=lost", "?before=yesterday", "?payer=0x123", "?payer=0x52908400098527886e0F7030069857D2E4169EE7", "?format=xml"])(
    "refuses %s with a 400 problem naming the parameter",
    async (query) => {
      const response = await get(query, { cookie: sessionCookieFor(USER) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { errors: unknown[] }).errors).toHaveLength(1);
    },
  );

  it("gives the same rows as CSV, as an attachment, with ?format=csv or Accept: text/csv", async () => {
    const json = (await (await get("", { cookie: sessionCookieFor(USER) })).json()) as Body;
    for (const [query, headers] of [
      ["?format=csv", {}],
      ["", { accept: "text/csv" }],
    ] as const) {
      const response = await get(query, { cookie: sessionCookieFor(USER), ...headers });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/csv; charset=utf-8/);
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="payments-${USER.toLowerCase()}-2026-01-31.csv"`);
      const [header, ...rows] = parseCsv(await response.text());
      expect(header).toEqual([...PAYMENT_CSV_FIELDS]);
      expect(rows).toEqual(json.payments.map((payment) => paymentCsvRow(payment).map((cell) => cell ?? "")));
    }
  });

  it("guards CSV cells a stranger wrote against formula injection", async () => {
    await record({ id: "pay_4", at: NOW - 100, service: '=HYPERLINK("http://evil.example","Click")' });
    const [, first] = parseCsv(await (await get("?format=csv", { cookie: sessionCookieFor(USER) })).text());
    expect(first?.[PAYMENT_VIEW_FIELDS.indexOf("service")]).toBe('\'=HYPERLINK("http://evil.example","Click")');
  });

  it("refuses CSV without a session too", async () => {
    expect((await get(`?format=csv&payer=${USER}`)).status).toBe(401);
  });
});
