"""What a normative act says about itself: its number, the date it was enacted and the body that issued it.

Acts name themselves in one title line ("DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016", "PROVIMENTO/CGJ N. 2,
DE 6 DE JANEIRO DE 2023.", "DIRECTIVE 2011/83/EU OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL" followed by
"of 25 October 2011"), and their issuer either in the letterhead above it ("Conselho Nacional de Justiça",
"TRIBUNAL REGIONAL DO TRABALHO DA 18ª REGIÃO") or in the enacting clause below it ("O CONSELHO FEDERAL DA
ORDEM DOS ADVOGADOS DO BRASIL, ao instituir ...", "A CORREGEDORA-GERAL DE JUSTIÇA, no uso de suas
atribuições", "O PRESIDENTE DO CONSELHO NACIONAL DE JUSTIÇA (CNJ), no uso"). An act's number is given with the
year it dates itself in ("8.660/2016"): that is how it is cited, and the bare number names no act.
The rules read the folded opening lines and cut values from the original ones.
"""

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

from precedente.shared.legal.dates import ENGLISH_MONTHS, MONTHS
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.document_types import EU_ACT
from precedente.shared.legal.text import fold

__all__ = ["LAST_ARTICLE", "ActInfo", "article_exists", "read_act"]

OPENING = 25
"""Lines looked at: the title, the letterhead above it and the enacting clause below it."""


@dataclass(frozen=True)
class ActInfo:
    act_number: str | None = None  # with its year when the act dates itself: "8.660/2016", "2011/83/EU"
    document_date: date | None = None
    issuing_body: str | None = None


_BR_TITLE = re.compile(
    r"^(?:LEI(?:\s+COMPLEMENTAR)?|DECRETO(?:-LEI)?|RESOLUCAO|INSTRUCAO\s+NORMATIVA|MEDIDA\s+PROVISORIA|"
    r"EMENDA\s+CONSTITUCIONAL|PROVIMENTO|PORTARIA(?:\s+NORMATIVA)?|DELIBERACAO)"
    r"(?P<issuer>\s*/\s*[A-Z]{2,10}|\s+[A-Z]{2,6}(?:\s+\d{1,2}[ªa])?(?:\s+[A-Z]{2,6})?)?"
    r"\s*(?:N[º°o.]*\s*)?(?P<number>\d[\d.]*(?:/\d{2,4})?)",
    re.I,
)
_EU_TITLE = re.compile(rf"^{EU_ACT}(?P<rest>.*)$", re.I)
_LONG_DATE = re.compile(
    rf"\b(?P<d>\d{{1,2}})\s*[º°o]?\s+(?:de\s+)?(?P<m>{'|'.join(MONTHS)}|{'|'.join(ENGLISH_MONTHS)})\s+(?:de\s+)?"
    r"(?P<y>(?:19|20)\d{2})\b",
    re.I,
)
_INSTITUTION = re.compile(
    r"^(?:(?:PRESIDENCIA|CONSELHO|TRIBUNAL|MINISTERIO|SECRETARIA|CORREGEDORIA|ASSEMBLEIA|CAMARA|SENADO|"
    r"AGENCIA|BANCO\s+CENTRAL|COMISSAO|ORDEM\s+DOS\s+ADVOGADOS|PROCURADORIA|DEFENSORIA|GOVERNO|PREFEITURA|"
    r"SUPERIOR\s+TRIBUNAL|SUPREMO\s+TRIBUNAL)\b)",
    re.I,
)
_NOT_ISSUER = re.compile(r"^(?:PODER\s+JUDICIARIO|SECRETARIA-GERAL|SUBCHEFIA|GABINETE)\b", re.I)
_ENACTING = re.compile(
    r"^(?:O|A|OS|AS)\s+(?P<who>[A-Z][A-Z\s\-ºª]{5,120}?)\s*(?:\([A-Z]{2,10}\)\s*)?,\s*"
    r"(?:no\s+uso|usando|ao\s+instituir|tendo\s+em\s+vista|considerando|com\s+fundamento|nos\s+termos|em\s+sessao)",
    re.M,
)
_EU_ISSUER = re.compile(r"^\s*(?:OF\s+THE|DO|DA)\s+(?P<who>.+?)\s*$", re.I)


