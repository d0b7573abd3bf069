"""Cited legislation and precedents, normalised to canonical ids so that a filter on one id finds every
document that cites it however it was written.

Canonical ids (one spelling each, chosen to read the way Brazilian lawyers cite):
- Codes by their usual abbreviation, never by their law number: "CF/1988", "CC/2002", "CC/1916",
  "CPC/2015", "CPC/1973", "CDC", "CLT", "CP", "CPP", "CTN", "ECA", "LINDB" ("Lei 8.078/1990" and
  "Código de Defesa do Consumidor" both give "CDC"). A bare "CPC" (or "Código Civil") takes the edition
  the text last named explicitly, else the next one it names, else the one in force at the document's
  date (the CPC/2015 from 18/03/2016, the CC/2002 from 11/01/2003). "CPC/73", "CPC-1973", "Código de
  Processo Civil (CPC) de 1973", "Código de Processo Civil/73" name the 1973 code; "CPC revogado",
  "antigo CPC" the one before the code in force at that date; "CPC vigente", "atual CPC" the one in force.
- Other acts as "<kind> <number>/<four-digit year>": "Lei 9.307/1996", "LC 101/2000", "Decreto 7.962/2013",
  "Decreto-Lei 4.657/1942", "Resolução CNJ 125/2010" (issuer kept when written). Well-known names
  ("Lei de Arbitragem", "LArb", "Marco Civil da Internet", "Lei do Inquilinato") map to their number.
- Provisions: "<act>, art. <n>[, § <n> | , parágrafo único][, <inciso>][, <alínea>]", ordinal º on 1–9:
  "CF/1988, art. 5º, XXXV", "Lei 9.307/1996, art. 4º, § 2º", "CPC/2015, art. 1.026, § 2º". "caput" is
  dropped (it is the article itself). Every provision comes with its ancestors ("CDC", "CDC, art. 51",
  "CDC, art. 51, VII"), so an exact-match filter on an article finds its paragraphs and incisos too.
- Súmulas: "Súmula 7/STJ", "Súmula Vinculante 10"; administrative statements "Enunciado Administrativo 2/STJ".
- Precedents of the higher courts: "<prefixes> <class> <number>[/<UF>]" with thousands dots:
  "REsp 1.602.076/SP", "AgInt no AREsp 2.560.760/SE", "AgRg na MC 19.226", "AgR na SE 5.206"; of other
  courts, their CNJ number ("0017387-33.2017.8.19.0000"), only when its check digits hold and it is cited
  as a judgment (a rapporteur, a chamber, a judgment date nearby).

Not cited: the document's own case, electronic-signature stamps, foreign law, and local case numbers
that are not CNJ numbers. Articles without a named act bind to an act named just before them (the
statute a passage transcribes, "o art. 45" after "art. 22 da Lei 8.245/91") or to the act an anaphora
points to ("da mesma Lei", "do mesmo diploma", "desta lei").
"""

import bisect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

from precedente.shared.legal import process_numbers
from precedente.shared.legal.codes import UFS
from precedente.shared.legal.dates import MONTH_PATTERN
from precedente.shared.legal.legislation import article_exists
from precedente.shared.legal.text import fold, fold_lower

# ------------------------------------------------------------------------------------------- acts

# Law numbers of the codes: their canonical abbreviation replaces the number.
CODE_BY_NUMBER = {
    ("Lei", "8078", "1990"): "CDC",
    ("Lei", "10406", "2002"): "CC/2002",
    ("Lei", "3071", "1916"): "CC/1916",
    ("Lei", "13105", "2015"): "CPC/2015",
    ("Lei", "5869", "1973"): "CPC/1973",
    ("Decreto-Lei", "1608", "1939"): "CPC/1939",
    ("Lei", "8069", "1990"): "ECA",
    ("Lei", "5172", "1966"): "CTN",
    ("Decreto-Lei", "5452", "1943"): "CLT",
    ("Decreto-Lei", "2848", "1940"): "CP",
    ("Decreto-Lei", "3689", "1941"): "CPP",
    ("Decreto-Lei", "4657", "1942"): "LINDB",
}

_CPC = r"(?:CPC|Codigo\s+de\s+Processo\s+Civil(?:\s*\(\s*CPC\s*\))?)"
_CC = r"(?:CC|Codigo\s+Civil(?:\s*\(\s*CC\s*\))?)"


def _edition(code: str, year: str, short: str) -> str:
    """A code named with its year, as the decisions write it: "CPC/73", "CPC/ 1973", "CPC⁄1973", "CPC-73",
    "CPC de 73", "CPC (1973)", "CPC1973", "CPC 1973", "Código de Processo Civil (CPC) de 1973", "... de 1.973".
    Not "CPC 73" with a bare space: in Nery's notation that is the code's article 73."""
    full = rf"(?:{year[:2]}|{year[0]}\.{year[1]}){year[2:]}"
    return rf"\b{code}(?:(?:\s*[/\u2044-]\s*|\s+de\s+|\s*\(\s*)(?:{full}|{short})|\s*{full})\b"


def _previous(code: str) -> str:
    """The code replaced by the one in force: "CPC revogado", "antigo CPC", "Código de Processo Civil anterior"."""
    return rf"\b(?:antig[oa]|revogad[oa]|anterior|velho)\s+{code}\b|\b{code}\s+(?:revogado|anterior|antigo)\b"


def _in_force(code: str) -> str:
    """The code in force when the text was written: "CPC vigente", "atual CPC", "CPC em vigor"."""
    return rf"\b{code}\s+(?:em\s+vigor|vigente|atual)\b|\b(?:atual|vigente)\s+{code}\b"


