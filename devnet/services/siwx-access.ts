import type { ServerResponse } from "node:http";
import type { ResourceServerExtension } from "@x402/core/types";
import {
  createSIWxResourceServerExtension,
  declareSIWxExtension,
  type SIWxExtension,
  type SIWxHookEvent,
  type SIWxStorage,
} from "@x402/extensions/sign-in-with-x";
import type { DemoService, ServiceInput } from "./define-service";
import { produceAnswer, type HandlerEnvironment } from "./paid-request-handler";

/**
 * "Pay once, use again" for a demo service, with the official sign-in-with-x (SIWX) extension:
 * the 402 carries a fresh SIWX challenge; a settled payment records (path, payer); a later
 * request signed in by that payer for that path is served with no payment. The SDK's hooks
 * do the protocol (challenge, header parsing, domain/URI/time checks, signature); this module
 * adds what the SDK leaves to the service: bounded memory, and nonces that must be ours.
 */

/** How long a challenge may be signed and used (the spec's default: 5 minutes). */
export const SIWX_CHALLENGE_SECONDS = 300;
/** Paid (path, wallet) pairs one service remembers; the oldest is forgotten first. */
export const MAX_REMEMBERED_PAYMENTS = 10_000;
/** Outstanding challenge nonces one service keeps; the oldest is dropped first. */
export const MAX_OPEN_CHALLENGES = 10_000;

/**
 * The SDK's storage, bounded. `hasUsedNonce` answers true ("refuse") for a nonce this service
 * never issued, one past its lifetime, and one already used: the SDK only asks whether a nonce
 * was used before, and a challenge the service never gave out must not sign anyone in.
 */
export class BoundedSiwxStorage implements SIWxStorage {
  private readonly paid = new Map<string, true>();
  /** Nonce → epoch ms after which it is void; insertion order is age order. */
  private readonly open = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly limits = { payments: MAX_REMEMBERED_PAYMENTS, challenges: MAX_OPEN_CHALLENGES },
  ) {}

  hasPaid(resource: string, address: string): boolean {
    return this.paid.has(paidKey(resource, address));
  }

  recordPayment(resource: string, address: string): void {
    const key = paidKey(resource, address);
    this.paid.delete(key);
    this.paid.set(key, true);
    dropOldest(this.paid, this.limits.payments);
  }

  /** Called for every challenge the service sends. */
  issueNonce(nonce: string): void {
    this.open.set(nonce, this.now() + SIWX_CHALLENGE_SECONDS * 1000);
    dropOldest(this.open, this.limits.challenges);
  }

  hasUsedNonce(nonce: string): boolean {
    const expiresAt = this.open.get(nonce);
    return expiresAt === undefined || expiresAt <= this.now();
  }

  recordNonce(nonce: string): void {
    // Used once, gone: a replayed SIWX header is refused like a nonce never issued.
    this.open.delete(nonce);
  }
}

export type SiwxAccess = {
  /** Merged into the route's extensions: the 402 then declares sign-in-with-x. */
  declaration: Record<string, unknown>;
  /** Registered on the service's own resource server (one store per service). */
  extension: ResourceServerExtension;
  storage: BoundedSiwxStorage;
};

/**
 * The SIWX parts of one service. `origin` is the service's public origin: the challenge names
 * its host as `domain`, and a sign-in for any other origin is refused by the SDK's checks.
 */
export function createSiwxAccess(origin: string, options: { now?: () => number; onEvent?: (event: SIWxHookEvent) => void } = {}): SiwxAccess {
  const storage = new BoundedSiwxStorage(options.now);
  const official = createSIWxResourceServerExtension({ storage, origin, onEvent: options.onEvent });
  const enrich = official.enrichPaymentRequiredResponse;
  const extension: ResourceServerExtension = {
    ...official,
    // The SDK draws each challenge's nonce; remembering it here is what lets the storage refuse
    // nonces it never handed out.
    enrichPaymentRequiredResponse: enrich
      ? async (declaration, context) => {
          const challenge = (await enrich(declaration, context)) as SIWxExtension | undefined;
          if (challenge?.info?.nonce) storage.issueNonce(challenge.info.nonce);
          return challenge;
        }
      : undefined,
  };
  const declaration = declareSIWxExtension({
    statement: "Sign in to get again what this wallet already paid for. Signing costs nothing.",
    expirationSeconds: SIWX_CHALLENGE_SECONDS,
  });
  return { declaration, extension, storage };
}

/**
 * Answers a request the SIWX hook let through (the wallet paid for this path before): the
 * service's answer with no payment, nothing to verify and nothing to settle.
 */
export async function serveSignedIn(
  service: DemoService,
  input: ServiceInput,
  response: ServerResponse,
  callerGone: AbortSignal,
  environment: HandlerEnvironment,
): Promise<void> {
  const produced = await produceAnswer(service, input, response, callerGone, environment);
  if (produced.kind !== "answer" || response.headersSent) return;
  response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store, private" });
  response.end(produced.body);
}

/** The SDK records and checks addresses case-insensitively; so does this key. */
function paidKey(resource: string, address: string): string {
  return `${address.toLowerCase()} ${resource}`;
}

function dropOldest(map: Map<string, unknown>, limit: number): void {
  while (map.size > limit) {
    const oldest = map.keys().next();
    if (oldest.done) return;
    map.delete(oldest.value);
  }
}
