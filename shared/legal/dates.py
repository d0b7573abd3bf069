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

from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.text import fold

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

_MONTH_ABBREVIATIONS = "jan|fev|mar|abr|mai|jun|jul|ago|set|out|nov|dez"
_LONG = (
    rf"(?P<d>\d{{1,2}})\s*[º°o]?\s+(?:(?i:de)\s+)?(?P<m>(?i:{MONTH_PATTERN})|(?i:{_MONTH_ABBREVIATIONS})\.?)"
    rf"\s+(?:(?i:de)\s+)?(?P<y>\d{{4}})\b"
)
"""A date with its month in words, full or abbreviated: "15 de setembro de 2016", "1º de março de 2023",
"15 set. 2016"."""
_NUMBER_WORDS = {
    "um": 1, "primeiro": 1, "dois": 2, "tres": 3, "quatro": 4, "cinco": 5, "seis": 6, "sete": 7, "oito": 8,
    "nove": 9, "dez": 10, "onze": 11, "doze": 12, "treze": 13, "quatorze": 14, "catorze": 14, "quinze": 15,
    "dezesseis": 16, "dezessete": 17, "dezoito": 18, "dezenove": 19, "vinte": 20, "trinta": 30, "quarenta": 40,
    "cinquenta": 50, "sessenta": 60, "setenta": 70, "oitenta": 80, "noventa": 90,
}  # fmt: skip
_WORD = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
_WORDS_NUMBER = rf"(?:{_WORD})(?:\s+e\s+(?:{_WORD}))?"
_IN_WORDS = (
    rf"(?i:aos?\s+)?(?P<wd>(?i:{_WORDS_NUMBER}))\s+(?i:dias?\s+do\s+m[eê]s\s+de)\s+(?P<wm>(?i:{MONTH_PATTERN}))"
    rf"\s+(?i:do\s+ano\s+)?(?i:de)\s+(?P<wy>\d{{4}}|(?i:dois\s+mil(?:\s+e\s+{_WORDS_NUMBER})?|mil\s+novecentos"
    rf"(?:\s+e\s+{_WORDS_NUMBER})?))\b"
)
"""The formula of atas and termos, day and year in words: "aos vinte e dois dias do mês de maio de dois mil e
dezenove" (the year may also be in figures)."""
_NUMERIC = r"(?P<nd>\d{1,2})(?P<sep>[/.-])(?P<nm>\d{1,2})(?P=sep)(?P<ny>\d{4})\b"
_ANY_DATE = rf"(?:{_LONG}|\b{_NUMERIC}|{_IN_WORDS})"
_CITY_DATE = re.compile(
    r"(?:^|[.;]\s)[ \t]*[A-Z][\w'’.-]*(?:[ \t]+(?:d[aeo]s?|[A-Z][\w'’.-]*)){0,4}[ \t]*"
    r"(?:\([A-Z]{2}\)|/[ \t]*[A-Z]{2}|-[ \t]*[A-Z]{2})?[ \t]*,[ \t]*(?:em[ \t]+)?" + _ANY_DATE,
    re.M,
)
_SIGNER_TITLE = (
    r"(?:(?:Ministr[oa]|Desembargador(?:a)?|Juiz(?:a)?(?:[ \t]+de[ \t]+Direito)?|Min\.|Des\.|Dr(?:a)?\.)\s+)"
)
_SIGNER_OFFICE = (
    r"(?:Relator(?:a)?|Presidente|Juiz(?:a)?(?:[ \t]+de[ \t]+Direito)?(?:[ \t]+Substitut[oa])?|Desembargador(?:a)?)"
)
_SIGNER_NAME = r"[A-Z][\w'’.-]*(?:[ \t\n]+(?:d[aeo]s?|e|[A-Z][\w'’.-]*)){1,7}"
_SIGNED_CITY_DATE = re.compile(
    _CITY_DATE.pattern + r"[ \t]*\.?\s*"
    rf"(?=\Z|{_SIGNER_TITLE}{_SIGNER_NAME}|{_SIGNER_NAME}[ \t\n]*[,–—-]?[ \t\n]*{_SIGNER_OFFICE}\b)",
    re.M,
)
"""The place-and-date line the decision is signed with: the text's last, or one a signer follows ("Brasília, 27 de
novembro de 2025. Ministro Marco Buzzi Relator", "... 2025. REGINA HELENA COSTA Relatora"). A monocrática that
quotes another decision ("Brasília, 30 de setembro de 2025. (fls. 1484, e-STJ)") or a plenário's session line
("Plenário, 25.03.2015.\" (grifei)") before it prints an earlier place and date that is not its own."""
_SIGNATURES = (
    re.compile(
        r"(?i:assinad[oa]\s+(?:eletronicamente|digitalmente|de\s+forma\s+digital))\b.{0,160}?\bem:?\s*\b" + _NUMERIC,
        re.S,
    ),
    re.compile(r"\bAssinado\s+em:?\s*\b" + _NUMERIC),
    re.compile(r"\bDados:\s*(?P<iy>\d{4})\.(?P<im>\d{2})\.(?P<id>\d{2})\b"),
)
_JUDGMENT_LABEL = re.compile(
    r"^[ \t]*(?:(?-i:D)ata\s+d[oe]\s+julgamento|(?-i:J)ulgado(?:\s+em)?|(?-i:D)ata\s+da\s+sess[aã]o|"
    r"(?-i:S)ess[aã]o\s+de)\s*:?\s*" + _ANY_DATE,
    re.M | re.I,
)
"""A judgment label opening a line ("JULGADO: 15/09/2016", "Data do julgamento: ..."), capitalised: a line that opens
with "julgado em 6/6/2023" is a citation wrapped at the line's end ("... Rel. Min. Marco Buzzi,\njulgado em ...")."""
_DATE_ANYWHERE = re.compile(_ANY_DATE)
_MAIL_DATE = re.compile(r"^(?:Date|Data|Enviad[oa](?: em)?|Sent)\s*:\s*(?P<value>.+)$", re.M | re.I)


