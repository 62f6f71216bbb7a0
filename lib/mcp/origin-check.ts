/**
 * Browsers send `Origin` with every POST; MCP clients that are programs send none. A page on
 * another site must not drive this server through a visitor's browser, and on the local world,
 * where the agent wallet pays for anyone, a page whose name was rebound to 127.0.0.1 (DNS
 * rebinding) would otherwise be "same origin". So a request that names an origin is served only
 * when that origin is this site: the configured one (`APP_URL`), or, without one (the local
 * world only), a loopback origin.
 */
import { AppError } from "../errors";

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/i;

export function allowedOrigin(origin: string | null, appUrl: string | undefined): boolean {
  if (origin === null) return true;
  if (appUrl) return origin.toLowerCase() === new URL(appUrl).origin.toLowerCase();
  return LOOPBACK_ORIGIN.test(origin);
}

/** @throws AppError 403 for a browser request from another site. */
export function checkOrigin(request: Request, appUrl: string | undefined): void {
  if (!allowedOrigin(request.headers.get("origin"), appUrl)) {
    throw new AppError("forbidden:other_origin");
  }
}
