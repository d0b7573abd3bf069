"""OCR quality and speed on the scanned samples, with and without preprocessing.

    .venv/bin/python bench/ocr_cer.py [--workers 2] [--pages 1-3,7] [--ablation] [FILE.pdf ...]

For every image-only PDF with a ground truth beside it (default: ../shared/docs/scanned/*.pdf), OCRs every page through
precedente.services.extractor.ocr (the extractor's own path) and prints, per mode:

- CER: Levenshtein distance / ground-truth length, whitespace runs collapsed, summed over pages;
  CER body: the same without running headers and footers (services/extractor/ocr_metrics.py);
- WR: word recall, the share of the ground truth's distinct 4+ letter words found in the output;
  WR body: the same over the ground truth without its running headers and footers;
- conf: the document's OCR confidence (what the review rule compares with the bar);
- pages/s (wall clock, `--workers` pages at a time) and pages/s per core (pages / CPU seconds of
  this process and its Tesseract children: on a shared machine, the figure that does not depend
  on what else is running).

Modes: "plain" = Tesseract on MuPDF's render at 300 dpi, nothing else; "preprocessed" = the
defaults (native pixels, deskew, stamp removal, orientation retry, noise-line filter, and the steps
chosen per page by measured signals: dark edges, specks, streaks, quick orientation; the six
degraded scans of ../shared/scans have their own bench, bench/scans.py). --ablation
adds the defaults minus one step each, and plus each step that is off by default.
"""

import argparse
import dataclasses
import resource
import sys
import time
from pathlib import Path

import pymupdf

from precedente.services.extractor.ocr import OcrConfig, ocr_pdf_pages
from precedente.services.extractor.ocr_metrics import score, truth_pages
from precedente.services.extractor.preprocess import PreprocessOptions
from precedente.shared.payloads import ExtractedDocument, Page

SCANNED = Path(__file__).resolve().parents[1].parent / "shared" / "docs" / "scanned"


def modes(ablation: bool) -> dict[str, OcrConfig]:
    default = PreprocessOptions()
    found = {
        "plain": OcrConfig(preprocess=PreprocessOptions.off(), drop_noise_lines=False),
        "preprocessed": OcrConfig(),
    }
    if ablation:
        steps = ("native_pixels", "deskew", "remove_stamps", "orientation")
        signal_steps = ("dark_edges", "despeckle", "streaks", "quick_orientation")  # chosen per page by signals
        for step in steps + signal_steps:
            found[f"- {step}"] = OcrConfig(preprocess=dataclasses.replace(default, **{step: False}))
        found["- noise-line filter"] = OcrConfig(drop_noise_lines=False)
        for step in ("denoise", "binarise"):
            found[f"+ {step}"] = OcrConfig(preprocess=dataclasses.replace(default, **{step: True}))
    return found


def page_numbers(spec: str | None, count: int) -> list[int]:
    if not spec:
        return list(range(1, count + 1))
    numbers: list[int] = []
    for part in spec.split(","):
        first, _, last = part.partition("-")
        numbers.extend(range(int(first), int(last or first) + 1))
    return [n for n in numbers if 1 <= n <= count]


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pages", help="page numbers, e.g. 1-3,7 (default: all)")
    parser.add_argument("--ablation", action="store_true", help="also measure each preprocessing step alone")
    parser.add_argument("--per-page", action="store_true", help="print each page's body CER and confidence")
    args = parser.parse_args()
    files = args.files or sorted(p for p in SCANNED.glob("*.pdf") if p.with_suffix(".groundtruth.txt").exists())
    columns = ("CER", "body", "WR", "body")
    header = (
        f"{'file':34} {'mode':22} " + " ".join(f"{c:>6}" for c in columns) + f" {'conf':>5} {'p/s':>5} {'p/s/core':>8}"
    )
    print(header)
    print("-" * len(header))
    for path in files:
        truth = truth_pages(path.with_suffix(".groundtruth.txt"))
        with pymupdf.open(path) as doc:
            numbers = page_numbers(args.pages, doc.page_count)
            for name, base in modes(args.ablation).items():
                config = dataclasses.replace(base, workers=args.workers)
                started, cpu = time.perf_counter(), cpu_seconds()
                read = ocr_pdf_pages(doc, numbers, path.name, config)
                wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
                texts = [read[n].text for n in numbers]
                result = score(texts, [truth[n - 1] for n in numbers])
                pages = [
                    Page(number=n, text=read[n].text, method="ocr", confidence=read[n].confidence) for n in numbers
                ]
                document = ExtractedDocument(pages=pages)
                print(
                    f"{path.name[:34]:34} {name:22} {result.cer:6.2%} {result.cer_body:6.2%} "
                    f"{result.word_recall:6.2%} {result.word_recall_body:6.2%} {document.confidence:5.2f} "
                    f"{len(numbers) / wall:5.2f} {len(numbers) / cpu:8.2f}",
                    flush=True,
                )
                if args.per_page:
                    for n in numbers:
                        page = score([read[n].text], [truth[n - 1]])
                        note = f" rotated {read[n].rotated}" if read[n].rotated else ""
                        note += f" {read[n].error}" if read[n].error else ""
                        print(f"    page {n:3}: body CER {page.cer_body:6.2%} conf {read[n].confidence:.2f}{note}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
