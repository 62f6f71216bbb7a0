/**
 * Reads how to call a listed service (input-contract.ts) from what the bazaar spec lets a
 * service declare: in x402 v2 the `bazaar` extension (`info.input` with its example values,
 * `schema` with types, required fields, descriptions and `enum` sets, `routeTemplate` for path
 * parameters); in v1 the payment requirement's `outputSchema.input` (`queryParams`, `bodyType`,
 * `bodyFields`, each a type name or a field description). Everything here is the service's own
 * text: read leniently (a malformed part is left out, never fatal), cleaned and bounded, so a
 * listing stays small and cannot speak for us.
 */
import { z } from "zod";
import { exampleText, fieldDescriptions, ParamMapSchema, parameters } from "./declared-fields";
import { CALL_METHODS, type BodyType, type CallMethod, type InputContract } from "./input-contract";
import { sanitizeServiceText } from "./service-text";

const MAX_EXAMPLE_CHARS = 200;
const MAX_OUTPUT_EXAMPLE_CHARS = 300;

const AnyRecord = z.record(z.string(), z.unknown());
const optionalRecord = AnyRecord.optional().catch(undefined);

const BazaarExtension = z.looseObject({
  info: z.looseObject({
    input: z.looseObject({
      type: z.string().optional().catch(undefined),
      method: z.string().optional().catch(undefined),
      queryParams: optionalRecord,
      pathParams: optionalRecord,
      bodyType: z.enum(["json", "form-data", "text"]).optional().catch(undefined),
      body: z.unknown().optional(),
    }),
    output: z.looseObject({ example: z.unknown().optional() }).optional().catch(undefined),
  }),
  schema: z
    .looseObject({
      properties: z.looseObject({
        input: z.looseObject({
          properties: z.looseObject({
            queryParams: ParamMapSchema.optional().catch(undefined),
            pathParams: ParamMapSchema.optional().catch(undefined),
            body: ParamMapSchema.optional().catch(undefined),
          }),
        }),
      }),
    })
    .optional()
    .catch(undefined),
  routeTemplate: z.string().max(300).optional().catch(undefined),
});

const V1Input = z.looseObject({
  type: z.string().optional().catch(undefined),
  method: z.string().optional().catch(undefined),
  queryParams: optionalRecord,
  bodyType: z.string().optional().catch(undefined),
  bodyFields: optionalRecord,
});

/** The contract of a discovered resource, or `undefined` when it declares none. */
export function readInputContract(resource: {
  x402Version: number;
  accepts: readonly Record<string, unknown>[];
  extensions?: unknown;
  discoveryInfo?: unknown;
  method?: unknown;
  routeTemplate?: unknown;
}): InputContract | undefined {
  if (resource.x402Version >= 2) {
    const extensions = AnyRecord.safeParse(resource.extensions);
    const bazaar = BazaarExtension.safeParse(extensions.success ? extensions.data.bazaar : undefined);
    if (bazaar.success) return isHttp(bazaar.data.info.input.type) ? fromBazaar(bazaar.data) : undefined;
  } else {
    for (const accept of resource.accepts) {
      const outputSchema = AnyRecord.safeParse(accept.outputSchema);
      if (!outputSchema.success) continue;
      const input = V1Input.safeParse(outputSchema.data.input);
      if (input.success && isHttp(input.data.type)) return fromV1(input.data, outputSchema.data.output);
    }
  }
  return fromDiscoveryInfo(resource);
}

/**
 * The official facilitators of the 2.10 era list a resource's declaration as top-level
 * `discoveryInfo` (the bazaar extension's `info`, no `schema`: `DiscoveredHTTPResource` in
 * @x402/extensions), with the enriched `method` and `routeTemplate` beside it. Read as the
 * bazaar extension it came from, so such a listing is called the same way.
 */
