"""Observability end to end: one document is one trace, /metrics counts it, logs carry its ids.

A real `precedente up` with the JSON-lines span exporter and JSON logs: a native PDF and a slice
of a scanned one are uploaded, and the spans every service wrote to <data_dir>/logs/traces.jsonl
are read back.
"""

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest
from prometheus_client.parser import text_string_to_metric_families

from precedente.harness import RunningStack
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

NATIVE = DOCS / "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
SCAN = DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf"
SCAN_PAGES = 5  # two OCR batch spans: pages 1-4 and 5 (services/extractor/service.py OCR_BATCH_PAGES)
CHAIN = ["submit", "extract", "clean", "chunk", "annotate", "index"]


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    env = {
        "PRECEDENTE_TELEMETRY_EXPORTER": "jsonl",
        "PRECEDENTE_LOG_FORMAT": "json",
        "PRECEDENTE_LAG_INTERVAL_S": "1",
    }
    stack = RunningStack(tmp_path_factory.mktemp("traced"), extra_env=env)
    stack.env.pop("PRECEDENTE_TELEMETRY_FILE", None)  # `up` picks <data_dir>/logs/traces.jsonl
    with stack:
        yield stack


def scan_slice() -> bytes:
    with pymupdf.open(SCAN) as scan, pymupdf.open() as part:
        part.insert_pdf(scan, from_page=0, to_page=SCAN_PAGES - 1)
        return part.tobytes()


@pytest.fixture(scope="module")
def ingested(traced: RunningStack) -> dict[str, dict[str, Any]]:
    native = traced.upload(NATIVE)["document_id"]
    scan = traced.upload(content=scan_slice(), filename="scan.pdf")["document_id"]
    statuses = traced.wait_final({native: None, scan: None}, timeout=600)
    return {
        name: {
            **statuses[document_id],
            "trace_id": traced.sql(f"SELECT trace_id FROM documents WHERE id = '{document_id}'"),
        }
        for name, document_id in (("native", native), ("scan", scan))
    }


def read_spans(stack: RunningStack, until: Any = None, timeout: float = 15) -> list[dict[str, Any]]:
    path = stack.data_dir / "logs" / "traces.jsonl"
    deadline = time.monotonic() + timeout
    while True:
        spans = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        if until is None or until(spans) or time.monotonic() > deadline:
            return spans
        time.sleep(0.3)


def metrics(url: str) -> dict[str, float]:
    """Every sample of a /metrics page, as 'name{label="value",...}' -> value."""
    samples: dict[str, float] = {}
    for family in text_string_to_metric_families(httpx.get(url, timeout=10).text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}"] = sample.value
    return samples


def total(samples: dict[str, float], name: str, **labels: str) -> float:
    wanted = [f'{k}="{v}"' for k, v in labels.items()]
    return sum(v for key, v in samples.items() if key.startswith(name + "{") and all(w in key for w in wanted))


def test_one_document_is_one_trace_from_submit_to_index(
    traced: RunningStack, ingested: dict[str, dict[str, Any]]
) -> None:
    native = ingested["native"]
    assert native["stage"] == "indexed", native["error"]
    trace_id = native["trace_id"]
    spans = read_spans(traced, lambda found: any(s["name"] == "index" and s["trace_id"] == trace_id for s in found))
    mine = [s for s in spans if s["trace_id"] == trace_id]
    by_name = {s["name"]: s for s in mine}
    assert set(CHAIN) <= set(by_name), sorted(by_name)

    chain = [by_name[name] for name in CHAIN]
    for parent, child in zip(chain, chain[1:], strict=False):
        assert child["parent_span_id"] == parent["span_id"], (child["name"], parent["name"])
        assert child["start_ns"] >= parent["start_ns"]
    for span in chain:
        assert span["attributes"]["precedente.document_id"] == native["document_id"]
        assert span["status"] != "ERROR"
    for span in chain[1:]:
        assert span["attributes"]["precedente.version"] == native["version"]
        assert span["attributes"]["precedente.outcome"] == "ok"
        assert span["kind"] == "CONSUMER"
    assert [s["service"] for s in chain] == [
        "precedente-search",
        "precedente-extractor",
        "precedente-cleaner",
        "precedente-chunker",
        "precedente-annotator",
        "precedente-indexer",
    ]
    # The upload request is the root: "submit" is the child of the server span of POST /documents.
    (request,) = [s for s in mine if s["span_id"] == by_name["submit"]["parent_span_id"]]
    assert request["name"] == "POST /documents" and request["kind"] == "SERVER" and request["parent_span_id"] is None
    # The events carry the same trace id as the trace (the ledger's copy was read above).
    indexed = [m for m in traced.topic_messages("documents.indexed") if m["document_id"] == native["document_id"]]
    assert indexed and all(m["trace_id"] == trace_id for m in indexed)


def test_a_scanned_pdf_has_ocr_batch_spans_under_its_extract_span(
    traced: RunningStack, ingested: dict[str, dict[str, Any]]
) -> None:
    scan = ingested["scan"]
    trace_id = scan["trace_id"]
    spans = read_spans(traced, lambda found: any(s["name"] == "extract" and s["trace_id"] == trace_id for s in found))
    mine = [s for s in spans if s["trace_id"] == trace_id]
    (extract,) = [s for s in mine if s["name"] == "extract"]
    batches = sorted((s for s in mine if s["name"] == "ocr_batch"), key=lambda s: s["start_ns"])
    assert [b["attributes"]["precedente.ocr.pages"] for b in batches] == [[1, 2, 3, 4], [5]]
    for batch in batches:
        assert batch["parent_span_id"] == extract["span_id"]
        assert extract["start_ns"] <= batch["start_ns"] < batch["end_ns"] <= extract["end_ns"]
        assert 0 < batch["attributes"]["precedente.ocr.mean_confidence"] <= 1
    assert extract["attributes"]["precedente.outcome"] in ("ok", "review")


