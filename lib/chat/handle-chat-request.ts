import "server-only";
/**
 * `POST /api/chat`: everything that can be refused is refused before the stream starts, with
 * a status and a problem body (400, 402, 403, 408, 409, 429, 503); then the agent runs and
 * streams.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { authorizeAgentWallet } from "../access/caller";
import { callerLimits, describeLimits } from "../access/caller-limits";
import { startChatRun, type ChatRun } from "../agent/run-chat";
import { AppError, problemResponse, type FieldError } from "../errors";
import { inspectMessages } from "../safety/content-safety";
import type { IdempotencyStore } from "../store/store-types";
import { CONTENT_TYPE_BY_FRAMING, framingForAccept, StreamWriter } from "../stream";
import { readConfirmationToken, type ConfirmedTerms } from "../x402/agent-confirmation";
import { PAYMENT_APPROVAL_HEADER, PAYMENT_SIGNATURE_HEADER } from "../x402/payment-signature-header";
import type { AppDependencies } from "../doors/app-dependencies";
import { ChatRequestBody, MAX_BODY_BYTES } from "../stream/chat-request";
import { admitCaller } from "../doors/admit-caller";
import { grantPayerFor } from "../doors/grant-payer-for";
import { unlistedCallsOf } from "../doors/unlisted-calls";
import { INSTANCE_ID } from "./instance-id";
import { namespaceOf, requestKeyOf } from "../doors/request-key";
import { enforceRateLimit } from "../doors/rate-limit";
import { bindApprovalToRequest } from "./bind-approval-request";
import { readBoundedJson } from "../net/read-bounded-json";
import { watchCaller } from "../net/watch-caller";
import { settleWithin } from "../timeout";
import { verifyApproval } from "./verify-approval";
import { readSignIn } from "./verify-sign-in";
import { SIGN_IN_HEADER } from "../x402/siwx-binding";

/** How long the route waits for the model provider to accept the first call. */
const MODEL_READY_TIMEOUT_MS = 15_000;

