"""`precedente panel`: a blind panel as the firm ran one by hand, through the API (services/search/routers/panels.py).

`create` makes one (administrators): the queries of a file ranked by two configurations; `judge` lets an invited
judge go through it at the terminal, one merged list at a time, without knowing which configuration picked what;
`report` says which configuration won, query by query, with the sign test.
"""

import json
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from precedente import api_errors
from precedente.credentials import api_client

panel_app = typer.Typer(
    help="Blind panels: judges mark results of two rankings merged by team-draft interleaving; the report says"
    " which ranking won, with a sign test.",
    no_args_is_help=True,
)
console = Console()
SIGNIFICANCE = 0.05
PRESETS = ("current", "keyword")

ApiOption = Annotated[str | None, typer.Option("--api", help="Search API URL (default PRECEDENTE_API_URL).")]
ConfigurationHelp = (
    '"current" (what POST /search runs), "keyword" (full-text matches ranked by BM25 only), or other weights of the'
    ' current ranking: "NAME:dense_weight=0.5,lead_weight=0" (the fields of services/search/engine/ranking.py Ranking).'
)


def read_queries(path: Path) -> list[str]:
    """One query per line, or a JSON line's "query" or "text" (JurisTCU's queries.jsonl); blank and # lines
    skipped, a repeated query kept once."""
    queries = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            row = json.loads(line)
            line = str(row.get("query") or row.get("text") or "").strip()
        if line:
            queries.append(line)
    return list(dict.fromkeys(queries))


def _value(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def parse_configuration(spec: str) -> str | dict[str, Any]:
    """A preset's name, or {"name", "weights"} from "NAME:key=value,key=value" (NAME defaults to the spec)."""
    spec = spec.strip()
    if spec in PRESETS:
        return spec
    name, colon, rest = spec.partition(":")
    if not colon:
        name, rest = spec, spec
    weights: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise typer.BadParameter(f"{spec!r}: expected current, keyword or NAME:key=value,... ({part!r})")
        weights[key.strip()] = _value(value.strip())
    if not weights:
        raise typer.BadParameter(f"{spec!r}: no weights given")
    return {"name": name.strip() or spec, "weights": weights}


def _check(response: Any) -> Any:
    return api_errors.check(response).json()


@panel_app.command("create")
def create_command(
    queries: Annotated[Path, typer.Option("--queries", exists=True, dir_okay=False, help="One query per line.")],
    a: Annotated[str, typer.Option("--a", help=f"Configuration A: {ConfigurationHelp}")] = "current",
    b: Annotated[str, typer.Option("--b", help="Configuration B, as --a.")] = "keyword",
    judges: Annotated[str, typer.Option("--judges", help="Comma-separated invited judges (users).")] = "",
    depth: Annotated[int, typer.Option("--depth", min=1, max=50, help="Results shown per query.")] = 10,
    name: Annotated[str | None, typer.Option("--name", help="What judges see it called (not A, B).")] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="The interleaving's coins (random).")] = None,
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the panel as JSON.")] = False,
) -> None:
    """Make a panel of the file's queries, A against B (needs an administrator's credential)."""
    texts = read_queries(queries)
    if not texts:
        raise typer.BadParameter(f"{queries}: no queries")
    body: dict[str, Any] = {
        "queries": texts,
        "a": parse_configuration(a),
        "b": parse_configuration(b),
        "judges": [j.strip() for j in judges.split(",") if j.strip()],
        "depth": depth,
    }
    if name:
        body["name"] = name
    if seed is not None:
        body["seed"] = seed
    with api_client(api) as client:
        panel = _check(client.post("/panels", json=body))
    if as_json:
        sys.stdout.write(json.dumps(panel, ensure_ascii=False, indent=2) + "\n")
        return
    invited = ", ".join(panel["judges"]) or "administrators only"
    console.print(
        f"panel {panel['id']}: {len(panel['queries'])} queries, A = {panel['a']['name']}, B = {panel['b']['name']},"
        f" {panel['depth']} results each; judges: {invited}",
        markup=False,
    )
    console.print(f"judges run: precedente panel judge {panel['id']}", markup=False)


def _verdict(report: dict[str, Any]) -> str:
    a, b = report["panel"]["a"]["name"], report["panel"]["b"]["name"]
    p = report["p_value"]
    if report["winner"] == "tie":
        return f"no winner: A ({a}) and B ({b}) won as many queries (sign test p = {p:.3g})"
    won = a if report["winner"] == "a" else b
    side = report["winner"].upper()
    significant = "significant" if p < SIGNIFICANCE else "not significant"
    return f"{side} ({won}) won: sign test p = {p:.3g}, {significant} at {SIGNIFICANCE}"


