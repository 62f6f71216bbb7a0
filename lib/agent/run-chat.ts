import "server-only";
/**
 * One chat turn: the agent loop (`streamText` with the discovery and payment tools) streaming
 * text and payment progress to its listener (the chat's stream writer, or an in-process one), bounded by a deadline, and always
 * ending with exactly one `d:` line.
 */
import { BaseError } from "../base-error";
import { formatUsdc } from "../money";
import { experimental_streamTextLowMemory as streamTextOnce, stepCountIs, type ModelMessage } from "ai";
import type { ChatMessage } from "../stream/chat-request";
import type { EffectiveLimits } from "../limits/spending-limits-input";
import type { ErrorEvent } from "../stream";
import type { ConfirmedTerms } from "../x402/agent-confirmation";
import { AgentRun } from "./agent-run";
import { purchaseDependenciesOf, type AgentDependencies } from "./agent-dependencies";
import type { UnlistedCalls } from "./agent-run-types";
import { wrapForRequest, type BaseModel } from "./model/create-chat-model";
import { purchaseOnce } from "./purchase/purchase-once";
import { runApprovedPurchase, type ApprovedPayment, type FundedPayer, type PayerFunding } from "./purchase/run-purchase";
import { runConfirmedPurchase } from "./purchase/run-confirmed-purchase";
import { runSignedIn } from "./purchase/sign-in-instead";
import type { SignedIn } from "../x402/siwx-binding";
import { FINISH_MARGIN_MS } from "./finish-margin";
import type { RunListener } from "./run-listener";
import { buildSystemPrompt } from "./system-prompt";
import { walletProven } from "./wallet-proof";
import { createCallPaidServiceTool } from "./tools/call-paid-service-tool";
import { callInput, pushToolExchange } from "./tool-exchange";
import { createDiscoverServicesTool } from "./tools/discover-services-tool";
import { CALL_PAID_MCP_TOOL, createCallPaidMcpToolTool } from "./tools/call-paid-mcp-tool-tool";

export type ChatRunInput = {
  messages: ChatMessage[];
  walletAddress: `0x${string}` | undefined;
  limits: EffectiveLimits;
  /** Set on the second request of an approval: the user's signed payment, already verified. */
  approved?: ApprovedPayment;
  /** Set on the second request of a go-ahead: the terms the person let the agent wallet pay, verified. */
  confirmed?: ConfirmedTerms;
  /** Set on the second request of a sign-in-with-x: the user's signed sign-in, already verified. */
  signedIn?: SignedIn;
  /**
   * The grant this request pays under, its wallet proven by the door: the agent pays from the
   * user's wallet through the grant's payer key, without asking (lib/grants/grant-payer.ts).
   */
  grantPayer?: FundedPayer;
  /** Identifies this request across client retries, for at-most-once payments. */
  requestKey: string;
  /** Whether, and how often, this caller may have URLs called that no discovery listed; unset: freely. */
  unlisted?: UnlistedCalls;
  /**
   * When the request arrived (epoch ms, on `deps.now`'s clock). The deadline counts from here,
   * so time spent receiving the body comes out of the request's budget, not on top of it.
   * Defaults to the moment the run starts.
   */
  arrivedAt?: number;
};

export type ChatRun = {
  /** Resolves once the model provider accepted the first call; rejects with its error. */
  modelReady: Promise<void>;
  /** Resolves when the stream has finished (after `d:`). */
  done: Promise<void>;
  /** When the run stops (epoch ms): arrival plus CHAT_DEADLINE_MS. */
  deadline: number;
  abort(reason?: unknown): void;
};

class DeadlineReached extends BaseError<"deadline"> {
  constructor() {
    super("deadline", "This request reached its time limit.");
  }
}

