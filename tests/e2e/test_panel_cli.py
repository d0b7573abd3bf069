"""`precedente panel` against a real `precedente up`: real decisions ingested, a panel of today's ranking against
the keyword baseline made with `panel create`, one lawyer judging at the terminal with `panel judge`, another
(of the partners' group) through the API, and `panel report`'s figures checked against the credit counted by
hand from what each was shown."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from precedente.harness import RunningStack
from precedente.services.search.interleaving import sign_test
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

OPEN = [
    "stj_resp_1433940_mg_acordao.pdf",
    "stj_resp_1543564_sp_acordao.pdf",
    "stj_resp_1602076_sp_acordao.pdf",
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
]
WALLED = "parecer_pgjmg_procon_16-2022.pdf"  # only "socios" may see it
QUERIES = ["recurso especial dano moral", "agravo de instrumento", "responsabilidade civil do fornecedor"]


def cli(
    stack: RunningStack, *args: str, key: str | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", "panel", *args], input=stdin, capture_output=True, text=True,
        timeout=300, env=stack.cli_env(key),
    )  # fmt: skip


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """A stack of its own: the panel's lists and credits are counted over exactly these documents (the suite's
    shared stack holds others, and other tests count what that one holds)."""
    with RunningStack(tmp_path_factory.mktemp("panel-cli")) as running:
        yield running


def test_panel_create_judge_and_report_on_a_real_stack(stack: RunningStack, tmp_path: Path) -> None:
    ids = {stack.upload(DOCS / name)["document_id"]: None for name in OPEN}
    walled_id = stack.upload(DOCS / WALLED, access="socios")["document_id"]
    stack.wait_final({**ids, walled_id: "socios"})
    ana = stack.headers("contencioso", user="ana")
    bruno = stack.headers("socios", user="bruno")
    queries = tmp_path / "queries.txt"
    queries.write_text("\n".join(QUERIES) + "\n", encoding="utf-8")

    made = cli(stack, "create", "--queries", str(queries), "--a", "current", "--b", "keyword", "--judges",
               "ana,bruno", "--depth", "5", "--seed", "11", "--json")  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr[-2000:]
    panel = json.loads(made.stdout)
    assert panel["queries"] == QUERIES and panel["b"]["lexical_only"] is True

    # ana at the terminal: "s" for the first result of each list, "n" for the rest.
    answers = ("s\n" + "n\n" * 4) * len(QUERIES) + "n\n" * 20  # a list may be shorter than 5
    judged = cli(stack, "judge", panel["id"], key=ana["Authorization"].split()[1], stdin=answers)
    assert judged.returncode == 0, judged.stdout[-3000:] + judged.stderr[-3000:]
    assert "consulta 1 de 3" in judged.stdout and f"all {len(QUERIES)} queries judged" in judged.stdout

    # bruno through the API: relevant where a result is the walled parecer or his list's second one.
    seen_by_bruno = set()
    while not (shown := stack.client.get(f"/panels/{panel['id']}/next", headers=bruno).json())["done"]:
        for result in shown["results"]:
            seen_by_bruno.add(result["document_id"])
            body = {"position": shown["position"], "shown_rank": result["shown_rank"],
                    "relevant": result["document_id"] == walled_id or result["shown_rank"] == 2}  # fmt: skip
            answer = stack.client.post(f"/panels/{panel['id']}/judgments", json=body, headers=bruno)
            assert answer.status_code in (200, 201), answer.text
    assert walled_id in seen_by_bruno  # the partners' list holds the parecer...
    ana_saw = stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel['id']}' AND judge = 'ana'"
                        f" AND document_id = '{walled_id}'")  # fmt: skip
    assert ana_saw.strip() == "0"  # ...ana's never did

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

    refused = cli(stack, "report", panel["id"], key=ana["Authorization"].split()[1])
    assert refused.returncode == 1 and "403" in refused.stderr
