/**
 * How to call a listed service: the contract read from what the bazaar spec lets a service
 * declare (read-input-contract.ts), put to use in one usage line (call-usage.ts) and in the
 * check a call passes before any quote (check-call.ts). Everything in it is the service's own
 * text, cleaned and bounded when read.
 */

/** The methods the bazaar spec names for an HTTP resource (HEAD among its query methods). */
export const CALL_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
export type CallMethod = (typeof CALL_METHODS)[number];
export const isCallMethod = (value: string): value is CallMethod => (CALL_METHODS as readonly string[]).includes(value);
export type BodyType = "json" | "form-data" | "text";

/** A value a field's declared set can hold: JSON Schema's `enum` allows more, we read these. */
export type Choice = string | number;

export type ParameterSpec = {
  name: string;
  type?: string;
  required: boolean;
  description?: string;
  example?: string;
  /** The only values the field takes (its schema's `enum`), when the service declared them. */
  choices?: Choice[];
};

export type InputContract = {
  method: CallMethod;
  /** The service did not name its method; it was inferred (a body: POST, else GET). */
  methodInferred?: true;
  query: ParameterSpec[];
  path: ParameterSpec[];
  /** e.g. `/users/:id`, when the service declared one. */
  routeTemplate?: string;
  body?: { type: BodyType; fields: ParameterSpec[]; example?: string };
  outputExample?: string;
};
