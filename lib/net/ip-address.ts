/**
 * IP address literals as bytes, and CIDR ranges over them. Parsing is strict on purpose:
 * only canonical dotted-quad IPv4 and RFC 4291 IPv6 text are accepted, so that anything odd
 * (octal, hex, short forms) is "not an address" and the callers fail closed. URL host names
 * are already normalised by the WHATWG URL parser before they reach this module.
 */

export type IpAddress = { version: 4; bytes: Uint8Array } | { version: 6; bytes: Uint8Array };

export type CidrRange = { address: IpAddress; prefixLength: number };

const IPV4_PATTERN = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const IPV6_GROUP_PATTERN = /^[0-9a-fA-F]{1,4}$/;

function parseIpv4Bytes(text: string): Uint8Array | undefined {
  const match = IPV4_PATTERN.exec(text);
  if (!match) return undefined;
  const bytes = new Uint8Array(4);
  for (let index = 0; index < 4; index += 1) {
    const part = match[index + 1] ?? "";
    // A leading zero means octal to some parsers and decimal to others: refuse the ambiguity.
    if (part.length > 1 && part.startsWith("0")) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[index] = value;
  }
  return bytes;
}

function parseIpv6Groups(part: string, allowEmbeddedIpv4: boolean): number[] | undefined {
  if (part === "") return [];
  const pieces = part.split(":");
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (piece.includes(".")) {
      if (!allowEmbeddedIpv4 || index !== pieces.length - 1) return undefined;
      const ipv4 = parseIpv4Bytes(piece);
      if (!ipv4) return undefined;
      groups.push(((ipv4[0] ?? 0) << 8) | (ipv4[1] ?? 0), ((ipv4[2] ?? 0) << 8) | (ipv4[3] ?? 0));
    } else if (IPV6_GROUP_PATTERN.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIpv6Bytes(text: string): Uint8Array | undefined {
  let value = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  // A zone id ("fe80::1%eth0") names an interface, not part of the address.
  const zoneIndex = value.indexOf("%");
  if (zoneIndex === 0) return undefined;
  if (zoneIndex > 0) value = value.slice(0, zoneIndex);
  if (!value.includes(":")) return undefined;

  const gapIndex = value.indexOf("::");
  if (gapIndex !== value.lastIndexOf("::")) return undefined;

  let groups: number[];
  if (gapIndex < 0) {
    const all = parseIpv6Groups(value, true);
    if (!all || all.length !== 8) return undefined;
    groups = all;
  } else {
    const head = parseIpv6Groups(value.slice(0, gapIndex), false);
    const tail = parseIpv6Groups(value.slice(gapIndex + 2), true);
    if (!head || !tail || head.length + tail.length > 7) return undefined;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }

  const bytes = new Uint8Array(16);
  for (const [index, group] of groups.entries()) {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  }
  return bytes;
}

/**
 * Parses an IPv4 (dotted quad) or IPv6 literal, with or without brackets; undefined otherwise.
 *
 * @example
 * parseIpAddress("10.0.0.1");  // { version: 4, bytes: Uint8Array [10, 0, 0, 1] }
 * parseIpAddress("[::1]");     // { version: 6, bytes: ... }
 * parseIpAddress("127.1");     // undefined (not canonical)
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  const ipv4 = parseIpv4Bytes(text);
  if (ipv4) return { version: 4, bytes: ipv4 };
  const ipv6 = parseIpv6Bytes(text);
  if (ipv6) return { version: 6, bytes: ipv6 };
  return undefined;
}

/**
 * The IPv4 address inside an IPv4-mapped IPv6 address (::ffff:a.b.c.d), else the address itself,
 * so that one host has one identity for allowlist matching.
 *
 * @example
 * unmapIpv4(parseIpAddress("::ffff:127.0.0.1")!); // { version: 4, bytes: [127, 0, 0, 1] }
 */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.version === 6 && cidrContains(IPV4_MAPPED_RANGE, address)) {
    return { version: 4, bytes: address.bytes.slice(12, 16) };
  }
  return address;
}

/**
 * The one text of an address (RFC 5952 for IPv6: lower case, no leading zeros, the longest run
 * of two or more zero groups, the first of equal runs, written "::"), so that every way of
 * writing an address names the same caller.
 *
 * @example
 * formatIpAddress(parseIpAddress("2001:0DB8:0:0:0:0:0:0001")!); // "2001:db8::1"
 */
export function formatIpAddress(address: IpAddress): string {
  if (address.version === 4) return address.bytes.join(".");
  const groups = Array.from({ length: 8 }, (_, index) => ((address.bytes[index * 2] ?? 0) << 8) | (address.bytes[index * 2 + 1] ?? 0));
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; start += 1) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length += 1;
    if (length > best.length) best = { start, length };
    start += length;
  }
  const hex = (part: number[]) => part.map((group) => group.toString(16)).join(":");
  if (best.start < 0) return hex(groups);
  return `${hex(groups.slice(0, best.start))}::${hex(groups.slice(best.start + best.length))}`;
}

/**
 * Parses "a.b.c.d/n" or "v6::/n"; the address bits beyond the prefix may be anything.
 *
 * @example
 * parseCidr("127.0.0.0/8"); // { address: { version: 4, ... }, prefixLength: 8 }
 */
export function parseCidr(text: string): CidrRange | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseIpAddress(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (!address || !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefixLength = Number(prefixText);
  if (prefixLength > address.bytes.length * 8) return undefined;
  return { address, prefixLength };
}

/**
 * Whether `address` lies in `range` (same IP version only).
 *
 * @example
 * cidrContains(parseCidr("10.0.0.0/8")!, parseIpAddress("10.2.3.4")!); // true
 */
export function cidrContains(range: CidrRange, address: IpAddress): boolean {
  if (range.address.version !== address.version) return false;
  let bitsLeft = range.prefixLength;
  for (let index = 0; bitsLeft > 0; index += 1, bitsLeft -= 8) {
    const mask = bitsLeft >= 8 ? 0xff : (0xff << (8 - bitsLeft)) & 0xff;
    if (((range.address.bytes[index] ?? 0) & mask) !== ((address.bytes[index] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Whether two parsed addresses are the same address.
 *
 * @example
 * sameIpAddress(parseIpAddress("::1")!, parseIpAddress("0:0:0:0:0:0:0:1")!); // true
 */
export function sameIpAddress(left: IpAddress, right: IpAddress): boolean {
  return left.version === right.version && left.bytes.every((byte, index) => byte === right.bytes[index]);
}

/**
 * Parses a CIDR range that is known to be valid (a built-in table entry); throws otherwise.
 *
 * @example
 * const loopback = requireCidr("127.0.0.0/8");
 */
export function requireCidr(text: string): CidrRange {
  const range = parseCidr(text);
  if (!range) throw new Error(`invalid built-in range ${text}`);
  return range;
}

const IPV4_MAPPED_RANGE = requireCidr("::ffff:0:0/96");
