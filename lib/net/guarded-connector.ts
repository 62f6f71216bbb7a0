import "server-only";
/**
 * The undici connector that decides, at connect time, whether a socket may be opened. It
 * resolves the host itself, checks every resolved address, and then connects to exactly the
 * address it checked, so DNS rebinding (a second, different answer at connect time) cannot slip
 * past the check. IP-literal hosts take the same path without a lookup.
 */
import { isIP } from "node:net";
import { buildConnector } from "undici";
import { GuardedFetchError } from "./guarded-fetch-error";
import type { Infrastructure } from "./infrastructure";
import type { Allowlist } from "./outbound-allowlist";
import { systemLookup, type OutboundLookup } from "./outbound-lookup";
import { outboundRefusal } from "./outbound-rules";

export type GuardedConnectorOptions = {
  allowlist: Allowlist;
  /** Servers never connected to, whatever the allowlist says (infrastructure.ts). */
  infrastructure?: Infrastructure;
  lookup?: OutboundLookup;
  connectTimeoutMs: number;
};

function defaultPort(protocol: string): number {
  return protocol === "https:" ? 443 : 80;
}

async function resolveCheckedAddresses(hostname: string, port: number, options: GuardedConnectorOptions): Promise<string[]> {
  let addresses: string[];
  if (isIP(hostname) !== 0) {
    addresses = [hostname];
  } else {
    try {
      addresses = (await (options.lookup ?? systemLookup)(hostname)).map((entry) => entry.address);
    } catch (error) {
      throw new GuardedFetchError("connect_failed", { host: hostname, cause: error });
    }
  }
  if (addresses.length === 0) throw new GuardedFetchError("connect_failed", { host: hostname });

  const refusal = await outboundRefusal(
    { hostname, port, addresses },
    { allowlist: options.allowlist, infrastructure: options.infrastructure, lookup: options.lookup ?? systemLookup },
  );
  if (refusal?.code === "infrastructure") throw new GuardedFetchError("infrastructure", { host: hostname });
  if (refusal?.code === "blocked_address") {
    throw new GuardedFetchError("blocked_address", {
      host: hostname,
      cause: new Error(`resolved address ${refusal.address} is not public and not allowlisted`),
    });
  }
  return addresses;
}

/**
 * Builds the connector for an undici `Agent` (`new Agent({ connect })`).
 *
 * @example
 * const agent = new Agent({
 *   connect: createGuardedConnector({ allowlist: compileAllowlist(["127.0.0.1:4021"]), connectTimeoutMs: 10_000 }),
 * });
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connectSocket = buildConnector({ timeout: options.connectTimeoutMs });

  return (connectOptions, callback) => {
    const hostname = connectOptions.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    const port = Number(connectOptions.port) || defaultPort(connectOptions.protocol);
    // TLS must still verify the certificate against the name, not the address we dial.
    const servername = connectOptions.servername ?? (isIP(hostname) === 0 ? hostname : undefined);

    const tryAddresses = (addresses: string[], lastError?: unknown): void => {
      const [address, ...rest] = addresses;
      if (address === undefined) {
        callback(new GuardedFetchError("connect_failed", { host: hostname, cause: lastError }), null);
        return;
      }
      connectSocket({ ...connectOptions, hostname: address, servername }, (error, socket) => {
        if (error) tryAddresses(rest, error);
        else callback(null, socket);
      });
    };

    resolveCheckedAddresses(hostname, port, options).then(tryAddresses, (error: Error) => callback(error, null));
  };
}
