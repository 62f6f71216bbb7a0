"use client";

import { FOLD_TEXT_CHARS, clip, isRecord, isScalar, labelOf, scalarText, tableColumns, withUnit } from "@/lib/client/result-view";

/**
 * A service's data as readable parts: a definition list for an object, a small table for an
 * array of records, nested objects and long text folded (details/summary). Everything is text:
 * React escapes it, and nothing in it becomes a link or markup.
 */
export function DataView({ value }: { value: unknown }) {
  if (isScalar(value)) return <TextValue text={scalarText(value)} />;
  if (Array.isArray(value)) return <ArrayView items={value} />;
  if (isRecord(value)) return <RecordView record={value} />;
  return null;
}

/** Rows shown before the rest of a table folds away. */
const MAX_ROWS = 25;

function RecordView({ record }: { record: Record<string, unknown> }) {
  const entries = Object.entries(record);
  if (entries.length === 0) return <p className="small muted">No fields.</p>;
  return (
    <dl className="result-facts">
      {entries.map(([key, field], index) => {
        const { label, unit } = labelOf(key);
        const columns = tableColumns(field);
        if (columns) {
          return (
            <div key={index} className="result-facts__wide">
              <dt>{label}</dt>
              <dd>
                <RecordTable rows={field as Record<string, unknown>[]} columns={columns} />
              </dd>
            </div>
          );
        }
        if (Array.isArray(field) && field.every(isScalar) && !isShortList(field)) {
          return (
            <div key={index} className="result-facts__wide">
              <dt>{label}</dt>
              <dd>
                <ArrayView items={field} />
              </dd>
            </div>
          );
        }
        if (!isScalar(field) && !isShortList(field)) {
          return (
            <div key={index} className="result-facts__wide">
              <dt className="visually-hidden">{label}</dt>
              <dd>
                <details className="result-fold">
                  <summary>
                    {label} <span className="muted small">({describeSize(field)})</span>
                  </summary>
                  <DataView value={field} />
                </details>
              </dd>
            </div>
          );
        }
        const text = Array.isArray(field) ? field.map(scalarText).join(", ") : withUnit(field, unit);
        return (
          <div key={index} className={text.length > 48 ? "result-facts__wide" : undefined}>
            <dt>{label}</dt>
            <dd>
              <TextValue text={text} />
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function ArrayView({ items }: { items: unknown[] }) {
  if (items.length === 0) return <p className="small muted">Empty list.</p>;
  const columns = tableColumns(items);
  if (columns) return <RecordTable rows={items as Record<string, unknown>[]} columns={columns} />;
  if (isShortList(items)) return <TextValue text={items.map(scalarText).join(", ")} />;
  return (
    <ul className="result-list" data-testid="result-list">
      {items.map((item, index) => (
        <li key={index}>
          <DataView value={item} />
        </li>
      ))}
    </ul>
  );
}

function RecordTable({ rows, columns }: { rows: Record<string, unknown>[]; columns: string[] }) {
  const labels = columns.map(labelOf);
  const renderRows = (slice: Record<string, unknown>[], offset: number) =>
    slice.map((row, index) => (
      <tr key={offset + index} data-testid="result-row">
        {columns.map((column, cell) => (
          <td key={cell}>{column in row ? <TextValue text={isScalar(row[column]) ? scalarText(row[column]) : clip(scalarText(row[column]), 200)} /> : null}</td>
        ))}
      </tr>
    ));
  const table = (slice: Record<string, unknown>[], offset: number) => (
    <div className="result-table__scroll">
      <table className="result-table" data-testid="result-table">
        <thead>
          <tr>
            {labels.map(({ label, unit }, index) => (
              <th key={index} scope="col">
                {label}
                {unit ? <span className="muted"> ({unit})</span> : null}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{renderRows(slice, offset)}</tbody>
      </table>
    </div>
  );
  if (rows.length <= MAX_ROWS) return table(rows, 0);
  return (
    <>
      {table(rows.slice(0, MAX_ROWS), 0)}
      <details className="result-fold">
        <summary>{rows.length - MAX_ROWS} more rows</summary>
        {table(rows.slice(MAX_ROWS), MAX_ROWS)}
      </details>
    </>
  );
}

/** Text as it is; long text shows its beginning and unfolds on demand. */
function TextValue({ text }: { text: string }) {
  if (text.length <= FOLD_TEXT_CHARS) return <span className="result-text">{text}</span>;
  return (
    <details className="result-fold result-fold--text">
      <summary>{clip(text, 80)}</summary>
      <span className="result-text">{text}</span>
    </details>
  );
}

/** A list of a few short scalars (tags, codes) reads best on one line; phrases read best as a list. */
function isShortList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length > 8 || !value.every(isScalar)) return false;
  const texts = value.map(scalarText);
  return texts.every((text) => text.length <= 20) && texts.join(", ").length <= 60;
}

function describeSize(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? "" : "s"}`;
  if (isRecord(value)) {
    const count = Object.keys(value).length;
    return `${count} field${count === 1 ? "" : "s"}`;
  }
  return "text";
}
