"""The result cards: a shown work's best passage explained and highlighted, its other passages, its other files
the caller may see, its ementa, the metadata a lawyer cites it by, read for the shown works only."""

import uuid
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import asyncpg

from precedente.services.search.ementa import ementas
from precedente.services.search.engine.copies import BODY_PARTS, SAME_PASSAGE_IN, full_text, work_date
from precedente.services.search.engine.grouping import REPEAT_COSINE
from precedente.services.search.engine.models import (
    DocumentCopy,
    LinkedDocument,
    OtherPassage,
    QualifiedPrecedentBadge,
    SearchResult,
    StatusSignal,
)
from precedente.services.search.engine.steps import GradedWork
from precedente.services.search.explain import explain, highlight_spans
from precedente.shared.bounds import FILENAME_MAX, TITLE_MAX, clip
from precedente.shared.legal.citing import CITATION_COLUMNS, CitationFields, format_citation, judged_alone
from precedente.shared.legal.codes import label
from precedente.shared.legal.graph import cited_as, cited_keys
from precedente.shared.legal.precedents import QualifiedPrecedent
from precedente.shared.legal.precedents import label as precedent_label
from precedente.shared.legal.status import case_key, precedent_key, statement
from precedente.shared.legal.teses import tese_citation

DETAILS = """
SELECT c.id, c.document_id, c.text, c.page_start, c.page_end, c.char_start, c.char_end, c.section_path, c.citations
FROM chunks c
WHERE c.id = ANY($1::bigint[])
"""

# The metadata a card shows and a citation is built from (CITATION_COLUMNS, the one list exports and folders read
# too), of the documents whose passages are shown.
DOCUMENTS = f"""
SELECT d.id, coalesce(d.title, d.filename) AS title, {CITATION_COLUMNS},
       d.content_type, d.page_count, d.language, d.unread_pages, d.citations
FROM documents d
WHERE d.id = ANY($1::uuid[])
"""

# The other files of these works the caller may see ($2: the caller's groups), oldest first, with what their
# passages say of them: whether a body part (copies.BODY_PARTS: $3) or an ementa was found, and their last page.
COPIES = """
SELECT d.id, coalesce(d.work_id, d.id) AS work_id, coalesce(d.title, d.filename) AS title, d.filename,
       d.content_type, d.document_type, d.page_count, d.document_date, d.judgment_date,
       parts.has_body, parts.has_ementa, parts.last_page
FROM documents d
CROSS JOIN LATERAL (
    SELECT coalesce(bool_or(split_part(c.section_path, ' > ', 1) = ANY($3::text[])), false) AS has_body,
           coalesce(bool_or(c.is_ementa OR split_part(c.section_path, ' > ', 1) = 'ementa'), false) AS has_ementa,
           max(c.page_end) AS last_page
    FROM chunks c
    WHERE c.document_id = d.id  -- index chunks_document_id_ordinal_key
) parts
WHERE coalesce(d.work_id, d.id) = ANY($1::uuid[]) AND d.stage <> 'deleted'  -- index documents_work
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
ORDER BY d.created_at, d.id
"""
# The documents the caller may see whose citations name one of the shown works ($1: each work's id, $2: an id that
# names it, aligned; $3: the caller's groups): through the chunks' citations (a document's, on each of its chunks)
# and their GIN index, read on each document's first chunk only (one row per document however long it is); a work's
# own files left out.
CITED_BY = f"""
SELECT DISTINCT ON (wanted.work, d.id) wanted.work, d.id, coalesce(d.work_id, d.id) AS citing_work,
       coalesce(d.title, d.filename) AS title, {CITATION_COLUMNS}, d.created_at
FROM unnest($1::text[], $2::text[]) AS wanted(work, ident)
JOIN chunks c ON c.citations @> ARRAY[wanted.ident] AND c.ordinal = 0
JOIN documents d ON d.id = c.document_id
WHERE public.precedente_visible(c.access_groups, c.deny_groups, $3::text[])
  AND public.precedente_visible(d.access_groups, d.deny_groups, $3::text[])
  AND d.stage <> 'deleted' AND coalesce(d.work_id, d.id)::text <> wanted.work
"""
CITED_BY_SHOWN = 5
# The acórdãos the caller may see whose work keys (shared/legal/works.py, migration 0009, GIN index) are among those
# the shown works cite ($1; $2: the caller's groups).
CITED = f"""
SELECT DISTINCT ON (k.key, d.id) k.key, d.id, coalesce(d.work_id, d.id) AS cited_work,
       coalesce(d.title, d.filename) AS title, {CITATION_COLUMNS}, d.created_at
FROM documents d
CROSS JOIN LATERAL unnest(d.work_keys) AS k(key)
WHERE d.work_keys && $1::text[] AND k.key = ANY($1::text[]) AND d.stage <> 'deleted'
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
"""
CITES_SHOWN = 10
# The statements of documents the caller may see that name one of the shown works' targets ($1: their keys,
# shared/legal/status.py; $2: the caller's groups) that they were cancelled, revised or overruled: through the
# documents' status_targets and their GIN index (migration 0030), one row per statement and document.
STATUS = f"""
SELECT DISTINCT ON (s.target, s.kind, d.id) s.target, s.kind, s.label, s.sentence, d.id,
       coalesce(d.work_id, d.id) AS saying_work, coalesce(d.title, d.filename) AS title, {CITATION_COLUMNS},
       d.created_at
FROM documents d
CROSS JOIN LATERAL jsonb_to_recordset(d.status_signals) AS s(kind text, target text, label text, sentence text)
WHERE d.status_targets ?| $1::text[] AND s.target = ANY($1::text[]) AND d.stage <> 'deleted'
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
"""
STATUS_KINDS = ("sumula", "sumula_vinculante", "repetitivo", "repercussao_geral")
"""The qualified precedents a statement can name by key (an IRDR's court is too often unknown to be matched)."""