# Names and abbreviations of acts, matched on accent-folded text: (pattern, canonical id, case-sensitive).
# "CPC?"/"CC?" are bare mentions whose edition is resolved afterwards; "CPC<"/"CC<" the edition before the one
# in force at the document's date, "CPC="/"CC=" the one in force (resolve_editions).
_NAMED_ACTS: list[tuple[str, str, bool]] = [
    (r"\bCF\s*/\s*(?:19)?88\b|\bCF\b(?!\s*/)|\bCRFB(?:\s*/\s*(?:19)?88)?\b", "CF/1988", True),
    (r"\bConstituicao\s+(?:Federal|da\s+Republica)(?:\s+Federativa\s+do\s+Brasil)?(?:\s+de\s+1988)?", "CF/1988", False),
    (r"\bCarta\s+(?:Magna|Constitucional)\b|\bConstituicao\b", "CF/1988", False),
    (r"\bCDC\b", "CDC", True),
    (
        r"\bCodigo\s+(?:Brasileiro\s+)?de\s+(?:Defesa|Protecao)\s+(?:e\s+Protecao\s+)?(?:do|ao)\s+Consumidor",
        "CDC",
        False,
    ),
    (
        rf"\bN(?:ovo\s+)?CPC\b|\bnovo\s+Codigo\s+de\s+Processo\s+Civil\b|{_edition(_CPC, '2015', '15')}",
        "CPC/2015",
        False,
    ),
    (_edition(_CPC, "1973", "73"), "CPC/1973", False),
    (_edition(_CPC, "1939", "39"), "CPC/1939", False),
    (_previous(_CPC), "CPC<", False),
    (_in_force(_CPC), "CPC=", False),
    (r"\bCPC\b|\bCodigo\s+de\s+Processo\s+Civil\b", "CPC?", False),
    (rf"\bnovo\s+Codigo\s+Civil\b|{_edition(_CC, '2002', '02')}", "CC/2002", False),
    (_edition(_CC, "1916", "16"), "CC/1916", False),
    (_previous(_CC), "CC<", False),
    (_in_force(_CC), "CC=", False),
    (r"\bCC\b(?!\s*\d)|\bCodigo\s+Civil\b", "CC?", True),
    (r"\bCodigo\s+de\s+Processo\s+Penal\b|\bCPP\b", "CPP", True),
    (r"\bCodigo\s+Penal\b|\bCP\b(?!\s*\d)", "CP", True),
    (r"\bCLT\b|\bConsolidacao\s+das\s+Leis\s+do\s+Trabalho\b", "CLT", True),
    (r"\bCTN\b|\bCodigo\s+Tributario\s+Nacional\b", "CTN", True),
    (r"\bECA\b|\bEstatuto\s+da\s+Crianca\s+e\s+do\s+Adolescente\b", "ECA", True),
    (
        r"\bLINDB\b|\bLICC\b|\bLei\s+de\s+Introducao\s+(?:as\s+Normas\s+do\s+Direito\s+Brasileiro|ao\s+Codigo\s+Civil)",
        "LINDB",
        False,
    ),
    (r"\bLArb\b|\bLei\s+(?:de|da)\s+Arbitragem\b|\bLei\s+Arbitral\b", "Lei 9.307/1996", False),
    (r"\bLei\s+do\s+Inquilinato\b", "Lei 8.245/1991", False),
    (r"\bMarco\s+Civil\s+da\s+Internet\b|\bMCI\b", "Lei 12.965/2014", False),
    (r"\bLei\s+da\s+Acao\s+Civil\s+Publica\b|\bLACP\b", "Lei 7.347/1985", False),
    (r"\bLGPD\b|\bLei\s+Geral\s+de\s+Protecao\s+de\s+Dados\b", "Lei 13.709/2018", False),
    (r"\bLei\s+de\s+Improbidade(?:\s+Administrativa)?\b", "Lei 8.429/1992", False),
    (r"\bLei\s+de\s+(?:Falencias|Recuperacao\s+(?:Judicial|de\s+Empresas))\b", "Lei 11.101/2005", False),
    (r"\bLei\s+das\s+(?:S\.?\s?A\.?|Sociedades\s+Anonimas)(?=\W)", "Lei 6.404/1976", False),
    (r"\bLei\s+de\s+Responsabilidade\s+Fiscal\b|\bLRF\b", "LC 101/2000", False),
    (r"\bLei\s+do\s+Mandado\s+de\s+Seguranca\b", "Lei 12.016/2009", False),
    (r"\bLei\s+de\s+Mediacao\b", "Lei 13.140/2015", False),
    (r"\bEstatuto\s+do\s+Idoso\b", "Lei 10.741/2003", False),
    (r"\bLei\s+Maria\s+da\s+Penha\b", "Lei 11.340/2006", False),
    (r"\bLei\s+Anticorrupcao\b", "Lei 12.846/2013", False),
    (r"\bLei\s+do\s+Processo\s+Eletronico\b", "Lei 11.419/2006", False),
]
_NAMED = [(re.compile(p) if cs else re.compile(p, re.I), act) for p, act, cs in _NAMED_ACTS]

_KINDS = {
    "lei complementar": "LC",
    "lc": "LC",
    "lei": "Lei",
    "leis": "Lei",
    "l.": "Lei",
    "decreto-lei": "Decreto-Lei",
    "decreto legislativo": "Decreto Legislativo",
    "decreto": "Decreto",
    "medida provisoria": "MP",
    "resolucao": "Resolução",
    "emenda constitucional": "EC",
    "instrucao normativa": "IN",
    "portaria": "Portaria",
    "provimento": "Provimento",
}
_ISSUED = frozenset({"Resolução", "IN", "Portaria", "Provimento"})
_NUMBER = r"\d{1,3}(?:\.\d{3})+|\d{1,6}"
_NUMBERED_ACT = re.compile(
    r"(?<![\w.])(?P<kind>Lei\s+Complementar|Leis?|(?-i:L)\.|LC|Decreto[-\s]Lei|Decreto\s+Legislativo|Decreto|"
    r"Medida\s+Provisoria|Resolucao|Emenda\s+Constitucional|Instrucao\s+Normativa|Portaria|Provimento)"
    r"(?:\s+(?:Federal|Estadual|Municipal))?"
    r"(?:\s+(?P<issuer>(?-i:[A-Z][A-Za-z]{1,9}(?:/[A-Z]{2,6})?)))??"
    r"\s*(?:n[o.]*\s*[º°]?|[º°])?\.?\s*"
    rf"(?P<num>{_NUMBER})(?:\s*/\s*(?P<year>\d{{4}}|\d{{2}})(?![\d/])|,?\s+de\s+\d{{1,2}}\s*[º°o]?\s+de\s+(?:{MONTH_PATTERN})\s+de\s+(?P<year2>\d{{4}}))",
    re.I,
)
_ACT_CONTINUATION = re.compile(
    rf"\s*(?:,|\be\b)\s*(?:(?:a|o)\s+)?(?:n[o.]*\s*[º°]?\.?\s*)?(?P<num>{_NUMBER})\s*/\s*(?P<year>\d{{4}}|\d{{2}})(?![\d/])",
    re.I,
)
# An act named as the one that amended another ("com a redação dada pela Lei 13.129/2015") is cited,
# but the articles around it belong to the act it amended.
_AMENDING = re.compile(
    r"(?:reda[cç][aã]o\s+(?:dada|determinada|conferida|ofertada)|veiculad[oa]|alterac[oõ]es\s+(?:promovidas|introduzidas)|"
    r"alterad[oa]|introduzid[oa]|acrescentad[oa]|inclu[ií]d[oa]|institu[ií]d[oa]|reforma\s+(?:instituida|promovida))"
    r"\s+(?:pel[ao]s?|n[ao])\s+$",
    re.I,
)
_ANAPHORA = re.compile(
    r"\s*,?\s*(?:d[ao]s?|dest[ae]s?|dess[ae]s?|daquel[ae]s?|n[ao]s?)\s+(?:mesm[ao]s?\s+|referid[ao]s?\s+|mencionad[ao]s?\s+|"
    r"citad[ao]s?\s+|aludid[ao]s?\s+)?(?:Lei|diploma(?:\s+legal)?|norma|Codigo|lei\s+(?:adjetiva|de\s+regencia)(?:\s+civil)?)\b",
    re.I,
)


@dataclass
class _Act:
    start: int
    end: int
    act: str
    amending: bool = False
    short: bool = False  # named by an abbreviation ("CF", "CPC", "LArb"): may be followed by bare numbers


def _year4(year: str) -> str:
    if len(year) == 4:
        return year
    return ("19" if int(year) >= 30 else "20") + year


