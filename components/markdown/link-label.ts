/**
 * A link whose text is a URL or a domain tells the reader where it goes, and the reader
 * believes it: `[https://bank.example](https://evil.example)` reads as the bank. The answers
 * come from a model that paid services' responses can steer, so when such a text names another
 * destination than the link's own, the link shows its real destination (the full URL, less any
 * user name) as its text instead: the reader then sees only the truth, host first. Text that
 * names the same place is kept: the same host and port, the same scheme when the text gives
 * one, and a path the destination's starts with (`bank.example` or
 * `https://bank.example/docs…` for `https://bank.example/docs/fees`). Text that is not a URL or
 * a domain ("the docs") is kept as written; so is a domain inside a longer text.
 */
import type { Inline } from "./markdown-types";

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
// Dot-separated labels ending in one of letters (`bank.example`, `www.x.com`, `bücher.de`),
// or an IPv4 address, then an optional port. Labels cannot contain the dots between them, so
// a failed match costs time linear in the host, whatever the model wrote.
const DOMAIN = /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,63}\.?(?::\d{1,5})?$/u;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?$/;
const TRAILING_ELLIPSIS = /(?:…|\.\.\.)$/;

/** What a reader sees of the label: its text and code, with breaks as line ends. */
function visibleText(nodes: readonly Inline[]): string {
  return nodes
    .map((node) => {
      if (node.type === "text" || node.type === "code") return node.value;
      if (node.type === "break") return "\n";
      return visibleText(node.children);
    })
    .join("");
}

/** `new URL` without throwing (URL.parse is too recent for some of the browsers the page serves). */
function parseUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

/** The URL the text claims to be, `null` when it claims one that does not parse, or undefined when it is no URL. */
function claimedUrl(text: string): { url: URL | null; withScheme: boolean } | undefined {
  const claim = text.trim().replace(TRAILING_ELLIPSIS, "");
  if (!claim || /\s/.test(claim)) return undefined;
  if (SCHEME.test(claim)) return { url: parseUrl(claim), withScheme: true };
  const host = claim.split(/[/?#]/, 1)[0] ?? "";
  if (!DOMAIN.test(host) && !IPV4.test(host)) return undefined;
  return { url: parseUrl(`https://${claim}`), withScheme: false };
}

function pathOf(url: URL): string {
  return url.pathname + url.search + url.hash;
}

function sameDestination(claimed: URL, withScheme: boolean, target: URL): boolean {
  if (claimed.hostname !== target.hostname || claimed.port !== target.port) return false;
  if (withScheme && claimed.protocol !== target.protocol) return false;
  // A trailing slash is how a path is displayed, not a different place.
  const shown = pathOf(claimed).replace(/\/$/, "");
  return pathOf(target).startsWith(shown);
}

/**
 * The children a link should show: its label, unless the label is a URL or domain that is not
 * where `href` (an absolute http(s) URL from safeLinkHref) goes; then the destination itself.
 *
 * @example
 * honestLinkLabel([{ type: "text", value: "bank.example" }], "https://bank.example/login"); // the label
 * honestLinkLabel([{ type: "text", value: "https://bank.example" }], "https://evil.example/"); // [text "https://evil.example/"]
 */
export function honestLinkLabel(label: Inline[], href: string): Inline[] {
  const claim = claimedUrl(visibleText(label));
  if (!claim) return label;
  const target = new URL(href);
  if (claim.url && sameDestination(claim.url, claim.withScheme, target)) return label;
  // Without any user name and password: `https://bank.example@evil.example` would still start
  // with the name the label claimed.
  return [{ type: "text", value: `${target.protocol}//${target.host}${pathOf(target)}` }];
}