export async function handleChatRequest(request: Request, getDependencies: () => AppDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    // The request's time budget starts now, not once its body has finished arriving.
    const arrivedAt = deps.now();
    const contentType = request.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(contentType)) throw new AppError("bad_request:content_type");

    // The client address needs only headers, so it is counted before anything costly: reading
    // the body, parsing it, or scanning it for secrets. A credential is checked before the body
    // is read: a bad one is 401 whatever the body says. Each named caller also has a window.
    const admitted = await admitCaller(request, deps, arrivedAt);
    const { caller, clientKey } = admitted;
    let rateLimit = admitted.rateLimit;

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

    const agentWalletPays = !body.walletAddress && deps.agentAccount !== undefined;
    authorizeAgentWallet(caller, deps.settings.access.mode, agentWalletPays);
    const resolved = callerLimits(body.spendingLimits, deps.settings.limitSettings, caller, {
      pays: agentWalletPays,
      dailyCap: deps.settings.access.walletDailyCap,
    });
    const limits = resolved.limits;
    // A caller who proved the wallet it names (the grant's token, or its session) pays under
    // that wallet's grant with no approval round trip (lib/doors/grant-payer-for.ts).
    const grantPayer = await grantPayerFor(deps, { tokenGrant: admitted.tokenGrant, caller }, body.walletAddress);
    if (grantPayer && body.walletAddress) rateLimit = await enforceRateLimit(deps, [`wallet:${body.walletAddress.toLowerCase()}`], rateLimit);
    const signatureHeader = request.headers.get(PAYMENT_SIGNATURE_HEADER);
    const approved = signatureHeader
      ? await verifyApproval({
          header: signatureHeader,
          walletAddress: body.walletAddress,
          network: deps.network,
          quoteSecret: deps.quoteSecret,
          now: deps.now(),
          serviceName: (url) => deps.discovery.lookup(url)?.name ?? hostOf(url),
        })
      : undefined;
    // A wallet's bucket is counted only once its signature proves the caller holds it; anyone
    // can write a wallet address into a body, and counting that would let them keep another
    // person's wallet at 429.
    if (approved && body.walletAddress) {
      rateLimit = await enforceRateLimit(deps, [`wallet:${body.walletAddress.toLowerCase()}`], rateLimit);
      await bindApprovalToRequest(deps.store.idempotency, {
        nonce: approved.nonce,
        validBefore: approved.validBefore,
        request: { ...body, messages },
        nowMs: arrivedAt,
      });
    }

    // A sign-in-with-x instead of a payment (verify-sign-in.ts) proves the wallet as well.
    const signedIn = approved
      ? undefined
      : await readSignIn(request.headers.get(SIGN_IN_HEADER), {
          walletAddress: body.walletAddress,
          network: deps.network,
          quoteSecret: deps.quoteSecret,
          now: deps.now(),
          serviceName: (url) => deps.discovery.lookup(url)?.name ?? hostOf(url),
        });
    if (signedIn) rateLimit = await enforceRateLimit(deps, [`wallet:${signedIn.payer.toLowerCase()}`], rateLimit);

    const requestKey = requestKeyOf(request, namespaceOf(caller, body.walletAddress, clientKey), messages);
    const confirmed = readGoAhead(request.headers.get(PAYMENT_APPROVAL_HEADER), {
      requestKey: requestKey.key,
      agentWalletPays,
      secret: deps.quoteSecret,
      nowMs: arrivedAt,
    });
    // Only a client-chosen key marks two requests as the same message: identical conversations
    // may legitimately run side by side (and a retry after a dropped stream must not wait for
    // the abandoned run to wind down), while payments stay deduplicated by the purchase path.
    const release = requestKey.fromHeader
      ? await claimInFlight(deps.store.inFlight, requestKey.key, { lastsMs: arrivedAt + deps.settings.deadlineMs - deps.now() })
      : undefined;
    let run: ChatRun | undefined;
    try {
      const framing = framingForAccept(request.headers.get("accept"));
      // The writer needs the run's abort before the run exists: a holder closes the loop.
      const holder: { run?: ChatRun } = {};
      const writer = new StreamWriter({ framing, onCancel: () => holder.run?.abort(new Error("client disconnected")) });
      const unlisted = unlistedCallsOf(deps, caller, clientKey);
      const started = startChatRun(
        deps,
        { messages, walletAddress: body.walletAddress, limits, approved, confirmed, signedIn, grantPayer, requestKey: requestKey.key, arrivedAt, unlisted },
        writer,
      );
      run = holder.run = started;
      // Held until the run ends: a caller that leaves stops it (a paid call must not settle for nobody).
      const stopWatching = watchCaller(request, () => started.abort(new Error("client disconnected")));
      started.done.then(stopWatching, stopWatching);

      // Before promising 200, make sure the model provider answers. After an approved payment
      // the stream must go out whatever happens, so that the payment is reported.
      if (!approved && !confirmed) {
        try {
          await settleWithin(Promise.race([started.modelReady, started.done]), MODEL_READY_TIMEOUT_MS, `no answer within ${MODEL_READY_TIMEOUT_MS} ms`);
        } catch (cause) {
          started.abort(cause);
          throw new AppError("unavailable:model", { retryAfterSeconds: 10, cause, details: String(cause) });
        }
      }

      // The run always ends (the deadline bounds it), whether the stream was read to the end,
      // failed, or the client went away; the claim is released then, and the stream's last
      // byte waits for it, so a client that retries after reading the end never sees 409.
      const released = release ? started.done.catch(() => undefined).then(release) : undefined;
      const stream = released ? writer.readable.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ flush: () => released })) : writer.readable;
      return new Response(stream, {
        status: 200,
        headers: {
          "Content-Type": CONTENT_TYPE_BY_FRAMING[framing],
          "Cache-Control": "no-cache, no-transform",
          "X-Accel-Buffering": "no",
          // Which limits apply, where each came from, and which asked-for ones were lowered.
          "X-Spending-Limits": describeLimits(resolved),
          ...rateLimit.headers,
        },
      });
    } catch (error) {
      // Refused after claiming: let the run (if any) wind down, then free the key for a retry.
      if (release) {
        run?.abort(error);
        await run?.done.catch(() => undefined);
        await release();
      }
      throw error;
    }
  } catch (error) {
    return problemResponse(error);
  }
}

