import type { ReactNode } from "react";

/** One box of the ingestion page's counts (GET /status): a title and one row per code, its label and its count. */
export function Counts({
  title,
  counts,
  label,
  note,
}: {
  title: string;
  counts: [string, number | string][];
  label: (code: string) => string;
  note?: ReactNode;
}) {
  return (
    <section className="counts">
      <h2>{title}</h2>
      {counts.length === 0 ? (
        <p>Nenhum.</p>
      ) : (
        <dl>
          {counts.map(([key, n]) => (
            <div key={key}>
              <dt>{label(key)}</dt>
              <dd>{n}</dd>
            </div>
          ))}
        </dl>
      )}
      {note && counts.length > 0 && <p className="counts-note">{note}</p>}
    </section>
  );
}
