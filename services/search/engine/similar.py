"""'Mais como este' (POST /search/similar): the works whose passages are nearest one passage the caller may see,
under the same filters and access wall as a search, graded by that nearness, the passage's own work left out."""

import uuid
from dataclasses import dataclass

import asyncpg
import numpy as np

from precedente.services.search.engine.candidates import (
    FILTERS,
    NEAREST,
    POOL,
    Candidates,
    fetch_candidates,
    pool_parameters,
    pool_vectors,
)
from precedente.services.search.engine.cards import DOCUMENTS, card, shown_records
from precedente.services.search.engine.copies import work_dates
from precedente.services.search.engine.facets import facet_counts, facets_statement, wider_facets
from precedente.services.search.engine.grouping import Passage, group_by_work
from precedente.services.search.engine.models import SearchPage, SearchRequest, SimilarRequest
from precedente.services.search.engine.ranking import CollectionStatistics
from precedente.services.search.engine.relevance import Grade, RelevanceFeatures
from precedente.services.search.engine.steps import GradedWork, by_date
from precedente.services.search.syntax import ParsedQuery
from precedente.shared.bounds import TITLE_MAX, clip
from precedente.shared.legal.citing import CitationFields, format_citation

# The passage if the caller may see it and its document stands ($2: the caller's groups), with every file of its
# work: they are what "more like this" leaves out (the lawyer is reading that decision already).
SIMILAR_SOURCE = """
SELECT c.id, c.embedding, c.document_id, c.page_start, coalesce(d.work_id, d.id)::text AS work_id,
       array(SELECT w.id FROM documents w WHERE coalesce(w.work_id, w.id) = coalesce(d.work_id, d.id)) AS work_files
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE c.id = $1 AND d.stage <> 'deleted'
  AND public.precedente_visible(c.access_groups, c.deny_groups, $2::text[])
  AND public.precedente_visible(d.access_groups, d.deny_groups, $2::text[])
"""

# The nearest chunks under the search's own FILTERS (the access wall among them), the source work's files out
# (:source_files). Dense only: nearness is the embedding's.
SIMILAR_CANDIDATES = f"""
WITH candidates AS MATERIALIZED (
    SELECT c.id FROM chunks c
    WHERE {FILTERS} AND NOT (c.document_id = ANY(:source_files::uuid[]))
    ORDER BY {NEAREST}
    LIMIT :dense
)
"""

# Cosine of two passages (multilingual-e5's scale, where unrelated legal passages still score about 0.75):
# at or above SIMILAR_STRONG they say the same thing, at or above SIMILAR_PROBABLE they treat the same subject.
SIMILAR_STRONG = 0.9
SIMILAR_PROBABLE = 0.85


@dataclass(frozen=True)
class SimilarSource:
    passage_id: int
    document_id: uuid.UUID
    work_id: str
    vector: np.ndarray
    work_files: list[uuid.UUID]
    title: str
    citation: str | None
    page_number: int


async def similar_source(db: asyncpg.Pool, passage_id: int, groups: list[str]) -> SimilarSource | None:
    """The passage "Mais como este" starts from, or None when it is missing or behind the caller's wall (alike)."""
    row = await db.fetchrow(SIMILAR_SOURCE, passage_id, groups)
    if row is None:
        return None
    document = await db.fetchrow(DOCUMENTS, [row["document_id"]])
    vector = np.asarray(row["embedding"].to_numpy(), dtype=np.float32)
    citation = format_citation(CitationFields.from_mapping(document))
    return SimilarSource(
        row["id"], row["document_id"], row["work_id"], vector, list(row["work_files"]),
        clip(document["title"], TITLE_MAX) or "", citation,
        row["page_start"],
    )  # fmt: skip


def similar_grade(similarity: float) -> Grade:
    if similarity >= SIMILAR_STRONG:
        return "forte"
    return "provável" if similarity >= SIMILAR_PROBABLE else "fraca"


def similar_explanation(similarity: float) -> str:
    near = {"forte": "diz quase o mesmo que", "provável": "trata do mesmo assunto que", "fraca": "é o mais próximo de"}
    return f"Pelo sentido, {near[similar_grade(similarity)]} o trecho escolhido (semelhança {similarity:.2f})."


async def similar_search(
    db: asyncpg.Pool, request: SimilarRequest, source: SimilarSource, groups: list[str], candidates: Candidates
) -> SearchPage:
    """Works near `source` (its stored embedding is the query vector), one entry each, nearest first (or newest),
    graded by their best passage's nearness, the source's own work left out; the facets of the candidates, a
    facet with a selection counted without it, as hybrid_search does."""
    search = SearchRequest.model_construct(
        query="", filters=request.filters, top_k=request.top_k, offset=request.offset, sort=request.sort
    )
    parsed = ParsedQuery(text="")
    stats = CollectionStatistics(chunks=0, mean_lexemes=0.0, document_frequency={})
    sql = SIMILAR_CANDIDATES + POOL

    def parameters(wanted: SearchRequest) -> dict[str, object]:
        return pool_parameters(wanted, source.vector, groups, candidates, [], stats, parsed) | {
            "source_files": source.work_files
        }

    async with db.acquire() as conn:
        rows = await fetch_candidates(conn, sql, parameters(search), candidates)
        embeddings = pool_vectors(rows)
        dense = embeddings @ source.vector if rows else np.zeros(0)
        order = [int(i) for i in np.argsort(-dense, kind="stable")]
        passages = [
            Passage(i, row["work_id"], str(row["document_id"]), row["char_start"], row["char_end"])
            for i, row in enumerate(rows)
        ]
        background = float(np.median(dense)) if len(dense) else 0.0
        works = []
        for group in group_by_work(order, passages, embeddings):
            similarity = float(dense[group.best])
            features = RelevanceFeatures(similarity, similarity - background, 0.0, 0.0, 0.0, 0.0, 0.0)
            works.append(GradedWork(group, features, similarity, similar_grade(similarity)))
        if request.sort == "date":
            ranked = by_date(works, rows, await work_dates(conn, (row["work_id"] for row in rows), groups))
        else:
            ranked = works
        shown = ranked[request.offset : request.offset + request.top_k]
        records = await shown_records(conn, shown, rows, groups)
    wider = await wider_facets(db, search, parameters, candidates, facets_statement(SIMILAR_CANDIDATES))
    facets = facet_counts(rows, search, wider)
    results = []
    for work in shown:
        result = card("", work, rows, records)
        results.append(
            result.model_copy(
                update={
                    "relevance_explanation": similar_explanation(work.features.similarity),
                    "explanation_span": None,
                }
            )
        )
    relevant = sum(work.grade != "fraca" for work in works)
    return SearchPage(results, facets, len(works), relevant, relevant == 0, [], False)
