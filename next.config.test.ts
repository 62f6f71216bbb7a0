/**
 * The security headers of next.config.ts, loaded and matched by Next's own code (the route
 * loader `next build` runs and the matcher `next start` builds from it), against every page
 * and API route in app/ and paths that are no route yet. tests/e2e/rendering.e2e.test.ts checks
 * that the built server sends them.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import loadCustomRoutes from "next/dist/lib/load-custom-routes";
import { buildCustomRoute } from "next/dist/server/lib/router-utils/filesystem";
import { describe, expect, it } from "vitest";
import nextConfig from "./next.config";

const REQUIRED = {
  "content-security-policy": "frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** The URL path of every page.tsx and route.ts under app/ (dynamic segments filled in). */
function appRoutes(): string[] {
  const appDirectory = path.join(import.meta.dirname, "app");
  return readdirSync(appDirectory, { recursive: true, encoding: "utf8" })
    .filter((file) => /(^|\/)(page\.tsx|route\.ts)$/.test(file))
    .map((file) => {
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment));
      return `/${segments.map((segment) => segment.replace(/^\[+\.*(.*?)\]+$/, "$1-value")).join("/")}`;
    });
}

/** The headers Next would add to a response for `pathname`, lower-cased names. */
async function headersFor(pathname: string): Promise<Record<string, string>> {
  const { headers } = await loadCustomRoutes(nextConfig);
  const added: Record<string, string> = {};
  for (const rule of headers) {
    if (rule.has || rule.missing) continue;
    if (buildCustomRoute("header", rule, nextConfig.basePath, false).match(pathname) === false) continue;
    for (const { key, value } of rule.headers) added[key.toLowerCase()] = value;
  }
  return added;
}

describe("security headers", () => {
  it("finds the app's pages and API routes", () => {
    expect(appRoutes()).toEqual(expect.arrayContaining(["/", "/payments", "/api/chat", "/api/payments", "/api/network"]));
  });

  it.each([
    ...appRoutes(),
    // `/api/:path*`: API routes not written yet, and paths that are no route (404s) too.
    "/api/some/future/route",
    "/no-such-page",
    "/payments/",
  ])("adds frame-ancestors 'none', DENY, nosniff and no-referrer to %s", async (pathname) => {
    expect(await headersFor(pathname)).toMatchObject(REQUIRED);
  });
});

describe("builds", () => {
  // Next 16.4 turns Turbopack's build cache on by default: without this line every build would
  // read and write .next/cache/turbopack again (docs/decisions.md, "Builds start cold").
  it("carry no Turbopack task cache from one `next build` to the next", () => {
    expect(nextConfig.experimental?.turbopackFileSystemCacheForBuild).toBe(false);
  });
});
