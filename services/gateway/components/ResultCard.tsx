"use client";

import { useEffect, useRef, useState } from "react";
import {
  apiHref,
  authorsLine,
  courtLabel,
  documentHref,
  formatDate,
  pageSpan,
  RELEVANCE_LABELS,
  relevanceClass,
  relevanceOf,
  sectionLabel,
  subtypeLabel,
  typeLabel,
} from "../lib/format";
import type { SearchResult } from "../lib/types";
import { Highlighted } from "./Highlighted";

interface Props {
  result: SearchResult;
  position: number;
  /** Shown as weak whatever its grade (the search found nothing clearly relevant). */
  weak?: boolean;
}

/** What a clipboard offers the page (navigator.clipboard); absent outside secure contexts. */
export interface ClipboardLike {
  writeText(text: string): Promise<void>;
}

export type CopyOutcome = "copied" | "failed";

/** Puts the citation on the clipboard; "failed" when there is none (plain http) or the browser refuses. */
export async function copyCitation(text: string, clipboard: ClipboardLike | undefined): Promise<CopyOutcome> {
  if (!clipboard) return "failed";
  try {
    await clipboard.writeText(text);
    return "copied";
  } catch {
    return "failed";
  }
}

export const COPY_MESSAGES: Record<CopyOutcome, string> = {
  copied: "Citação copiada",
  failed: "Não foi possível copiar: selecione a citação e copie (Ctrl+C)",
};

/** A React click handler (an event listener, no inline handler attribute: the page's CSP allows it). */
function CopyCitationButton({ citation }: { citation: string }) {
  const [outcome, setOutcome] = useState<CopyOutcome | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const onClick = async () => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
    setOutcome(await copyCitation(citation, clipboard));
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setOutcome(null), 4000);
  };
  return (
    <span className="copy-citation">
      <button type="button" className="copy-button" onClick={() => void onClick()}>
        Copiar citação
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {outcome ? COPY_MESSAGES[outcome] : ""}
      </span>
    </span>
  );
}

