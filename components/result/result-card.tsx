"use client";

import type { DeliveredResult } from "@/lib/stream/delivered-result";
import { askedOf, separateNotice, type Asked } from "@/lib/client/result-view";
import { DataView } from "./data-view";

export type ResultCardProps = {
  service: string;
  /** The URL that was paid for: its query (and the body sent) say what was asked. */
  resource: string | undefined;
  result: DeliveredResult;
};

/**
 * A delivered answer, compact: the service, what was asked, and the data as text (a definition
 * list, a table, folded parts). A demo label becomes one notice line. The data is a third
 * party's: it is rendered as text only, never as markup or links.
 */
export function ResultCard({ service, resource, result }: ResultCardProps) {
  const { data, notice } = separateNotice(result.data);
  const asked = askedOf(resource, result.request);
  const isText = typeof data === "string" && !result.contentType.includes("json");
  return (
    <article className="result-card" data-testid="result-card" aria-label={`Result from ${service}`}>
      <header className="card-header">
        <span className="card-title">
          {service}
          {asked ? <span className="card-title__sub">{asked.host}</span> : null}
        </span>
        <span className="result-card__kind">Result</span>
      </header>
      {asked ? <AskedLine asked={asked} /> : null}
      {notice ? (
        <p className="result-card__notice" data-testid="result-notice">
          {notice}
        </p>
      ) : null}
      <div className={`result-card__data${isText ? " result-card__data--text" : ""}`} data-testid="result-data">
        <DataView value={data} />
      </div>
      {result.truncated ? <p className="card-message">The answer was longer than the agent reads; this is its beginning.</p> : null}
    </article>
  );
}

/** The path asked for and the fields that were sent with it. */
export function AskedLine({ asked }: { asked: Asked }) {
  return (
    <p className="result-card__asked" data-testid="result-asked">
      <span className="result-card__asked-label">Asked</span>
      <span className="asked-field asked-field--path">
        {asked.method && asked.method !== "GET" ? `${asked.method} ` : ""}
        {asked.path}
      </span>
      {asked.fields.map((field, index) => (
        <span key={index} className="asked-field" data-testid="asked-field">
          <span className="asked-field__name">{field.name}</span> {field.value}
        </span>
      ))}
    </p>
  );
}
