/**
 * Which IP addresses an outbound request may reach without an allowlist entry: only globally
 * routable unicast. Everything a server could use to reach itself, its neighbours or a cloud
 * metadata service (loopback, private, link-local, CGNAT, ...) is refused, and so is anything
 * reserved, documentation-only, multicast or broadcast. Tables follow the IANA special-purpose
 * address registries; Node's `net.BlockList` matches addresses against them. Only a strict,
 * canonical literal (ip-address.ts) is matched at all.
 */
import { BlockList } from "node:net";
import { cidrContains, parseIpAddress, requireCidr, type IpAddress } from "./ip-address";

/** A BlockList of the given ranges ("network/prefix"), all of one family. */
function rangesOf(family: "ipv4" | "ipv6", ranges: string[]): BlockList {
  const list = new BlockList();
  for (const range of ranges) {
    const { address, prefixLength } = requireCidr(range);
    if ((address.version === 4) !== (family === "ipv4")) throw new Error(`${range} is not ${family}`);
    const [network = ""] = range.split("/");
    list.addSubnet(network, prefixLength, family);
  }
  return list;
}

const NON_PUBLIC_IPV4 = rangesOf("ipv4", [
  "0.0.0.0/8", // "this network"; 0.0.0.0 reaches the local host on Linux
  "10.0.0.0/8", // private
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback
  "169.254.0.0/16", // link-local, including cloud metadata 169.254.169.254
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved, including broadcast 255.255.255.255
]);

// IPv6 is judged allow-first: only global unicast 2000::/3 can be public, so loopback ::1,
// unspecified ::, unique-local fc00::/7, link-local fe80::/10, multicast ff00::/8 and every
// unassigned block are refused without being listed. These are the non-public parts of 2000::/3.
const NON_PUBLIC_IPV6_GLOBAL = rangesOf("ipv6", [
  "2001::/23", // IETF protocol assignments, including Teredo 2001::/32 (embeds an obfuscated IPv4)
  "2001:db8::/32", // documentation
  "3fff::/20", // documentation
]);

const GLOBAL_UNICAST_IPV6 = rangesOf("ipv6", ["2000::/3"]);
// Forms that embed an IPv4 address at a known offset (read out of the parsed bytes below).
const IPV4_MAPPED = requireCidr("::ffff:0:0/96");
const NAT64_WELL_KNOWN = requireCidr("64:ff9b::/96");
const SIX_TO_FOUR = requireCidr("2002::/16");

function hexGroups(bytes: Uint8Array): string {
  const groups: string[] = [];
  for (let index = 0; index < 16; index += 2) groups.push((((bytes[index] ?? 0) << 8) | (bytes[index + 1] ?? 0)).toString(16));
  return groups.join(":");
}

/** `bytes`: the four bytes of an IPv4 address, alone or read out of an IPv6 form that carries one. */
function isPublicIpv4(bytes: Uint8Array): boolean {
  return !NON_PUBLIC_IPV4.check(Array.from(bytes).join("."), "ipv4");
}

function isPublicIpv6(address: IpAddress): boolean {
  // Forms that carry an IPv4 address are as public as the address they carry.
  if (cidrContains(IPV4_MAPPED, address) || cidrContains(NAT64_WELL_KNOWN, address)) {
    return isPublicIpv4(address.bytes.slice(12, 16));
  }
  if (cidrContains(SIX_TO_FOUR, address)) {
    return isPublicIpv4(address.bytes.slice(2, 6));
  }
  // Matched in the full eight-group form made from the parsed bytes, never the caller's text.
  const text = hexGroups(address.bytes);
  if (!GLOBAL_UNICAST_IPV6.check(text, "ipv6")) return false;
  return !NON_PUBLIC_IPV6_GLOBAL.check(text, "ipv6");
}

/**
 * Whether an outbound request may connect to `ip` without an allowlist entry. Anything that is
 * not a canonical IP literal is "not public", so a caller that passes garbage fails closed.
 *
 * @example
 * isPublicAddress("8.8.8.8");            // true
 * isPublicAddress("169.254.169.254");    // false (cloud metadata)
 * isPublicAddress("::ffff:10.0.0.1");    // false (IPv4-mapped private)
 * isPublicAddress("2130706433");         // false (not an address literal)
 */
export function isPublicAddress(ip: string): boolean {
  const address = parseIpAddress(ip);
  if (!address) return false;
  return address.version === 4 ? isPublicIpv4(address.bytes) : isPublicIpv6(address);
}
