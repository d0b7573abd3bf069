"""`precedente eval --judgments` against a real `precedente up`: real decisions ingested, two lawyers' judgments
posted through POST /judgments, the command run as an operator runs it, and its figures checked against the
same figures computed by hand from the lists the lawyers saw."""

import json
import math
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from precedente.evaluation import evaluate, read_qrels, read_queries, read_run
from precedente.harness import RunningStack
from tests.helpers.stack import JudgedStack

pytestmark = pytest.mark.e2e


def judge(stack: RunningStack, who: dict[str, str], query: str, result: dict[str, Any], relevant: bool,
          **extra: Any) -> dict[str, Any]:  # fmt: skip
    body = {"query": query, "document_id": result["document_id"], "passage_id": result["passage_id"],
            "relevant": relevant, **extra}  # fmt: skip
    answer = stack.client.post("/judgments", json=body, headers=who)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


def settled(
    stack: RunningStack, searches: dict[str, tuple[dict[str, Any], dict[str, str]]], timeout: float = 90
) -> dict[str, list[dict[str, Any]]]:
    """Each query's top 10 as its lawyer sees it, once the BM25 statistics count every chunk (the indexer
    refreshes them a little after its last write, later still after a slow refresh) and two rounds agree."""

    def round_of() -> dict[str, list[dict[str, Any]]]:
        found = {}
        for query, (extra, who) in searches.items():
            answer = stack.client.post("/search", json={"query": query, "top_k": 10, **extra}, headers=who)
            assert answer.status_code == 200, answer.text
            found[query] = answer.json()["results"]
        return found

    def order(lists: dict[str, list[dict[str, Any]]]) -> dict[str, list[int]]:
        return {q: [r["passage_id"] for r in results] for q, results in lists.items()}

    deadline = time.monotonic() + timeout
    stack.wait_lexicon_counted(timeout)  # every chunk counted before two rounds can agree for good
    last = round_of()
    while time.monotonic() < deadline:
        time.sleep(8)
        now = round_of()
        if order(now) == order(last):
            return now
        last = now
    raise AssertionError("the rankings did not settle")