def test_metrics_of_the_search_service_and_a_stage_service(
    traced: RunningStack, ingested: dict[str, dict[str, Any]]
) -> None:
    traced.search("agravo de instrumento")
    targets = json.loads((traced.data_dir / "metrics-ports.json").read_text())
    assert set(targets) >= {"search-0", "extractor-0", "cleaner-0", "chunker-0", "annotator-0", "indexer-0"}

    search = metrics(targets["search-0"])
    assert total(search, "precedente_documents_submitted_total", outcome="new") >= 2
    assert total(search, "precedente_search_duration_seconds_count", outcome="ok") >= 1
    assert total(search, "precedente_search_results_count") >= 1
    assert total(search, "precedente_search_results_sum") >= 1

    extractor = metrics(targets["extractor-0"])
    assert total(extractor, "precedente_documents_processed_total", stage="extractor") >= 2
    assert total(extractor, "precedente_documents_processed_total", stage="extractor", outcome="ok") >= 1
    assert total(extractor, "precedente_pages_processed_total", method="ocr") == SCAN_PAGES
    assert total(extractor, "precedente_pages_processed_total", method="text") >= 7
    assert total(extractor, "precedente_ocr_confidence_count") == SCAN_PAGES
    assert total(extractor, "precedente_stage_duration_seconds_count", stage="extractor") >= 2

    deadline = time.monotonic() + 20  # the lag is measured every second: all caught up after ingestion
    lag: dict[str, float] = {}
    while time.monotonic() < deadline:
        lag = {k: v for k, v in metrics(targets["extractor-0"]).items() if k.startswith("precedente_consumer_lag{")}
        if lag and all(v == 0 for v in lag.values()):
            break
        time.sleep(1)
    assert lag and all('group="precedente-extractor"' in key and "documents.submitted" in key for key in lag)
    assert all(v == 0 for v in lag.values()), lag

    indexer = metrics(targets["indexer-0"]) if "indexer-0" in targets else {}
    indexed = total(indexer, "precedente_documents_processed_total", stage="indexer", outcome="ok")
    if "indexer-1" in targets:
        indexed += total(metrics(targets["indexer-1"]), "precedente_documents_processed_total", outcome="ok")
    assert indexed >= 1


def test_a_search_continues_the_callers_trace(traced: RunningStack) -> None:
    caller_trace, caller_span = uuid.uuid4().hex, "00f067aa0ba902b7"
    response = traced.client.post(
        "/search",
        json={"query": "agravo de instrumento", "top_k": 3},
        headers={"traceparent": f"00-{caller_trace}-{caller_span}-01"},
    )
    assert response.status_code == 200, response.text
    spans = read_spans(traced, lambda found: any(s["trace_id"] == caller_trace for s in found))
    (server,) = [s for s in spans if s["trace_id"] == caller_trace]
    assert server["name"] == "POST /search" and server["kind"] == "SERVER"
    assert server["parent_span_id"] == caller_span
    assert server["attributes"]["precedente.search.results"] == len(response.json()["results"])
    assert "agravo" not in json.dumps(server)  # the query's text is never recorded


def test_json_logs_carry_the_document_and_trace_ids(traced: RunningStack, ingested: dict[str, dict[str, Any]]) -> None:
    native = ingested["native"]
    records = []
    for line in (Path(traced.data_dir) / "logs" / "cleaner.log").read_text().splitlines():
        if line.startswith("{"):
            records.append(json.loads(line))
    assert records and all({"time", "level", "logger", "message"} <= set(r) for r in records)
    mine = [r for r in records if r.get("document_id") == native["document_id"]]
    assert mine, records[-5:]
    assert all(r["trace_id"] == native["trace_id"] and r["service"] == "cleaner" for r in mine)


def test_a_search_through_the_gateway_is_one_trace(traced: RunningStack) -> None:
    if "web page on" not in traced.log_since_start():
        pytest.fail("the gateway is not built: run `make install` (npm run build in services/gateway)")
    gateway = traced.page_url()
    caller_trace, caller_span = uuid.uuid4().hex, "0123456789abcdef"
    session = traced.headers(None, user="ana")["Authorization"].removeprefix("Bearer ")  # a signed-in lawyer
    answer = httpx.post(
        f"{gateway}/api/search",
        json={"query": "agravo de instrumento", "top_k": 2},
        headers={"traceparent": f"00-{caller_trace}-{caller_span}-01", "Cookie": f"precedente_session={session}"},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text
    spans = read_spans(traced, lambda found: any(s["trace_id"] == caller_trace for s in found))
    (server,) = [s for s in spans if s["trace_id"] == caller_trace]
    assert server["name"] == "POST /search" and server["parent_span_id"] == caller_span

    before = {s["span_id"] for s in read_spans(traced)}
    cookie = {"Cookie": f"precedente_session={session}"}
    assert (
        httpx.post(f"{gateway}/api/search", json={"query": "recurso especial"}, headers=cookie, timeout=60).status_code
        == 200
    )
    started = read_spans(
        traced, lambda found: any(s["name"] == "POST /search" and s["span_id"] not in before for s in found)
    )
    (new,) = [s for s in started if s["name"] == "POST /search" and s["span_id"] not in before]
    assert new["parent_span_id"] is not None  # the gateway started the trace and passed it on
