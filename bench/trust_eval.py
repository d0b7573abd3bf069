"""Trust in both directions, measured from outside as the testers do: judged queries through POST /search.

    PYTHONPATH=. .venv/bin/python bench/trust_eval.py --api http://127.0.0.1:PORT \
        --queries tests/data/paraphrase_queries.jsonl [--split test] [--json out.json] [--verbose]

For every judged query (tests/data/*_queries.jsonl: `relevant` file names, `kind` positive or negative/nonsense,
`split` train/test where the set has one) it asks the running search API for the top 5 and reads each result as a
lawyer does: the work is the one sought when its shown file or any of its listed copies is a relevant file. It
prints, per split: the document sought in the top 5 and first, positive queries told "Nada claramente relevante"
(no_strong_match) although the answer is in the base, and although it is on the screen; negative controls flagged;
and the first results graded "forte" that the judgments call relevant (issue 30's targets: top 5 >= 0.95, first
>= 0.70, told nothing <= 5%, controls flagged >= 85%, forte first right >= 0.85). A query whose relevant files are
not in the index is skipped and named. The credential is PRECEDENTE_API_KEY, else `--key-file`.
"""

import argparse
import json
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx

from precedente.credentials import PatientTransport


def load_queries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def filenames(client: httpx.Client) -> dict[str, str]:
    """Every visible indexed document's id and file name (GET /documents, 200 a page)."""
    names: dict[str, str] = {}
    offset = 0
    while True:
        params = {"limit": 200, "offset": offset, "stage": "indexed"}
        page = client.get("/documents", params=params).raise_for_status().json()
        for document in page["documents"]:
            names[document["document_id"]] = Path(document["filename"]).name
        offset += len(page["documents"])
        if not page["documents"] or offset >= page["total"]:
            return names


def result_files(result: dict[str, Any], names: dict[str, str]) -> set[str]:
    shown = {names.get(result["document_id"], "")}
    return (shown | {Path(copy["filename"]).name for copy in result.get("copies", [])}) - {""}


def judge(query: dict[str, Any], response: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    relevant = set(query.get("relevant", []))
    hits = [bool(result_files(r, names) & relevant) for r in response["results"]]
    grades = [r["relevance"] for r in response["results"]]
    return {
        "id": query["id"],
        "kind": query["kind"],
        "split": query.get("split", "all"),
        "query": query["query"],
        "hits": hits,
        "grades": grades,
        "flagged": bool(response.get("no_strong_match") or response.get("vague_query")),
        "first_title": response["results"][0]["document_title"] if response["results"] else None,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    positives = [r for r in rows if r["kind"] == "positive"]
    controls = [r for r in rows if r["kind"] != "positive"]
    firsts_strong = [r for r in rows if r["grades"] and r["grades"][0] == "forte"]
    on_screen = [r for r in positives if any(r["hits"])]

    def share(part: list[Any], whole: list[Any]) -> float | None:
        return round(len(part) / len(whole), 3) if whole else None

    return {
        "positives": len(positives),
        "sought_in_top5": share(on_screen, positives),
        "sought_first": share([r for r in positives if r["hits"][:1] == [True]], positives),
        "told_nothing": share([r for r in positives if r["flagged"]], positives),
        "told_nothing_while_on_screen": len([r for r in on_screen if r["flagged"]]),
        "controls": len(controls),
        "controls_flagged": share([r for r in controls if r["flagged"]], controls),
        "forte_first": len(firsts_strong),
        "forte_first_right": share([r for r in firsts_strong if r["hits"][:1] == [True]], firsts_strong),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", required=True)
    parser.add_argument("--queries", type=Path, action="append", required=True)
    parser.add_argument("--split", choices=("train", "test", "all"), default=None, help="Only this split.")
    parser.add_argument("--key-file", type=Path, help="The API key's file (a stack's <data-dir>/admin.key).")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    key = os.environ.get("PRECEDENTE_API_KEY") or (args.key_file.read_text().strip() if args.key_file else "")
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    with httpx.Client(base_url=args.api, headers=headers, timeout=120, transport=PatientTransport()) as client:
        names = filenames(client)
        indexed = set(names.values())
        for path in args.queries:
            for query in load_queries(path):
                if args.split and query.get("split", "all") != args.split:
                    continue
                if query["kind"] == "positive" and not set(query["relevant"]) & indexed:
                    skipped.append(query["id"])
                    continue
                body = {"query": query["query"], "top_k": 5}
                response = client.post("/search", json=body).raise_for_status().json()
                row = judge(query, response, names)
                row["set"] = path.stem
                rows.append(row)
                if args.verbose:
                    marks = "".join("+" if hit else "." for hit in row["hits"])
                    grades = ",".join(g[:2] for g in row["grades"])
                    flag = " NADA" if row["flagged"] else ""
                    line = f"{row['id']:6} {row['kind'][:3]} {row['split']:5} {marks:5} {grades:15}{flag}"
                    print(f"{line}  {query['query']}")
    by_group: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_group[f"{row['set']} / {row['split']}"].append(row)
        by_group[f"{row['set']} / every split"].append(row)
    report = {group: summary(group_rows) for group, group_rows in sorted(by_group.items())}
    report["skipped_not_indexed"] = skipped  # type: ignore[assignment]
    for group, figures in report.items():
        print(f"{group}: {figures}")
    if args.json:
        args.json.write_text(json.dumps({"summary": report, "queries": rows}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
