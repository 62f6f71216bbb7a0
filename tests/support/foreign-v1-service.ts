/**
 * A foreign x402 v1 service, described only by its requirement's `outputSchema`: `POST
 * /v1/convert` with a JSON body whose fields are declared by `bodyType` and `bodyFields`. The
 * v1 exchange is written out here (@x402/core's HTTP resource server answers only in v2): the
 * requirements in the 402 body, the payment in `X-PAYMENT`, the receipt in `X-PAYMENT-RESPONSE`,
 * verified and settled through the local world's facilitator with @x402/core's facilitator
 * client. The chain is named by its v1 name, which the local world registers for the exact
 * scheme. Its catalogue entry is what a v1 facilitator lists: the 402's requirements, nothing more.
 */
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, PaymentRequirementsV1 } from "@x402/core/types";
import { extractDiscoveryInfoV1, type DiscoveryResource } from "@x402/extensions/bazaar";
import { z } from "zod";
import type { Devnet } from "../../devnet";
import { answerWith, close, listen, parseJson, readBody, sendJson, type ForeignService, type SeenRequest, type ServedRequest } from "./foreign-http";

export const CONVERT_PRICE = 15_000n; // 0.015 USDC

const RATES: Record<string, number> = { USD: 1, EUR: 0.9, GBP: 0.8 };

const ConvertBody = z.object({ amount: z.number().positive(), from: z.string(), to: z.string() });

/** An x402 v1 payment as `X-PAYMENT` carries it (base64 JSON); the facilitator checks the rest. */
const PaymentV1 = z.object({ x402Version: z.literal(1), scheme: z.string(), network: z.string(), payload: z.record(z.string(), z.unknown()) });

export async function startV1ConvertService(devnet: Devnet, payTo: `0x${string}`): Promise<{ service: ForeignService; listing: DiscoveryResource }> {
  const requests: SeenRequest[] = [];
  const served: ServedRequest[] = [];
  const facilitator = new HTTPFacilitatorClient({ url: devnet.facilitatorUrl });
  const { server, origin } = await listen();
  const resource = `${origin}/v1/convert`;
  const requirements = convertRequirements(devnet, resource, payTo);
  answerWith(server, origin, async (request, response, url) => {
    const header = request.headers["x-payment"];
    const paymentHeader = Array.isArray(header) ? header[0] : header;
    requests.push({ method: request.method ?? "", path: `${url.pathname}${url.search}`, paid: Boolean(paymentHeader) });
    if (url.pathname !== "/v1/convert") return void response.writeHead(404).end();
    if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
    const raw = await readBody(request);
    const paymentRequired = (error: string) => sendJson(response, 402, { x402Version: 1, error, accepts: [requirements] });
    if (!paymentHeader) return paymentRequired("X-PAYMENT header is required");
    const payment = PaymentV1.safeParse(parseJson(Buffer.from(paymentHeader, "base64").toString("utf8")));
    if (!payment.success || payment.data.scheme !== requirements.scheme || payment.data.network !== requirements.network) {
      return paymentRequired("invalid_payment");
    }
    // The facilitator client is typed for v2; it passes a v1 payload on with its own x402Version.
    const payload = payment.data as unknown as PaymentPayload;
    const asRequirements = requirements as unknown as PaymentRequirements;
    const verification = await facilitator.verify(payload, asRequirements);
    if (!verification.isValid) return paymentRequired(verification.invalidReason ?? "invalid_payment");

    const body = ConvertBody.safeParse(parseJson(raw));
    const from = body.success ? RATES[body.data.from] : undefined;
    const to = body.success ? RATES[body.data.to] : undefined;
    if (!body.success || from === undefined || to === undefined)
      return sendJson(response, 400, { error: "amount, from and to (USD, EUR or GBP) are required" });
    served.push({ method: "POST", path: url.pathname, body: parseJson(raw) });
    const answer = JSON.stringify({ amount: Math.round((body.data.amount / from) * to * 100) / 100, currency: body.data.to });

    const settlement = await facilitator.settle(payload, asRequirements);
    const receipt = { "X-PAYMENT-RESPONSE": Buffer.from(JSON.stringify(settlement)).toString("base64") };
    if (!settlement.success)
      return sendJson(response, 402, { x402Version: 1, error: settlement.errorReason ?? "settlement_failed", accepts: [requirements] }, receipt);
    response.writeHead(200, { "content-type": "application/json", ...receipt }).end(answer);
  });
  try {
    return {
      listing: await catalogueEntryV1(resource),
      service: { resource, host: new URL(origin).host, payTo, price: CONVERT_PRICE, requests, served, stop: () => close(server) },
    };
  } catch (error) {
    await close(server);
    throw error;
  } finally {
    requests.length = 0;
  }
}

/** The one requirement of the service: its price, payee and, in `outputSchema`, how to call it. */
function convertRequirements(devnet: Devnet, resource: string, payTo: `0x${string}`): PaymentRequirementsV1 {
  return {
    scheme: "exact",
    network: devnet.v1Network as PaymentRequirementsV1["network"],
    maxAmountRequired: CONVERT_PRICE.toString(),
    resource,
    description: "Converts an amount of money between USD, EUR and GBP.",
    mimeType: "application/json",
    payTo,
    maxTimeoutSeconds: 120,
    asset: devnet.usdc,
    extra: { name: devnet.usdcName ?? "USD Coin", version: devnet.usdcVersion ?? "2" },
    outputSchema: {
      input: {
        type: "http",
        method: "POST",
        bodyType: "json",
        bodyFields: {
          amount: { type: "number", required: true, description: "Amount to convert" },
          from: { type: "string", required: true, description: "Currency code to convert from" },
          to: { type: "string", required: true, description: "Currency code to convert to" },
        },
      },
      output: { amount: 92.5, currency: "EUR" },
    },
  };
}

/** The listing of a v1 service: its 402 body's requirements, checked discoverable as a v1 facilitator would. */
async function catalogueEntryV1(resource: string): Promise<DiscoveryResource> {
  const unpaid = await fetch(resource, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const body = z.object({ x402Version: z.literal(1), accepts: z.array(z.record(z.string(), z.unknown())).min(1) }).parse(await unpaid.json());
  const [accepted] = body.accepts as unknown as PaymentRequirementsV1[];
  if (unpaid.status !== 402 || !accepted || !extractDiscoveryInfoV1(accepted))
    throw new Error(`${resource} answered ${unpaid.status} without a discoverable v1 requirement`);
  return {
    resource: accepted.resource,
    type: "http",
    x402Version: 1,
    // The spec's type names v2 requirements; a v1 entry lists the v1 ones, `outputSchema` and all.
    accepts: body.accepts as unknown as DiscoveryResource["accepts"],
    lastUpdated: new Date().toISOString(),
    description: accepted.description,
    mimeType: accepted.mimeType,
  };
}
