/**
 * The `delivered` event carries the service's answer for the page's result card, bounded; the
 * model's outcome keeps the data as before, and the journal never stores it.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { agentRequest, chain, dependencies, events, resetPurchaseHarness, SETTLED, store } from "../../../tests/support/purchase-harness";
import { fakePaidService, paidAnswer } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { MAX_RESULT_DEPTH } from "../../stream/delivered-result";
import { runPurchase } from "./run-purchase";

beforeEach(resetPurchaseHarness);

const answer = { demo: true, note: "made up", city: "Lisbon", forecast: [{ day: "day 1", highCelsius: 24 }] };

function deliveredEvent() {
  return events.find((event) => event.payment.status === "delivered")?.payment;
}

describe("the delivered event's result", () => {
  it("is the data the agent read, with what was asked; the journal keeps the payment, not the data", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce, SETTLED), answer) });
    const request = agentRequest(service);
    const outcome = await runPurchase(dependencies(service), request);
    expect(outcome).toMatchObject({ status: "delivered", data: { content: answer } });
    expect(deliveredEvent()?.result).toEqual({ contentType: "application/json", data: answer, truncated: false, request: { method: "GET" } });
    const paymentId = deliveredEvent()?.id ?? "";
    const record = await store.journal.get(paymentId);
    expect(record?.status).toBe("delivered");
    const text = (value: unknown) => JSON.stringify(value, (_key, field: unknown) => (typeof field === "bigint" ? field.toString() : field));
    expect(text(record)).not.toContain("Lisbon");
    expect(text(await store.journal.events(paymentId))).not.toContain("Lisbon");
  });

  it("is left out when the answer is nested deeper than the bound; the model still gets the data", async () => {
    let deep: unknown = "leaf";
    for (let level = 0; level <= MAX_RESULT_DEPTH; level += 1) deep = { inner: deep };
    const service = fakePaidService(offlineNetwork, { onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce, SETTLED), deep) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "delivered", data: { content: deep } });
    expect(deliveredEvent()).toBeDefined();
    expect(deliveredEvent()?.result).toBeUndefined();
  });
});
