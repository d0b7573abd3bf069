"""Admission control's decision (issue 31 item 2): whether a pipeline stage takes its next piece of work now or waits
for search first. Pure logic, no I/O: shared/runtime/search_load.py feeds it what the search replicas published and does
the waiting.

Search is what a lawyer waits on; ingestion is what nobody watches. On a small server both share the same cores
(and PostgreSQL), and renicing the pipeline (precedente/stack.py) is not enough: PostgreSQL and an OCR child are
not reniced, and niceness does nothing across containers. So each stage asks before each piece of work and waits
while search is busy, for a bounded time per piece, so that ingestion is slowed but always goes on.
"""

import math
from collections import deque
from dataclasses import dataclass
from typing import Literal

from precedente.shared.settings import Settings

Outcome = Literal["free", "cleared", "bounded"]
"""Why a stage went on: search was not busy ("free"), it was and calmed down ("cleared"), or the stage waited as long
as it may ("bounded")."""


@dataclass(frozen=True)
class ReplicaLoad:
    """What one search replica last published: searches in flight, p95 over its recent window, and how old it is."""

    replica: str
    in_flight: int
    p95_ms: float
    age_s: float


@dataclass(frozen=True)
class Thresholds:
    busy_in_flight: int
    busy_p95_ms: float
    stale_s: float
    max_yield_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> "Thresholds":
        return cls(
            settings.admission_busy_in_flight,
            settings.admission_busy_p95_ms,
            settings.search_load_stale_s,
            settings.admission_max_yield_s,
        )


@dataclass(frozen=True)
class Decision:
    wait: bool
    outcome: Outcome | None  # None while waiting
    reason: str | None  # why search counts as busy, in words; None when it does not


def search_figures(loads: list[ReplicaLoad], thresholds: Thresholds) -> tuple[int, float]:
    """Searches in flight over every replica, and the worst replica's p95 (ms), counting only fresh loads: a
    replica that stopped or crashed must not hold ingestion back."""
    fresh = [load for load in loads if load.age_s <= thresholds.stale_s]
    return sum(load.in_flight for load in fresh), max((load.p95_ms for load in fresh), default=0.0)


def busy_reason(loads: list[ReplicaLoad], thresholds: Thresholds) -> str | None:
    """Why search is busy now, or None (search_figures: stale loads are ignored). A busy_in_flight of 0 leaves the
    count in flight out (the p95 alone)."""
    in_flight, worst = search_figures(loads, thresholds)
    if thresholds.busy_in_flight and in_flight >= thresholds.busy_in_flight:
        return f"{in_flight} buscas em andamento"
    if worst >= thresholds.busy_p95_ms:
        return f"p95 da busca {worst:.0f} ms"
    return None


def decide(loads: list[ReplicaLoad], waited_s: float, thresholds: Thresholds) -> Decision:
    """Wait or go, after having waited `waited_s` for this piece of work already."""
    reason = busy_reason(loads, thresholds)
    if reason is None:
        return Decision(False, "cleared" if waited_s > 0 else "free", None)
    if waited_s >= thresholds.max_yield_s:
        return Decision(False, "bounded", reason)
    return Decision(True, None, reason)


class LoadWindow:
    """One search replica's own load: searches in flight now, and the latencies of those that ended within the
    last `window_s` seconds (for their p95). Times are passed in (monotonic seconds), so it is tested without
    sleeping."""

    def __init__(self, window_s: float) -> None:
        self.window_s = window_s
        self.in_flight = 0
        self._ended: deque[tuple[float, float]] = deque()  # (when it ended, its seconds)

    def started(self) -> None:
        self.in_flight += 1

    def finished(self, seconds: float, now: float) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        self._ended.append((now, seconds))
        self._prune(now)

    def _prune(self, now: float) -> None:
        while self._ended and self._ended[0][0] < now - self.window_s:
            self._ended.popleft()

    def snapshot(self, now: float) -> tuple[int, float] | None:
        """(searches in flight, p95 ms of the window's searches; 0 without any), or None when the replica has had
        no search in flight or ended within the window: it has nothing to publish."""
        self._prune(now)
        if self.in_flight == 0 and not self._ended:
            return None
        return self.in_flight, percentile_ms([seconds for _, seconds in self._ended], 95)


def percentile_ms(seconds: list[float], percent: float) -> float:
    """The nearest-rank percentile of `seconds`, in milliseconds; 0 for none."""
    if not seconds:
        return 0.0
    ordered = sorted(seconds)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1] * 1000
