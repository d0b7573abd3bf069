"""Is a PDF page's text layer usable, or garbage that only looks like text?

A text layer can be present and still be useless: a font without a correct ToUnicode map gives
private-use or replacement characters, or letters shifted into nonsense; a bad converter gives
mojibake (UTF-8 read as Latin-1: "Ã§Ã£o"), words run together without spaces, or symbol soup.
Such a page would be indexed as garbage with confidence 1.0, so it is sent to OCR instead.

The tests are cheap and conservative: none of the 121 pages of the sample court decisions in
../shared/docs trips them, and each needs a page with enough text to judge (MIN_CHARS_TO_JUDGE).
"""

from __future__ import annotations

import re
import unicodedata

MIN_CHARS_TO_JUDGE = 40
"""Below this many non-space characters the shares below are noise; such pages are left alone."""

UNREADABLE_SHARE = 0.05
"""Private-use, replacement, control or unassigned characters: a few are stray glyphs, more is a broken font."""

MOJIBAKE_SHARE = 0.003
"""Portuguese has 2-3% accented letters; as mojibake each one leaves an "Ã§"-like pair."""

MIN_LETTER_SHARE = 0.3
"""Prose is ~80% letters; a table of figures is digits, which are fine; symbol soup is neither."""

RUN_TOGETHER_SHARE = 0.5
"""Share of characters in 25+ character "words": a page whose spaces were lost."""

MIN_FUNCTION_WORD_SHARE = 0.02
"""Portuguese prose is ~40% function words (de, a, o, que...), lists of names ~5%; letters mapped
through a wrong font table ("pt ejsfjupt") have none."""

MIN_WORDS_TO_JUDGE = 30

_MOJIBAKE = re.compile(r"[ÃÂâ][^\x00-\x7f]")
_WORD = re.compile(r"[^\W\d_]+")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION_WORDS = _words(
    # Portuguese
    "a o e de da do das dos em no na nos nas um uma uns umas que se por para com sem sob sobre não "
    "ao aos à às pelo pela pelos pelas seu sua seus suas ou como mas mais já também entre até este esta "
    "esse essa isso ele ela eles elas lhe foi ser art lei nº "
    # English, Spanish, French, Italian, German: documents in other languages are not garbage
    "the of and to in is that for it as with was on be by this are or from at an not which "
    "el la los las y en del que por con para una es al lo "
    "le les des et du un une est dans pour qui sur par "
    "il di che per "
    "der die das und den von zu mit ist"
)


def garbled_reason(text: str) -> str | None:
    """Why this text layer is garbage, or None when it looks like real text (or is too short to tell)."""
    chars = [ch for ch in text if not ch.isspace()]
    total = len(chars)
    if total < MIN_CHARS_TO_JUDGE:
        return None
    unreadable = sum(1 for ch in chars if _unreadable(ch))
    if unreadable / total > UNREADABLE_SHARE:
        return f"{unreadable / total:.0%} of its characters are private-use, control or replacement glyphs"
    mojibake = len(_MOJIBAKE.findall(text))
    if mojibake >= 3 and mojibake / total > MOJIBAKE_SHARE:
        return f"it is mojibake (UTF-8 read as Latin-1: {mojibake} sequences like 'Ã§')"
    letters = sum(1 for ch in chars if ch.isalpha())
    digits = sum(1 for ch in chars if ch.isdigit())
    if letters / total < MIN_LETTER_SHARE and digits / total < 0.5:
        return f"only {letters / total:.0%} of its characters are letters"
    tokens = text.split()
    run_together = sum(len(token) for token in tokens if len(token) >= 25)
    if run_together / total > RUN_TOGETHER_SHARE:
        return f"{run_together / total:.0%} of it is in 25+ character runs: the spaces between words are missing"
    words = [word.lower() for word in _WORD.findall(text)]
    if len(words) >= MIN_WORDS_TO_JUDGE:
        function = sum(1 for word in words if word in _FUNCTION_WORDS)
        if function / len(words) < MIN_FUNCTION_WORD_SHARE:
            return f"its {len(words)} words include no common words ({function}): letters mapped to the wrong glyphs"
    return None


def _unreadable(ch: str) -> bool:
    category = unicodedata.category(ch)
    return ch == "\ufffd" or category in ("Co", "Cc", "Cn", "Cs")
