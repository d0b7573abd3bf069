"""bench/ranking_ablation.py: every declared ranking step is either switched off by one configuration or named
structural, and the firm set's per-query metrics are the usual ones on binary judgments."""

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.engine.steps import STEPS

BENCH = Path(__file__).resolve().parents[1] / "bench"


def ablation() -> ModuleType:
    sys.path.insert(0, str(BENCH))  # it imports ranking_sweep, its neighbour, as it does run as a script
    try:
        spec = importlib.util.spec_from_file_location("ranking_ablation", BENCH / "ranking_ablation.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def test_every_step_is_ablated_or_named_structural() -> None:
    bench = ablation()
    names = [step.__name__ for step in STEPS]
    left_out = {name for c in bench.CONFIGURATIONS for name in names if name not in [s.__name__ for s in c.steps]}
    by_ranking = {"fusion", "lead", "feedback", "authority", "long_documents"}  # off by Ranking fields, not left out
    assert left_out | by_ranking | set(bench.STRUCTURAL) == set(names)
    assert not left_out & set(bench.STRUCTURAL)
    baseline = bench.CONFIGURATIONS[0]
    assert baseline.steps == STEPS and baseline.ranking == Ranking()
    changed = {c.name for c in bench.CONFIGURATIONS[1:] if c.ranking != Ranking()}
    assert changed == {"fusion: dense only", "fusion: BM25 only", "no lead", "no feedback", "no long_documents"}


def test_firm_metrics_on_binary_judgments() -> None:
    bench = ablation()
    second = bench.firm_metrics([False, True, False], relevant_works=2)
    assert math.isclose(second["ndcg@10"], (1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert second["hit@5"] == 1.0 and second["mrr@10"] == 0.5
    assert bench.firm_metrics([True, True], relevant_works=2)["ndcg@10"] == 1.0
    late = bench.firm_metrics([False] * 5 + [True], relevant_works=1)
    assert late["hit@5"] == 0.0 and late["mrr@10"] == 1 / 6
    assert bench.firm_metrics([False] * 10 + [True], relevant_works=1) == {"ndcg@10": 0.0, "hit@5": 0.0, "mrr@10": 0.0}
