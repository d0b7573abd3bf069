"""Running headers, footers and page numbers: the lines the page layout repeats, found across pages.

A court prints its name, the case number, a "Documento: ... Página 3 de 20" footer or an e-SAJ
"fls. 123" stamp on every page. Left in the text they split sentences that run over a page break,
and they make every chunk of a document look alike to the search. A real heading is printed once
(a title on page 1) or where its section starts, so the rule is about recurrence:

1. Only the edge zone of a page is examined: its first and last EDGE_LINES non-blank lines.
2. Lines are compared by a key: case-folded, whitespace collapsed, every run of digits masked
   ("Página 3 de 20" and "Página 4 de 20" share one key).
3. A key found in the edge zone of at least RUNNING_SHARE of the pages, and of at least
   RUNNING_MIN_PAGES pages, is a running line, unless it has three words or more and half as many pages
   or more hold it away from their edges (an entry's opening line in a compilation); its lines in the
   edge zones go. So is one found on ALTERNATE_SHARE of the even (or odd) pages: a journal prints its
   authors atop every even page and the article's title atop every odd one ("C. SANTOS ET AL." on 23
   of i1057's 48 pages, one short of half, stayed in the text and became a section). Section names
   ("EMENTA", "RELATÓRIO", "VOTO") never count as running lines.
4. Page numbers go from the outermost PAGE_NUMBER_LINES lines of the edge zone: "Página 3 de 20",
   "pg. 3", "fls. 12", "- 3 -" always; a bare "3" when it is the page's own number (otherwise only
   if it recurs, by rule 3).
5. Removing lines moves the edge inwards, so rules 3-4 repeat until nothing more goes: a footer
   that text extraction placed a few lines above the bottom, under another footer, is found on
   the next round.
6. OCR garbles running lines differently on each page ("SUPERIOR TRIBUNAL DE JUST IÇA",
   "E) SUPERIOR TRIBUNAL DE JUSTIÇA"), so on OCR pages keys are grouped by similarity
   (FUZZY_RATIO) before counting, and scraps of a logo or stamp (at most 3 characters, at most one
   letter, such as "E)" or "|") go from the edge zone.

Everything works on lists of already stripped lines and returns, per page, the indexes to drop.
"""

import math
import re
from collections import Counter
from collections.abc import Sequence

from rapidfuzz import fuzz, process

from precedente.shared.legal.text import strip_accents

EDGE_LINES = 4
PAGE_NUMBER_LINES = 2
RUNNING_SHARE = 0.5
RUNNING_MIN_PAGES = 3
ALTERNATE_SHARE = 0.8
FUZZY_RATIO = 0.8
_MAX_ROUNDS = 8
_FUZZY_MIN_CHARS = 8

_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"[^\W\d_]{2,}")
_SPACES = re.compile(r"\s+")
_DASH = "-\u2010\u2011\u2012\u2013\u2014"
_BARE_NUMBER = re.compile(rf"^[{_DASH}]?\s*(\d{{1,4}})\s*[{_DASH}]?$")
_EXPLICIT_PAGE_NUMBER = re.compile(
    r"""^(?:
        (?:p[áa]g(?:ina)?s?\.?|pg\.|p\.)\s*:?\s*\d{1,5}(?:\s*(?:de|/)\s*\d{1,5})?   # Página 3 de 20, pág. 3, pg. 3
      | \d{1,5}\s*(?:de|/)\s*\d{1,5}                                                # 3 de 20, 3/20
      | fls?\.?\s*\d{1,6}(?:\s*[-/]\s*\d{1,6})?(?:\s*v(?:erso)?\.?)?                # fls. 12 (e-SAJ), fl. 12v
      | folhas?\s+\d{1,6}
      | num\.\s*\d+\s*-\s*p[áa]g\.\s*\d+                                            # PJe: Num. 1234 - Pág. 3
    )$""",
    re.IGNORECASE | re.VERBOSE,
)
_DASHED_NUMBER = re.compile(rf"^[{_DASH}]\s*\d{{1,4}}\s*[{_DASH}]$")
_SECTION_WORDS = (
    "ementa acordao acordaos relatorio voto votos decisao sentenca despacho dispositivo fundamentacao "
    "conclusao parecer certidao fatos direito pedido pedidos preliminar merito do da dos das de e o a"
)
_SECTION_NAMES = frozenset(_SECTION_WORDS.split())


def line_key(line: str) -> str:
    """The comparison key of rule 2."""
    return _DIGITS.sub("#", _SPACES.sub(" ", line.strip().casefold()))


def is_page_number(line: str, page_number: int) -> bool:
    """Rule 4: whether a line is a page number (or an e-SAJ sheet number) of this page."""
    if _EXPLICIT_PAGE_NUMBER.match(line) or _DASHED_NUMBER.match(line):
        return True
    bare = _BARE_NUMBER.match(line)
    return bare is not None and int(bare.group(1)) == page_number


def _is_section_name(key: str) -> bool:
    """Headings such as "EMENTA" or "VOTO" recur in compiled decisions but are never layout."""
    folded = strip_accents(key)
    words = re.sub(r"[^\w\s]", " ", folded).split()
    return bool(words) and all(w in _SECTION_NAMES for w in words)


def _is_scrap(line: str) -> bool:
    """Rule 6: what OCR makes of a logo or a stamp's edge ("E)", "o)", "|")."""
    chars = line.replace(" ", "")
    return len(chars) <= 3 and sum(ch.isalpha() for ch in chars) <= 1 and not chars.isdigit()


