import { z } from "zod";
import { serviceMetadataProblems } from "../conformance/x402-conformance";
import { ceilingOf, meteringReport, settlementAmount, unitsProblem, type MeteringTerms } from "./metering";

/** One input a service takes, as discovery documents it. */
export type ServiceParameter = {
  description: string;
  example: string | number;
  type: "string" | "integer";
  required: boolean;
  /** The only values it takes, declared as the schema's `enum` (the description may say them too). */
  choices?: readonly string[];
};

/**
 * Where a service takes its inputs: the query string (GET), the path (GET on a route
 * template such as `/stocks/:symbol/quote`), or a JSON body (POST). Real x402 services use all
 * three; the discovery extension and the 402 describe them as the bazaar spec says.
 */
export type InputPlace = "query" | "path" | "json-body";

/**
 * What a service's 402 offers: only the local USDC; an option on another network first and
 * the local USDC second (a buyer must pick); or only another network (nothing here can pay).
 */
export type Offers = "local" | "foreign-first" | "foreign-only";

/**
 * How a listing fails a buyer, on purpose (the local world's failing listings, devnet/README.md):
 * its 402 asks more than its listing says; its listing names the local network and its 402 only
 * another; it answers 500 before any 402; or it settles the payment on chain and then answers
 * 500, delivering nothing.
 */
export type ServiceFailure = "asks-more-than-listed" | "asks-another-network" | "error-before-payment" | "fails-after-payment";

/** How many times its listed price the `asks-more-than-listed` service's 402 asks. */
export const ASKS_TIMES_LISTED = 10n;

export type ServiceContext = {
  /** How long the slow service takes to answer. */
  slowDelayMs: number;
  /** Aborted when the caller has gone away: the slow service stops waiting. */
  signal: AbortSignal;
};

/** A request's inputs, gathered from wherever the service takes them. */
export type ServiceInput = Record<string, unknown>;

/** An answer, and for a metered service the amount to settle for it (USDC base units). */
export type AnswerResult = { ok: true; body: Record<string, unknown>; settleAmount?: bigint } | { ok: false; detail: string };

/** A paid demo service, independent of how it is served (x402 v1 or v2). */
export type DemoService = {
  /** Stable kebab-case name: used in coordinates, fault switches and tests. */
  name: string;
  /** The human-facing name in discovery. */
  serviceName: string;
  /** The route: a plain path, or a template with `:name` segments for path parameters. */
  path: string;
  method: "GET" | "POST";
  inputIn: InputPlace;
  x402Version: 1 | 2;
  /** Price per call in USDC base units (6 decimals); for a metered service, its ceiling. */
  price: bigint;
  /** Metered (x402 `upto`): the 402 asks for the ceiling, the answer settles what was used (metering.ts). */
  metering?: MeteringTerms;
  description: string;
  tags: string[];
  parameters: Record<string, ServiceParameter>;
  /** Listed in discovery, but nothing ever answers at its URL. */
  alwaysOffline: boolean;
  offers: Offers;
  /** Services with the same group share one server (one origin), like one company's API. */
  hostGroup: string;
  /** Its 402 declares sign-in-with-x: a wallet that paid for a path may sign in to get it again (siwx-access.ts). */
  signInWithX?: boolean;
  /** An example answer, for discovery's output schema. */
  exampleOutput: Record<string, unknown>;
  /** Fails its buyers on purpose, this way. */
  failure?: ServiceFailure;
  /**
   * "own": paid to a payee of its own (derived from the merchant's key and its name), so that
   * what reached it can be told apart on chain; the merchant account otherwise.
   */
  payee?: "own";
  /** Why the input is unusable, or undefined when it is fine. Checked before any payment is verified. */
  checkInput(input: ServiceInput): string | undefined;
  /** Validates the input, then produces the answer. Runs only for a verified payment. */
  answer(input: ServiceInput, context: ServiceContext): Promise<AnswerResult>;
};

export type ServiceDefinition<Input> = Omit<
  DemoService,
  "answer" | "checkInput" | "exampleOutput" | "alwaysOffline" | "method" | "inputIn" | "offers" | "hostGroup" | "parameters"
> & {
  inputIn?: InputPlace;
  alwaysOffline?: boolean;
  offers?: Offers;
  hostGroup?: string;
  parameters: Record<string, Omit<ServiceParameter, "type" | "required"> & Partial<Pick<ServiceParameter, "type" | "required">>>;
  input: z.ZodType<Input>;
  /** Metered billing, with the units an input uses. */
  metering?: MeteringTerms & { units(input: Input): number };
  /** How long to take before answering (only the slow service waits). */
  delayMs?: (context: ServiceContext) => number;
  produce(input: Input, context: ServiceContext): Record<string, unknown>;
};

