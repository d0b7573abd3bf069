"""The metric code reproduces the reference numbers JurisTCU's README gives for the authors' BM25 run."""

from pathlib import Path

import pytest

from precedente.evaluation import Query, evaluate, query_metrics, read_qrels, read_queries, read_run, write_run

JURISTCU = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "juristcu"


def test_reference_bm25_run_scores_exactly_as_published() -> None:
    results = evaluate(
        read_run(JURISTCU / "runs" / "creators_bm25_fullcorpus.trec"),
        read_qrels(JURISTCU / "qrels.tsv"),
        read_queries(JURISTCU / "queries.jsonl"),
    )
    rounded = {
        group: {k: round(100 * v, 1) for k, v in values.items() if k != "queries"} for group, values in results.items()
    }
    assert rounded["G1"]["hit@5"] == 80.0
    assert rounded["G1"]["mrr@10"] == 58.4
    assert rounded["G1"]["ndcg@10"] == 33.5
    assert rounded["G1"]["recall@20"] == 40.1
    assert rounded["ALL"]["hit@5"] == 93.3
    assert rounded["ALL"]["mrr@10"] == 84.7
    assert rounded["ALL"]["ndcg@10"] == 52.3
    assert rounded["ALL"]["recall@20"] == 47.5
    assert rounded["ALL"]["recall@100"] == 68.4
    assert results["ALL"]["queries"] == 150 and results["G1"]["queries"] == 50


def test_graded_gain_and_unjudged_documents() -> None:
    judged = {"a": 3, "b": 1, "c": 0}
    perfect = query_metrics(["a", "b", "c"], judged)
    assert perfect["ndcg@10"] == pytest.approx(1.0) and perfect["mrr@10"] == 1.0
    swapped = query_metrics(["x", "b", "a"], judged)
    assert 0 < swapped["ndcg@10"] < 1 and swapped["mrr@10"] == 0.5 and swapped["judged@10"] == pytest.approx(0.2)
    assert query_metrics(["c", "x"], judged)["hit@5"] == 0.0  # score 0 is not relevant


def test_queries_without_group_count_in_all_only(tmp_path: Path) -> None:
    queries = [Query("1", "a", "G1"), Query("2", "b", None)]
    results = evaluate({"1": ["d1"], "2": ["d2"]}, {"1": {"d1": 2}, "2": {"d9": 1}}, queries)
    assert results["G1"]["queries"] == 1 and results["ALL"]["queries"] == 2
    assert results["ALL"]["hit@5"] == 0.5

    run_file = tmp_path / "run.trec"
    write_run({"1": ["d1", "d2"]}, {"1": [0.9, 0.5]}, run_file, "test")
    assert read_run(run_file) == {"1": ["d1", "d2"]}
    assert run_file.read_text().splitlines()[0] == "1 Q0 d1 1 0.900000 test"
