import type { IncomingMessage, ServerResponse } from "node:http";
import type { HTTPResponseInstructions } from "@x402/core/server";
import type { DevnetFaults } from "../faults";
import { sendJson, sendProblem } from "../http/json-response";
import { LOOPBACK_HOST } from "../http/listen";
import { readJsonBody } from "../http/read-json-body";
import type { DemoService, ServiceContext, ServiceInput } from "./define-service";
import type { PaidRequestOutcomes } from "./paid-outcomes";

/** A demo service behind one x402 protocol version, ready to serve requests. */
export type PaidServiceHandler = {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** The payment requirements its 402 lists, for the discovery catalog. */
  accepts: Record<string, unknown>[];
};

export type HandlerEnvironment = { faults: DevnetFaults; slowDelayMs: number; outcomes: PaidRequestOutcomes };

/** A request that passed the checks before payment: its URL and its inputs, wherever they came from. */
export type AcceptedRequest = { url: URL; input: ServiceInput };

/**
 * What both protocol versions do before payment: route, method and input checks. The inputs
 * come from the query string, the path (a route template's `:name` segments) or a JSON body,
 * as the service declares.
 */
export async function preflight(
  service: DemoService,
  request: IncomingMessage,
  response: ServerResponse,
  hasPayment: boolean,
): Promise<AcceptedRequest | undefined> {
  // The port the request came in on, so that the 402's `resource.url` is the service's real URL.
  const url = new URL(request.url ?? "/", `http://${LOOPBACK_HOST}:${request.socket.localPort ?? 80}`);
  const fromPath = matchRoute(service.path, url.pathname);
  if (!fromPath) {
    sendProblem(response, 404, "Not found", `${service.serviceName} serves only ${service.path}.`);
    return undefined;
  }
  if (request.method !== service.method) {
    response.setHeader("Allow", service.method);
    sendProblem(response, 405, "Method not allowed", `${service.path} answers ${service.method}${service.inputIn === "json-body" ? " with a JSON body" : ""}.`);
    return undefined;
  }
  let input: ServiceInput;
  if (service.inputIn === "json-body") {
    const body = await readJsonBody(request);
    // An unpaid request is quoted whatever its body; a paid one must carry a usable one.
    if (!body.ok && hasPayment) {
      sendProblem(response, body.status, "Invalid request", `${body.detail}. Your payment was not used.`);
      return undefined;
    }
    input = body.ok && body.value !== null && typeof body.value === "object" && !Array.isArray(body.value) ? (body.value as ServiceInput) : {};
  } else {
    input = service.inputIn === "path" ? fromPath : Object.fromEntries(url.searchParams.entries());
  }
  // A paid request with an unusable question is refused before its payment is even verified,
  // so a bad request can never cost anything. An unpaid one still gets its 402 quote.
  const problem = hasPayment ? service.checkInput(input) : undefined;
  if (problem) {
    sendProblem(response, 400, "Invalid request", `${problem}. Your payment was not used.`);
    return undefined;
  }
  return { url, input };
}

/**
 * The path parameters of a request for a route (`/stocks/:ticker/quote`), or undefined when the
 * path is not this route's. A trailing slash is forgiven; a value is one decoded segment.
 */
export function matchRoute(route: string, pathname: string): Record<string, string> | undefined {
  const wanted = route.split("/");
  const given = pathname.replace(/(.)\/+$/, "$1").split("/");
  if (wanted.length !== given.length) return undefined;
  const values: Record<string, string> = {};
  for (const [index, part] of wanted.entries()) {
    const segment = given[index] ?? "";
    const name = /^:(\w+)$/.exec(part)?.[1];
    if (name === undefined) {
      if (segment !== part) return undefined;
      continue;
    }
    try {
      values[name] = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  return values;
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

/** `settleAmount`: what a metered service settles for this answer (USDC base units); the price otherwise. */
export type ProducedAnswer = { kind: "answer"; body: string; settleAmount?: bigint } | { kind: "caller-gone" } | { kind: "failed" };

/**
 * Produces the paid answer, after verification and before settlement. Returns "failed" (and
 * has already answered 500) under the service-failure fault or on an error; "caller-gone" when
 * the client disconnected meanwhile. In both cases the payment must not be settled: settling
 * only happens for an answer that is about to be delivered.
 */
export async function produceAnswer(
  service: DemoService,
  input: ServiceInput,
  response: ServerResponse,
  callerGone: AbortSignal,
  environment: HandlerEnvironment,
): Promise<ProducedAnswer> {
  const produced = await answerOrRefuse(service, input, response, callerGone, environment);
  environment.outcomes.record(produced.kind);
  return produced;
}

async function answerOrRefuse(
  service: DemoService,
  input: ServiceInput,
  response: ServerResponse,
  callerGone: AbortSignal,
  environment: HandlerEnvironment,
): Promise<ProducedAnswer> {
  if (callerGone.aborted) return { kind: "caller-gone" };
  if (environment.faults.isServiceFailing(service.name)) {
    sendProblem(
      response,
      500,
      "Service error",
      `${service.serviceName} failed after verifying your payment. The payment was not settled: nothing was charged.`,
    );
    return { kind: "failed" };
  }
  const context: ServiceContext = { slowDelayMs: environment.slowDelayMs, signal: callerGone };
  try {
    const answer = await service.answer(input, context);
    // Settling now would charge for an answer nobody receives.
    if (callerGone.aborted) return { kind: "caller-gone" };
    if (!answer.ok) {
      sendProblem(response, 400, "Invalid request", `${answer.detail}. The payment was not settled.`);
      return { kind: "failed" };
    }
    return { kind: "answer", body: JSON.stringify(answer.body), ...(answer.settleAmount === undefined ? {} : { settleAmount: answer.settleAmount }) };
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