SAME_TEXT = REPEAT_COSINE
"""An extract's passage and the inteiro teor's are the same text at grouping's repeat cosine (0.95): copies of
one text embed to nearly the same vector."""


def file_is_full_text(copy: asyncpg.Record) -> bool | None:
    """copies.full_text of one row of COPIES (its page count, or its passages' last page when none was stored)."""
    return full_text(copy["has_body"], copy["has_ementa"], copy["page_count"] or copy["last_page"])


def document_url(document_id: object, content_type: str | None, page: int, passage_id: int) -> str:
    """The original at the passage's page; a PDF is served with the passage marked (GET /documents/{id})."""
    if content_type and content_type.startswith("application/pdf"):
        return f"/documents/{document_id}?passage={passage_id}#page={page}"
    return f"/documents/{document_id}"


@dataclass(frozen=True)
class Shown:
    """What the shown works' cards read beyond the pool."""

    details: dict[int, asyncpg.Record]  # the passages shown, by chunk id
    copies: list[asyncpg.Record]  # the works' files the caller may see (COPIES)
    documents: dict[uuid.UUID, asyncpg.Record]  # those files' and the passages' documents (DOCUMENTS)
    ementa_of: dict[uuid.UUID, str]  # their ementas
    opened: dict[int, int] = field(default_factory=dict)  # a best passage in an extract -> the inteiro teor's
    cited_by: dict[str, list[asyncpg.Record]] = field(default_factory=dict)  # work id -> citing works' files (CITED_BY)
    cited: dict[str, list[asyncpg.Record]] = field(default_factory=dict)  # work key -> the base's files of it (CITED)
    statuses: dict[str, list[asyncpg.Record]] = field(default_factory=dict)  # target key -> statements (STATUS)


async def shown_records(
    conn: asyncpg.Connection, shown: list[GradedWork], rows: list[asyncpg.Record], groups: list[str]
) -> Shown:
    """What the shown works' cards read beyond the pool: their passages' details, the works' other files the
    caller may see, those documents' rows and their ementas, and where a best passage found in an ementa-only
    extract stands in the work's inteiro teor (the card opens that one: inteiro_teor_passages)."""
    work_ids = list({uuid.UUID(rows[work.group.best]["work_id"]) for work in shown})
    copies = await conn.fetch(COPIES, work_ids, groups, list(BODY_PARTS))
    opened = await inteiro_teor_passages(conn, shown, rows, copies)
    chunk_ids = [rows[i]["id"] for work in shown for i in (work.group.best, *work.group.others)]
    details = {row["id"]: row for row in await conn.fetch(DETAILS, [*chunk_ids, *opened.values()])}
    document_ids = list({detail["document_id"] for detail in details.values()} | {c["id"] for c in copies})
    documents = {row["id"]: row for row in await conn.fetch(DOCUMENTS, document_ids)}
    cited_by = await citing_documents(conn, copies, documents, groups)
    cited = await cited_documents(conn, copies, documents, groups)
    statuses = await status_statements(conn, list(documents.values()), groups)
    return Shown(details, copies, documents, await ementas(conn, document_ids), opened, cited_by, cited, statuses)


