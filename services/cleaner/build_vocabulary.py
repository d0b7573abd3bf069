"""Offline builder of data/vocabulary.txt, the known-word list that guards the OCR corrections.

    .venv/bin/python -m precedente.services.cleaner.build_vocabulary [--shared ../shared] [--min-count 3]

A correction from data/ocr_corrections.tsv is applied only when its result is a known word and the
word it replaces is not, so the list must hold real legal Portuguese and nothing else. It is counted
from real text: the text layers of the sample PDFs (../shared/docs/*.pdf) and the JurisTCU corpus
(../shared/bench/juristcu/corpus.jsonl), keeping the words seen at least --min-count times (a word
seen once or twice may be a typo of its source). The cleaner reads only the shipped file, never
../shared, so this script runs when the sources change, not at run time.
"""

import argparse
import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(__file__).resolve().parent / "data" / "vocabulary.txt"
_WORD = re.compile(r"[^\W\d_]+")
_MARKUP = re.compile(r"<[^>]*>|https?://\S+|www\.\S+")


def count_words(texts: list[str]) -> Counter[str]:
    """Lower-cased NFC words of the texts, markup and addresses left out."""
    counts: Counter[str] = Counter()
    for text in texts:
        text = _MARKUP.sub(" ", unicodedata.normalize("NFC", text))
        counts.update(word.lower() for word in _WORD.findall(text))
    return counts


def read_sources(shared: Path) -> tuple[list[str], list[str]]:
    """(sample PDF texts, JurisTCU texts)."""
    pdfs = []
    for path in sorted((shared / "docs").glob("*.pdf")):
        with pymupdf.open(path) as doc:
            pdfs.append("\n".join(page.get_text() for page in doc))
    with (shared / "bench" / "juristcu" / "corpus.jsonl").open(encoding="utf-8") as lines:
        tcu = [json.loads(line)["text"] for line in lines if line.strip()]
    return pdfs, tcu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--min-count", type=int, default=3)
    args = parser.parse_args()
    pdfs, tcu = read_sources(args.shared)
    counts = count_words(pdfs) + count_words(tcu)
    words = sorted(w for w, n in counts.items() if n >= args.min_count)
    header = [
        "# Known words of legal Portuguese (lower case, NFC), one a line: the guard of the OCR corrections.",
        f"# Counted by services/cleaner/build_vocabulary.py: words seen at least {args.min_count} times in the",
        f"# text layers of the {len(pdfs)} sample PDFs of ../shared/docs and the {len(tcu)} JurisTCU texts",
        f"# (../shared/bench/juristcu/corpus.jsonl), {sum(counts.values())} words in all.",
    ]
    TARGET.write_text("\n".join(header + words) + "\n", encoding="utf-8")
    print(f"{len(words)} words -> {TARGET}")


if __name__ == "__main__":
    main()
