"""OCR quality and speed on the six degraded scans of ../shared/scans, per scan and overall.

    .venv/bin/python bench/scans.py [--workers 1] [--pages 1-3] [--per-page] [FILE.pdf ...]

Each page goes through precedente.services.extractor.ocr (the extractor's own path, its default settings). Per scan, and
summed over all of them:

- CER: Levenshtein distance / ground-truth length, whitespace runs collapsed, summed over pages;
  CER body: the same on the body;
- WR: word recall, the share of the ground truth's distinct 4+ letter words found in the output
  (whole page); WR body: the same over the body;
- the body is the ground truth (and the OCR text) without its running lines: the lines found at
  the top or bottom of a third or more of the pages, digits aside (ocr_metrics.running_templates:
  "Poder Judiciário / Conselho Nacional de Justiça", the decree's URL and "2/4", the journal's
  "ACÓRDÃO DE ... — PROCESSO C-40/08" and "I - 9603"). Stamps are not in a ground truth;
- conf: the document's OCR confidence (what the review rule compares with the bar), and review:
  whether the review rule sends the document to a person;
- p/s: pages per wall-clock second; p/s/core: pages per CPU second of this process (Tesseract runs
  in it, through tesserocr; children are counted too). The machine is shared, so p/s/core is the figure
  to compare (issue #16 item 5: 0.56 with the tesseract command per page, see services/extractor/ocr.py);
- with --per-page: each page's body CER and WR, confidence, turn and preprocessing steps.

--scale 1 hands Tesseract the prepared page at 300 dpi, as before READING_SCALE (issue #16 item 5).
--before runs the preprocessing as it was before the signal-chosen steps (dark edges, specks,
streaks, quick orientation) were added: the BEFORE column of issue #16.
"""

import argparse
import resource
import time
from dataclasses import dataclass, replace
from pathlib import Path

import pymupdf

from precedente.services.extractor.ocr import OcrConfig, PageOcr, ocr_pdf_pages
from precedente.services.extractor.ocr_metrics import Score, body, normalise, running_templates, score, truth_pages
from precedente.services.extractor.policy import review_verdict
from precedente.services.extractor.preprocess import PreprocessOptions
from precedente.shared.payloads import ExtractedDocument, Page
from precedente.shared.settings import Settings

SCANS = Path(__file__).resolve().parents[1].parent / "shared" / "scans"


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def page_numbers(spec: str | None, count: int) -> list[int]:
    if not spec:
        return list(range(1, count + 1))
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return [n for n in numbers if 1 <= n <= count]


@dataclass
class Totals:
    texts: list[str]
    truths: list[str]
    running: list[str]
    wall: float = 0.0
    cpu: float = 0.0


def row(name: str, texts: list[str], truths: list[str], running: tuple[str, ...], tail: str) -> str:
    result = score(texts, truths, running)
    return (
        f"{name[:34]:34} {result.cer:6.2%} {result.cer_body:6.2%} {result.word_recall:6.2%} "
        f"{result.word_recall_body:6.2%} {tail}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--pages", help="page numbers, e.g. 1-3,7 (default: all)")
    parser.add_argument("--per-page", action="store_true", help="print each page's scores and preprocessing")
    parser.add_argument("--before", action="store_true", help="the preprocessing before the signal-chosen steps")
    parser.add_argument(
        "--scale", type=float, help="scale of the prepared page Tesseract reads (default READING_SCALE; 1: 300 dpi)"
    )
    args = parser.parse_args()
    files = args.files or sorted(p for p in SCANS.glob("*.pdf") if p.with_suffix(".groundtruth.txt").exists())
    config = replace(OcrConfig(), workers=args.workers)
    if args.before:
        steps = {"dark_edges": False, "despeckle": False, "streaks": False, "quick_orientation": False}
        config = replace(config, preprocess=replace(PreprocessOptions(), **steps))
    if args.scale is not None:
        config = replace(config, preprocess=replace(config.preprocess, reading_scale=args.scale))
    settings = Settings()
    header = (
        f"{'scan':34} {'CER':>6} {'body':>6} {'WR':>6} {'body':>6} {'conf':>5} {'review':>6} {'p/s':>5} {'p/s/core':>8}"
    )
    print(header)
    print("-" * len(header))
    overall_wall = overall_cpu = 0.0
    overall_pages = 0
    scores: list[tuple[Score, int, int]] = []  # each scan's score and its ground truth's length, whole and body
    for path in files:
        truth = truth_pages(path.with_suffix(".groundtruth.txt"))
        running = running_templates(truth)
        with pymupdf.open(path) as doc:
            numbers = page_numbers(args.pages, doc.page_count)
            started, cpu = time.perf_counter(), cpu_seconds()
            read: dict[int, PageOcr] = ocr_pdf_pages(doc, numbers, path.name, config)
            wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        overall_wall, overall_cpu, overall_pages = overall_wall + wall, overall_cpu + cpu, overall_pages + len(numbers)
        texts, truths = [read[n].text for n in numbers], [truth[n - 1] for n in numbers]
        document = ExtractedDocument(
            pages=[
                Page(number=n, text=read[n].text, method="ocr", confidence=read[n].confidence, error=read[n].error)
                for n in numbers
            ]
        )
        verdict = review_verdict(document, settings)
        lengths = (sum(len(normalise(t)) for t in truths), sum(len(normalise(body(t, running))) for t in truths))
        scores.append((score(texts, truths, running), *lengths))
        tail = (
            f"{document.confidence:5.2f} {'yes' if verdict.needed else 'no':>6} "
            f"{len(numbers) / wall:5.2f} {len(numbers) / max(cpu, 1e-9):8.2f}"
        )
        print(row(path.name, texts, truths, running, tail), flush=True)
        if args.per_page:
            for n in numbers:
                page = score([read[n].text], [truth[n - 1]], running)
                steps = ",".join(getattr(read[n], "steps", ())) or "-"
                turned = f" turned {read[n].rotated}" if read[n].rotated else ""
                error = f" {read[n].error}" if read[n].error else ""
                print(
                    f"    page {n:2}: body CER {page.cer_body:6.2%} WR {page.word_recall_body:6.2%} "
                    f"conf {read[n].confidence:.2f}{turned} [{steps}]{error}",
                    flush=True,
                )
    if not scores:
        return
    whole, body_length = sum(s[1] for s in scores), sum(s[2] for s in scores)
    cer = sum(s.cer * n for s, n, _ in scores) / max(whole, 1)
    cer_body = sum(s.cer_body * n for s, _, n in scores) / max(body_length, 1)
    recall = sum(s.word_recall for s, _, _ in scores) / len(scores)
    recall_body = sum(s.word_recall_body for s, _, _ in scores) / len(scores)
    print("-" * len(header))
    print(
        f"{'overall (WR: mean of scans)':34} {cer:6.2%} {cer_body:6.2%} {recall:6.2%} {recall_body:6.2%} "
        f"{'':>5} {'':>6} {overall_pages / max(overall_wall, 1e-9):5.2f} {overall_pages / max(overall_cpu, 1e-9):8.2f}"
    )
    worst = min(s.word_recall_body for s, _, _ in scores)
    print(f"worst body word recall {worst:.2%}; {overall_pages} pages in {overall_cpu:.1f} CPU s, {overall_wall:.1f} s")


if __name__ == "__main__":
    main()
