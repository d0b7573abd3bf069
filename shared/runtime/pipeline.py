"""The ingestion pipeline declared once: its stages in order, what each consumes and records, and their names.

Every reader (the stage services, `precedente serve`/`up`, GET /status, the telemetry, the ledger's
ordering and its resume after a restart) takes the chain from here instead of keeping its own list, so they
cannot disagree. Kept free of heavy imports: the ledger and the telemetry import it. The topics and ledger
stages themselves stay in shared/contracts.py (they are the wire and database contracts).
"""

from dataclasses import dataclass

from precedente.shared.contracts import Stage, Topic


@dataclass(frozen=True)
class PipelineStage:
    """One stage service: it consumes `input_topic` for documents at `input_stage` and records `output_stage`,
    publishing `output_topic` for the next stage."""

    name: str  # the service: `precedente serve NAME`, its consumer group, its metric label, `halted_in`
    module: str  # the module whose SERVICE (a StageService, shared/runtime/stage.py) runs it
    input_topic: Topic
    output_topic: Topic
    input_stage: Stage
    output_stage: Stage
    span: str  # the OpenTelemetry span it opens per document (a verb: "extract")
    label: str  # how the gateway names the ledger stage it records (services/gateway/lib/format.ts)

    @property
    def group_id(self) -> str:
        """The Kafka consumer group every replica of the stage joins."""
        return f"precedente-{self.name}"


STAGES: tuple[PipelineStage, ...] = (
    PipelineStage(
        "extractor", "precedente.services.extractor.service", Topic.SUBMITTED, Topic.EXTRACTED,
        Stage.SUBMITTED, Stage.EXTRACTED, "extract", "Extraído",
    ),
    PipelineStage(
        "cleaner", "precedente.services.cleaner.service", Topic.EXTRACTED, Topic.CLEANED,
        Stage.EXTRACTED, Stage.CLEANED, "clean", "Limpo",
    ),
    PipelineStage(
        "chunker", "precedente.services.chunker.service", Topic.CLEANED, Topic.CHUNKED,
        Stage.CLEANED, Stage.CHUNKED, "chunk", "Segmentado",
    ),
    PipelineStage(
        "annotator", "precedente.services.annotator.service", Topic.CHUNKED, Topic.ANNOTATED,
        Stage.CHUNKED, Stage.ANNOTATED, "annotate", "Anotado",
    ),
    PipelineStage(
        "indexer", "precedente.services.indexer.service", Topic.ANNOTATED, Topic.INDEXED,
        Stage.ANNOTATED, Stage.INDEXED, "index", "Indexado",
    ),
)  # fmt: skip

NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
# The ledger's durable steps in order: where a document starts, then what each stage records.
LEDGER_ORDER: tuple[Stage, ...] = (STAGES[0].input_stage, *(s.output_stage for s in STAGES))
# How the gateway names each of those ledger stages.
LEDGER_LABELS: dict[Stage, str] = {Stage.SUBMITTED: "Recebido", **{s.output_stage: s.label for s in STAGES}}

_BY_NAME = {s.name: s for s in STAGES}
_BY_INPUT = {s.input_stage: s for s in STAGES}
_BY_OUTPUT = {s.output_stage: s for s in STAGES}


def by_name(name: str) -> PipelineStage:
    """The stage called `name`; KeyError names the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown pipeline stage {name!r}; known: {', '.join(NAMES)}") from None


def position(name: str) -> int:
    """0 for the first stage, 1 for the next, ..."""
    return STAGES.index(by_name(name))


def next_stage(name: str) -> PipelineStage | None:
    """The stage that consumes what `name` publishes; None after the last."""
    at = position(name) + 1
    return STAGES[at] if at < len(STAGES) else None


def consuming(stage: Stage) -> PipelineStage | None:
    """The stage that takes a document on from the ledger stage `stage`; None for a final or off-chain one."""
    return _BY_INPUT.get(stage)


def recording(stage: Stage) -> PipelineStage | None:
    """The stage that records the ledger stage `stage`; None for `submitted` and the off-chain ones."""
    return _BY_OUTPUT.get(stage)


def ledger_position(stage: Stage) -> int:
    """Where `stage` lies on the ledger's chain (0 = submitted); ValueError for review, failed, deleted."""
    return LEDGER_ORDER.index(stage)
