/**
 * The operator's explicit exceptions to the non-public address rule (the local world serves
 * its facilitator and demo services on 127.0.0.1). An entry is one of:
 *
 * - an address, any port: `127.0.0.1`, `::1`
 * - an address and port: `127.0.0.1:4021`, `[::1]:4021`
 * - a CIDR range, any port: `127.0.0.0/8`, `fd00::/8`
 * - a host name, optionally with a port: `localhost`, `devnet.internal:4021`
 *
 * A host-name entry matches the name in the URL, whatever it resolves to: naming a host is the
 * operator vouching for it. Entries only add permissions; public addresses never need one.
 */
import { cidrContains, parseCidr, parseIpAddress, sameIpAddress, unmapIpv4, type CidrRange, type IpAddress } from "./ip-address";

export type AllowlistEntry =
  { kind: "range"; range: CidrRange } | { kind: "address"; address: IpAddress; port?: number } | { kind: "host"; hostname: string; port?: number };

/** The connection an allowlist is asked about, as known at connect time. */
export type ConnectionTarget = {
  /** The host name from the URL, lower case, without brackets. */
  hostname: string;
  port: number;
  /** The resolved address about to be connected to. */
  address: string;
};

export type Allowlist = {
  readonly entries: readonly AllowlistEntry[];
  allows(target: ConnectionTarget): boolean;
};

const HOST_NAME_PATTERN = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*\.?$/;

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : undefined;
}

function urlHostname(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}

function parseHostEntry(host: string, port: number | undefined): AllowlistEntry | undefined {
  const address = parseIpAddress(host);
  if (address) return { kind: "address", address: unmapIpv4(address), port };
  const hostname = host.toLowerCase().replace(/\.$/, "");
  // Odd IPv4 spellings (127.1, 0x7f.1) are names the URL parser rewrites to an address, so
  // they would never match a URL's host name; refuse them so that an entry means what it says.
  if (!HOST_NAME_PATTERN.test(hostname) || urlHostname(hostname) !== hostname) return undefined;
  return { kind: "host", hostname, port };
}

/**
 * Parses one allowlist entry; undefined when it is not valid.
 *
 * @example
 * parseAllowlistEntry("127.0.0.1:4021"); // { kind: "address", address: ..., port: 4021 }
 * parseAllowlistEntry("127.0.0.0/8");    // { kind: "range", range: ... }
 */
export function parseAllowlistEntry(entry: string): AllowlistEntry | undefined {
  const text = entry.trim();
  if (text === "") return undefined;
  if (text.includes("/")) {
    const range = parseCidr(text);
    return range ? { kind: "range", range } : undefined;
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    const address = parseIpAddress(bracketed[1] ?? "");
    const port = bracketed[2] === undefined ? undefined : parsePort(bracketed[2]);
    if (!address || address.version !== 6 || (bracketed[2] !== undefined && port === undefined)) return undefined;
    return { kind: "address", address: unmapIpv4(address), port };
  }
  // A bare IPv6 address has colons but cannot carry a port without brackets.
  if (parseIpAddress(text)?.version === 6) return parseHostEntry(text, undefined);
  const withPort = /^([^:]+):([^:]*)$/.exec(text);
  if (withPort) {
    const port = parsePort(withPort[2] ?? "");
    return port === undefined ? undefined : parseHostEntry(withPort[1] ?? "", port);
  }
  return text.includes(":") ? undefined : parseHostEntry(text, undefined);
}

/**
 * Splits a configured list (commas and/or whitespace, as in `OUTBOUND_ALLOWLIST`) into entries
 * and checks each; throws an Error naming the first invalid entry.
 *
 * @example
 * parseAllowlist("127.0.0.1:4021, 127.0.0.1:4022 localhost"); // ["127.0.0.1:4021", "127.0.0.1:4022", "localhost"]
 * parseAllowlist("");                                          // []
 */
export function parseAllowlist(entries: string): string[] {
  const list = entries.split(/[\s,]+/).filter((entry) => entry !== "");
  for (const entry of list) requireEntry(entry);
  return list;
}

function requireEntry(entry: string): AllowlistEntry {
  const parsed = parseAllowlistEntry(entry);
  if (!parsed) {
    throw new Error(
      `Invalid outbound allowlist entry "${entry}": use an address (127.0.0.1), address:port (127.0.0.1:4021), CIDR (127.0.0.0/8) or host name (localhost:4021).`,
    );
  }
  return parsed;
}

function entryAllows(entry: AllowlistEntry, target: ConnectionTarget, address: IpAddress | undefined): boolean {
  switch (entry.kind) {
    case "range":
      return address !== undefined && cidrContains(entry.range, address);
    case "address":
      return address !== undefined && sameIpAddress(entry.address, address) && (entry.port === undefined || entry.port === target.port);
    case "host":
      return entry.hostname === target.hostname.toLowerCase().replace(/\.$/, "") && (entry.port === undefined || entry.port === target.port);
  }
}

/**
 * Builds the matcher used at connect time; throws like `parseAllowlist` on an invalid entry.
 *
 * @example
 * const allowlist = compileAllowlist(["127.0.0.1:4021"]);
 * allowlist.allows({ hostname: "127.0.0.1", port: 4021, address: "127.0.0.1" }); // true
 * allowlist.allows({ hostname: "127.0.0.1", port: 22, address: "127.0.0.1" });   // false
 */
export function compileAllowlist(entries: readonly string[]): Allowlist {
  const parsed = entries.map(requireEntry);
  return {
    entries: parsed,
    allows(target) {
      const parsedAddress = parseIpAddress(target.address);
      const address = parsedAddress ? unmapIpv4(parsedAddress) : undefined;
      return parsed.some((entry) => entryAllows(entry, target, address));
    },
  };
}
