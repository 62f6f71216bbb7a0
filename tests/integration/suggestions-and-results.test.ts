/**
 * The first ten minutes against the local world: the empty chat's suggestions come from what
 * discovery lists (one per group, priced, within the default limit), each one, sent as it is,
 * gets the offline demo model to buy something, and every delivered payment carries the data
 * for the page's result card, while the journal keeps the payment only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSequenceViolations } from "../../lib/stream";
import { listingAnswers } from "../../lib/suggestions/probe-listing";
import { createSuggestionsSource } from "../../lib/suggestions/suggestions-source";
import type { Suggestion } from "../../lib/suggestions/build-suggestions";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

let harness: ChatHarness;
let suggestions: Suggestion[];

beforeAll(async () => {
  harness = await startChatHarness();
  // As the route builds it: candidates asked, unpaid, whether their service answers at all.
  const source = createSuggestionsSource({
    now: Date.now,
    discovery: harness.deps.discovery,
    maxAmount: harness.deps.settings.limitSettings.defaults.perPayment,
    answers: (listing) => listingAnswers(harness.deps.fetch, listing),
  });
  suggestions = await source.get();
});

afterAll(async () => {
  await harness?.stop();
});

describe("suggestions from the local world", () => {
  it("never name a listed service whose server is down (the local world lists offline ones on purpose)", async () => {
    const { listings } = await harness.deps.discovery.find();
    for (const suggestion of suggestions) {
      const listing = listings.find((candidate) => candidate.name === suggestion.service)!;
      expect(await listingAnswers(harness.deps.fetch, listing), suggestion.service).toBe(true);
    }
    const offline = harness.devnet.services.filter((service) => service.offline).map((service) => service.url);
    expect(offline.length).toBeGreaterThan(0);
    for (const suggestion of suggestions) expect(offline).not.toContain(listings.find((candidate) => candidate.name === suggestion.service)!.resource);
  });

  it("are four or five, one per service group, with the listed prices, none over the default limit", async () => {
    expect(suggestions.length).toBeGreaterThanOrEqual(4);
    expect(suggestions.length).toBeLessThanOrEqual(5);
    const { listings } = await harness.deps.discovery.find();
    const origins = suggestions.map((suggestion) => {
      const listing = listings.find((candidate) => candidate.name === suggestion.service);
      expect(listing?.price).toBe(suggestion.price);
      expect(listing!.amount).toBeLessThanOrEqual(harness.deps.settings.limitSettings.defaults.perPayment);
      return new URL(listing!.resource).origin;
    });
    expect(new Set(origins).size).toBe(suggestions.length);
    for (const suggestion of suggestions) expect(suggestion.text).toMatch(/^Buy \S.*/);
  });

  it("each, sent as it is, gets the demo model to buy from the suggested service, with a result for the card", async () => {
    for (const suggestion of suggestions) {
      const result = await harness.chat(userMessage(suggestion.text));
      expect(result.response.status).toBe(200);
      expect(findSequenceViolations(result.events)).toEqual([]);
      const delivered = result.payments.find((payment) => payment.status === "delivered");
      expect(result.payments.find((payment) => payment.status === "quoted")?.service, suggestion.text).toBe(suggestion.service);
      expect(result.finish?.finishReason, suggestion.text).toBe("payment-complete");
      expect(delivered?.result?.contentType).toBe("application/json");
      expect(delivered?.result?.data).toEqual(expect.objectContaining({ demo: true }));
      const record = await harness.deps.store.journal.get(delivered!.id);
      expect(record?.status).toBe("delivered");
      expect(Object.keys(record ?? {})).not.toContain("result");
    }
  });
});
