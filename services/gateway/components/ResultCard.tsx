"use client";

import { type MouseEvent, useEffect, useRef, useState } from "react";
import {
  apiHref,
  authorsLine,
  courtLabel,
  dateLabel,
  documentHref,
  formatDate,
  nameLabel,
  passagePlace,
  processLabel,
  RELEVANCE_LABELS,
  relevanceClass,
  relevanceOf,
  subtypeLabel,
  typeLabel,
  unreadPagesLabel,
} from "../lib/format";
import { agree } from "../lib/labels";
import { appliedLine, citedByLabel, citedByMore, citesLabel, leadingBadges } from "../lib/precedents";
import type { Judgment, LinkedDocument, SearchResult } from "../lib/types";
import { AddToFolder } from "./AddToFolder";
import { Highlighted } from "./Highlighted";
import { JudgmentControl } from "./JudgmentControl";

interface Props {
  result: SearchResult;
  position: number;
  /** Shown as weak whatever its grade (the search found nothing clearly relevant). */
  weak?: boolean;
  /** The person's judgment of this result for the query shown; with onJudge the card offers to judge it. */
  judgment?: Judgment | null;
  onJudge?: (relevant: boolean, note: string | null) => Promise<void>;
  /** "Mais como este": the link's URL (?similar=<passage_id>) and what a plain click does instead. */
  similarHref?: string;
  onSimilar?: () => void;
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

export const COPY_EMENTA_MESSAGES: Record<CopyOutcome, string> = {
  copied: "Ementa copiada",
  failed: "Não foi possível copiar: abra a ementa, selecione e copie (Ctrl+C)",
};

/** Passages longer than this are shown folded, with a visible "Ver trecho inteiro" (never a hidden scroll box). */
export const FOLD_AT = 700;

/** A line of a word or two (up to SHORT_LINE characters) and the line break after it (a page break is kept). */
const SHORT_LINE_BREAK = /(?<=^|[\n\f\v])(\S+(?: \S+)?)\n(?=\S)/g;
const SHORT_LINE = 25;
/** A line that opens a provision keeps its own line: an article, a paragraph, an inciso ("IV -"), an item ("2.", "b)"). */
const PROVISION = /^(?:[Aa]rt\.|§|[Pp]ar[áa]grafo|[IVXLC]+\s*[-–—]|\d+[.)]\s|[a-z]\)\s)/;

/**
 * A passage as the page shows it: the form feed between two pages (a box glyph in browsers) as a line break,
 * and a narrow column's line breaks ("CONTRATO\nDE\nFRANQUIA.", an ementa laid out down the page) as spaces: a
 * line of a word or two without closing punctuation runs on into the next, unless that one opens a provision.
 * One character for one, so the API's highlight offsets still fall on the same words.
 */
export function displayText(text: string): string {
  const joined = text.replace(SHORT_LINE_BREAK, (match: string, line: string, offset: number) => {
    const next = text.slice(offset + match.length, offset + match.length + 12);
    return line.length <= SHORT_LINE && !/[.:;!?]$/.test(line) && !PROVISION.test(next) ? `${line} ` : match;
  });
  return joined.replace(/[\f\v\u0000-\u0008\u000e-\u001f]/g, (c) => (c === "\f" || c === "\v" ? "\n" : " "));
}

/** A React click handler (an event listener, no inline handler attribute: the page's CSP allows it). */
function CopyButton({
  text,
  label,
  messages,
  describedBy,
}: {
  text: string;
  label: string;
  messages: Record<CopyOutcome, string>;
  describedBy?: string;
}) {
  const [outcome, setOutcome] = useState<CopyOutcome | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);
  const onClick = async () => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
    setOutcome(await copyCitation(text, clipboard));
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setOutcome(null), 4000);
  };
  return (
    <span className="copy-citation">
      <button type="button" className="copy-button" aria-describedby={describedBy} onClick={() => void onClick()}>
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {outcome ? messages[outcome] : ""}
      </span>
    </span>
  );
}

