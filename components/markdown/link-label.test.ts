/** Links whose text is a URL or a domain: kept when true, replaced by the real destination when not. */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./markdown";
import { parseInline, type Inline } from "./parse-markdown";

const text = (value: string): Inline => ({ type: "text", value });
const link = (href: string, children: Inline[]): Inline => ({ type: "link", href, children });

/** The one link in `markdown`: its href and the text it shows. */
function onlyLink(markdown: string): { href: string; shows: string } {
  const links = parseInline(markdown).filter((node) => node.type === "link");
  expect(links).toHaveLength(1);
  const [node] = links;
  if (node?.type !== "link") throw new Error("no link");
  const shows = (nodes: readonly Inline[]): string =>
    nodes.map((child) => (child.type === "text" || child.type === "code" ? child.value : "children" in child ? shows(child.children) : "")).join("");
  return { href: node.href, shows: shows(node.children) };
}

describe("a link whose text names its own destination", () => {
  it.each([
    ["the same URL", "[https://bank.example/login](https://bank.example/login)", "https://bank.example/login"],
    ["the bare domain of the destination", "[bank.example](https://bank.example/login?next=%2Fhome)", "bank.example"],
    ["a domain written in capitals", "[Bank.Example](https://bank.example/)", "Bank.Example"],
    ["the domain and path without a scheme", "[bank.example/login](https://bank.example/login)", "bank.example/login"],
    ["a path with a trailing slash", "[bank.example/login/](https://bank.example/login)", "bank.example/login/"],
    ["a shortened display of the URL", "[https://bank.example/docs/fe…](https://bank.example/docs/fees#limits)", "https://bank.example/docs/fe…"],
    ["the origin of a deeper page", "[https://bank.example](https://bank.example/accounts/42)", "https://bank.example"],
    ["an IPv4 address", "[10.0.0.7:8080/status](http://10.0.0.7:8080/status)", "10.0.0.7:8080/status"],
    ["a bold domain", "[**weather.example**](https://weather.example/lisbon)", "weather.example"],
  ])("keeps %s", (_label, markdown, shown) => {
    expect(onlyLink(markdown).shows).toBe(shown);
  });

  it("leaves the tree exactly as before for a plain text label", () => {
    expect(parseInline("[bank.example](https://bank.example/)")).toEqual([link("https://bank.example/", [text("bank.example")])]);
  });
});

describe("a link whose text names another destination", () => {
  it.each([
    ["another host", "[https://bank.example](https://evil.example)", "https://evil.example/"],
    ["another host, with a path", "[https://bank.example/login](https://evil.example/bank/login)", "https://evil.example/bank/login"],
    ["a bare domain", "[bank.example](https://evil.example/login)", "https://evil.example/login"],
    ["a domain and path", "[bank.example/login](https://evil.example/login)", "https://evil.example/login"],
    ["www. in front", "[www.x.com](https://x.com/)", "https://x.com/"],
    ["a subdomain of the claimed domain's name", "[bank.example](https://bank.example.evil.example/)", "https://bank.example.evil.example/"],
    ["a user name that spells the claimed host", "[bank.example](https://bank.example@evil.example/)", "https://evil.example/"],
    ["http where the text says https", "[https://bank.example](http://bank.example/)", "http://bank.example/"],
    ["https where the text says http", "[http://bank.example](https://bank.example/)", "https://bank.example/"],
    ["another port", "[bank.example](https://bank.example:8443/)", "https://bank.example:8443/"],
    ["another path on the same host", "[bank.example/login](https://bank.example/logout)", "https://bank.example/logout"],
    ["a claimed URL that does not parse", "[https://bank.example:99999](https://evil.example/)", "https://evil.example/"],
    ["a domain in code", "[`bank.example`](https://evil.example/)", "https://evil.example/"],
    ["a bold domain", "[**bank.example**](https://evil.example/)", "https://evil.example/"],
  ])("shows the real destination for %s", (_label, markdown, shown) => {
    const { href, shows } = onlyLink(markdown);
    expect(shows).toBe(shown);
    expect(shows).toContain(new URL(href).host);
  });

  it("replaces the label with plain text, never a nested link to the claimed URL", () => {
    expect(parseInline("[https://bank.example](https://evil.example)")).toEqual([link("https://evil.example/", [text("https://evil.example/")])]);
  });

  it("renders the real host as the anchor's visible text", () => {
    const html = renderToStaticMarkup(createElement(Markdown, { text: "Log in at [https://bank.example/login](https://evil.example/phish)." }));
    expect(html).toContain('<a href="https://evil.example/phish" target="_blank" rel="noopener noreferrer nofollow">https://evil.example/phish</a>');
    expect(html).not.toContain("bank.example");
  });
});

describe("links whose text is not a URL", () => {
  it.each([
    ["words", "[the docs](https://evil.example/docs)", "the docs"],
    ["a service name", "[Weather Now](https://weather.example/lisbon)", "Weather Now"],
    ["a sentence that mentions a domain", "[sign in to bank.example](https://bank.example/login)", "sign in to bank.example"],
    ["a version number", "[v1.2.3](https://github.example/releases/v1.2.3)", "v1.2.3"],
    ["a price", "[0.01 USDC](https://weather.example/pay)", "0.01 USDC"],
    ["a file name without a letter TLD", "[report.2024](https://files.example/r)", "report.2024"],
  ])("keeps %s", (_label, markdown, shown) => {
    expect(onlyLink(markdown).shows).toBe(shown);
  });
});

describe("unsafe destinations", () => {
  it("still refuses javascript: and data: targets, whatever the text claims", () => {
    expect(parseInline("[bank.example](javascript:alert(1))")).toEqual([text("bank.example")]);
    expect(parseInline("[x](javascript:alert(1))")).toEqual([text("x")]);
    expect(parseInline("[https://bank.example](data:text/html,hi)")).toEqual(parseInline("https://bank.example"));
    expect(JSON.stringify(parseInline("[https://bank.example](javascript:alert(1))"))).not.toContain("javascript");
  });
});
