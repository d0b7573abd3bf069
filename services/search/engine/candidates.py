"""The candidate pool: one statement gathers the nearest passages, the full-text matches and the passages of the
case numbers the query names, all under the filters and the caller's access list, and reads what ranking needs
of each (its vector, its counts of the query's lexemes, its facet columns).

Filters and the access list sit inside every candidate list, so a document the caller may not see is never a
candidate, and a selective filter still fills the list (iterative index scans keep the HNSW scan going until
enough rows pass the filter). The statements take named parameters (`:groups`, `:court`), which `positional`
numbers for asyncpg from a dict: pool_parameters builds that dict for a request.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

import asyncpg
import numpy as np

from precedente.services.search.engine.models import SearchRequest
from precedente.services.search.engine.ranking import CollectionStatistics, PoolEntry
from precedente.services.search.syntax import ParsedQuery, column_clause, parse_query, required_clause
from precedente.shared.legal.codes import stored_names
from precedente.shared.legal.process_numbers import CNJ, CNJ_DIGITS

HNSW_EF_SEARCH_MAX = 1000  # pgvector's bound of hnsw.ef_search
INFORMATIVE = 0.2  # share of chunks above which a lexeme is too common to preselect candidates on
# Chunks the full-text preselection may rank at most (the sum of its lexemes' document frequencies, an upper
# bound of their OR's matches): ts_rank reads each match's tsvector, so this bounds its cost on a large index.
PRESELECTION_BUDGET = 5000


@dataclass(frozen=True)
class Candidates:
    """How many nearest chunks and how many full-text matches make the pool that ranking sees.

    Lexical matches are preselected by ts_rank, which is not BM25: a deeper list (300) keeps BM25's own
    best in the pool (JurisTCU ALL nDCG@10 64.5 -> 65.2 against 100).
    """

    dense: int = 100
    lexical: int = 300

    def at_least(self, wanted: int) -> "Candidates":
        return Candidates(max(self.dense, wanted), max(self.lexical, wanted))


# A named parameter: a colon and a name, not a cast's second colon (`::text`) nor a word's inside.
PLACEHOLDER = re.compile(r"(?<![:\w]):([a-z_][a-z0-9_]*)")


@cache
def _numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    names: dict[str, int] = {}
    text = PLACEHOLDER.sub(lambda m: f"${names.setdefault(m.group(1), len(names) + 1)}", sql)
    return text, tuple(names)


def positional(sql: str, values: Mapping[str, object]) -> tuple[str, list[object]]:
    """`sql` with its `:name` parameters numbered as asyncpg binds them ($1, $2 in order of first use, one number
    per name however often it is used), and their values from `values` in that order; a name without a value is
    a KeyError (a value no name uses is left out: "Mais como este" reads fewer than a search)."""
    text, names = _numbered(sql)
    missing = [name for name in names if name not in values]
    if missing:
        raise KeyError(f"no value for {', '.join(':' + name for name in missing)}")
    return text, [values[name] for name in names]


# The nearest passages' order: the HNSW index's own expression (migration 0024), half-precision vectors in half
# the float index's memory; chunks.embedding stays float and the pool scores it exactly. The dimension is the
# query vector's, which is the index's (index_state): fetch_candidates writes it in (with_dimensions).
# :query_vector comes as a float vector (its first use types it), made half here: a small language's exact list
# orders by the float one.
NEAREST = "c.embedding::halfvec(@dimensions) <=> :query_vector::vector(@dimensions)::halfvec(@dimensions)"


def with_dimensions(sql: str, dimensions: int) -> str:
    """`sql` with NEAREST's dimension written in: the cast must be the index's, typmod included."""
    return sql.replace("@dimensions", str(int(dimensions)))


# The filters (SearchFilters, by their own names) and the access list (:groups). Classes processuais are kept on
# documents only: looked up there, and only when asked for; so are the kinds of qualified precedent a document is
# (documents.qualified_kinds, migration 0026). A cited-law prefix is compared with starts_with, not
# LIKE: a "%" or "_" a caller types is no wildcard. :required is the lawyer's syntax or NULL; the fields they type
# (ementa:, relator:, orgao:, classe:, tribunal:, lei:) follow it, each NULL when not typed: :ementa is a requirement
# on the ementa's own passage (the chunker's is_ementa chunk, or a passage of the ementa section, as cards.py
# reads it), the others the metadata's words (column_clause) or, for :field_court and :field_cited_law, conditions
# that must all hold, each of alternatives joined by syntax.ALTERNATIVES (U+001F).
FILTERS = f"""
      public.precedente_visible(c.access_groups, c.deny_groups, :groups::text[])
      AND (:document_type::text[] IS NULL OR c.document_type = ANY(:document_type))
      AND (:document_subtype::text[] IS NULL OR c.document_subtype = ANY(:document_subtype))
      AND (:court::text[] IS NULL OR c.court = ANY(:court))
      AND (:date_from::date IS NULL OR c.document_date >= :date_from)
      AND (:date_to::date IS NULL OR c.document_date <= :date_to)
      AND (:relator::text[] IS NULL OR c.relator = ANY(:relator))
      AND (:judging_body::text[] IS NULL OR c.judging_body = ANY(:judging_body))
      AND (:procedural_class::text[] IS NULL OR EXISTS (
            SELECT 1 FROM documents pc WHERE pc.id = c.document_id AND pc.procedural_class = ANY(:procedural_class)))
      AND (:qualified_precedent::text[] IS NULL OR EXISTS (
            SELECT 1 FROM documents qp WHERE qp.id = c.document_id AND qp.qualified_kinds ?| :qualified_precedent))
      AND (:cited_law::text[] IS NULL OR EXISTS (
            SELECT 1 FROM unnest(c.citations) cited, unnest(:cited_law::text[]) wanted
            WHERE cited = wanted OR starts_with(cited, wanted || ',')))
      AND {required_clause(":required")}
      AND (:ementa::text IS NULL OR ((c.is_ementa OR split_part(c.section_path, ' > ', 1) = 'ementa')
           AND {required_clause(":ementa")}))
      AND {column_clause("c.relator", ":field_relator")}
      AND {column_clause("c.judging_body", ":field_judging_body")}
      AND (:field_procedural_class::text IS NULL OR EXISTS (
            SELECT 1 FROM documents pf WHERE pf.id = c.document_id
              AND {column_clause("pf.procedural_class", ":field_procedural_class")}))
      AND (:field_court::text[] IS NULL OR NOT EXISTS (
            SELECT 1 FROM unnest(:field_court::text[]) need
            WHERE NOT coalesce(c.court = ANY(string_to_array(need, E'\\x1f')), false)))
      AND (:field_cited_law::text[] IS NULL OR NOT EXISTS (
            SELECT 1 FROM unnest(:field_cited_law::text[]) need WHERE NOT EXISTS (
                SELECT 1 FROM unnest(c.citations) cited, unnest(string_to_array(need, E'\\x1f')) wanted
                WHERE cited = wanted OR starts_with(cited, wanted || ','))))
