import "server-only";
/**
 * The state of one chat request's agent: who pays, the limits, the deadline, the payments
 * made so far. Tools act through it, so every purchase passes the same checks.
 */
import { createHash } from "node:crypto";
import type { AgentConfirmation, ApprovalRequest } from "../stream";
import { describeInputContract } from "../x402/call-usage";
import { declaredCallProblem, NO_PAYER, payerOf, refused, UNKNOWN_ORIGIN_UNDER_GRANT, unlistedCallProblem } from "./call-checks";
import type { DiscoveryClient } from "../x402/discovery-client";
import type { ServiceListing } from "../x402/discovery-listing";
import { chooseBodyType, encodeRequestBody } from "../x402/request-body";
import { purchaseDependenciesOf, type AgentDependencies } from "./agent-dependencies";
import { callerNamed } from "./named-urls";
import { askGoAhead } from "./ask-go-ahead";
import type { PaymentTracker } from "./purchase/payment-tracker";
import { runTracker } from "./run-tracker";
import { purchaseOnce } from "./purchase/purchase-once";
import { paymentIdentifierFor } from "../x402/payment-identifier";
import { MIN_PAYMENT_WINDOW_SECONDS, runPurchase, type Payer, type PurchaseDependencies, type PurchaseOutcome } from "./purchase/run-purchase";
import { mcpCallBody, mcpResourceOf, runMcpPurchase } from "./purchase/mcp-purchase";
import { MAX_TOOL_CALLS_PER_STEP, type AgentRunInput, type EncodedCall, type McpToolCall, type PurchaseCall } from "./agent-run-types";

export class AgentRun {
  readonly tracker: PaymentTracker;
  pendingApproval: { id: string; approval: ApprovalRequest } | undefined;
  /** A payment the agent wallet would make once the person says so (a URL of unknown origin). */
  pendingConfirmation: { id: string; confirmation: AgentConfirmation } | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly toolCallsThisStep = new Set<string>();
  /** Purchases of this request by intent, so a repeated tool call reuses the first one. */
  private readonly byIntent = new Map<string, Promise<PurchaseOutcome | { status: "refused"; message: string }>>();
  /** The purchase's dependencies, built once for the run. */
  private readonly purchaseDeps: PurchaseDependencies;

  constructor(
    readonly deps: AgentDependencies,
    readonly input: AgentRunInput,
  ) {
    // A wallet named but not proven gets no rows in that wallet's journal: its quotes move no
    // money, and the signed request of a real approval journals the payment (wallet-proof.ts).
    const journaled = input.walletAddress === undefined || input.walletProven;
    this.purchaseDeps = purchaseDependenciesOf(deps);
    this.tracker = runTracker(deps, input, journaled);
  }

  /** Called before each model step. */
  beginStep(): void {
    this.toolCallsThisStep.clear();
  }

  /**
   * Takes a slot for one tool call of the current step (`call` names the tool and its input);
   * false once the step's bound is reached.
   */
  admitToolCall(call: string): boolean {
    if (this.toolCallsThisStep.has(call)) return true;
    if (this.toolCallsThisStep.size >= MAX_TOOL_CALLS_PER_STEP) return false;
    this.toolCallsThisStep.add(call);
    return true;
  }

  get discovery(): DiscoveryClient {
    return this.deps.discovery;
  }

