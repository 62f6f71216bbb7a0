/**
 * Test support: a hostile paid service on 127.0.0.1 that speaks x402 v2 for real (402 with a
 * `PAYMENT-REQUIRED` header, `PAYMENT-SIGNATURE` in, verify and settle through the local
 * facilitator over HTTP, `PAYMENT-RESPONSE` out), but whose words are an attack: prompt
 * injections in its 402 and in its paid answers, prices above any limit, payment options on
 * other networks or in other tokens, redirects to places the agent must not go.
 *
 * It records every connection, every request and every payment it was offered or settled, so a
 * test can prove what the agent did and did not send. Start it before the local world (its port
 * goes into `OUTBOUND_ALLOWLIST`), then `configure` it with the world's facilitator and token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { startLoopbackServer, type LoopbackServer } from "./loopback-server";

/** What the service needs to know about the local world to ask for (and settle) payments. */
export type HostileWorld = {
  facilitatorUrl: string;
  /** CAIP-2 id of the local chain, e.g. "eip155:31337". */
  network: `${string}:${string}`;
  usdc: string;
  usdcName: string;
  usdcVersion: string;
};

export type HostileRoute = {
  /** The payment options the 402 offers (none: the route answers for free). */
  accepts?(world: HostileWorld, url: URL): PaymentRequirements[];
  /** Text placed in the 402: header `error`, resource description, and the JSON body. */
  pitch?: string;
  /** The JSON body of a paid (or free) answer; `paidCount` counts this route's settlements so far. */
  answer?(url: URL, paidCount: number): unknown;
  /** Answers every request with a redirect here instead. */
  redirectTo?: string;
  /**
   * Takes the payment but never settles it: answers 200 with a `PAYMENT-RESPONSE` claiming
   * success and this transaction hash (made up, or another payment's).
   */
  fakeSettlement?(): string;
  /** What the service does once it holds a payment signature (it never verifies first). */
  afterPayment?: AfterPaymentTrick;
  /** The `extensions` its 402 declares (bazaar, payment-identifier, …). */
  extensions?: Record<string, unknown>;
};

/**
 * The tricks of a seller that took the signature: how it answers, and whether and when it
 * settles the signature itself through the facilitator.
 */
export type AfterPaymentTrick = {
  answer: "402" | "500" | "hang" | "reset" | "garbage" | "redirect" | "fake-claim" | "honest";
  settle: "never" | "now" | "later" | "twice";
  /** For "later": how long after answering. Default 1500 ms. */
  laterMs?: number;
  /**
   * For "402": answer as the official resource server does when its facilitator refuses
   * verification, with this `error` in the `PAYMENT-REQUIRED` header.
   */
  refusal?: string;
};

export type ReceivedAuthorization = { path: string; nonce: string; validBefore: number; from: string; at: number };

export type HostileRequest = { method: string; path: string; search: string; hasPayment: boolean; body: string; contentType?: string };
export type HostileSettlement = {
  path: string;
  payTo: string;
  amount: string;
  network: string;
  asset: string;
  transaction: string;
  /** The authorization's nonce, for an EIP-3009 payload. */
  nonce?: string;
  /** When the facilitator's settlement returned (epoch ms): the transfer was mined by then. */
  at: number;
};
export type HostilePaymentOffer = { path: string; accepted: unknown; outcome: "settled" | "not-settled" | "not-offered" | "invalid" | "failed" };

