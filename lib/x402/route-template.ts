/**
 * Route templates as the bazaar names a dynamic route: its facilitator lists such a resource
 * as the service's origin plus the `routeTemplate` its resource server declared (e.g.
 * `https://api.example/v1/stocks/:symbol/quote`), so a call to the service fills every `:name`
 * segment in and its URL is no longer the listed one. The bazaar writes bracket parameters
 * (`[symbol]`) in this colon form too.
 */

import { BoundedCache } from "./bounded-cache";

const PARAMETER_SEGMENT = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/** True when a URL path has at least one `:name` segment. */
export function isRouteTemplate(path: string): boolean {
  return path.split("/").some((segment) => PARAMETER_SEGMENT.test(segment));
}

/**
 * A path template as written in other conventions, in the colon form: `{symbol}` (OpenAPI) and
 * `[symbol]` segments, raw or percent-encoded as a parsed URL writes them, become `:symbol`.
 */
export function asColonTemplate(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      const name = /^(?:\{|%7B|\[|%5B)([A-Za-z_][A-Za-z0-9_]*)(?:\}|%7D|\]|%5D)$/i.exec(segment)?.[1];
      return name ? `:${name}` : segment;
    })
    .join("/");
}

/**
 * True when `path` is `template` with each `:name` segment filled by exactly one non-empty
 * segment and every other segment unchanged (so a value cannot add or remove segments).
 */
export function matchesRouteTemplate(template: string, path: string): boolean {
  const expected = template.split("/");
  const actual = path.split("/");
  if (expected.length !== actual.length) return false;
  return expected.every((segment, index) => {
    const given = actual[index] ?? "";
    return PARAMETER_SEGMENT.test(segment) ? given !== "" : segment === given;
  });
}

/**
 * Values (listings) named by a route template, kept by origin with bounds on both, so that a
 * URL filling a template in finds its value. A value's template is its resource's path when
 * that is a template (the bazaar's form), else the `routeTemplate` declared beside a concrete
 * resource.
 */
export class RouteIndex<T> {
  private readonly byOrigin: BoundedCache<string, { template: string; value: T }[]>;

  constructor(private readonly options: { maxOrigins: number; maxRoutesPerOrigin: number }) {
    this.byOrigin = new BoundedCache({ maxEntries: options.maxOrigins });
  }

  remember(resource: string, routeTemplate: string | undefined, value: T): void {
    const url = parseUrl(resource);
    if (!url) return;
    const template = isRouteTemplate(url.pathname) ? url.pathname : routeTemplate;
    if (!template?.startsWith("/") || !isRouteTemplate(template)) return;
    const others = (this.byOrigin.get(url.origin) ?? []).filter((entry) => entry.template !== template);
    this.byOrigin.set(url.origin, [{ template, value }, ...others].slice(0, this.options.maxRoutesPerOrigin));
  }

  find(resource: string): T | undefined {
    const url = parseUrl(resource);
    return url ? this.byOrigin.get(url.origin)?.find((entry) => matchesRouteTemplate(entry.template, url.pathname))?.value : undefined;
  }
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
