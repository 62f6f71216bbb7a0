/**
 * An MCP client that goes away while `buy` waits on a slow paid service: the server stops the
 * call, so the service never settles and nothing is charged. The Request the route was given is
 * garbage collected before the client leaves, as a loaded process may do at any moment; the
 * route must still hear it leave.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { paymentIdentifierActivity } from "../../devnet/services/payment-identifier-cache";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { collectGarbage } from "../support/collect-garbage";

const SERVICE = "slow-analysis";

describe("an MCP caller that leaves mid-purchase", () => {
  let harness: ChatHarness;

  beforeAll(async () => {
    harness = await startChatHarness({ devnet: { slowDelayMs: 4_000 }, env: { AGENT_AUTHORIZATION_TTL_SECONDS: "10" } });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("is not charged: the server stops the call and the service never settles", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const callerGoneBefore = harness.devnet.paidRequests.count("caller-gone");
    const service = harness.devnet.services.find((entry) => entry.name === SERVICE);
    if (!service) throw new Error(`no ${SERVICE} service`);

    const caller = new AbortController();
    const response = await handleMcpRequest(
      new Request("http://127.0.0.1:3000/api/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "buy", arguments: { url: `${service.url}?topic=ethereum`, idempotencyKey: "mcp-gone-1" } },
        }),
        signal: caller.signal,
      }),
      () => harness.deps,
    );
    expect(response.status).toBe(200);

    // The service holds the signed payment (it saw its identifier) and is still working on it.
    await expect.poll(() => paymentIdentifierActivity(harness.devnet.faults, SERVICE).seen.length, { timeout: 15_000, interval: 20 }).toBe(1);
    await collectGarbage();
    caller.abort();

    await expect.poll(() => harness.devnet.paidRequests.count("caller-gone"), { timeout: 10_000, interval: 20 }).toBe(callerGoneBefore + 1);
    expect(paymentIdentifierActivity(harness.devnet.faults, SERVICE).settlements).toBe(0);
    expect(await harness.usdcBalance(agent)).toBe(before);
    await response.body?.cancel();
  }, 60_000);
});
