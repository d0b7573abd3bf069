"""Text normalisation for extracted pages: pure functions, no I/O.

PDF text layers break every visual line, split words at line ends, and carry odd spaces and
control characters. Embeddings and keyword search work better on running paragraphs, so the
cleaner undoes the layout while keeping the structure a reader relies on (paragraph breaks,
headings, list items). The rules are deliberately few and local, so that their effect on any
given line can be predicted:

1. Unicode NFC; CR/CRLF, form feeds and Unicode line/paragraph separators become newlines.
2. Non-breaking and other odd spaces and tabs become a plain space; zero-width and other
   invisible format characters are dropped; control characters other than newline are dropped.
3. Each line is stripped and runs of spaces are collapsed to one.
4. A line ending in a hyphen glued to a letter is joined with the next line without a space.
   The hyphen is dropped ("responsa-" + "bilidade" -> "responsabilidade") unless it is evidently
   real: the next line starts with a capital ("Estado-" + "Juiz"), the next fragment is an
   enclitic pronoun ("levando-" + "se"), the first fragment is a prefix that takes a hyphen
   ("pré-", "pós-", "ex-", ...), or the text itself uses the hyphenated form elsewhere, or both
   halves as words of their own ("fornecedor-" + "anunciante"). Hyphens inside a line are never
   touched ("guarda-chuva").
5. A line is joined to the next one with a space when it does not end with sentence punctuation
   (. : ; ? !, optionally followed by closing quotes or brackets), is not a heading, and the next
   line starts with a lowercase letter (optionally after an opening bracket or quote) or with a
   number that continues the sentence (not a list number like "1." or "2.1", not a bare number
   such as a page stamp), or the line ends with a lower-case article, preposition or conjunction
   and the next starts with a capitalised word ("do Tribunal de" + "Justiça do Estado").
6. Headings: short all-caps lines ("EMENTA", "RELATÓRIO", "VOTO") stay on their own line when
   they open a paragraph or name a known section; an all-caps word wrapped inside running text
   ("autos," / "ACORDAM" / "os Desembargadores") is still joined.
7. Blank lines are paragraph breaks; runs of them become one blank line; the result is stripped.

A whole document (clean_document, and clean_pages which returns its pages) also loses what the
page layout and the court systems add around the text (rules 8-9, on the lines, before rules 4-7
join them), and OCR pages get their words corrected (rule 10, on the rebuilt text):

8. Signature and authenticity stamps ("Documento assinado eletronicamente por ...", e-SAJ's
   "Este documento é cópia do original ...", verification codes) go; their signers, signature
   dates and verification codes are returned aside (stamps.py).
9. Running headers and footers, page numbers and e-SAJ "fls." stamps go: lines at the top or
   bottom of a page that recur on many pages, compared with digits masked (layout.py).
10. On OCR pages only, known OCR misreadings of legal words are corrected, guarded by a
    vocabulary so that a correct word is never changed (corrections.py).
"""

import re
import unicodedata
from datetime import date

from pydantic import BaseModel, Field