def test_eval_judgments_reports_the_seed_s_figures_from_the_firm_s_judgments(
    shared_judged_stack: JudgedStack, tmp_path: Path
) -> None:
    """On the stack test_panel_cli shares (tests/e2e/conftest.py): its panel's judgments are the base's too, so the
    command reads those made since this test began (--since), the figures computed by hand from these alone."""
    stack, walled_id = shared_judged_stack.stack, shared_judged_stack.walled_id
    ana, bruno = stack.headers("contencioso", user="ana"), stack.headers("tributario", user="bruno")

    q1, q2, q3 = "recurso especial dano moral", "agravo de instrumento", "responsabilidade civil do fornecedor"
    # The lists as the command will see them: it re-runs the queries with its own credential (the admin key), and
    # the passage shown for a work can differ with the caller's groups (the dense candidates are approximate and
    # the access filter changes the plan), so the lawyers judge passages of the lists that credential gets.
    admin = {"Authorization": f"Bearer {stack.admin_key()}"}
    searches = {q1: ({}, admin), q2: ({}, admin), q3: ({"filters": {"document_type": "acordao"}}, admin)}
    lists = settled(stack, searches)
    assert len(lists[q1]) >= 2 and len(lists[q2]) >= 3 and lists[q3], {q: len(v) for q, v in lists.items()}
    # A judgment from before: --since leaves it out (a third judge, who would have made q1's tie relevant).
    judge(stack, stack.headers("contencioso", user="leticia"), q1, lists[q1][1], True)
    since = datetime.now(UTC)

    # q1: its first result relevant (ana); its second judged both ways (ana no, bruno yes): a tie is not relevant.
    judge(stack, ana, q1, lists[q1][0], True, note="o precedente que eu procurava")
    judge(stack, ana, q1, lists[q1][1], False)
    judge(stack, bruno, q1.upper(), lists[q1][1], True)  # the same query, normalised
    # q2: the third result relevant, the first not (bruno).
    judge(stack, bruno, q2, lists[q2][0], False)
    judge(stack, bruno, q2, lists[q2][2], True)
    # q3, filtered to acórdãos: its first result not relevant; changed from relevant, so only the change counts.
    judge(stack, ana, q3, lists[q3][0], True, filters={"document_type": "acordao"})
    changed = judge(stack, ana, q3, lists[q3][0], False, filters={"document_type": "acordao"})
    assert changed["relevant"] is False

    # The access wall: ana cannot judge the walled parecer, whatever passage id she sends.
    walled_passage = int(stack.sql(f"SELECT min(id) FROM chunks WHERE document_id = '{walled_id}'"))
    refused = stack.client.post(
        "/judgments",
        json={"query": q1, "document_id": walled_id, "passage_id": walled_passage, "relevant": True},
        headers=ana,
    )
    assert refused.status_code == 404, refused.text

    json_file, trec_file = tmp_path / "judged.json", tmp_path / "judged.qrels"
    result = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "eval", "--judgments", "--api", stack.url, "--json", str(json_file),
         "--trec", str(trec_file), "--since", since.isoformat()],
        capture_output=True, text=True, timeout=600, env=stack.cli_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "precision@5" in result.stdout and "calibration before" in result.stdout
    assert "a refit needs 200 judged results" in result.stdout
    report = json.loads(json_file.read_text())

    # By hand, from the lists the lawyers saw (the admin key sees the same open documents, ranked alike).
    judged_lists = {
        q1: {lists[q1][0]["passage_id"]: 1, lists[q1][1]["passage_id"]: 0},
        q2: {lists[q2][0]["passage_id"]: 0, lists[q2][2]["passage_id"]: 1},
        q3: {lists[q3][0]["passage_id"]: 0},
    }
    precision = {q1: 1.0, q2: 1.0, q3: 0.0}  # a relevant result in the top 5
    ndcg = {q1: 1.0, q2: (1 / math.log2(4)) / 1.0, q3: 0.0}  # q2's relevant one at rank 3
    unjudged = sum(sum(r["passage_id"] not in judged_lists[q] for r in lists[q][:5]) for q in lists)
    shown = sum(len(lists[q][:5]) for q in lists)

    assert report["judgments"] == 6 and report["judges"] == 2 and report["queries"] == 3
    # The command re-ran each query and got the lists the lawyers judged (the admin key sees the same open ones).
    rerun = {q["query"]: q["top"] for q in report["per_query"]}
    assert rerun == {q: [str(r["passage_id"]) for r in results] for q, results in lists.items()}, report["per_query"]
    everything = report["metrics"]["ALL"]
    assert everything["queries"] == 3
    assert everything["precision@5"] == pytest.approx(sum(precision.values()) / 3)
    assert everything["ndcg@10"] == pytest.approx(sum(ndcg.values()) / 3)
    assert everything["unjudged@5"] == pytest.approx(unjudged / shown)
    # Per practice group: ana (contencioso) judged q1 and q3, bruno (tributario) q1 and q2.
    assert report["metrics"]["group:contencioso"]["queries"] == 2
    assert report["metrics"]["group:contencioso"]["precision@5"] == pytest.approx(0.5)
    assert report["metrics"]["group:tributario"]["precision@5"] == pytest.approx(1.0)
    assert report["metrics"]["type:acordao"]["queries"] >= 1  # q3 is filtered to acórdãos
    assert report["judged_under"] == {report["ranking"]["id"]: 6}

    # Calibration: each judged result of the top 10, with the probability the lawyers were shown.
    graded = [(lists[q][i], y) for q, i, y in ((q1, 0, 1), (q1, 1, 0), (q2, 0, 0), (q2, 2, 1), (q3, 0, 0))]
    before = report["calibration"]["before"]
    assert before["results"] == 5
    brier = sum((r["relevance_probability"] - y) ** 2 for r, y in graded) / 5
    assert before["brier"] == pytest.approx(brier, abs=1e-6)
    for grade in ("forte", "provável", "fraca"):
        inside = [y for r, y in graded if r["relevance"] == grade]
        assert before["grades"][grade]["results"] == len(inside)
        assert before["grades"][grade]["relevant"] == pytest.approx(sum(inside) / len(inside) if inside else 0.0)
    assert report["calibration"]["after"] is None  # under 200 judged results: no refit

    # TREC export: the same judgments and run through evaluation.py's metrics, as JurisTCU's.
    qrels = read_qrels(trec_file)
    queries = read_queries(trec_file.with_name("judged.queries.jsonl"))
    run = read_run(trec_file.with_name("judged.run"))
    assert len(qrels) == 3 and sorted(sum(v.values()) for v in qrels.values()) == [0, 1, 1]
    assert {q.text for q in queries} == {q1, q2, q3}
    metrics = evaluate(run, qrels, queries)
    assert metrics["ALL"]["hit@5"] == pytest.approx(everything["precision@5"])
    assert metrics["ALL"]["ndcg@10"] == pytest.approx(everything["ndcg@10"])

    # A key that is not an administrator's reads only its own judgments (none): it measures nothing of others'.
    person = stack.client.post("/keys", json={"name": "leitor", "scopes": ["search"]})
    assert person.status_code == 201, person.text
    own_only = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "eval", "--judgments", "--api", stack.url],
        capture_output=True, text=True, timeout=120, env=stack.cli_env(person.json()["key"]),
    )  # fmt: skip
    assert own_only.returncode == 0, own_only.stdout + own_only.stderr
    assert "0 judgments by 0 judges on 0 queries" in own_only.stdout
