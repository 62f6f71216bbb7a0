/**
 * CSV (RFC 4180) for downloads people open in spreadsheets. A cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return is prefixed with a single quote: spreadsheets would
 * otherwise run it as a formula, and the journal holds text written by strangers (service names,
 * messages). The quote changes what a program reading the file sees; a spreadsheet shows it.
 */

export type CsvCell = string | number | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function encodeCsvCell(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A header line then one line per row, each ended by CRLF. */
export function encodeCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map((cells) => `${cells.map(encodeCsvCell).join(",")}\r\n`).join("");
}
