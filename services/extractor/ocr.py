"""OCR of PDF pages with Tesseract: one thread per page, several pages at once, each page bounded in time.

Per page: get its pixels (preprocess.page_image, in the calling thread: MuPDF is not thread-safe),
then in a worker thread clean and straighten them (preprocess.prepare_page: the fixes its measured
signals call for and the deskew at ~300 dpi; then shrunk to ~150 dpi, preprocess.READING_SCALE, and
given a quarter turn when the projection profiles show the page sideways or upside down) and hand
the pixels to Tesseract's C API (tesserocr, which bundles libtesseract 5.5 and reads the language
data Debian's tesseract-ocr-por installs). A first pass that still reads the page with low confidence
asks Tesseract's OSD which way up the page is and, if it is turned, reads it again the right way up.
PageOcr.steps says what each page got (bench/scans.py prints it).

Why the C API and not the tesseract command (pytesseract, until issue #16 item 5): the command started a
process and loaded the model for every page (0.23 s) and took the page through a file; here each thread
borrows an initialised Tesseract (_Engines) and hands it the numpy buffer. On the six scans of ../shared/scans
(bench/scans.py, all 37 pages, CPU time) Tesseract's share fell from ~1.55 to ~0.95 s a page and the whole
path went from 0.56 to 0.79 pages/s per core, body word recall 98.43% -> 98.39% (Tesseract 5.3 -> 5.5);
0.83 with preprocess's cheaper speck count (0.52 -> 0.74 with the old and new paths run side by side on
the loaded 2-core machine: CPU seconds grow with the load, compare runs made together).
Reading at 150 dpi instead of 195, with cheaper speck, streak and skew measures and the quick orientation judged
on the shrunk page in preprocess (issue #16 item 5, last gap): the six scans 1.02-1.04 -> 1.24-1.29 pages/s per
core, the faded copy 0.80-0.82 -> 0.91-0.99, the turned decree 0.75-0.78 -> 0.86-0.93, the fax 0.77-0.85 ->
1.03-1.09 (bench/scans.py, the old and new code run in turn on the loaded machine); body word recall 98.83% ->
98.85% over the six, the worst scan (the fax) 97.20% -> 97.05%.
Tesseract releases the GIL while it reads, so the pages of one process still run in parallel.

The time limit: Tesseract's recogniser checks a deadline (Recognize(timeout)) between words, so a page
past config.page_timeout_s stops there and fails alone; layout analysis and OSD have no such check and
cannot be interrupted inside a thread, which is why the extractor reads every document in a child process
with a wall-clock limit of its own (isolation.IsolatedRunner) that it kills, Tesseract and all.
"""

from __future__ import annotations

import fcntl
import functools
import os
import random
import threading
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

from precedente.services.extractor.preprocess import (
    MAX_PAGE_PIXELS,
    PreprocessOptions,
    deskew,
    page_image,
    prepare_page,
    rotate_quarter,
)
from precedente.services.extractor.search_gate import DocumentYield, SearchGate
from precedente.shared.errors import damaged_pdf

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
class ReadSignals:
    """Word-level figures of one Tesseract reading, the quality signals beside the mean confidence.

    words: words read (confidence >= 0); mean_conf: their mean confidence / 100; low_share: the share read below
    LOW_WORD_CONFIDENCE; dictionary_share: the share of the alphabetic words of 3+ letters that Tesseract found
    in its Portuguese dictionary (WordIsFromDictionary); unread_ink: the share of the page's letter-sized ink that
    lies outside every word Tesseract read (unread_ink_share): text its layout analysis skipped.
    """

    words: int = 0
    mean_conf: float = 0.0
    low_share: float = 0.0
    dictionary_share: float = 0.0
    unread_ink: float = 0.0


@dataclass(frozen=True)
class PageOcr:
    """What OCR made of one page. error says why a page could not be read (its text is then empty)."""

    text: str
    confidence: float
    error: str | None = None
    rotated: int = 0
    steps: tuple[str, ...] = ()
    signals: ReadSignals = field(default_factory=ReadSignals)


class _PageTimeout(Exception):
    pass


class _PageUnreadable(Exception):
    """Tesseract refused the page image itself (one side over its 32767 px limit): the page fails alone."""


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


