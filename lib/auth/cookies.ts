/**
 * Reading and writing cookies on plain Fetch API requests and responses, so handlers stay
 * independent of Next.js and testable with `new Request(…)`.
 */

/** The value of the cookie `name`, or undefined. */
export function readCookie(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const separator = part.indexOf("=");
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

export type CookieOptions = {
  maxAgeSeconds: number;
  /** Only over https; set whenever the request itself came over https. */
  secure: boolean;
  path?: string;
};

/** A `Set-Cookie` value: always HttpOnly (scripts never need these) and SameSite=Lax. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path ?? "/"}`, `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`, "HttpOnly", "SameSite=Lax"];
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** A `Set-Cookie` value that deletes the cookie. */
export function expiredCookie(name: string, options: Omit<CookieOptions, "maxAgeSeconds">): string {
  return serializeCookie(name, "", { ...options, maxAgeSeconds: 0 });
}