def _with_dots(number: str) -> str:
    digits = number.replace(".", "")
    return f"{int(digits):,}".replace(",", ".") if digits.isdigit() else number


def _numbered_act(kind: str, issuer: str | None, number: str, year: str) -> str:
    kind = _KINDS.get(re.sub(r"\s+", " ", kind.lower()).replace("decreto lei", "decreto-lei"), kind)
    digits = number.replace(".", "")
    code = CODE_BY_NUMBER.get((kind, digits, _year4(year)))
    if code:
        return code
    prefix = f"{kind} {issuer}" if issuer and kind in _ISSUED else kind
    return f"{prefix} {_with_dots(number) if kind not in _ISSUED else digits}/{_year4(year)}"


def find_acts(ftext: str) -> list[_Act]:
    """Every act named in the (accent-folded) text, in order; bare "CPC?"/"CC?" still unresolved."""
    found: list[_Act] = []
    for match in _NUMBERED_ACT.finditer(ftext):
        year = match["year"] or match["year2"]
        amending = bool(_AMENDING.search(ftext[max(0, match.start() - 60) : match.start()]))
        found.append(
            _Act(
                match.start(), match.end(), _numbered_act(match["kind"], match["issuer"], match["num"], year), amending
            )
        )
        pos = match.end()
        while more := _ACT_CONTINUATION.match(ftext, pos):  # "Lei 7.347/85 e 8.078/90"
            act = _numbered_act(match["kind"], match["issuer"], more["num"], more["year"])
            found.append(_Act(more.start("num"), more.end(), act, amending))
            pos = more.end()
    taken = [(a.start, a.end) for a in found]
    for pattern, act in _NAMED:
        for match in pattern.finditer(ftext):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            taken.append((match.start(), match.end()))
            short = bool(re.fullmatch(r"[A-Za-z]{2,6}", match.group()))
            foreign = bool(_FOREIGN_QUALIFIER.match(ftext, match.end()))  # "CPC português", "Código Civil italiano"
            found.append(_Act(match.start(), match.end(), FOREIGN + act if foreign else act, short=short))
    found.sort(key=lambda a: a.start)
    return found


FOREIGN = "~"
"""Prefix of a code of another country's law ("~CPC?" for the "CPC português"): it is bound to like any act, so
its articles are not taken by a Brazilian act named nearby, and it is never cited: no Brazilian id is true of it."""
_NATIONS = (
    "portugues|alema[oe]?|frances|italian|espanhol|argentin|chilen|uruguai|paraguai|perua?n|colombian|mexican|"
    "suic|austriac|belga|holandes|japones|chines|ingles|britanic|norte-american|american|grego|russ|quebequense|"
    "angolan|mocambican|cabo-verdian"
)
_FOREIGN_QUALIFIER = re.compile(
    rf"\s*(?:(?:{_NATIONS})(?:[oa]s?|es|esa)?(?![a-z])|(?:de|da|do)\s+(?:Portugal|Alemanha|Franca|Italia|Espanha|Argentina|"
    r"Chile|Uruguai|Paraguai|Peru|Mexico|Suica|Austria|Japao|Angola|Mocambique)\b|daquele\s+pais\b|estrangeir[oa]\b)",
    re.I,
)
# An article in Portugal's notation: the ordinal beyond the ninth article ("art. 637.º", "artigo 46.º") or the
# number of a paragraph after it ("artigo 6.º, n.º 1"); and in Brazil's: "art. 1.042", "art. 339", "§ 1º".
_PORTUGAL_ARTICLE = re.compile(
    r"\bart(?:igo)?s?\.?\s*(?:\d{2,4}\s?\.\s?[º°]|\d{1,4}\s?\.?\s?[º°]?\s*,\s*n\.\s?[º°]\s*\d)", re.I
)
_BRAZIL_ARTICLE = re.compile(r"\bart(?:igo)?s?\.?\s*(?:\d{1,3}\.\d{3}|\d{2,3})(?![\d.º°]|\s[º°])|§", re.I)
_BARE_CODES = frozenset({"CPC?", "CPC<", "CPC=", "CC?", "CC<", "CC=", "CP", "CPP"})
"""Codes named without a country or an edition: "o CPC", "o Código Civil", "a Constituição" name Portugal's own in a
text under Portugal's law."""


def under_portuguese_law(text: str) -> bool:
    """Whether `text` cites the way Portugal's law (and the EU's judgments in Portuguese) does, "art. 637.º, n.º 1,
    CPC", more often than the way Brazil's does ("art. 1.042 do CPC", "§ 1º"): a Portuguese court's decision or
    doctrine about Portuguese law, where a bare "CPC" is Portugal's. A Brazilian text that quotes a Portuguese
    article now and then ("o art. 344, n.º 2, do Código Civil português") is still Brazilian."""
    portugal = len(_PORTUGAL_ARTICLE.findall(text))
    return portugal > 0 and portugal > len(_BRAZIL_ARTICLE.findall(text))


CPC_2015_IN_FORCE = date(2016, 3, 18)
"""The CPC/2015 (Lei 13.105/2015) came into force on 18/03/2016: a decision judged before cites the CPC/1973."""
_EDITIONS: dict[str, tuple[tuple[date, str], ...]] = {
    "CPC": ((date(1940, 3, 1), "CPC/1939"), (date(1974, 1, 1), "CPC/1973"), (CPC_2015_IN_FORCE, "CPC/2015")),
    "CC": ((date(1917, 1, 1), "CC/1916"), (date(2003, 1, 11), "CC/2002")),
}
"""Each code's editions, with the day each came into force, oldest first."""


def _in_force_at(code: str, when: date | None, before: int = 0) -> str:
    """The edition of a code in force at `when` (today's when unknown); `before=1` the one it replaced."""
    editions = _EDITIONS[code]
    current = len(editions) - 1 if when is None else max(bisect.bisect_right([d for d, _ in editions], when) - 1, 0)
    return editions[max(current - before, 0)][1]


def as_date(when: date | int | None) -> date | None:
    """A document's date, or the middle of its year when only the year is known."""
    return date(when, 7, 1) if isinstance(when, int) else when


def resolve_editions(acts: list[_Act], when: date | int | None, preceding: Iterable[_Act] = ()) -> None:
    """Give "CPC<"/"CC<" the edition before the one in force at `when` ("CPC revogado"), "CPC="/"CC=" the one in
    force ("CPC vigente"); then bare "CPC?"/"CC?" the edition the text named last before them (`preceding`: the
    editions named in the text a sentence was cut from, before it), else next after them, else the one in force."""
    when = as_date(when)
    preceding = list(preceding)
    for a in [*preceding, *acts]:
        if a.act[-1] in "<=" and a.act[:-1] in _EDITIONS:
            a.act = _in_force_at(a.act[:-1], when, before=int(a.act[-1] == "<"))
    for code, editions in _EDITIONS.items():
        named = {edition for _, edition in editions}
        explicit = [(a.start, a.act) for a in [*preceding, *acts] if a.act in named]
        explicit.sort(key=lambda e: e[0])
        starts = [s for s, _ in explicit]
        for a in acts:
            if a.act != f"{code}?":
                continue
            i = bisect.bisect_left(starts, a.start)
            a.act = explicit[i - 1][1] if i > 0 else explicit[i][1] if i < len(explicit) else _in_force_at(code, when)


