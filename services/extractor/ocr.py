"""OCR of PDF pages with Tesseract: one thread per page, several pages at once."""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

import pymupdf
import pytesseract

from services.extractor.errors import damaged_pdf

# Tesseract (through OpenMP) would otherwise use every core for one page; we get more from one
# thread per page and several pages at once. pytesseract's subprocess inherits os.environ.
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

TESSERACT_TIMEOUT_S = 300
"""One page that takes Tesseract longer than this is pathological; better to fail the attempt."""


def ocr_pdf_pages(
    doc: pymupdf.Document,
    numbers: list[int],
    filename: str,
    *,
    language: str,
    dpi: int,
    workers: int,
) -> dict[int, tuple[str, float]]:
    """OCR the given pages, several at a time.

    MuPDF is not thread-safe, so pages are rendered here, one after another, to uncompressed
    greyscale files (cheap to write, cheap for Tesseract to read); only Tesseract, a subprocess,
    runs in the pool. At most 2 * workers rendered pages wait on disk at any time.
    """
    results: dict[int, tuple[str, float]] = {}
    if not numbers:
        return results
    with (
        tempfile.TemporaryDirectory(prefix="precedente-ocr-") as tmp,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ocr") as pool,
    ):
        pending: dict[Future[tuple[str, float]], int] = {}

        def collect(done: set[Future[tuple[str, float]]]) -> None:
            for future in done:
                results[pending.pop(future)] = future.result()

        for number in numbers:
            if len(pending) >= 2 * workers:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                collect(done)
            image = Path(tmp) / f"page-{number:05d}.pgm"
            _render(doc, number, dpi, image, filename)
            pending[pool.submit(_ocr_image, image, language)] = number
        done, _ = wait(pending)
        collect(done)
    return results


def _render(doc: pymupdf.Document, number: int, dpi: int, target: Path, filename: str) -> None:
    try:
        pix = doc.load_page(number - 1).get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        pix.save(str(target))
    except Exception as exc:  # only MuPDF calls above
        raise damaged_pdf(filename, f"page {number} cannot be rendered for OCR ({exc})") from exc


def _ocr_image(image: Path, language: str) -> tuple[str, float]:
    """Tesseract on one rendered page; the file is deleted as soon as it has been read.

    Tesseract errors (not installed, language data missing, timeout) are not the file's fault,
    so they propagate and the stage retries instead of dead-lettering a good document.
    """
    try:
        data = pytesseract.image_to_data(
            str(image),
            lang=language,
            output_type=pytesseract.Output.DICT,
            timeout=TESSERACT_TIMEOUT_S,
        )
    finally:
        image.unlink(missing_ok=True)
    return text_from_tesseract(data)


def text_from_tesseract(data: dict[str, list[Any]]) -> tuple[str, float]:
    """Rebuild text from Tesseract's word table, keeping its lines; confidence = mean word conf / 100.

    Lines are joined by a newline and paragraphs by an empty line. A page without any word gives
    ("", 0.0).
    """
    lines: dict[tuple[int, int, int], list[str]] = {}
    confidences: list[float] = []
    for i, word in enumerate(data.get("text", [])):
        word = str(word).strip()
        conf = _as_float(data["conf"][i])
        if not word or conf < 0:
            continue
        key = (int(data["block_num"][i]), int(data["par_num"][i]), int(data["line_num"][i]))
        lines.setdefault(key, []).append(word)
        confidences.append(conf)
    if not confidences:
        return "", 0.0
    parts: list[str] = []
    previous: tuple[int, int] | None = None
    for block, par, line in lines:  # dicts keep Tesseract's reading order
        if previous is not None:
            parts.append("\n\n" if (block, par) != previous else "\n")
        parts.append(" ".join(lines[(block, par, line)]))
        previous = (block, par)
    confidence = sum(confidences) / len(confidences) / 100
    return "".join(parts), min(max(confidence, 0.0), 1.0)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return -1.0