export type HostileService = {
  origin: string;
  port: number;
  url(path: string): string;
  configure(world: HostileWorld): void;
  /** Sockets accepted so far. */
  connections(): number;
  requests: HostileRequest[];
  /** Every request that carried a payment, and what became of it. */
  offers: HostilePaymentOffer[];
  settlements: HostileSettlement[];
  /** Every authorization a paid request carried, with its validity. */
  authorizations: ReceivedAuthorization[];
  /** Every readable payment payload a paid request carried, as decoded from its header. */
  payloads: { path: string; payload: PaymentPayload }[];
  /** Resolves when every settlement the service started (now or later) has finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
};

function settlementOf(path: string, payload: PaymentPayload, offered: PaymentRequirements, transaction: string): HostileSettlement {
  const nonce = (payload.payload as { authorization?: { nonce?: string } }).authorization?.nonce;
  return { path, payTo: offered.payTo, amount: offered.amount, network: offered.network, asset: offered.asset, transaction, nonce, at: Date.now() };
}

/** USDC base units as the x402 `amount` string. */
export function usdcUnits(decimal: string): string {
  const [whole = "0", fraction = ""] = decimal.split(".");
  return (BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"))).toString();
}

/** A v2 `exact` option for the world's USDC, with overrides for the hostile variants. */
export function exactUsdcOption(world: HostileWorld, terms: { amount: string; payTo: string } & Partial<PaymentRequirements>): PaymentRequirements {
  return {
    scheme: "exact",
    network: world.network,
    asset: world.usdc,
    maxTimeoutSeconds: 120,
    extra: { name: world.usdcName, version: world.usdcVersion },
    ...terms,
  };
}

/**
 * Starts the service on 127.0.0.1 and a free port.
 *
 * @example
 * const hostile = await startHostileService({ "/data": { accepts: (world) => [exactUsdcOption(world, { amount: "10000", payTo })] } });
 * hostile.configure(world); // after the local world is up
 */
export async function startHostileService(routes: Record<string, HostileRoute>): Promise<HostileService> {
  let world: HostileWorld | undefined;
  let facilitator: HTTPFacilitatorClient | undefined;
  let connections = 0;
  const requests: HostileRequest[] = [];
  const offers: HostilePaymentOffer[] = [];
  const settlements: HostileSettlement[] = [];
  const authorizations: ReceivedAuthorization[] = [];
  const payloads: HostileService["payloads"] = [];
  const settling = new Set<Promise<unknown>>();
  const hung = new Set<ServerResponse>();

  const server = createServer((request, response) => {
    readBody(request)
      .then((body) => handle(request, body, response))
      .catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: "hostile_service_failed", message: String(error) });
        else response.destroy();
      });
  });
  server.on("connection", () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  async function handle(request: IncomingMessage, body: string, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", origin);
    const paymentHeader = request.headers["payment-signature"];
    const contentType = request.headers["content-type"];
    requests.push({
      method: request.method ?? "",
      path: url.pathname,
      search: url.search,
      hasPayment: paymentHeader !== undefined,
      body,
      ...(contentType === undefined ? {} : { contentType }),
    });
    const route = routes[url.pathname];
    if (!route) return sendJson(response, 404, { error: "not_found" });
    if (route.redirectTo) {
      response.writeHead(302, { Location: route.redirectTo });
      response.end();
      return;
    }
    const paidSoFar = () => settlements.filter((settlement) => settlement.path === url.pathname).length;
    if (!route.accepts) return sendJson(response, 200, route.answer?.(url, paidSoFar()) ?? { ok: true });
    if (!world || !facilitator) throw new Error("hostile service used before configure()");
    const accepts = route.accepts(world, url);
    const pitch = route.pitch ?? "Payment required.";
    const askForPayment = (error: string) => {
      const header = encodePaymentRequiredHeader({
        x402Version: 2,
        error,
        resource: { url: url.toString(), description: pitch, mimeType: "application/json" },
        accepts,
        ...(route.extensions ? { extensions: route.extensions } : {}),
      });
      sendJson(response, 402, { error: "payment_required", message: pitch }, { "PAYMENT-REQUIRED": header });
    };
    if (typeof paymentHeader !== "string") return askForPayment(pitch);

    let payload: PaymentPayload;
    try {
      payload = decodePaymentSignatureHeader(paymentHeader);
    } catch {
      offers.push({ path: url.pathname, accepted: undefined, outcome: "invalid" });
      return askForPayment("unreadable payment");
    }
    payloads.push({ path: url.pathname, payload });
    // Settle only an option this route actually offered (as a real resource server does).
    const offered = accepts.find((option) => isDeepStrictEqual(JSON.parse(JSON.stringify(option)), payload.accepted));
    if (!offered) {
      offers.push({ path: url.pathname, accepted: payload.accepted, outcome: "not-offered" });
      return askForPayment("payment does not match an offered option");
    }
    const authorization = (payload.payload as { authorization?: { nonce?: string; validBefore?: string; from?: string } }).authorization;
    if (authorization?.nonce) {
      authorizations.push({
        path: url.pathname,
        nonce: authorization.nonce,
        validBefore: Number(authorization.validBefore),
        from: authorization.from ?? "",
        at: Date.now(),
      });
    }
    if (route.afterPayment) return playTrick(route.afterPayment, url, payload, offered, response);
    const verified = await facilitator.verify(payload, offered);
    if (!verified.isValid) {
      offers.push({ path: url.pathname, accepted: payload.accepted, outcome: "invalid" });
      return askForPayment(`invalid payment: ${verified.invalidReason ?? "unknown"}`);
    }
    const answer = route.answer?.(url, paidSoFar() + 1) ?? { ok: true };
    if (route.fakeSettlement) {
      offers.push({ path: url.pathname, accepted: payload.accepted, outcome: "not-settled" });
      const claim = { success: true, transaction: route.fakeSettlement(), network: offered.network, payer: verified.payer };
      return sendJson(response, 200, answer, { "PAYMENT-RESPONSE": encodePaymentResponseHeader(claim) });
    }
    const settled = await facilitator.settle(payload, offered);
    if (!settled.success) {
      offers.push({ path: url.pathname, accepted: payload.accepted, outcome: "failed" });
      return askForPayment(`settlement failed: ${settled.errorReason ?? "unknown"}`);
    }
    offers.push({ path: url.pathname, accepted: payload.accepted, outcome: "settled" });
    settlements.push(settlementOf(url.pathname, payload, offered, settled.transaction));
    sendJson(response, 200, answer, { "PAYMENT-RESPONSE": encodePaymentResponseHeader(settled) });
  }

  /** Settles through the facilitator and records it; failures (a used nonce) are recorded too. */
  async function settleNow(path: string, payload: PaymentPayload, offered: PaymentRequirements): Promise<string | undefined> {
    const settled = await facilitator!.settle(payload, offered).catch(() => undefined);
    if (!settled?.success) {
      offers.push({ path, accepted: payload.accepted, outcome: "failed" });
      return undefined;
    }
    offers.push({ path, accepted: payload.accepted, outcome: "settled" });
    settlements.push(settlementOf(path, payload, offered, settled.transaction));
    return settled.transaction;
  }

  async function playTrick(trick: AfterPaymentTrick, url: URL, payload: PaymentPayload, offered: PaymentRequirements, response: ServerResponse): Promise<void> {
    const track = (work: Promise<unknown>) => {
      settling.add(work);
      void work.finally(() => settling.delete(work));
    };
    let transaction: string | undefined;
    if (trick.settle === "now" || trick.settle === "twice") transaction = await settleNow(url.pathname, payload, offered);
    if (trick.settle === "twice") track(settleNow(url.pathname, payload, offered));
    if (trick.settle === "later") {
      track(new Promise((resolve) => setTimeout(resolve, trick.laterMs ?? 1_500)).then(() => settleNow(url.pathname, payload, offered)));
    }
    switch (trick.answer) {
      case "402":
        if (trick.refusal !== undefined) {
          const header = encodePaymentRequiredHeader({ x402Version: 2, error: trick.refusal, resource: { url: url.toString() }, accepts: [offered] });
          return sendJson(response, 402, {}, { "PAYMENT-REQUIRED": header });
        }
        return sendJson(response, 402, { error: "payment_required", message: "Payment required." });
      case "500":
        return sendJson(response, 500, { error: "internal" });
      case "hang":
        hung.add(response);
        return;
      case "reset":
        response.socket?.destroy();
        return;
      case "garbage":
        response.socket?.end("HTTP/1.1 2OO ALL GOOD\r\nthis is not http\r\n\r\n");
        return;
      case "redirect":
        response.writeHead(302, { Location: "http://10.0.0.1/collect" });
        response.end();
        return;
      case "fake-claim": {
        const claim = { success: true, transaction: `0x${"fa".repeat(32)}`, network: offered.network };
        return sendJson(response, 200, { data: "paid content" }, { "PAYMENT-RESPONSE": encodePaymentResponseHeader(claim) });
      }
      case "honest": {
        const claim = transaction
          ? { success: true, transaction, network: offered.network }
          : { success: false, errorReason: "not settled", transaction: "", network: offered.network };
        return sendJson(response, transaction ? 200 : 402, { data: "paid content" }, { "PAYMENT-RESPONSE": encodePaymentResponseHeader(claim) });
      }
    }
  }

  return {
    origin,
    port,
    url: (path) => `${origin}${path}`,
    configure(next) {
      world = next;
      facilitator = new HTTPFacilitatorClient({ url: next.facilitatorUrl });
    },
    connections: () => connections,
    requests,
    offers,
    settlements,
    authorizations,
    payloads,
    settled: async () => {
      while (settling.size > 0) await Promise.allSettled([...settling]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hung) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A plain recording server (no x402) on a loopback address, to prove a refused target was never
 * connected to: it answers every request with data that must never reach the agent.
 */
export function startRecordingServer(host: "127.0.0.1" | "::1" = "127.0.0.1"): Promise<LoopbackServer> {
  return startLoopbackServer((_request, response) => sendJson(response, 200, { secret: "internal data that must never reach the agent" }), { host });
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** What a hostile service needs of a running local world, as the app sees it. */
export function hostileWorldOf(
  devnet: { facilitatorUrl: string; network: string; usdc: string },
  token: { usdcName: string; usdcVersion: string },
): HostileWorld {
  return {
    facilitatorUrl: devnet.facilitatorUrl,
    network: devnet.network as `${string}:${string}`,
    usdc: devnet.usdc,
    usdcName: token.usdcName,
    usdcVersion: token.usdcVersion,
  };
}
