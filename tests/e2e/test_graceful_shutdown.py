"""SIGTERM to a stage process mid-batch: it finishes the document in hand, commits, and nothing is lost or doubled."""

import json
import re
import signal
import time
from collections.abc import Iterator
from datetime import datetime

import psutil
import pymupdf
import pytest

from precedente.harness import RunningStack
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

PIPELINE = ["submitted", "extracted", "cleaned", "chunked", "annotated", "indexed"]
LINE_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ", re.MULTILINE)


def batch(count: int) -> list[tuple[str, bytes]]:
    """Two text pages and one image-only page (OCR: seconds in the extractor), each file its own content."""
    sources = sorted(DOCS.glob("*.pdf"))
    files = []
    for i in range(count):
        with pymupdf.open(sources[i % len(sources)]) as source:
            doc = pymupdf.open()
            doc.insert_pdf(source, from_page=0, to_page=1)
            scan = source[2]
            pix = scan.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
            doc.new_page(width=scan.rect.width, height=scan.rect.height).insert_image(scan.rect, pixmap=pix)
            doc.set_metadata({"title": f"sigterm {i}"})
            files.append((f"sigterm_{i:02}_{sources[i % len(sources)].name}", doc.tobytes()))
            doc.close()
    return files


def log_lines_between(log: str, start: float, end: float) -> list[str]:
    """The log lines stamped between two epoch times (the services log local time, to the millisecond)."""
    found = []
    for line in log.splitlines():
        match = LINE_TIME.match(line + " ")
        if match:
            at = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
            if start <= at <= end:
                found.append(line)
    return found


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    with RunningStack(
        tmp_path_factory.mktemp("sigterm"), {"PRECEDENTE_UP_REPLICAS": json.dumps({"indexer": 1})}
    ) as stack:
        yield stack


def test_sigterm_mid_batch_finishes_the_document_in_hand_and_loses_nothing(running: RunningStack) -> None:
    ids = {running.upload(content=data, filename=name)["document_id"]: name for name, data in batch(8)}

    # Wait until the extractor is in the middle of the batch: some documents extracted, others not yet.
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        stages = [running.status(d)["stage"] for d in ids]
        if sum(s != "submitted" for s in stages) >= 1 and stages.count("submitted") >= 3:
            break
        time.sleep(0.1)
    assert stages.count("submitted") >= 3, stages

    victim = running.service_process("extractor")
    log_before = len(running.service_log("extractor"))
    sent_at = time.time()
    victim.send_signal(signal.SIGTERM)
    gone, _ = psutil.wait_procs([victim], timeout=60)
    exited_at = time.time()
    assert gone, "the extractor did not stop within 60 s of SIGTERM"

    # It stopped on its own (FastStream's graceful shutdown), not killed, and the supervisor restarted it.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and "extractor exited" not in running.log_since_start():
        time.sleep(0.2)
    assert re.search(r"extractor exited with code 0\b", running.log_since_start()), running.log_tail()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            replacement = running.service_process("extractor")
            break
        except LookupError:
            time.sleep(0.2)
    assert replacement.pid != victim.pid

    statuses = running.wait_final({d: None for d in ids}, timeout=1200)
    assert {d: s["stage"] for d, s in statuses.items()} == dict.fromkeys(ids, "indexed"), statuses

    # Exactly one history entry per pipeline stage per document, and chunks stored once.
    for document_id, status in statuses.items():
        stages = [h["stage"] for h in status["history"]]
        assert stages == PIPELINE, (ids[document_id], stages)
        rows = running.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}'")
        distinct = running.sql(f"SELECT count(DISTINCT ordinal) FROM chunks WHERE document_id = '{document_id}'")
        assert rows == distinct == str(status["chunk_count"]), (ids[document_id], rows, distinct)

    # The document in hand when SIGTERM came was finished by the old process before it exited.
    after_signal = log_lines_between(running.service_log("extractor")[log_before:], sent_at, exited_at)
    finished = [line for line in after_signal if re.search(r"extractor: \S+ v1 ok in", line)]
    assert finished, "\n".join(after_signal)

    # Offsets were committed: no group has anything left to read.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        lags = {row["service"]: row["lag"] for row in running.client.get("/status").json()["pipeline"]}
        if set(lags.values()) == {0}:
            break
        time.sleep(0.5)
    assert set(lags.values()) == {0}, lags
