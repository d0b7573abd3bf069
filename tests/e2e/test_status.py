"""GET /status and `precedente status`: per-stage counts, consumer lag and the slowest documents."""

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pymupdf
import pytest

from precedente.services.search.broker_lag import consumer_lag
from precedente.shared.runtime.pipeline import NAMES as PIPELINE
from precedente.shared.settings import Settings
from tests.conftest import DOCS, RunningStack

SECRET = "sigilo-status"


def one_page_pdf(tag: str) -> bytes:
    with pymupdf.open(DOCS / "stj_resp_1433940_mg_acordao.pdf") as source:
        text = source[1].get_text()
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(50, 50, 545, 790), f"Status {tag}\n\n{text}", fontsize=9)
    data = doc.tobytes()
    doc.close()
    return data


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    with RunningStack(
        tmp_path_factory.mktemp("status"), {"PRECEDENTE_UP_REPLICAS": json.dumps({"indexer": 1})}
    ) as stack:
        yield stack


def pipeline(stack: RunningStack, groups: str | None = None) -> tuple[dict, dict[str, dict]]:
    report = stack.client.get("/status", headers=stack.headers(groups)).json()
    return report, {row["service"]: row for row in report["pipeline"]}


@pytest.mark.e2e
def test_status_counts_each_stage_lag_and_slowest_documents_within_the_access_list(observed: RunningStack) -> None:
    public = [
        observed.upload(content=one_page_pdf(f"p{i}"), filename=f"publico_{i}.pdf")["document_id"] for i in range(3)
    ]
    hidden = observed.upload(content=one_page_pdf("s"), filename="sigiloso.pdf", access=SECRET)["document_id"]
    broken = observed.upload(content=b"%PDF-1.7\n% nothing else", filename="quebrado.pdf")["document_id"]

    # While the batch moves: every stage's pending documents are either waiting or in progress. A group
    # that is rebalancing (a consumer joining) briefly reports no members: take a settled snapshot.
    deadline = time.monotonic() + 60
    _, rows = pipeline(observed)
    while any(row["members"] != 1 for row in rows.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
        _, rows = pipeline(observed)
    assert rows["extractor"]["pending"] + rows["extractor"]["done"] + rows["extractor"]["failed"] >= 1
    for row in rows.values():
        assert row["in_progress"] is not None and row["members"] == 1, row
        assert row["waiting"] + row["in_progress"] == row["pending"]
        assert row["in_progress"] <= row["members"]

    statuses = observed.wait_final({**dict.fromkeys([*public, broken]), hidden: SECRET}, timeout=600)
    assert [statuses[d]["stage"] for d in public] == ["indexed"] * 3
    assert statuses[hidden]["stage"] == "indexed" and statuses[broken]["stage"] == "failed"

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        report, rows = pipeline(observed)
        if all(row["lag"] == 0 for row in rows.values()):
            break
        time.sleep(0.5)
    assert report["lag_error"] is None
    assert list(rows) == list(PIPELINE)
    for name, row in rows.items():
        assert (row["lag"], row["waiting"], row["in_progress"], row["pending"]) == (0, 0, 0, 0), row
        assert row["consumer_group"] == f"precedente-{name}"
    # The caller sees three indexed documents and one that failed in the extractor, not the hidden one.
    assert [rows[n]["done"] for n in PIPELINE] == [3, 3, 3, 3, 3]
    assert rows["extractor"]["failed"] == 1 and sum(r["failed"] + r["in_review"] for r in rows.values()) == 1
    assert report["stages"] == {"indexed": 3, "failed": 1}
    _, insider = pipeline(observed, SECRET)
    assert [insider[n]["done"] for n in PIPELINE] == [4, 4, 4, 4, 4]

    slowest = report["slowest"]
    assert {s["document_id"] for s in slowest} == set(public)
    assert [s["total_seconds"] for s in slowest] == sorted((s["total_seconds"] for s in slowest), reverse=True)
    for item in slowest:
        assert set(item["stage_seconds"]) == set(PIPELINE)
        assert abs(sum(item["stage_seconds"].values()) - item["total_seconds"]) < 0.05
        assert item["slowest_stage_seconds"] == max(item["stage_seconds"].values())
    insider_report, _ = pipeline(observed, SECRET)
    assert hidden in {s["document_id"] for s in insider_report["slowest"]}

    # The command line: --json is the same report, and the tables name every stage.
    cli = [sys.executable, "-m", "precedente.cli", "status", "--api", observed.url]
    printed = json.loads(
        subprocess.run([*cli, "--json"], capture_output=True, text=True, check=True, env=observed.cli_env()).stdout
    )
    assert [row["service"] for row in printed["pipeline"]] == list(PIPELINE)
    assert printed["stages"] == report["stages"]
    table = subprocess.run(
        cli, capture_output=True, text=True, check=True, env={**observed.cli_env(), "COLUMNS": "200"}
    ).stdout
    assert "etapas" in table and "mais lentos da última hora" in table  # the CLI speaks Portuguese (issue 36)
    for name in PIPELINE:
        assert name in table


def test_consumer_lag_gives_up_quickly_when_the_broker_is_unreachable() -> None:
    started = time.monotonic()
    with pytest.raises(Exception):  # noqa: B017, PT011 - any error: the route reports it in lag_error
        asyncio.run(consumer_lag(Settings(kafka_bootstrap="127.0.0.1:9"), timeout=2))
    assert time.monotonic() - started < 5


def test_the_search_service_runs_without_the_pdf_layout_model(observed: RunningStack) -> None:
    """Only the extractor's table finder uses pymupdf's ONNX layout model: a search replica never loads it."""

    def loads_onnxruntime(service: str) -> bool:
        return any("onnxruntime" in region.path for region in observed.service_process(service).memory_maps())

    deadline = time.monotonic() + 60  # the stack answers before the extractor is done importing
    while not loads_onnxruntime("extractor"):  # what the check sees where the model is loaded
        assert time.monotonic() < deadline, "the extractor never loaded pymupdf's layout model"
        time.sleep(0.5)
    assert not loads_onnxruntime("search")  # up and answering: its imports are done
