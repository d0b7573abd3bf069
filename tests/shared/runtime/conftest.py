"""Fixtures of the runtime tests."""

from collections.abc import Iterator

import pytest

from precedente.shared.infra.embedded import EmbeddedBroker


@pytest.fixture(scope="module")
def kafka() -> Iterator[str]:
    """An embedded Tansu broker of the module's own: its bootstrap address."""
    broker = EmbeddedBroker()
    broker.start()
    try:
        yield broker.bootstrap
    finally:
        broker.stop()