from precedente.services.cleaner.corrections import correct_ocr
from precedente.services.cleaner.layout import find_layout_lines
from precedente.services.cleaner.stamps import Found, find_stamps
from precedente.shared.legal.text import strip_accents
from precedente.shared.payloads import Page


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEWLINES = re.compile(r"\r\n?|[\f\v\x85\u2028\u2029]")
_ODD_SPACES = re.compile(r"[\t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_SPACE_RUN = re.compile(r" {2,}")
_HYPHENS = "-\u2010\u2011"
_SOFT_HYPHEN = "\u00ad"

_SENTENCE_END = re.compile(r"[.:;?!…][\"'”’»)\]]*$")
_CONTINUES_LOWER = re.compile(r"^[(\[\"'“‘«]?[a-zà-öø-ÿ]")
# A lower-case article, preposition or conjunction never ends a paragraph: "do Tribunal de" / "Justiça".
_ENDS_WITH_FUNCTION_WORD = re.compile(
    r"(?:^|\s)(?:de|da|do|das|dos|e|em|no|na|nos|nas|o|a|os|as|ao|aos|à|às|ou|por|pelo|pela|pelos|pelas|para|"
    r"com|sem|sob|sobre|entre|que|um|uma|seu|sua|seus|suas)$"
)
_STARTS_CAPITALISED = re.compile(r"^[(\[\"'“‘«]?[A-ZÀ-ÖØ-Þ][a-zà-öø-ÿ]")
_STARTS_DIGIT = re.compile(r"^\d")
_LIST_NUMBER = re.compile(r"^\d{1,3}(?:\.\d{1,3})*(?:[.)]|\s[-–—])(?:\s|$)|^\d{1,3}(?:\.\d{1,3})+\s")
_BARE_NUMBER = re.compile(r"^[\d\s./-]+$")
_WORD = re.compile(r"[^\W\d_]+(?:[-\u2010\u2011][^\W\d_]+)*")
_LAST_FRAGMENT = re.compile(r"([^\W\d_]+)[-\u2010\u2011]$")
_FIRST_FRAGMENT = re.compile(r"^([^\W\d_]+)")
_BROKEN_AFTER = re.compile(r"[-\u2010\u2011][ \t]*\n")
_BROKEN_BEFORE = re.compile(r"[-\u2010\u2011][ \t]*\n[ \t]*$")

# Enclitic and mesoclitic forms that follow a verb with a hyphen: "levando-se", "dar-lhe",
# "far-se-á"; a line break after such a hyphen never splits a word.
_CLITICS = _words("se me te lhe lhes nos vos o a os as lo la los las no na nas á ão ás ia iam íamos emos eis")
# Prefixes that keep their hyphen ("pré-contratual", "ex-sócio", "vice-presidente").
_HYPHEN_PREFIXES = _words(
    "pré pós pró ex vice recém sem além aquém bem grão grã anti auto co contra extra infra "
    "inter intra micro macro mini multi neo pan proto pseudo semi sobre sub super supra ultra"
)
_HEADING_MAX = 60
_ARTICLES = frozenset({"do", "da", "dos", "das", "de", "e"})
_SECTION_WORDS = _words(
    "ementa acordao relatorio voto decisao sentenca despacho dispositivo fundamentacao conclusao "
    "parecer certidao fatos direito pedido pedidos preliminar merito"
)


def clean_text(text: str) -> str:
    """Normalise one page of extracted text with rules 1-7 of the module docstring.

    Rules 8-10 need the whole document (what recurs across pages, whether a page is OCR):
    clean_document applies them.
    """
    return _clean(text, _vocabulary(text))


class Stamps(BaseModel):
    """What the signature and authenticity stamps of a document said, in order of appearance."""

    signature_dates: list[date] = Field(default_factory=list)
    signers: list[str] = Field(default_factory=list)
    verification_codes: list[str] = Field(default_factory=list)


class CleanedDocument(BaseModel):
    """Cleaned pages, the facts read from the stamps that were removed, and per-page counts."""

    pages: list[Page]
    stamps: Stamps = Field(default_factory=Stamps)
    removed_lines: list[int] = Field(default_factory=list, description="Lines removed per page (rules 8-9).")
    layout_lines: list[int] = Field(
        default_factory=list, description="Of those, running headers/footers and page numbers (rule 9)."
    )
    stamp_lines: list[int] = Field(default_factory=list, description="Of those, stamp lines (rule 8).")
    corrections: list[int] = Field(default_factory=list, description="OCR corrections made per page (rule 10).")
    removed: list[list[str]] = Field(default_factory=list, description="The removed lines themselves, per page.")


def clean_pages(pages: list[Page]) -> list[Page]:
    """Clean every page (clean_document), keeping number, method and confidence."""
    return clean_document(pages).pages


def clean_document(pages: list[Page]) -> CleanedDocument:
    """Clean a document page by page with rules 1-10 of the module docstring.

    Stamps and running lines are told apart from the text by looking at all pages together, and
    the hyphenation evidence (rule 4) comes from the whole document too, so a compound written
    whole on one page settles a line break on another. Inputs are not modified.
    """
    vocabulary = _vocabulary("\n".join(p.text for p in pages))
    lines = [_normalise(p.text).split("\n") for p in pages]
    found = Found()
    stamp_lines = [find_stamps(page_lines, found) for page_lines in lines]
    unstamped = [
        ["" if i in dropped else line for i, line in enumerate(page_lines)]
        for page_lines, dropped in zip(lines, stamp_lines, strict=True)
    ]
    layout_lines = find_layout_lines(unstamped, [p.number for p in pages], [p.method == "ocr" for p in pages])
    cleaned: list[Page] = []
    corrections: list[int] = []
    removed: list[list[str]] = []
    for page, page_lines, stamped, layout in zip(pages, lines, stamp_lines, layout_lines, strict=True):
        kept = [line for i, line in enumerate(page_lines) if i not in stamped and i not in layout]
        removed.append([line for i, line in enumerate(page_lines) if i in stamped or i in layout])
        text = _rebuild(kept, vocabulary)
        fixed = 0
        if page.method == "ocr":
            text, fixed = correct_ocr(text)
        corrections.append(fixed)
        cleaned.append(page.model_copy(update={"text": text}))
    return CleanedDocument(
        pages=cleaned,
        stamps=Stamps(
            signature_dates=found.signature_dates,
            signers=found.signers,
            verification_codes=found.verification_codes,
        ),
        removed_lines=[len(s) + len(lay) for s, lay in zip(stamp_lines, layout_lines, strict=True)],
        layout_lines=[len(lay) for lay in layout_lines],
        stamp_lines=[len(s) for s in stamp_lines],
        corrections=corrections,
        removed=removed,
    )


def _clean(text: str, vocabulary: set[str]) -> str:
    return _rebuild(_normalise(text).split("\n"), vocabulary)


def _rebuild(lines: list[str], vocabulary: set[str]) -> str:
    """Rules 4-7 on normalised lines."""
    out: list[str] = []
    for line in lines:
        if not out or not line or not out[-1]:
            out.append(line)
            continue
        previous = out[-1]
        joined = _join(previous, line, vocabulary, _paragraph_start(out))
        if joined is None:
            out.append(line)
        else:
            out[-1] = joined
    return _collapse_blank_lines(out)


def _normalise(text: str) -> str:
    """Rules 1-3: characters, spaces, per-line stripping."""
    text = unicodedata.normalize("NFC", text)
    text = _NEWLINES.sub("\n", text)
    text = _ODD_SPACES.sub(" ", text)
    text = text.replace(_SOFT_HYPHEN + "\n", _SOFT_HYPHEN)  # a soft hyphen marks a break: rejoin
    text = "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) not in ("Cc", "Cf"))
    return "\n".join(_SPACE_RUN.sub(" ", line.strip()) for line in text.split("\n"))


def _paragraph_start(out: list[str]) -> bool:
    """Whether the last line in `out` begins a paragraph (text start, after a blank line or a
    finished sentence), which is where a heading can stand."""
    if len(out) < 2:
        return True
    before = out[-2]
    return not before or bool(_SENTENCE_END.search(before)) or _is_heading(before, True)


def _join(previous: str, line: str, vocabulary: set[str], previous_starts_paragraph: bool) -> str | None:
    """The merged line when `line` continues `previous` (rules 4-6), else None."""
    if previous[-1] in _HYPHENS and len(previous) > 1 and previous[-2].isalpha() and line[0].isalpha():
        if _keep_hyphen(previous, line, vocabulary):
            return previous + line
        return previous[:-1] + line
    if _SENTENCE_END.search(previous) or _is_heading(previous, previous_starts_paragraph):
        return None
    if (
        _CONTINUES_LOWER.match(line)
        or (_STARTS_DIGIT.match(line) and not _LIST_NUMBER.match(line) and not _BARE_NUMBER.match(line))
        or (_ENDS_WITH_FUNCTION_WORD.search(previous) and _STARTS_CAPITALISED.match(line))
    ):
        return f"{previous} {line}"
    return None


def _keep_hyphen(previous: str, line: str, vocabulary: set[str]) -> bool:
    """Rule 4: whether a hyphen at a line end belongs to the word rather than to the layout."""
    if not line[0].islower():
        return True
    head_match = _LAST_FRAGMENT.search(previous)
    tail_match = _FIRST_FRAGMENT.match(line)
    if head_match is None or tail_match is None:
        return True
    head, tail = head_match.group(1).lower(), tail_match.group(1).lower()
    if tail in _CLITICS or head in _HYPHEN_PREFIXES:
        return True
    if f"{head}-{tail}" in vocabulary:
        return True
    return len(head) >= 3 and len(tail) >= 3 and head in vocabulary and tail in vocabulary


def _vocabulary(text: str) -> set[str]:
    """Lower-cased words of the text, hyphenated compounds whole and also split into parts,
    minus fragments cut at line ends (those are what rule 4 is deciding about)."""
    text = unicodedata.normalize("NFC", text)
    vocabulary: set[str] = set()
    for match in _WORD.finditer(text):
        end = match.end()
        broken_after = _BROKEN_AFTER.match(text, end) is not None
        broken_before = _BROKEN_BEFORE.search(text, max(0, match.start() - 8), match.start()) is not None
        if broken_after or broken_before:
            continue
        word = match.group().lower().replace("\u2010", "-").replace("\u2011", "-")
        vocabulary.add(word)
        if "-" in word:
            vocabulary.update(part for part in word.split("-") if part)
    return vocabulary


def _is_heading(line: str, starts_paragraph: bool) -> bool:
    """Rule 6: a short all-caps line that names a section or opens a paragraph.

    All-caps words also occur inside justified running text ("... estes autos, ACORDAM" / "os
    Desembargadores"); those do not start a paragraph and are not known section names, so they
    can still be joined.
    """
    letters = [ch for ch in line if ch.isalpha()]
    if len(line) > _HEADING_MAX or len(letters) < 2 or any(ch.islower() for ch in letters):
        return False
    if line[-1] in ",-–—":
        return False
    if starts_paragraph:
        return True
    folded = strip_accents(re.sub(r"^[\dIVXLC]+\s*[-–.)]\s*|[.:]$", "", line).lower()).strip()
    words = folded.split()
    return any(w in _SECTION_WORDS for w in words) and all(w in _SECTION_WORDS | _ARTICLES for w in words)


def _collapse_blank_lines(lines: list[str]) -> str:
    """Rule 7."""
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    return "\n".join(out).strip()
