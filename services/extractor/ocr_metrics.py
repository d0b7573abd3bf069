"""How close OCR comes to a ground truth: character error rate and word recall (bench and tests).

- CER: Levenshtein distance / ground-truth length, after collapsing every whitespace run to one
  space, summed over pages.
- Word recall: share of the ground truth's distinct words of 4+ letters (case-insensitive) that
  appear anywhere in the OCR output.
- "Running lines" are the court's letterhead and the page footer ("Superior Tribunal de Justiça",
  "Documento: ... - Inteiro Teor do Acórdão - Site certificado - DJe: ...", "Página N de M"),
  which the cleaner drops as boilerplate. The sample ground truths hold a calligraphic letterhead
  that no OCR reads and miss a printed one that OCR does read, so scores are also given with
  running lines removed from both sides (the *_body figures).

Needs rapidfuzz (a test/bench dependency, not one of the services').
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein

_PAGE_MARK = re.compile(r"^=== page \d+ ===[ \t]*$", re.MULTILINE)
_WORD4 = re.compile(r"[^\W\d_]{4,}")
_SPACES = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
_RUNNING_TEMPLATES = (
    "superior tribunal de justiça",
    "documento: - inteiro teor do acórdão - site certificado - dje: //",
    "página de",
    "documento: - inteiro teor do acórdão - site certificado - dje: // página de",
)
_RUNNING_SIMILARITY = 70.0


def truth_pages(path: Path) -> list[str]:
    """Ground-truth pages: files use either "=== page N ===" lines or form feeds between pages."""
    text = path.read_text(encoding="utf-8")
    if _PAGE_MARK.search(text):
        return _PAGE_MARK.split(text)[1:]
    return text.split("\f")


def word_errors(reference: list[str], hypothesis: list[str]) -> int:
    """Word-level edit distance (substitutions, insertions, deletions)."""
    return Levenshtein.distance(reference, hypothesis)


def normalise(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def is_running_line(line: str) -> bool:
    """A letterhead or footer line, also when OCR garbled it a little."""
    folded = _SPACES.sub(" ", _DIGITS.sub("", line.lower())).strip()
    if not folded or len(folded) > 120:
        return False
    return any(fuzz.ratio(folded, template) >= _RUNNING_SIMILARITY for template in _RUNNING_TEMPLATES)


def body(text: str) -> str:
    """The text without its running lines."""
    return "\n".join(line for line in text.splitlines() if not is_running_line(line))


def words4(text: str) -> set[str]:
    return {word.lower() for word in _WORD4.findall(text)}


@dataclass(frozen=True)
class Score:
    """Scores of one document (or a subset of its pages)."""

    cer: float
    cer_body: float
    word_recall: float
    word_recall_body: float
    pages: int


def score(ocr_pages: Iterable[str], truth: Iterable[str]) -> Score:
    """Compare OCR pages with their ground-truth pages, pairwise."""
    errors = length = errors_body = length_body = pages = 0
    ocr_words: set[str] = set()
    truth_words: set[str] = set()
    truth_words_body: set[str] = set()
    for ocr, expected in zip(ocr_pages, truth, strict=True):
        pages += 1
        expected_norm, expected_body = normalise(expected), normalise(body(expected))
        errors += Levenshtein.distance(normalise(ocr), expected_norm)
        length += len(expected_norm)
        errors_body += Levenshtein.distance(normalise(body(ocr)), expected_body)
        length_body += len(expected_body)
        ocr_words |= words4(ocr)
        truth_words |= words4(expected)
        truth_words_body |= words4(body(expected))
    return Score(
        cer=errors / max(length, 1),
        cer_body=errors_body / max(length_body, 1),
        word_recall=len(truth_words & ocr_words) / max(len(truth_words), 1),
        word_recall_body=len(truth_words_body & ocr_words) / max(len(truth_words_body), 1),
        pages=pages,
    )