  /**
   * Buys from a service for a tool call, at most once per intent: the same call again in this
   * request, or in a retry of this request, gets the first outcome instead of a new payment.
   */
  purchase(call: PurchaseCall): Promise<PurchaseOutcome | { status: "refused"; message: string }> {
    const listing = this.deps.discovery.lookup(call.url);
    // An MCP server's endpoint takes MCP messages, not the model's HTTP request.
    if (!listing && this.deps.discovery.isMcpEndpoint(call.url)) {
      return Promise.resolve(
        refused(
          "Not called, nothing was paid: this URL is an MCP server that discovery listed; call its tools with call_paid_mcp_tool (its endpoint, the tool's name and the tool's arguments).",
        ),
      );
    }
    // Unless the model named a type, the body goes the way the service declared it takes one.
    const encoding = call.body ? encodeRequestBody(call.body.value, chooseBodyType(call.body.value, call.body.type, listing?.input?.body?.type)) : undefined;
    if (encoding && !encoding.ok) {
      const usage = listing?.input ? ` The service's usage: ${describeInputContract(listing.input)}` : "";
      return Promise.resolve(refused(`Not called, nothing was paid: ${encoding.problem}.${usage}`));
    }
    const encoded: EncodedCall = { ...call, body: encoding?.body };
    // The same text sent as another type is another request, so the content type is part of the
    // intent; a body-less call keeps the key it always had.
    const body = encoded.body ? `${encoded.body.contentType}\n${encoded.body.text}` : "";
    return this.once(`${call.method}\n${call.url}\n${body}`, { resource: call.url, method: call.method }, (paymentIdentifier) =>
      this.purchaseNow(encoded, listing, paymentIdentifier),
    );
  }

  /**
   * Runs a purchase at most once per intent (the hash of what is bought): within this request
   * by the promise kept here, across retries by the intent's claim (purchase-once.ts).
   */
  private once(
    intentText: string,
    journaled: { resource: string; method: string },
    run: (paymentIdentifier: string) => Promise<PurchaseOutcome>,
  ): Promise<PurchaseOutcome | { status: "refused"; message: string }> {
    const intent = createHash("sha256").update(intentText).digest("hex").slice(0, 32);
    const existing = this.byIntent.get(intent);
    if (existing) return existing;
    const key = `purchase:${this.input.requestKey}:${intent}`;
    // The payment identifier derives from the same key, so every retry of this intent sends it again.
    // The journal names each payment's request and resource: what a retry is told when the
    // attempt holding this intent stopped before recording its outcome.
    const earlier = () =>
      this.deps.store.journal
        .ofRequest(this.input.requestKey, 20)
        .then((payments) => payments.find((payment) => payment.resource === journaled.resource && (payment.method ?? "GET") === journaled.method));
    const work = purchaseOnce({ store: this.deps.store.idempotency, key, tracker: this.tracker, earlier }, () =>
      run(paymentIdentifierFor(this.deps.quoteSecret, key)),
    );
    this.byIntent.set(intent, work);
    return work;
  }

  /**
   * Calls an MCP tool, paying for it if it asks, at most once per intent (as `purchase`). Only
   * servers discovery listed are called; a tool the Bazaar did not list on such a server is
   * called only if it asks for no payment (mcp-purchase.ts).
   */
  purchaseMcpTool(call: McpToolCall): Promise<PurchaseOutcome | { status: "refused"; message: string }> {
    const listing = this.deps.discovery.lookupMcpTool(call.endpoint, call.toolName);
    if (!listing && !this.deps.discovery.isMcpEndpoint(call.endpoint)) {
      return Promise.resolve(
        refused(
          "Not called, nothing was paid: discover_services did not list this MCP server. Call MCP tools only at an endpoint discover_services returned, with a tool name it listed there.",
        ),
      );
    }
    const resource = mcpResourceOf(call.endpoint, call.toolName);
    const body = mcpCallBody(call.toolName, call.arguments);
    return this.once(`MCP\n${resource}\n${body}`, { resource, method: "POST" }, (paymentIdentifier) => this.purchaseMcpNow(call, listing, paymentIdentifier));
  }

  private async purchaseMcpNow(call: McpToolCall, listing: ServiceListing | undefined, paymentIdentifier: string): Promise<PurchaseOutcome> {
    const blocked = this.cannotStart();
    if (blocked) return refused(blocked);
    const payer = payerOf(this.input, this.deps.agentAccount);
    if (!payer) return refused(NO_PAYER);
    const work = runMcpPurchase(this.purchaseDeps, {
      endpoint: call.endpoint,
      toolName: call.toolName,
      arguments: call.arguments,
      transport: listing?.mcp?.transport ?? "streamable-http",
      inputSchema: listing?.mcp?.inputSchema,
      ...this.purchaseContext(call, listing, paymentIdentifier, payer),
    });
    return this.tracked(work);
  }

