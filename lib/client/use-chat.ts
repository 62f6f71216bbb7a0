/**
 * The chat page's connection to `POST /api/chat`: sends the conversation, folds the decoded
 * stream into state as it arrives, handles problem responses and the 429 cooldown, stops a
 * running request on demand, and repeats a quote's request with the user's signature.
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import type { ChatRequestInput } from "@/lib/stream/chat-request";
import type { SpendingLimitsInput } from "@/lib/limits/spending-limits-input";
import { describeAppliedLimits } from "./applied-limits";
import { decodeStream, type ApprovalRequest, type SignInRequest } from "@/lib/stream";
import { encodePaymentSignatureHeader, PAYMENT_APPROVAL_HEADER, PAYMENT_SIGNATURE_HEADER } from "@/lib/x402/payment-signature-header";
import { approvalSigner } from "@/lib/x402/approval-typed-data";
import { buildMessages } from "./chat-history";
import { encodeSignInWithXHeader, SIGN_IN_WITH_X_HEADER } from "./sign-in-header";
import { chatReducer, INITIAL_CHAT_STATE } from "./chat-state";
import type { AssistantTurn, ChatState, RequestProblem } from "./chat-types";
import { isDiscovery, isSettled, serviceNameOf } from "./payment-view";
import { addReceipt } from "./receipts";
import { newTurnId } from "./turn-id";
import { MAX_RETRY_AFTER_SECONDS, readProblem } from "./request-problem";

export type SendOptions = {
  /** Set for "my wallet": the connected address that will sign. */
  walletAddress?: `0x${string}` | undefined;
  spendingLimits?: SpendingLimitsInput | undefined;
  /** The token of the wallet's active grant: payments go through under it, with no approval. */
  grantToken?: string | undefined;
  /** Told when the server refused the message before its stream (e.g. 403 `forbidden:grant_ended`). */
  onRefused?: ((problem: RequestProblem) => void) | undefined;
};

export type RunOutcome = "completed" | "refused" | "stopped" | "failed" | "busy";

/** A 429 without Retry-After still gets a pause, so a client never hammers the server. */
const DEFAULT_COOLDOWN_SECONDS = 10;

function useCooldown() {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(0);
  useEffect(() => {
    if (until === 0) return;
    const timer = setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= until) {
        clearInterval(timer);
        setUntil(0);
      }
    }, 200);
    return () => clearInterval(timer);
  }, [until]);
  const start = useCallback((seconds: number) => {
    const current = Date.now();
    setNow(current);
    setUntil(current + Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds)) * 1000);
  }, []);
  const seconds = until === 0 ? 0 : Math.max(0, Math.ceil((until - now) / 1000));
  return { seconds, start };
}