def _to_date(match: re.Match[str]) -> date | None:
    """The date a match spells, or None when it is impossible (31/02, month 13, year 0216)."""
    g = {k: v for k, v in match.groupdict().items() if not k.startswith("a")}
    try:
        if g.get("y"):
            found = date(int(g["y"]), MAIL_MONTHS[g["m"].lower().rstrip(".")], int(g["d"]))
        elif g.get("wy"):
            year = int(g["wy"]) if g["wy"].isdigit() else _words_to_int(g["wy"])
            found = date(year, MONTHS[g["wm"].lower()], _words_to_int(g["wd"]))
        elif g.get("ny"):
            found = date(int(g["ny"]), int(g["nm"]), int(g["nd"]))
        elif g.get("iy"):
            found = date(int(g["iy"]), int(g["im"]), int(g["id"]))
        elif g.get("ey"):
            found = date(int(g["ey"]), ENGLISH_MONTHS.index(g["em"].lower()) + 1, int(g["ed"]))
        else:
            return None
    except ValueError:
        return None
    return found if 1900 <= found.year <= date.today().year + 1 else None


def _words_to_int(text: str) -> int:
    """ "vinte e dois" -> 22, "dois mil e dezenove" -> 2019, "mil novecentos e noventa e nove" -> 1999."""
    words = [w for w in re.split(r"\s+", text.lower()) if w != "e"]
    total = 0
    for i, word in enumerate(words):
        if word == "mil":
            total = (total or 1) * 1000
        elif word == "novecentos":
            total += 900
        elif word not in ("dois",) or i + 1 >= len(words) or words[i + 1] != "mil":
            total += _NUMBER_WORDS.get(word, 0)
        else:
            total += 2  # "dois mil": multiplied by the "mil" that follows
    return total


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
_ENGLISH_LONG = rf"(?P<ed>\d{{1,2}})\s+(?P<em>(?i:{'|'.join(ENGLISH_MONTHS)}))\s+(?P<ey>\d{{4}})\b"
_DATE_LINE = re.compile(rf"(?i:of|de|em)?\s*(?:{_LONG}|{_ENGLISH_LONG}|{_NUMERIC})\s*[*.]?")
"""An opening line that is a date and nothing else ("6 de Outubro de 2009 *", "of 7 March 2002", "05/02/2023"):
how judgments of foreign courts, EU acts and dated posts print their own date under their heading."""
_EU_JUDGMENT_DATE = re.compile(
    r"^[ \t]*(?i:JUDGMENT\s+OF\s+THE\s+(?:GENERAL\s+)?COURT|ACORDAO\s+DO\s+TRIBUNAL(?:\s+DE\s+JUSTICA|\s+GERAL)?)"
    rf"[ \t]*(?:\([^)\n]{{3,40}}\))?[ \t]*,?\s*(?i:of\s+|de\s+)?(?:{_LONG}|{_ENGLISH_LONG})",
    re.M,
)
"""The EU Court's judgment heading with its date, on a line of its own or in a report's list of contents:
"Judgment of the Court (First Chamber), 26 October 2006", "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira Secção) 6 de
Outubro de 2009" (the Advocate General's "Opinion ... delivered on" before it is not the judgment)."""
_TITLE_DATE = re.compile(rf"^[A-Z][^\n]{{2,120}}?,?\s+(?i:de)\s+{_LONG}\.?\s*$")
"""An act's title line ending in its date: "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016"."""
_LABEL_CHARS = 20000
_DATE_LABEL = re.compile(r"^[ \t]*Data\s*:\s*" + _ANY_DATE, re.M | re.I)
"""A "Data:" label opening a line of the first pages (_LABEL_CHARS, past an opinion's cover, notice and summary):
an opinion's or a memo's own date."""
_HEADING_DATE = re.compile(rf"(?:\b(?i:of|de)\s+|\)\s*)(?:{_LONG}|{_ENGLISH_LONG})")
_CAPS_START = re.compile(r"[A-Z][A-Z/()-]{2,}\b")
_HEADING_LINES = 6
_HEADING_CHARS = 200
_OPENING_LINES = 25
"""Opening lines where a date standing alone on its line is the document's own."""
ANYWHERE_TYPES = frozenset({"parecer", "peticao", "contrato", "ato_administrativo", "email", "sumula"})
"""Types whose first full date anywhere may still be taken as a last resort: working documents that rarely
cite dated texts. Decisions, acts, doctrine and compilations mostly carry the dates of what they cite."""
_CLOSING_TYPES = frozenset(
    {"acordao", "sentenca", "decisao_monocratica", "despacho", "ato_normativo", "outro", *ANYWHERE_TYPES}
)
"""Types that close with their own place-and-date line or signature; doctrine and compilations quote those
of the decisions they discuss."""


