/**
 * Who is asking, for rate limiting and for namespacing request keys. Proxy headers are trusted
 * only where a proxy sets them (Vercel, or TRUST_PROXY_HEADERS=true); otherwise anyone could
 * pick their own key.
 *
 * Proxies such as nginx and cloud load balancers APPEND the address they saw to whatever
 * X-Forwarded-For the client sent, so only the entries on the right were written by proxies
 * the operator runs; everything to their left is the client's own text. The address is
 * therefore the entry TRUST_PROXY_HOPS from the right (the last one by default). On Vercel the
 * platform replaces X-Forwarded-For and sets X-Real-IP to the client's address itself, so
 * X-Real-IP is read there.
 *
 * The address is written one way only (canonicalAddress), so that one host is one caller
 * however a proxy spells it: its rate-limit window and the namespace of its request keys.
 */
import type { Env } from "../env";
import { formatIpAddress, parseIpAddress, unmapIpv4 } from "../net/ip-address";

export type ClientKeySettings = Pick<Env, "TRUST_PROXY_HEADERS" | "TRUST_PROXY_HOPS" | "VERCEL">;

export function clientKeyOf(request: Request, env: ClientKeySettings): string {
  const trusted = env.TRUST_PROXY_HEADERS ?? Boolean(env.VERCEL);
  if (trusted) {
    const candidate = env.VERCEL ? vercelClientAddress(request) : forwardedClientAddress(request, env.TRUST_PROXY_HOPS);
    const address = candidate === undefined ? undefined : canonicalAddress(candidate);
    if (address) return `ip:${address}`;
  }
  // Without a trusted proxy the route cannot see the peer address, so all callers share one
  // bucket: strict, and documented in the README.
  return "ip:direct";
}

/**
 * An address literal in its one text: IPv6 compressed and lower case (RFC 5952), an
 * IPv4-mapped IPv6 address as the IPv4 address it carries; undefined for anything else.
 *
 * @example
 * canonicalAddress("::FFFF:198.51.100.7");       // "198.51.100.7"
 * canonicalAddress("2001:0db8:0:0:0:0:0:0001");  // "2001:db8::1"
 */
export function canonicalAddress(text: string): string | undefined {
  const parsed = parseIpAddress(text);
  return parsed ? formatIpAddress(unmapIpv4(parsed)) : undefined;
}

/**
 * The entry `hops` from the right. When the header has fewer entries than trusted proxies,
 * every entry was written by one of them, so the leftmost is still the proxies' word.
 */
function forwardedClientAddress(request: Request, hops: number): string | undefined {
  const entries = (request.headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return undefined;
  return entries[Math.max(0, entries.length - hops)];
}

function vercelClientAddress(request: Request): string | undefined {
  const realIp = request.headers.get("x-real-ip")?.trim();
  if (realIp) return realIp;
  // X-Forwarded-For is also set by the platform there; its last entry is the same address.
  return forwardedClientAddress(request, 1);
}
