/**
 * A URL whose path still holds a route template's placeholder (`/crypto/:symbol`,
 * `/crypto/{symbol}`) is never called, whether or not its listing declares how to call it: the
 * service would be asked (and paid) for the template itself. The refusal names the parameter.
 */
import { describe, expect, it } from "vitest";
import { FakeChain } from "../../tests/support/fake-chain";
import { offlineNetwork, toolCallsModel } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { handleChatRequest } from "../chat/handle-chat-request";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import type { ServiceListing } from "../x402/discovery-listing";
import { WITHOUT_MCP_TOOLS } from "../x402/discovery-client";
import type { InputContract } from "../x402/input-contract";

const USER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const TEMPLATE = "https://crypto.example/crypto/:symbol";

/** One chat request whose model calls each URL in `urls` (GET) in its first step. */
async function callAll(urls: string[], input?: InputContract) {
  const asked: string[] = [];
  const results: unknown[] = [];
  const model = toolCallsModel(
    urls.map((url) => ({ url, method: "GET" })),
    results,
  );
  const deps = createAppDependencies(parseEnv({ RATE_LIMIT_REQUESTS: "100" }), {
    network: offlineNetwork,
    store: createMemoryStore(),
    baseModel: { model, modelId: "mock", isDemo: false },
  });
  deps.chain = new FakeChain();
  deps.fetch = async (url) => {
    asked.push(String(url));
    return new Response("{}", { status: 500 });
  };
  const listing: ServiceListing = { name: "Crypto prices", resource: TEMPLATE, price: "0.03", amount: 30_000n, tags: [], ...(input ? { input } : {}) };
  deps.discovery = {
    ...WITHOUT_MCP_TOOLS,
    find: async () => ({ listings: [listing], dropped: {} }),
    lookup: (url) => (url.startsWith("https://crypto.example/") ? listing : undefined),
  };
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "Price of BTC?" }], walletAddress: USER }),
    }),
    () => deps,
  );
  await response.text();
  return { asked, results };
}

const declared: InputContract = { method: "GET", query: [], path: [{ name: "symbol", required: true }], routeTemplate: "/crypto/:symbol" };

describe("a URL with an unfilled path parameter", () => {
  it.each([
    ["without a declaration", undefined],
    ["with a declaration", declared],
  ])("is refused before any request, naming the parameter, %s", async (_, input) => {
    const { asked, results } = await callAll([TEMPLATE, "https://crypto.example/crypto/{symbol}"], input);
    expect(asked).toEqual([]);
    expect(results).toEqual([
      { status: "refused", message: expect.stringContaining("path parameter not filled in: :symbol") },
      { status: "refused", message: expect.stringContaining("path parameter not filled in: {symbol}") },
    ]);
  });

  it("is called once filled in", async () => {
    const { asked } = await callAll(["https://crypto.example/crypto/BTC"]);
    expect(asked).toEqual(["https://crypto.example/crypto/BTC"]);
  });
});