function fromDiscoveryInfo(resource: { discoveryInfo?: unknown; method?: unknown; routeTemplate?: unknown }): InputContract | undefined {
  const info = AnyRecord.safeParse(resource.discoveryInfo);
  if (!info.success) return undefined;
  const input = AnyRecord.safeParse(info.data.input);
  // The method inside the declaration wins; the one the facilitator put beside it fills a gap.
  const method = input.success && input.data.method === undefined && typeof resource.method === "string" ? { method: resource.method } : {};
  const declaration = {
    info: { ...info.data, ...(input.success ? { input: { ...input.data, ...method } } : {}) },
    ...(typeof resource.routeTemplate === "string" ? { routeTemplate: resource.routeTemplate } : {}),
  };
  const bazaar = BazaarExtension.safeParse(declaration);
  return bazaar.success && isHttp(bazaar.data.info.input.type) ? fromBazaar(bazaar.data) : undefined;
}

/**
 * The spec's `input.type` tells an HTTP endpoint ("http") from an MCP tool ("mcp"), whose
 * tool name and arguments are no method, query or body: read as HTTP, a tool would look like a
 * GET taking nothing. A declaration without a type is read as HTTP, as before types existed.
 */
function isHttp(type: string | undefined): boolean {
  return type === undefined || type.toLowerCase() === "http";
}

function fromBazaar(bazaar: z.infer<typeof BazaarExtension>): InputContract {
  const { input, output } = bazaar.info;
  const schema = bazaar.schema?.properties.input.properties;
  const bodyType = input.bodyType;
  const contract: InputContract = {
    ...methodOf(input.method, bodyType !== undefined),
    query: parameters(input.queryParams, schema?.queryParams),
    path: parameters(input.pathParams, schema?.pathParams),
  };
  const route = bazaar.routeTemplate === undefined ? undefined : sanitizeServiceText(bazaar.routeTemplate, 120);
  if (route) contract.routeTemplate = route;
  if (bodyType) {
    const example = AnyRecord.safeParse(input.body);
    contract.body = { type: bodyType, fields: parameters(example.success ? example.data : undefined, schema?.body) };
    if (input.body !== undefined) contract.body.example = exampleText(input.body, MAX_EXAMPLE_CHARS);
  }
  if (output?.example !== undefined) contract.outputExample = exampleText(output.example, MAX_OUTPUT_EXAMPLE_CHARS);
  return contract;
}

function fromV1(input: z.infer<typeof V1Input>, output: unknown): InputContract {
  // Only a method that takes a body can have its fields read as one (GET, HEAD and DELETE do not).
  const takesBody = !["GET", "HEAD", "DELETE"].includes(input.method?.toUpperCase() ?? "");
  const bodyType = v1BodyType(input.bodyType, takesBody && input.bodyFields !== undefined);
  const contract: InputContract = {
    ...methodOf(input.method, bodyType !== undefined),
    query: fieldDescriptions(input.queryParams),
    path: [],
  };
  if (bodyType) contract.body = { type: bodyType, fields: fieldDescriptions(input.bodyFields) };
  if (output !== undefined && output !== null) contract.outputExample = exampleText(output, MAX_OUTPUT_EXAMPLE_CHARS);
  return contract;
}

/**
 * v1's request description made `bodyType` optional and also named `multipart-form-data`: the
 * reference v1 → v2 reading (@x402/extensions) folds that into `form-data` and reads declared
 * body fields without a type as JSON, so their fields are kept rather than dropped.
 */
function v1BodyType(declared: string | undefined, hasFields: boolean): BodyType | undefined {
  if (declared === "json" || declared === "form-data" || declared === "text") return declared;
  if (declared === "multipart-form-data") return "form-data";
  return declared === undefined && hasFields ? "json" : undefined;
}

function methodOf(declared: string | undefined, hasBody: boolean): Pick<InputContract, "method" | "methodInferred"> {
  const upper = declared?.toUpperCase();
  if (CALL_METHODS.includes(upper as CallMethod)) return { method: upper as CallMethod };
  return { method: hasBody ? "POST" : "GET", methodInferred: true };
}