_search_gate: SearchGate | None = None


def with_page_slots(
    slots: PageSlots | None,
    fn: Callable[..., T],
    *args: Any,
    search_gate: SearchGate | None = None,
    **kwargs: Any,
) -> T:
    """fn(*args, **kwargs) with this process's OCR'd pages holding `slots`, each first asking `search_gate` whether
    search lets it be read now (search_gate.py): what the extractor sends its reading children (IsolatedRunner
    pickles fn by name, so a child imports only what fn needs)."""
    global _search_gate
    share_page_slots(slots)
    _search_gate = search_gate
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


def _read_page(
    recorder: list[PageTiming] | None,
    budget: DocumentYield | None,
    number: int,
    start_ns: int,
    image: np.ndarray,
    config: OcrConfig,
) -> PageOcr:
    """One page in a worker thread: first yielding to search (bounded) when a gate is shared, then read."""
    if budget is not None and budget.before_page() > 0:
        start_ns = time.time_ns()  # the trace's OCR span is the reading, not the wait for search
    read = read_page_image(image, config)
    if recorder is not None:
        recorder.append(PageTiming(number, start_ns, time.time_ns(), read.confidence))
    return read


def ocr_pdf_pages(doc: pymupdf.Document, numbers: list[int], filename: str, config: OcrConfig) -> dict[int, PageOcr]:
    """OCR the given pages (1-based), `config.workers` at a time, each page first yielding to search when the
    extractor shares a gate (with_page_slots).

    Pages are rendered one at a time, at most 2 * workers ahead of the workers, so memory stays
    bounded whatever the page count. A page that runs past config.page_timeout_s comes back
    with an error and confidence 0; the others are unaffected.
    """
    results: dict[int, PageOcr] = {}
    if not numbers:
        return results
    workers = max(1, config.workers)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr") as pool:
        pending: dict[Future[PageOcr], int] = {}

        def collect(done: set[Future[PageOcr]]) -> None:
            for future in done:
                results[pending.pop(future)] = future.result()

        recorder = _timings.get()
        budget = _search_gate.for_document() if _search_gate is not None else None
        for number in numbers:
            if len(pending) >= 2 * workers:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                collect(done)
            start_ns = time.time_ns()
            image = _page_pixels(doc, number, filename, config)
            pending[pool.submit(_read_page, recorder, budget, number, start_ns, image, config)] = number
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


def read_page_image(image: np.ndarray, config: OcrConfig) -> PageOcr:
    """Preprocess and OCR one page image within config.page_timeout_s (thread-safe).

    Tesseract errors other than the time limit (language data missing) are not the file's fault, so
    they propagate and the stage retries instead of dead-lettering a good document.
    """
    if _page_slots is not None:
        with _page_slots.hold():
            return _read_page_image(image, config)
    return _read_page_image(image, config)


def _read_page_image(image: np.ndarray, config: OcrConfig) -> PageOcr:
    deadline = time.monotonic() + config.page_timeout_s
    try:
        prepared = prepare_page(image, _preprocess_options(config))
        image, steps = prepared.image, prepared.steps
        first = _tesseract(image, config, deadline)
        if (
            config.preprocess.orientation
            and first.confidence < ORIENTATION_CHECK_BELOW
            and first.words >= MIN_WORDS_FOR_ORIENTATION
        ):
            best, best_turn = first, 0
            for rotate in _turns_to_try(_orientation(image, deadline), prepared.rotated):
                turned = rotate_quarter(image, rotate)
                if config.preprocess.deskew:
                    turned = deskew(turned)
                second = _tesseract(turned, config, deadline)
                if second.confidence > best.confidence:
                    best, best_turn = second, rotate
                if best.confidence >= ORIENTATION_CHECK_BELOW:
                    break
            if best_turn:
                return PageOcr(
                    best.text,
                    best.confidence,
                    rotated=(prepared.rotated + best_turn) % 360,
                    steps=(*steps, f"osd {best_turn}"),
                    signals=best.signals,
                )
        return PageOcr(first.text, first.confidence, rotated=prepared.rotated, steps=steps, signals=first.signals)
    except _PageTimeout:
        return PageOcr("", 0.0, error=f"OCR did not finish within {config.page_timeout_s:g} s")
    except _PageUnreadable as exc:
        return PageOcr("", 0.0, error=str(exc))


