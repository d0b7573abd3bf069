"""OCR corrections for legal Portuguese, guarded by a vocabulary so that correct text stays as it is.

Tesseract misreads a handful of shapes again and again: "rn" and "m", "l" and "I" or "1", "t" and
"f", lost accents, and the section sign ("$ 1º", "8 2º"). In legal text those errors fall on the
words lawyers search for ("mérito", "lei", "art.", "§ 1º"), so fixing them is worth the risk, and
the risk is kept small:

- Only OCR pages are corrected (the caller decides; a text layer is what the author typed).
- A list entry (data/ocr_corrections.tsv) fires only on a whole token, only when its result is a
  known word (data/vocabulary.txt, counted from real legal texts) and the token is not.
- Contextual rules fire only in citation context: "§" after "art. N," or before "do art."/"da Lei";
  roman numerals after "inciso(s)" or "art. N,"; a lower-case roman numeral between brackets.
"""

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from precedente.shared.legal.text import strip_accents

DATA = Path(__file__).resolve().parent / "data"
CORRECTIONS_FILE = DATA / "ocr_corrections.tsv"
VOCABULARY_FILE = DATA / "vocabulary.txt"

_LETTERS = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Corrections:
    """The correction table and the vocabulary, loaded once."""

    entries: dict[str, str]  # wrong -> right; lower-case keys match any case
    exact: frozenset[str]  # wrong forms written with a capital letter: matched as written
    vocabulary: frozenset[str]
    pattern: re.Pattern[str]


def _read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [unicodedata.normalize("NFC", line) for line in lines if line.strip() and not line.startswith("#")]


@cache
def load() -> Corrections:
    """Read the two data files shipped with the package (never ../shared)."""
    vocabulary = frozenset(line.strip() for line in _read_lines(VOCABULARY_FILE))
    entries: dict[str, str] = {}
    exact: set[str] = set()
    for line in _read_lines(CORRECTIONS_FILE):
        wrong, right = (part.strip() for part in line.split("\t", 1))
        entries[wrong] = right
        if wrong != wrong.lower():
            exact.add(wrong)
    forms = sorted(entries, key=len, reverse=True)
    insensitive = [re.escape(w) for w in forms if w not in exact]
    sensitive = [re.escape(w) for w in forms if w in exact]
    alternatives = [f"(?i:{'|'.join(insensitive)})"] if insensitive else []
    alternatives += sensitive
    pattern = re.compile(rf"(?<![\w\-])(?:{'|'.join(alternatives)})(?![\w])")
    return Corrections(entries, frozenset(exact), vocabulary, pattern)


def _known(word: str, vocabulary: frozenset[str]) -> bool:
    """Whether every run of letters of `word` is a known word."""
    parts = _LETTERS.findall(word.lower())
    return bool(parts) and all(p in vocabulary for p in parts)


_ACCENTED_CAPITALS = re.compile(r"\b[A-Z]*[À-ÖØ-Ý][A-ZÀ-ÖØ-Ý]*\b")


def _accented_capitals_near(match: re.Match[str]) -> bool:
    """Whether the line of an all-caps match has another all-caps word with an accent.

    Court systems print party names and addresses in capitals without accents ("FISCHER AMERICA
    COMUNICACAO", "PRACA DOUTOR JOAO MENDES"); an accent is restored in capitals only where the
    same line shows that its source writes them ("AÇÃO ANULATÓRIA ... AUSENCIA").
    """
    text = match.string
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    line = text[start : end if end >= 0 else len(text)]
    return any(m.group(0) != match.group(0) for m in _ACCENTED_CAPITALS.finditer(line))


def _with_case_of(source: str, target: str) -> str:
    """`target` written in the case of `source` (upper, capitalised or as written)."""
    letters = [ch for ch in source if ch.isalpha()]
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return target.upper()
    if letters and letters[0].isupper():
        return target[:1].upper() + target[1:]
    return target


