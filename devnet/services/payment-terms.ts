import type { PaymentRequirementsV1 } from "@x402/core/types";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { Address } from "viem";
import type { DemoService } from "./service-catalog";

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
};

/**
 * The Bazaar discovery extension of a service: method, query parameters (with examples and a
 * JSON schema) and an example output, so an agent knows how to call it before paying.
 */
export function discoveryExtensionFor(service: DemoService): Record<string, unknown> {
  const entries = Object.entries(service.queryParameters);
  return declareDiscoveryExtension({
    input: Object.fromEntries(entries.map(([key, parameter]) => [key, parameter.example])),
    inputSchema: {
      properties: Object.fromEntries(entries.map(([key, parameter]) => [key, { type: "string", description: parameter.description }])),
      required: entries.map(([key]) => key),
    },
    output: { example: service.exampleOutput },
  });
}

/** The x402 v1 payment requirements of a v1 service: what its 402 body lists in `accepts`. */
export function v1RequirementsFor(service: DemoService, resourceUrl: string, terms: PaymentTerms): PaymentRequirementsV1 {
  const entries = Object.entries(service.queryParameters);
  return {
    scheme: "exact",
    network: terms.v1Network as PaymentRequirementsV1["network"],
    maxAmountRequired: service.price.toString(),
    resource: resourceUrl,
    description: service.description,
    mimeType: "application/json",
    // v1 carries discovery information here (the legacy Bazaar reads `outputSchema.input`).
    outputSchema: {
      input: {
        type: "http",
        method: "GET",
        discoverable: true,
        queryParams: Object.fromEntries(entries.map(([key, parameter]) => [key, { type: "string", description: parameter.description, required: true }])),
      },
      output: service.exampleOutput,
    },
    payTo: terms.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: terms.token.address,
    extra: { name: terms.token.name, version: terms.token.version },
  };
}
