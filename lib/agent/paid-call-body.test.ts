/**
 * The body a model gives call_paid_service reaches the service as the type it is meant to be:
 * the service's declared type unless the model named one, encoded exactly once, with its content
 * type in the quote a user approves. A body that cannot be what the service takes is refused
 * before the service is asked anything.
 */
import { describe, expect, it } from "vitest";
import { FakeChain } from "../../tests/support/fake-chain";
import { fakePaidService, refusedAnswer } from "../../tests/support/fake-paid-service";
import { offlineNetwork, toolCallsModel } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { handleChatRequest } from "../chat/handle-chat-request";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { decodeAll, type PaymentEvent } from "../stream";
import type { ServiceListing } from "../x402/discovery-listing";
import { WITHOUT_MCP_TOOLS } from "../x402/discovery-client";
import type { InputContract } from "../x402/input-contract";

const USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
type Seen = { method: string; contentType: string | null; body: string | undefined; paid: boolean };

/** One chat request whose model makes `calls` (call_paid_service inputs) in its first step. */
async function chatWith(calls: Record<string, unknown>[], contract?: InputContract) {
  const service = fakePaidService(offlineNetwork, { onPayment: () => refusedAnswer() });
  const seen: Seen[] = [];
  const results: unknown[] = [];
  const model = toolCallsModel(calls, results);
  const deps = createAppDependencies(parseEnv({ RATE_LIMIT_REQUESTS: "100" }), {
    network: offlineNetwork,
    store: createMemoryStore(),
    baseModel: { model, modelId: "mock", isDemo: false },
  });
  deps.chain = new FakeChain();
  deps.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? "GET",
      contentType: headers.get("content-type"),
      body: init?.body as string | undefined,
      paid: headers.has("payment-signature"),
    });
    return service.fetch(input, init);
  };
  const listing: ServiceListing | undefined = contract && { name: "Forms", resource: service.url, price: "0.015", amount: 15_000n, tags: [], input: contract };
  deps.discovery = {
    ...WITHOUT_MCP_TOOLS,
    find: async () => ({ listings: listing ? [listing] : [], dropped: {} }),
    lookup: (url) => (listing && url.startsWith(service.url) ? listing : undefined),
  };
  const message = listing ? "Subscribe me" : `Use ${service.url}`;
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: message }], walletAddress: USER }),
    }),
    () => deps,
  );
  const events = decodeAll(await response.text()).flatMap((item) =>
    item.kind === "event" && item.event.type === "payment" ? [item.event.payment] : [],
  ) as PaymentEvent[];
  const approval = events.find((event) => event.status === "awaiting-approval")?.approval;
  return { url: service.url, seen, results, approval };
}

const formContract: InputContract = { method: "POST", query: [], path: [], body: { type: "form-data", fields: [{ name: "email", required: true }] } };

describe("call_paid_service bodies", () => {
  it("sends fields as the form the service declared, and puts that type in the approval", async () => {
    const { seen, approval } = await chatWith([{ url: "https://paid.example/data", method: "POST", body: { email: "a@b.example", count: 2 } }], formContract);
    expect(seen).toEqual([{ method: "POST", contentType: "application/x-www-form-urlencoded", body: "email=a%40b.example&count=2", paid: false }]);
    expect(approval).toMatchObject({ body: "email=a%40b.example&count=2", contentType: "application/x-www-form-urlencoded" });
  });

  it("refuses, before asking the service, a body of another type than declared or one a form cannot hold", async () => {
    const { seen, results } = await chatWith(
      [
        { url: "https://paid.example/data", method: "POST", body: { email: "a@b.example" }, bodyType: "json" },
        { url: "https://paid.example/data", method: "POST", body: { email: { first: "a" } } },
        { url: "https://paid.example/data", method: "POST", body: { note: "no email" } },
      ],
      formContract,
    );
    expect(seen).toEqual([]);
    expect(results).toEqual([
      { status: "refused", message: expect.stringContaining("the service takes a form (form-data) body, not a JSON body") },
      { status: "refused", message: expect.stringContaining('form field "email" is an object') },
      { status: "refused", message: expect.stringContaining('missing form field "email"') },
    ]);
  });

  it("refuses, before asking the service, a field value outside the set the service declared (its `enum`), naming the set", async () => {
    const withSet: InputContract = {
      method: "POST",
      query: [],
      path: [],
      body: { type: "json", fields: [{ name: "dataset", required: true, choices: ["sales", "traffic"] }] },
    };
    const refused = await chatWith([{ url: "https://paid.example/data", method: "POST", body: { dataset: "stations" } }], withSet);
    expect(refused.seen).toEqual([]);
    expect(refused.results).toEqual([{ status: "refused", message: expect.stringContaining('"dataset" must be one of: sales, traffic (not "stations")') }]);
    const asked = await chatWith([{ url: "https://paid.example/data", method: "POST", body: { dataset: "traffic" } }], withSet);
    expect(asked.seen).toEqual([{ method: "POST", contentType: "application/json", body: '{"dataset":"traffic"}', paid: false }]);
  });

  it("without a declaration, sends a string as text and an object as JSON; the type is part of the intent", async () => {
    const url = "https://paid.example/data";
    const { seen, approval } = await chatWith([{ url, method: "POST", body: "Summarize: the sky is blue." }]);
    expect(seen).toEqual([{ method: "POST", contentType: "text/plain; charset=utf-8", body: "Summarize: the sky is blue.", paid: false }]);
    expect(approval).toMatchObject({ body: "Summarize: the sky is blue.", contentType: "text/plain; charset=utf-8" });

    // The same text as JSON and as text is two requests; the same call twice is one.
    const twice = await chatWith([
      { url, method: "POST", body: '{"q":"1"}', bodyType: "json" },
      { url, method: "POST", body: '{"q":"1"}', bodyType: "json" },
      { url, method: "POST", body: '{"q":"1"}' },
    ]);
    expect(twice.seen.map((request) => [request.contentType, request.body]).sort()).toEqual([
      ["application/json", '{"q":"1"}'],
      ["text/plain; charset=utf-8", '{"q":"1"}'],
    ]);
  });
});
