"""OCR of PDF pages with Tesseract: one thread per page, several pages at once, each page bounded in time.

Per page: get its pixels (preprocess.page_image, in the calling thread: MuPDF is not thread-safe),
then in a worker thread clean and straighten them (preprocess.prepare_page: the fixes its measured
signals call for, and a quarter turn when the projection profiles show the page sideways or upside
down; then shrunk to ~195 dpi, preprocess.READING_SCALE), write an uncompressed greyscale file and
run Tesseract on it. A first pass that still reads
the page with low confidence asks Tesseract's OSD which way up the page is and, if it is turned,
reads it again the right way up. PageOcr.steps says what each page got (bench/scans.py prints it).
"""

from __future__ import annotations

import fcntl
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np
import pymupdf
import pytesseract

from services.extractor.preprocess import (
    MAX_PAGE_PIXELS,
    PreprocessOptions,
    deskew,
    page_image,
    prepare_page,
    rotate_quarter,
)
from shared.errors import damaged_pdf

# Tesseract (through OpenMP) would otherwise use every core for one page; we get more from one
# thread per page and several pages at once. pytesseract's subprocess inherits os.environ.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

NOISE_LINE_CONFIDENCE = 30.0
"""A line whose words average below this confidence is noise read as text: a calligraphic letterhead,
a logo, a stamp, a faint watermark. Dropping such lines cut the easy sample scan's CER from 1.9% to
0.7% without losing a word of the ground truth. The page confidence still counts them."""

ORIENTATION_CHECK_BELOW = 0.7
"""A first pass below this confidence (upside-down pages read at ~0.4, upright scans at 0.85-0.95)
is worth an OSD call (0.6-2 s) to see whether the page is turned."""

MIN_WORDS_FOR_ORIENTATION = 5
"""With fewer words than this, OSD has too few characters to judge and raises; skip it."""


@dataclass(frozen=True)
class OcrConfig:
    """How pages are read; extract() builds it from the PRECEDENTE_OCR_* settings."""

    language: str = "por"
    dpi: int = 300
    workers: int = 2
    page_timeout_s: float = 120.0
    psm: int = 3
    max_page_pixels: int = MAX_PAGE_PIXELS
    preprocess: PreprocessOptions = field(default_factory=PreprocessOptions)
    drop_noise_lines: bool = True


@dataclass(frozen=True)
class PageOcr:
    """What OCR made of one page. error says why a page could not be read (its text is then empty)."""

    text: str
    confidence: float
    error: str | None = None
    rotated: int = 0
    steps: tuple[str, ...] = ()


class _PageTimeout(Exception):
    pass


@dataclass(frozen=True)
class PageTiming:
    """When one page's OCR (render included) started and ended, wall clock in ns: the trace's OCR spans."""

    number: int
    start_ns: int
    end_ns: int
    confidence: float


T = TypeVar("T")

_timings: ContextVar[list[PageTiming] | None] = ContextVar("precedente_ocr_timings", default=None)


