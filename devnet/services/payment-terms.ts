import type { PaymentRequirementsV1 } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { Address, Hex } from "viem";
import { exampleInput, type DemoService, type ServiceParameter } from "./define-service";

/** How long a signed payment for a demo service stays valid (x402 `maxTimeoutSeconds`). */
export const MAX_TIMEOUT_SECONDS = 120;

/** The token a service is paid in, with the EIP-712 domain its authorizations are signed for. */
export type TokenTerms = { address: Address; name: string; version: string };

export type PaymentTerms = {
  /** CAIP-2 network for v2 services, e.g. "eip155:31337". */
  network: `${string}:${string}`;
  /** The v1 name of the same chain, e.g. "anvil". */
  v1Network: string;
  token: TokenTerms;
  payTo: Address;
  /** The payee's private key: the services sign offers and receipts with it (signed-receipts.ts). */
  payeeKey?: Hex;
};

/**
 * The Bazaar discovery extension of a service, as @x402/extensions declares one: method, its
 * inputs where it takes them (query, path or JSON body, with examples and a JSON schema) and an
 * example output, so an agent knows how to call it before paying. A route template's path
 * parameters also get the template itself, as the bazaar spec's catalogue entries carry it.
 */
export function discoveryExtensionFor(service: DemoService): Record<string, unknown> {
  const entries = Object.entries(service.parameters);
  const examples = exampleInput(service);
  const schema = {
    properties: Object.fromEntries(
      entries.map(([key, parameter]) => [key, { type: parameter.type, description: parameter.description, ...choicesOf(parameter) }]),
    ),
    required: entries.filter(([, parameter]) => parameter.required).map(([key]) => key),
  };
  const output = { example: service.exampleOutput };
  const declared =
    service.inputIn === "json-body"
      ? declareDiscoveryExtension({ bodyType: "json", input: examples, inputSchema: schema, output })
      : service.inputIn === "path"
        ? declareDiscoveryExtension({ pathParams: examples, pathParamsSchema: schema, output })
        : declareDiscoveryExtension({ input: examples, inputSchema: schema, output });
  // The method and a route template are what the resource server adds to the declaration when
  // it answers (bazaar's enrichment); the catalogue records the declaration as answered.
  const bazaar = declared.bazaar as unknown as { info: { input: Record<string, unknown> } & Record<string, unknown> } & Record<string, unknown>;
  return {
    bazaar: {
      ...bazaar,
      info: { ...bazaar.info, input: { ...bazaar.info.input, method: service.method } },
      ...(service.inputIn === "path" ? { routeTemplate: service.path } : {}),
    },
  };
}

/** A parameter's fixed set as JSON Schema declares one (`enum`), in v2's schema and v1's field descriptions alike. */
function choicesOf(parameter: ServiceParameter): { enum?: string[] } {
  return parameter.choices ? { enum: [...parameter.choices] } : {};
}

/**
 * A payment option on a network this local world cannot settle (Base mainnet's USDC), priced
 * like the service: what a service that also takes payment elsewhere puts in its `accepts`.
 */
export function foreignNetworkOption(service: DemoService, payTo: Address): Record<string, unknown> {
  return {
    scheme: "exact",
    network: FOREIGN_NETWORK,
    amount: service.price.toString(),
    asset: FOREIGN_USDC,
    payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: "USD Coin", version: "2" },
  };
}

/** Base mainnet, in CAIP-2, and Circle's USDC there: a real network nothing local can pay on. */
export const FOREIGN_NETWORK = "eip155:8453";
const FOREIGN_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/**
 * The x402 v1 payment requirements of a v1 service: what its 402 body lists in `accepts`. v1
 * has no bazaar extension; it describes the call in `outputSchema.input`, which is all a v1
 * listing carries.
 */
export function v1RequirementsFor(service: DemoService, resourceUrl: string, terms: PaymentTerms): PaymentRequirementsV1 {
  const fields = Object.fromEntries(
    Object.entries(service.parameters).map(([key, parameter]) => [
      key,
      { type: parameter.type, description: parameter.description, required: parameter.required, ...choicesOf(parameter) },
    ]),
  );
  const input =
    service.inputIn === "json-body"
      ? { type: "http", method: service.method, discoverable: true, bodyType: "json", bodyFields: fields }
      : { type: "http", method: service.method, discoverable: true, queryParams: fields };
  return {
    scheme: "exact",
    network: terms.v1Network as PaymentRequirementsV1["network"],
    maxAmountRequired: service.price.toString(),
    resource: resourceUrl,
    description: service.description,
    mimeType: "application/json",
    outputSchema: { input, output: service.exampleOutput },
    payTo: terms.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: terms.token.address,
    extra: { name: terms.token.name, version: terms.token.version },
  };
}