def print_report(report: dict[str, Any], out: Console) -> None:
    panel = report["panel"]
    table = Table(title=f"panel {panel['id']}: A = {panel['a']['name']}, B = {panel['b']['name']}")
    for column in ("#", "query", "judges", "judged", "A", "B", "winner"):
        table.add_column(column, justify="left" if column == "query" else "right")
    for q in report["per_query"]:
        text = q["query"] if len(q["query"]) <= 60 else q["query"][:59] + "…"
        winner = {"a": "A", "b": "B", "tie": "tie", None: "-"}[q["winner"]]
        table.add_row(str(q["position"]), text, str(q["judges"]), f"{q['judged']}/{q['shown']}", str(q["credit_a"]),
                      str(q["credit_b"]), winner)  # fmt: skip
    out.print(table)
    out.print(
        f"queries won: A {report['wins_a']}, B {report['wins_b']}, ties {report['ties']}, not judged"
        f" {report['unjudged']}; relevant picks: A {report['credit_a']}, B {report['credit_b']}",
        markup=False,
    )
    out.print(_verdict(report), markup=False)


@panel_app.command("report")
def report_command(
    panel_id: Annotated[str, typer.Argument(help="The panel's id (from `panel create`).")],
    api: ApiOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Per query, each configuration's relevant picks (team-draft credit) and the winner; the totals and a two-sided
    sign test over the queries with a winner (needs an administrator's credential)."""
    with api_client(api) as client:
        report = _check(client.get(f"/panels/{panel_id}/report"))
    if as_json:
        sys.stdout.write(json.dumps(report, ensure_ascii=False, indent=2) + "\n")
        return
    print_report(report, console)


ANSWERS = {"s": True, "r": True, "n": False, "p": None}


def _show(result: dict[str, Any], width: int) -> None:
    head = result.get("citation") or result["document_title"]
    where = " · ".join(x for x in (result.get("document_type_label"), result.get("court_label"),
                                   result.get("document_date"), f"p. {result.get('page_number')}") if x)  # fmt: skip
    console.print(f"\n[{result['shown_rank']}] {head}", markup=False, style="bold")
    if where:
        console.print(f"    {where}", markup=False)
    passage = " ".join(result["chunk_text"].split())
    passage = passage if len(passage) <= 900 else passage[:899] + "…"
    for line in textwrap.wrap(passage, width=max(width - 4, 40)):
        console.print(f"    {line}", markup=False)


@panel_app.command("judge")
def judge_command(
    panel_id: Annotated[str, typer.Argument(help="The panel's id.")],
    api: ApiOption = None,
    position: Annotated[int | None, typer.Option("--position", min=1, help="Judge this query again.")] = None,
) -> None:
    """Go through the panel at the terminal: each query's merged list, "relevante?" for each result
    (s = sim/relevante, n = não relevante, p = pular, q = sair). Judging again changes a judgment."""
    width = shutil.get_terminal_size((100, 24)).columns
    with api_client(api) as client:
        while True:
            params = {"position": position} if position else {}
            shown = _check(client.get(f"/panels/{panel_id}/next", params=params))
            if shown["done"]:
                console.print(f"panel {panel_id}: all {shown['queries']} queries judged. Obrigado!", markup=False)
                return
            console.rule(f"consulta {shown['position']} de {shown['queries']} ({shown['judged_queries']} concluídas)")
            console.print(shown["query"], markup=False, style="bold")
            if not shown["results"]:
                console.print("(no results to judge for this query)", markup=False)
            skipped = False
            for result in shown["results"]:
                if result["relevant"] is not None and position is None:
                    continue  # judged before: `--position N` goes over it again
                _show(result, width)
                answer = ""
                while answer not in (*ANSWERS, "q"):
                    answer = typer.prompt("    relevante? [s/n/p/q]", default="p").strip().lower()[:1]
                if answer == "q":
                    return
                if ANSWERS[answer] is None:
                    skipped = True
                    continue
                body = {"position": shown["position"], "shown_rank": result["shown_rank"], "relevant": ANSWERS[answer]}
                _check(client.post(f"/panels/{panel_id}/judgments", json=body))
            if position is not None:
                return  # the one query asked for
            if skipped:  # the next list would be this one again
                again = f"`precedente panel judge {panel_id} --position {shown['position']}`"
                console.print(f"skipped results stay open: {again} comes back to them", markup=False)
                return
