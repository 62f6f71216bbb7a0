/**
 * The agent's side of "pay once, use again": against a scripted service that checks SIWX
 * proofs with the SDK's own server functions, the agent wallet signs in and is served, or is
 * refused and left to pay; a challenge it must not sign is never signed or sent.
 */
import { parseSIWxHeader, validateSIWxMessage, verifySIWxSignature } from "@x402/extensions/sign-in-with-x";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { SIWX_CHAINS, SIWX_ORIGIN, SIWX_URL, siwxInfo } from "../../../tests/support/siwx-fixtures";
import { createMemoryStore } from "../../store/create-memory-store";
import { StreamWriter, type PaymentEvent } from "../../stream";
import { PaymentTracker } from "./payment-tracker";
import type { PurchaseDependencies, PurchaseRequest } from "./purchase-types";
import { signInInstead } from "./sign-in-instead";

const ORIGIN = SIWX_ORIGIN;
const URL_ = SIWX_URL;
const agent = privateKeyToAccount(generatePrivateKey());
const someoneElse = privateKeyToAccount(generatePrivateKey());

let events: Omit<PaymentEvent, "at">[];
let tracker: PaymentTracker;
let calls: { headers: Record<string, string> }[];

beforeEach(() => {
  events = [];
  calls = [];
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  const record = writer.payment.bind(writer);
  writer.payment = (payment) => {
    events.push(payment);
    record(payment);
  };
  tracker = new PaymentTracker(writer);
});

/** A service that serves a valid sign-in by a wallet in `paid`, and answers `status` otherwise. */
function service(paid: string[], status = 402): PurchaseDependencies["fetch"] {
  return async (_input, init) => {
    const headers = init?.headers as Record<string, string>;
    calls.push({ headers });
    const header = headers["sign-in-with-x"];
    if (!header) return new Response("{}", { status });
    const payload = parseSIWxHeader(header);
    const valid = (await validateSIWxMessage(payload, new URL(ORIGIN))).isValid;
    const signer = await verifySIWxSignature(payload);
    const served = valid && signer.isValid && paid.includes(signer.payer.toLowerCase());
    return served ? Response.json({ id: "doc-1", title: "Harbour Records, 1901" }) : new Response("{}", { status });
  };
}

function dependencies(fetch: PurchaseDependencies["fetch"]): PurchaseDependencies {
  const store = createMemoryStore();
  return {
    network: offlineNetwork,
    fetch,
    chain: undefined as never,
    ledger: store.ledger,
    quoteSecret: "unit-test-quote-secret-0123456789abcdef",
    now: Date.now,
  };
}

function request(payer: PurchaseRequest["payer"] = { kind: "agent", account: agent }): PurchaseRequest {
  return {
    service: "Devnet Archive",
    url: URL_,
    method: "GET",
    intent: "call-1",
    payer,
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 1_000_000n },
    maxPayments: 3,
    tracker,
    deadline: Date.now() + 40_000,
  };
}

function challenge(change: (info: Record<string, unknown>) => void = () => undefined) {
  const info = siwxInfo(Date.now(), 290_000, { resources: [URL_] });
  change(info);
  return { x402Version: 2, accepts: [], extensions: { "sign-in-with-x": { info, supportedChains: SIWX_CHAINS } } };
}

describe("signInInstead", () => {
  it("signs the challenge with the agent wallet and is served: no payment, one stream event, not in d:", async () => {
    const outcome = await signInInstead(dependencies(service([agent.address.toLowerCase()])), request(), challenge());
    expect(outcome).toMatchObject({
      status: "signed-in",
      service: "Devnet Archive",
      resource: URL_,
      payer: agent.address,
      data: { content: { title: "Harbour Records, 1901" } },
    });
    expect(calls).toHaveLength(1);
    expect(parseSIWxHeader(calls[0]!.headers["sign-in-with-x"]!)).toMatchObject({ address: agent.address, domain: "127.0.0.1:4021", chainId: "eip155:31337" });
    expect(events).toEqual([expect.objectContaining({ status: "delivered", access: "sign-in-with-x", resource: URL_, payer: agent.address })]);
    expect(events[0]?.amount).toBeUndefined();
    expect(tracker.summaries).toEqual([]);
    expect(tracker.finishReason()).toBe("stop");
  });

  it("is refused when the service knows no payment by this wallet: undefined, so the agent pays", async () => {
    const outcome = await signInInstead(dependencies(service([someoneElse.address.toLowerCase()])), request(), challenge());
    expect(outcome).toBeUndefined();
    expect(calls).toHaveLength(1);
    expect(events).toEqual([]);
  });

  it("leaves any other answer to the payment path", async () => {
    expect(await signInInstead(dependencies(service([], 500)), request(), challenge())).toBeUndefined();
    const unreachable: PurchaseDependencies["fetch"] = () => Promise.reject(new Error("connection refused"));
    expect(await signInInstead(dependencies(unreachable), request(), challenge())).toBeUndefined();
    expect(events).toEqual([]);
  });

  it("never signs for the user's wallet: the page asks the wallet instead", async () => {
    expect(
      await signInInstead(dependencies(service([agent.address.toLowerCase()])), request({ kind: "user", address: agent.address }), challenge()),
    ).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it("signs nothing for an expired challenge or one for another domain or origin", async () => {
    const deps = dependencies(service([agent.address.toLowerCase()]));
    expect(
      await signInInstead(
        deps,
        request(),
        challenge((info) => void (info.expirationTime = new Date(Date.now() - 1_000).toISOString())),
      ),
    ).toBeUndefined();
    expect(
      await signInInstead(
        deps,
        request(),
        challenge((info) => void (info.domain = "wallet.example")),
      ),
    ).toBeUndefined();
    expect(
      await signInInstead(
        deps,
        request(),
        challenge((info) => void (info.uri = "https://wallet.example/login")),
      ),
    ).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
