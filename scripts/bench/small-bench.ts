/**
 * What the small pairwise benchmarks (`bench:upto`, `bench:grant`) share: a whole-number flag
 * from the command line, and a series said as its median and range.
 */
import { median } from "./stats";

/** `--name <whole number>`, else `fallback`. */
export function wholeNumberFlag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : fallback;
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} takes a whole number`);
  return value;
}

/** "median …, min …, max …" of a series, each value written by `format`. */
export function spread(values: readonly number[], format: (value: number) => string): string {
  return `median ${format(median(values))}, min ${format(Math.min(...values))}, max ${format(Math.max(...values))}`;
}