def _opening_date(doc: DocumentText) -> date | None:
    """A date (or a place and date) alone on one of the opening lines, or closing an act's title line on one of
    the first lines."""
    for i, (_, line) in enumerate(doc.head_lines[:_OPENING_LINES]):
        folded = fold(line)
        match = _DATE_LINE.fullmatch(folded) or (_TITLE_DATE.match(folded) if i < 8 else None)
        if match is None and i < 6:
            city = _CITY_DATE.match(folded)  # "Brasília, 16 de maio de 2022." alone under a heading
            match = city if city and not folded[city.end() :].strip(" .") else None
        found = _to_date(match) if match else None
        if found:
            return found
    return None


def _heading_date(doc: DocumentText) -> date | None:
    """The date a heading line states, where the cleaner joined it to the heading: "DIRECTIVE 2002/22/EC OF THE
    EUROPEAN PARLIAMENT AND OF THE COUNCIL of 7 March 2002 on ...", "ACÓRDÃO DO TRIBUNAL DE JUSTIÇA (Primeira
    Secção) 6 de Outubro de 2009", "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016". Only on the first lines, only
    on a line opening with an upper-case word, and within its first characters: the recitals below cite dates."""
    for _, line in doc.head_lines[:_HEADING_LINES]:
        folded = fold(line)
        if not _CAPS_START.match(folded):
            continue
        match = _HEADING_DATE.search(folded[:_HEADING_CHARS])
        found = _to_date(match) if match else None
        if found:
            return found
    return None