async def citing_documents(
    conn: asyncpg.Connection,
    copies: list[asyncpg.Record],
    documents: dict[uuid.UUID, asyncpg.Record],
    groups: list[str],
) -> dict[str, list[asyncpg.Record]]:
    """For each shown work, the files the caller may see of other works whose citations name it (by the ids of its
    acórdãos' case numbers: precedente.shared.legal.graph.cited_as), one row per file."""
    pairs = {
        (str(c["work_id"]), ident)
        for c in copies
        if c["id"] in documents and documents[c["id"]]["document_type"] == "acordao"
        for ident in cited_as(documents[c["id"]]["process_number"])
    }
    if not pairs:
        return {}
    rows = await conn.fetch(CITED_BY, [w for w, _ in pairs], [i for _, i in pairs], groups)
    found: dict[str, list[asyncpg.Record]] = {}
    for row in rows:
        found.setdefault(row["work"], []).append(row)
    return found


async def cited_documents(
    conn: asyncpg.Connection,
    copies: list[asyncpg.Record],
    documents: dict[uuid.UUID, asyncpg.Record],
    groups: list[str],
) -> dict[str, list[asyncpg.Record]]:
    """The files the caller may see of the acórdãos the shown works cite, by work key
    (precedente.shared.legal.graph.cited_keys of the shown files' citations)."""
    keys = {key for c in copies if c["id"] in documents for key in cited_keys(documents[c["id"]]["citations"] or [])}
    if not keys:
        return {}
    found: dict[str, list[asyncpg.Record]] = {}
    for row in await conn.fetch(CITED, sorted(keys), groups):
        found.setdefault(row["key"], []).append(row)
    return found


def status_targets(files: list[asyncpg.Record]) -> list[str]:
    """The keys a statement names these files' work by (precedente.shared.legal.status): the qualified precedents the
    work is or applies (a decision applying a cancelled súmula stands on it), and its acórdãos' case numbers."""
    keys = [
        precedent_key(p["kind"], p.get("court"), p.get("number"))
        for p in work_precedents(files)
        if p["kind"] in STATUS_KINDS
    ]
    keys += [
        case_key(ident) for f in files if f["document_type"] == "acordao" for ident in cited_as(f["process_number"])
    ]
    return [key for key in dict.fromkeys(keys) if key]


async def status_statements(
    conn: asyncpg.Connection, files: list[asyncpg.Record], groups: list[str]
) -> dict[str, list[asyncpg.Record]]:
    """The statements of documents the caller may see about the shown works' targets, by target key."""
    keys = status_targets(files)
    if not keys:
        return {}
    found: dict[str, list[asyncpg.Record]] = {}
    for row in await conn.fetch(STATUS, keys, groups):
        found.setdefault(row["target"], []).append(row)
    return found


def status_signals(work_id: str, files: list[asyncpg.Record], shown: Shown) -> list[StatusSignal]:
    """What documents of the base say of this work's precedents, one signal per target and kind, in the order of
    the work's targets: said by the most recent of the other works that say it (one file each: the oldest), with
    how many works say it; the work's own files never count."""
    signals: list[StatusSignal] = []
    for key in status_targets(files):
        by_kind: dict[str, dict[uuid.UUID, asyncpg.Record]] = {}
        for row in sorted(shown.statuses.get(key, []), key=lambda r: (r["created_at"], str(r["id"]))):
            if str(row["saying_work"]) != work_id:
                by_kind.setdefault(row["kind"], {}).setdefault(row["saying_work"], row)
        for kind, works in by_kind.items():
            latest = max(works.values(), key=lambda r: r["judgment_date"] or r["document_date"] or date.min)
            signals.append(
                StatusSignal(
                    kind=kind,
                    target=latest["label"],
                    statement=statement(latest["label"], kind),
                    sentence=latest["sentence"],
                    said_by=linked(latest),
                    said_by_count=len(works),
                )
            )
    return signals


