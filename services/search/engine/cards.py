"""The result cards: a shown work's best passage explained and highlighted, its other passages, its other files
the caller may see, its ementa, the metadata a lawyer cites it by, read for the shown works only."""

import uuid
from typing import Any

import asyncpg

from services.search.ementa import ementas
from services.search.engine.models import DocumentCopy, OtherPassage, SearchResult
from services.search.engine.steps import GradedWork
from services.search.explain import explain, highlight_spans
from shared.legal.citing import CitationFields, format_citation
from shared.legal.codes import label

DETAILS = """
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.char_start, c.char_end, c.section_path, c.citations
FROM chunks c
WHERE c.id = ANY($1::bigint[])
"""

# The metadata a card shows and a citation is built from, of the documents whose passages are shown.
DOCUMENTS = """
SELECT d.id, coalesce(d.title, d.filename) AS title, d.filename, d.content_type, d.document_type, d.court,
       d.document_date, d.process_number, d.procedural_class, d.relator, d.judging_body, d.judgment_date,
       d.publication_date, d.page_count, d.document_subtype, d.act_number, d.issuing_body, d.authors, d.venue,
       d.year, d.language, d.unread_pages
FROM documents d
WHERE d.id = ANY($1::uuid[])
"""

# The other files of these works the caller may see ($2: the caller's groups), oldest first.
COPIES = """
SELECT d.id, coalesce(d.work_id, d.id) AS work_id, coalesce(d.title, d.filename) AS title, d.filename,
       d.content_type, d.document_type, d.page_count
FROM documents d
WHERE coalesce(d.work_id, d.id) = ANY($1::uuid[]) AND d.stage <> 'deleted'  -- index documents_work
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
ORDER BY d.created_at, d.id
"""


def document_url(document_id: object, content_type: str | None, page: int, passage_id: int) -> str:
    """The original at the passage's page; a PDF is served with the passage marked (GET /documents/{id})."""
    if content_type and content_type.startswith("application/pdf"):
        return f"/documents/{document_id}?passage={passage_id}#page={page}"
    return f"/documents/{document_id}"


async def shown_records(
    conn: asyncpg.Connection, shown: list[GradedWork], rows: list[asyncpg.Record], groups: list[str]
) -> tuple[dict[int, asyncpg.Record], list[asyncpg.Record], dict[uuid.UUID, asyncpg.Record], dict[uuid.UUID, str]]:
    """What the shown works' cards read beyond the pool: their passages' details, the works' other files the
    caller may see, those documents' rows and their ementas."""
    chunk_ids = [rows[i]["id"] for work in shown for i in (work.group.best, *work.group.others)]
    details = {row["id"]: row for row in await conn.fetch(DETAILS, chunk_ids)}
    work_ids = list({uuid.UUID(rows[work.group.best]["work_id"]) for work in shown})
    copies = await conn.fetch(COPIES, work_ids, groups)
    document_ids = list({detail["document_id"] for detail in details.values()} | {c["id"] for c in copies})
    documents = {row["id"]: row for row in await conn.fetch(DOCUMENTS, document_ids)}
    return details, copies, documents, await ementas(conn, document_ids)


def passage_fields(query: str, chunk: asyncpg.Record, content_type: str | None) -> dict[str, Any]:
    """What a result and each of its other passages say of their passage."""
    return {
        "passage_id": chunk["id"],
        "document_id": str(chunk["document_id"]),
        "chunk_text": chunk["text"],
        "page_number": chunk["page_start"],
        "page_end": chunk["page_end"],
        "section_path": chunk["section_path"],
        "char_start": chunk["char_start"],
        "char_end": chunk["char_end"],
        "highlights": highlight_spans(query, chunk["text"]),
        "document_url": document_url(chunk["document_id"], content_type, chunk["page_start"], chunk["id"]),
    }


_DESCRIBING = (
    "process_number", "procedural_class", "relator", "judging_body", "judgment_date", "publication_date",
    "document_subtype", "act_number", "issuing_body", "venue", "year",
)  # fmt: skip


def card(
    query: str,
    work: GradedWork,
    rows: list[asyncpg.Record],
    details: dict[int, asyncpg.Record],
    documents: dict[uuid.UUID, asyncpg.Record],
    copies: list[asyncpg.Record],
    ementa_of: dict[uuid.UUID, str],
) -> SearchResult:
    """One work's entry: its best passage explained, its other passages, its other files, how to cite it."""
    best = details[rows[work.group.best]["id"]]
    work_id = rows[work.group.best]["work_id"]
    files = [c for c in copies if str(c["work_id"]) == work_id]
    # The card describes the work from its best-described file (an ementa-only extract may lack the relator).
    described = [documents[best["document_id"]], *(documents[c["id"]] for c in files if c["id"] in documents)]
    document = max(described, key=lambda d: sum(d[name] is not None for name in _DESCRIBING) + bool(d["authors"]))
    explanation = explain(query, best["text"], best["section_path"], list(best["citations"]))
    others = [
        OtherPassage(**passage_fields(query, other, documents[other["document_id"]]["content_type"]))
        for other in (details[rows[i]["id"]] for i in work.group.others)
    ]
    ementa = ementa_of.get(best["document_id"]) or next(
        (ementa_of[c["id"]] for c in files if c["id"] in ementa_of), None
    )
    return SearchResult(
        **passage_fields(query, best, described[0]["content_type"]),
        document_title=document["title"],
        document_date=document["document_date"],
        document_type=document["document_type"],
        relevance_explanation=explanation.text,
        explanation_span=explanation.sentence,
        similarity_score=round(work.features.similarity, 4),
        court=document["court"],
        document_type_label=label("document_type", document["document_type"]),
        court_label=label("court", document["court"]),
        work_id=work_id,
        relevance=work.grade,
        relevance_probability=round(work.probability, 3),
        other_passages=others,
        copies=[
            DocumentCopy(
                document_id=str(c["id"]),
                title=c["title"],
                filename=c["filename"],
                document_type=c["document_type"],
                page_count=c["page_count"],
                document_url=f"/documents/{c['id']}",
            )
            for c in files
            if c["id"] != best["document_id"]
        ],
        citation=format_citation(CitationFields.from_mapping(document)),
        ementa=ementa,
        process_number=document["process_number"],
        procedural_class=document["procedural_class"],
        relator=document["relator"],
        judging_body=document["judging_body"],
        judgment_date=document["judgment_date"],
        publication_date=document["publication_date"],
        document_subtype=document["document_subtype"],
        document_subtype_label=label("document_subtype", document["document_subtype"]),
        act_number=document["act_number"],
        issuing_body=document["issuing_body"],
        authors=list(document["authors"] or []),
        venue=document["venue"],
        year=document["year"],
        language=document["language"],
        unread_pages=list(document["unread_pages"] or []),
    )
