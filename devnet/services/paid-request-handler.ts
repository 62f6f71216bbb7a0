import type { IncomingMessage, ServerResponse } from "node:http";
import type { HTTPResponseInstructions } from "@x402/core/server";
import type { DevnetFaults } from "../faults";
import { sendJson, sendProblem } from "../http/json-response";
import { LOOPBACK_HOST } from "../http/listen";
import type { DemoService, ServiceContext } from "./service-catalog";

/** A demo service behind one x402 protocol version, ready to serve requests. */
export type PaidServiceHandler = {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The payment requirements its 402 lists, for the discovery catalog. */
  accepts: Record<string, unknown>[];
};

export type HandlerEnvironment = { faults: DevnetFaults; slowDelayMs: number };

/** What both protocol versions do before payment: route, method and query checks. */
export function preflight(service: DemoService, request: IncomingMessage, response: ServerResponse, hasPayment: boolean): URL | undefined {
  const url = new URL(request.url ?? "/", `http://${LOOPBACK_HOST}`);
  if (url.pathname.replace(/\/+$/, "") !== service.path) {
    sendProblem(response, 404, "Not found", `${service.serviceName} serves only ${service.path}.`);
    return undefined;
  }
  if (request.method !== "GET") {
    response.setHeader("Allow", "GET");
    sendProblem(response, 405, "Method not allowed", `${service.path} answers GET with query parameters.`);
    return undefined;
  }
  // A paid request with an unusable question is refused before its payment is even verified,
  // so a bad request can never cost anything. An unpaid one still gets its 402 quote.
  const problem = hasPayment ? service.checkQuery(url.searchParams) : undefined;
  if (problem) {
    sendProblem(response, 400, "Invalid request", `${problem}. Your payment was not used.`);
    return undefined;
  }
  return url;
}

/**
 * Aborts when the caller disconnects before its answer is written. Set up as soon as a request
 * arrives: the caller may give up while the payment is still being verified.
 */
export function watchCaller(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort(new Error("the caller disconnected"));
  });
  return controller.signal;
}

export type ProducedAnswer = { kind: "answer"; body: string } | { kind: "caller-gone" } | { kind: "failed" };

/**
 * Produces the paid answer, after verification and before settlement. Returns "failed" (and
 * has already answered 500) under the service-failure fault or on an error; "caller-gone" when
 * the client disconnected meanwhile. In both cases the payment must not be settled: settling
 * only happens for an answer that is about to be delivered.
 */
export async function produceAnswer(
  service: DemoService,
  url: URL,
  response: ServerResponse,
  callerGone: AbortSignal,
  environment: HandlerEnvironment,
): Promise<ProducedAnswer> {
  if (callerGone.aborted) return { kind: "caller-gone" };
  if (environment.faults.isServiceFailing(service.name)) {
    sendProblem(response, 500, "Service error", `${service.serviceName} failed after verifying your payment. The payment was not settled: nothing was charged.`);
    return { kind: "failed" };
  }
  const context: ServiceContext = { slowDelayMs: environment.slowDelayMs, signal: callerGone };
  try {
    const answer = await service.answer(url.searchParams, context);
    // Settling now would charge for an answer nobody receives.
    if (callerGone.aborted) return { kind: "caller-gone" };
    if (!answer.ok) {
      sendProblem(response, 400, "Invalid request", `${answer.detail}. The payment was not settled.`);
      return { kind: "failed" };
    }
    return { kind: "answer", body: JSON.stringify(answer.body) };
  } catch {
    if (callerGone.aborted) return { kind: "caller-gone" };
    sendProblem(response, 500, "Service error", `${service.serviceName} failed. The payment was not settled: nothing was charged.`);
    return { kind: "failed" };
  }
}

/** Writes @x402/core's response instructions (a 402 with its headers, mostly). */
export function writeInstructions(response: ServerResponse, instructions: HTTPResponseInstructions): void {
  if (response.headersSent || response.destroyed) return;
  if (instructions.isHtml) {
    response.writeHead(instructions.status, instructions.headers);
    response.end(String(instructions.body ?? ""));
    return;
  }
  sendJson(response, instructions.status, instructions.body ?? {}, instructions.headers);
}

/** The facilitator did not answer in time or answered nonsense: the service cannot take payments now. */
export function sendFacilitatorUnavailable(response: ServerResponse, during: "verify" | "settle"): void {
  sendProblem(
    response,
    502,
    "Payment facilitator unavailable",
    during === "verify"
      ? "The payment could not be verified because the facilitator did not answer. Nothing was charged."
      : "The facilitator did not confirm the settlement in time; the payment may or may not have been settled.",
  );
}
