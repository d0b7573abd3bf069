"""Portuguese month names and the dates legal documents print.

Month tables: MONTHS (accent-folded, lower-case names -> number; what rules match on folded text),
MONTH_NAMES (as written, for writing a date out), MONTH_PATTERN (the regex alternation of the folded names),
ENGLISH_MONTHS (EU acts cited in English) and MAIL_MONTHS (the names and abbreviations mail clients print,
Portuguese and English).

guess_date reads the date a document was judged or signed from its text: the formulas Brazilian documents
close with ("Brasília (DF), 15 de setembro de 2016"), electronic-signature stamps, judgment labels.
"""

import re
from datetime import date
from email.utils import parsedate_to_datetime

from shared.legal.document_text import DocumentText

__all__ = ["ENGLISH_MONTHS", "MAIL_MONTHS", "MONTHS", "MONTH_NAMES", "MONTH_PATTERN", "guess_date"]

MONTHS: dict[str, int] = {
    "janeiro": 1,
    "fevereiro": 2,
    "marco": 3,
    "abril": 4,
    "maio": 5,
    "junho": 6,
    "julho": 7,
    "agosto": 8,
    "setembro": 9,
    "outubro": 10,
    "novembro": 11,
    "dezembro": 12,
}
"""Folded month names (no accents, lower case: "marco") -> month number."""
MONTH_NAMES: tuple[str, ...] = ("janeiro", "fevereiro", "março", *tuple(MONTHS)[3:])
"""The months as Portuguese writes them, January first ("março" with its cedilla)."""
MONTH_PATTERN = "|".join(MONTHS)
"""The folded month names as a regex alternation: "janeiro|fevereiro|marco|...|dezembro"."""
ENGLISH_MONTHS: tuple[str, ...] = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
MAIL_MONTHS: dict[str, int] = (
    {name: n for n, name in enumerate(MONTH_NAMES, start=1)}
    | MONTHS
    | {name: n for n, name in enumerate(ENGLISH_MONTHS, start=1)}
    | {name[:3]: n for n, name in enumerate(MONTHS, start=1)}  # "jan", "fev", ..., "set", "out", "dez"
    | {name[:3]: n for n, name in enumerate(ENGLISH_MONTHS, start=1)}  # "feb", "apr", "aug", "sep", "oct", "dec"
    | {"sept": 9}
)
"""Month names and abbreviations as mail clients print them, Portuguese and English, lower case."""

# ---------------------------------------------------------------------------- document dates

_LONG = rf"(?P<d>\d{{1,2}})\s*[º°o]?\s+(?i:de)\s+(?P<m>(?i:{MONTH_PATTERN}))\s+(?i:de)\s+(?P<y>\d{{4}})\b"
_NUMERIC = r"(?P<nd>\d{1,2})(?P<sep>[/.-])(?P<nm>\d{1,2})(?P=sep)(?P<ny>\d{4})\b"
_ANY_DATE = rf"(?:{_LONG}|\b{_NUMERIC})"
_CITY_DATE = re.compile(
    r"(?:^|[.;]\s)[ \t]*[A-Z][\w'’.-]*(?:[ \t]+(?:d[aeo]s?|[A-Z][\w'’.-]*)){0,4}[ \t]*"
    r"(?:\([A-Z]{2}\)|/[ \t]*[A-Z]{2}|-[ \t]*[A-Z]{2})?[ \t]*,[ \t]*(?:em[ \t]+)?" + _ANY_DATE,
    re.M,
)
_SIGNATURES = (
    re.compile(
        r"(?i:assinad[oa]\s+(?:eletronicamente|digitalmente|de\s+forma\s+digital))\b.{0,160}?\bem:?\s*\b" + _NUMERIC,
        re.S,
    ),
    re.compile(r"\bAssinado\s+em:?\s*\b" + _NUMERIC),
    re.compile(r"\bDados:\s*(?P<iy>\d{4})\.(?P<im>\d{2})\.(?P<id>\d{2})\b"),
)
_JUDGMENT_LABEL = re.compile(
    r"^[ \t]*(?:Data\s+d[oe]\s+julgamento|Julgado(?:\s+em)?|Data\s+da\s+sess[aã]o|Sess[aã]o\s+de)\s*:?\s*" + _ANY_DATE,
    re.M | re.I,
)
_DATE_ANYWHERE = re.compile(_ANY_DATE)
_MAIL_DATE = re.compile(r"^(?:Date|Data|Enviad[oa](?: em)?|Sent)\s*:\s*(?P<value>.+)$", re.M | re.I)


