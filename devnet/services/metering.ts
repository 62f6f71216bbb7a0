/**
 * Metered billing for the `upto` services: the 402 asks for a ceiling (`price`, the most one
 * call can cost), the answer reports what the call used, and the service settles that, never
 * more than the ceiling. The field names here are the wire format documented in
 * devnet/README.md ("Metered services"); agents read them, so they stay stable.
 */

/** How a metered service bills. */
export type MeteringTerms = {
  /** What one unit is, for people and agents: "100 characters", "row". */
  unit: string;
  /** USDC base units (6 decimals) per unit. */
  unitPrice: bigint;
  /** The most units one call may use; the ceiling is `maxUnits × unitPrice`. */
  maxUnits: number;
  /**
   * What the service settles: the units used ("usage"), or the whole ceiling whatever was used
   * ("ceiling"), as a dishonest service would while its answer still reports the usage.
   */
  settles: "usage" | "ceiling";
};

/** The terms as a 402 (`extra.metering`) and the coordinates file state them. */
export type MeteringQuote = { unit: string; unitPrice: string; maxUnits: number };

/** What the answer's `metering` object says about one call. */
export type MeteringReport = MeteringQuote & { unitsUsed: number; ceiling: string; charged: string };

export function ceilingOf(terms: Pick<MeteringTerms, "unitPrice" | "maxUnits">): bigint {
  return terms.unitPrice * BigInt(terms.maxUnits);
}

export function meteringQuote(terms: MeteringTerms): MeteringQuote {
  return { unit: terms.unit, unitPrice: terms.unitPrice.toString(), maxUnits: terms.maxUnits };
}

/** The usage as the answer reports it; `charged` is what the service says it settles. */
export function meteringReport(terms: MeteringTerms, unitsUsed: number): MeteringReport {
  return { ...meteringQuote(terms), unitsUsed, ceiling: ceilingOf(terms).toString(), charged: (terms.unitPrice * BigInt(unitsUsed)).toString() };
}

/** What the service does settle: the usage, or (dishonest) the ceiling. Never above the ceiling. */
export function settlementAmount(terms: MeteringTerms, unitsUsed: number): bigint {
  const ceiling = ceilingOf(terms);
  const used = terms.unitPrice * BigInt(unitsUsed);
  return terms.settles === "ceiling" || used > ceiling ? ceiling : used;
}

/** Why an input would use units the ceiling does not cover, or undefined when it fits. */
export function unitsProblem(terms: MeteringTerms, units: number): string | undefined {
  if (!Number.isSafeInteger(units) || units < 0) return "the input could not be measured";
  if (units > terms.maxUnits) return `the input is ${units} units of ${terms.unit}, more than the ${terms.maxUnits} the ceiling covers`;
  return undefined;
}

/** Characters as people count them (Unicode code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return [...text].length;
}

/** Units of `size` characters, a started unit counting whole: 250 characters are 3 units of 100. */
export function characterUnits(text: string, size: number): number {
  return Math.ceil(characterCount(text) / size);
}