# ------------------------------------------------------------------------------------ provisions

_ROMAN = r"(?=[IVXLC])C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?<=[IVXLC])"
_QUOTE = "\"“”'‘’"
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<sep>,|;\s*e\b|\be\b|c/c|c\.c\.?|combinad[oa]\s+com|bem\s+como)(?:\s+(?:o|os|no|nos|do|dos|ao|aos)\b(?=\s*art))?"
    r"|(?P<art>\bart(?:igo)?s?\b\.?)"
    r"|(?P<caput>\bcaput\b)"
    r"|(?P<pu>(?:§|\bpar(?:agrafo)?\.?)\s*(?:unico|un\.|un\b))"
    r"|(?P<par>(?:§§?|\bparagrafos?|\bpar\.)\s*(?P<pn>\d{1,3})\s*\.?\s*[º°o]?(?:-(?P<pl>[A-Z]))?(?![\d/]|\.\d))"
    r"|(?P<inc>(?:\bincisos?\s+|\bincs?\.\s*)?(?P<roman>(?-i:" + _ROMAN + r"))\b(?![.]\w))"
    r"|(?P<ali>(?:\bal[ií]neas?|\bletras?)\s*[" + _QUOTE + r"]?(?P<letter>[a-z])\b[" + _QUOTE + r"]?)"
    r"|(?P<ali2>[" + _QUOTE + r"](?P<letter2>[a-z])[" + _QUOTE + r"])"
    r"|(?P<num>(?P<n>\d{1,3}(?:\.\d{3})+|\d{1,4})\s*\.?\s*[º°o]?(?:-(?P<suffix>[A-Z]))?(?![\d/]|\.\d|\s*/\s*\d))"
    r")",
    re.I,
)


def _article(n: str, suffix: str | None = None) -> str:
    value = int(n.replace(".", ""))
    text = f"{value:,}".replace(",", ".") + ("º" if value < 10 else "")
    return f"{text}-{suffix.upper()}" if suffix else text


def _paragraph(n: str | None, letter: str | None = None) -> str:
    if n is None:
        return "parágrafo único"
    value = int(n)
    text = f"§ {value}" + ("º" if value < 10 else "")
    return f"{text}-{letter.upper()}" if letter else text


_LEVELS = ("paragraph", "inciso", "alinea")


@dataclass
class _Provision:
    article: str
    paragraph: str | None = None
    inciso: str | None = None
    alinea: str | None = None

    def ids(self, act: str) -> list[str]:
        """The provision's id and its ancestors', from the act down."""
        parts = [act, f"art. {self.article}"] + [p for p in (self.paragraph, self.inciso, self.alinea) if p]
        return [", ".join(parts[: i + 1]) for i in range(len(parts))]

    def refine(self, items: list["_Provision"], level: str, value: str) -> "_Provision":
        """Set a deeper level, or start a sibling when that level is taken ("art. 535, I e II")."""
        deeper = _LEVELS[_LEVELS.index(level) + 1 :]
        if getattr(self, level) is None and all(getattr(self, d) is None for d in deeper):
            setattr(self, level, value)
            return self
        keep = {k: getattr(self, k) for k in _LEVELS[: _LEVELS.index(level)]}
        sibling = _Provision(self.article, **keep, **{level: value})
        items.append(sibling)
        return sibling


def parse_provisions(ftext: str, pos: int) -> tuple[list[_Provision], int]:
    """The provisions listed from `pos` (just after "art."): "4º, 8º e 20", "81, parágrafo único, I, II e
    III c/c art. 82, I", "105, inciso III, alíneas "a" e "c""; and where the list ends."""
    items: list[_Provision] = []
    current: _Provision | None = None
    end = last_end = pos
    after_separator = True
    # In a "§§ 3º e 4º" list the next number after one separator is a paragraph too when it is an ordinal or
    # joined by "e" ("§§ 2º e 11"); "§§ 3º e 4º, 21, 131" goes on with articles.
    paragraphs = joined_by_e = False
    separators = 0
    while match := _TOKEN.match(ftext, end):
        g = match.groupdict()
        if g["num"] is not None:
            if not after_separator:
                break  # "art. 5º 10 dias": not a list any more
            ordinal = re.search(r"\d\s*\.?\s*[º°o]", match.group(), re.I) is not None
            if paragraphs and separators == 1 and current is not None and (ordinal or joined_by_e):
                current = current.refine(items, "paragraph", _paragraph(g["n"], g["suffix"]))
                paragraphs = ordinal  # "§§ 2º e 11 e 86": the list of paragraphs ended at 11
            else:
                current = _Provision(_article(g["n"], g["suffix"]))
                items.append(current)
                paragraphs = False
            after_separator = False
        elif g["sep"] is not None or g["art"] is not None:
            after_separator = True
            separators += 1
            joined_by_e = (g["sep"] or "").strip().lower() == "e"
            paragraphs = paragraphs and g["art"] is None
            end = match.end()
            continue
        elif g["caput"] is not None and current is not None:
            after_separator = False
        elif current is None:
            break
        elif g["pu"] is not None:
            current = current.refine(items, "paragraph", "parágrafo único")
        elif g["par"] is not None:
            current = current.refine(items, "paragraph", _paragraph(g["pn"], g["pl"]))
            paragraphs = bool(re.match(r"§§|paragrafos", g["par"], re.I))
        elif g["inc"] is not None:
            if not g["roman"]:
                break
            current = current.refine(items, "inciso", g["roman"].upper())
        elif g["ali"] is not None or (g["ali2"] is not None and current.alinea is not None):
            current = current.refine(items, "alinea", (g["letter"] or g["letter2"]).lower())
        else:
            break
        after_separator = False
        separators = 0
        end = last_end = match.end()
    return items, last_end


_ART = re.compile(r"\bart(?:igo)?s?\b\.?(?=\s*\d)", re.I)
_SUBS_FIRST = re.compile(
    r"(?P<subs>(?:§§?|\bparagrafos?|\bpar\.)\s*(?:\d{1,3}\s*\.?\s*[º°o]?(?:\s*(?:,|\be\b)\s*\d{1,3}\s*\.?\s*[º°o]?)*|unico)"
    r"|\bincisos?\s+(?-i:" + _ROMAN + r")\b(?:\s*(?:,|\be\b)\s*(?-i:" + _ROMAN + r")\b)*)"
    r"\s*,?\s*(?:d[oa]|daquele|deste|desse)\s+(?P<same>mesmo\s+)?(?P<target>art(?:igo)?\.?\s*(?=\d)|dispositivo\b|artigo\b)",
    re.I,
)
_ACT_FIRST = re.compile(r"\s*,\s*(?=art(?:igo)?s?\b)", re.I)
_GLUE = re.compile(
    r"\s*,?\s*(?:(?:tod[oa]s|amb[oa]s)\s+)?(?:(?:d[oa]s?|dest[ae]|dess[ae]|n[oa]s?|em|pel[oa])\s+)?", re.I
)
_UNKNOWN_ACT_BEFORE = re.compile(r"[A-Za-z]{3,}\s*,\s*$")
_LINE_START = re.compile(r"(?:^|\n)\s*$")
CODES = frozenset(
    {"CF/1988", "CPC/1939", "CPC/1973", "CPC/2015", "CC/2002", "CC/1916", "CDC", "CLT", "CP", "CPP", "CTN", "ECA"}
)


