import { courtLabel, documentHref, formatDate, pageSpan, typeLabel } from "../lib/format";
import type { SearchResult } from "../lib/types";
import { Highlighted } from "./Highlighted";

interface Props {
  result: SearchResult;
  position: number;
}

export function ResultCard({ result, position }: Props) {
  const type = result.document_type ? (result.document_type_label ?? typeLabel(result.document_type)) : null;
  const court = result.court ? (result.court_label ?? courtLabel(result.court)) : null;
  const date = formatDate(result.document_date);
  const headingId = `resultado-${position}`;
  return (
    <article className="result" aria-labelledby={headingId} data-document-id={result.document_id}>
      <h2 id={headingId} className="result-title">
        {result.document_title || "Documento sem título"}
      </h2>
      <p className="result-meta">
        {type && <span className="tag">{type}</span>}
        {court && <span className="tag">{court}</span>}
        {date && <span>{date}</span>}
        <span>{pageSpan(result.page_number, result.page_end)}</span>
        {result.section_path && <span className="section">{result.section_path}</span>}
      </p>
      <blockquote className="passage">
        <Highlighted text={result.chunk_text} highlights={result.highlights} />
      </blockquote>
      <p className="explanation">
        <span className="explanation-label">Por que é relevante: </span>
        {result.relevance_explanation}
      </p>
      <p>
        <a
          className="open-document"
          href={documentHref(result.document_id, result.page_number)}
          target="_blank"
          rel="noopener noreferrer"
        >
          Abrir o documento na página {result.page_number}
          <span className="visually-hidden"> (abre em nova aba)</span>
        </a>
      </p>
    </article>
  );
}