def _turns_to_try(osd: int, quick: int) -> list[int]:
    """The turns worth a second reading of a page read poorly: OSD's answer when it has one; otherwise the page
    the other way up, then (if the quick orientation turned it) the quick turn undone.

    Why the half turn: on generated pages (bench/scan_gate.py, tuning seeds 0-299) OSD answered 0 for an upside-down
    A5 page that the quick orientation had turned the wrong way (read at 0.41, no word right; the other way up: 0.93
    and every word): the quick orientation's sideways test is sure, its up-or-down test is the one that errs.
    """
    if osd:
        return [osd]
    turns = [180]
    if quick and quick != 180:
        turns.append(360 - quick)
    return turns


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
    signals: ReadSignals = field(default_factory=ReadSignals)


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _PageTimeout
    return left


# --------------------------------------------------------------------------------------------
# Tesseract through its C API (tesserocr)
# --------------------------------------------------------------------------------------------

TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata")
"""Where Debian's tesseract-ocr-por and tesseract-ocr-osd put the language data (the Dockerfile and
`make install` install those packages); TESSDATA_PREFIX, Tesseract's own variable, goes first. The
wheel's libtesseract would otherwise look in a path of its build machine."""

OSD_LANGUAGE = "osd"


@functools.cache
def tessdata_dir(language: str) -> str:
    """The tessdata directory that holds every language of `language` ("por", "por+eng"), with a trailing /."""
    wanted = language.split("+")
    prefix = os.environ.get("TESSDATA_PREFIX")
    candidates = [Path(prefix)] if prefix else []
    candidates += [Path(d) for d in TESSDATA_DIRS]
    candidates += sorted(Path("/usr/share/tesseract-ocr").glob("*/tessdata"), reverse=True)
    for directory in candidates:
        if all((directory / f"{name}.traineddata").is_file() for name in wanted):
            return f"{directory}/"
    searched = ", ".join(dict.fromkeys(str(d) for d in candidates))
    raise RuntimeError(
        f"Tesseract language data {language!r} not found in {searched}: install tesseract-ocr-{wanted[0]} "
        "(`make install`) or set TESSDATA_PREFIX"
    )


@functools.cache
def _tesserocr() -> Any:
    """The binding, imported on the first page: processes that never OCR do not map libtesseract."""
    import tesserocr

    return tesserocr