def guess_date(doc: DocumentText, document_type: str = "outro") -> date | None:
    """The date the document was judged (decisions) or signed (everything else), by decreasing
    reliability. Acórdãos: the last day of a virtual session ("Sessão Virtual de 18/02/2025 a
    24/02/2025"), a "JULGADO:"/"Data do julgamento:" label opening a line, the place-and-date line
    marked "(Data do Julgamento)", the EU Court's dated judgment heading on the first pages. Acts: the date
    their heading states ("DECRETO Nº 8.660, DE 29 DE JANEIRO DE
    2016", "REGULAMENTO (UE) 2022/1925 ... de 14 de setembro de 2022"), or one printed alone under it.
    Then, for every type:
    1. an e-mail's Date/Data/Enviado em header; a "Data:" label opening a line of the first pages;
    2. the place-and-date line that closes a decision or petition ("Brasília (DF), 15 de
       setembro de 2016", "Rio de Janeiro, 07 de junho de 2017");
    3. an electronic-signature stamp ("assinado eletronicamente ... em 20/10/2022",
       "Assinado em 07/06/2017", "Dados: 2022.09.13");
    4. a judgment label opening a line;
    5. a date alone on an opening line ("6 de Outubro de 2009", "of 7 March 2002", a post's "05/02/2023"), else
       (not for doctrine and compilations) the date a heading line states ("JUDGMENT OF THE COURT (First
       Chamber) 26 October 2006");
    6. for working documents only (ANYWHERE_TYPES), the first valid full date anywhere.
    Doctrine and compilations (articles, theses, Informativos) take only 5: the place-and-date lines and
    stamps in their text belong to the decisions they quote, their "Recebido em" to the journal.
    Inline "julgado em" inside the text is not used: it almost always belongs to a citation.
    """
    text = doc.ffull
    if document_type == "acordao":
        for match in _VIRTUAL_SESSION.finditer(text):
            found = _to_date(match)
            if found:
                return found
        for patterns in ((_JUDGMENT_LABEL, _JUDGED_CITY_DATE), (_EU_JUDGMENT_DATE,)):
            found = _first_date(patterns, text if patterns[0] is not _EU_JUDGMENT_DATE else doc.fhead)
            if found:
                return found
    if document_type == "ato_normativo":
        found = _heading_date(doc) or _opening_date(doc)
        if found:
            return found
    if document_type == "email":
        for match in _MAIL_DATE.finditer(doc.fhead[:2000]):
            value = match.group("value")
            found = _first_date((_DATE_ANYWHERE,), value) or _rfc2822_date(value)
            if found:
                return found
    if document_type in _CLOSING_TYPES:
        steps: tuple[tuple[re.Pattern[str], ...], ...] = ((_CITY_DATE,), _SIGNATURES, (_JUDGMENT_LABEL,))
        found = _first_date((_DATE_LABEL,), text[:_LABEL_CHARS]) or _signed_date(text)
        for patterns in steps:
            found = found or _first_date(patterns, text)
        if found:
            return found
    found = _opening_date(doc) or (_heading_date(doc) if document_type in _CLOSING_TYPES else None)
    if found or document_type not in ANYWHERE_TYPES:
        return found
    return _first_date((_DATE_ANYWHERE,), text)


def _signed_date(text: str) -> date | None:
    """The date of the last place-and-date line a signer follows (_SIGNED_CITY_DATE): the document's own, where
    the first such line in the text may be a quoted decision's."""
    for match in reversed(list(_SIGNED_CITY_DATE.finditer(text))):
        found = _to_date(match)
        if found:
            return found
    return None


def _rfc2822_date(value: str) -> date | None:
    try:
        return parsedate_to_datetime(value.strip()).date()
    except (TypeError, ValueError, IndexError):
        return None
