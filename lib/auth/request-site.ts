/**
 * The site a request was made to, as the browser saw it: what a Sign-In with Ethereum message
 * must name, and whether cookies must be `Secure`.
 */

/**
 * Whether the request came over https: its own URL, or the scheme a proxy in front reports.
 * Trusting the proxy's header here is harmless: a client that lies about it only gets cookies
 * its browser will not send back over http.
 */
export function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}

/** `{ domain: "host[:port]", origin: "scheme://host[:port]" }` from the Host header (the URL's host without one). */
export function siteOf(request: Request): { domain: string; origin: string } {
  const domain = request.headers.get("host") ?? new URL(request.url).host;
  return { domain, origin: `${isHttps(request) ? "https" : "http"}://${domain}` };
}
