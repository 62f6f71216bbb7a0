/**
 * Text a service wrote (a name, a description, an error reason, an option it offered) as it
 * may reach the model, a `p:` message or the page: control, bidi and zero-width characters
 * removed, whitespace collapsed, bounded, and, where it sits among our own words, quoted as the
 * service's, so it cannot pass for ours.
 */

// Control characters, bidi overrides and isolates, zero-width and invisible formatting.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** The visible text, at most `maxChars` characters (an ellipsis marks a cut). */
export function sanitizeServiceText(text: string, maxChars: number): string {
  const visible = text.replace(HIDDEN, " ").replace(/\s+/g, " ").trim();
  return visible.length > maxChars ? `${visible.slice(0, maxChars)}…` : visible;
}

/**
 * The service's words, marked as such, for use inside a sentence of ours.
 *
 * @example
 * describeServiceText("reason", "insufficient_funds"); // '(the service's reason, untrusted: "insufficient_funds")'
 */
export function describeServiceText(label: string, text: string, maxChars = 120): string {
  return `(the service's ${label}, untrusted: ${JSON.stringify(sanitizeServiceText(text, maxChars))})`;
}

/** A protocol token a service sent (a scheme, a network name): kept only if it looks like one. */
export function serviceToken(value: unknown): string {
  const text = typeof value === "string" ? value : "";
  return /^[A-Za-z0-9:._-]{1,64}$/.test(text) ? text : "(unreadable)";
}
