"""The arithmetic of `precedente eval --judgments` on judgments as GET /judgments returns them: topics and their
majority votes, which passage a result stands for, the calibration figures and the refit, and the TREC export
read back by evaluation.py."""

import math
import random
from pathlib import Path

import pytest

from precedente.cli.eval_runs import (
    REFIT_MINIMUM,
    Graded,
    calibration,
    recalibrated,
    result_key,
    topic_id,
    topics_of,
    write_trec,
)
from precedente.evaluation import (
    brier_score,
    evaluate,
    platt,
    platt_fit,
    read_qrels,
    read_queries,
    read_run,
    unjudged_at,
)


def row(judge: str, query_key: str, passage: int, relevant: bool, **extra: object) -> dict:
    return {"judge": judge, "query": query_key, "query_key": query_key, "passage_id": passage, "relevant": relevant,
            "filters": {}, "sort": "relevance", "judge_groups": [], "document_type": "acordao", **extra}  # fmt: skip


def test_topics_group_a_query_s_judges_and_take_the_majority() -> None:
    judgments = [
        row("ana", "dano moral", 1, True, judge_groups=["contencioso"]),
        row("bruno", "dano moral", 1, False, judge_groups=["tributario"]),  # a tie: not relevant
        row("ana", "dano moral", 2, True),
        row("bruno", "dano moral", 2, True),
        row("carla", "dano moral", 2, False),  # two to one: relevant
        row("ana", "dano moral", 3, True, filters={"court": ["stj"]}),  # other filters: another topic
    ]
    topics = topics_of(judgments)
    assert len(topics) == 2
    plain = next(t for t in topics if not t.filters)
    assert plain.qrels() == {"1": 0, "2": 1}
    assert plain.judges == {"ana", "bruno", "carla"} and plain.practice_groups == {"contencioso", "tributario"}
    assert plain.document_type() == "acordao"
    assert (
        plain.id == topic_id("dano moral", {}, "relevance") != topic_id("dano moral", {"court": ["stj"]}, "relevance")
    )
    assert len(plain.id) == 12 and plain.id == topic_id("dano moral", {}, "relevance")  # stable


def test_a_result_stands_for_its_judged_passage() -> None:
    result = {"passage_id": 10, "other_passages": [{"passage_id": 11}, {"passage_id": 12}]}
    assert result_key(result, {}) == "10"
    assert result_key(result, {"12": 1}) == "12"  # the lawyer judged another of the work's passages
    assert result_key(result, {"10": 0, "11": 1}) == "11"  # the best judgment of those shown
    assert result_key(result, {"10": 1, "11": 1}) == "10"
    assert unjudged_at(["10", "20", "30"], {"20": 1}) == (2, 3)


def test_calibration_counts_per_grade_and_scores_reliability() -> None:
    examples = [Graded("q", "forte", 0.9, True), Graded("q", "forte", 0.8, False), Graded("q", "fraca", 0.1, False)]
    figures = calibration(examples)
    assert figures["grades"]["forte"] == {"results": 2, "relevant": 0.5}
    assert figures["grades"]["provável"] == {"results": 0, "relevant": 0.0}
    assert figures["brier"] == pytest.approx((0.1**2 + 0.8**2 + 0.1**2) / 3)


def test_the_refit_corrects_an_overconfident_grade() -> None:
    """Judges who call relevant far fewer results than the grade promises: the refit brings the probability down
    to what they said, out of sample."""
    rng = random.Random(3)
    examples = []
    for i in range(REFIT_MINIMUM + 100):
        shown = rng.uniform(0.05, 0.95)
        truth = 1 / (1 + math.exp(-(0.5 * math.log(shown / (1 - shown)) - 1.5)))  # what judges really say
        examples.append(Graded(f"q{i % 60}", "forte" if shown > 0.85 else "fraca", shown, rng.random() < truth))
    before, after = calibration(examples), recalibrated(examples)
    assert after["brier"] < before["brier"] - 0.02
    assert abs(after["mean_probability"] - after["observed_relevant"]) < 0.05
    assert 0.2 < after["a"] < 0.9 and -2.2 < after["b"] < -0.8  # near the truth (0.5, -1.5)
    a, b = platt_fit([0.2, 0.8] * 50, [False, True] * 50)
    assert platt(0.8, a, b) > 0.8 > 0.2 > platt(0.2, a, b)  # perfectly separated judges: sharper, bounded by L2
    assert brier_score([1.0, 0.0], [True, False]) == 0.0


def test_the_trec_export_runs_through_evaluation_py(tmp_path: Path) -> None:
    topics = topics_of([row("ana", "dano moral", 1, True), row("ana", "dano moral", 2, False),
                        row("ana", "aluguel", 7, False)])  # fmt: skip
    run = {topics[0].id: ["2", "1", "5"], topics[1].id: ["7"]}
    qrels_file = tmp_path / "firm.qrels"
    write_trec(topics, run, qrels_file)
    assert qrels_file.read_text().splitlines()[0] == f"{topics[0].id} 0 1 1"
    qrels = read_qrels(qrels_file)
    assert qrels == {topics[0].id: {"1": 1, "2": 0}, topics[1].id: {"7": 0}}
    queries = read_queries(tmp_path / "firm.queries.jsonl")
    assert [(q.text, q.group) for q in queries] == [("dano moral", "acordao"), ("aluguel", "acordao")]
    metrics = evaluate(read_run(tmp_path / "firm.run"), qrels, queries)
    assert metrics["ALL"]["hit@5"] == 0.5 and metrics["ALL"]["ndcg@10"] == pytest.approx(0.5 / math.log2(3))
