/** An ABI with keys and entries in a fixed order, so two ABIs compare by content. */
export function canonicalAbi(abi: readonly unknown[]): unknown[] {
  return [...abi].sort((left, right) => abiEntryLabel(left).localeCompare(abiEntryLabel(right))).map(sortKeys);
}

/** "function:settle", "event:Settled": one ABI entry's kind and name. */
export function abiEntryLabel(entry: unknown): string {
  return `${(entry as { type: string }).type}:${(entry as { name?: string }).name ?? ""}`;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([left], [right]) => left.localeCompare(right))
      .map(([key, inner]) => [key, sortKeys(inner)]),
  );
}