class _Engines:
    """Initialised Tesseract instances per language, lent to one page at a time (one per thread reading).

    Loading a model costs ~0.1 s of CPU and a few tens of MB; a reading child keeps the instances for
    the documents after this one. An instance has no lock of its own, so it is never shared while lent.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[str, list[Any]] = {}
        self._starting = threading.Lock()  # Tesseract's parameters are process-wide while an instance loads

    @contextmanager
    def borrow(self, language: str) -> Iterator[Any]:
        with self._lock:
            idle = self._idle.setdefault(language, [])
            api = idle.pop() if idle else None
        if api is None:
            with self._starting:
                api = self._start(language)
        healthy = True
        try:
            yield api
        except (_PageTimeout, _PageUnreadable):
            raise  # Tesseract stopped at its deadline or refused the image: the instance is as good as before
        except BaseException:
            healthy = False
            api.End()  # its state is unknown: the next page gets a fresh one
            raise
        finally:
            if healthy:
                api.Clear()
                with self._lock:
                    self._idle.setdefault(language, []).append(api)

    @staticmethod
    def _start(language: str) -> Any:
        tesserocr = _tesserocr()
        psm = tesserocr.PSM.OSD_ONLY if language == OSD_LANGUAGE else tesserocr.PSM.AUTO
        return tesserocr.PyTessBaseAPI(path=tessdata_dir(language), lang=language, psm=psm)

    def forget(self) -> None:
        """Drop every instance without ending it (a forked child must not touch its parent's)."""
        self._lock, self._starting = threading.Lock(), threading.Lock()
        self._idle = {}


_engines = _Engines()
os.register_at_fork(after_in_child=_engines.forget)


def _set_image(api: Any, image: np.ndarray) -> bytes:
    """Hand the pixels to Tesseract; the caller keeps the returned buffer alive while Tesseract reads it."""
    pixels = np.ascontiguousarray(image, dtype=np.uint8).tobytes()
    height, width = image.shape
    api.SetImageBytes(pixels, width, height, 1, width)
    return pixels


def _tesseract(image: np.ndarray, config: OcrConfig, deadline: float) -> _Pass:
    with _engines.borrow(config.language) as api:
        api.SetPageSegMode(config.psm)
        pixels = _set_image(api, image)
        finished = api.Recognize(max(1, int(_remaining(deadline) * 1000)))  # 0 would mean no limit
        if not finished:
            _remaining(deadline)  # past the deadline: a page timeout
            raise _PageUnreadable(
                f"Tesseract could not lay out the page image ({image.shape[1]} x {image.shape[0]} px)"
            )
        data = tsv_table(api.GetTSVText(0))
        dictionary = _dictionary_flags(api)
        del pixels
    min_line = NOISE_LINE_CONFIDENCE if config.drop_noise_lines else 0.0
    text, confidence = text_from_tesseract(data, min_line_confidence=min_line)
    signals = replace(read_signals(data, dictionary), unread_ink=unread_ink_share(image, data))
    return _Pass(text, page_confidence(confidence, signals), _word_count(data), signals)


UNREAD_INK_WEIGHT = 1.0
UNREAD_INK_ALLOWANCE = 0.06
"""Unread ink up to this share costs nothing: a form's dotted fields, a seal's lettering, a signature (the
Apostille page of ../shared/scans' turned decree reads every word with 0.053 of its ink outside them)."""
LOW_SHARE_WEIGHT = 0.25
NON_DICTIONARY_WEIGHT = 0.1


def page_confidence(mean_confidence: float, signals: ReadSignals) -> float:
    """The page's confidence, what the review gate compares with its bar: Tesseract's mean word confidence less
    what the other signals say it misses (ink it never read, words it read unsure, words no dictionary knows).

    Why: the mean word confidence says nothing of the words Tesseract skipped, and little of a page where a few
    words go badly wrong. On generated degraded pages (bench/scan_gate.py, tuning seeds 0-299, after this issue's
    stamp and orientation fixes) the mean alone at the 0.85 bar let 14 of the 22 pages that read below 0.95 of their
    words pass (6 of 266 good pages reviewed); with these weights (a grid over 0-1 / 0-1 / 0-0.3, a missed page
    counted as four reviews, and the allowance below) 9 pass and 10 good pages are reviewed.
    """
    if signals.words == 0:
        return mean_confidence
    penalty = (
        UNREAD_INK_WEIGHT * max(0.0, signals.unread_ink - UNREAD_INK_ALLOWANCE)
        + LOW_SHARE_WEIGHT * signals.low_share
        + NON_DICTIONARY_WEIGHT * (1 - signals.dictionary_share)
    )
    return min(max(mean_confidence - penalty, 0.0), 1.0)


LOW_WORD_CONFIDENCE = 60.0
"""A word Tesseract reads below this confidence (0-100) counts as a low-confidence word in ReadSignals."""


def _dictionary_flags(api: Any) -> list[bool]:
    """For each alphabetic word of 3+ letters of the last reading, whether it is in Tesseract's dictionary."""
    tesserocr = _tesserocr()
    level = tesserocr.RIL.WORD
    iterator = api.GetIterator()
    if iterator is None:
        return []
    flags: list[bool] = []
    for word in tesserocr.iterate_level(iterator, level):
        try:
            text = word.GetUTF8Text(level) or ""
        except RuntimeError:  # an empty word: tesserocr raises "No text returned"
            continue
        if sum(char.isalpha() for char in text) >= 3:
            flags.append(bool(word.WordIsFromDictionary()))
    return flags


_LETTER_HEIGHT_PX = (4, 40)
"""Heights of letter-sized ink blobs on the page Tesseract reads (~150 dpi: 6-12 pt letters are 8-25 px);
specks are smaller, stamps, rules and streaks larger."""
_LETTER_MAX_WIDTH_PX = 120
_WORD_BOX_MARGIN_PX = 3


def unread_ink_share(image: np.ndarray, data: dict[str, list[Any]]) -> float:
    """The share of letter-sized ink (Otsu-dark connected blobs of letter height) outside the boxes of the words read.

    Confidence says how sure Tesseract is of the words it read, nothing about those it never read: a paragraph
    its layout analysis took for a picture is simply missing, and the page still reads at 0.94-0.96.
    """
    _, dark = cv2.threshold(image, 0, 1, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    heights, widths = stats[:, cv2.CC_STAT_HEIGHT], stats[:, cv2.CC_STAT_WIDTH]
    letters = (heights >= _LETTER_HEIGHT_PX[0]) & (heights <= _LETTER_HEIGHT_PX[1]) & (widths <= _LETTER_MAX_WIDTH_PX)
    letters[0] = False  # the background
    ink = letters[labels]
    total = int(ink.sum())
    if total == 0:
        return 0.0
    covered = np.zeros(image.shape, dtype=bool)
    margin = _WORD_BOX_MARGIN_PX
    columns = ("level", "left", "top", "width", "height", "text", "conf")
    for level, left, top, width, height, word, conf in zip(*(data[name] for name in columns), strict=False):
        if level == 5 and str(word).strip() and _as_float(conf) >= 0:
            covered[max(0, top - margin) : top + height + margin, max(0, left - margin) : left + width + margin] = True
    return float((ink & ~covered).sum()) / total


def read_signals(data: dict[str, list[Any]], dictionary: list[bool]) -> ReadSignals:
    """ReadSignals of a reading from its TSV table and its words' dictionary flags."""
    confs = [
        _as_float(conf)
        for word, conf in zip(data.get("text", []), data.get("conf", []), strict=False)
        if str(word).strip() and _as_float(conf) >= 0
    ]
    if not confs:
        return ReadSignals()
    return ReadSignals(
        words=len(confs),
        mean_conf=sum(confs) / len(confs) / 100,
        low_share=sum(conf < LOW_WORD_CONFIDENCE for conf in confs) / len(confs),
        dictionary_share=sum(dictionary) / len(dictionary) if dictionary else 1.0,  # no word to judge: no sign
    )


_TSV_COLUMNS = ("level", "page_num", "block_num", "par_num", "line_num", "word_num")
_TSV_FIELDS = 12


def tsv_table(tsv: str) -> dict[str, list[Any]]:
    """Tesseract's TSV as columns (what `tesseract ... tsv` prints and pytesseract's image_to_data gave):
    block_num, par_num, line_num, conf, text, ... one entry per row."""
    data: dict[str, list[Any]] = {
        name: [] for name in (*_TSV_COLUMNS, "left", "top", "width", "height", "conf", "text")
    }
    names = list(data)
    for line in tsv.splitlines():
        fields = line.split("\t")
        if len(fields) < _TSV_FIELDS - 1 or not fields[0].isdigit():
            continue  # a header row, should a version print one
        fields += [""] * (_TSV_FIELDS - len(fields))
        for name, value in zip(names, fields[:_TSV_FIELDS], strict=True):
            data[name].append(value if name == "text" else _as_float(value) if name == "conf" else int(value))
    return data


def _word_count(data: dict[str, list[Any]]) -> int:
    words = zip(data.get("text", []), data.get("conf", []), strict=False)
    return sum(1 for word, conf in words if str(word).strip() and _as_float(conf) >= 0)


def _orientation(image: np.ndarray, deadline: float) -> int:
    """Degrees to turn the page clockwise per Tesseract's OSD; 0 when OSD cannot tell.

    OSD finds nothing on pages with too few characters, and is sometimes wrong on sparse pages; both
    only mean the page stays as it is (the caller keeps the better of the two readings anyway). OSD
    takes no deadline, so the time is checked before and after it.
    """
    _remaining(deadline)
    with _engines.borrow(OSD_LANGUAGE) as api:
        pixels = _set_image(api, image)
        osd = api.DetectOrientationScript()
        del pixels
    _remaining(deadline)
    if not osd:
        return 0
    rotate = (360 - int(osd.get("orient_deg", 0))) % 360  # how the page lies -> how far to turn it back
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