export function useChat() {
  const [state, dispatch] = useReducer(chatReducer, INITIAL_CHAT_STATE);
  const stateRef = useRef<ChatState>(state);
  const controllerRef = useRef<AbortController | null>(null);
  const activeTurnRef = useRef<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { seconds: cooldownSeconds, start: startCooldown } = useCooldown();

  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  // Keep a receipt of every payment this page saw settle.
  useEffect(() => {
    for (const turn of state.turns) {
      if (turn.role !== "assistant") continue;
      for (const view of Object.values(turn.payments)) {
        const txHash = view.details.txHash;
        const amount = view.details.amount ?? view.approval?.amount;
        if (!txHash || !amount || !isSettled(view.status) || isDiscovery(view)) continue;
        addReceipt({
          paymentId: view.id,
          amount,
          ...(view.details.ceiling ? { ceiling: view.details.ceiling } : {}),
          ...(view.details.settlementFlag ? { settlementFlag: view.details.settlementFlag } : {}),
          service: serviceNameOf(view),
          resource: view.details.resource ?? view.approval?.resource,
          txHash,
          network: view.details.network ?? view.approval?.network,
          payer: view.details.payer ?? turn.payer,
          explorerUrl: view.details.explorerUrl,
          at: view.updatedAt,
        });
      }
    }
  }, [state.turns]);

  const run = useCallback(
    async (turnId: string, body: ChatRequestInput, headers: Record<string, string>, onRefused?: (problem: RequestProblem) => void): Promise<RunOutcome> => {
      const controller = new AbortController();
      controllerRef.current = controller;
      activeTurnRef.current = turnId;
      setBusy(true);
      try {
        const response = await fetch("/api/chat", {
          method: "POST",
          // One key per message, random (see turn-id.ts) and reused by the signed retry of an
          // approval: a retry of the same message can never pay twice (the server returns the
          // recorded outcome), while a new message is a new purchase.
          headers: { "Content-Type": "application/json", Accept: "text/event-stream", "Idempotency-Key": turnId, ...headers },
          body: JSON.stringify(body),
          signal: controller.signal,
          cache: "no-store",
        });
        if (!response.ok || !response.body) {
          const problem: RequestProblem = response.ok
            ? { status: 502, title: "Empty response", detail: "The server sent no stream.", retryAfterSeconds: undefined, fieldErrors: [] }
            : await readProblem(response);
          if (problem.status === 429) startCooldown(problem.retryAfterSeconds ?? DEFAULT_COOLDOWN_SECONDS);
          else if (problem.status === 503 && problem.retryAfterSeconds) startCooldown(problem.retryAfterSeconds);
          dispatch({ type: "problem", turnId, problem, now: Date.now() });
          onRefused?.(problem);
          return "refused";
        }
        const lowered = describeAppliedLimits(response.headers.get("x-spending-limits"));
        if (lowered) dispatch({ type: "notice", turnId, text: lowered });
        for await (const item of decodeStream(response.body)) {
          if (item.kind === "event") dispatch({ type: "event", turnId, event: item.event, now: Date.now() });
          else dispatch({ type: "malformed", turnId });
        }
        dispatch({ type: "stream-ended", turnId, now: Date.now() });
        return "completed";
      } catch {
        if (controller.signal.aborted) return "stopped";
        dispatch({
          type: "connection-failed",
          turnId,
          message: "The connection to the agent was lost. If a payment was under way, check your receipts before trying again.",
          now: Date.now(),
        });
        return "failed";
      } finally {
        if (controllerRef.current === controller) {
          controllerRef.current = null;
          activeTurnRef.current = null;
          setBusy(false);
        }
      }
    },
    [startCooldown],
  );

  const send = useCallback(
    async (text: string, options: SendOptions): Promise<RunOutcome> => {
      if (controllerRef.current) return "busy";
      const body: ChatRequestInput = {
        messages: buildMessages(stateRef.current.turns, text),
        ...(options.walletAddress ? { walletAddress: options.walletAddress } : {}),
        ...(options.spendingLimits ? { spendingLimits: options.spendingLimits } : {}),
      };
      const assistantId = newTurnId("assistant");
      dispatch({
        type: "request-started",
        assistantId,
        user: { role: "user", id: newTurnId("user"), content: text, excluded: false },
        body,
        payer: options.walletAddress ?? "agent",
        now: Date.now(),
      });
      // The grant's token proves the wallet the body names; it is sent, never shown or logged.
      return run(assistantId, body, options.grantToken ? { Authorization: `Bearer ${options.grantToken}` } : {}, options.onRefused);
    },
    [run],
  );

  /** Repeats the turn's first request, unchanged, with the person's decision in `headers`. */
  const resendApproved = useCallback(
    async (turnId: string, paymentId: string, headers: Record<string, string>): Promise<RunOutcome> => {
      if (controllerRef.current) return "busy";
      const turn = stateRef.current.turns.find((item): item is AssistantTurn => item.role === "assistant" && item.id === turnId);
      if (!turn) return "failed";
      dispatch({ type: "decision", turnId, paymentId, decision: "approved" });
      dispatch({ type: "request-started", assistantId: turnId, user: undefined, body: turn.requestBody, payer: turn.payer, now: Date.now() });
      return run(turnId, turn.requestBody, headers);
    },
    [run],
  );

  /** With the user's signature over its quote. */
  const sendSignature = useCallback(
    (turnId: string, paymentId: string, approval: ApprovalRequest, signature: `0x${string}`) =>
      resendApproved(turnId, paymentId, { [PAYMENT_SIGNATURE_HEADER]: encodePaymentSignatureHeader(approval, signature) }),
    [resendApproved],
  );

  /** With the person's go-ahead for the agent wallet (an address of unknown origin). */
  const sendGoAhead = useCallback(
    (turnId: string, paymentId: string, token: string) => resendApproved(turnId, paymentId, { [PAYMENT_APPROVAL_HEADER]: token }),
    [resendApproved],
  );

  /** With the wallet's sign-in-with-x signature instead of a payment (it paid for this before). */
  const sendSignIn = useCallback(
    (turnId: string, paymentId: string, approval: ApprovalRequest, signIn: SignInRequest, signature: `0x${string}`) =>
      resendApproved(turnId, paymentId, { [SIGN_IN_WITH_X_HEADER]: encodeSignInWithXHeader(signIn, approval, approvalSigner(approval) ?? "0x", signature) }),
    [resendApproved],
  );

  const markRejected = useCallback((turnId: string, paymentId: string) => {
    dispatch({ type: "decision", turnId, paymentId, decision: "rejected" });
  }, []);

  const stop = useCallback(() => {
    const controller = controllerRef.current;
    const turnId = activeTurnRef.current;
    if (!controller || !turnId) return;
    dispatch({ type: "stopped", turnId, now: Date.now() });
    controller.abort();
  }, []);

  // Leaving the page ends the request; the server sees the disconnect.
  useEffect(() => () => controllerRef.current?.abort(), []);

  return {
    turns: state.turns,
    busy,
    cooldownSeconds,
    send,
    sendSignature,
    sendGoAhead,
    sendSignIn,
    markRejected,
    stop,
  };
}