def linked(row: asyncpg.Record) -> LinkedDocument:
    return LinkedDocument(
        document_id=str(row["id"]),
        title=clip(row["title"], TITLE_MAX) or "",
        citation=format_citation(CitationFields.from_mapping(row)),
        document_type=row["document_type"],
        document_url=f"/documents/{row['id']}",
    )


def cites(work_id: str, files: list[asyncpg.Record], shown: Shown) -> list[LinkedDocument]:
    """The works of the base this work cites, in the order its files' citations name them, one file each (the
    oldest), never the work itself."""
    found: dict[uuid.UUID, asyncpg.Record] = {}
    citations = [c for f in files if f["id"] in shown.documents for c in shown.documents[f["id"]]["citations"] or []]
    for key in cited_keys(citations):
        rows = sorted(shown.cited.get(key, []), key=lambda r: (r["created_at"], str(r["id"])))
        for row in rows:
            if str(row["cited_work"]) != work_id:
                found.setdefault(row["cited_work"], row)
    return [linked(row) for row in list(found.values())[:CITES_SHOWN]]


def cited_by(rows: list[asyncpg.Record]) -> tuple[int, list[LinkedDocument]]:
    """How many works cite a work, and up to CITED_BY_SHOWN of them (one file each: the oldest), latest first."""
    works: dict[uuid.UUID, asyncpg.Record] = {}
    for row in sorted(rows, key=lambda r: (r["created_at"], str(r["id"]))):
        works.setdefault(row["citing_work"], row)
    latest = sorted(works.values(), key=lambda r: r["judgment_date"] or r["document_date"] or date.min, reverse=True)
    return len(works), [linked(row) for row in latest[:CITED_BY_SHOWN]]


async def inteiro_teor_passages(
    conn: asyncpg.Connection, shown: list[GradedWork], rows: list[asyncpg.Record], copies: list[asyncpg.Record]
) -> dict[int, int]:
    """For each shown work whose best passage is in an ementa-only extract (copies.full_text False), the same
    passage in a file of the work that is its inteiro teor (full_text True, visible to the caller: `copies`),
    when one holds it (cosine >= SAME_TEXT; the nearest if several): best chunk id -> that chunk's id."""
    files = {c["id"]: c for c in copies}
    pairs: list[tuple[int, uuid.UUID]] = []
    for work in shown:
        best = rows[work.group.best]
        extract = files.get(best["document_id"])
        if extract is None or file_is_full_text(extract) is not False:
            continue
        work_id = str(extract["work_id"])
        pairs += [(best["id"], c["id"]) for c in copies if str(c["work_id"]) == work_id and file_is_full_text(c)]
    if not pairs:
        return {}
    found = await conn.fetch(SAME_PASSAGE_IN, [p for p, _ in pairs], [d for _, d in pairs])
    opened: dict[int, tuple[float, int]] = {}
    for row in found:  # in `pairs`' order: the oldest file first among equal cosines
        cosine = float(row["cosine"])
        if cosine >= SAME_TEXT and cosine > opened.get(row["passage"], (0.0, 0))[0]:
            opened[row["passage"]] = (cosine, row["id"])
    return {passage: chunk for passage, (_, chunk) in opened.items()}


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
    "process_number", "procedural_class", "relator", "redator", "judging_body", "judgment_date", "publication_date",
    "document_subtype", "act_number", "issuing_body", "venue", "year",
)  # fmt: skip


def work_precedents(files: list[asyncpg.Record]) -> list[dict[str, Any]]:
    """The qualified precedents of a work (migration 0026), over the files its card describes: each once, those the
    work is first; a kind a file names without its Tema left out where another file of the work gives the number
    (an ementa-only extract and its inteiro teor announce the same leading case)."""
    seen: set[tuple[object, ...]] = set()
    found: list[dict[str, Any]] = []
    for precedent in (p for f in files for p in f["qualified_precedents"] or []):
        key = tuple(precedent.get(name) for name in ("kind", "court", "number", "item", "role"))
        if key not in seen:
            seen.add(key)
            found.append(precedent)
    numbered = {(p["kind"], p["role"]) for p in found if p.get("number")}
    kept = [p for p in found if p.get("number") or (p["kind"], p["role"]) not in numbered]
    return sorted(kept, key=lambda p: p["role"] != "is")