def _date(text: str) -> date | None:
    match = _LONG_DATE.search(text)
    if not match:
        return None
    month = match["m"].lower()
    number = MONTHS.get(month) or ENGLISH_MONTHS.index(month) + 1
    try:
        return date(int(match["y"]), number, int(match["d"]))
    except ValueError:
        return None


def _tidy(text: str) -> str:
    """An issuer as written, without trailing punctuation or a date after it; all-caps names put in title case;
    "European Parliament and of the Council" as "European Parliament and the Council"."""
    text = re.sub(r"\s+", " ", text).split(", de ")[0].split(", of ")[0].strip(" ,.;:")
    if not any(c.islower() for c in text if c not in "ºª"):
        small = {"de", "da", "do", "das", "dos", "e", "of", "the", "and", "na", "no"}
        words = text.lower().split()
        text = " ".join(
            w if w in small and i else "-".join(part.capitalize() for part in w.split("-"))  # "Corregedoria-Geral"
            for i, w in enumerate(words)
        )
    return re.sub(
        r"\b(and|e)\s+(?:(of)\s+the|do|da)\s+", lambda m: f"{m[1]} {'the ' if m[2] else ''}", text, flags=re.I
    )
    return text


def read_act(doc: DocumentText) -> ActInfo:
    """Number, date and issuing body of a normative act (Brazilian or EU); empty fields where the text is silent."""
    lines = [unicodedata.normalize("NFC", line) for _, line in doc.head_lines[:OPENING]]
    folded = [fold(line) for line in lines]
    for i, line in enumerate(folded):
        eu = _EU_TITLE.match(line)
        if eu:
            rest = eu["rest"].strip() or (folded[i + 1] if i + 1 < len(folded) else "")
            issuer = _EU_ISSUER.match(rest)
            start = i + (0 if eu["rest"].strip() else 1)
            when = _date(" ".join(folded[start : start + 3]))
            raw_issuer = lines[start][len(lines[start]) - len(issuer["who"]) :] if issuer else None
            if raw_issuer:  # a cleaned page runs the title on: "... OF THE COUNCIL of 7 March 2002 on universal ..."
                raw_issuer = re.split(r"\s+(?:of|de)\s+\d{1,2}\s", raw_issuer, maxsplit=1)[0]
            corrigendum = re.match(r"(?:RECTIFICACAO|RETIFICACAO|CORRIGENDUM)\b", line, re.I)
            when = None if corrigendum else when or _date(rest)  # a corrigendum's title dates the act it corrects
            return ActInfo(eu["eu_number"], when, _tidy(raw_issuer) if raw_issuer else None)
        br = _BR_TITLE.match(line)
        if br and br.group()[:4].isupper():  # a title line, not "dada pela Resolução n. 392/2021" in a note
            when = _date(line) or _date(folded[i + 1] if i + 1 < len(folded) else "")
            return ActInfo(_with_year(br["number"].rstrip("."), when), when, _issuer(lines, folded, i))
    for i, line in enumerate(folded[:8]):
        if re.match(r"^(?:CODIGO|ESTATUTO|REGIMENTO|CONSOLIDACAO|REGULAMENTO\s+GERAL)\s", line):
            return ActInfo(None, _date(" ".join(folded[i : i + 2])), _issuer(lines, folded, i))
    return ActInfo()


def _with_year(number: str, enacted: date | None) -> str:
    """An act's number as it is cited, with its year: "8.660" of "DECRETO Nº 8.660, DE 29 DE JANEIRO DE 2016" is
    "8.660/2016" (Brazilian acts are numbered within a year, or a series: the number alone names no act); a
    number that prints its year ("4/2012") and one whose act gives no date stay as printed."""
    if enacted is None or "/" in number:
        return number
    return f"{number}/{enacted.year}"


def _issuer(lines: list[str], folded: list[str], title: int) -> str | None:
    """The institution in the letterhead above the title (the first one, not "Poder Judiciário"), else the
    authority of the enacting clause below it."""
    for raw, line in zip(lines[:title], folded[:title], strict=True):
        if _INSTITUTION.match(line) and not _NOT_ISSUER.match(line) and len(line) <= 120:
            return _tidy(raw)
    below = "\n".join(lines[title + 1 :])
    match = _ENACTING.search(fold(below))
    if match:
        start = match.start("who")
        return _tidy(_office(below[start : start + len(match["who"])]))
    return None