def _to_date(match: re.Match[str]) -> date | None:
    """The date a match spells, or None when it is impossible (31/02, month 13, year 0216)."""
    g = {k: v for k, v in match.groupdict().items() if not k.startswith("a")}
    try:
        if g.get("y"):
            found = date(int(g["y"]), MONTHS[g["m"].lower()], int(g["d"]))
        elif g.get("ny"):
            found = date(int(g["ny"]), int(g["nm"]), int(g["nd"]))
        elif g.get("iy"):
            found = date(int(g["iy"]), int(g["im"]), int(g["id"]))
        else:
            return None
    except ValueError:
        return None
    return found if 1900 <= found.year <= date.today().year + 1 else None


def _first_date(patterns: tuple[re.Pattern[str], ...], text: str) -> date | None:
    """The valid date that occurs first in `text` under any of `patterns`."""
    found: list[tuple[int, date]] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            valid = _to_date(match)
            if valid:
                found.append((match.start(), valid))
                break
    return min(found)[1] if found else None


_FIRST_NUMERIC = _NUMERIC.replace("?P<", "?P<a").replace("(?P=sep)", "(?P=asep)")
_VIRTUAL_SESSION = re.compile(r"Sess[aã]o\s+Virtual\s+de\s+" + _FIRST_NUMERIC + r"\s+a\s+" + _NUMERIC, re.I)
_JUDGED_CITY_DATE = re.compile(_CITY_DATE.pattern + r"\s*\(\s*data\s+do\s+julgamento\s*\)", re.M | re.I)


def guess_date(doc: DocumentText, document_type: str = "outro") -> date | None:
    """The date the document was judged (decisions) or signed (everything else), by decreasing
    reliability. Acórdãos: the last day of a virtual session ("Sessão Virtual de 18/02/2025 a
    24/02/2025"), a "JULGADO:"/"Data do julgamento:" label opening a line, the place-and-date line
    marked "(Data do Julgamento)". Then, for every type:
    1. an e-mail's Date/Data/Enviado em header;
    2. the place-and-date line that closes a decision or petition ("Brasília (DF), 15 de
       setembro de 2016", "Rio de Janeiro, 07 de junho de 2017");
    3. an electronic-signature stamp ("assinado eletronicamente ... em 20/10/2022",
       "Assinado em 07/06/2017", "Dados: 2022.09.13");
    4. a judgment label opening a line;
    5. the first valid full date anywhere.
    Inline "julgado em" inside the text is not used: it almost always belongs to a citation.
    """
    text = doc.ffull
    if document_type == "acordao":
        for match in _VIRTUAL_SESSION.finditer(text):
            found = _to_date(match)
            if found:
                return found
        for patterns in ((_JUDGMENT_LABEL, _JUDGED_CITY_DATE),):
            found = _first_date(patterns, text)
            if found:
                return found
    if document_type == "email":
        for match in _MAIL_DATE.finditer(doc.fhead[:2000]):
            value = match.group("value")
            found = _first_date((_DATE_ANYWHERE,), value) or _rfc2822_date(value)
            if found:
                return found
    for patterns in ((_CITY_DATE,), _SIGNATURES, (_JUDGMENT_LABEL,), (_DATE_ANYWHERE,)):
        found = _first_date(patterns, text)
        if found:
            return found
    return None


def _rfc2822_date(value: str) -> date | None:
    try:
        return parsedate_to_datetime(value.strip()).date()
    except (TypeError, ValueError, IndexError):
        return None
