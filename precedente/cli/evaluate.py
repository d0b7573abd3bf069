"""`precedente eval`: the command's options; the runs themselves are in precedente.cli.eval_runs, imported when
one starts (it starts a fresh stack through the harness, and loads numpy)."""

import logging
from pathlib import Path
from typing import Annotated

import httpx
import typer

from precedente import api_errors
from precedente.cli.common import SINCE_HELP, configure_logging, console, moment_since


def eval_command(
    corpus: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, title, text}.")
    ] = None,
    queries: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="JSON lines: {_id, text, group}.")
    ] = None,
    qrels: Annotated[
        Path | None, typer.Option(exists=True, dir_okay=False, help="TSV: query-id, corpus-id, score.")
    ] = None,
    run: Annotated[Path | None, typer.Option("--run", help="Write the ranking in TREC run format.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the metrics as JSON.")] = None,
    config: Annotated[str, typer.Option(help="A name for this configuration (the run tag).")] = "default",
    api: Annotated[str | None, typer.Option("--api", help="Use a running instance instead of a fresh one.")] = None,
    judgments: Annotated[
        bool,
        typer.Option(
            "--judgments",
            help="Measure on the firm's judgments (POST /judgments) of a running instance; needs an admin key.",
        ),
    ] = False,
    trec: Annotated[
        Path | None,
        typer.Option("--trec", help="With --judgments: write them as TREC qrels (and FILE's .queries.jsonl, .run)."),
    ] = None,
    apply: Annotated[
        bool,
        typer.Option(
            "--apply",
            help="With --judgments (admin): make the refit the relevance grade's active calibration; needs 200"
            " judged results, else nothing changes.",
        ),
    ] = False,
    reset: Annotated[
        bool, typer.Option("--reset", help="With --judgments (admin): the relevance grade as shipped again.")
    ] = False,
    since: Annotated[
        str | None,
        typer.Option(help="With --judgments: only the judgments made or changed since then. " + SINCE_HELP),
    ] = None,
) -> None:
    """Ingest a judged corpus through the pipeline and score every query through POST /search; or, with
    --judgments, re-run every query the firm's lawyers judged and measure the ranking on their judgments."""
    configure_logging()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if judgments:
        from precedente.cli.eval_runs import reset_calibration, run_judged_eval

        if apply and reset:
            raise typer.BadParameter("--apply or --reset, not both")
        try:
            if reset:
                reset_calibration(api=api, console=console)
            else:
                run_judged_eval(
                    api=api, json_path=json_out, trec_path=trec, console=console, apply=apply, since=moment_since(since)
                )
        except httpx.HTTPError as err:
            api_errors.fail(api_errors.explain(err))
        return
    if apply or reset or since:
        raise typer.BadParameter("--apply, --reset and --since go with --judgments")
    if corpus is None or queries is None or qrels is None:
        raise typer.BadParameter("--corpus, --queries and --qrels are needed (or --judgments)")
    from precedente.cli.eval_runs import run_eval

    run_eval(corpus, queries, qrels, api=api, run_path=run, json_path=json_out, config=config, console=console)
