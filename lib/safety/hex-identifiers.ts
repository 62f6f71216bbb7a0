/**
 * Hex identifiers that are not keys but are written, like a split key, as groups of hex digits
 * between separators: UUIDs (8-4-4-4-12, 32 digits), IPv6 addresses (eight groups of one to four
 * digits, or fewer around `::`; at most 32 digits) and MAC addresses (six two-digit groups).
 * Any one of them is too short to be a key, but two written side by side ("ids 550e8400-…,
 * 6ba7b810-…") add up to 64 digits with letters and digits mixed, exactly what the split-key
 * rule looks for; so the split-key detector treats each of them as a word that ends a run.
 *
 * Each shape is recognised only as a whole: the group of tokens joined by its own separator
 * must be exactly the shape, so a key written in dashed groups (`4c08-83a6-…`, sixteen
 * groups) is never mistaken for a UUID, nor colon-separated bytes (`4c:08:83:…`, how OpenSSL
 * prints keys) for an address.
 *
 * The one key layout this lets through: eight colon-separated groups of four digits per line,
 * which is the full form of an IPv6 address and cannot be told from one.
 */

const HEX = /^[0-9a-f]+$/i;
const UUID_GROUP_LENGTHS = [8, 4, 4, 4, 12];
const IPV6_GROUPS = 8;
const MAC_GROUPS = 6;

/** Indices [first, last] of each maximal sequence of tokens joined by gaps `joins` accepts. */
function groups(gaps: readonly string[], count: number, joins: (gap: string) => boolean): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  let first = 0;
  for (let index = 1; index <= count; index += 1) {
    if (index < count && joins(gaps[index] ?? "")) continue;
    found.push([first, index - 1]);
    first = index;
  }
  return found;
}

function isUuid(values: readonly string[]): boolean {
  return values.length === UUID_GROUP_LENGTHS.length && values.every((value, index) => HEX.test(value) && value.length === UUID_GROUP_LENGTHS[index]);
}

function isMac(values: readonly string[]): boolean {
  return values.length === MAC_GROUPS && values.every((value) => HEX.test(value) && value.length === 2);
}

/** `compressed`: a `::` stands between, before or after the groups. */
function isIpv6(values: readonly string[], compressed: boolean): boolean {
  if (!values.every((value) => HEX.test(value) && value.length <= 4)) return false;
  // Every group two digits long is how byte dumps (and keys) are printed, not addresses.
  if (values.every((value) => value.length === 2)) return false;
  return compressed ? values.length < IPV6_GROUPS : values.length === IPV6_GROUPS;
}

/**
 * For each token, whether it belongs to a UUID, an IPv6 address or a MAC address.
 * `gaps[i]` is the text before token i (after token i - 1), `gaps[values.length]` the text
 * after the last token.
 *
 * @example
 * identifierTokens(["550e8400", "e29b", "41d4", "a716", "446655440000"], ["", "-", "-", "-", "-", ""]); // all true
 * identifierTokens(["4c08", "83a6"], ["", "-", ""]);                                                    // [false, false]
 */
export function identifierTokens(values: readonly string[], gaps: readonly string[]): boolean[] {
  const marked = values.map(() => false);
  const mark = ([first, last]: [number, number]) => marked.fill(true, first, last + 1);

  for (const range of groups(gaps, values.length, (gap) => gap === "-")) {
    const group = values.slice(range[0], range[1] + 1);
    if (isUuid(group) || isMac(group)) mark(range);
  }
  for (const range of groups(gaps, values.length, (gap) => gap === ":" || gap === "::")) {
    const group = values.slice(range[0], range[1] + 1);
    const inner = gaps.slice(range[0] + 1, range[1] + 1);
    const compressed = inner.includes("::") || (gaps[range[0]] ?? "").endsWith("::") || (gaps[range[1] + 1] ?? "").startsWith("::");
    if (isMac(group) || isIpv6(group, compressed)) mark(range);
  }
  return marked;
}
