import "server-only";
import { tool } from "ai";
import { z } from "zod";
import type { AgentRun } from "../agent-run";
import { CALL_METHODS } from "../../x402/input-contract";
import { tooManyCalls } from "./too-many-calls";
import { asUntrustedData } from "../purchase/service-data";
import type { PurchaseOutcome } from "../purchase/run-purchase";

export const CALL_PAID_SERVICE_TOOL = "call_paid_service";

/**
 * Calls a paid service and pays for it within the user's limits. The model chooses what to
 * buy; the code decides whether and how much may be paid.
 */
export function createCallPaidServiceTool(run: AgentRun) {
  return tool({
    description:
      "Call a paid x402 HTTP service found with discover_services (or given by the user), paying in USDC within the user's spending limits, and return its data. Call it as the service's usage from discover_services says: query parameters in the URL's query string, path parameters in its path, a JSON body for POST. Payment limits, payee and amount are enforced by the system, not by you.",
    inputSchema: z.object({
      url: z.url({ protocol: /^https?$/ }).max(2048).describe("The service's resource URL with query parameters"),
      method: z.enum(CALL_METHODS).default("GET"),
      body: z.looseObject({}).optional().describe("JSON body, for services whose usage names one"),
    }),
    execute: async ({ url, method, body }, { toolCallId, abortSignal }) => {
      const bodyText = body ? JSON.stringify(body) : undefined;
      if (!run.admitToolCall(`call:${method}:${url}:${bodyText ?? ""}`)) return tooManyCalls();
      const outcome = await run.purchase({ url, method, body: bodyText, intent: toolCallId, signal: abortSignal });
      return describeOutcome(outcome);
    },
  });
}

/** What the model is told about a purchase: data as data, failures as plain facts. */
export function describeOutcome(outcome: PurchaseOutcome | { status: "refused"; message: string }) {
  switch (outcome.status) {
    case "delivered":
      return { status: "paid", service: outcome.service, amountUsdc: outcome.amount, txHash: outcome.txHash, result: asUntrustedData(outcome.data) };
    case "free":
      return { status: "free", service: outcome.service, result: asUntrustedData(outcome.data) };
    case "awaiting-approval":
      return { status: "awaiting-approval", service: outcome.service, amountUsdc: outcome.amount, message: "The user must approve this payment in their wallet." };
    case "pending":
      return { status: "pending", message: outcome.message };
    case "failed":
      return { status: "failed", reason: outcome.reason, message: outcome.message, ...(outcome.txHash ? { txHash: outcome.txHash } : {}) };
    case "refused":
      return { status: "refused", message: outcome.message };
  }
}
