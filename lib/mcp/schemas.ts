/**
 * The input of each MCP tool, with zod: what a client sees as the tool's JSON Schema and what
 * every call is checked against before anything runs. The shapes follow the chat's own edges
 * (the model's `call_paid_service` input, `spendingLimits`, `Idempotency-Key`), so a call means
 * the same through either door.
 */
import { z } from "zod";
import { SpendingLimitsInput, UsdcAmountInput } from "../limits/spending-limits-input";
import { MAX_MESSAGE_CHARS } from "../stream/chat-size-limits";
import { CALL_METHODS } from "../x402/input-contract";
import { BODY_TYPES, MAX_REQUEST_BODY_CHARS } from "../x402/request-body";

/** The Bazaar's resource types this agent can pay: HTTP resources (the discovery client asks for `type=http`). */
export const RESOURCE_TYPES = ["http"] as const;

/** As the chat's `Idempotency-Key` header (lib/doors/request-key.ts). */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

/** Optional on every spending tool: what names a call across retries, connections and instances. */
const IdempotencyKey = z.string().regex(IDEMPOTENCY_KEY, "must be 1-128 characters of A-Z a-z 0-9 . _ : -").optional();

const ServiceUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("The service's resource URL (http or https), with its query parameters, as discover_services lists it");

const CallMethod = z.enum(CALL_METHODS).default("GET").describe("The HTTP method; GET unless the service's usage names another");

const CallBody = z
  .union([z.looseObject({}), z.string().max(MAX_REQUEST_BODY_CHARS)])
  .optional()
  .describe("The request body, for services whose usage names one: an object of fields (JSON or form-data), or a string (text)");

const CallBodyType = z
  .enum(BODY_TYPES)
  .optional()
  .describe("How the body is sent: json, form-data (URL-encoded fields) or text; leave it out to send it as the service declared");

export const DiscoverServicesInput = z.object({
  query: z.string().max(200).describe("Keywords for the service wanted, e.g. 'weather' or 'crypto price'; an empty string lists every service"),
  maxPrice: UsdcAmountInput.optional().describe("Only services whose price per call is at most this many USDC, e.g. 0.05"),
  type: z.enum(RESOURCE_TYPES).optional().describe("The Bazaar resource type; this agent lists and pays HTTP resources only"),
  includeExcluded: z
    .boolean()
    .optional()
    .describe("Also list, apart under excluded, the listings left out because they cannot be bought now, each with its reason and when it was checked"),
});
export type DiscoverServicesInput = z.output<typeof DiscoverServicesInput>;

export const QuoteInput = z.object({
  url: ServiceUrl,
  method: CallMethod,
  body: CallBody,
  bodyType: CallBodyType,
});
export type QuoteInput = z.output<typeof QuoteInput>;

export const BuyInput = z.object({
  url: ServiceUrl,
  method: CallMethod,
  body: CallBody,
  bodyType: CallBodyType,
  idempotencyKey: IdempotencyKey.describe(
    "Makes retries safe: the same key (from the same caller, within 15 minutes) pays at most once and returns the first outcome. Without it every call is a new purchase, a retry too.",
  ),
  maxPrice: UsdcAmountInput.optional().describe("The most this call may cost in USDC; lowers the per-payment limit, never raises it"),
});
export type BuyInput = z.output<typeof BuyInput>;

export const SpendingStatusInput = z.object({});

export const AskAgentInput = z.object({
  prompt: z
    .string()
    .trim()
    .min(1)
    .max(MAX_MESSAGE_CHARS)
    .describe("What to ask the agent, as a person would write it in the chat, e.g. 'Buy the weather in Tokyo'"),
  spendingLimits: SpendingLimitsInput.optional().describe(
    "Lower limits for this turn, in USDC (perPayment, perRequest, daily); never above what this caller may spend",
  ),
  idempotencyKey: IdempotencyKey.describe(
    "Makes retries safe: the same key (from the same caller, within 15 minutes) buys each thing the turn buys at most once and returns the first outcome. Without it every call is a new turn, a retry too.",
  ),
});
export type AskAgentInput = z.output<typeof AskAgentInput>;
