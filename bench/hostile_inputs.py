"""Hostile and broken inputs through extract(), each in its own child process: outcome, time, memory.

    .venv/bin/python bench/hostile_inputs.py

Prints one row per input built by tests/services/extractor/test_hostile.py (the same cases the
test asserts on): the outcome (ok, or the disposition and its reason), the seconds extract() took
and the child's peak resident memory (VmHWM, which includes about 160 MB of interpreter and
libraries, and the file's own bytes). Each child runs under a 1.5 GiB address-space limit, so a
reader that tried to inflate a bomb would end in MemoryError instead of exhausting the machine.
"""

import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.services.extractor.test_hostile import CASES, run_isolated  # noqa: E402


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="precedente-hostile-") as tmp:
        for case in CASES:
            report = run_isolated(case, Path(tmp))
            outcome = report["outcome"]
            if outcome == "ok":
                warnings = report.get("warnings") or []
                reason = report["reason"] + (f"; warning: {warnings[0]}" if warnings else "")
            else:
                reason = f"[{report.get('code', '')}] {report['reason']}"
            rows.append((case.name, outcome, reason, report.get("seconds", 0.0), report.get("peak_rss_mb", 0.0)))
    print(f"| {'input':<32} | {'outcome':<10} | {'time':>8} | {'peak RSS':>9} | reason")
    print(f"|{'-' * 34}|{'-' * 12}|{'-' * 10}|{'-' * 11}|{'-' * 60}")
    for name, outcome, reason, seconds, rss in rows:
        short = textwrap.shorten(reason, 160, placeholder=" ...")
        print(f"| {name:<32} | {outcome:<10} | {seconds * 1000:>6.0f}ms | {rss:>6.0f} MB | {short}")


if __name__ == "__main__":
    main()
