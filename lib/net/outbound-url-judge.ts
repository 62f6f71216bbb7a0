import "server-only";
/**
 * Whether the guarded fetch would refuse a URL, judged without connecting: for discovery, which
 * leaves out listings the agent could never call before a model chooses among them. The same
 * rules as the guarded fetch (outbound-url.ts, outbound-rules.ts, with the same allowlist and
 * infrastructure), applied to what the URL itself says.
 *
 * No host name is resolved. A literal address is judged as it is; a name under `localhost`
 * (RFC 6761: always this machine) is judged as 127.0.0.1; any other name is judged by name
 * only (an infrastructure server or allowlist entry named by it) and otherwise kept. Resolving
 * a catalogue's names would let a third party choose which names this server looks up, and how
 * many (each a getaddrinfo call on libuv's small thread pool, held as long as a slow name
 * server likes), it would delay every discovery answer, and the answer could change before the
 * call anyway. A name that resolves to a refused address is still refused when it is called:
 * the guarded fetch checks every connection; this judge only spares the model listings that
 * can be known not to work.
 */
import { GuardedFetchError, type GuardedFetchErrorCode } from "./guarded-fetch-error";
import { compileInfrastructure, normalizeHostname } from "./infrastructure";
import { parseIpAddress } from "./ip-address";
import { compileAllowlist } from "./outbound-allowlist";
import { systemLookup, type OutboundLookup } from "./outbound-lookup";
import { outboundRefusal } from "./outbound-rules";
import { assertOutboundUrl, parseOutboundUrl } from "./outbound-url";

/** The guarded fetch's refusals a URL alone can show. */
export type UrlRefusalCode = Extract<GuardedFetchErrorCode, "invalid_url" | "blocked_scheme" | "credentials_in_url" | "blocked_address" | "infrastructure">;

export type OutboundUrlJudgeOptions = {
  /** The guarded fetch's allowlist and infrastructure, as given to `createGuardedFetch`. */
  allowlist: readonly string[];
  infrastructure: readonly string[];
  /** Resolves an infrastructure server named by a host name (never a judged URL's host); system resolver by default. */
  lookup?: OutboundLookup;
  /** The most one such lookup may take; an unanswered one matches nothing. */
  lookupTimeoutMs?: number;
};

/** Why the guarded fetch would refuse the URL, or undefined when it might be called. */
export type OutboundUrlJudge = (url: string) => Promise<UrlRefusalCode | undefined>;

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };
const LOOPBACK_NAME = /(^|\.)localhost$/;

/** The addresses a URL's host is known to have without asking a resolver (none for other names). */
export function knownAddresses(hostname: string): string[] {
  const host = normalizeHostname(hostname);
  if (parseIpAddress(host)) return [host];
  return LOOPBACK_NAME.test(host) ? ["127.0.0.1"] : [];
}

/**
 * @example
 * const judge = createOutboundUrlJudge({ allowlist: ["127.0.0.1:4021"], infrastructure: ["http://127.0.0.1:8545"] });
 * await judge("http://127.0.0.1:4021/weather");     // undefined
 * await judge("http://169.254.169.254/latest");     // "blocked_address"
 * await judge("http://localhost:8545/");            // "infrastructure"
 */
export function createOutboundUrlJudge(options: OutboundUrlJudgeOptions): OutboundUrlJudge {
  const allowlist = compileAllowlist(options.allowlist);
  const infrastructure = options.infrastructure.length > 0 ? compileInfrastructure(options.infrastructure) : undefined;
  const lookup = boundedLookup(options.lookup ?? systemLookup, options.lookupTimeoutMs ?? 2_000);
  return async (text) => {
    let url: URL;
    try {
      url = parseOutboundUrl(text);
      assertOutboundUrl(url);
    } catch (error) {
      const guarded = GuardedFetchError.find(error);
      return (guarded?.code as UrlRefusalCode | undefined) ?? "invalid_url";
    }
    const hostname = normalizeHostname(url.hostname);
    const port = url.port === "" ? (DEFAULT_PORTS[url.protocol] ?? 80) : Number(url.port);
    const refusal = await outboundRefusal({ hostname, port, addresses: knownAddresses(hostname) }, { allowlist, infrastructure, lookup });
    return refusal?.code;
  };
}

/**
 * The infrastructure's own names are the operator's and few, so their answers are kept (for a
 * minute) rather than asked again for every listing; each lookup is bounded in time.
 */
function boundedLookup(lookup: OutboundLookup, timeoutMs: number): OutboundLookup {
  const answers = new Map<string, { until: number; addresses: Promise<Awaited<ReturnType<OutboundLookup>>> }>();
  return (hostname) => {
    const kept = answers.get(hostname);
    if (kept && kept.until > Date.now()) return kept.addresses;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`lookup of ${hostname} took too long`)), timeoutMs);
    });
    const addresses = Promise.race([lookup(hostname), late]).finally(() => clearTimeout(timer));
    answers.set(hostname, { until: Date.now() + 60_000, addresses });
    return addresses;
  };
}