def _edge_zone(lines: Sequence[str], dropped: set[int]) -> list[int]:
    """Indexes of the first and last EDGE_LINES non-blank, not yet dropped lines, outermost first
    at each end (top lines in order, then bottom lines from the last one up)."""
    live = [i for i, line in enumerate(lines) if line and i not in dropped]
    if len(live) <= 2 * EDGE_LINES:
        top = live[: (len(live) + 1) // 2]
        bottom = live[len(top) :]
    else:
        top, bottom = live[:EDGE_LINES], live[-EDGE_LINES:]
    return top + bottom[::-1]


def _outermost(lines: Sequence[str], dropped: set[int]) -> set[int]:
    """The PAGE_NUMBER_LINES outermost live lines at each end of the page."""
    live = [i for i, line in enumerate(lines) if line and i not in dropped]
    return set(live[:PAGE_NUMBER_LINES] + live[-PAGE_NUMBER_LINES:])


def _worded(key: str) -> bool:
    """A key of three words or more: an entry's opening line can be one; a page number ("#", "#.", "- # -") or a
    language mark ("EN") cannot, and a journal's paragraph numbers inside its pages must not keep its page numbers."""
    return len(_WORDS.findall(key)) >= 3


def _inside_counts(exact: list[list[str]], zones: list[list[int]], dropped: list[set[int]]) -> Counter[str]:
    """Per key, the pages that hold it away from their edges (rule 3's exception): a layout line is printed at the
    edge and nowhere else, while the opening line of each entry of a compilation ("Processo Disciplinar Nº 244168/2007
    - por unanimidade", the OAB tribunal's ementário, i343: numbers masked, one key) stands wherever an entry begins,
    at the edge of most pages and inside nearly all of them. Compared exactly (`exact`: each line's line_key, "" for
    a blank one): a page's inner lines are many."""
    counts: Counter[str] = Counter()
    for p, keys in enumerate(exact):
        edge = set(zones[p])
        counts.update({key for i, key in enumerate(keys) if key and i not in edge and i not in dropped[p]})
    return counts


class _Clusters:
    """Keys grouped by similarity (rule 6): each key maps to the most similar key seen before it (rapidfuzz's
    normalised Indel ratio, at least FUZZY_RATIO), or stands for itself.

    Every edge line of a long document is compared with every distinct one before it: difflib's matcher took
    106 s of CPU on a 296-page book with three OCR pages (about 2,400 distinct edge lines), the whole time the
    cleaner held the document; rapidfuzz compares them in C, with the cutoff pruning most pairs early."""

    def __init__(self) -> None:
        self._representatives: list[str] = []
        self._of: dict[str, str] = {}

    def of(self, key: str) -> str:
        found = self._of.get(key)
        if found is not None:
            return found
        found = key
        if len(key) >= _FUZZY_MIN_CHARS:
            match = process.extractOne(key, self._representatives, scorer=fuzz.ratio, score_cutoff=FUZZY_RATIO * 100)
            if match is not None:
                found = match[0]
            else:
                self._representatives.append(key)
        self._of[key] = found
        return found


def find_layout_lines(pages: Sequence[Sequence[str]], numbers: Sequence[int], ocr: Sequence[bool]) -> list[set[int]]:
    """Per page, the indexes of its running header/footer, page-number and OCR-scrap lines.

    `pages` holds each page's stripped lines (blank lines as ""), `numbers` the page numbers and
    `ocr` whether each page's text came from OCR.
    """
    dropped: list[set[int]] = [set() for _ in pages]
    with_text = sum(1 for lines in pages if any(lines))
    threshold = max(RUNNING_MIN_PAGES, math.ceil(RUNNING_SHARE * with_text))
    by_parity = [
        sum(1 for p, lines in enumerate(pages) if any(lines) and numbers[p] % 2 == parity) for parity in (0, 1)
    ]
    alternate = [max(RUNNING_MIN_PAGES, math.ceil(ALTERNATE_SHARE * n)) for n in by_parity]
    detect_running = with_text >= RUNNING_MIN_PAGES
    clusters = _Clusters()
    exact = [[line_key(line) if line else "" for line in lines] for lines in pages]  # once: rounds only drop lines
    fuzzy = any(ocr)

    def key_of(key: str, page_is_ocr: bool) -> str:
        return clusters.of(key) if fuzzy and (page_is_ocr or len(key) >= _FUZZY_MIN_CHARS) else key

    for _ in range(_MAX_ROUNDS):
        zones = [_edge_zone(lines, dropped[p]) for p, lines in enumerate(pages)]
        keys = [{i: key_of(exact[p][i], ocr[p]) for i in zone} for p, zone in enumerate(zones)]
        running: set[str] = set()
        if detect_running:
            counts: Counter[str] = Counter()
            on_parity: tuple[Counter[str], Counter[str]] = (Counter(), Counter())
            for p, page_keys in enumerate(keys):
                counts.update(set(page_keys.values()))
                on_parity[numbers[p] % 2].update(set(page_keys.values()))
            inside = _inside_counts(exact, zones, dropped)
            running = {
                k
                for k, n in counts.items()
                if (n >= threshold or any(side[k] >= alternate[q] for q, side in enumerate(on_parity)))
                and not _is_section_name(k)
                and not (_worded(k) and 2 * inside[k] >= n)
            }
        changed = False
        for p, lines in enumerate(pages):
            outer = _outermost(lines, dropped[p])
            for i, key in keys[p].items():
                line = lines[i]
                if key in running or (i in outer and is_page_number(line, numbers[p])) or (ocr[p] and _is_scrap(line)):
                    dropped[p].add(i)
                    changed = True
        if not changed:
            break
    return dropped
