"""Extraction in a child process with a time and memory limit.

Hostile files (decompression bombs, pathological PDFs) can make a C library allocate without end,
loop for hours or crash. Running the extraction in a separate process lets the worker enforce a
wall-clock limit, cap the address space, and survive a crash: whatever happens in the child, the
worker turns it into a reason a person can act on and goes on to the next document.
"""

import atexit
import contextlib
import os
import resource
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, TypeVar

import psutil

from precedente.shared.errors import BadInput

T = TypeVar("T")


WATCH_INTERVAL_S = 0.5


def _owner_alive(pid: int, started: float) -> bool:
    try:
        return psutil.Process(pid).create_time() == started  # the same process, not a reused pid
    except psutil.Error:
        return False


def _watch_owner(pid: int, started: float) -> None:
    """End this child and its Tesseract runs as soon as the extractor that owns it is gone, however it went
    (a SIGKILL or the OOM killer run no clean-up): the child is in a process group of its own, so neither
    the kernel nor `precedente up` would otherwise stop it, and it would go on reading for minutes.

    On Linux the owner is watched through a pidfd, which becomes readable when that very process exits. Polling
    its start time instead reads the wall clock (psutil adds the boot time the kernel derives from it), so a step of
    the clock (a VM resumed, NTP) would make every idle child take its owner for dead and kill itself. In a CI run
    (2026-12-06) an idle child died, with nothing in the logs, beside a rate-limit test whose waits moved as a
    clock step moves them; every later file then failed (IsolatedRunner.run now replaces such a child)."""
    try:
        owner = os.pidfd_open(pid)
    except (AttributeError, OSError):  # no pidfd (not Linux 5.3+): poll the owner's identity
        while _owner_alive(pid, started):
            time.sleep(WATCH_INTERVAL_S)
    else:
        select.select([owner], [], [])
    os.killpg(0, signal.SIGKILL)


def _prepare_child(megabytes: int, owner: int, owner_started: float) -> None:
    """Cap the child's address space, make it a process group so its Tesseract runs die with it, and watch
    the extractor that owns it (its parent is the forkserver, so a parent-death signal would not do)."""
    os.setpgrp()
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    threading.Thread(target=_watch_owner, args=(owner, owner_started), daemon=True, name="owner-watch").start()


class IsolatedRunner:
    """One long-lived child process at a time, replaced when it times out, runs out of memory or dies."""

    def __init__(self, timeout_s: float, memory_mb: int) -> None:
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb
        self._pool: ProcessPoolExecutor | None = None
        atexit.register(self.close)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("forkserver"),
                initializer=_prepare_child,
                initargs=(self.memory_mb, os.getpid(), psutil.Process().create_time()),
            )
        return self._pool

    def close(self) -> None:
        """Stop the child at once, even mid-task (a timed-out child must not keep burning CPU)."""
        if self._pool is not None:
            for process in list(getattr(self._pool, "_processes", {}).values()):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def run(self, fn: Callable[..., T], *args: Any, label: str, **kwargs: Any) -> T:
        try:
            future = self._executor().submit(fn, *args, **kwargs)
        except BrokenProcessPool:  # the child died while idle (killed, or its owner-watch misfired): a fresh one
            self.close()
            future = self._executor().submit(fn, *args, **kwargs)
        try:
            return future.result(timeout=self.timeout_s)
        except FutureTimeout:
            self.close()
            raise BadInput(
                f"{label} took longer than {self.timeout_s:.0f} s to read and was stopped; it may be built to "
                "exhaust readers (or be far larger than usual): check it, or split it into smaller files",
                "review",
                code="timeout",
            ) from None
        except MemoryError:
            self.close()
            raise BadInput(
                f"{label} needs more than {self.memory_mb} MB of memory to read (a decompression bomb or an "
                "oversized image); re-export it at a normal resolution",
                "deadletter",
                code="too_much_memory",
            ) from None
        except BrokenProcessPool:
            self.close()
            raise BadInput(
                f"the reader crashed on {label} (the process died: out of memory or a defect in the file); "
                "re-export the file and upload it again",
                "deadletter",
                code="reader_crashed",
            ) from None
