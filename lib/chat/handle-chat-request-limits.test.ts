import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { hello, problem, setup, signedApproval, tricklingBody } from "../../tests/support/chat-handler";

describe("POST /api/chat: rate limits come first and count only what is proven", () => {
  const victim = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
  const proxied = { TRUST_PROXY_HEADERS: "true", RATE_LIMIT_REQUESTS: "2", RATE_LIMIT_WINDOW_SECONDS: "50" };

  it("does not count a wallet's bucket for requests that merely name the wallet", async () => {
    const { send } = setup({ env: proxied });
    // Three callers at three addresses name the same wallet without a signature: none of them
    // may use up that wallet's bucket (limit 2).
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const response = await send({ ...hello, walletAddress: victim.address }, { "x-forwarded-for": address });
      expect(response.status).toBe(200);
      await response.text();
    }
  });

  it("counts a wallet's bucket once its PAYMENT-SIGNATURE is verified", async () => {
    const { send } = setup({ env: proxied });
    const header = await signedApproval(victim);
    const statuses: number[] = [];
    for (const address of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      const response = await send({ ...hello, walletAddress: victim.address }, { "x-forwarded-for": address, "PAYMENT-SIGNATURE": header });
      statuses.push(response.status);
      await response.text();
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it("refuses a client over its limit before reading, parsing or scanning the body", async () => {
    const { send } = setup({ env: { RATE_LIMIT_REQUESTS: "1" } });
    expect((await send(hello)).status).toBe(200);
    // Malformed JSON and a pasted key would be 400 and 403 if the body were looked at.
    expect((await send("{")).status).toBe(429);
    expect((await send({ messages: [{ role: "user", content: `my key is ${"ab12".repeat(16)}` }] })).status).toBe(429);
    let read = false;
    const untouched = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          read = true;
          controller.enqueue(new TextEncoder().encode(JSON.stringify(hello)));
          controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const response = await send(untouched);
    expect(response.status).toBe(429);
    expect(read).toBe(false);
  });

  it("answers 408 to a body that trickles in for longer than BODY_READ_TIMEOUT_MS, without calling the model", async () => {
    const { send, model } = setup({ env: { BODY_READ_TIMEOUT_MS: "200" } });
    // Thirty 20 ms pauses: at least 600 ms in all, three times the limit.
    const response = await send(tricklingBody(30, 20));
    expect(response.status).toBe(408);
    expect((await problem(response)).code).toBe("request_timeout");
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("still reads a body that arrives within BODY_READ_TIMEOUT_MS in several chunks", async () => {
    const { send } = setup({ env: { BODY_READ_TIMEOUT_MS: "10000" } });
    const response = await send(tricklingBody(3, 1));
    expect(response.status).toBe(200);
    await response.text();
  });
});