"""  # the syntax (services/search/syntax.py): phrases, exclusions, OU, ADJ/PROX as :required; the fields

# Dense and lexical candidates under the same filters; the lexical ones preselected by ts_rank on
# :preselection, the query's informative lexemes (see preselection_query), then all re-ranked in ranking.py.
# The nearest passages are mostly the query's language (multilingual-e5 puts it 0.02-0.03 closer, whatever
# a passage says): each other language :walked_languages names adds its own nearest :dense, which ranking.py
# centres onto the query's language. Within a language the centring is a constant, so its nearest by
# <=> :query_vector are its best (languages.language_query_vectors); an empty :walked_languages (one language,
# the usual case) scans nothing more.
# A language of few passages (:exact_languages, context.exact_languages) is read whole through chunks_language
# (migration 0025) and sorted by its float distance, the HNSW walk would start among the query language's
# neighbours and have to visit most of the index to reach it. pgvector's function, not its operator <=> (the same
# distance): no vector index serves a function, so a float HNSW index left beside chunks_embedding cannot turn
# this back into a walk. The filters test the language's rows (OFFSET 0 keeps them out of its scan): ANDed into
# bitmaps of the access and filter indexes they read a million entries for 6,000 rows (1M chunks: 99 ms against 36
# without a filter). The languages are one array the planner sees (`language = ANY(:exact_languages)`, custom
# plans), each one's :dense taken by row_number: a LATERAL over unnest(...) hid the value from it, so it guessed a
# language's rows as the table's over its distinct languages and scanned the whole table whenever few languages
# made that a large share (bench/load.py, 194k chunks while the archive arrived: PostgreSQL CPU per search 139 ms,
# now 27; searches/s 9.6 -> 25.1). The full-text matches are tested the same way (OFFSET 0): there are at most
# PRESELECTION_BUDGET of them, and ANDed with the access index's bitmap (three in four chunks visible: 144,000 entries
# at 199k chunks) they cost 10.5 ms of a 37 ms statement, for 2,900 matches. :process_numbers: the CNJ numbers the
# query names, digits only (or NULL).
CANDIDATES = f"""
WITH dense AS MATERIALIZED (
    SELECT c.id FROM chunks c
    WHERE {FILTERS}
    ORDER BY {NEAREST}
    LIMIT :dense
), dense_languages AS MATERIALIZED (
    SELECT nearest.id FROM unnest(:walked_languages::text[]) other(language)
    CROSS JOIN LATERAL (
        SELECT c.id FROM chunks c
        WHERE c.language = other.language AND {FILTERS}
        ORDER BY {NEAREST}
        LIMIT :dense
    ) nearest
), dense_exact_languages AS MATERIALIZED (
    SELECT ranked.id FROM (
        SELECT c.id,
               row_number() OVER (PARTITION BY c.language ORDER BY cosine_distance(c.embedding, :query_vector)) AS place
        FROM (SELECT * FROM chunks WHERE language = ANY(:exact_languages::text[]) OFFSET 0) c
        WHERE {FILTERS}
    ) ranked
    WHERE ranked.place <= :dense
), lexical AS MATERIALIZED (
    SELECT c.id
    FROM (SELECT * FROM chunks WHERE tsv @@ :preselection::tsquery AND :preselection::tsquery <> ''::tsquery
          OFFSET 0) c, (SELECT :preselection::tsquery AS query) q
    WHERE {FILTERS}
    ORDER BY ts_rank(c.tsv, q.query) DESC
    LIMIT :lexical
), identified AS MATERIALIZED (
    SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id
    WHERE :process_numbers::text[] IS NOT NULL
      AND regexp_replace(d.process_number, '\\D', '', 'g') = ANY(:process_numbers) AND {FILTERS}
    ORDER BY c.ordinal
    LIMIT 20
), candidates AS (
    SELECT id FROM dense UNION SELECT id FROM dense_languages UNION SELECT id FROM dense_exact_languages
    UNION SELECT id FROM lexical UNION SELECT id FROM identified
)
"""

# :lexemes: the query's lexemes. Each candidate's count of each of them is what BM25 needs from its text, and
# where the first one stands (positions are sorted) what the lead needs; its length (lexemes) is stored
# (chunks.lexeme_count, migration 0021). Only the query's lexemes are unnested: setweight marks them (binary
# searches in C) and ts_filter keeps them, where unnesting the whole tsvector of every candidate to count and
# pick them was most of the pool's cost. The first setweight clears any weight (to_tsvector gives none), so
# only the query's lexemes are kept; every lexeme of a to_tsvector has positions, which ts_filter requires.
# `table_like` (steps.tables_last): a table of numbers and references, at least 40% of its lexemes numbers and under
# 45% of them distinct (a directive's correlation table, "Article 117 Article 119 Article 120(1) and (2) ..."); only
# a candidate that repetitive (about 1% of the archive's chunks) has its whole tsvector unnested to count them.
# The embedding comes as pgvector's binary form (bytea), which pool_vectors reads for the whole pool in one numpy
# pass: decoding each vector in Python (the driver's codec) was about 6% of the search service's CPU (py-spy).
# `reference_list` (steps.references_last): the passage is a bibliography (migration 0034, stored with the text).
# `document_chunks` (steps.long_documents): how many passages the candidate's file holds.
# `in_ementa` (steps.authority): the passage is the ementa's own statement, read as the :ementa field reads it.
# `identified` tests :process_numbers first: without case numbers in the query (almost always) no row's number is
# rewritten.
# `table_like`, what POOL computes of a passage's shape, also read alone (bench/passage_shapes.py).
TABLE_LIKE = """
CROSS JOIN LATERAL (
    SELECT CASE WHEN c.lexeme_count >= 20 AND length(c.tsv) < 0.45 * c.lexeme_count
                THEN (SELECT coalesce(sum(coalesce(array_length(n.positions, 1), 1)), 0) >= 0.4 * c.lexeme_count
                      FROM unnest(c.tsv) n WHERE n.lexeme ~ '^[0-9]')
                ELSE false END AS table_like
) shape
"""
POOL = (
    """