def _is_code(act: str) -> bool:
    """A Brazilian code, or another country's ("do mesmo Código" after "Código Civil italiano" is Italy's)."""
    return act in CODES or act.startswith(FOREIGN)


LOOKBACK = 400
"""An article without a named act takes an act named at most this many characters before it."""
TRANSCRIPTION_LOOKBACK = 1500
"""A transcribed article ("Art. 12. O fabricante ...") takes the act the passage was about."""
ANAPHORA_LOOKBACK = 3000
"""'da mesma Lei', 'do mesmo diploma': the act named last, within this distance."""


def _parse_subs(text: str) -> list[dict[str, str]]:
    """ "§§ 2º e 4º" -> [{paragraph: § 2º}, {paragraph: § 4º}]; "parágrafo único", "incisos I e II"."""
    if re.search(r"unico", text, re.I):
        return [{"paragraph": "parágrafo único"}]
    if re.match(r"\s*incisos?", text, re.I):
        return [{"inciso": r} for r in re.findall(r"\b(" + _ROMAN + r")\b", text) if r]
    return [{"paragraph": _paragraph(n)} for n in re.findall(r"\d{1,3}", text)]


class _Binder:
    """Finds the act a provision list belongs to, and remembers acts for the provisions that follow."""

    def __init__(self, ftext: str, acts: list[_Act]) -> None:
        self.ftext = ftext
        self.acts = acts
        self.starts = [a.start for a in acts]
        self.recent: list[tuple[int, str]] = []  # (end, act) of acts that took provisions
        self.last_article: tuple[str, _Provision] | None = None
        self.named: dict[tuple[str, str | None, str | None], str] = {}  # provision -> act it was written with
        self.prior: Callable[[], dict[tuple[str, str | None, str | None], str]] | None = None

    def name(self, act: str, provisions: list[_Provision]) -> None:
        """Remember provisions written with their own act ("art. 33, § 3º, da Lei 9.307/96")."""
        for p in provisions:
            self.named.setdefault(_designation(p), act)

    def written_with(self, provision: _Provision) -> str | None:
        """The act a bare repeat of a provision already written with its act belongs to: "(art. 33, § 3º)" after
        "art. 33, § 3º, da Lei 9.307/96" is that law's, even when "do CPC" stands nearer; in this text, else in
        the text before it (`prior`, read only when a bare article asks)."""
        key = _designation(provision)
        if key in self.named:
            return self.named[key]
        if self.prior is not None:
            earlier, self.prior = self.prior(), None
            for k, act in earlier.items():
                self.named.setdefault(k, act)
            return self.named.get(key)
        return None

    def act_at(self, pos: int) -> _Act | None:
        i = bisect.bisect_left(self.starts, pos)
        return self.acts[i] if i < len(self.acts) and self.acts[i].start == pos else None

    def before(self, pos: int, window: int, codes_only: bool = False) -> str | None:
        """The last act named or bound before `pos`, at most `window` characters away; acts named as
        amending another are skipped ("do Código": codes only)."""
        best: tuple[int, str] | None = None
        i = bisect.bisect_left(self.starts, pos)
        while i > 0:
            i -= 1
            act = self.acts[i]
            if act.end <= pos and not act.amending and (not codes_only or _is_code(act.act)):
                best = (act.end, act.act)
                break
        for end, act in reversed(self.recent):
            if end <= pos and (not codes_only or _is_code(act)):
                if best is None or end > best[0]:
                    best = (end, act)
                break
        return best[1] if best and pos - best[0] <= window else None

    def after(self, pos: int, anchor: int) -> tuple[str | None, int]:
        """The act named right after a list ("... da Lei 9.307/96", ", CDC", "da mesma Lei")."""
        glue = _GLUE.match(self.ftext, pos)
        act = self.act_at(glue.end()) if glue else None
        if act is not None:
            return act.act, act.end
        anaphora = _ANAPHORA.match(self.ftext, pos)
        if anaphora:
            codes_only = anaphora.group().rstrip().lower().endswith("codigo")
            return self.before(anchor, ANAPHORA_LOOKBACK, codes_only), anaphora.end()
        return None, pos

    def take(self, pos: int, act: str, provisions: list[_Provision]) -> list[str]:
        self.recent.append((pos, act))
        self.last_article = (act, provisions[-1])
        return [i for p in provisions for i in p.ids(act)]


def _designation(provision: _Provision) -> tuple[str, str | None, str | None]:
    return provision.article, provision.paragraph, provision.inciso


def find_provisions(
    ftext: str, acts: list[_Act], prior: Callable[[], dict[tuple[str, str | None, str | None], str]] | None = None
) -> list[tuple[int, list[str]]]:
    """(position, ids) of every provision cited together with its act (see the module docstring).

    prior: the provisions the text before this one wrote with their act (`_named_provisions`), asked for only
    when a bare article repeats one."""
    return _bind(ftext, acts, prior)[0]


def _named_provisions(ftext: str, acts: list[_Act]) -> dict[tuple[str, str | None, str | None], str]:
    """Provision -> act, of the provisions `ftext` writes together with their act."""
    return _bind(ftext, acts, None)[1].named


def _bind(
    ftext: str, acts: list[_Act], prior: Callable[[], dict[tuple[str, str | None, str | None], str]] | None
) -> tuple[list[tuple[int, list[str]]], "_Binder"]:
    binder = _Binder(ftext, acts)
    binder.prior = prior
    out: list[tuple[int, list[str]]] = []
    events: list[tuple[int, int, object]] = [(m.start(), 1, m) for m in _SUBS_FIRST.finditer(ftext)]
    events += [(m.start(), 2, m) for m in _ART.finditer(ftext)]
    events += [(a.start, 0, a) for a in acts]
    events.sort(key=lambda e: (e[0], e[1]))
    # The text of a transcribed article ("Art. 45. São nulas ... prevista no art. 47") is the law's, not
    # the document's: only its head is a citation.
    transcribed = [(m.start("body"), m.end()) for m in _TRANSCRIBED_LINE.finditer(ftext)]
    done = 0
    for pos, _, obj in events:
        if pos < done or _inside(transcribed, pos):
            continue
        if isinstance(obj, _Act):
            done = _act_first(ftext, obj, binder, out) or done
        elif obj.re is _SUBS_FIRST:
            done = _subs_first(ftext, obj, binder, out) or done
        else:
            done = _articles(ftext, obj, binder, out) or done
    return out, binder


