import "server-only";
/**
 * `POST /api/chat`: everything that can be refused is refused before the stream starts, with
 * a status and a problem body (400, 402, 403, 408, 429, 503); then the agent runs and streams.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { startChatRun } from "../agent/run-chat";
import { AppError, problemResponse, type FieldError } from "../errors";
import { resolveLimits } from "../limits/spending-limits-input";
import { inspectMessages } from "../safety/content-safety";
import { CONTENT_TYPE_BY_FRAMING, framingForAccept, StreamWriter } from "../stream";
import { canonicalJson } from "../x402/authorization-nonce";
import { PAYMENT_SIGNATURE_HEADER } from "../x402/payment-signature-header";
import type { ChatDependencies } from "./chat-dependencies";
import { ChatRequestBody, MAX_BODY_BYTES } from "./chat-request";
import { clientKeyOf } from "./client-key";
import { enforceRateLimit } from "./rate-limit";
import { readBoundedJson } from "./read-bounded-json";
import { verifyApproval } from "./verify-approval";

/** How long the route waits for the model provider to accept the first call. */
const MODEL_READY_TIMEOUT_MS = 15_000;

export async function handleChatRequest(request: Request, getDependencies: () => ChatDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    // The request's time budget starts now, not once its body has finished arriving.
    const arrivedAt = (deps.now ?? Date.now)();
    const contentType = request.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw new AppError("bad_request:content_type");

    // The client address needs only headers, so it is counted before anything costly: reading
    // the body, parsing it, or scanning it for secrets.
    const clientKey = clientKeyOf(request, deps.env);
    let rateLimit = await enforceRateLimit(deps, [clientKey]);

    const raw = await readBoundedJson(request, { maxBytes: MAX_BODY_BYTES, timeoutMs: deps.env.BODY_READ_TIMEOUT_MS });
    const parsed = ChatRequestBody.safeParse(raw);
    if (!parsed.success) {
      throw new AppError("bad_request:body", { errors: fieldErrors(parsed.error) });
    }
    const body = parsed.data;

    // Unsafe content is refused before it is logged, stored or sent to a model.
    const safety = inspectMessages(body.messages);
    if (!safety.safe) throw new AppError("forbidden:unsafe_content");
    const messages = safety.messages;

    const limits = resolveLimits(body.spendingLimits, deps.settings.limitSettings);
    const signatureHeader = request.headers.get(PAYMENT_SIGNATURE_HEADER);
    const approved = signatureHeader
      ? await verifyApproval({
          header: signatureHeader,
          walletAddress: body.walletAddress,
          network: deps.network,
          quoteSecret: deps.quoteSecret,
          now: (deps.now ?? Date.now)(),
          serviceName: (url) => deps.discovery.lookup(url)?.name ?? hostOf(url),
        })
      : undefined;
    // A wallet's bucket is counted only once its signature proves the caller holds it; anyone
    // can write a wallet address into a body, and counting that would let them keep another
    // person's wallet at 429.
    if (approved && body.walletAddress) {
      rateLimit = await enforceRateLimit(deps, [`wallet:${body.walletAddress.toLowerCase()}`], rateLimit);
    }

    const framing = framingForAccept(request.headers.get("accept"));
    // The writer needs the run's abort before the run exists: a holder closes the loop.
    const holder: { run?: ReturnType<typeof startChatRun> } = {};
    const writer = new StreamWriter({ framing, onCancel: () => holder.run?.abort(new Error("client disconnected")) });
    const requestKey = requestKeyOf(request, body.walletAddress, messages);
    const run = startChatRun(deps, { messages, walletAddress: body.walletAddress, limits, approved, requestKey, arrivedAt }, writer);
    holder.run = run;
    request.signal?.addEventListener("abort", () => run.abort(new Error("client disconnected")), { once: true });

    // Before promising 200, make sure the model provider answers. After an approved payment
    // the stream must go out whatever happens, so that the payment is reported.
    if (!approved) {
      try {
        await Promise.race([run.modelReady, run.done, timeout(MODEL_READY_TIMEOUT_MS)]);
      } catch (cause) {
        run.abort(cause);
        throw new AppError("unavailable:model", { retryAfterSeconds: 10, cause, details: String(cause) });
      }
    }

    return new Response(writer.readable, {
      status: 200,
      headers: {
        "Content-Type": CONTENT_TYPE_BY_FRAMING[framing],
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
        ...rateLimit.headers,
      },
    });
  } catch (error) {
    return problemResponse(error);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the service";
  }
}

const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What makes two requests "the same" for at-most-once payments: the client's Idempotency-Key
 * when it sends one (the browser does, per message), otherwise the payer and the conversation.
 */
function requestKeyOf(request: Request, walletAddress: string | undefined, messages: { role: string; content: string }[]): string {
  const payer = walletAddress?.toLowerCase() ?? "agent";
  const header = request.headers.get("idempotency-key")?.trim();
  if (header) {
    if (!IDEMPOTENCY_KEY.test(header)) {
      throw new AppError("bad_request:body", { errors: [{ path: "Idempotency-Key", message: "must be 1-128 characters of A-Z a-z 0-9 . _ : -" }] });
    }
    return `key:${payer}:${header}`;
  }
  return `conversation:${payer}:${createHash("sha256").update(canonicalJson(messages)).digest("hex")}`;
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref?.();
  });
}

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.slice(0, 50).map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}
