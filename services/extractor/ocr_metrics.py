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
- Other documents have other running lines (a decree's URL and "2/4", a journal's "I - 9603"):
  running_templates() finds them in a ground truth as the two lines at a page's top or bottom that
  recur, digits aside, on a third of the pages or more (and on two or more: a journal alternates
  two); score(..., running=...) then drops them as it drops the STJ ones. Stamps are not in a
  ground truth at all (it is the
  source's text layer), so a stamp read as text costs CER but never recall.

Uses rapidfuzz, as the cleaner does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
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


_EDGE_LINES = 2
"""How many non-empty lines at a page's top and at its bottom may be running lines."""


def _fold_line(line: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("", line.lower())).strip()


def is_running_line(line: str, templates: Sequence[str] = _RUNNING_TEMPLATES) -> bool:
    """A letterhead or footer line, also when OCR garbled it a little."""
    folded = _fold_line(line)
    if not folded or len(folded) > 120:
        return False
    return any(fuzz.ratio(folded, template) >= _RUNNING_SIMILARITY for template in templates)


def running_templates(pages: Sequence[str]) -> tuple[str, ...]:
    """The STJ templates plus the lines a ground truth repeats at its pages' edges (see the module docstring)."""
    seen: Counter[str] = Counter()
    for page in pages:
        lines = [_fold_line(line) for line in page.splitlines() if line.strip()]
        seen.update({line for line in lines[:_EDGE_LINES] + lines[-_EDGE_LINES:] if line})
    needed = max(2, -(-len(pages) // 3))
    found = (line for line, count in seen.items() if count >= needed and _template_like(line))
    return _RUNNING_TEMPLATES + tuple(sorted(found))


def _template_like(line: str) -> bool:
    """A running line has a real word ("conselho nacional de justiça") or is a page number ("2/4",
    "i - 9603"); a short heading that recurs at the top of pages ("Art. 5º") is body."""
    return bool(_WORD4.search(line)) or sum(char.isalpha() for char in line) <= 2


def body(text: str, templates: Sequence[str] = _RUNNING_TEMPLATES) -> str:
    """The text without its running lines."""
    return "\n".join(line for line in text.splitlines() if not is_running_line(line, templates))


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


def score(ocr_pages: Iterable[str], truth: Iterable[str], running: Sequence[str] = _RUNNING_TEMPLATES) -> Score:
    """Compare OCR pages with their ground-truth pages, pairwise; `running` says which lines are not body."""
    errors = length = errors_body = length_body = pages = 0
    ocr_words: set[str] = set()
    truth_words: set[str] = set()
    truth_words_body: set[str] = set()
    for ocr, expected in zip(ocr_pages, truth, strict=True):
        pages += 1
        expected_norm, expected_body = normalise(expected), normalise(body(expected, running))
        errors += Levenshtein.distance(normalise(ocr), expected_norm)
        length += len(expected_norm)
        errors_body += Levenshtein.distance(normalise(body(ocr, running)), expected_body)
        length_body += len(expected_body)
        ocr_words |= words4(ocr)
        truth_words |= words4(expected)
        truth_words_body |= words4(body(expected, running))
    return Score(
        cer=errors / max(length, 1),
        cer_body=errors_body / max(length_body, 1),
        word_recall=len(truth_words & ocr_words) / max(len(truth_words), 1),
        word_recall_body=len(truth_words_body & ocr_words) / max(len(truth_words_body), 1),
        pages=pages,
    )
