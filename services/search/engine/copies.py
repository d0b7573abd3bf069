"""What a work's files say together: the work's date (its best-dated copy) and which file is the inteiro teor.

A firm's drive holds one decision as its full text (inteiro teor), a scan of it and an ementa-only extract of one
or two pages (grouping.py makes them one result). The archive's REsp 1.602.076/SP is five files: two of 20 pages
with relatório and voto, three of 2 pages holding only the caption, the ementa and the acórdão. A lawyer who opens
the extract has not read the decision; one who sorts by date wants the decision's date whichever file carries it
(the archive's REsp 1.543.564/SP has a copy whose date was not read, i1080.pdf).
"""

import uuid
from collections.abc import Iterable, Mapping
from datetime import date

import asyncpg

# The parts of a decision's or opinion's reasoning (shared/legal/sections.py's names, the first part of a chunk's
# section_path): a file with one of them holds the full text, not an extract.
BODY_PARTS = (
    "relatorio", "voto", "voto_vencido", "voto_vista", "voto_vogal", "debate", "fundamentacao", "dispositivo",
    "decisao",
)  # fmt: skip
EXTRACT_PAGES = 3
"""An ementa-only extract is one or two pages (the archive's three: 2 pages each; their full texts: 20); a third
leaves room for a long ementa. A longer file with an ementa and no body part found is not called an extract: its
body may be there under a heading the section rules missed (an OCR'd scan)."""


def full_text(has_body: bool, has_ementa: bool, pages: int | None) -> bool | None:
    """True: the file is the inteiro teor (it holds a relatório, voto, fundamentação or dispositivo); False: only
    the ementa (an ementa and no body part, in at most EXTRACT_PAGES pages); None: its sections do not tell (an
    act, a work of doctrine, a file whose parts were not recognised)."""
    if has_body:
        return True
    if has_ementa and pages is not None and pages <= EXTRACT_PAGES:
        return False
    return None


def work_date(files: Iterable[Mapping[str, object]]) -> date | None:
    """The work's date from its best-dated file: a file whose date is the judgment date it read before one whose
    date is only a publication date or an uploader's hint (an extract may carry just the DJe's date), the latest
    among equals; None when no file is dated. `files`: rows with document_date and judgment_date."""
    dated = [f for f in files if f["document_date"] is not None]
    if not dated:
        return None
    best = max(dated, key=lambda f: (f["document_date"] == f["judgment_date"], f["document_date"]))
    when = best["document_date"]
    return when if isinstance(when, date) else None


# The dates of every file of these works the caller may see ($1: work ids as text, $2: the caller's groups).
WORK_FILES_DATES = """
SELECT coalesce(d.work_id, d.id)::text AS work_id, d.document_date, d.judgment_date
FROM documents d
WHERE coalesce(d.work_id, d.id) = ANY($1::uuid[]) AND d.stage <> 'deleted'  -- index documents_work
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
"""


async def work_dates(conn: asyncpg.Connection, work_ids: Iterable[str], groups: list[str]) -> dict[str, date]:
    """Each work's date (work_date over the files of it the caller may see); undated works are left out."""
    files: dict[str, list[asyncpg.Record]] = {}
    for row in await conn.fetch(WORK_FILES_DATES, [uuid.UUID(w) for w in sorted(set(work_ids))], groups):
        files.setdefault(row["work_id"], []).append(row)
    dates = {work: work_date(rows) for work, rows in files.items()}
    return {work: when for work, when in dates.items() if when is not None}


# For each (passage, file) pair, the file's passage nearest it and their cosine: where an ementa-only extract's
# passage is, in the inteiro teor; in the pairs' order.
SAME_PASSAGE_IN = """
SELECT s.passage, n.id, n.cosine
FROM unnest($1::bigint[], $2::uuid[]) WITH ORDINALITY AS s(passage, document_id, pair)
JOIN chunks b ON b.id = s.passage
CROSS JOIN LATERAL (
    SELECT c.id, 1 - (c.embedding <=> b.embedding) AS cosine
    FROM chunks c
    WHERE c.document_id = s.document_id
    ORDER BY c.embedding <=> b.embedding, c.id
    LIMIT 1
) n
ORDER BY s.pair
"""
