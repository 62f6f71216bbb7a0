/**
 * Text a service wrote (an error reason, a name) as it may appear in a message for the model
 * or a person: invisible and control characters removed, bounded, and quoted as the service's
 * words, so it cannot pass for our own.
 */
const MAX_SERVICE_TEXT_CHARS = 120;
// Control characters, bidi overrides and zero-width characters.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function describeServiceText(label: string, text: string): string {
  const visible = text.replace(HIDDEN, " ").replace(/\s+/g, " ").trim();
  const bounded = visible.length > MAX_SERVICE_TEXT_CHARS ? `${visible.slice(0, MAX_SERVICE_TEXT_CHARS)}…` : visible;
  return `(the service's ${label}, untrusted: ${JSON.stringify(bounded)})`;
}