/**
 * Builds a catalogue entry. Its name, tags and description must be what x402's schemas allow
 * (`serviceName` and each tag 1-32 printable ASCII characters, at most five tags, no repeated
 * tag): the official client echoes them in every payment and the facilitator verifies them, so
 * an entry that breaks them could never be paid. Checked here, when the catalogue is built.
 */
export function defineService<Input>(definition: ServiceDefinition<Input>): DemoService {
  const problems = serviceMetadataProblems({
    serviceName: definition.serviceName,
    tags: definition.tags,
    description: definition.description,
    mimeType: "application/json",
  });
  if (problems.length > 0) throw new Error(`${definition.name}: ${problems.join("; ")}`);
  const { input: schema, produce, delayMs, parameters, metering: meter, ...rest } = definition;
  const metering = meter ? meteringTermsOf(definition.name, meter, rest) : undefined;
  const inputIn = rest.inputIn ?? "query";
  const templateNames = [...rest.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]);
  if (inputIn === "path" && templateNames.join() !== Object.keys(parameters).join()) throw new Error(`${definition.name}: the path names its parameters`);
  const full = Object.fromEntries(Object.entries(parameters).map(([key, parameter]) => [key, { type: "string" as const, required: true, ...parameter }]));
  const example = schema.parse(Object.fromEntries(Object.entries(full).map(([key, parameter]) => [key, parameter.example])));
  const check = (input: ServiceInput) => {
    const parsed = schema.safeParse(input);
    if (!parsed.success) return { ok: false, detail: describeIssues(parsed.error) } as const;
    // A metered input that could cost more than the ceiling is refused before any payment.
    const problem = meter ? unitsProblem(meter, meter.units(parsed.data)) : undefined;
    return problem ? ({ ok: false, detail: problem } as const) : ({ ok: true, data: parsed.data } as const);
  };
  // The answer, with a metered service's usage report next to its own fields.
  const respond = (data: Input, context: ServiceContext): { body: Record<string, unknown>; settleAmount?: bigint } => {
    const body = produce(data, context);
    if (!meter) return { body };
    const units = meter.units(data);
    return { body: { ...body, metering: meteringReport(meter, units) }, settleAmount: settlementAmount(meter, units) };
  };
  return {
    ...rest,
    ...(metering ? { metering } : {}),
    inputIn,
    method: inputIn === "json-body" ? "POST" : "GET",
    parameters: full,
    alwaysOffline: rest.alwaysOffline ?? false,
    offers: rest.offers ?? "local",
    hostGroup: rest.hostGroup ?? rest.name,
    exampleOutput: respond(example, { slowDelayMs: 0, signal: new AbortController().signal }).body,
    checkInput(input) {
      const checked = check(input);
      return checked.ok ? undefined : checked.detail;
    },
    async answer(input, context) {
      const checked = check(input);
      if (!checked.ok) return { ok: false, detail: checked.detail };
      const wait = delayMs?.(context) ?? 0;
      if (wait > 0) await abortableDelay(wait, context.signal);
      return { ok: true, ...respond(checked.data, context) };
    },
  };
}

/**
 * A metered service's terms, checked: x402 v2 only (`upto` has no v1), local payment only, and a
 * listed price that is exactly the ceiling.
 */
function meteringTermsOf(name: string, meter: MeteringTerms, service: { x402Version: 1 | 2; offers?: Offers; price: bigint }): MeteringTerms {
  if (service.x402Version !== 2) throw new Error(`${name}: a metered service speaks x402 v2 (upto has no v1)`);
  if ((service.offers ?? "local") !== "local") throw new Error(`${name}: a metered service takes the local USDC only`);
  if (!Number.isSafeInteger(meter.maxUnits) || meter.maxUnits < 1 || meter.unitPrice < 1n)
    throw new Error(`${name}: a meter needs a positive unit price and unit count`);
  if (ceilingOf(meter) !== service.price) throw new Error(`${name}: the price must be the ceiling, ${meter.maxUnits} × ${meter.unitPrice}`);
  return { unit: meter.unit, unitPrice: meter.unitPrice, maxUnits: meter.maxUnits, settles: meter.settles };
}

/** The example input a service documents: what its discovery entry and coordinates show. */
export function exampleInput(service: DemoService): Record<string, string | number> {
  return Object.fromEntries(Object.entries(service.parameters).map(([key, parameter]) => [key, parameter.example]));
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => issue.message).join("; ");
}

export const usdc = (decimal: string): bigint => {
  const [whole = "0", fraction = ""] = decimal.split(".");
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
};

export const text = (label: string, max = 64) =>
  z
    .string({ error: `${label} is required` })
    .trim()
    .min(1, `${label} is required`)
    .max(max, `${label} is at most ${max} characters`);

function abortableDelay(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}
