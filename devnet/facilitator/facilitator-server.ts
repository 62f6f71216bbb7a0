import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { x402Facilitator } from "@x402/core/facilitator";
import { parsePaymentPayload, parsePaymentRequirements } from "@x402/core/schemas";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { z } from "zod";
import { FaultUpdate, type DevnetFaults } from "../faults";
import { sendJson, sendProblem } from "../http/json-response";
import { closeServer, listen, LOOPBACK_HOST } from "../http/listen";
import { readJsonBody } from "../http/read-json-body";
import { acceptChannelOperationTimeout } from "./channel-operation-envelope";
import { ListQuery, listDiscoveryItems, SearchQuery, searchDiscoveryItems, type DiscoveryItem } from "./discovery-catalog";

export type FacilitatorServer = {
  url: string;
  port: number;
  /** The discovery catalog; set once the services (and so their URLs) exist. */
  setCatalog(items: DiscoveryItem[]): void;
  stop(): Promise<void>;
};

export type StartFacilitatorServerOptions = { facilitator: x402Facilitator; faults: DevnetFaults };

/** The envelope of /verify and /settle, as @x402/core's HTTPFacilitatorClient sends it. */
const PaymentRequestBody = z.object({
  x402Version: z.number().int().optional(),
  paymentPayload: z.record(z.string(), z.unknown()),
  paymentRequirements: z.record(z.string(), z.unknown()),
});

/** Who pays: an EIP-3009 authorization's `from` (exact), or a Permit2 authorization's (upto). */
const PayerPayload = z.union([
  z.object({ payload: z.object({ authorization: z.object({ from: z.string() }) }) }).transform((value) => value.payload.authorization.from),
  z.object({ payload: z.object({ permit2Authorization: z.object({ from: z.string() }) }) }).transform((value) => value.payload.permit2Authorization.from),
]);

/**
 * The local facilitator over HTTP: the x402 endpoints (`GET /supported`, `POST /verify`,
 * `POST /settle`), Bazaar discovery (`GET /discovery/resources`, `GET /discovery/search`), and
 * the devnet's fault switches (`GET|POST /_devnet/faults`, `POST /_devnet/faults/reset`).
 */
export async function startFacilitatorServer(options: StartFacilitatorServerOptions): Promise<FacilitatorServer> {
  const { facilitator, faults } = options;
  let catalog: DiscoveryItem[] = [];

  const server = createServer((request, response) => {
    handle(request, response).catch(() => sendProblem(response, 500, "Facilitator error", "The devnet facilitator failed unexpectedly."));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", `http://${LOOPBACK_HOST}`);
    const route = `${request.method ?? "GET"} ${url.pathname.replace(/\/+$/, "") || "/"}`;
    switch (route) {
      case "GET /supported":
        if (await heldUntilStopped(request)) return;
        return sendJson(response, 200, facilitator.getSupported());
      case "POST /verify":
      case "POST /settle":
        if (await heldUntilStopped(request)) return;
        return handlePayment(route === "POST /verify" ? "verify" : "settle", request, response);
      case "GET /discovery/resources": {
        const query = ListQuery.safeParse(Object.fromEntries(url.searchParams));
        if (!query.success) return sendProblem(response, 400, "Invalid discovery query", describe(query.error));
        return sendJson(response, 200, listDiscoveryItems(catalog, query.data));
      }
      case "GET /discovery/search": {
        const query = SearchQuery.safeParse(Object.fromEntries(url.searchParams));
        if (!query.success) return sendProblem(response, 400, "Invalid search query", describe(query.error));
        return sendJson(response, 200, searchDiscoveryItems(catalog, query.data));
      }
      case "GET /_devnet/faults":
        return sendJson(response, 200, faults.get());
      case "POST /_devnet/faults": {
        const body = await readJsonBody(request);
        if (!body.ok) return sendProblem(response, body.status, "Invalid fault change", body.detail);
        const update = FaultUpdate.safeParse(body.value);
        if (!update.success) return sendProblem(response, 400, "Invalid fault change", describe(update.error));
        try {
          return sendJson(response, 200, await faults.set(update.data));
        } catch (error) {
          return sendProblem(response, 400, "Invalid fault change", error instanceof Error ? error.message : String(error));
        }
      }
      case "POST /_devnet/faults/reset":
        return sendJson(response, 200, await faults.reset());
      case "GET /health":
        return sendJson(response, 200, { ok: true });
      default:
        return sendProblem(response, 404, "Not found", `The devnet facilitator has no ${route}.`);
    }
  }

  /** Under the "facilitator hangs" fault: waits; true when the devnet stopped meanwhile (the socket is dropped). */
  async function heldUntilStopped(request: IncomingMessage): Promise<boolean> {
    if ((await faults.waitWhileFacilitatorHangs()) === "released") return false;
    request.socket.destroy();
    return true;
  }

  async function handlePayment(kind: "verify" | "settle", request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refuse = (status: number, reason: string, message: string) =>
      sendJson(
        response,
        status,
        kind === "verify"
          ? { isValid: false, invalidReason: reason, invalidMessage: message }
          : { success: false, errorReason: reason, errorMessage: message, transaction: "", network: "" },
      );
    const body = await readJsonBody(request);
    if (!body.ok) return refuse(body.status, "invalid_request", body.detail);
    const envelope = PaymentRequestBody.safeParse(body.value);
    if (!envelope.success) return refuse(400, "invalid_request", describe(envelope.error));
    const checked = acceptChannelOperationTimeout(envelope.data);
    const payload = parsePaymentPayload(checked.paymentPayload);
    if (!payload.success) return refuse(400, "invalid_payload", payload.error.issues.map((issue) => issue.message).join("; "));
    const requirements = parsePaymentRequirements(checked.paymentRequirements);
    if (!requirements.success) return refuse(400, "invalid_payment_requirements", requirements.error.issues.map((issue) => issue.message).join("; "));

    const payer = PayerPayload.safeParse(payload.data).data;
    const network = String(envelope.data.paymentRequirements.network ?? "");
    if (kind === "verify" && faults.verifyFails) {
      return sendJson(response, 200, {
        isValid: false,
        invalidReason: "devnet_fault_verify_failed",
        invalidMessage: "The devnet's verify fault is on.",
        payer,
      });
    }
    if (kind === "settle" && faults.settleFails) {
      return sendJson(response, 200, {
        success: false,
        errorReason: "devnet_fault_settle_failed",
        errorMessage: "The devnet's settle fault is on; nothing was broadcast.",
        transaction: "",
        network,
        payer,
      });
    }
    // x402Facilitator routes v1 and v2 alike by `x402Version`; its signature names only the v2 types.
    const paymentPayload = payload.data as PaymentPayload;
    const paymentRequirements = requirements.data as PaymentRequirements;
    try {
      const result =
        kind === "verify" ? await facilitator.verify(paymentPayload, paymentRequirements) : await facilitator.settle(paymentPayload, paymentRequirements);
      sendJson(response, 200, result);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // x402Facilitator throws for a version, scheme or network it does not support: the caller's fault.
      if (message.startsWith("No facilitator registered")) return refuse(400, "unsupported_scheme", message);
      refuse(500, "unexpected_error", "The devnet facilitator failed unexpectedly.");
    }
  }

  const port = await listen(server);
  return {
    url: `http://${LOOPBACK_HOST}:${port}`,
    port,
    setCatalog: (items) => {
      catalog = items;
    },
    stop: () => closeServer(server),
  };
}

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; ");
}
