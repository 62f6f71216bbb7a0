import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { BoundedCache } from "../../lib/x402/bounded-cache";
import type { DevnetFaults } from "../faults";
import { sendProblem } from "../http/json-response";
import type { PaidServiceHandler } from "./paid-request-handler";
import { captureResponse, headerValue, type CapturedResponse } from "./response-capture";

/**
 * A v2 demo service's side of the x402 `payment-identifier` extension (spec:
 * `specs/extensions/payment_identifier.md`): the 402 declares it (optional), and a payment that
 * carries an identifier the service already settled gets the first answer again (the same body
 * and the same `PAYMENT-RESPONSE`) with no second verify or settle. The same identifier with
 * another signed payment is `409`, as the spec's table says; so is a repeat that arrives while
 * the first is still being handled, so two payments can never both settle for one identifier.
 * Bounded and per service, in memory: a restart forgets, as the spec allows a server's cache to.
 */

/** What a test can read about one service: every identifier it was sent, and its settlements. */
export type PaymentIdentifierActivity = { seen: string[]; settlements: number };

const MAX_ANSWERS = 256;
const ANSWER_TTL_MS = 60 * 60 * 1000;
const MAX_SEEN = 1_000;

type Remembered = { fingerprint: string; response: CapturedResponse };

export class PaymentIdentifierCache {
  /** For the route's `extensions`: the 402 advertises the extension, identifiers optional. */
  readonly declaration = { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };
  readonly #answers = new BoundedCache<string, Remembered>({ now: Date.now, maxEntries: MAX_ANSWERS, ttlMs: ANSWER_TTL_MS });
  readonly #inFlight = new Set<string>();
  readonly #seen: string[] = [];
  #settlements = 0;

  /** The handler with deduplication in front of it; it counts every settlement it makes. */
  guard(inner: PaidServiceHandler): PaidServiceHandler {
    return { accepts: inner.accepts, handle: (request, response) => this.#handle(inner, request, response) };
  }

  inspect(): PaymentIdentifierActivity {
    return { seen: [...this.#seen], settlements: this.#settlements };
  }

  async #handle(inner: PaidServiceHandler, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const payment = readPayment(request);
    if (!payment?.id) return this.#run(inner, request, response, undefined);
    const { id, fingerprint } = payment;
    this.#seen.push(id);
    if (this.#seen.length > MAX_SEEN) this.#seen.shift();

    const remembered = this.#answers.get(id);
    if (remembered && remembered.fingerprint === fingerprint) return replay(response, remembered.response);
    if (remembered) {
      return sendProblem(
        response,
        409,
        "Payment identifier already used",
        "This payment identifier was already used with another payment. Nothing was charged.",
      );
    }
    if (this.#inFlight.has(id)) {
      return sendProblem(
        response,
        409,
        "Payment in progress",
        "A payment with this identifier is still being processed. Nothing was charged; retry once it has finished.",
      );
    }
    this.#inFlight.add(id);
    try {
      await this.#run(inner, request, response, { id, fingerprint });
    } finally {
      this.#inFlight.delete(id);
    }
  }

  async #run(
    inner: PaidServiceHandler,
    request: IncomingMessage,
    response: ServerResponse,
    payment: { id: string; fingerprint: string } | undefined,
  ): Promise<void> {
    const captured = captureResponse(response);
    await inner.handle(request, response);
    const sent = captured();
    // A settled payment is a 200 carrying the settlement's PAYMENT-RESPONSE.
    if (!sent || sent.status !== 200 || !headerValue(sent.headers, "payment-response")) return;
    this.#settlements += 1;
    if (payment) this.#answers.set(payment.id, { fingerprint: payment.fingerprint, response: sent });
  }
}

/** The payment identifier and the signed payment's fingerprint of a request, if it carries a readable v2 payment. */
function readPayment(request: IncomingMessage): { id: string | null; fingerprint: string } | undefined {
  const header = request.headers["payment-signature"];
  if (typeof header !== "string" || header.length === 0) return undefined;
  try {
    const payload = decodePaymentSignatureHeader(header);
    // The signed payment itself: the same authorization re-sent is the same payload.
    const fingerprint = createHash("sha256")
      .update(canonicalJson({ accepted: payload.accepted, payload: payload.payload }))
      .digest("hex");
    return { id: extractPaymentIdentifier(payload), fingerprint };
  } catch {
    // Unreadable: the x402 server answers it as it answers any bad payment.
    return undefined;
  }
}

function replay(response: ServerResponse, answer: CapturedResponse): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(answer.status, answer.headers);
  response.end(answer.body);
}

/** JSON with object keys sorted, so two encodings of one payment compare equal. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, child]) => child !== undefined);
    entries.sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, child]) => `${JSON.stringify(key)}:${canonicalJson(child)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/**
 * One cache per service of one local world. Kept beside the world's fault switches (the one
 * object every service handler of a world shares), so tests read a world's activity without a
 * new parameter through the devnet's start-up.
 */
const caches = new WeakMap<DevnetFaults, Map<string, PaymentIdentifierCache>>();

export function paymentIdentifierCacheFor(faults: DevnetFaults, serviceName: string): PaymentIdentifierCache {
  let byService = caches.get(faults);
  if (!byService) caches.set(faults, (byService = new Map()));
  let cache = byService.get(serviceName);
  if (!cache) byService.set(serviceName, (cache = new PaymentIdentifierCache()));
  return cache;
}

/**
 * For tests: the identifiers a service of this world was sent and how many settlements it made.
 * @example paymentIdentifierActivity(devnet.faults, "weather"); // { seen: ["pay_…"], settlements: 1 }
 */
export function paymentIdentifierActivity(faults: DevnetFaults, serviceName: string): PaymentIdentifierActivity {
  return paymentIdentifierCacheFor(faults, serviceName).inspect();
}