def badge(precedent: dict[str, Any]) -> QualifiedPrecedentBadge:
    fields = {name: precedent.get(name) for name in ("kind", "court", "number", "role", "item")}
    return QualifiedPrecedentBadge(**fields, label=precedent_label(QualifiedPrecedent(**fields)))


def passage_citation(file: asyncpg.Record, passage: asyncpg.Record) -> str | None:
    """How the shown passage itself is cited where its file's citation would name another part of it: a tese of a
    "Jurisprudência em Teses" booklet by its edition and number (one file often holds several editions, and its
    title names the first); None for any other passage (the card cites the work)."""
    if file["document_subtype"] != "jurisprudencia_em_teses":
        return None
    return tese_citation(passage["section_path"], file["title"], file["court"], passage["text"])


def card(query: str, work: GradedWork, rows: list[asyncpg.Record], shown: Shown) -> SearchResult:
    """One work's entry: its best passage explained (in the inteiro teor when an extract's passage is also there:
    Shown.opened), its other passages, its other files (each said to be the inteiro teor or only the ementa), how to
    cite it, dated by the work's best-dated file."""
    details, documents = shown.details, shown.documents
    found = rows[work.group.best]["id"]
    best = details[shown.opened.get(found, found)]
    work_id = rows[work.group.best]["work_id"]
    files = [c for c in shown.copies if str(c["work_id"]) == work_id]
    # The card describes the work from its best-described file (an ementa-only extract may lack the relator).
    described = [documents[best["document_id"]], *(documents[c["id"]] for c in files if c["id"] in documents)]
    document = max(described, key=lambda d: sum(d[name] is not None for name in _DESCRIBING) + bool(d["authors"]))
    dated = work_date(files) or document["document_date"]
    explanation = explain(query, best["text"], best["section_path"], list(best["citations"]), dated)
    others = [
        OtherPassage(**passage_fields(query, other, documents[other["document_id"]]["content_type"]))
        for other in (details[rows[i]["id"]] for i in work.group.others)
    ]
    ementa = shown.ementa_of.get(best["document_id"]) or next(
        (shown.ementa_of[c["id"]] for c in files if c["id"] in shown.ementa_of), None
    )
    opened_file = next((c for c in files if c["id"] == best["document_id"]), None)
    precedents = work_precedents(described)
    citing_count, citing = cited_by(shown.cited_by.get(work_id, []))
    return SearchResult(
        **passage_fields(query, best, described[0]["content_type"]),
        document_title=clip(document["title"], TITLE_MAX) or "",
        document_date=dated,
        document_type=document["document_type"],
        full_text=file_is_full_text(opened_file) if opened_file is not None else None,
        relevance_explanation=explanation.text,
        explanation_span=explanation.sentence,
        similarity_score=round(work.features.similarity, 4),
        court=document["court"],
        document_type_label=label("document_type", document["document_type"]),
        court_label=label("court", document["court"]),
        work_id=work_id,
        relevance=work.grade,
        relevance_probability=round(work.probability, 3),
        relevance_basis=list(work.basis),
        other_passages=others,
        copies=[
            DocumentCopy(
                document_id=str(c["id"]),
                title=clip(c["title"], TITLE_MAX) or "",
                filename=clip(c["filename"], FILENAME_MAX) or "",
                document_type=c["document_type"],
                page_count=c["page_count"],
                full_text=file_is_full_text(c),
                document_url=f"/documents/{c['id']}",
            )
            for c in files
            if c["id"] != best["document_id"]
        ],
        citation=passage_citation(documents[best["document_id"]], best)
        or format_citation(CitationFields.from_mapping(dict(document) | {"qualified_precedents": precedents})),
        ementa=ementa,
        process_number=document["process_number"],
        procedural_class=document["procedural_class"],
        relator=document["relator"],
        judged_alone=judged_alone(document["document_type"], document["judging_body"]),
        redator=document["redator"],
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
        qualified_precedents=[badge(p) for p in precedents],
        cited_by_count=citing_count,
        cited_by=citing,
        cites=cites(work_id, files, shown),
        status_signals=status_signals(work_id, described, shown),
    )
