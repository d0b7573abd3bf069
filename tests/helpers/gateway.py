"""What the browser tests of the page share: the tools they need, waiting for a server, unique sample bytes."""

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pymupdf
import pytest

from precedente.harness import RunningStack
from precedente.stack import GATEWAY_SERVER
from tests.helpers.samples import DOCS, REPO

GATEWAY_DIR = REPO / "services" / "gateway"
CHROMIUM = os.environ.get("PRECEDENTE_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = REPO / "docs" / "screenshots"


def screenshots_folder() -> str:
    """Where a page scenario saves its screenshots: PRECEDENTE_SCREENSHOTS=1 the docs' folder, a path that folder,
    unset none ("")."""
    wanted = os.environ.get("PRECEDENTE_SCREENSHOTS", "")
    if not wanted:
        return ""
    where = SCREENSHOTS if wanted == "1" else Path(wanted)
    where.mkdir(parents=True, exist_ok=True)
    return str(where)


def require_tools() -> str:
    """Node's path; the test fails (never skips) naming what `make install` did not provide."""
    node = shutil.which("node")
    modules = GATEWAY_DIR / "node_modules"
    missing = [
        what
        for what, ok in (
            ("node", node is not None),
            (f"the gateway build ({GATEWAY_SERVER}; run `make install`)", GATEWAY_SERVER.is_file()),
            (f"chromium ({CHROMIUM})", Path(CHROMIUM).exists()),
            ("services/gateway/node_modules (npm ci)", (modules / "playwright-core").is_dir()),
            ("services/gateway/node_modules/axe-core (npm ci)", (modules / "axe-core").is_dir()),
        )
        if not ok
    ]
    if missing:
        pytest.fail("missing for the gateway tests: " + ", ".join(missing))
    assert node is not None
    return node


@contextmanager
def stack_with_people(
    directory: Path,
    people: dict[str, tuple[list[str], list[str]]],
    passwords: dict[str, str],
    extra_env: dict[str, str] | None = None,
) -> Iterator[RunningStack]:
    """A stack of its own with sign-in and these people (name -> (groups, roles)), made through the admin API."""
    with RunningStack(directory, extra_env) as running:
        for name, (groups, roles) in people.items():
            body = {"name": name, "groups": groups, "roles": roles, "password": passwords[name]}
            made = running.client.post("/users", json=body)  # the client carries the stack's admin key
            assert made.status_code == 201, made.text
        yield running


def unique_pdf(name: str, tag: str, pages: int | None = None) -> bytes:
    """A sample document (its first `pages`, or whole) with its own bytes (a metadata tag), so no other upload of it
    is reused."""
    with pymupdf.open(DOCS / name) as doc:
        if pages is not None:
            doc.select(range(min(pages, doc.page_count)))
        doc.set_metadata({**doc.metadata, "keywords": f"precedente-e2e {tag}"})
        return doc.tobytes()


OPEN_DECISIONS = ["stj_resp_1433940_mg_acordao.pdf", "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"]
WALLED_OPINION = "parecer_pgjmg_procon_16-2022.pdf"  # open to "socios" only


@dataclass(frozen=True)
class PageStack:
    stack: RunningStack
    open_ids: list[str]
    walled_id: str
    walled_title: str


@contextmanager
def page_stack(directory: Path) -> Iterator[PageStack]:
    """A stack with sign-in, two open decisions and the walled parecer indexed and counted in the BM25 statistics
    (the grades final), for page scenarios that each sign in as people of their own and leave the documents as
    they are."""
    with RunningStack(directory) as stack:
        open_ids = [stack.upload(DOCS / name)["document_id"] for name in OPEN_DECISIONS]
        walled = stack.upload(DOCS / WALLED_OPINION, access="socios")["document_id"]
        stack.wait_final({**dict.fromkeys(open_ids), walled: "socios"})
        stack.wait_lexicon_counted()
        title = stack.sql(f"SELECT coalesce(title, filename) FROM documents WHERE id = '{walled}'")
        yield PageStack(stack, open_ids, walled, title)
