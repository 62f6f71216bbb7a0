/**
 * A wallet's history shows only what that wallet did. Anyone can send `POST /api/chat` naming a
 * stranger's `walletAddress` (no signature) and a hostile URL; before, that left a row such as
 * "failed, 5 USDC, payTo 0x…dEaD" in the journal, which the wallet's owner then saw on
 * `/payments`. A request whose wallet no signature proved now journals nothing (it can only
 * quote: nothing is signed, reserved or paid), and the signed second request of a real approval
 * journals that payment from its own first step on. Read here as the owner reads it: `GET
 * /api/payments` with the owner's session cookie, over the embedded database.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { createSessionToken, SESSION_COOKIE } from "../../lib/auth/session-cookie";
import { sessionSecretOf } from "../../lib/auth/session-secret";
import { handlePaymentsRequest } from "../../lib/payments/handle-payments-request";
import type { PaymentView } from "../../lib/payments/payment-view";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import type { ApprovalRequest } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { startChatHarness, type ChatHarness, type ChatResult } from "../support/chat-harness";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server";
import { callUserNamedUrl } from "../support/scripted-replies";
import { exactUsdcOption, startHostileService, usdcUnits, hostileWorldOf, type HostileService } from "../support/hostile-service";

const DEAD = "0x000000000000000000000000000000000000dEaD";
const fairPayee = privateKeyToAccount(generatePrivateKey()).address;

let harness: ChatHarness;
let hostile: HostileService;
let fake: FakeOpenAiServer;
let victim: `0x${string}`;

beforeAll(async () => {
  hostile = await startHostileService({
    "/premium": { accepts: (world) => [exactUsdcOption(world, { amount: usdcUnits("5"), payTo: DEAD })], pitch: "Premium, 5 USDC." },
    "/fair": { accepts: (world) => [exactUsdcOption(world, { amount: usdcUnits("0.01"), payTo: fairPayee })], answer: () => ({ data: "fair data" }) },
  });
  fake = await startFakeOpenAiServer((request) => callUserNamedUrl(request.messages));
  harness = await startChatHarness({
    store: createDatabaseStore(lazyDatabase({ kind: "pglite" })),
    baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
    env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${hostile.port}` },
  });
  hostile.configure(hostileWorldOf(harness.devnet, harness.deps.network));
  victim = harness.devnet.accounts.user.address as `0x${string}`;
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await Promise.all([hostile?.close(), fake?.stop()]);
});

/** `GET /api/payments` as the wallet's owner: with the session cookie of a sign-in by it. */
async function ownHistory(): Promise<PaymentView[]> {
  const now = Date.now();
  const token = createSessionToken(
    { address: victim, chainId: harness.deps.network.chainId, issuedAt: now - 1_000, expiresAt: now + 60_000 },
    sessionSecretOf(harness.env),
  );
  const response = await handlePaymentsRequest(
    new Request("http://127.0.0.1/api/payments?limit=100", { headers: { cookie: `${SESSION_COOKIE}=${token}` } }),
    () => harness.deps,
  );
  expect(response.status).toBe(200);
  const body = (await response.json()) as { payer: string; payments: PaymentView[] };
  expect(body.payer).toBe(victim);
  return body.payments;
}

const idsOf = (result: ChatResult) => [...new Set(result.payments.map((payment) => payment.id))];
const ask = (path: string) => ({ messages: [{ role: "user", content: `Get ${hostile.url(path)}` }] });

describe("a wallet named in the body without a signature", () => {
  it("leaves nothing in that wallet's history, whatever the stranger's request did", async () => {
    const before = await ownHistory();
    const balance = await harness.usdcBalance(victim);
    // Within the default limits the 5 USDC quote fails; with raised limits it waits for the
    // wallet's signature. Both were rows in the owner's history before.
    const failed = await harness.chat({ ...ask("/premium"), walletAddress: victim });
    const waiting = await harness.chat({ ...ask("/premium"), walletAddress: victim, spendingLimits: { perPayment: "10", perRequest: "10" } });
    expect(failed.payments.map((payment) => payment.status)).toEqual(["quoted", "failed"]);
    expect(failed.payments.at(-1)).toMatchObject({ reason: "limit-exceeded" });
    expect(failed.payments[0]).toMatchObject({ amount: "5", payTo: DEAD, payer: victim });
    expect(waiting.payments.map((payment) => payment.status)).toEqual(["quoted", "awaiting-approval"]);

    const history = await ownHistory();
    expect(history).toEqual(before);
    expect(history.some((payment) => payment.payTo?.toLowerCase() === DEAD.toLowerCase())).toBe(false);
    for (const id of [...idsOf(failed), ...idsOf(waiting)]) expect(await harness.deps.store.journal.get(id), id).toBeUndefined();
    // Nothing was paid or offered a payment either.
    expect(hostile.offers).toEqual([]);
    expect(await harness.usdcBalance(victim)).toBe(balance);
  });

  it("the owner's real approval, proven by the signature of request 2, is in the history with its payment", async () => {
    const body = { ...ask("/fair"), walletAddress: victim };
    const first = await harness.chat(body);
    const quote = first.payments.find((payment) => payment.status === "awaiting-approval");
    const approval = quote?.approval as ApprovalRequest | undefined;
    expect(approval).toBeDefined();
    // Request 1 proved nothing yet: no row.
    expect(await harness.deps.store.journal.get(quote!.id)).toBeUndefined();

    const signature = await privateKeyToAccount(harness.devnet.accounts.user.privateKey as `0x${string}`).signTypedData(walletTypedDataOf(approval!));
    const header = encodePaymentSignatureHeader(approval!, signature);
    const second = await harness.chat(body, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(second.finish?.finishReason).toBe("payment-complete");
    const txHash = second.finish?.txHash;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const row = (await ownHistory()).find((payment) => payment.id === quote!.id);
    expect(row).toMatchObject({ status: "delivered", amount: "0.01", payTo: fairPayee, txHash, resource: hostile.url("/fair"), method: "GET" });
    // The row starts at request 2's own quote: the upsert needs no earlier row.
    const events = await harness.deps.store.journal.events(quote!.id);
    expect(events.map((event) => event.status)).toEqual(["quoted", "verifying", "confirmed", "delivered"]);

    // The same signature again is a retry: its stream shows the recorded outcome, and the
    // journal row stays exactly as the payment left it.
    const replay = await harness.chat(body, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(replay.payments).toEqual([expect.objectContaining({ id: quote!.id, status: "delivered", message: expect.stringMatching(/not a new payment/) })]);
    expect((await ownHistory()).find((payment) => payment.id === quote!.id)).toEqual(row);
    expect(await harness.deps.store.journal.events(quote!.id)).toEqual(events);
  });
});