/** The passage whole when short; else folded with a visible button that unfolds it (aria-expanded). */
function Passage({ result, id }: { result: SearchResult; id: string }) {
  const [open, setOpen] = useState(false);
  const long = result.chunk_text.length > FOLD_AT;
  const folded = long && !open;
  return (
    <>
      <blockquote id={id} className={folded ? "passage folded" : "passage"}>
        <Highlighted
          text={displayText(result.chunk_text)}
          highlights={result.highlights}
          emphasis={result.explanation_span}
        />
      </blockquote>
      {long && (
        <button type="button" className="link-button more-text" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          {open ? "Ver menos" : "Ver trecho inteiro"}
        </button>
      )}
    </>
  );
}

/** Works of the base a card links to ("citado por", "cita"), each by its citation, opening in a new tab. */
function LinkedList({ documents }: { documents: LinkedDocument[] }) {
  return (
    <ul>
      {documents.map((doc) => (
        <li key={doc.document_id}>
          <a
            className="open-linked"
            href={apiHref(doc.document_url, documentHref(doc.document_id, 1))}
            target="_blank"
            rel="noopener noreferrer"
          >
            {doc.citation || doc.title || "Documento sem título"}
            <span className="visually-hidden"> (abre em nova aba)</span>
          </a>
        </li>
      ))}
    </ul>
  );
}