# "art. 85, $ 2º" / "artigo 4º, 8 1º": a section sign misread after an article number.
_SECTION_AFTER_ARTICLE = re.compile(
    r"(?P<before>\b(?:[Aa]rts?|[Aa]rtigos?|ART|ARTS?)\.?\s*\d+(?:\.\d+)*\s*[º°o]?(?:-[A-Z])?\s*,?\s*)"
    r"(?P<sign>\$\$|SS|[$&8S5])(?P<after>\s*(?:\d{1,2}\s*[º°o](?!\w)|[úu]nico\b))"
)
# "ao $ 1º do art. 162" / "no 8 1º da Lei": before a reference to the article or statute.
_SECTION_BEFORE_ARTICLE = re.compile(
    r"(?P<before>\b(?:ao|do|no|o|os|nos|dos|aos|pelo|e|seu|cujo)\s+)"
    r"(?P<sign>\$\$|SS|[$&8S5])(?P<after>\s*(?:\d{1,2}\s*[º°o]|[úu]nico)\s*,?\s*"
    r"(?:do|da|dos|das|desse|deste|dessa|desta)\s+(?:art\b|arts\b|art\.|artigo|lei|c[óo]digo|cpc|cc|cdc|clt|decreto))"
)
_ROMAN = re.compile(r"^M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})$")
# An upper-case roman numeral with "l", "i", "1" or "|" for "I", after "inciso(s)" or "art. N,".
_ROMAN_CONTEXT = re.compile(
    r"(?P<before>\b(?:[Ii]ncisos?|INCISOS?|[Ii]ncs?\.|[Aa]rt(?:igo)?s?\.?\s*\d+[º°o]?(?:-[A-Z])?\s*,)\s+"
    r"(?:[IVX]+\s*(?:,|e)\s+)*)(?P<numeral>[IVX|][IVXil1|]{0,5}|[l1][IVXil1|]{0,5})(?=[\s,;.)]|$)"
)
_ROMAN_LOWER = re.compile(r"(?<=\()(?P<numeral>[ivxl]{2,5})(?=\))")
_CLITIC_SE = re.compile(r"(?<=[^\W\d_]-)sé\b")


def _section_sign(match: re.Match[str]) -> str:
    sign = "§§" if len(match.group("sign")) == 2 else "§"
    return match.group("before") + sign + match.group("after")


def _roman(match: re.Match[str]) -> str:
    numeral = match.group("numeral")
    if numeral.isdigit():  # "arts. 5, 11 e 12": article numbers, not a misread numeral
        return match.group(0)
    fixed = numeral.replace("l", "I").replace("i", "I").replace("1", "I").replace("|", "I")
    if fixed == numeral or not _ROMAN.match(fixed):
        return match.group(0)
    return match.group("before") + fixed


def _roman_lower(match: re.Match[str]) -> str:
    numeral = match.group("numeral")
    if "l" not in numeral or "xl" in numeral:  # "(xl)" is forty as written
        return numeral
    fixed = numeral.replace("l", "i")
    return fixed if _ROMAN.match(fixed.upper()) else numeral


def correct_ocr(text: str) -> tuple[str, int]:
    """The text with OCR corrections applied, and how many were made."""
    table = load()
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        found = match.group(0)
        listed = table.entries.get(found) if found in table.exact else table.entries.get(found.lower())
        if listed is None:  # a case-insensitive match that folds to no entry (exotic Unicode case)
            return found
        right = listed if found in table.exact else _with_case_of(found, listed)
        word = found.strip(".,;:!")
        if (word.isalpha() and _known(word, table.vocabulary)) or not _known(right, table.vocabulary):
            return found
        if (
            right.isupper()
            and unicodedata.normalize("NFC", strip_accents(right)) == found
            and not _accented_capitals_near(match)
        ):
            return found
        count += 1
        return right

    text = table.pattern.sub(replace, text)
    for pattern, fix in (
        (_SECTION_AFTER_ARTICLE, _section_sign),
        (_SECTION_BEFORE_ARTICLE, _section_sign),
        (_ROMAN_CONTEXT, _roman),
        (_ROMAN_LOWER, _roman_lower),
    ):
        text, n = _count_changes(pattern, fix, text)
        count += n
    text, n = _CLITIC_SE.subn("se", text)
    return text, count + n


def _count_changes(pattern: re.Pattern[str], fix: Callable[[re.Match[str]], str], text: str) -> tuple[str, int]:
    """Apply a contextual rule until it changes nothing more (a fixed numeral is the context of the
    next one: "incisos | e Il" -> "incisos I e Il" -> "incisos I e II")."""
    total = 0
    for _ in range(4):
        changes = 0

        def apply(match: re.Match[str]) -> str:
            nonlocal changes
            out = fix(match)
            if out != match.group(0):
                changes += 1
            return out

        text = pattern.sub(apply, text)
        total += changes
        if not changes:
            break
    return text, total
