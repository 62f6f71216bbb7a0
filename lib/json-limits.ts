/**
 * Bounds on JSON a stranger sent (payment requirements in a 402 or in a signature header):
 * how deep it nests and how much it holds. Checked without recursion, so hostile nesting can
 * never exhaust the stack here or in what reads the value afterwards (canonical JSON).
 */

export const REQUIREMENT_LIMITS = { maxDepth: 8, maxNodes: 512, maxStringChars: 4_096 } as const;

export type JsonLimits = { maxDepth: number; maxNodes: number; maxStringChars: number };

/** True when `value` nests at most `maxDepth` levels and holds at most `maxNodes` values. */
export function withinJsonLimits(value: unknown, limits: JsonLimits = REQUIREMENT_LIMITS): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    nodes += 1;
    if (nodes > limits.maxNodes) return false;
    if (typeof current === "string") {
      if (current.length > limits.maxStringChars) return false;
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= limits.maxDepth) return false;
    const children = Array.isArray(current) ? current : Object.values(current as Record<string, unknown>);
    if (children.length > limits.maxNodes) return false;
    for (const child of children) stack.push({ value: child, depth: depth + 1 });
  }
  return true;
}