export function ResultCard({ result, position, weak = false, judgment, onJudge, similarHref, onSimilar }: Props) {
  const grade = weak ? "fraca" : relevanceOf(result.relevance);
  // Why the API graded it so, its largest reasons ("weak" cards are those the API graded below "provável").
  const basis = result.relevance_basis ?? [];
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
  const processo = processLabel(result.procedural_class, result.process_number);
  const headingId = `resultado-${position}`;
  const href = apiHref(result.document_url, documentHref(result.document_id, result.page_number));
  const others = result.other_passages ?? [];
  const copies = result.copies ?? [];
  const unread = result.unread_pages ?? [];
  const leading = leadingBadges(result.qualified_precedents);
  const applied = appliedLine(result.qualified_precedents);
  const citing = result.cited_by ?? [];
  const citedCount = result.cited_by_count ?? 0;
  const cited = result.cites ?? [];
  const signals = result.status_signals ?? [];
  return (
    <article
      className={`result result-${relevanceClass(grade)}`}
      aria-labelledby={headingId}
      data-document-id={result.document_id}
      data-relevance={grade}
    >
      <p className={`relevance relevance-${relevanceClass(grade)}`}>
        {RELEVANCE_LABELS[grade]}
        {basis.length > 0 && <span className="relevance-basis"> · {basis.join(", ")}</span>}
      </p>
      <h2 id={headingId} className="result-title" tabIndex={-1}>
        {result.citation || result.document_title || "Documento sem título"}
      </h2>
      {(result.citation || result.ementa) && (
        <p className="citation-actions">
          {result.citation && <CopyButton text={result.citation} label="Copiar citação" messages={COPY_MESSAGES} describedBy={headingId} />}
          {result.ementa && (
            <CopyButton text={result.ementa} label="Copiar ementa" messages={COPY_EMENTA_MESSAGES} describedBy={headingId} />
          )}
        </p>
      )}
      <p className="result-meta">
        {type && <span className="tag">{type}</span>}
        {subtype && subtype !== type && <span className="tag">{subtype}</span>}
        {court && <span className="tag">{court}</span>}
        {leading.map((badge) => (
          <span key={badge} className="tag precedent-badge" title="Precedente qualificado (CPC, art. 927)">
            {badge}
          </span>
        ))}
        {date && <span>{date}</span>}
        <span className="passage-place">{passagePlace(result.page_number, result.page_end, result.section_path)}</span>
      </p>
      {signals.map((signal) => (
        <p key={`${signal.target}-${signal.kind}`} className="status-signal" role="note">
          <strong>Segundo o acervo:</strong> {signal.statement} — ver{" "}
          <a
            className="open-linked"
            href={apiHref(signal.said_by.document_url, documentHref(signal.said_by.document_id, 1))}
            target="_blank"
            rel="noopener noreferrer"
          >
            {signal.said_by.citation || signal.said_by.title || "Documento sem título"}
            <span className="visually-hidden"> (abre em nova aba)</span>
          </a>
          {signal.said_by_count > 1 && ` e mais ${signal.said_by_count - 1} ${signal.said_by_count > 2 ? "documentos" : "documento"}`}
          <q className="status-sentence">{signal.sentence}</q>
        </p>
      ))}
      {(processo || result.relator || result.redator || result.judging_body || judged || published || applied || kindFacts.length > 0) && (
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
              <dt>{result.judged_alone ? "Juiz(a)" : "Relator(a)"}</dt>
              <dd>{result.relator}</dd>
            </div>
          )}
          {result.redator && (
            <div>
              <dt>Redator(a) p/ o acórdão</dt>
              <dd>{result.redator}</dd>
            </div>
          )}
          {result.judging_body && (
            <div>
              <dt>Órgão julgador</dt>
              <dd>{nameLabel(result.judging_body)}</dd>
            </div>
          )}
          {judged && (
            <div>
              <dt>{dateLabel(result.document_type)}</dt>
              <dd>{judged}</dd>
            </div>
          )}
          {published && (
            <div>
              <dt>Publicado em</dt>
              <dd>{published}</dd>
            </div>
          )}
          {applied && (
            <div>
              <dt>Aplica</dt>
              <dd>{applied}</dd>
            </div>
          )}
        </dl>
      )}
      <Passage result={result} id={`trecho-${position}`} />
      {unread.length > 0 && (
        <p className="unread-pages" role="note">
          {unreadPagesLabel(unread)}: a busca não {agree(unread.length, "a", "as")} alcança (imagem sem texto legível ou
          leitura fraca).
        </p>
      )}
      {result.relevance_explanation && (
        <p className="explanation">
          <span className="explanation-label">Por que é relevante: </span>
          {result.relevance_explanation}
        </p>
      )}
      <p>
        <a className="open-document" href={href} target="_blank" rel="noopener noreferrer">
          Abrir o documento na página {result.page_number}
          {href.includes("passage=") ? ", trecho marcado" : ""}
          <span className="visually-hidden"> (abre em nova aba)</span>
        </a>
        {result.full_text === false && <span className="document-extent"> (este arquivo traz só a ementa)</span>}
        {similarHref && (result.passage_id ?? 0) > 0 && (
          <a
            className="more-like-this"
            href={similarHref}
            aria-describedby={headingId}
            onClick={(event: MouseEvent<HTMLAnchorElement>) => {
              if (!onSimilar || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
              event.preventDefault();
              onSimilar();
            }}
          >
            Mais como este
          </a>
        )}
      </p>
      {onJudge && (result.passage_id ?? 0) > 0 && (
        <JudgmentControl judgment={judgment} onJudge={onJudge} id={`avaliacao-${position}`} describedBy={headingId} />
      )}
      {(result.passage_id ?? 0) > 0 && <AddToFolder result={result} id={`pasta-${position}`} describedBy={headingId} />}
      {result.ementa && (
        <details className="ementa">
          <summary>Ementa</summary>
          <p className="ementa-text">{displayText(result.ementa)}</p>
        </details>
      )}
      {others.length > 0 && (
        <details className="other-passages">
          <summary>Outros trechos desta decisão ({others.length})</summary>
          <ul>
            {others.map((other) => {
              return (
                <li key={other.passage_id}>
                  <p className="result-meta">
                    <span className="passage-place">{passagePlace(other.page_number, other.page_end, other.section_path)}</span>
                  </p>
                  <blockquote className="other-passage-text">
                    <Highlighted text={displayText(other.chunk_text)} highlights={other.highlights} />
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
        </details>
      )}
      {citedCount > 0 && (
        <details className="cited-by">
          <summary>{citedByLabel(citedCount)}</summary>
          <LinkedList documents={citing} />
          {citedByMore(citedCount, citing.length) && <p className="cited-by-more">{citedByMore(citedCount, citing.length)}</p>}
        </details>
      )}
      {cited.length > 0 && (
        <details className="cited-by cites">
          <summary>{citesLabel(cited.length)}</summary>
          <LinkedList documents={cited} />
        </details>
      )}
      {copies.length > 0 && (
        <details className="copies">
          <summary>Outras cópias ({copies.length})</summary>
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
                {copy.full_text != null && (
                  <span className="copy-extent"> — {copy.full_text ? "inteiro teor" : "só a ementa"}</span>
                )}
              </li>
            ))}
          </ul>
        </details>
      )}
    </article>
  );
}
