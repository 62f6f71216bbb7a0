/**
 * The site people sign in to: what a Sign-In with Ethereum message must name, and whether
 * cookies must be `Secure`. It comes from configuration (APP_URL), never from the request: a
 * `Host` or forwarded header is the client's own text, and trusting it let a message signed
 * for another site (a login page anywhere that asked for this app's nonce) open a session here.
 */

/** Loopback names a browser on the same machine uses for the local world. */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

export type SignInSite = { domain: string; origin: string };

/**
 * The configured site (`APP_URL`, an origin) when there is one. Without it, which only the local
 * world allows (the configuration requires APP_URL on every other network), the site is the
 * loopback address the browser used, and any other host is refused: a local app is reached on
 * loopback, and nothing out there can be a loopback name.
 *
 * @returns undefined when the request names a site this app will not sign anyone in to.
 */
export function signInSite(appUrl: string | undefined, request: Request): SignInSite | undefined {
  if (appUrl) {
    const url = new URL(appUrl);
    return { domain: url.host, origin: url.origin };
  }
  const host = request.headers.get("host") ?? new URL(request.url).host;
  if (!LOOPBACK_HOST.test(host)) return undefined;
  return { domain: host.toLowerCase(), origin: `http://${host.toLowerCase()}` };
}

/**
 * Whether cookies should be `Secure`: the configured site is https, or (with no site
 * configured) the request came over https. Trusting a proxy's header here is harmless: a client
 * that lies about it only gets cookies its browser will not send back over http.
 */
export function cookiesSecure(appUrl: string | undefined, request: Request): boolean {
  if (appUrl) return new URL(appUrl).protocol === "https:";
  return new URL(request.url).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}