  private async purchaseNow(call: EncodedCall, listing: ServiceListing | undefined, paymentIdentifier: string): Promise<PurchaseOutcome> {
    // A URL that came neither from discovery nor from the caller (its words, or the call it
    // named; a service's answer or a page put it there) is paid by the agent wallet only after
    // the person's go-ahead; the user's own wallet asks them for every payment anyway.
    const ofUnknownOrigin = !listing && !callerNamed(this.input, call);
    // A call the service's own declaration says cannot succeed is not made: no quote, no payment.
    const declared = declaredCallProblem(call, listing);
    if (declared) return refused(declared);
    if (this.pendingApproval) return refused("A payment is already waiting for the user's approval; ask for one payment at a time.");
    const unlisted = await unlistedCallProblem(listing, this.input.unlisted);
    if (unlisted) return refused(unlisted);
    // Checked again after the wait: another call of this run may have asked for an approval meanwhile.
    const blocked = this.cannotStart();
    if (blocked) return refused(blocked);
    const payer = payerOf(this.input, this.deps.agentAccount);
    if (!payer) return refused(NO_PAYER);
    // The go-ahead is the agent wallet's (run-confirmed-purchase.ts): under a grant such a URL is not paid.
    if (ofUnknownOrigin && payer.kind === "agent" && payer.funding) return refused(UNKNOWN_ORIGIN_UNDER_GRANT);
    if (ofUnknownOrigin && payer.kind === "agent") {
      // One go-ahead asked at a time: the person answers one question, then the model may ask another.
      if (this.pendingConfirmation) return refused("A call is already waiting for the user's go-ahead; ask for one at a time.");
      const asked = askGoAhead(this.purchaseDeps, call, this.input, this.tracker);
      if (asked.status === "awaiting-confirmation") this.pendingConfirmation = { id: asked.paymentId, confirmation: asked.confirmation };
      return asked;
    }
    const work = runPurchase(this.purchaseDeps, {
      service: listing?.name ?? new URL(call.url).host,
      url: call.url,
      method: call.method,
      body: call.body?.text,
      contentType: call.body?.contentType,
      ...this.purchaseContext(call, listing, paymentIdentifier, payer),
    });
    const outcome = await this.tracked(work);
    if (outcome.status === "awaiting-approval") this.pendingApproval = { id: outcome.paymentId, approval: outcome.approval };
    return outcome;
  }

  /** Why no payment may start now (one approval at a time, enough time left), if one may not. */
  private cannotStart(): string | undefined {
    if (this.pendingApproval) return "A payment is already waiting for the user's approval; ask for one payment at a time.";
    if (this.input.deadline - this.deps.now() < MIN_PAYMENT_WINDOW_SECONDS * 1000) return "There is not enough time left in this request to start a payment.";
    return undefined;
  }

  /** What every purchase of this run is asked with, over HTTP and over MCP alike. */
  private purchaseContext(call: { intent: string; signal?: AbortSignal }, listing: ServiceListing | undefined, paymentIdentifier: string, payer: Payer) {
    const { limits, deadline } = this.input;
    return {
      listedAmount: listing?.amount,
      intent: call.intent,
      paymentIdentifier,
      payer,
      limits,
      maxPayments: this.deps.settings.maxPaymentsPerRequest,
      tracker: this.tracker,
      deadline,
      signal: call.signal,
    };
  }

  /** A purchase the run waits for before it ends, even if the model moves on. */
  private async tracked(work: Promise<PurchaseOutcome>): Promise<PurchaseOutcome> {
    this.inFlight.add(work);
    try {
      return await work;
    } finally {
      this.inFlight.delete(work);
    }
  }

  /** Waits for purchases still running (each ends by the deadline) before the stream closes. */
  async settleInFlight(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