def _act_first(ftext: str, act: _Act, binder: _Binder, out: list) -> int:
    """ "CDC, art. 14", "CC, art. 722"; and codes in Nery's notation: "CF 5º, XXXV", "LArb. 21 § 2º"."""
    comma = _ACT_FIRST.match(ftext, act.end)
    if comma:
        art = _ART.match(ftext, comma.end())
        start = art.end() if art else comma.end()
    elif act.short and re.match(r"\.?\s+\d", ftext[act.end : act.end + 4]):
        start = re.compile(r"\.?\s*").match(ftext, act.end).end()
    else:
        return 0
    items, end = parse_provisions(ftext, start)
    items = [p for p in items if comma or not 1900 <= int(p.article.split("-")[0].strip("º").replace(".", "")) <= 2100]
    if not items:
        return 0
    binder.name(act.act, items)
    out.append((act.start, binder.take(act.end, act.act, items)))
    return end


def _subs_first(ftext: str, match: re.Match[str], binder: _Binder, out: list) -> int:
    """ "§ 1º do art. 162", "§§ 2º e 4º do art. 33", "inciso II do art. 335", "o § 1º do mesmo dispositivo"."""
    subs = _parse_subs(match["subs"])
    if not subs:
        return 0
    numbered = re.match(r"art", match["target"], re.I) is not None
    if not numbered or (match["same"] and not re.match(r"\s*\d", ftext[match.end() : match.end() + 3])):
        # "do mesmo dispositivo / artigo": the article cited last
        if binder.last_article is None:
            return match.end()
        act, prov = binder.last_article
        provisions = [_Provision(prov.article, **sub) for sub in subs]
        out.append((match.start(), binder.take(match.end(), act, provisions)))
        return match.end()
    items, end = parse_provisions(ftext, match.end())
    if not items:
        return 0
    if match["same"] and binder.last_article is not None:
        act = binder.last_article[0]
        act_end = end
    else:
        act, act_end = binder.after(end, match.start())
        act = act or binder.before(match.start(), LOOKBACK)
    if act:
        provisions = [_Provision(items[0].article, **sub) for sub in subs] + items[1:]
        out.append((match.start(), binder.take(max(end, act_end), act, provisions)))
    return max(end, act_end)


_TRANSCRIBED_LINE = re.compile(r"^[ \t]*Art\.\s*\d{1,4}\s*[º°o]?(?:-[A-Z])?\s*[.-]\s*(?P<body>(?-i:[A-Z]).*)$", re.M)


