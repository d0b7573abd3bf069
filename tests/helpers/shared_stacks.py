"""Stacks that several test modules share, each up for as long as those modules run and no longer.

A module that asks for a shared stack's fixture (FIXTURES) is put in that stack's xdist group (tests/conftest.py), so
one worker runs all its modules one after another and the stack starts once; it stops after the last test that uses
it, not at the end of the session. A session-scoped stack stayed up, idle, until its worker ended: an idle stack takes
about 9% of a core (2.8 CPU-s in 30 s: the broker 0.95, each Python service 0.1-0.3, two EPYC cores), and a suite of
~30 minutes ran two of them idle for most of it beside the tests."""

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

import pytest

T = TypeVar("T")

FIXTURES = ("stack", "shared_page_stack", "shared_judged_stack")
"""The fixtures that hand out a shared stack; each is its modules' xdist group."""

_running: dict[str, tuple[Any, contextlib.ExitStack]] = {}


def shared(name: str, start: Callable[[], AbstractContextManager[T]]) -> T:
    """The running stack called `name`, started by `start()` if it is not running."""
    if name not in _running:
        exits = contextlib.ExitStack()
        _running[name] = (exits.enter_context(start()), exits)
    return _running[name][0]


def stop_after_group(nextitem: pytest.Item | None) -> None:
    """Stop each running shared stack whose group the next test is not in (None: no test left, all of them)."""
    marker = nextitem.get_closest_marker("xdist_group") if nextitem is not None else None
    for name in list(_running):
        if marker is None or marker.args[0] != name:
            _running.pop(name)[1].close()


def group_of(module_items: list[pytest.Item]) -> str | None:
    """The shared stack a module asks for, if any (not a fixture of the same name that the module defines for a stack
    of its own): the module's xdist group."""
    return next(
        (
            name
            for item in module_items
            for name in FIXTURES
            if name in item.fixturenames and not hasattr(getattr(item, "module", None), name)
        ),
        None,
    )
