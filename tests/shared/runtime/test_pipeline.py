"""shared/runtime/pipeline.py, the one declaration of the stages: it must be a connected chain and every reader must
agree."""

import re
import uuid
from pathlib import Path

import pytest

from precedente import stack
from precedente.shared.contracts import EVENT_BY_TOPIC, TERMINAL_STAGES, DocumentExtracted, Stage, Topic
from precedente.shared.runtime import ledger, pipeline, telemetry
from precedente.shared.runtime.stage import load_service

ROOT = Path(__file__).resolve().parents[3]
OFF_CHAIN = {Stage.REVIEW, Stage.FAILED, Stage.DELETED}


def test_the_stages_form_one_chain_from_submitted_to_indexed() -> None:
    first, last = pipeline.STAGES[0], pipeline.STAGES[-1]
    assert (first.input_topic, first.input_stage) == (Topic.SUBMITTED, Stage.SUBMITTED)
    assert (last.output_topic, last.output_stage) == (Topic.INDEXED, Stage.INDEXED)
    for before, after in zip(pipeline.STAGES, pipeline.STAGES[1:], strict=False):
        assert before.output_topic == after.input_topic, (before.name, after.name)
        assert before.output_stage == after.input_stage, (before.name, after.name)
    topics = [s.input_topic for s in pipeline.STAGES] + [last.output_topic]
    assert len(set(topics)) == len(topics), "a topic read by two stages would make a loop"


def test_names_spans_and_groups_are_unique() -> None:
    for values in (
        pipeline.NAMES,
        [s.span for s in pipeline.STAGES],
        [s.group_id for s in pipeline.STAGES],
        [s.module for s in pipeline.STAGES],
    ):
        assert len(set(values)) == len(values), values
    assert pipeline.NAMES == ("extractor", "cleaner", "chunker", "annotator", "indexer")


def test_every_durable_ledger_stage_is_on_the_chain_in_order() -> None:
    assert set(pipeline.LEDGER_ORDER) == set(Stage) - OFF_CHAIN
    assert [s.value for s in pipeline.LEDGER_ORDER] == [
        "submitted", "extracted", "cleaned", "chunked", "annotated", "indexed",
    ]  # fmt: skip
    assert {pipeline.LEDGER_ORDER[-1]} == TERMINAL_STAGES - OFF_CHAIN, "only the chain's end is final"
    for i, stage in enumerate(pipeline.LEDGER_ORDER):
        assert pipeline.ledger_position(stage) == i
    with pytest.raises(ValueError):
        pipeline.ledger_position(Stage.REVIEW)


@pytest.mark.parametrize("declared", pipeline.STAGES, ids=pipeline.NAMES)
def test_each_modules_service_is_the_declared_stage(declared: pipeline.PipelineStage) -> None:
    service = load_service(declared.name)
    assert (service.name, service.input_topic, service.input_stage, service.output_stage) == (
        declared.name,
        declared.input_topic,
        declared.input_stage,
        declared.output_stage,
    )
    assert service.group_id == declared.group_id == f"precedente-{declared.name}"
    assert declared.input_topic in EVENT_BY_TOPIC and declared.output_topic in EVENT_BY_TOPIC


def test_helpers_find_stages_by_name_position_and_ledger_stage() -> None:
    assert [pipeline.position(n) for n in pipeline.NAMES] == list(range(len(pipeline.STAGES)))
    assert pipeline.next_stage("extractor") is pipeline.by_name("cleaner")
    assert pipeline.next_stage("indexer") is None
    assert pipeline.consuming(Stage.CHUNKED) is pipeline.by_name("annotator")
    assert pipeline.recording(Stage.CHUNKED) is pipeline.by_name("chunker")
    assert pipeline.consuming(Stage.INDEXED) is None and pipeline.recording(Stage.SUBMITTED) is None
    assert pipeline.consuming(Stage.REVIEW) is None and pipeline.recording(Stage.FAILED) is None
    with pytest.raises(KeyError, match="extractor, cleaner"):
        pipeline.by_name("search")


def test_the_readers_take_the_declaration() -> None:
    assert list(pipeline.NAMES) == stack.PIPELINE_SERVICES
    assert telemetry.STAGE_SPANS == {
        "extractor": "extract", "cleaner": "clean", "chunker": "chunk", "annotator": "annotate", "indexer": "index",
    }  # fmt: skip


def ledger_row(stage: Stage) -> dict:
    return {
        "id": uuid.uuid4(), "version": 1, "trace_id": "t", "stage": stage.value, "blob_key": "originals/ab",
        "filename": "a.pdf", "content_type": None, "content_hash": "ab", "size_bytes": 3, "source": "dms",
        "access_groups": ["*"], "hints": {}, "page_count": 1, "ocr_pages": [], "ocr_confidence": None,
        "chunk_count": 2,
    }  # fmt: skip


@pytest.mark.parametrize("declared", pipeline.STAGES, ids=pipeline.NAMES)
def test_a_document_resumes_into_the_stage_that_consumes_its_ledger_stage(declared: pipeline.PipelineStage) -> None:
    found = ledger.resume_event(ledger_row(declared.input_stage))
    assert found is not None
    topic, event = found
    assert topic == declared.input_topic and isinstance(event, EVENT_BY_TOPIC[declared.input_topic])


@pytest.mark.parametrize("declared", pipeline.STAGES, ids=pipeline.NAMES)
def test_the_ledger_guard_follows_the_chain(declared: pipeline.PipelineStage) -> None:
    """A stage acts on a document at its input or output stage, and on nothing past its output."""
    event = DocumentExtracted(document_id=uuid.uuid4(), version=1, pages_key="k", page_count=1, confidence=1)
    at = pipeline.position(declared.name)
    for i, stage in enumerate(pipeline.LEDGER_ORDER):
        row = {"stage": stage.value, "version": 1}
        got = ledger.is_stale_or_done(row, event, declared.input_stage, declared.output_stage)
        assert got is (i > at + 1), (declared.name, stage)  # past its output (a redelivery): skipped


def test_the_labels_are_the_gateways() -> None:
    """The gateway (TypeScript) names the ledger stages for users: the declaration must say the same."""
    source = (ROOT / "services" / "gateway" / "lib" / "format.ts").read_text(encoding="utf-8")
    block = re.search(r"STAGE_LABELS[^{]*\{(.*?)\};", source, re.S)
    assert block is not None
    shown = dict(re.findall(r"(\w+):\s*\"([^\"]+)\"", block.group(1)))
    assert {stage.value: label for stage, label in pipeline.LEDGER_LABELS.items()} == {
        stage.value: shown[stage.value] for stage in pipeline.LEDGER_ORDER
    }


@pytest.mark.parametrize("declared", pipeline.STAGES, ids=pipeline.NAMES)
def test_each_stage_is_deployed_as_declared(declared: pipeline.PipelineStage) -> None:
    """The hand-written manifests run `precedente serve NAME` for every declared stage."""
    manifest = (ROOT / "deploy" / "k8s" / f"{declared.name}.yaml").read_text(encoding="utf-8")
    assert f"args: [serve, {declared.name}]" in manifest
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    assert f'command: ["serve", "{declared.name}"]' in compose