export function startChatRun(
  deps: AgentDependencies & { baseModel: BaseModel },
  input: ChatRunInput,
  writer: RunListener,
  log: (entry: Record<string, unknown>) => void = (entry) => console.info(JSON.stringify(entry)),
): ChatRun {
  const now = deps.now;
  const deadline = (input.arrivedAt ?? now()) + deps.settings.deadlineMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineReached()), Math.max(0, deadline - now()));
  const run = new AgentRun(deps, {
    messages: input.messages,
    walletAddress: input.walletAddress,
    limits: input.limits,
    writer,
    deadline: deadline - FINISH_MARGIN_MS,
    requestKey: input.requestKey,
    walletProven: walletProven(input),
    grantPayer: input.grantPayer,
    unlisted: input.unlisted,
  });
  const { model, ready } = wrapForRequest(deps.baseModel, deps.settings.temperatures);
  const payer = input.grantPayer ? "grant" : input.walletAddress ? "user" : deps.agentAccount ? "agent" : "none";

  const done = (async () => {
    let failure: ErrorEvent | undefined;
    try {
      const messages: ModelMessage[] = input.messages.map((message) => ({ role: message.role, content: message.content }) as ModelMessage);
      if (input.approved && input.walletAddress) {
        const approved = input.approved;
        const payerAddress = input.walletAddress;
        // A replayed signature gets the recorded outcome of its first use, never a second payment.
        const outcome = await purchaseOnce({ store: deps.store.idempotency, key: `approval:${approved.nonce.toLowerCase()}`, tracker: run.tracker }, () =>
          runApprovedPurchase(
            purchaseDependenciesOf(deps),
            {
              payer: payerAddress,
              limits: input.limits,
              maxPayments: deps.settings.maxPaymentsPerRequest,
              tracker: run.tracker,
              deadline: deadline - FINISH_MARGIN_MS,
              signal: controller.signal,
            },
            approved,
          ),
        );
        pushToolExchange(messages, `approved-${"paymentId" in outcome ? outcome.paymentId : "free"}`, callInput(approved), outcome);
      } else if (input.confirmed && !input.walletAddress && deps.agentAccount) {
        // The person's go-ahead for a URL of unknown origin: the agent wallet pays exactly that.
        const terms = input.confirmed;
        const outcome = await runConfirmedPurchase(purchaseDependenciesOf(deps), deps.store.idempotency, terms, {
          account: deps.agentAccount,
          limits: input.limits,
          maxPayments: deps.settings.maxPaymentsPerRequest,
          tracker: run.tracker,
          deadline: deadline - FINISH_MARGIN_MS,
          signal: controller.signal,
        });
        pushToolExchange(messages, `confirmed-${"paymentId" in outcome ? outcome.paymentId : "refused"}`, callInput(terms), outcome);
      } else if (input.signedIn && input.walletAddress) {
        // The user's wallet signed in instead of paying: the service serves it if it paid before.
        const signedIn = input.signedIn;
        const outcome = await runSignedIn(purchaseDependenciesOf(deps), signedIn, { tracker: run.tracker, signal: controller.signal });
        pushToolExchange(messages, `signed-in-${signedIn.nonce}`, callInput(signedIn), outcome);
      }
      // streamText's engine with a single consumer: the stream is read once, here, so the AI SDK
      // neither tees it nor keeps a replay of every part for later readers. Measured under 50
      // concurrent paid turns, the tee and replay were a large share of the ~10 MB each turn
      // allocated (see BENCHMARKS.md).
      const result = streamTextOnce({
        model,
        system: buildSystemPrompt({ networkName: `${deps.network.label} (${deps.network.caip2})`, payer, limits: input.limits }),
        messages,
        allowSystemInMessages: true,
        tools: {
          discover_services: createDiscoverServicesTool(run),
          call_paid_service: createCallPaidServiceTool(run),
          [CALL_PAID_MCP_TOOL]: createCallPaidMcpToolTool(run),
        },
        stopWhen: [stepCountIs(deps.settings.maxSteps), () => run.pendingApproval !== undefined],
        prepareStep: () => {
          run.beginStep();
          return undefined;
        },
        abortSignal: controller.signal,
        // Retries happen in the model wrapper (see wrapForRequest), before readiness is decided.
        maxRetries: 0,
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") writer.text(part.text);
        else if (part.type === "error") throw part.error;
      }
      if (run.pendingApproval) {
        const { approval } = run.pendingApproval;
        writer.text(`\n\nApprove the payment of ${approval.amount} USDC in your wallet to continue; it expires in a few minutes.`);
      }
      if (run.pendingConfirmation) {
        const { confirmation } = run.pendingConfirmation;
        writer.text(
          `\n\nThat address came from a service's answer or a page, not from discovery or your words, so the agent wallet calls it (and pays at most ${confirmation.maxAmount} USDC) only if you approve; the approval expires in a few minutes.`,
        );
      }
    } catch (error) {
      failure = describeFailure(error, controller.signal);
      if (failure.code === "model_error") log({ level: "error", event: "model-error", error: String(error) });
    } finally {
      clearTimeout(timer);
      await run.settleInFlight();
      // A grant that ended during the turn (revoked, expired) gives its float back to the user
      // once the turn's payments are settled, unless another turn's payment is in flight.
      const returned = await input.grantPayer?.funding.returnIdleFloat().catch(() => 0n);
      if (returned) log({ level: "info", event: "grant-float-returned", source: input.grantPayer?.funding.source, amount: returned.toString() });
      if (controller.signal.reason instanceof DeadlineReached) {
        failure ??= {
          code: "deadline_exceeded",
          message: "This request reached its time limit, so the agent stopped. Any payment made is listed in the outcome.",
        };
      }
      if (failure && !writer.isClosed) writer.error(failure);
      // The journal holds every step before the stream's last line says the turn is over.
      await run.tracker.recorded();
      const payments = run.tracker.summaries;
      for (const payment of payments)
        log({
          level: "info",
          event: "payment",
          id: payment.id,
          status: payment.status,
          txHash: payment.txHash,
          amount: payment.amount,
          reason: payment.reason,
        });
      const grant = input.grantPayer ? await grantLeft(deps, input.grantPayer.funding.budget) : undefined;
      if (!writer.isClosed) {
        writer.finish({
          finishReason: run.tracker.finishReason(),
          txHash: run.tracker.txHash,
          payments,
          ...(run.pendingApproval ? { pendingApproval: run.pendingApproval } : {}),
          ...(grant ? { grant } : {}),
          model: deps.baseModel.modelId,
        });
      }
    }
  })();

  return {
    modelReady: ready,
    done,
    deadline,
    abort: (reason) => controller.abort(reason),
  };
}

/** What is left of the grant the turn paid under, on the ledger every instance shares; unsaid if unreadable. */
async function grantLeft(deps: AgentDependencies, budget: PayerFunding["budget"]): Promise<{ id: string; remaining: string } | undefined> {
  try {
    const used = await deps.store.ledger.spentInScope(budget.key);
    const left = budget.limit - used.settled - used.reserved;
    return { id: budget.id, remaining: formatUsdc(left > 0n ? left : 0n) };
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown, signal: AbortSignal): ErrorEvent {
  if (signal.aborted) {
    if (signal.reason instanceof DeadlineReached) {
      return { code: "deadline_exceeded", message: "This request reached its time limit, so the agent stopped. Any payment made is listed in the outcome." };
    }
    return { code: "aborted", message: "The request was stopped." };
  }
  return { code: "model_error", message: "The language model failed while answering. Any payment made is listed in the outcome." };
}
