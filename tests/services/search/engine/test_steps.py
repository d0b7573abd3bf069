"""The ranking declared once (engine/steps.py): the steps' order, and score_pool as their first three."""

import re

import numpy as np

from precedente.services.search.engine.ranking import (
    LEAD_FULL_SHARE,
    CollectionStatistics,
    PoolEntry,
    Ranking,
    bm25,
    fuse,
    lead_term,
)
from precedente.services.search.engine.ranking import lead as lead_scores
from precedente.services.search.engine.steps import (
    POOL_STEPS,
    STEPS,
    Ranked,
    long_documents,
    references_last,
    score_pool,
    tables_last,
)


def test_the_steps_run_in_their_declared_order() -> None:
    assert [step.__name__ for step in STEPS] == [
        "fusion", "lead", "feedback", "authority", "long_documents", "tables_last", "references_last",
        "grouping", "grade",
        "sources_before_comments", "named_case_first", "newest_first",
    ]  # fmt: skip
    assert STEPS[: len(POOL_STEPS)] == POOL_STEPS


def test_every_step_says_why_with_a_figure_or_as_a_rule() -> None:
    for step in STEPS:
        doc = step.__doc__ or ""
        assert re.search(r"\d", doc) or "rule" in doc or "asked" in doc, step.__name__


def test_the_lead_step_adds_what_fusion_with_the_lead_gave_bit_for_bit() -> None:
    """Fusion, then the lead added on its scale, is fuse(dense, lexical, ranking, opening) to the bit, under either
    fusion (feedback off here, so the scores are the first fusion's)."""
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(6, 4)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    terms = [{"a": 2}, {"b": 1}, {}, {"a": 1, "b": 3}, {"a": 1}, {"b": 1}]
    firsts = [{"a": 1}, {"b": 40}, {}, {"a": 3, "b": 9}, {"a": 80}, {"b": 2}]
    pool = [PoolEntry(i, vectors[i], 30, terms[i], firsts[i]) for i in range(6)]
    stats = CollectionStatistics(100, 30.0, {"a": 10, "b": 40})
    query = vectors[0]
    for fusion in ("weighted", "rrf"):
        ranking = Ranking(fusion=fusion, feedback_docs=0)
        dense = vectors @ query
        expected = fuse(
            dense, bm25(pool, ["a", "b"], stats, 0.9, 0.4), ranking, lead_scores(pool, ["a", "b"], stats, 10.0)
        )
        assert np.array_equal(score_pool(pool, query, ["a", "b"], stats, ranking, vectors).fused, expected), fusion