/**
 * The person's go-ahead (`PAYMENT-APPROVAL`) for a payment the agent wallet would make to a URL
 * of unknown origin: a token this server issued for this very request, unchanged and unexpired.
 * Anything else is 402 and nothing is paid, like a bad `PAYMENT-SIGNATURE`.
 */
function readGoAhead(
  header: string | null,
  expected: { requestKey: string; agentWalletPays: boolean; secret: string; nowMs: number },
): ConfirmedTerms | undefined {
  if (header === null) return undefined;
  if (!expected.agentWalletPays) throw new AppError("payment_required:mismatch", { details: "PAYMENT-APPROVAL on a request the agent wallet does not pay" });
  const checked = readConfirmationToken(header, expected.secret, { requestKey: expected.requestKey, nowSeconds: Math.floor(expected.nowMs / 1000) });
  if (checked.ok) return checked.terms;
  if (checked.problem === "expired") throw new AppError("payment_required:expired");
  throw new AppError(checked.problem === "other-request" ? "payment_required:mismatch" : "payment_required:invalid_signature", {
    details: `PAYMENT-APPROVAL: ${checked.problem}`,
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "the service";
  }
}

/**
 * How long a claim outlives its request's deadline: the run winds down (its last lines, a
 * payment's report) and the platform stops the function soon after; a holder that died frees
 * its claim this long after its deadline, never later.
 */
const IN_FLIGHT_CLAIM_GRACE_MS = 5_000;

/**
 * Claims the request key for as long as the request can run; a concurrent duplicate is refused
 * with 409 and `Retry-After` (when the holder's claim lapses; a live holder finishes sooner). The
 * claim names its holder (this instance), and the release drops only this holder's claim, so
 * a release that comes late cannot free a later request's. Returns the release, which runs at
 * most once and never throws: if the store cannot be reached the claim lapses by its TTL.
 */
async function claimInFlight(store: IdempotencyStore, requestKey: string, options: { lastsMs: number }): Promise<() => Promise<void>> {
  const key = `inflight:${requestKey}`;
  const holder = `${INSTANCE_ID}/${randomUUID()}`;
  const ttlSeconds = Math.max(1, Math.ceil((Math.max(0, options.lastsMs) + IN_FLIGHT_CLAIM_GRACE_MS) / 1000));
  const claim = await store.claim(key, ttlSeconds, holder);
  if (!claim.claimed) {
    // A finished request's key is released, so a refusal means a holder that runs, or died.
    const retryAfterSeconds = claim.record === null ? Math.max(1, Math.ceil(claim.lapsesInMs / 1000)) : 1;
    const heldBy = claim.record === null && claim.holder ? ` by ${claim.holder.split("/")[0]}` : "";
    throw new AppError("conflict:in_progress", { retryAfterSeconds, details: `held${heldBy}; the claim lapses within ${retryAfterSeconds} s` });
  }
  let released: Promise<void> | undefined;
  return () =>
    (released ??= store.release(key, holder).catch((error: unknown) => {
      console.error(JSON.stringify({ level: "error", event: "in-flight-release-failed", error: String(error) }));
    }));
}

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.slice(0, 50).map((issue) => ({
    path: issue.path.map(String).join(".") || "(body)",
    message: issue.message,
  }));
}
