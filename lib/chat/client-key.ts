/**
 * Who is asking, for rate limiting. Proxy headers are trusted only where a proxy sets them
 * (Vercel, or TRUST_PROXY_HEADERS=true); otherwise anyone could pick their own key.
 */
import { isIP } from "node:net";
import type { Env } from "../env";

export function clientKeyOf(request: Request, env: Pick<Env, "TRUST_PROXY_HEADERS" | "VERCEL">): string {
  const trusted = env.TRUST_PROXY_HEADERS ?? Boolean(env.VERCEL);
  if (trusted) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    const candidate = forwarded || request.headers.get("x-real-ip")?.trim();
    if (candidate && isIP(candidate)) return `ip:${candidate}`;
  }
  // Without a trusted proxy the route cannot see the peer address, so all callers share one
  // bucket: strict, and documented in the README.
  return "ip:direct";
}
