/**
 * The checks on a URL itself, before any connection: scheme and embedded credentials. Where the
 * URL leads (its resolved address) is checked at connect time by the guarded connector.
 */
import { GuardedFetchError } from "./guarded-fetch-error";

const ALLOWED_PROTOCOLS = new Set(["http:", "https:"]);

/**
 * Parses the URL of a fetch input; relative URLs are refused (a server has no base URL).
 * Throws `invalid_url` without echoing the input, which might hold a secret.
 *
 * @example
 * parseOutboundUrl("https://api.example.com/weather"); // URL
 * parseOutboundUrl(new Request("https://api.example.com/")); // URL
 */
export function parseOutboundUrl(input: string | URL | Request, base?: URL): URL {
  const text = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  try {
    return new URL(text, base);
  } catch {
    throw new GuardedFetchError("invalid_url");
  }
}

/**
 * Throws unless the URL is http(s) and carries no user name or password.
 *
 * @example
 * assertOutboundUrl(new URL("https://api.example.com/")); // ok
 * assertOutboundUrl(new URL("file:///etc/passwd"));       // throws blocked_scheme
 * assertOutboundUrl(new URL("https://user:pw@example.com/")); // throws credentials_in_url
 */
export function assertOutboundUrl(url: URL): void {
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) {
    throw new GuardedFetchError("blocked_scheme");
  }
  if (url.username !== "" || url.password !== "") {
    throw new GuardedFetchError("credentials_in_url", { host: url.host });
  }
}