def _inside(spans: list[tuple[int, int]], pos: int) -> bool:
    i = bisect.bisect_right(spans, (pos, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]


_UNKNOWN_ACT_AFTER = re.compile(
    r"\s*,?\s*(?:d[oa]s?|dest[ae]|n[oa]s?)\s+(?:(?:nov[oa]|atual|vigente|antig[oa])\s+)?"
    r"(?:Codigo|Regimento|Regulamento|Estatuto|Resolucao|Portaria|Provimento|Instrucao|Convencao|Tratado|Diretiva|"
    r"Directiva|Constituicao\s+(?:Estadual|do\s+Estado|Paulista|Mineira)|Lei\s+Organica|Emenda|Ato|Edital|Contrato|"
    r"Regulamentacao|Decreto(?!\s*[-\d]|\s+n)|Carta|(?-i:RI[A-Z]{1,5})|Tabela|Anexo)\b",
    re.I,
)
"""What names an act this module does not identify, right after an article list ("art. 111 do Código de Ética",
"art. 255 do RISTJ", "art. 21 do Regimento Interno"): the article is that act's, so it binds to none."""
_MORE = re.compile(r"\s*[,;]?\s*\be\b\s*(?:(?:o|no|do|ao)\s+)?(?:art(?:igo)?s?\.?\s*)?(?=\d)", re.I)


def _articles(ftext: str, match: re.Match[str], binder: _Binder, out: list) -> int:
    """ "art. 4º, § 2º, da Lei 9.307/96", "arts. 22 e 46 da Lei 8.245/1991; e 51 do CDC", and articles whose
    act is named before them or only by an anaphora."""
    pos = match.start()
    if _UNKNOWN_ACT_BEFORE.search(ftext[max(0, pos - 40) : pos]):
        before = ftext[:pos].rstrip(" ,\n")
        if not any(a.end == len(before) for a in binder.acts):
            return 0  # "... Trade Law, art. 32.1": an act we do not know
    # "Art. 12. O fabricante ..." opening a line: a transcribed article, about the act named before it
    transcription = bool(_LINE_START.search(ftext[max(0, pos - 3) : pos])) and match.group()[:1] == "A"
    groups: list[tuple[int, list[_Provision], str | None, int]] = []
    cursor, group_start = match.end(), pos
    while True:
        items, end = parse_provisions(ftext, cursor)
        if not items:
            break
        act, act_end = binder.after(end, pos)
        groups.append((group_start, items, act, max(end, act_end)))
        if act is None:
            break
        more = _MORE.match(ftext, act_end)  # "...; e 51 do CDC": the list goes on after its act
        if not more:
            break
        group_start, cursor = more.start(), more.end()
    if not groups:
        return 0
    first_start, first_items, first_act, first_end = groups[0]
    if first_act is None and _UNKNOWN_ACT_AFTER.match(ftext, first_end):
        return first_end  # "o art. 111 do Código de Ética": an act we do not know is the nearest, not the one before
    if first_act is None:
        first_act = binder.before(pos, TRANSCRIPTION_LOOKBACK if transcription else LOOKBACK)
        if first_act is not None and not transcription:  # of two acts, the one the article was written with
            first_act = binder.written_with(first_items[0]) or first_act
        groups[0] = (first_start, first_items, first_act, first_end)
    else:
        binder.name(first_act, first_items)
    for start, items, act, end in groups:
        if act is not None:
            out.append((start, binder.take(end, act, items)))
    return groups[-1][3]


# ------------------------------------------------------------------------------------- súmulas

_COURT_WORDS = {
    "stj": "STJ",
    "superior tribunal de justica": "STJ",
    "stf": "STF",
    "supremo tribunal federal": "STF",
    "supremo": "STF",
    "pretorio excelso": "STF",
    "excelso pretorio": "STF",
    "tst": "TST",
    "tribunal superior do trabalho": "TST",
    "tse": "TSE",
    "tcu": "TCU",
    "carf": "CARF",
}
_COURT_NAME = (
    r"STJ|STF|TST|TSE|TCU|CARF|Superior\s+Tribunal\s+de\s+Justica|Supremo\s+Tribunal\s+Federal|Supremo|"
    r"Pretorio\s+Excelso|Excelso\s+Pretorio|Tribunal\s+Superior\s+do\s+Trabalho"
)
_SUMULA = re.compile(
    r"\b(?:S[uú]mulas?|Enunciados?)(?P<vinc>\s+Vinculantes?)?(?:\s+(?:n[º°o.]*s?|n\.)\s*\.?|\s+)"
    r"(?P<items>\d{1,4}(?:\s*[-/]\s*(?:"
    + _COURT_NAME
    + r"))?(?:\s*(?:,|\be\b)\s*\d{1,4}(?:\s*[-/]\s*(?:"
    + _COURT_NAME
    + r"))?)*)"
    r"(?P<tail>\s*(?:[-/]|,?\s*(?:d[oa]s?|dest[ae]|dess[ae])\s+(?:S[uú]mulas?\s+(?:d[oa]|dest[ae]|dess[ae])\s+)?(?:(?:E\.|C\.|Egregi[ao]|Colend[ao])\s+)?)\s*(?P<court>"
    + _COURT_NAME
    + r"|(?:Corte|Tribunal)(?:\s+Superior)?)\b)?",
    re.I,
)
_PROPOSED = re.compile(r"\b(?:propost[ao]s?|projetos?)\s+de\s+$", re.I)
"""Before "Súmula ...": a proposal, not a súmula. "Proposta de Súmula Vinculante no 4" (the entes' solidarity in health,
cited by a doctrine article, i274) was read as Súmula Vinculante 4, which is on the minimum wage."""
_ENUNCIADO_ADM = re.compile(r"\bEnunciado\s+Administrativo\s+(?:n[º°o.]*\s*)?(?P<n>\d{1,4})", re.I)
_SUPERIOR = {"stj": "STJ", "stf": "STF", "tst": "TST", "tse": "TSE", "stm": "STM"}


def _court_word(word: str | None) -> str | None:
    if not word:
        return None
    return _COURT_WORDS.get(re.sub(r"\s+", " ", fold(word).lower()))


def find_sumulas(ftext: str, own_court: str | None, precedent_courts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(position, "Súmula 7/STJ") of every súmula cited."""
    out: list[tuple[int, str]] = []

    def house(pos: int) -> str | None:
        if own_court in _SUPERIOR:
            return _SUPERIOR[own_court]
        near = [(abs(p - pos), c) for p, c in precedent_courts if abs(p - pos) <= 1500]
        return min(near)[1] if near else None

    for match in _SUMULA.finditer(ftext):
        if match.group().lower().startswith("enunciado") and not re.search(r"s[uú]mula", match.group(), re.I):
            continue
        if _PROPOSED.search(ftext, max(0, match.start() - 20), match.start()):
            continue
        tail_court = _court_word(match["court"]) if match["court"] else None
        if match["court"] and not tail_court:
            tail_court = house(match.start())
        items = re.findall(r"(\d{1,4})(?:\s*[-/]\s*(" + _COURT_NAME + r"))?", match["items"], re.I)
        courts: list[str | None] = []
        following = tail_court
        for _, court in reversed(items):  # "Súmulas 5 e 7/STJ": 5 takes the court written after 7
            following = _court_word(court) or following
            courts.append(following)
        for (number, _), name in zip(items, reversed(courts), strict=True):
            if match["vinc"]:
                out.append((match.start(), f"Súmula Vinculante {int(number)}"))
            elif name:
                out.append((match.start(), f"Súmula {int(number)}/{name}"))
            elif own_court in _SUPERIOR:
                out.append((match.start(), f"Súmula {int(number)}/{_SUPERIOR[own_court]}"))
    for match in _ENUNCIADO_ADM.finditer(ftext):
        near = re.search(_COURT_NAME, ftext[match.end() : match.end() + 80], re.I)
        court = _court_word(near.group()) if near else _SUPERIOR.get(own_court or "")
        if court:
            out.append((match.start(), f"Enunciado Administrativo {int(match['n'])}/{court}"))
    return out


# ----------------------------------------------------------------------------------- precedents

CLASSES = {
    "resp": "REsp",
    "aresp": "AREsp",
    "eresp": "EREsp",
    "ag": "Ag",
    "aga": "Ag",
    "ai": "AI",
    "re": "RE",
    "are": "ARE",
    "hc": "HC",
    "rhc": "RHC",
    "ms": "MS",
    "rms": "RMS",
    "mc": "MC",
    "rcl": "Rcl",
    "cc": "CC",
    "adi": "ADI",
    "adc": "ADC",
    "ado": "ADO",
    "adpf": "ADPF",
    "se": "SE",
    "sec": "SEC",
    "hde": "HDE",
    "pet": "Pet",
    "inq": "Inq",
    "ap": "AP",
    "rr": "RR",
    "airr": "AIRR",
}
FULL_CLASSES = {
    "recurso especial": "REsp",
    "agravo em recurso especial": "AREsp",
    "embargos de divergencia em recurso especial": "EREsp",
    "recurso extraordinario com agravo": "ARE",
    "agravo em recurso extraordinario": "ARE",
    "recurso extraordinario": "RE",
    "recurso ordinario em habeas corpus": "RHC",
    "recurso em habeas corpus": "RHC",
    "habeas corpus": "HC",
    "recurso em mandado de seguranca": "RMS",
    "recurso ordinario em mandado de seguranca": "RMS",
    "medida cautelar": "MC",
    "reclamacao": "Rcl",
    "acao direta de inconstitucionalidade": "ADI",
    "arguicao de descumprimento de preceito fundamental": "ADPF",
    "recurso de revista": "RR",
}
_FEMININE = frozenset({"MC", "SE", "SEC", "HDE", "Rcl", "Pet", "ADI", "ADC", "ADO", "ADPF", "AP"})
_CLASS_ALT = "|".join(sorted(CLASSES, key=len, reverse=True))
_FULL_ALT = "|".join(sorted((re.escape(k).replace(r"\ ", r"\s+") for k in FULL_CLASSES), key=len, reverse=True))
_PRECEDENT = re.compile(
    r"(?<![\w/.-])(?P<prefix>(?:(?:AgRg|AgInt|AgR|EDcl|EDv|ED)\s+n[oa]s?\s+)*)"
    rf"(?:(?P<cls>(?i:{_CLASS_ALT}))(?P<plural>s)?\.?|(?P<full>(?i:{_FULL_ALT})))"
    r"(?:\s*(?i:n[º°o.]*s?)\s*\.?\s*|\s+)(?P<num>\d{1,3}(?:\.\d{3})+|\d{3,9})(?![\d.]*\d)"
    r"(?:\s*(?:/|-|–)\s*(?P<uf>[A-Z]{2})\b)?"
    r"(?P<suffix>\s*-?\s*(?:AgRg|AgR|ED)\b)?"
)
_PLURAL_MORE = re.compile(r"\s*(?:,|\be\b)\s*(?P<num>\d{1,3}(?:\.\d{3})+|\d{3,9})(?:\s*(?:/|-)\s*(?P<uf>[A-Z]{2})\b)?")
_PRECEDENT_CONTEXT = re.compile(
    r"\bRel\.|\bRelator|Julgamento|\bjulgad[oa]\s+em|\bDes\(a\)|\bDes\.|C[aâ]mara|C[AÂ]MARA|Turma|TURMA|Ac[oó]rd[aã]o|"
    r"APELA[CÇ][AÃ]O|Apela[cç][aã]o|Agravo\s+de\s+Instrumento|AGRAVO|Recurso\s+Inomin|\bRI\s+n|\bTJ[A-Z]{2}\b|\bTJDF"
)
_STF_CLASSES = frozenset({"RE", "ARE", "AI", "ADI", "ADC", "ADO", "ADPF", "SE", "Rcl", "Inq", "AP"})


def _precedent_id(prefix: str, cls: str, number: str, uf: str | None, suffix: str | None) -> str:
    prefix_parts = re.findall(r"(AgRg|AgInt|AgR|EDcl|EDv|ED)\s+(n[oa]s?)", prefix)
    text = "".join(f"{p} {n.lower()} " for p, n in prefix_parts)
    if suffix:
        agravo = re.sub(r"[\s-]+", "", suffix)
        text = f"{agravo} {'na' if cls in _FEMININE else 'no'} " + text
    ident = f"{text}{cls} {_with_dots(number)}"
    return f"{ident}/{uf}" if uf and uf in UFS else ident


def find_precedents(text: str) -> list[tuple[int, str, str]]:
    """(position, id, court) of every higher-court precedent cited by class and number."""
    out: list[tuple[int, str, str]] = []
    for match in _PRECEDENT.finditer(text):
        if match["cls"]:
            key = match["cls"].lower()
            if key not in CLASSES:
                continue
            cls = CLASSES[key]
            if match["cls"] not in (cls, cls.upper(), cls.lower(), cls.capitalize(), "AResp", "Resp", "RESp", "AGA"):
                continue  # "Se", "Ag" in running text: only the citation spellings count
            prefix = match["prefix"] + ("AgRg no " if key == "aga" else "")
        else:
            cls = FULL_CLASSES[re.sub(r"\s+", " ", fold(match["full"]).lower())]
            prefix = match["prefix"]
            if not re.search(r"n[º°o.]", match.group(), re.I):
                continue  # "recurso especial 123" in prose is not a citation without "nº"
        number = match["num"]
        if cls in ("RE", "MS", "HC", "CC", "AP", "SE") and len(number.replace(".", "")) < 3:
            continue
        court = "STF" if cls in _STF_CLASSES else ("TST" if cls in ("RR", "AIRR") else "STJ")
        out.append((match.start(), _precedent_id(prefix, cls, number, match["uf"], match["suffix"]), court))
        if match["plural"]:
            pos = match.end()
            while more := _PLURAL_MORE.match(text, pos):
                out.append((more.start(), _precedent_id(prefix, cls, more["num"], more["uf"], None), court))
                pos = more.end()
    return out


CNJ_CONTEXT = 120
"""A CNJ number is a cited judgment when a rapporteur, a chamber or a judgment date is this close to it."""


def find_cnj_precedents(text: str, own: set[str]) -> list[tuple[int, str]]:
    """(position, CNJ number) of other courts' judgments cited by their CNJ number."""
    out: list[tuple[int, str]] = []
    for pattern in (process_numbers.CNJ, process_numbers.CNJ_DIGITS):
        for match in pattern.finditer(text):
            number = process_numbers.format_number(match)
            if number in own or not process_numbers.is_valid(number):
                continue
            before = text[max(0, match.start() - CNJ_CONTEXT) : match.start()]
            after = text[match.end() : match.end() + CNJ_CONTEXT]
            if re.search(r"N[úu]meros?\s+(?:de\s+)?Origem", text[max(0, match.start() - 200) : match.start()]):
                continue  # the case's own origin numbers in a judgment certificate
            if _PRECEDENT_CONTEXT.search(before) or _PRECEDENT_CONTEXT.search(after):
                out.append((match.start(), number))
    return out


# ------------------------------------------------------------------------------------------ all

_STAMP = re.compile(
    r"(?:Documento\s+)?assinad[oa]\s+(?:eletronicamente|digitalmente)[\s\S]{0,300}?\d{4}(?:\.|\n|$)", re.I
)


def _masked(text: str) -> str:
    """The text with electronic-signature stamps blanked (same length): their legal basis
    ("nos termos da Lei 11.419/2006") is boilerplate, not a citation."""
    return _STAMP.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def extract_citations(
    text: str,
    own_ids: Iterable[str] = (),
    court: str | None = None,
    year: date | int | None = None,
    before: str = "",
    foreign: bool | None = None,
) -> list[str]:
    """Canonical ids of everything `text` cites, deduplicated, in order of first citation.

    own_ids: the document's own case ids (process number, "REsp 1.602.076/SP"), never cited.
    court: the document's court code (resolves "Súmula 7 desta Corte").
    year: the document's date, or its year (resolves a bare "CPC" when the text never names an edition: the
        CPC/1973 before 18/03/2016).
    before: the text that precedes `text` where it was cut from (a passage, for one of its sentences): the code
        editions it names resolve a bare "CPC" as the text's own would, and a bare article that repeats one it
        wrote with its act ("art. 33, § 3º, da Lei 9.307/96", then "(art. 33, § 3º)") takes that act; nothing
        else in it is cited.
    foreign: whether the text is under another country's law, so that its bare codes ("CPC", "Código Civil",
        "Constituição") are not Brazil's and are not cited; None: judged from the text and `before`
        (under_portuguese_law). A code named with its country ("Código Civil italiano") is never cited.
    """
    text = _masked(text)
    ftext = fold(text)
    own = set(own_ids)
    own_numbers = {re.sub(r"\D", "", o.split("/")[0].split()[-1]) for o in own if o}
    acts = find_acts(ftext)
    if foreign is None:
        foreign = under_portuguese_law(before + text)
    if foreign:  # a bare "CPC" there is the country's own, not Brazil's
        for a in acts:
            if a.act in _BARE_CODES or (a.act == "CF/1988" and fold_lower(ftext[a.start : a.end]) == "constituicao"):
                a.act = FOREIGN + a.act
    preceding = [
        _Act(a.start - len(before), a.end - len(before), a.act)
        for a in (find_acts(fold(_masked(before))) if before and any(a.act.endswith("?") for a in acts) else [])
        if a.act.split("/")[0].rstrip("?<=") in _EDITIONS and not a.act.endswith("?")
    ]
    resolve_editions(acts, year, preceding)
    found: list[tuple[int, str]] = [(a.start, a.act) for a in acts]

    def prior() -> dict[tuple[str, str | None, str | None], str]:
        fbefore = fold(_masked(before))
        return _named_provisions(fbefore, find_acts(fbefore))

    for pos, ids in find_provisions(ftext, acts, prior if before else None):
        found.extend((pos, i) for i in ids)
    precedents = [
        (pos, ident, c)
        for pos, ident, c in find_precedents(text)
        if ident not in own and re.sub(r"\D", "", ident.split("/")[0].split()[-1]) not in own_numbers
    ]
    found.extend((pos, ident) for pos, ident, _ in precedents)
    found.extend(find_sumulas(ftext, court, [(pos, c) for pos, _, c in precedents]))
    found.extend(find_cnj_precedents(text, own))
    found.sort(key=lambda f: f[0])
    ids: list[str] = []
    seen: set[str] = set()
    for _, ident in found:
        if ident not in seen and not ident.startswith(FOREIGN):
            seen.add(ident)
            ids.append(ident)
    with_uf = {i.rsplit("/", 1)[0] for i in ids if re.search(r"/[A-Z]{2}$", i)}
    # an article beyond its act's last one was bound to the wrong act: left out, never shown
    return [i for i in ids if not (i in with_uf and not re.search(r"/[A-Z]{2}$", i)) and article_exists(i)]
