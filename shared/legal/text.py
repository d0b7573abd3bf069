"""Accent folding and case rules for Portuguese legal text, in one place.

Rules match on folded text ("ACÓRDÃO", "ACORDAO" and "Acórdão" alike) and cut values from the original,
so most callers need a fold that keeps every character's position: `fold` (case kept) and `fold_lower`
(lower-cased). Where positions do not matter the older whole-string forms stay, each with its exact
semantics, because their callers compare against stored or listed words:

- fold:          per character, case kept, one character out for every character in;
- fold_lower:    per character, lower-cased too, one character out for every character in;
- strip_accents: the whole string decomposed (NFD) and its combining marks (combining class > 0) dropped;
- strip_marks:   the same with every non-spacing mark (category Mn) dropped;
- ascii_letters: lower-case ASCII letters only (the MinHash shingles of precedente.shared.legal.works: stored
  signatures depend on it, so it must not change).

On Portuguese text all five agree with each other up to case and the characters they drop
(tests/shared/legal/test_text.py); they part on standalone combining marks, ligatures and a few scripts.
"""

import re
import unicodedata

__all__ = [
    "ascii_letters",
    "fold",
    "fold_lower",
    "strip_accents",
    "strip_marks",
    "title_case",
    "title_case_plain",
]


def _fold_char(ch: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
    return base if len(base) == 1 else ch


class _FoldTable(dict[int, str]):
    """_fold_char for str.translate: one C loop over the text (a search folds every shown sentence; a generator
    of per-character calls took 4% of its CPU)."""

    def __missing__(self, code: int) -> str:
        self[code] = value = _fold_char(chr(code))
        return value


_FOLD_TABLE = _FoldTable()


def fold(text: str) -> str:
    """Strip accents, keeping case and length: a character whose base is one letter becomes that letter
    ("Ç" -> "C"), every other character stays as it is (so offsets into the folded text index the original)."""
    return text.translate(_FOLD_TABLE)


class _FoldLowerTable(dict[int, str]):
    """Per-character lower case and accent folding for str.translate: one C loop over a passage instead
    of a Unicode normalisation per word (a 2,000-character passage folds in ~0.05 ms, not ~0.7 ms)."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        lower = char.lower()
        value = fold(lower) if len(lower) == 1 else char  # keep the length: offsets index the passage
        self[code] = value
        return value


_FOLD_LOWER_TABLE = _FoldLowerTable()


def fold_lower(text: str) -> str:
    """The text lower-cased and accent-folded, character for character (same length, same offsets); a
    character whose lower case is longer than one character ("İ") is kept as it is."""
    return text.translate(_FOLD_LOWER_TABLE)


def strip_accents(text: str) -> str:
    """The text decomposed (NFD) without its combining marks: case kept, length not (a standalone combining
    mark is dropped, a decomposed "a" + U+0301 gives "a")."""
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))


def strip_marks(text: str) -> str:
    """The text decomposed (NFD) without its non-spacing marks (category Mn, whatever their combining
    class): strip_accents but for a few marks outside Latin scripts."""
    return "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn")


def ascii_letters(text: str) -> str:
    """Lower-case ASCII letters only: accents folded (NFKD, so ligatures split), digits, punctuation,
    spaces and every non-Latin letter dropped."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return re.sub(r"[^a-z]+", "", decomposed.encode("ascii", "ignore").decode())


# ----------------------------------------------------------------------------------- title case

_NAME_SMALL_WORDS = frozenset(
    {"a", "à", "ao", "aos", "as", "às", "com", "da", "das", "de", "do", "dos", "e", "em", "na", "nas", "no", "nos"}
    | {"o", "os", "ou", "para", "pela", "pelo", "por"}
)
_PLAIN_SMALL_WORDS = _NAME_SMALL_WORDS - {"aos", "ou"}


def title_case(text: str) -> str:
    """Names, classes and bodies as people write them: "AGRAVO DE INSTRUMENTO" -> "Agravo de Instrumento";
    apostrophes keep the next letter upper ("DELL´ORTO" -> "Dell'Orto"), small words stay lower
    (including "aos" and "ou")."""
    text = re.sub(r"[´`’]", "'", text)
    words = text.lower().split()
    out = []
    for i, word in enumerate(words):
        if i and word in _NAME_SMALL_WORDS:
            out.append(word)
            continue
        out.append("'".join(part[:1].upper() + part[1:] for part in word.split("'")))
    return " ".join(out)


def title_case_plain(text: str) -> str:
    """The case class of a document title: "AGRAVO DE INSTRUMENTO" -> "Agravo de Instrumento", word by
    word (no apostrophe rule; "aos" and "ou" capitalised), as titles have always been written."""
    words = text.lower().split()
    return " ".join(w if i and w in _PLAIN_SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words))
