import { z } from "zod";
import { serviceMetadataProblems } from "../conformance/x402-conformance";

/** One input a service takes, as discovery documents it. */
export type ServiceParameter = { description: string; example: string | number; type: "string" | "integer"; required: boolean };

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

export type ServiceContext = {
  /** How long the slow service takes to answer. */
  slowDelayMs: number;
  /** Aborted when the caller has gone away: the slow service stops waiting. */
  signal: AbortSignal;
};

/** A request's inputs, gathered from wherever the service takes them. */
export type ServiceInput = Record<string, unknown>;

export type AnswerResult = { ok: true; body: Record<string, unknown> } | { ok: false; detail: string };

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
  /** Price per call in USDC base units (6 decimals). */
  price: bigint;
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
  const problems = serviceMetadataProblems({ serviceName: definition.serviceName, tags: definition.tags, description: definition.description, mimeType: "application/json" });
  if (problems.length > 0) throw new Error(`${definition.name}: ${problems.join("; ")}`);
  const { input: schema, produce, delayMs, parameters, ...rest } = definition;
  const inputIn = rest.inputIn ?? "query";
  const templateNames = [...rest.path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]);
  if (inputIn === "path" && templateNames.join() !== Object.keys(parameters).join()) throw new Error(`${definition.name}: the path names its parameters`);
  const full = Object.fromEntries(
    Object.entries(parameters).map(([key, parameter]) => [key, { type: "string" as const, required: true, ...parameter }]),
  );
  const example = schema.parse(Object.fromEntries(Object.entries(full).map(([key, parameter]) => [key, parameter.example])));
  const check = (input: ServiceInput) => {
    const parsed = schema.safeParse(input);
    return parsed.success ? ({ ok: true, data: parsed.data } as const) : ({ ok: false, detail: describeIssues(parsed.error) } as const);
  };
  return {
    ...rest,
    inputIn,
    method: inputIn === "json-body" ? "POST" : "GET",
    parameters: full,
    alwaysOffline: rest.alwaysOffline ?? false,
    offers: rest.offers ?? "local",
    hostGroup: rest.hostGroup ?? rest.name,
    exampleOutput: produce(example, { slowDelayMs: 0, signal: new AbortController().signal }),
    checkInput(input) {
      const checked = check(input);
      return checked.ok ? undefined : checked.detail;
    },
    async answer(input, context) {
      const checked = check(input);
      if (!checked.ok) return { ok: false, detail: checked.detail };
      const wait = delayMs?.(context) ?? 0;
      if (wait > 0) await abortableDelay(wait, context.signal);
      return { ok: true, body: produce(checked.data, context) };
    },
  };
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
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}
