/**
 * A body naming a wallet proves nothing; only a signature of the request does. A run whose
 * wallet is unproven streams its quote to the caller but writes nothing to the journal, which is
 * what that wallet's owner reads as their history; a proven one journals as always.
 */
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { FakeChain } from "../../tests/support/fake-chain";
import { fakePaidService, MERCHANT } from "../../tests/support/fake-paid-service";
import { offlineNetwork, textModel } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { StreamWriter, type PaymentEvent } from "../stream";
import { AgentRun } from "./agent-run";
import { walletProven } from "./wallet-proof";

const WALLET = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address;

describe("walletProven", () => {
  it("a request naming no wallet claims nothing to prove", () => {
    expect(walletProven({ walletAddress: undefined })).toBe(true);
  });

  it("a wallet named in the body alone is not proven", () => {
    expect(walletProven({ walletAddress: WALLET })).toBe(false);
  });

  it("a verified payment signature or sign-in of the request proves it", () => {
    expect(walletProven({ walletAddress: WALLET, approved: {} })).toBe(true);
    expect(walletProven({ walletAddress: WALLET, signedIn: {} })).toBe(true);
  });
});

describe("an agent run's journal, for a wallet named in the body", () => {
  async function quoteFor(proven: boolean) {
    const store = createMemoryStore();
    const deps = createAppDependencies(parseEnv({}), {
      network: offlineNetwork,
      store,
      baseModel: { model: textModel("ok"), modelId: "mock", isDemo: false },
    });
    const service = fakePaidService(offlineNetwork, { amount: 5_000_000n, onPayment: () => new Response(null, { status: 500 }) });
    deps.fetch = service.fetch;
    deps.chain = new FakeChain();
    const sent: PaymentEvent[] = [];
    const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
    const write = writer.payment.bind(writer);
    writer.payment = (payment) => {
      sent.push(payment as PaymentEvent);
      write(payment);
    };
    const run = new AgentRun(deps, {
      messages: [{ role: "user", content: `Get ${service.url}` }],
      walletAddress: WALLET,
      limits: { perPayment: 10_000_000n, perRequest: 10_000_000n, daily: 10_000_000n },
      writer,
      deadline: Date.now() + 40_000,
      requestKey: "key:test",
      walletProven: proven,
    });
    const outcome = await run.purchase({ url: service.url, method: "GET", intent: "call-1" });
    expect(await run.tracker.recorded()).toBe(true);
    expect(service.received).toEqual([]);
    return { outcome, sent, store };
  }

  it("unproven: the caller sees the quote, the journal gets no row", async () => {
    const { outcome, sent, store } = await quoteFor(false);
    expect(outcome).toMatchObject({ status: "awaiting-approval", amount: "5" });
    expect(sent.map((event) => event.status)).toEqual(["quoted", "awaiting-approval"]);
    expect(sent.at(-1)).toMatchObject({ payer: WALLET, payTo: MERCHANT });
    const id = (outcome as { paymentId: string }).paymentId;
    expect(await store.journal.get(id)).toBeUndefined();
    expect(await store.journal.history({ payer: WALLET, limit: 10 })).toEqual([]);
  });

  it("proven: the same quote is journaled under the wallet", async () => {
    const { outcome, store } = await quoteFor(true);
    const id = (outcome as { paymentId: string }).paymentId;
    expect(await store.journal.get(id)).toMatchObject({ status: "awaiting-approval", payer: WALLET, payerKind: "user", amount: 5_000_000n });
    expect((await store.journal.history({ payer: WALLET, limit: 10 })).map((payment) => payment.id)).toEqual([id]);
  });
});
