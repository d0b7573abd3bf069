"""Shared test fixtures: the data beside the checkout and a real running stack (`precedente up`)."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from precedente.harness import FINAL, RunningStack

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared"
DOCS = SHARED_DATA / "docs"

__all__ = ["DOCS", "FINAL", "SHARED_DATA", "RunningStack"]


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    running = RunningStack(tmp_path_factory.mktemp("stack"))
    running.start()
    try:
        yield running
    finally:
        running.stop()
        running.client.close()
