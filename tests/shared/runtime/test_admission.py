"""Admission control's decision (shared/runtime/admission.py): when a stage waits for search, and for how long at
most."""

import pytest

from precedente.shared.runtime.admission import LoadWindow, ReplicaLoad, Thresholds, busy_reason, decide, percentile_ms
from precedente.shared.settings import Settings

LIMITS = Thresholds(busy_in_flight=2, busy_p95_ms=800, stale_s=2.0, max_yield_s=3.0)


def load(in_flight: int = 0, p95_ms: float = 0.0, age_s: float = 0.1, replica: str = "a:1") -> ReplicaLoad:
    return ReplicaLoad(replica, in_flight, p95_ms, age_s)


def test_no_replica_reporting_is_not_busy() -> None:
    assert busy_reason([], LIMITS) is None
    assert (decide([], 0.0, LIMITS).wait, decide([], 0.0, LIMITS).outcome) == (False, "free")


def test_searches_in_flight_are_summed_over_replicas() -> None:
    assert busy_reason([load(1)], LIMITS) is None
    assert busy_reason([load(1, replica="a:1"), load(1, replica="b:2")], LIMITS) == "2 buscas em andamento"


def test_in_flight_not_counted_when_its_threshold_is_zero() -> None:
    p95_only = Thresholds(busy_in_flight=0, busy_p95_ms=1500, stale_s=2.0, max_yield_s=3.0)
    assert busy_reason([load(20, 1100)], p95_only) is None
    assert busy_reason([load(20, 1600)], p95_only) == "p95 da busca 1600 ms"


def test_a_slow_window_is_busy_even_between_searches() -> None:
    assert busy_reason([load(0, 799)], LIMITS) is None
    assert busy_reason([load(0, 950)], LIMITS) == "p95 da busca 950 ms"


def test_a_stale_report_is_ignored() -> None:
    """A replica that crashed while busy stops publishing: its last row must not hold ingestion back."""
    assert busy_reason([load(20, 5000, age_s=2.5)], LIMITS) is None
    assert busy_reason([load(20, 5000, age_s=2.5), load(2, age_s=0.2, replica="b:2")], LIMITS) is not None


def test_busy_search_makes_the_stage_wait_until_the_bound() -> None:
    busy = [load(5)]
    assert decide(busy, 0.0, LIMITS).wait
    assert decide(busy, 2.9, LIMITS).wait
    bounded = decide(busy, 3.0, LIMITS)
    assert (bounded.wait, bounded.outcome, bounded.reason) == (False, "bounded", "5 buscas em andamento")


def test_search_calming_down_lets_a_waiting_stage_go() -> None:
    assert (decide([load(1)], 1.2, LIMITS).wait, decide([load(1)], 1.2, LIMITS).outcome) == (False, "cleared")


def test_no_yield_allowed_means_never_waiting() -> None:
    never = Thresholds(busy_in_flight=1, busy_p95_ms=1, stale_s=2.0, max_yield_s=0.0)
    assert decide([load(50, 9000)], 0.0, never).outcome == "bounded"


def test_thresholds_come_from_the_settings() -> None:
    settings = Settings(admission_busy_in_flight=4, admission_busy_p95_ms=1200, admission_max_yield_s=5)
    assert Thresholds.from_settings(settings) == Thresholds(4, 1200, settings.search_load_stale_s, 5)


def test_window_reports_in_flight_and_p95_of_recent_searches() -> None:
    window = LoadWindow(window_s=5.0)
    assert window.snapshot(now=100.0) is None  # nothing to publish
    window.started()
    window.started()
    assert window.snapshot(now=100.0) == (2, 0.0)
    window.finished(0.2, now=100.5)
    assert window.snapshot(now=101.0) == (1, 200.0)
    window.finished(1.5, now=102.0)
    assert window.snapshot(now=102.0) == (0, 1500.0)
    assert window.snapshot(now=105.8) == (0, 1500.0)  # the 0.2 s search left the window at 105.5
    assert window.snapshot(now=107.5) is None  # both left: idle again


def test_window_never_counts_below_zero() -> None:
    window = LoadWindow(window_s=1.0)
    window.finished(0.1, now=1.0)
    assert window.in_flight == 0


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [([], 0.0), ([0.1], 100.0), ([0.1] * 19 + [2.0], 100.0), ([0.1] * 18 + [2.0, 3.0], 2000.0)],
)
def test_percentile_is_nearest_rank(seconds: list[float], expected: float) -> None:
    assert percentile_ms(seconds, 95) == pytest.approx(expected)