export function ResultCard({ result, position, weak = false }: Props) {
  const grade = weak ? "fraca" : relevanceOf(result.relevance);
  const type = result.document_type ? (result.document_type_label ?? typeLabel(result.document_type)) : null;
  const court = result.court ? (result.court_label ?? courtLabel(result.court)) : null;
  const subtype = result.document_subtype
    ? (result.document_subtype_label ?? subtypeLabel(result.document_subtype))
    : null;
  // What a work of doctrine is cited by (authors, venue, year) and an act (number, issuer).
  const authors = authorsLine(result.authors);
  const kindFacts: [string, string][] = [
    ["Autoria", authors],
    ["Publicação", result.venue ?? ""],
    ["Ano", result.year ? String(result.year) : ""],
    ["Número", result.act_number ?? ""],
    ["Órgão emissor", result.issuing_body ?? ""],
  ].filter((fact): fact is [string, string] => fact[1] !== "");
  const judged = formatDate(result.judgment_date);
  const published = formatDate(result.publication_date);
  // The document's own date only when the card tells neither judgment nor publication apart.
  const date = judged || published ? "" : formatDate(result.document_date);
  const section = sectionLabel(result.section_path);
  const processo = [result.procedural_class, result.process_number].filter(Boolean).join(" ");
  const headingId = `resultado-${position}`;
  const href = apiHref(result.document_url, documentHref(result.document_id, result.page_number));
  const others = result.other_passages ?? [];
  const copies = result.copies ?? [];
  return (
    <article
      className={`result result-${relevanceClass(grade)}`}
      aria-labelledby={headingId}
      data-document-id={result.document_id}
      data-relevance={grade}
    >
      <p className={`relevance relevance-${relevanceClass(grade)}`}>{RELEVANCE_LABELS[grade]}</p>
      <h2 id={headingId} className="result-title">
        {result.citation || result.document_title || "Documento sem título"}
      </h2>
      {result.citation && (
        <p className="citation-actions">
          <CopyCitationButton citation={result.citation} />
        </p>
      )}
      <p className="result-meta">
        {type && <span className="tag">{type}</span>}
        {subtype && subtype !== type && <span className="tag">{subtype}</span>}
        {court && <span className="tag">{court}</span>}
        {date && <span>{date}</span>}
        <span>{pageSpan(result.page_number, result.page_end)}</span>
        {section && <span className="section">{section}</span>}
      </p>
      {(processo || result.relator || result.judging_body || judged || published || kindFacts.length > 0) && (
        <dl className="result-facts">
          {kindFacts.map(([term, value]) => (
            <div key={term}>
              <dt>{term}</dt>
              <dd>{value}</dd>
            </div>
          ))}
          {processo && (
            <div>
              <dt>Processo</dt>
              <dd>{processo}</dd>
            </div>
          )}
          {result.relator && (
            <div>
              <dt>Relator(a)</dt>
              <dd>{result.relator}</dd>
            </div>
          )}
          {result.judging_body && (
            <div>
              <dt>Órgão julgador</dt>
              <dd>{result.judging_body}</dd>
            </div>
          )}
          {judged && (
            <div>
              <dt>Julgado em</dt>
              <dd>{judged}</dd>
            </div>
          )}
          {published && (
            <div>
              <dt>Publicado em</dt>
              <dd>{published}</dd>
            </div>
          )}
        </dl>
      )}
      <blockquote className="passage">
        <Highlighted text={result.chunk_text} highlights={result.highlights} emphasis={result.explanation_span} />
      </blockquote>
      {result.relevance_explanation && (
        <p className="explanation">
          <span className="explanation-label">Por que é relevante: </span>
          {result.relevance_explanation}
        </p>
      )}
      <p>
        <a className="open-document" href={href} target="_blank" rel="noopener noreferrer">
          Abrir o documento na página {result.page_number}
          <span className="visually-hidden"> (abre em nova aba)</span>
        </a>
      </p>
      {result.ementa && (
        <details className="ementa">
          <summary>Ementa</summary>
          <p className="ementa-text">{result.ementa}</p>
        </details>
      )}
      {others.length > 0 && (
        <section className="other-passages" aria-label={`Outros trechos desta decisão (${position})`}>
          <h3>Outros trechos desta decisão</h3>
          <ul>
            {others.map((other) => {
              const otherSection = sectionLabel(other.section_path);
              return (
                <li key={other.passage_id}>
                  <p className="result-meta">
                    <span>{pageSpan(other.page_number, other.page_end)}</span>
                    {otherSection && <span className="section">{otherSection}</span>}
                  </p>
                  <blockquote className="other-passage-text">
                    <Highlighted text={other.chunk_text} highlights={other.highlights} />
                  </blockquote>
                  <a
                    className="open-passage"
                    href={apiHref(other.document_url, documentHref(other.document_id, other.page_number))}
                    target="_blank"
                    rel="noopener noreferrer"
                  >
                    Abrir este trecho na página {other.page_number}
                    <span className="visually-hidden"> (abre em nova aba)</span>
                  </a>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      {copies.length > 0 && (
        <section className="copies" aria-label={`Outras cópias (${position})`}>
          <h3>Outras cópias</h3>
          <ul>
            {copies.map((copy) => (
              <li key={copy.document_id}>
                <a
                  className="open-copy"
                  href={apiHref(copy.document_url, documentHref(copy.document_id, 1))}
                  target="_blank"
                  rel="noopener noreferrer"
                >
                  {copy.title || copy.filename}
                  <span className="visually-hidden"> (abre em nova aba)</span>
                </a>
                {copy.title && copy.filename && copy.title !== copy.filename && (
                  <span className="copy-filename"> ({copy.filename})</span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
    </article>
  );
}
