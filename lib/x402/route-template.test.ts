import { describe, expect, it } from "vitest";
import { asColonTemplate, isRouteTemplate, matchesRouteTemplate, RouteIndex } from "./route-template";

describe("route templates", () => {
  it("names a path with a `:name` segment a template, and nothing else", () => {
    expect(isRouteTemplate("/v1/stocks/:symbol/quote")).toBe(true);
    expect(isRouteTemplate("/v1/stocks/NVDA/quote")).toBe(false);
    expect(isRouteTemplate("/v1/a:b")).toBe(false);
    expect(isRouteTemplate("/v1/:1")).toBe(false);
  });

  it("matches a path that fills each parameter with exactly one non-empty segment", () => {
    const template = "/v1/stocks/:symbol/quote";
    expect(matchesRouteTemplate(template, "/v1/stocks/NVDA/quote")).toBe(true);
    expect(matchesRouteTemplate(template, "/v1/stocks/:symbol/quote")).toBe(true);
    expect(matchesRouteTemplate(template, "/v1/stocks/a%2Fb/quote")).toBe(true);
    expect(matchesRouteTemplate(template, "/v1/stocks//quote")).toBe(false);
    expect(matchesRouteTemplate(template, "/v1/stocks/A/B/quote")).toBe(false);
    expect(matchesRouteTemplate(template, "/v1/stocks/NVDA/quote/")).toBe(false);
    expect(matchesRouteTemplate(template, "/v2/stocks/NVDA/quote")).toBe(false);
  });
});

describe("route index", () => {
  it("finds a value by a URL filling its template in, on its own origin only", () => {
    const index = new RouteIndex<string>({ maxOrigins: 10, maxRoutesPerOrigin: 10 });
    index.remember("https://a.example/items/:id", undefined, "templated resource");
    index.remember("https://a.example/users/42/posts", "/users/:user/posts", "declared template");
    index.remember("https://a.example/plain", undefined, "plain");
    expect(index.find("https://a.example/items/7?x=1")).toBe("templated resource");
    expect(index.find("https://a.example/users/9/posts")).toBe("declared template");
    expect(index.find("https://a.example/plain")).toBeUndefined();
    expect(index.find("https://b.example/items/7")).toBeUndefined();
    expect(index.find("not a url")).toBeUndefined();
  });

  it("keeps a bounded number of origins and of templates per origin, the latest first", () => {
    const index = new RouteIndex<number>({ maxOrigins: 2, maxRoutesPerOrigin: 2 });
    for (let n = 0; n < 3; n += 1) index.remember(`https://a.example/r${n}/:id`, undefined, n);
    expect(index.find("https://a.example/r0/1")).toBeUndefined();
    expect(index.find("https://a.example/r2/1")).toBe(2);
    index.remember("https://a.example/r2/:id", undefined, 22);
    expect(index.find("https://a.example/r2/1")).toBe(22);
    for (const host of ["b", "c"]) index.remember(`https://${host}.example/x/:id`, undefined, 0);
    expect(index.find("https://a.example/r2/1")).toBeUndefined();
  });
});

describe("asColonTemplate", () => {
  it("writes {name} and [name] segments, raw or percent-encoded, as :name", () => {
    expect(asColonTemplate("/items/{id}/parts/[part]")).toBe("/items/:id/parts/:part");
    expect(asColonTemplate(new URL("https://a.example/items/{id}").pathname)).toBe("/items/:id");
    expect(asColonTemplate("/items/:id/{not a name}/x{id}")).toBe("/items/:id/{not a name}/x{id}");
  });
});