SELECT c.id, c.document_id, c.char_start, c.char_end, public.vector_send(c.embedding) AS embedding, c.language,
       c.lexeme_count AS lexemes, tf.terms, tf.counts, tf.firsts,
       c.document_type, c.document_subtype, c.court, c.relator, c.judging_body, c.document_date,
       d.procedural_class, d.qualified_kinds AS qualified_precedent,
       coalesce(d.work_id, d.id)::text AS work_id, d.chunk_count AS document_chunks, shape.table_like,
       c.reference_list,
       (c.is_ementa OR split_part(c.section_path, ' > ', 1) = 'ementa') AS in_ementa,
       coalesce(:process_numbers::text[] IS NOT NULL
                AND regexp_replace(d.process_number, '\\D', '', 'g') = ANY(:process_numbers), false)
           AS identified
FROM candidates
JOIN chunks c USING (id)
JOIN documents d ON d.id = c.document_id
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(u.lexeme), '{}') AS terms,
           coalesce(array_agg(coalesce(array_length(u.positions, 1), 1)), '{}') AS counts,
           coalesce(array_agg(coalesce(u.positions[1], 1)), '{}') AS firsts
    FROM unnest(ts_filter(setweight(setweight(c.tsv, 'D'), 'A', :lexemes::text[]), '{a}')) u
) tf
"""
    + TABLE_LIKE
)


def process_numbers(query: str) -> list[str]:
    """The CNJ case numbers a query names (as printed or as 20 bare digits), digits only."""
    return list(dict.fromkeys("".join(m.groups()) for pattern in (CNJ, CNJ_DIGITS) for m in pattern.finditer(query)))


def preselection_query(lexemes: list[str], stats: CollectionStatistics) -> str:
    """The tsquery that preselects full-text candidates: an OR of the query's informative lexemes.

    An OR of every lexeme makes PostgreSQL rank most of a large collection ("contrato", "público" are in
    half of it: 1.4 s of CPU per query at 100,000 chunks). Lexemes in at most a fifth of the chunks carry
    the query; when there are none (only common words), no full-text preselection runs: the dense
    candidates make the pool and BM25 still scores it on every lexeme. On JurisTCU this ranks as well
    as the OR of everything (ALL nDCG@10 65.3 against 65.2); a 5% bar lost two G1 queries' hit@5. On a
    large index even those can match a fifth of it: the rarest are taken first, up to PRESELECTION_BUDGET
    matches (on JurisTCU no query reaches it, so its figures stand; at 100,000 chunks it cuts the
    preselection's cost by about four).
    """
    if not lexemes:
        return ""
    total = max(stats.chunks, 1)
    frequency = stats.document_frequency
    informative = [lx for lx in dict.fromkeys(lexemes) if frequency.get(lx, 0) <= INFORMATIVE * total]
    chosen, matches = [], 0
    for lexeme in sorted(informative, key=lambda lx: frequency.get(lx, 0)):  # the rarest carry the most
        matches += frequency.get(lexeme, 0)
        if matches > PRESELECTION_BUDGET:
            break
        chosen.append(lexeme)
    quoted = ["'" + lx.replace("\\", "\\\\").replace("'", "''") + "'" for lx in chosen]
    return " | ".join(quoted)


def pool_parameters(
    request: SearchRequest,
    query_vector: np.ndarray,
    groups: list[str],
    candidates: Candidates,
    lexemes: list[str],
    stats: CollectionStatistics,
    parsed: ParsedQuery | None = None,
    languages: list[str] | None = None,
    exact: list[str] | None = None,
) -> dict[str, object]:
    """The parameters of CANDIDATES + POOL for this request; `languages`: the other languages whose own nearest
    passages join the pool (language_query_vectors; none: the one dense list), those of them in `exact` read
    exactly (:exact_languages), the others by the HNSW index (:walked_languages); `parsed`: request.query parsed
    (None: parsed here)."""
    f = request.filters
    parsed = parsed or parse_query(request.query)
    return {
        "query_vector": query_vector,
        "groups": groups,
        "document_type": f.document_type,
        "document_subtype": f.document_subtype,
        "court": f.court,
        "date_from": f.date_from,
        "date_to": f.date_to,
        "relator": f.relator,
        "judging_body": stored_names(f.judging_body),
        "procedural_class": stored_names(f.procedural_class),
        "cited_law": f.cited_law,
        "qualified_precedent": f.qualified_precedent,
        "dense": candidates.dense,
        "lexical": candidates.lexical,
        "preselection": preselection_query(lexemes, stats),
        "lexemes": lexemes,
        "required": parsed.required,
        "ementa": parsed.ementa,
        "field_relator": parsed.relator,
        "field_judging_body": parsed.judging_body,
        "field_procedural_class": parsed.procedural_class,
        "field_court": parsed.court,
        "field_cited_law": parsed.cited_law,
        "process_numbers": process_numbers(request.query) or None,
        "walked_languages": [language for language in languages or [] if language not in (exact or [])],
        "exact_languages": [language for language in languages or [] if language in (exact or [])],
    }


async def fetch_candidates(
    conn: asyncpg.Connection, sql: str, parameters: Mapping[str, object], candidates: Candidates
) -> list[asyncpg.Record]:
    """Run a candidate statement with an HNSW search wide enough, and iterative, for filtered scans."""
    text, arguments = positional(with_dimensions(sql, len(parameters["query_vector"])), parameters)  # type: ignore[arg-type]
    # One round trip for the three settings (a simple-protocol batch), not one each.
    async with conn.transaction():
        await conn.execute(
            "SET LOCAL hnsw.iterative_scan = relaxed_order;"
            # A generic plan of a reused statement guesses the optional filters wrong and drops the vector index.
            " SET LOCAL plan_cache_mode = force_custom_plan;"
            # Wider than pgvector allows (1,000: a deep page asks for more) is an error; iterative scans go on.
            f" SET LOCAL hnsw.ef_search = {min(max(candidates.dense * 2, 40), HNSW_EF_SEARCH_MAX)}"
        )
        return await conn.fetch(text, *arguments)


async def fetch_pool(
    conn: asyncpg.Connection, parameters: Mapping[str, object], candidates: Candidates
) -> tuple[list[asyncpg.Record], list[PoolEntry]]:
    """The candidates' rows (CANDIDATES + POOL) and, aligned with them, what ranking reads of each."""
    rows = await fetch_candidates(conn, CANDIDATES + POOL, parameters, candidates)
    vectors = pool_vectors(rows)
    pool = [
        PoolEntry(
            row["id"],
            vectors[i],
            row["lexemes"],
            dict(zip(row["terms"], row["counts"], strict=True)),
            dict(zip(row["terms"], row["firsts"], strict=True)),
            row["language"],
        )
        for i, row in enumerate(rows)
    ]
    return rows, pool


def pool_vectors(rows: list[asyncpg.Record]) -> np.ndarray:
    """The pool's embeddings, row i of rows[i], from POOL's binary `embedding` (pgvector's send format: the
    dimension and a reserved word, two big-endian int16, then big-endian float4s): the same float32s the driver's
    codec decodes, one matrix for all rows."""
    if not rows:
        return np.zeros((0, 1), dtype=np.float32)
    data = b"".join(row["embedding"] for row in rows)
    width = 4 + 4 * int.from_bytes(data[:2], "big")
    if len(data) != width * len(rows):
        raise ValueError("pool embeddings of different dimensions")
    return np.frombuffer(data, dtype=np.uint8).reshape(len(rows), width)[:, 4:].view(">f4").astype(np.float32)
