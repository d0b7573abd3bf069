"""What the cleaner removes from the sample documents, with three before/after excerpts.

    .venv/bin/python bench/cleaning_report.py [--ocr]

For every PDF of ../shared/docs (text layers): pages, running header/footer and page-number lines
removed, stamp lines removed, the facts read from the stamps, and the cleaning time. Then three
excerpts, the raw text layer against the cleaned text. With --ocr it also OCRs the two scans of
../shared/docs/scanned (Tesseract, por, 300 dpi, one thread: about a minute) and prints the word
errors against their ground truth with and without the OCR corrections.
"""

import argparse
import os
import tempfile
import time
from pathlib import Path

import pymupdf

from precedente.services.cleaner import logic
from precedente.services.cleaner.corrections import correct_ocr, load
from precedente.services.cleaner.logic import CleanedDocument, clean_document
from precedente.services.extractor.ocr_metrics import truth_pages, word_errors
from precedente.shared.payloads import Page

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DOCS = SHARED / "docs"
SCANS = DOCS / "scanned"

# (file, page, what it shows)
EXCERPTS = [
    (
        "tjsp_sentenca_vara_empresarial_arbitragem.pdf",
        2,
        "e-SAJ sheet stamp, letterhead and a 'lauda' footer that text extraction put mid-page",
    ),
    ("tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf", 1, "running header, page and folio numbers, signature"),
    ("parecer_pgjmg_procon_16-2022.pdf", 17, "SEI signatures and authenticity stamp, running footer"),
]


def read(path: Path) -> list[Page]:
    with pymupdf.open(path) as doc:
        return [Page(number=i + 1, text=p.get_text()) for i, p in enumerate(doc)]


def report_files() -> dict[str, tuple[list[Page], CleanedDocument]]:
    print(f"{'file':54} {'pages':>5} {'hdr/ftr':>7} {'stamps':>6} {'ms':>6}  stamp facts")
    done: dict[str, tuple[list[Page], CleanedDocument]] = {}
    total_layout = 0
    for path in sorted(DOCS.glob("*.pdf")):
        pages = read(path)
        started = time.perf_counter()
        doc = clean_document(pages)
        elapsed = (time.perf_counter() - started) * 1000
        total_layout += sum(doc.layout_lines)
        facts = []
        if doc.stamps.signers:
            facts.append(f"signers {doc.stamps.signers}")
        if doc.stamps.signature_dates:
            facts.append("dates " + ", ".join(d.isoformat() for d in doc.stamps.signature_dates))
        if doc.stamps.verification_codes:
            facts.append(f"codes {doc.stamps.verification_codes}")
        print(
            f"{path.name:54} {len(pages):5} {sum(doc.layout_lines):7} {sum(doc.stamp_lines):6} {elapsed:6.1f}  "
            + "; ".join(facts)
        )
        done[path.name] = (pages, doc)
    print(f"{'all':54} {sum(len(p) for p, _ in done.values()):5} {total_layout:7}")
    return done


def show_excerpts(done: dict[str, tuple[list[Page], CleanedDocument]]) -> None:
    for number, (name, page, what) in enumerate(EXCERPTS, 1):
        if name not in done:
            continue
        pages, doc = done[name]
        raw = [line.rstrip() for line in pages[page - 1].text.split("\n") if line.strip()]
        cleaned = doc.pages[page - 1].text.split("\n")
        removed = doc.removed[page - 1]
        print(f"\n--- excerpt {number}: {name}, page {page} ({what})")
        print(f"removed lines: {removed}")
        print("BEFORE (raw text layer, first and last 12 lines):")
        for line in _ends(raw, 12):
            print(f"  | {line}")
        print("AFTER (cleaned, first and last 5 lines):")
        for line in _ends(cleaned, 5):
            print(f"  | {line[:160]}{'…' if len(line) > 160 else ''}")


def _ends(lines: list[str], n: int) -> list[str]:
    return lines if len(lines) <= 2 * n else [*lines[:n], "[...]", *lines[-n:]]


def ground_truth(name: str) -> list[str]:
    return truth_pages(SCANS / f"{name}.groundtruth.txt")


def report_ocr() -> None:
    import pytesseract

    os.environ["OMP_THREAD_LIMIT"] = "1"
    print(f"\n--- OCR corrections ({len(load().entries)} list entries, {len(load().vocabulary)} known words)")
    total_words = total_before = total_after = total_fixes = 0
    for scan in sorted(SCANS.glob("*.pdf")):
        name = scan.stem
        truth = ground_truth(name)
        with pymupdf.open(scan) as pdf, tempfile.TemporaryDirectory() as tmp:
            pages = []
            for i, page in enumerate(pdf):
                image = Path(tmp) / "page.pgm"
                page.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY, alpha=False).save(image)
                text = pytesseract.image_to_string(str(image), lang="por")
                pages.append(Page(number=i + 1, text=text, method="ocr", confidence=0.9))
        reference = clean_document([Page(number=i + 1, text=t) for i, t in enumerate(truth)])
        corrected = clean_document(pages)
        logic.correct_ocr = lambda text: (text, 0)  # the same cleaning without rule 10
        try:
            uncorrected = clean_document(pages)
        finally:
            logic.correct_ocr = correct_ocr
        words = before = after = 0
        for ref, old, new in zip(reference.pages, uncorrected.pages, corrected.pages, strict=True):
            ref_words = ref.text.split()
            words += len(ref_words)
            before += word_errors(ref_words, old.text.split())
            after += word_errors(ref_words, new.text.split())
        fixes = sum(corrected.corrections)
        print(
            f"{name:34} {len(pages):3} pages {words:6} words  word errors {before:5} -> {after:5} "
            f"(WER {before / words:.2%} -> {after / words:.2%}), {fixes} corrections, "
            f"{sum(corrected.layout_lines)} header/footer lines removed"
        )
        total_words, total_before, total_after, total_fixes = (
            total_words + words,
            total_before + before,
            total_after + after,
            total_fixes + fixes,
        )
    print(
        f"{'all':34} {total_words:16} words  word errors {total_before:5} -> {total_after:5} "
        f"(WER {total_before / total_words:.2%} -> {total_after / total_words:.2%}), {total_fixes} corrections"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ocr", action="store_true", help="also OCR the scans and score the corrections")
    args = parser.parse_args()
    show_excerpts(report_files())
    if args.ocr:
        report_ocr()


if __name__ == "__main__":
    main()
