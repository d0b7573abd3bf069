"""`precedente panel` against a real `precedente up`: real decisions ingested, a panel of today's ranking against
the keyword baseline made with `panel create`, one lawyer judging at the terminal with `panel judge`, another
(of the partners' group) through the API, and `panel report`'s figures checked against the credit counted by
hand from what each was shown."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from precedente.harness import RunningStack
from precedente.services.search.interleaving import sign_test
from tests.helpers.stack import JudgedStack

pytestmark = pytest.mark.e2e

QUERIES = ["recurso especial dano moral", "agravo de instrumento", "responsabilidade civil do fornecedor"]


def cli(
    stack: RunningStack, *args: str, key: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", "panel", *args], input=stdin, capture_output=True, text=True,
        timeout=300, env=stack.cli_env(key),
    )  # fmt: skip


def test_panel_create_judge_and_report_on_a_real_stack(shared_judged_stack: JudgedStack, tmp_path: Path) -> None:
    """On the stack test_eval_judgments shares (tests/e2e/conftest.py): the lists and credits are counted over its
    documents, and this panel's judgments are told apart by its id."""
    stack, walled_id = shared_judged_stack.stack, shared_judged_stack.walled_id
    carla = stack.headers("contencioso", user="carla")
    dora = stack.headers("socios", user="dora")
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(QUERIES) + "\n", encoding="utf-8")

    made = cli(stack, "create", "--queries", str(queries), "--a", "current", "--b", "keyword", "--judges",
               "carla,dora", "--depth", "5", "--seed", "11", "--json")  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    panel = json.loads(made.stdout)
    assert panel["queries"] == QUERIES and panel["b"]["lexical_only"] is True

    # carla at the terminal: "s" for the first result of each list, "n" for the rest.
    answers = ("s\n" + "n\n" * 4) * len(QUERIES) + "n\n" * 20  # a list may be shorter than 5
    judged = cli(stack, "judge", panel["id"], key=carla["Authorization"].split()[1], stdin=answers)
    assert judged.returncode == 0, judged.stdout[-3000:] + judged.stderr[-3000:]
    assert "consulta 1 de 3" in judged.stdout and f"all {len(QUERIES)} queries judged" in judged.stdout

    # dora through the API: relevant where a result is the walled parecer or her list's second one.
    seen_by_dora = set()
    while not (shown := stack.client.get(f"/panels/{panel['id']}/next", headers=dora).json())["done"]:
        for result in shown["results"]:
            seen_by_dora.add(result["document_id"])
            body = {"position": shown["position"], "shown_rank": result["shown_rank"],
                    "relevant": result["document_id"] == walled_id or result["shown_rank"] == 2}  # fmt: skip
            answer = stack.client.post(f"/panels/{panel['id']}/judgments", json=body, headers=dora)
            assert answer.status_code in (200, 201), answer.text
    assert walled_id in seen_by_dora  # the partners' list holds the parecer...
    carla_saw = stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel['id']}' AND judge = 'carla'"
                        f" AND document_id = '{walled_id}'")  # fmt: skip
    assert carla_saw.strip() == "0"  # ...carla's never did

    # By hand: each query's relevant picks per team, from what was shown and judged.
    rows = stack.sql(
        "SELECT coalesce(string_agg(i.position || ':' || i.team, ' '), '') FROM panel_items i"
        " JOIN panel_queries q USING (panel_id, position)"
        " JOIN judgments j ON j.judge = i.judge AND j.query_key = q.query_key AND j.passage_id = i.passage_id"
        f" WHERE i.panel_id = '{panel['id']}' AND j.relevant AND j.panel_id = '{panel['id']}'"
    ).split()
    credit = {p: {t: rows.count(f"{p}:{t}") for t in "ab"} for p in range(1, len(QUERIES) + 1)}
    wins = [("a" if c["a"] > c["b"] else "b" if c["b"] > c["a"] else "tie") for c in credit.values()]

    reported = cli(stack, "report", panel["id"], "--json")
    assert reported.returncode == 0, reported.stderr
    report = json.loads(reported.stdout)
    assert {q["position"]: {"a": q["credit_a"], "b": q["credit_b"]} for q in report["per_query"]} == credit
    assert (report["wins_a"], report["wins_b"], report["ties"]) == (wins.count("a"), wins.count("b"), wins.count("tie"))
    assert report["p_value"] == pytest.approx(sign_test(wins.count("a"), wins.count("b")))
    assert all(q["judges"] == 2 and q["judged"] == q["shown"] for q in report["per_query"])

    printed = cli(stack, "report", panel["id"])
    assert printed.returncode == 0, printed.stderr
    assert f"queries won: A {wins.count('a')}, B {wins.count('b')}, ties {wins.count('tie')}" in printed.stdout
    assert "sign test p =" in printed.stdout

    refused = cli(stack, "report", panel["id"], key=carla["Authorization"].split()[1])
    assert refused.returncode == 1 and "403" in refused.stderr
