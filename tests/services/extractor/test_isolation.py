"""Extraction in a child process: bounded time and memory, and the worker survives whatever happens."""

import time
from pathlib import Path

import psutil
import pytest

from precedente.services.extractor.isolation import IsolatedRunner
from precedente.services.extractor.logic import BadInput, extract
from tests.helpers.pdfs import one_page_pdf

DOCS = Path(__file__).resolve().parents[3].parent / "shared" / "docs"
NATIVE = DOCS / "stj_resp_1602076_sp_acordao.pdf"
SCAN = DOCS / "scanned" / "stj_resp_1543564_sp_scan_hard.pdf"


def test_results_and_bad_input_cross_the_process_boundary_whole() -> None:
    runner = IsolatedRunner(timeout_s=60, memory_mb=2048)
    try:
        document = runner.run(extract, NATIVE.read_bytes(), NATIVE.name, label=NATIVE.name)
        assert len(document.pages) == 20 and document.pages[2].text
        with pytest.raises(BadInput) as err:
            runner.run(extract, b"", "vazio.pdf", label="vazio.pdf")
        assert (err.value.disposition, err.value.code) == ("deadletter", "empty")
    finally:
        runner.close()


def test_a_slow_file_is_stopped_with_its_ocr_and_the_runner_serves_the_next() -> None:
    # The scan's OCR takes far longer than 4 s.
    runner = IsolatedRunner(timeout_s=4, memory_mb=2048)
    try:
        started = time.monotonic()
        with pytest.raises(BadInput) as err:
            runner.run(extract, SCAN.read_bytes(), SCAN.name, label=SCAN.name)
        assert time.monotonic() - started < 8
        assert err.value.code == "timeout" and err.value.disposition == "review"
        assert "longer than 4 s" in err.value.reason
        time.sleep(0.5)
        running = [
            p
            for p in psutil.process_iter(["name", "ppid", "status"])
            if p.info["name"] == "tesseract" and p.info["ppid"] == 1 and p.info["status"] != psutil.STATUS_ZOMBIE
        ]
        assert not running, "Tesseract runs orphaned by the stopped child are still working"
        document = runner.run(extract, one_page_pdf("Acórdão seguinte."), "seguinte.pdf", label="seguinte.pdf")
        assert "Acórdão seguinte." in document.pages[0].text
    finally:
        runner.close()


def test_a_file_that_needs_more_memory_than_allowed_ends_with_a_reason() -> None:
    runner = IsolatedRunner(timeout_s=60, memory_mb=120)
    try:
        with pytest.raises(BadInput) as err:
            runner.run(extract, SCAN.read_bytes(), SCAN.name, label=SCAN.name)
        assert err.value.disposition == "deadletter"
        assert "memory" in err.value.reason or "malloc" in err.value.reason
    finally:
        runner.close()


# A worker that owns an IsolatedRunner and reads the hard scan in it, printing its reading child's pid.
OWNER = """
import sys
from pathlib import Path
from precedente.services.extractor.isolation import IsolatedRunner
from precedente.services.extractor.logic import extract

scan = Path(sys.argv[1])
IsolatedRunner(timeout_s=600, memory_mb=2048).run(extract, scan.read_bytes(), scan.name, label=scan.name)
"""


def _tesseract(process: psutil.Process) -> bool:
    """Tesseract runs inside the reading child (tesserocr), which maps libtesseract on its first page."""
    try:
        return any("libtesseract" in m.path for m in process.memory_maps())
    except psutil.Error:  # the child ended meanwhile
        return False


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # dead, waiting for a reaper
    except psutil.NoSuchProcess:
        return True


def test_a_killed_worker_takes_its_reading_child_and_ocr_with_it(tmp_path: Path) -> None:
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[3]
    owner = subprocess.Popen([sys.executable, "-c", OWNER, str(SCAN)], cwd=repo)
    try:
        deadline = time.monotonic() + 60
        readers: list[psutil.Process] = []
        while time.monotonic() < deadline and not any(_tesseract(p) for p in readers):
            readers = psutil.Process(owner.pid).children(recursive=True)
            time.sleep(0.2)
        assert any(_tesseract(p) for p in readers), "the scan never reached OCR"
        descendants = [p.pid for p in readers]
        owner.kill()  # SIGKILL, as the OOM killer does: no clean-up runs in the worker
        owner.wait()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not all(_gone(pid) for pid in descendants):
            time.sleep(0.2)
        assert [pid for pid in descendants if not _gone(pid)] == []
    finally:
        owner.kill()


def test_a_child_that_dies_while_idle_is_replaced_for_the_next_file() -> None:
    """A reading child killed between two files (an operator's kill, the OOM killer, a misfired owner-watch) left
    the pool broken: every later file failed with BrokenProcessPool until the extractor restarted. The next file
    gets a fresh child and is read."""
    runner = IsolatedRunner(timeout_s=60, memory_mb=2048)
    try:
        first = runner.run(extract, one_page_pdf("Primeiro acórdão."), "primeiro.pdf", label="primeiro.pdf")
        assert "Primeiro acórdão." in first.pages[0].text
        (child,) = psutil.Process().children(recursive=True)[-1:]  # the forkserver's child: the reader
        child.kill()
        child.wait(timeout=10)
        time.sleep(0.5)  # the pool's manager thread sees the death and marks the pool broken
        document = runner.run(extract, one_page_pdf("Acórdão seguinte."), "seguinte.pdf", label="seguinte.pdf")
        assert "Acórdão seguinte." in document.pages[0].text
    finally:
        runner.close()


def test_the_owner_watch_outlives_a_step_of_the_wall_clock() -> None:
    """The reading child watches its owner through a pidfd (isolation._watch_owner): the watch does not read the
    wall clock, whose steps made idle children kill themselves. Here the owner's recorded start time is off by an
    hour, as a clock step makes it read: the child stays and reads."""
    runner = IsolatedRunner(timeout_s=60, memory_mb=2048)
    real = psutil.Process().create_time
    try:
        psutil.Process.create_time = lambda self: real() - 3600  # type: ignore[method-assign]
        runner._executor()  # the pool is made with the stepped start time
    finally:
        psutil.Process.create_time = real  # type: ignore[method-assign]
    try:
        document = runner.run(extract, one_page_pdf("Acórdão seguinte."), "seguinte.pdf", label="seguinte.pdf")
        time.sleep(1.5)  # three of the old watch's polls
        document = runner.run(extract, one_page_pdf("Acórdão seguinte."), "seguinte.pdf", label="seguinte.pdf")
        assert "Acórdão seguinte." in document.pages[0].text
    finally:
        runner.close()
