"""A selection of results to export (issue 34, item 3): the passages asked for, with the columns of their documents
a citation is built from, under the caller's groups now (search's own rule) and never a deleted document."""

import uuid

import asyncpg

from precedente.services.search.store.folders import SEEN
from precedente.shared.legal.citing import CITATION_COLUMNS

Db = asyncpg.Pool | asyncpg.Connection

_SELECTION = (
    "SELECT p.ord, c.id AS passage_id, c.document_id, c.text AS passage, c.page_start, c.page_end,"
    f" coalesce(d.title, d.filename) AS title, {CITATION_COLUMNS}"
    " FROM unnest($1::uuid[], $2::bigint[]) WITH ORDINALITY AS p(document_id, passage_id, ord)"
    " JOIN chunks c ON c.id = p.passage_id AND c.document_id = p.document_id"
    " JOIN documents d ON d.id = c.document_id"
    f" WHERE {SEEN.format(groups='$3')} ORDER BY p.ord"
)


async def selection(db: Db, picks: list[tuple[uuid.UUID, int]], groups: list[str]) -> list[asyncpg.Record]:
    """The picked passages the caller may see, in the order picked; a passage that is not its document's, or of a
    document hidden from them or deleted, is absent."""
    return await db.fetch(_SELECTION, [d for d, _ in picks], [p for _, p in picks], groups)
