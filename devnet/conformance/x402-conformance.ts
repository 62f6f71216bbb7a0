/**
 * Checks what the local world sends against the official x402 packages, so that it never
 * again lists something the official client echoes and the facilitator then refuses (a
 * 33-character `serviceName` once cost 33 city guides every payment). Every rule here is the
 * packages' own:
 *
 * - `@x402/core/schemas`: `PaymentRequiredSchema` (v1 and v2, with `ResourceInfoSchema`:
 *   `serviceName` and each tag 1–32 printable ASCII, at most 5 tags), and the v1/v2
 *   `PaymentRequirements` schemas for a listing's `accepts`.
 * - `@x402/extensions`: each extension with its own validators (bazaar: the spec check, the
 *   JSON-Schema check of `info` against its `schema`, route templates, tag sanitizing;
 *   payment-identifier; sign-in-with-x; offer-receipt signatures).
 * - The shapes `@x402/core` and `@x402/extensions` only export as TypeScript types (the
 *   bazaar's `DiscoveryResource` and its list and search responses, and the settlement a
 *   `PAYMENT-RESPONSE` carries, whose zod schema `@x402/core` 2.27 keeps private) are mirrored
 *   here with the zod `@x402/core/schemas` exports, and a compile-time check keeps each
 *   mirror in step with the package's type.
 *
 * Every function returns the problems found as readable strings (`[]` means conforming).
 */
import {
  NetworkSchemaV1,
  NetworkSchemaV2,
  NonEmptyString,
  PaymentRequiredSchema,
  PaymentRequirementsV1Schema,
  PaymentRequirementsV2Schema,
  ResourceInfoSchema,
  z,
} from "@x402/core/schemas";
import type { PaymentRequirements, SettleResponse } from "@x402/core/types";
import {
  BAZAAR,
  extractDiscoveryInfoV1,
  isValidRouteTemplate,
  sanitizeTags,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
  type DiscoveryExtension,
  type DiscoveryResource,
  type DiscoveryResourcesResponse,
  type SearchDiscoveryResourcesResponse,
} from "@x402/extensions/bazaar";
import {
  extractOffersFromPaymentRequired,
  findAcceptsObjectFromSignedOffer,
  isEIP712SignedOffer,
  isEIP712SignedReceipt,
  OFFER_RECEIPT,
  verifyOfferSignatureEIP712,
  verifyReceiptSignatureEIP712,
  type SignedOffer,
  type SignedReceipt,
} from "@x402/extensions/offer-receipt";
import { PAYMENT_IDENTIFIER, validatePaymentIdentifier } from "@x402/extensions/payment-identifier";
import {
  assertSIWxChallengeBoundToOrigin,
  buildSIWxSchema,
  SIGN_IN_WITH_X,
  SIWxPayloadSchema,
  validateSIWxMessage,
  type CompleteSIWxInfo,
} from "@x402/extensions/sign-in-with-x";

export type Problems = string[];

function zodProblems(error: z.ZodError, prefix = ""): Problems {
  return error.issues.map((issue) => `${[prefix, ...issue.path].filter((part) => part !== "").join(".") || "(root)"}: ${describeIssue(issue)}`);
}

/** zod says only "Invalid" for a failed pattern; the only pattern of ResourceInfoSchema is printable ASCII. */
function describeIssue(issue: z.ZodIssue): string {
  const field = issue.path.find((part) => part === "serviceName" || part === "tags");
  if (issue.code === "invalid_string" && issue.validation === "regex" && field) return `${issue.message}: printable ASCII only (x402's ResourceInfoSchema)`;
  return issue.message;
}

