/**
 * A small RFC 4180 reader for tests: turns a CSV download back into rows of cells, so a test
 * can compare it with the JSON it was made from. Quoted cells may hold commas, quotes and line
 * breaks; lines end with CRLF.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"' && cell === "") quoted = true;
    else if (char === ",") {
      row.push(cell);
      cell = "";
    } else if (char === "\r" && text[index + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      index++;
    } else cell += char;
  }
  if (quoted) throw new Error("unterminated quoted cell");
  if (cell !== "" || row.length > 0) throw new Error("the last line does not end with CRLF");
  return rows;
}