def test_the_lead_orders_only_queries_within_its_lexeme_limit_and_the_grade_reads_it_always() -> None:
    rng = np.random.default_rng(11)
    vectors = rng.normal(size=(5, 4)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pool = [PoolEntry(i, vectors[i], 30, {"a": 1, "b": 1}, {"a": 1 + 20 * i, "b": 2}) for i in range(5)]
    stats = CollectionStatistics(100, 30.0, {"a": 10, "b": 40})
    lexemes = ["a", "b"]

    def scores(**ranking: int):  # noqa: ANN202 - PoolScores
        return score_pool(pool, vectors[0], lexemes, stats, Ranking(feedback_docs=2, **ranking), vectors)

    led, long_query, unlimited = scores(lead_max_lexemes=2), scores(lead_max_lexemes=1), scores()
    unled = scores(lead_weight=0)
    assert np.array_equal(led.fused, unlimited.fused) and not np.array_equal(led.fused, unled.fused)
    assert np.array_equal(long_query.fused, unled.fused), "a query past the limit is ordered as without the lead"
    assert np.array_equal(long_query.opening, led.opening) and long_query.opening.any(), "the grade's lead feature"


def test_a_table_of_numbers_or_a_bibliography_goes_below_every_other_passage() -> None:
    """tables_last and references_last: a row the pool marks table_like (reference_list) ends below the lowest other
    one; nothing moves when no row or every row is so marked, or when the rows are not the pool's."""
    pool = [PoolEntry(i, np.ones(2, dtype=np.float32), 30, {}) for i in range(3)]
    ranked = Ranked(pool, np.ones(2), [], CollectionStatistics(3, 30.0, {}), Ranking(), np.ones((3, 2)))
    for step, mark in ((tables_last, "table_like"), (references_last, "reference_list")):
        ranked.fused = np.array([2.0, 0.5, -1.0])
        ranked.graded_fused = None
        ranked.rows = [{mark: True}, {mark: False}, {mark: None}]
        step(ranked)
        assert list(np.argsort(-ranked.fused)) == [1, 2, 0] and ranked.fused[1:].tolist() == [0.5, -1.0]
        other = "reference_list" if mark == "table_like" else "table_like"
        for marks in ([False, False, False], [True, True, True]):
            ranked.fused = np.array([2.0, 0.5, -1.0])
            ranked.rows = [{mark: m, other: not m} for m in marks]
            step(ranked)
            assert ranked.fused.tolist() == [2.0, 0.5, -1.0], (step.__name__, marks)
        ranked.rows = []
        step(ranked)
        assert ranked.fused.tolist() == [2.0, 0.5, -1.0]


def test_the_grade_reads_the_scores_before_the_tables_went_down() -> None:
    """tables_last orders, it does not grade: the standing the grade reads is the pool's scores before the move (a
    table pushed a whole range down widened the spread and lowered every other work's grade)."""
    pool = [PoolEntry(i, np.ones(2, dtype=np.float32), 30, {}) for i in range(3)]
    ranked = Ranked(pool, np.ones(2), [], CollectionStatistics(3, 30.0, {}), Ranking(), np.ones((3, 2)))
    ranked.fused = np.array([2.0, 0.5, -1.0])
    ranked.rows = [{"table_like": True}, {"table_like": False}, {"table_like": False}]
    tables_last(ranked)
    assert ranked.fused[0] < ranked.fused[1:].min()
    assert ranked.scores().fused.tolist() == [2.0, 0.5, -1.0]


def test_a_long_file_loses_the_log_of_its_passages_and_the_grade_reads_the_scores_before() -> None:
    """long_documents: each passage loses weight x ln(its file's passages), so a short decision passes a 400-passage
    compilation that stood a little above it; off at weight 0 or when the rows are not the pool's; tables_last after
    it keeps the scores long_documents kept for the grade."""
    pool = [PoolEntry(i, np.ones(2, dtype=np.float32), 30, {}) for i in range(3)]
    rows = [{"document_chunks": 400, "table_like": False}, {"document_chunks": 12}, {"document_chunks": None}]
    for weight, rows_given in ((0.0, rows), (0.2, [])):
        ranked = Ranked(pool, np.ones(2), [], CollectionStatistics(3, 30.0, {}), Ranking(long_document_weight=weight),
                        np.ones((3, 2)))  # fmt: skip
        ranked.fused = np.array([1.0, 0.5, -1.0])
        ranked.rows = rows_given
        long_documents(ranked)
        assert ranked.fused.tolist() == [1.0, 0.5, -1.0] and ranked.graded_fused is None
    ranked = Ranked(pool, np.ones(2), [], CollectionStatistics(3, 30.0, {}), Ranking(long_document_weight=0.2),
                    np.ones((3, 2)))  # fmt: skip
    ranked.fused = np.array([1.0, 0.5, -1.0])
    ranked.rows = rows
    long_documents(ranked)
    assert np.allclose(ranked.fused, [1.0 - 0.2 * np.log(400), 0.5 - 0.2 * np.log(12), -1.0])
    assert list(np.argsort(-ranked.fused)) == [1, 0, 2], "the short decision passes the compilation"
    ranked.rows = [{**row, "table_like": i == 2} for i, row in enumerate(rows)]
    tables_last(ranked)
    assert ranked.scores().fused.tolist() == [1.0, 0.5, -1.0], "the grade reads the scores as fitted"


def test_the_lead_counts_in_proportion_to_the_share_of_the_query_its_best_opening_holds() -> None:
    """A heading holding a little of a long query is lifted less than an opening holding most of a short one
    (ranking.LEAD_FULL_SHARE): the same pattern of openings, held at a lower share, weighs proportionally less."""
    pattern = np.array([1.0, 0.0, 0.4, 0.0, 0.1])
    for fusion in ("weighted", "rrf"):
        ranking = Ranking(fusion=fusion)
        full = lead_term(LEAD_FULL_SHARE * pattern, ranking)
        assert np.allclose(lead_term(pattern, ranking), full), "past the full share, no more"
        assert np.allclose(lead_term(LEAD_FULL_SHARE / 4 * pattern, ranking), full / 4)
        assert not lead_term(np.zeros(5), ranking).any()
