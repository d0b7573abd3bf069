"""Ingesting into a running stack (precedente.harness.RunningStack) and checking what came out, for the
end-to-end tests of crashes, restarts and outages."""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from precedente.harness import RunningStack
from tests.helpers.pdfs import retitled
from tests.helpers.samples import DOCS

SMALL_PDFS = [
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
    "stj_agint_aresp_2560760_se_acordao.pdf",
    "stj_resp_1433940_mg_acordao.pdf",
]


# The fault tests' documents are the first pages of SMALL_PDFS: three documents of several passages each keep
# ingestion in flight while a fault strikes, and half the pages halve the embedding the five fault tests repeat.
VARIANT_PAGES = 4


def upload_variants(stack: RunningStack, tag: str) -> dict[str, str]:
    """SMALL_PDFS' first VARIANT_PAGES under new titles (new documents each time): document id -> sample file name."""
    return {
        stack.upload(content=retitled(name, tag, VARIANT_PAGES), filename=name)["document_id"]: name
        for name in SMALL_PDFS
    }


def wait_for_stage(stack: RunningStack, ids: dict[str, str], stages: set[str], timeout: float = 300) -> None:
    """Until one of these documents is at one of these stages: the moment to break something."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(stack.status(document_id)["stage"] in stages for document_id in ids):
            return
        time.sleep(0.2)
    raise TimeoutError(f"no document reached {stages}")


def assert_indexed_exactly_once(stack: RunningStack, ids: dict[str, str]) -> None:
    """Every document indexed, each chunk ordinal once: nothing lost and nothing duplicated."""
    statuses = stack.wait_final({document_id: None for document_id in ids}, timeout=600)
    for document_id, status in statuses.items():
        assert status["stage"] == "indexed", (ids[document_id], status)
        rows = stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}'")
        ordinals = stack.sql(
            f"SELECT count(DISTINCT ordinal) FILTER (WHERE ordinal < {status['chunk_count']})"
            f" FROM chunks WHERE document_id = '{document_id}'"
        )
        assert rows == ordinals == str(status["chunk_count"]), (ids[document_id], rows, ordinals)
        indexed = [h for h in status["history"] if h["stage"] == "indexed"]
        assert indexed, status["history"]


JUDGED_OPEN = [
    "stj_resp_1433940_mg_acordao.pdf",
    "stj_resp_1543564_sp_acordao.pdf",
    "stj_resp_1602076_sp_acordao.pdf",
    "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf",
]
JUDGED_WALLED = "parecer_pgjmg_procon_16-2022.pdf"  # only "socios" may see it


@dataclass(frozen=True)
class JudgedStack:
    stack: RunningStack
    open_ids: list[str]
    walled_id: str


@contextmanager
def judged_stack(directory: Path) -> Iterator[JudgedStack]:
    """A stack holding exactly JUDGED_OPEN and JUDGED_WALLED, for the judgments' and the panels' figures, which are
    counted by hand over exactly these documents (the suite's shared `stack` holds others)."""
    with RunningStack(directory) as stack:
        open_ids = [stack.upload(DOCS / name)["document_id"] for name in JUDGED_OPEN]
        walled_id = stack.upload(DOCS / JUDGED_WALLED, access="socios")["document_id"]
        stack.wait_final({**dict.fromkeys(open_ids), walled_id: "socios"})
        yield JudgedStack(stack, open_ids, walled_id)
