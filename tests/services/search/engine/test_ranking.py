"""Ranking of the candidate pool: BM25 from collection statistics, fusion, dense pseudo-relevance feedback."""

import math

import numpy as np

from precedente.services.search.engine.candidates import preselection_query
from precedente.services.search.engine.ranking import CollectionStatistics, PoolEntry, Ranking, bm25, fuse, lead
from precedente.services.search.engine.steps import score_pool


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def entry(id: int, counts: dict[str, int], lexemes: int = 10, vector: np.ndarray | None = None) -> PoolEntry:
    return PoolEntry(id, vector if vector is not None else unit(1, 0, 0), lexemes, counts)


STATS = CollectionStatistics(chunks=1000, mean_lexemes=10.0, document_frequency={"licit": 500, "fracion": 5})


def test_bm25_matches_the_okapi_formula_with_lucene_idf() -> None:
    k1, b = 0.9, 0.4
    scores = bm25([entry(1, {"licit": 2, "fracion": 1}, lexemes=20)], ["licit", "fracion"], STATS, k1, b)
    norm = k1 * (1 - b + b * 20 / 10)
    expected = sum(
        math.log(1 + (1000 - df + 0.5) / (df + 0.5)) * tf * (k1 + 1) / (tf + norm) for df, tf in ((500, 2), (5, 1))
    )
    assert scores[0] == np.float64(expected)


def test_a_rare_lexeme_outweighs_a_common_one_and_length_normalises() -> None:
    pool = [entry(1, {"licit": 3}), entry(2, {"fracion": 1}), entry(3, {"fracion": 1}, lexemes=40), entry(4, {})]
    scores = bm25(pool, ["licit", "fracion"], STATS, 0.9, 0.4)
    assert scores[1] > scores[0]  # one rare word beats three of a common one
    assert scores[1] > scores[2]  # the same count in a longer passage weighs less
    assert scores[3] == 0


def test_statistics_not_yet_counted_fall_back_to_the_pool() -> None:
    pool = [entry(1, {"novo": 1}), entry(2, {})]
    scores = bm25(pool, ["novo"], CollectionStatistics(0, 0.0, {}), 0.9, 0.4)
    assert scores[0] > 0 and scores[1] == 0


def test_weighted_fusion_and_reciprocal_ranks() -> None:
    dense = np.array([0.80, 0.79, 0.70])
    lexical = np.array([0.0, 10.0, 0.0])
    assert np.argmax(fuse(dense, lexical, Ranking(dense_weight=0.7))) == 1  # a strong lexical match lifts it
    assert np.argmax(fuse(dense, lexical, Ranking(dense_weight=1.0))) == 0
    rrf = fuse(dense, lexical, Ranking(fusion="rrf"))
    assert rrf[1] == 1 / 62 + 1 / 61 and rrf[0] == 1 / 61 + 1 / 62


def test_feedback_moves_the_query_towards_what_ranks_first() -> None:
    """A passage close to the top ones (not to the query) rises once the query moves towards them."""
    query = unit(1, 0, 0)
    pool = [
        entry(1, {"a": 1}, vector=unit(1, 1, 0)),
        entry(2, {"a": 1}, vector=unit(1, 1.2, 0)),
        entry(3, {}, vector=unit(1, 0, 1.2)),
        entry(4, {}, vector=unit(0.6, 1, 0)),
    ]
    stats = CollectionStatistics(100, 10.0, {"a": 10})
    without = score_pool(pool, query, ["a"], stats, Ranking(feedback_docs=0)).fused
    with_feedback = score_pool(pool, query, ["a"], stats, Ranking(feedback_docs=2, feedback_weight=1.0)).fused
    assert without[3] < without[2]
    assert with_feedback[3] > with_feedback[2]


def test_a_passage_opening_with_the_query_words_outranks_one_saying_them_in_passing() -> None:
    """Same words, same counts, same vector: only where they stand differs."""
    opening = PoolEntry(1, unit(1, 0, 0), 30, {"fracion": 1, "licit": 1}, {"fracion": 1, "licit": 2})
    in_passing = PoolEntry(2, unit(1, 0, 0), 30, {"fracion": 1, "licit": 1}, {"fracion": 25, "licit": 3})
    rare_late = PoolEntry(3, unit(1, 0, 0), 30, {"fracion": 1, "licit": 1}, {"fracion": 25, "licit": 1})
    absent = PoolEntry(4, unit(1, 0, 0), 30, {}, {})
    pool = [opening, in_passing, rare_late, absent]
    leads = lead(pool, ["fracion", "licit"], STATS, words=10.0)
    assert leads[0] > leads[2] > leads[1] > leads[3] == 0
    assert leads[2] < 0.5  # the rare word (idf ~5) late weighs more than the common one (idf ~0.7) first
    scores = score_pool(pool, unit(1, 0, 0), ["fracion", "licit"], STATS, Ranking(feedback_docs=0)).fused
    assert scores[0] > scores[1]
    flat = score_pool(pool, unit(1, 0, 0), ["fracion", "licit"], STATS, Ranking(feedback_docs=0, lead_weight=0)).fused
    assert flat[0] == flat[1]


def test_an_empty_pool_ranks_nothing() -> None:
    assert len(score_pool([], unit(1, 0, 0), ["a"], STATS, Ranking()).fused) == 0


def test_full_text_candidates_are_preselected_on_the_informative_lexemes() -> None:
    stats = CollectionStatistics(chunks=1000, mean_lexemes=10.0, document_frequency={"contrat": 600, "fracion": 5})
    assert preselection_query(["contrat", "fracion", "novo"], stats) == "'novo' | 'fracion'"  # rarest first
    assert preselection_query(["contrat", "contrat"], stats) == ""  # only common words: dense candidates only
    assert preselection_query(["d'agu"], stats) == "'d''agu'"
    assert preselection_query([], stats) == ""


def test_the_preselection_ranks_a_bounded_number_of_matches_on_a_large_index() -> None:
    frequency = {"licit": 15_000, "fracion": 900, "despes": 4_000, "modal": 12_000}
    stats = CollectionStatistics(chunks=100_000, mean_lexemes=80.0, document_frequency=frequency)
    # Rarest first while their matches stay within the budget (900 + 4,000 <= 5,000; adding 12,000 is not).
    assert preselection_query(["licit", "despes", "fracion", "modal"], stats) == "'fracion' | 'despes'"
