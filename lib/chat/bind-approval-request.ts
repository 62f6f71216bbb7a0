import "server-only";
/**
 * A user's signature pays for one chat request: the first request that carries it binds it to
 * that request's body. The same signature again with the same body is a retry (it gets the
 * recorded outcome); with another body it is refused with 409 before anything is paid or
 * streamed, so the model never answers one question with another request's data.
 */
import { createHash } from "node:crypto";
import { AppError } from "../errors";
import type { IdempotencyStore } from "../store/store-types";
import { canonicalJson } from "../x402/authorization-nonce";

/** Kept a while after the signature expires, so a late replay is still recognised. */
const AFTER_EXPIRY_SECONDS = 15 * 60;

export async function bindApprovalToRequest(
  store: IdempotencyStore,
  input: { nonce: string; validBefore: bigint; request: unknown; nowMs: number },
): Promise<void> {
  const key = `approval-request:${input.nonce.toLowerCase()}`;
  const requestHash = createHash("sha256").update(canonicalJson(input.request)).digest("hex");
  const ttlSeconds = Math.max(60, Number(input.validBefore) - Math.floor(input.nowMs / 1000) + AFTER_EXPIRY_SECONDS);
  const claim = await store.claim(key, ttlSeconds);
  if (claim.claimed) {
    await store.complete(key, { status: "bound", requestHash }, ttlSeconds);
    return;
  }
  const record = claim.record ?? (await store.get(key));
  if (record?.requestHash !== requestHash) throw new AppError("conflict:signature_reused");
}