function prefixed(prefix: string, problems: Problems): Problems {
  return problems.map((problem) => `${prefix}${problem}`);
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

// ---------------------------------------------------------------------------------------------
// Mirrors of the shapes the packages type but do not export a schema for
// ---------------------------------------------------------------------------------------------

/** The bazaar's `DiscoveryResource`, its fields only (a facilitator's own additions are not the spec's). */
const DiscoveryResourceShape = z
  .object({
    resource: NonEmptyString,
    type: NonEmptyString,
    x402Version: z.number().int(),
    accepts: z.array(z.record(z.unknown())).min(1),
    /** "ISO 8601 timestamp of when the resource was last updated". */
    lastUpdated: z.string().datetime({ offset: true }),
    description: z.string().optional(),
    mimeType: z.string().optional(),
    serviceName: z.string().optional(),
    tags: z.array(z.string()).optional(),
    iconUrl: z.string().optional(),
    extensions: z.record(z.unknown()).optional(),
  })
  .strict();

/** `DiscoveryResourcesResponse`: `GET /discovery/resources`. */
const ListResponseShape = z
  .object({
    x402Version: z.number().int(),
    items: z.array(z.unknown()),
    pagination: z.object({ limit: z.number().int().min(0), offset: z.number().int().min(0), total: z.number().int().min(0) }).strict(),
  })
  .strict();

/** `SearchDiscoveryResourcesResponse`: `GET /discovery/search`. */
const SearchResponseShape = z
  .object({
    x402Version: z.number().int(),
    resources: z.array(z.unknown()),
    partialResults: z.boolean().optional(),
    pagination: z
      .object({ limit: z.number().int().min(0), cursor: z.string().min(1).nullable() })
      .strict()
      .nullish(),
  })
  .strict();

/** `SettleResponse` as `@x402/core`'s (private) `settleResponseSchema` reads it from a facilitator. */
const SettleResponseShape = z.object({
  success: z.boolean(),
  errorReason: z.string().nullish(),
  errorMessage: z.string().nullish(),
  payer: z.string().nullish(),
  transaction: z.string(),
  network: z.string(),
  amount: z.string().nullish(),
  extensions: z.record(z.string(), z.unknown()).nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

// Compile-time: every value the package's type allows passes the mirror's types, and the
// mirror names no field the type does not have. A new or renamed field fails `tsc` here.
type Plain<T> = { [Key in keyof T]: T[Key] };
type Mirrors<Schema extends z.ZodTypeAny, Official> =
  Plain<Official> extends z.input<Schema> ? (keyof z.input<Schema> extends keyof Official ? true : never) : never;
export const MIRRORS_MATCH_THE_PACKAGES: [
  Mirrors<typeof DiscoveryResourceShape, DiscoveryResource>,
  Mirrors<typeof ListResponseShape, DiscoveryResourcesResponse>,
  Mirrors<typeof SearchResponseShape, SearchDiscoveryResourcesResponse>,
  Mirrors<typeof SettleResponseShape, Omit<SettleResponse, "extensionResponses">>,
] = [true, true, true, true];

// ---------------------------------------------------------------------------------------------
// A service's own words: name, tags, description
// ---------------------------------------------------------------------------------------------

export type ServiceMetadata = { serviceName?: string; tags?: string[]; description?: string; mimeType?: string; iconUrl?: string };

/**
 * The resource metadata a service declares, by x402's `ResourceInfoSchema` (what the official
 * client echoes in every payment, and the facilitator verifies), and tags the bazaar would keep
 * as they are (`sanitizeTags` drops duplicates that differ only in case).
 */
export function serviceMetadataProblems(metadata: ServiceMetadata, url = "http://127.0.0.1/"): Problems {
  const problems: Problems = [];
  const parsed = ResourceInfoSchema.safeParse({ url, ...metadata });
  if (!parsed.success) problems.push(...zodProblems(parsed.error));
  // Within the schema's rules, what the bazaar's sanitizer still drops is a repeated tag.
  if (metadata.tags && parsed.success && JSON.stringify(sanitizeTags(metadata.tags) ?? []) !== JSON.stringify(metadata.tags)) {
    const repeated = metadata.tags.filter((tag, index) => metadata.tags?.findIndex((other) => other.toLowerCase() === tag.toLowerCase()) !== index);
    problems.push(`tags: the bazaar would drop ${JSON.stringify(repeated)} (a tag may appear once, whatever its case)`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Extensions
// ---------------------------------------------------------------------------------------------

/**
 * `validateDiscoveryExtension` compiles the extension's JSON schema with a fresh Ajv on every
 * call (about 9 ms): the verdicts are remembered by content, so a listing seen on several pages
 * costs one check.
 */
const schemaVerdicts = new Map<string, Problems>();
const MAX_REMEMBERED_VERDICTS = 4_096;

/** `info` against the extension's own `schema`, with @x402/extensions' Ajv check (draft 2020-12). */
function infoAgainstItsSchema(extension: { info?: unknown; schema?: unknown }): Problems {
  if (!isRecord(extension.schema)) return ["schema: missing"];
  const key = JSON.stringify([extension.info, extension.schema]);
  const known = schemaVerdicts.get(key);
  if (known) return known;
  const result = validateDiscoveryExtension(extension as DiscoveryExtension);
  const problems = result.valid ? [] : (result.errors ?? ["invalid"]).map((error) => `info ${error}`);
  if (schemaVerdicts.size >= MAX_REMEMBERED_VERDICTS) schemaVerdicts.clear();
  schemaVerdicts.set(key, problems);
  return problems;
}

export type BazaarCheck = {
  /** The JSON-Schema check of `info` (about 9 ms a listing the first time): off for a cheap check. */
  schema: boolean;
};

/** The `bazaar` extension: the spec's rules, `info` against its schema, a valid `routeTemplate`. */
export function bazaarProblems(extension: unknown, check: BazaarCheck = { schema: true }): Problems {
  if (!isRecord(extension) || !isRecord(extension.info) || !isRecord(extension.schema)) return ["expected { info, schema }"];
  const problems: Problems = [];
  const spec = validateDiscoveryExtensionSpec(extension);
  if (!spec.valid) problems.push(...(spec.errors ?? ["invalid"]));
  if (check.schema) problems.push(...infoAgainstItsSchema(extension));
  if ("routeTemplate" in extension && !isValidRouteTemplate(extension.routeTemplate as string)) {
    problems.push(`routeTemplate ${JSON.stringify(extension.routeTemplate)} is not a valid route template`);
  }
  return problems;
}

/** The `payment-identifier` extension, as @x402/extensions validates it. */
function paymentIdentifierProblems(extension: unknown): Problems {
  const result = validatePaymentIdentifier(extension);
  return result.valid ? [] : (result.errors ?? ["invalid"]);
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * The `sign-in-with-x` challenge of a 402: for every chain it supports, the complete challenge
 * is bound to the service's origin (`assertSIWxChallengeBoundToOrigin`, what the official client
 * checks before signing), makes a payload of the package's `SIWxPayloadSchema`, and passes the
 * server-side `validateSIWxMessage` (domain, URI, issued-at, expiry) for that origin.
 */
async function signInWithXProblems(extension: unknown, resourceUrl: string | undefined): Promise<Problems> {
  if (!isRecord(extension) || !isRecord(extension.info)) return ["expected { info, supportedChains, schema }"];
  if (!resourceUrl) return ["the 402 names no resource URL to bind the challenge to"];
  const problems: Problems = [];
  if (JSON.stringify(extension.schema) !== JSON.stringify(buildSIWxSchema())) problems.push("schema: not the package's SIWX schema");
  const chains = Array.isArray(extension.supportedChains) ? extension.supportedChains : [];
  if (chains.length === 0) problems.push("supportedChains: empty");
  for (const [index, chain] of chains.entries()) {
    if (!isRecord(chain) || typeof chain.chainId !== "string" || typeof chain.type !== "string") {
      problems.push(`supportedChains.${index}: expected { chainId, type }`);
      continue;
    }
    const complete = { ...extension.info, chainId: chain.chainId, type: chain.type } as CompleteSIWxInfo;
    try {
      assertSIWxChallengeBoundToOrigin(complete, resourceUrl);
    } catch (error) {
      problems.push(`supportedChains.${index}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const unsigned = SIWxPayloadSchema.safeParse({ ...complete, address: ZERO_ADDRESS, signature: "0x" });
    if (!unsigned.success) {
      problems.push(...zodProblems(unsigned.error, `supportedChains.${index} challenge`));
      continue;
    }
    const validation = await validateSIWxMessage(unsigned.data, new URL(resourceUrl));
    if (!validation.isValid) problems.push(`supportedChains.${index}: ${validation.invalidReason}: ${validation.invalidMessage}`);
  }
  return problems;
}

/**
 * The `offer-receipt` offers of a 402: `info` against its schema, and each offer an EIP-712
 * offer whose signature recovers, for an option of `accepts` (`findAcceptsObjectFromSignedOffer`),
 * signed by that option's payee, for the 402's resource.
 */
async function offerProblems(
  extension: unknown,
  paymentRequired: { accepts: readonly Record<string, unknown>[]; resource?: { url: string } },
): Promise<Problems> {
  if (!isRecord(extension)) return ["expected { info, schema }"];
  const problems = infoAgainstItsSchema(extension);
  const offers = extractOffersFromPaymentRequired(paymentRequired as never) as SignedOffer[];
  if (offers.length === 0) problems.push("info.offers: empty");
  for (const [index, offer] of offers.entries()) {
    if (!isEIP712SignedOffer(offer)) {
      problems.push(`offers.${index}: format ${JSON.stringify(offer.format)} is not checked here (the devnet signs EIP-712)`);
      continue;
    }
    let signer: string;
    try {
      ({ signer } = await verifyOfferSignatureEIP712(offer));
    } catch (error) {
      problems.push(`offers.${index}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const option = findAcceptsObjectFromSignedOffer(offer, paymentRequired.accepts as unknown as PaymentRequirements[]);
    if (!option) problems.push(`offers.${index}: matches no option of accepts`);
    else if (option.payTo.toLowerCase() !== signer.toLowerCase()) problems.push(`offers.${index}: signed by ${signer}, not by the payee ${option.payTo}`);
    // The unsigned `acceptIndex` is "an index into accepts[]": a hint that points at another option misleads.
    if (option && offer.acceptIndex !== undefined && paymentRequired.accepts[offer.acceptIndex] !== (option as unknown)) {
      problems.push(`offers.${index}: acceptIndex ${offer.acceptIndex} points at another option of accepts than the one it signs`);
    }
    if (paymentRequired.resource && offer.payload.resourceUrl !== paymentRequired.resource.url) {
      problems.push(`offers.${index}: for ${offer.payload.resourceUrl}, not for the 402's resource ${paymentRequired.resource.url}`);
    }
  }
  return problems;
}

/**
 * The `offer-receipt` receipt of a settlement: `info` against its schema, an EIP-712 receipt
 * whose signature recovers (to `payee` when given), for the settlement's payer, network and
 * transaction.
 */
async function receiptProblems(extension: unknown, settlement: z.infer<typeof SettleResponseShape>, payee: string | undefined): Promise<Problems> {
  if (!isRecord(extension) || !isRecord(extension.info)) return ["expected { info, schema }"];
  const problems = infoAgainstItsSchema(extension);
  const receipt = extension.info.receipt as SignedReceipt | undefined;
  if (!receipt || !isEIP712SignedReceipt(receipt)) return [...problems, "info.receipt: not an EIP-712 receipt"];
  try {
    const { signer, payload } = await verifyReceiptSignatureEIP712(receipt);
    if (payee && signer.toLowerCase() !== payee.toLowerCase()) problems.push(`receipt: signed by ${signer}, not by the payee ${payee}`);
    if (payload.payer.toLowerCase() !== (settlement.payer ?? "").toLowerCase())
      problems.push(`receipt: payer ${payload.payer}, not the settlement's ${settlement.payer}`);
    if (payload.network !== settlement.network) problems.push(`receipt: network ${payload.network}, not the settlement's ${settlement.network}`);
    if (payload.transaction !== undefined && payload.transaction !== settlement.transaction)
      problems.push(`receipt: transaction ${payload.transaction}, not the settlement's ${settlement.transaction}`);
  } catch (error) {
    problems.push(`receipt: ${error instanceof Error ? error.message : String(error)}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/**
 * A 402's payment requirements (the decoded `PAYMENT-REQUIRED` header of v2, or the JSON body
 * of v1): `PaymentRequiredSchema`, then every v2 extension by its package's checks. An
 * extension this module knows no official check for is a problem too, so none goes unchecked.
 */
export async function paymentRequiredProblems(value: unknown): Promise<Problems> {
  const parsed = PaymentRequiredSchema.safeParse(value);
  if (!parsed.success) return zodProblems(parsed.error);
  const required = parsed.data;
  if (required.x402Version === 1) return [];
  const problems: Problems = [];
  for (const [key, extension] of Object.entries(required.extensions ?? {})) {
    const found =
      key === BAZAAR.key
        ? bazaarProblems(extension)
        : key === PAYMENT_IDENTIFIER
          ? paymentIdentifierProblems(extension)
          : key === SIGN_IN_WITH_X
            ? await signInWithXProblems(extension, required.resource.url)
            : key === OFFER_RECEIPT
              ? await offerProblems(extension, required)
              : ["no official check is known for this extension"];
    problems.push(...prefixed(`extensions.${key}: `, found));
  }
  return problems;
}

export type PaymentResponseExpectations = {
  /** The x402 version of the payment, which decides how the network is named. */
  x402Version: 1 | 2;
  /** The receipt must be signed by this address (the devnet's services sign as the payee). */
  payee?: string;
};

/**
 * A decoded `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1): the settlement as
 * `@x402/core` reads one, a successful one naming an EVM transaction and the network as the
 * version names it, and its `offer-receipt` receipt checked.
 */
export async function paymentResponseProblems(value: unknown, expect: PaymentResponseExpectations): Promise<Problems> {
  const parsed = SettleResponseShape.safeParse(value);
  if (!parsed.success) return zodProblems(parsed.error);
  const settlement = parsed.data;
  const problems: Problems = [];
  const network = (expect.x402Version === 2 ? NetworkSchemaV2 : NetworkSchemaV1).safeParse(settlement.network);
  if (!network.success) problems.push(...zodProblems(network.error, "network"));
  if (settlement.success && !/^0x[0-9a-fA-F]{64}$/.test(settlement.transaction))
    problems.push(`transaction: ${JSON.stringify(settlement.transaction)} is not a transaction hash`);
  if (!settlement.success && !settlement.errorReason) problems.push("errorReason: a failed settlement must say why");
  for (const [key, extension] of Object.entries(settlement.extensions ?? {})) {
    const found = key === OFFER_RECEIPT ? await receiptProblems(extension, settlement, expect.payee) : ["no official check is known for this extension"];
    problems.push(...prefixed(`extensions.${key}: `, found));
  }
  return problems;
}

export type ListingCheck = BazaarCheck;

/**
 * One bazaar listing (`DiscoveryResource`): the spec's fields only; its name, tags and
 * description by `ResourceInfoSchema` and the bazaar's tag rules; `accepts` by the
 * `PaymentRequirements` schema of its version; a v2 listing's `bazaar` extension by the
 * package's checks, and a v1 listing's call by what `extractDiscoveryInfoV1` can read.
 */
export function listingProblems(value: unknown, check: ListingCheck = { schema: true }): Problems {
  const parsed = DiscoveryResourceShape.safeParse(value);
  if (!parsed.success) return zodProblems(parsed.error);
  const listing = parsed.data;
  const { serviceName, tags, description, iconUrl, mimeType } = listing;
  const problems = serviceMetadataProblems({ serviceName, tags, description, mimeType, iconUrl }, listing.resource);
  const requirements = listing.x402Version === 1 ? PaymentRequirementsV1Schema : listing.x402Version === 2 ? PaymentRequirementsV2Schema : undefined;
  if (!requirements) problems.push(`x402Version: ${listing.x402Version} is neither 1 nor 2`);
  for (const [index, accept] of listing.accepts.entries()) {
    const option = requirements?.safeParse(accept);
    if (option && !option.success) problems.push(...zodProblems(option.error, `accepts.${index}`));
  }
  const bazaar = listing.extensions?.[BAZAAR.key];
  if (bazaar !== undefined) problems.push(...prefixed("extensions.bazaar: ", bazaarProblems(bazaar, check)));
  if (listing.x402Version === 1 && bazaar === undefined) {
    const readable = listing.accepts.some(
      (accept) => PaymentRequirementsV1Schema.safeParse(accept).success && extractDiscoveryInfoV1(accept as never) !== null,
    );
    if (!readable) problems.push("accepts: no v1 outputSchema.input the bazaar can read the call from");
  }
  return problems;
}

function pageProblems(items: unknown[], check: ListingCheck, field: string): Problems {
  return items.flatMap((item, index) => {
    const resource = isRecord(item) && typeof item.resource === "string" ? ` (${item.resource})` : "";
    return prefixed(`${field}.${index}${resource}: `, listingProblems(item, check));
  });
}

/** A `GET /discovery/resources` page, and every listing on it. */
export function listPageProblems(value: unknown, check: ListingCheck = { schema: true }): Problems {
  const parsed = ListResponseShape.safeParse(value);
  if (!parsed.success) return zodProblems(parsed.error);
  const problems = pageProblems(parsed.data.items, check, "items");
  if (parsed.data.items.length > parsed.data.pagination.limit)
    problems.push(`items: ${parsed.data.items.length}, more than the page's limit ${parsed.data.pagination.limit}`);
  return problems;
}

/** A `GET /discovery/search` page, and every listing on it. */
export function searchPageProblems(value: unknown, check: ListingCheck = { schema: true }): Problems {
  const parsed = SearchResponseShape.safeParse(value);
  if (!parsed.success) return zodProblems(parsed.error);
  const problems = pageProblems(parsed.data.resources, check, "resources");
  const limit = parsed.data.pagination?.limit;
  if (limit !== undefined && parsed.data.resources.length > limit)
    problems.push(`resources: ${parsed.data.resources.length}, more than the page's limit ${limit}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The catalogue, at start
// ---------------------------------------------------------------------------------------------

/** A listing with the name the devnet knows it by, for messages. */
export type NamedListing = { name: string; listing: unknown };

/**
 * Problems of a whole catalogue, each naming its listing. `schema: false` (the default here)
 * skips the costly JSON-Schema check of each bazaar `info` (about a second for the whole
 * catalogue); the integration test `tests/integration/official-x402.test.ts` runs it all.
 */
export function catalogueProblems(listings: readonly NamedListing[], check: ListingCheck = { schema: false }): Problems {
  return listings.flatMap(({ name, listing }) => {
    const resource = isRecord(listing) && typeof listing.resource === "string" ? ` (${listing.resource})` : "";
    return prefixed(`${name}${resource}: `, listingProblems(listing, check));
  });
}

/** Throws, naming every listing that breaks the x402 schemas, so the world does not start with it. */
export function assertCatalogueConforms(listings: readonly NamedListing[], check?: ListingCheck): void {
  const problems = catalogueProblems(listings, check);
  if (problems.length === 0) return;
  throw new Error(
    `the catalogue breaks the x402 schemas (@x402/core, @x402/extensions); the official client's payments to these would be refused:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`,
  );
}
