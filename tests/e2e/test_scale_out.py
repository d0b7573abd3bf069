"""Two extractor processes in one consumer group split the partitions and extract every document once."""

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from precedente.harness import RunningStack
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

DOCUMENTS = 12
ASSIGNED = re.compile(r"assigned to partitions: \((.*)\)")


def small_pdfs(count: int, tag: str) -> list[tuple[str, bytes]]:
    """One-page text PDFs written from the sample documents' page texts, each with its own content."""
    texts = []
    for path in sorted(DOCS.glob("*.pdf")):
        with pymupdf.open(path) as source:
            texts.extend(page.get_text() for page in source if len(page.get_text().strip()) > 400)
    files = []
    for i in range(count):
        doc = pymupdf.open()
        page = doc.new_page()
        page.insert_textbox(
            pymupdf.Rect(50, 50, 545, 790), f"Documento {tag}-{i}\n\n{texts[i % len(texts)]}", fontsize=9
        )
        files.append((f"escala_{tag}_{i:02}.pdf", doc.tobytes()))
        doc.close()
    return files


def assignments(log: str) -> list[set[int]]:
    """Every partition assignment a consumer logged, in order."""
    return [{int(p) for p in re.findall(r"partition=(\d+)", match)} for match in ASSIGNED.findall(log)]


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    replicas = json.dumps({"extractor": 2, "indexer": 1})
    with RunningStack(tmp_path_factory.mktemp("scaled"), {"PRECEDENTE_UP_REPLICAS": replicas}) as running:
        yield running


def test_two_extractors_split_the_partitions_and_extract_each_document_once(scaled: RunningStack) -> None:
    assert len(scaled.service_processes("extractor")) == 2

    # Both replicas joined the group: each holds partitions, none twice, all of them covered.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        held = [assignments(scaled.service_log("extractor", r)) for r in (0, 1)]
        if all(h and h[-1] for h in held) and not held[0][-1] & held[1][-1]:
            break
        time.sleep(0.5)
    first, second = held[0][-1], held[1][-1]
    partitions = int(scaled.env.get("PRECEDENTE_TOPIC_PARTITIONS", "4"))
    assert first and second and not first & second, held
    assert first | second == set(range(partitions)), held
    rebalances = [len(h) for h in held]

    ids = {scaled.upload(content=data, filename=name)["document_id"]: name for name, data in small_pdfs(DOCUMENTS, "a")}
    statuses = scaled.wait_final({d: None for d in ids}, timeout=900)
    assert {d: s["stage"] for d, s in statuses.items()} == dict.fromkeys(ids, "indexed")

    # No rebalance happened while they worked: each replica kept the partitions it logged.
    held = [assignments(scaled.service_log("extractor", r)) for r in (0, 1)]
    assert [len(h) for h in held] == rebalances, held

    # The ledger: exactly one `extracted` entry per document version.
    ids_sql = ",".join(f"'{d}'" for d in ids)
    extracted = scaled.sql(
        "SELECT json_agg(json_build_array(document_id, n)) FROM (SELECT document_id, count(*) AS n"
        f" FROM document_history WHERE stage = 'extracted' AND document_id IN ({ids_sql})"
        " GROUP BY document_id, version) AS per_version"
    )
    counts = {d: n for d, n in json.loads(extracted)}
    assert counts == dict.fromkeys(ids, 1), counts

    # Each replica's log names the documents it handled: together all of them, none in both.
    handled = []
    for replica in (0, 1):
        log = scaled.service_log("extractor", replica)
        handled.append({d for d in ids if re.search(rf"extractor: {d} v1 ok in", log)})
    assert handled[0] and handled[1], "both replicas must have worked (12 documents over 4 partitions)"
    assert not handled[0] & handled[1]
    assert handled[0] | handled[1] == set(ids)

    # And each document was handled by the replica holding the partition its submission landed on.
    partition_of = {
        r["value"]["document_id"]: r["partition"]
        for r in scaled.topic_records("documents.submitted")
        if r["value"]["document_id"] in ids
    }
    assert Counter(partition_of.values()).keys() <= first | second
    for replica, owned in ((0, first), (1, second)):
        assert {d for d in handled[replica]} == {d for d, p in partition_of.items() if p in owned}

    # Offsets are committed: the extractor group has no lag left, and the status says so.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        report = scaled.client.get("/status").json()
        extractor = next(row for row in report["pipeline"] if row["service"] == "extractor")
        if extractor["lag"] == 0:
            break
        time.sleep(0.5)
    assert extractor["lag"] == 0 and extractor["members"] == 2, extractor
    assert extractor["done"] >= DOCUMENTS and extractor["waiting"] == 0


def test_a_stage_consumer_prefetches_a_bounded_share_of_a_backlog(tmp_path: Path) -> None:
    """Back-pressure: with a backlog of 10,000 events waiting, a consumer built with the stages' fetch
    bounds holds at most one bounded fetch per partition; the backlog stays in the broker.

    Tansu applies the byte bounds loosely (whole record batches): measured, about 1,100 events of 1 KB
    per partition at 256 KiB, whatever the backlog (about 5,500 with aiokafka's defaults). Kafka applies
    them exactly (beyond the first batch)."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    from precedente.shared.infra.embedded import EmbeddedBroker
    from precedente.shared.runtime.broker import CONSUMER_FETCH_BOUNDS

    event = json.dumps({"document_id": "x", "pages_key": "k" * 900}).encode()  # a claim-check event, ~1 KB
    backlog = 10_000
    broker = EmbeddedBroker(logfile=tmp_path / "broker.log")
    bootstrap = broker.start()

    async def measure() -> tuple[int, int]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        await admin.create_topics([NewTopic("backlog", num_partitions=2, replication_factor=1)])
        await admin.close()
        producer = AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all", enable_idempotence=False)
        await producer.start()
        for i in range(backlog):
            await producer.send("backlog", event, partition=i % 2)
        await producer.flush()
        await producer.stop()
        consumer = AIOKafkaConsumer(
            "backlog",
            bootstrap_servers=bootstrap,
            group_id="slow-stage",
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            **CONSUMER_FETCH_BOUNDS,
        )
        await consumer.start()
        try:
            await consumer.getone()  # a slow stage: one event taken, then busy for a while
            await asyncio.sleep(3)  # time enough for any further prefetching to happen
            buffered = consumer._fetcher._records  # noqa: SLF001 - the prefetch buffer is what is measured
            held = sum(len(list(result._partition_records or [])) for result in buffered.values())  # noqa: SLF001
            return held, len(buffered)
        finally:
            await consumer.stop()

    try:
        held, partitions = asyncio.run(measure())
    finally:
        broker.stop()
    assert partitions <= 2
    assert 0 < held * len(event) <= 4 * CONSUMER_FETCH_BOUNDS["fetch_max_bytes"], held
    assert held < backlog // 3, held