class PageSlots:
    """At most `count` pages OCR'd at once by every process that shares `directory`: the extractor reads several
    documents at once, each in a child of its own, and their Tesseract runs together stay within ocr_workers.

    A slot is an flock on one of `count` files, so the kernel frees it when its holder dies (a reading child killed
    at its time limit never keeps one), which a semaphore shared between processes would not do.
    """

    POLL_S = 0.02  # a page takes 0.5-5 s: waiting for a slot in steps of this costs nothing that shows

    def __init__(self, directory: str | Path, count: int) -> None:
        self.directory = Path(directory)
        self.count = max(1, count)

    @contextmanager
    def hold(self) -> Iterator[None]:
        """Wait for a free slot and keep it inside the block."""
        start = random.randrange(self.count)  # noqa: S311 - spreading the waiters, not a secret
        while True:
            for index in range(self.count):
                fd = os.open(self.directory / f"slot-{(start + index) % self.count}", os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    os.close(fd)
                    continue
                try:
                    yield
                finally:
                    os.close(fd)  # closing the only descriptor of the open file releases its lock
                return
            time.sleep(self.POLL_S)


_page_slots: PageSlots | None = None


def share_page_slots(slots: PageSlots | None) -> None:
    """Make every page this process OCRs from now on hold one of `slots` (None: no bound but config.workers)."""
    global _page_slots
    _page_slots = slots


def with_page_slots(slots: PageSlots | None, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """fn(*args, **kwargs) with this process's OCR'd pages holding `slots`: what the extractor sends its reading
    children (IsolatedRunner pickles fn by name, so a child imports only what fn needs)."""
    share_page_slots(slots)
    return fn(*args, **kwargs)


@contextmanager
def record_page_timings() -> Iterator[list[PageTiming]]:
    """Collect the PageTiming of every page OCR'd inside (the extractor's child process returns them)."""
    found: list[PageTiming] = []
    token = _timings.set(found)
    try:
        yield found
    finally:
        _timings.reset(token)


def _timed_read(
    recorder: list[PageTiming], number: int, start_ns: int, image: np.ndarray, target: Path, config: OcrConfig
) -> PageOcr:
    read = read_page_image(image, target, config)
    recorder.append(PageTiming(number, start_ns, time.time_ns(), read.confidence))
    return read


def ocr_pdf_pages(doc: pymupdf.Document, numbers: list[int], filename: str, config: OcrConfig) -> dict[int, PageOcr]:
    """OCR the given pages (1-based), `config.workers` at a time.

    Pages are rendered one at a time, at most 2 * workers ahead of the workers, so memory stays
    bounded whatever the page count. A page that runs past config.page_timeout_s comes back
    with an error and confidence 0; the others are unaffected.
    """
    results: dict[int, PageOcr] = {}
    if not numbers:
        return results
    workers = max(1, config.workers)
    with (
        tempfile.TemporaryDirectory(prefix="precedente-ocr-") as tmp,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr") as pool,
    ):
        pending: dict[Future[PageOcr], int] = {}

        def collect(done: set[Future[PageOcr]]) -> None:
            for future in done:
                results[pending.pop(future)] = future.result()

        recorder = _timings.get()
        for number in numbers:
            if len(pending) >= 2 * workers:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                collect(done)
            start_ns = time.time_ns()
            image = _page_pixels(doc, number, filename, config)
            target = Path(tmp) / f"page-{number:05d}.pgm"
            if recorder is None:
                pending[pool.submit(read_page_image, image, target, config)] = number
            else:
                pending[pool.submit(_timed_read, recorder, number, start_ns, image, target, config)] = number
        done, _ = wait(pending)
        collect(done)
    return results


def _page_pixels(doc: pymupdf.Document, number: int, filename: str, config: OcrConfig) -> np.ndarray:
    try:
        return page_image(
            doc.load_page(number - 1),
            config.dpi,
            native=config.preprocess.native_pixels,
            max_pixels=config.max_page_pixels,
        )
    except MemoryError:
        raise
    except Exception as exc:  # MuPDF's errors: the file's fault
        raise damaged_pdf(filename, f"page {number} cannot be rendered for OCR ({exc})") from exc


def read_page_image(image: np.ndarray, target: Path, config: OcrConfig) -> PageOcr:
    """Preprocess and OCR one page image within config.page_timeout_s (thread-safe).

    Tesseract errors other than the time limit (not installed, language data missing) are not the
    file's fault, so they propagate and the stage retries instead of dead-lettering a good document.
    """
    if _page_slots is not None:
        with _page_slots.hold():
            return _read_page_image(image, target, config)
    return _read_page_image(image, target, config)


def _read_page_image(image: np.ndarray, target: Path, config: OcrConfig) -> PageOcr:
    deadline = time.monotonic() + config.page_timeout_s
    try:
        prepared = prepare_page(image, _preprocess_options(config))
        image, steps = prepared.image, prepared.steps
        first = _tesseract(image, target, config, deadline)
        if (
            config.preprocess.orientation
            and first.confidence < ORIENTATION_CHECK_BELOW
            and first.words >= MIN_WORDS_FOR_ORIENTATION
        ):
            rotate = _orientation(image, target, deadline)
            if not rotate and prepared.rotated:
                rotate = 360 - prepared.rotated  # OSD cannot tell: the quick turn may have been wrong, undo it
            if rotate:
                turned = rotate_quarter(image, rotate)
                if config.preprocess.deskew:
                    turned = deskew(turned)
                second = _tesseract(turned, target, config, deadline)
                if second.confidence > first.confidence:
                    rotated = (prepared.rotated + rotate) % 360
                    return PageOcr(second.text, second.confidence, rotated=rotated, steps=(*steps, f"osd {rotate}"))
        return PageOcr(first.text, first.confidence, rotated=prepared.rotated, steps=steps)
    except _PageTimeout:
        return PageOcr("", 0.0, error=f"OCR did not finish within {config.page_timeout_s:g} s")
    finally:
        target.unlink(missing_ok=True)


def _preprocess_options(config: OcrConfig) -> PreprocessOptions:
    """The options with reading_scale taken as relative to 300 dpi: a page rendered at config.dpi is read at
    min(config.dpi, 300 * reading_scale) dpi, so a low ocr_dpi setting is not shrunk further."""
    options = config.preprocess
    scale = min(1.0, options.reading_scale * 300 / max(config.dpi, 1))
    return options if scale == options.reading_scale else replace(options, reading_scale=scale)


@dataclass(frozen=True)
class _Pass:
    text: str
    confidence: float
    words: int


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _PageTimeout
    return left


def _tesseract(image: np.ndarray, target: Path, config: OcrConfig, deadline: float) -> _Pass:
    cv2.imwrite(str(target), image)  # PGM: no compression to pay for on either side
    try:
        data = pytesseract.image_to_data(
            str(target),
            lang=config.language,
            config=f"--psm {config.psm}",
            output_type=pytesseract.Output.DICT,
            timeout=_remaining(deadline),
        )
    except RuntimeError as exc:
        if "timeout" in str(exc).lower():
            raise _PageTimeout from exc
        raise
    min_line = NOISE_LINE_CONFIDENCE if config.drop_noise_lines else 0.0
    text, confidence = text_from_tesseract(data, min_line_confidence=min_line)
    return _Pass(text, confidence, _word_count(data))


def _word_count(data: dict[str, list[Any]]) -> int:
    words = zip(data.get("text", []), data.get("conf", []), strict=False)
    return sum(1 for word, conf in words if str(word).strip() and _as_float(conf) >= 0)


def _orientation(image: np.ndarray, target: Path, deadline: float) -> int:
    """Degrees to turn the page clockwise per Tesseract's OSD; 0 when OSD cannot tell.

    OSD raises on pages with too few characters, and is sometimes wrong on sparse pages; both
    only mean the page stays as it is (the caller keeps the better of the two readings anyway).
    """
    cv2.imwrite(str(target), image)
    try:
        osd = pytesseract.image_to_osd(str(target), output_type=pytesseract.Output.DICT, timeout=_remaining(deadline))
    except pytesseract.TesseractError:
        return 0
    except RuntimeError as exc:
        if "timeout" in str(exc).lower():
            raise _PageTimeout from exc
        raise
    rotate = int(osd.get("rotate", 0)) % 360
    return rotate if rotate in (90, 180, 270) else 0


def text_from_tesseract(data: dict[str, list[Any]], *, min_line_confidence: float = 0.0) -> tuple[str, float]:
    """Rebuild text from Tesseract's word table, keeping its lines; confidence = mean word conf / 100.

    Lines are joined by a newline and paragraphs by an empty line. Lines whose mean word confidence
    is below min_line_confidence are left out of the text (see NOISE_LINE_CONFIDENCE) but their words
    still count in the confidence, so a page that is mostly noise still reads as unreliable.
    A page without any word gives ("", 0.0).
    """
    lines: dict[tuple[int, int, int], list[tuple[str, float]]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data.get("text", [])):
        word = str(word).strip()
        conf = _as_float(data["conf"][i])
        if not word or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines.setdefault(key, []).append((word, conf))
        confidences.append(conf)
    if not confidences:
        return "", 0.0
    parts: list[str] = []
    previous: tuple[int, int] | None = None
    for (block, par, _line), words in lines.items():  # dicts keep Tesseract's reading order
        if sum(conf for _, conf in words) / len(words) < min_line_confidence:
            continue
        if previous is not None:
            parts.append("\n\n" if (block, par) != previous else "\n")
        parts.append(" ".join(word for word, _ in words))
        previous = (block, par)
    confidence = sum(confidences) / len(confidences) / 100
    return "".join(parts), min(max(confidence, 0.0), 1.0)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return -1.0
