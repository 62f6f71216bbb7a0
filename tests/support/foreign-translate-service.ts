/**
 * A foreign x402 v2 POST service: `POST /v1/translate` with a JSON body, declared with the
 * bazaar extension (body type, example body, a schema with required fields), built from
 * @x402/core and @x402/extensions alone.
 */
import type { DiscoveryResource } from "@x402/extensions/bazaar";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { z } from "zod";
import type { Devnet } from "../../devnet";
import { close, listen, parseJson, readBody, type ForeignService, type SeenRequest, type ServedRequest } from "./foreign-http";
import { catalogueEntryV2, exactUsdc, serveV2, startV2Routes } from "./foreign-v2";

export const TRANSLATE_PRICE = 30_000n; // 0.03 USDC

const TranslateBody = z.object({ text: z.string(), to: z.string() });

export async function startTranslateService(devnet: Devnet, payTo: `0x${string}`): Promise<{ service: ForeignService; listing: DiscoveryResource }> {
  const requests: SeenRequest[] = [];
  const served: ServedRequest[] = [];
  const http = await startV2Routes(devnet, {
    "POST /v1/translate": {
      accepts: exactUsdc(devnet, payTo, TRANSLATE_PRICE),
      description: "Translates a short text into another language.",
      mimeType: "application/json",
      serviceName: "Lingo Translate",
      tags: ["translate", "language"],
      extensions: declareDiscoveryExtension({
        bodyType: "json",
        input: { text: "Good morning", to: "fr" },
        inputSchema: {
          properties: { text: { type: "string", description: "Text to translate" }, to: { type: "string", description: "Target language code" } },
          required: ["text", "to"],
        },
        output: { example: { translation: "Bonjour", to: "fr" } },
      }),
    },
  });
  const { server, origin } = await listen(async (request, response, url) => {
    const paid = Boolean(request.headers["payment-signature"]);
    requests.push({ method: request.method ?? "", path: `${url.pathname}${url.search}`, paid });
    if (url.pathname !== "/v1/translate") return void response.writeHead(404).end();
    if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
    const raw = await readBody(request);
    await serveV2(http, request, response, url, () => {
      const body = TranslateBody.safeParse(parseJson(raw));
      if (!body.success) return { status: 400, body: { error: "text and to are required" } };
      served.push({ method: "POST", path: url.pathname, body: parseJson(raw) });
      return { status: 200, body: { translation: `[${body.data.to}] ${body.data.text}`, to: body.data.to } };
    });
  });
  const resource = `${origin}/v1/translate`;
  try {
    const listing = await catalogueEntryV2(resource, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    requests.length = 0;
    return {
      listing,
      service: { resource, host: new URL(origin).host, payTo, price: TRANSLATE_PRICE, requests, served, stop: () => close(server) },
    };
  } catch (error) {
    await close(server);
    throw error;
  }
}