_OFFICES = [
    (re.compile(r"^PRESIDENT[EA]\s+DA\s+REPUBLICA\b"), "PRESIDÊNCIA DA REPÚBLICA"),
    (re.compile(r"^PRESIDENT[EA]\s+D[OA]S?\s+(?=[A-Z])"), ""),
    (re.compile(r"^CORREGEDOR[A]?(?=[\s-])"), "CORREGEDORIA"),
    (re.compile(r"^PROCURADOR[A]?(?=[\s-])"), "PROCURADORIA"),
    (re.compile(r"^(?:MINISTR[OA]\s+DE\s+ESTADO|MINISTR[OA])\s+(?=D[AEO]S?\s)"), "MINISTÉRIO "),
    (re.compile(r"^SECRETARI[OA](?=[\s-])"), "SECRETARIA"),
    (re.compile(r"^GOVERNADOR[A]?(?=\s+DO\s+ESTADO)"), "GOVERNO"),
    (re.compile(r"^PREFEIT[OA](?=\s+D[OE]\s+MUNICIPIO)"), "PREFEITURA"),
]
"""The authority of an enacting clause and the body whose act it signs: "O CORREGEDOR NACIONAL DE JUSTIÇA" enacts
the Corregedoria Nacional de Justiça's provimento, "O PRESIDENTE DO CONSELHO NACIONAL DE JUSTIÇA" the Conselho's
resolução, "O MINISTRO DE ESTADO DA FAZENDA" the Ministério's portaria (matched on the folded name)."""


def _office(who: str) -> str:
    """The issuing body of an enacting clause's authority (_OFFICES); a body that enacts itself ("O CONSELHO
    FEDERAL DA ORDEM DOS ADVOGADOS DO BRASIL") stays as it is."""
    folded = fold(who)
    for pattern, body in _OFFICES:
        if match := pattern.match(folded):
            return body + who[match.end() :]
    return who


LAST_ARTICLE: dict[str, int] = {
    "CF/1988": 250,
    "CC/2002": 2046,
    "CC/1916": 1807,
    "CPC/2015": 1072,
    "CPC/1973": 1220,
    "CPC/1939": 1052,
    "CDC": 119,
    "CLT": 922,
    "CP": 361,
    "CPP": 811,
    "CTN": 218,
    "ECA": 267,
    "LINDB": 30,
    "Lei 9.307/1996": 44,
    "Lei 8.906/1994": 87,
    "Lei 8.245/1991": 90,
    "Lei 12.965/2014": 32,
    "Lei 13.709/2018": 65,
    "Lei 8.429/1992": 25,
    "Lei 11.101/2005": 201,
    "Lei 6.404/1976": 300,
    "LC 101/2000": 75,
    "Lei 12.016/2009": 29,
    "Lei 13.140/2015": 48,
    "Lei 10.741/2003": 118,
    "Lei 11.340/2006": 46,
    "Lei 12.846/2013": 31,
    "Lei 11.419/2006": 22,
    "Lei 9.099/1995": 97,
    "Lei 8.112/1990": 253,
    "Lei 8.666/1993": 126,
    "Lei 14.133/2021": 194,
}
"""The last article of the main acts, by the canonical ids of shared/legal/citations.py (articles added later carry
a letter, "art. 1.048-A", and keep their number within the act's range). A reason line once read "Lei 8.906/1994,
art. 111": the Estatuto da Advocacia ends at art. 87, and art. 111 was the Código de Ética's, named after it."""


def article_exists(citation: str) -> bool:
    """False for a provision id whose article is beyond its act's last one ("Lei 8.906/1994, art. 111"); True for
    every other id (an act not in LAST_ARTICLE, a súmula, a precedent): only what is known to be wrong is dropped."""
    match = re.match(r"^(?P<act>[^,]+), art\. (?P<n>[\d.]+)", citation)
    if match is None or match["act"] not in LAST_ARTICLE:
        return True
    return int(match["n"].replace(".", "")) <= LAST_ARTICLE[match["act"]]
