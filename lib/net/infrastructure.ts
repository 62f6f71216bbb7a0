/**
 * The payment network's own servers (the chain's RPC, the facilitator): the agent pays through
 * them and reads from them, but never calls them as services, whatever a URL calls them. A call
 * to the RPC can move the agent's money outside every limit (`eth_sendTransaction` on a node
 * that holds keys), and a facilitator's every path (settle, a devnet's fault switches) is
 * operator machinery.
 *
 * A server is its host and port, scheme aside (http and https on one port are one listener).
 * It is recognised at connect time, for the connection about to be opened:
 *
 * - by name: the URL's host name, lower case, without a trailing dot;
 * - by address: where the server is named by an address, every resolved address of the target
 *   is compared with it, and all of this machine's own addresses (loopback, 0.0.0.0, ::) count
 *   as one, so `localhost`, `127.0.0.2`, `[::1]` and `0.0.0.0` are the same as `127.0.0.1`;
 * - a server named by a host name is also compared by address when the target's address is not
 *   public: the name is then resolved and its addresses compared the same way. Public addresses
 *   are not compared for named servers: a public facilitator behind a CDN shares its addresses
 *   with thousands of other sites, services among them.
 */
import type { OutboundLookup } from "./outbound-lookup";
import { cidrContains, parseIpAddress, requireCidr, sameIpAddress, unmapIpv4, type IpAddress } from "./ip-address";
import { isPublicAddress } from "./public-address";

type Endpoint = { hostname: string; port: number; address: IpAddress | undefined };

/** The connection about to be opened: the URL's host name and port, and where it resolved. */
export type InfrastructureTarget = { hostname: string; port: number; addresses: readonly string[] };

export type Infrastructure = {
  /** Whether the connection would reach one of the servers. */
  includes(target: InfrastructureTarget, lookup: OutboundLookup): Promise<boolean>;
};

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };
const THIS_MACHINE = [requireCidr("127.0.0.0/8"), requireCidr("0.0.0.0/32"), requireCidr("::1/128"), requireCidr("::/128")];

/** Lower case, no IPv6 brackets, no trailing dot: one spelling per name. */
export function normalizeHostname(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, "$1")
    .toLowerCase()
    .replace(/\.$/, "");
}

function parseEndpoint(url: string): Endpoint {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`Invalid infrastructure URL: ${url}`);
  }
  const port = parsed.port === "" ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  if (port === undefined) throw new Error(`Infrastructure URL without a known port: ${parsed.protocol}//${parsed.host}`);
  const hostname = normalizeHostname(parsed.hostname);
  const address = parseIpAddress(hostname);
  return { hostname, port, address: address ? unmapIpv4(address) : undefined };
}

function isThisMachine(address: IpAddress): boolean {
  return THIS_MACHINE.some((range) => cidrContains(range, address));
}

function sameServerAddress(left: IpAddress, right: IpAddress): boolean {
  return sameIpAddress(left, right) || (isThisMachine(left) && isThisMachine(right));
}

function parsedAddresses(texts: readonly string[]): IpAddress[] {
  return texts.flatMap((text) => {
    const address = parseIpAddress(text);
    return address ? [unmapIpv4(address)] : [];
  });
}

async function resolvedAddresses(hostname: string, lookup: OutboundLookup): Promise<IpAddress[]> {
  try {
    return parsedAddresses((await lookup(hostname)).map((entry) => entry.address));
  } catch {
    // A server whose name does not resolve cannot be where the target resolved to.
    return [];
  }
}

/**
 * Compiles the servers' URLs (paths and queries are ignored: every path of an origin is the
 * same server); throws on a URL that is not one.
 *
 * @example
 * const infrastructure = compileInfrastructure(["http://127.0.0.1:8545", "https://x402.org/facilitator"]);
 * await infrastructure.includes({ hostname: "localhost", port: 8545, addresses: ["127.0.0.1"] }, lookup); // true
 * await infrastructure.includes({ hostname: "x402.org", port: 443, addresses: ["76.76.21.21"] }, lookup); // true
 * await infrastructure.includes({ hostname: "127.0.0.1", port: 4021, addresses: ["127.0.0.1"] }, lookup); // false
 */
export function compileInfrastructure(urls: readonly string[]): Infrastructure {
  const endpoints = urls.map(parseEndpoint);
  return {
    async includes(target, lookup) {
      const hostname = normalizeHostname(target.hostname);
      const candidates = endpoints.filter((endpoint) => endpoint.port === target.port);
      if (candidates.length === 0) return false;
      if (candidates.some((endpoint) => endpoint.hostname === hostname)) return true;
      const addresses = parsedAddresses(target.addresses);
      const matches = (server: IpAddress) => addresses.some((address) => sameServerAddress(server, address));
      if (candidates.some((endpoint) => endpoint.address !== undefined && matches(endpoint.address))) return true;
      if (target.addresses.every(isPublicAddress)) return false;
      for (const endpoint of candidates) {
        if (endpoint.address !== undefined) continue;
        if ((await resolvedAddresses(endpoint.hostname, lookup)).some(matches)) return true;
      }
      return false;
    },
  };
}
