"""Who wrote a work of doctrine, where it appeared and when: authors, venue (journal, university, publisher)
and year, read from its opening lines.

Articles print their journal in a running head ("Revista Pensamento Jurídico – São Paulo – Vol. 13, Nº 1,
jan./jun. 2019", "Rev. Adm. Pública — Rio de Janeiro 48(5):1191-1206, set./out. 2014") and their authors
under the title, marked by a footnote sign ("Pedro Gomes de Queiroz2", "Deusdedith Brasil (*)") or followed
by their credentials ("Docent of Civil Law", "Advogado. Graduado em Direito"); theses name their university
first, the author in capitals above the title and the city and year at the foot of the cover.
"""

import re
import unicodedata
from dataclasses import dataclass, field

from shared.legal.document_text import DocumentText
from shared.legal.text import fold

__all__ = ["DoctrineInfo", "is_byline", "is_cover_name", "read_doctrine"]

OPENING = 40
"""Lines looked at: a cover page or an article's head."""
MAX_AUTHORS = 6


@dataclass(frozen=True)
class DoctrineInfo:
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None


_VENUE = re.compile(
    r"\b(?:Revista|REVISTA|Rev\.|Journal|JOURNAL|Review|Cadernos?|Anais|Law\s+Review|civilistica\.com|"
    r"JURIDICA\s+INTERNATIONAL|Pensar)\b|"
    r"\b[A-Z]{3,8},\s*(?:Ano|Vol\.?|v\.)\s*\d+"  # a journal's acronym and issue: "RJLB, Ano 1 (2015), nº 1"
)
_UNIVERSITY = re.compile(r"^(?:UNIVERSIDADE|Universidade|UNIVERSITY|University|FACULDADE|Faculdade|PONTIFICIA)\b")
_YEAR = re.compile(r"(?<![\d/.-])((?:19|20)\d{2})(?![\d/])")
_VENUE_YEAR = re.compile(r"(?<![\d.-])((?:19|20)\d{2})(?!\d)")
"""A year on the venue's own line, also after a slash: "JURIDICA INTERNATIONAL XVIII/2011"."""
_SUPERVISION = re.compile(
    r"\b(?:Co-?orientador[a]?|Orientador[a]?|Orientacao|Supervisor[a]?|Advisor|Banca\s+Examinadora|Membros\s*:)", re.I
)
"""Where a thesis names its supervisor and examiners: the names from there on are not its authors'."""
_NAME_WORD = r"(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[A-Z]{2,}|[A-Z]\.|de|da|do|dos|das|e|van|von|del)"
_NAME = re.compile(rf"^(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,6}}?)\s*(?P<mark>\d{{1,2}}|\*+|\(\*+\)|¹|²)?$")
_NOT_NAME = re.compile(
    r"\b(?:UNIVERSIDADE|FACULDADE|DIREITO|REVISTA|PROGRAMA|RESUMO|ABSTRACT|SUMARIO|INTRODUCAO|DEPARTAMENTO|"
    r"ESTADO|TRIBUNAL|JUSTICA|MESTRADO|DOUTORADO|PROCESSO|CIVIL|ARTIGO|ARTICLE|CONTRATOS?|LAW|SCHOOL|"
    r"ORIENTADORA?|TESE|DISSERTACAO|MONOGRAFIA|SAO\s+PAULO|BRASILIA|PORTO\s+ALEGRE|FORTALEZA|RIO\s+DE|"
    r"PALAVRAS|KEYWORDS|CONSUMIDOR|SAUDE|JUDICIALIZACAO|ANALISE|PRINCIPIO|DIGITAL|PUBLICA|CIENCIAS|"
    r"INTERNATIONAL|EUROPEAN|STRATEGY|CONTENTS|APRESENTACAO|MENCAO|HONROSA|VOLUME|CATOLICA|DATA|CIP|SERVICO|"
    r"BIBLIOTECA|JUSTICE|TERMOS|ALIMENTOS|SENTENCA|ARBITRAL|REDES|SOCIAIS|VERSAO|CORRIGIDA)\b",
    re.I,
)
_CREDENTIALS = re.compile(
    r"\b(?:Professor[a]?|Docente?|Advogad[oa]|Doutor[a]?|Mestre|Mestrand[oa]|Doutorand[oa]|Graduad[oa]|Bacharel|"
    r"Pesquisador[a]?|Lecturer|University|Universidade|Auditor|PhD|LL\.?M|Juiz[a]?|Promotor[a]?|Procurador[a]?)\b"
)


def read_doctrine(doc: DocumentText, raw: DocumentText | None = None) -> DoctrineInfo:
    """Authors, venue and year of an article, thesis or book; empty where the opening does not say.

    raw: the text before cleaning, when there is one: the cleaner drops an article's running heads
    ("JURIDICA INTERNATIONAL XVIII/2011", "RJLB, Ano 1 (2015), nº 1", the author's name), which are where
    it names its journal, so the running heads are read from it, and so is the byline when the cleaned
    opening has none."""
    lines, folded = _opening(doc)
    venue = year = None
    heads = _running_heads(raw or doc)
    for raw_line, line in [*heads, *zip(lines, folded, strict=True)]:
        if _VENUE.search(line) and len(line) <= 160:
            venue = _without_page_number(raw_line)
            issue = [line] + [other for _, other in heads] if (raw_line, line) in heads else [line]
            if found := next((m for text in issue if (m := _VENUE_YEAR.search(text))), None):
                year = int(found.group(1))  # also "Janeiro / Fevereiro de 2013" printed under "Revista Eletrônica"
            break
    if venue is None:
        university = next((orig for orig, line in zip(lines, folded, strict=True) if _UNIVERSITY.match(line)), None)
        venue = re.sub(r"\s+", " ", university).strip() if university else None
    if year is None:
        years = [int(m.group(1)) for line in folded for m in _YEAR.finditer(line)]
        year = years[0] if years else None
    authors = _authors(lines, folded)
    if not authors and raw is not None:
        authors = _authors(*_opening(raw))  # a byline printed as a running head is cleaned away with it
    return DoctrineInfo(authors, venue, year)


def _without_page_number(line: str) -> str:
    """A running head without the page number printed beside it: "1762 | RJLB, Ano 1 (2015), nº 1",
    "RJLB, Ano 5 (2019), nº 4________297_" -> "RJLB, Ano ... nº 1"."""
    line = re.sub(r"\s+", " ", re.sub(r"_{2,}|_$", " | ", line)).strip(" |–—-")
    return re.sub(r"^\d{1,5}\s*\|\s*|\s*\|\s*\d{1,5}$", "", line).strip(" |–—-")


def _opening(doc: DocumentText) -> tuple[list[str], list[str]]:
    """The opening lines, original and folded."""
    lines = [unicodedata.normalize("NFC", line) for _, line in doc.head_lines[:OPENING]]
    return lines, [fold(line) for line in lines]


def _running_heads(doc: DocumentText) -> list[tuple[str, str]]:
    """The lines (original, folded) printed at the top or foot of both pages 2 and 3, page numbers aside."""
    if len(doc.page_texts) < 3:
        return []
    edges = []
    for text in doc.page_texts[1:3]:
        page = [line.strip() for line in text.split("\n") if line.strip()]
        edges.append({re.sub(r"[\d\s|]+", " ", fold(line)).strip(): line for line in page[:3] + page[-2:]})
    return [
        (unicodedata.normalize("NFC", line), fold(line))
        for key, line in edges[0].items()
        if len(key) > 3 and key in edges[1]
    ]


def _authors(lines: list[str], folded: list[str]) -> list[str]:
    """Lines that read as a person's name and are marked as an author's: a footnote sign after the name,
    credentials on the next line or on the same one after a comma, or a name in capitals on a cover."""
    out: list[str] = []
    for i, line in enumerate(folded):
        if _SUPERVISION.search(line):
            break
        for part in re.split(r";|\s+e\s+(?=[A-Z])|,\s*(?=[A-Z][a-z]+\s+[A-Z])", line):
            candidate = part.strip()
            match = _NAME.match(candidate)
            if not match or len(match["name"].split()) < 2 or not _name_like(match["name"]):
                continue
            after = folded[i + 1] if i + 1 < len(folded) else ""
            marked = match["mark"] or _CREDENTIALS.search(after) or (candidate.isupper() and i < 12)
            if not marked:
                continue
            start = line.find(match["name"])
            name = lines[i][start : start + len(match["name"])] if start >= 0 else match["name"]
            name = _title_case(name)
            if name not in out:
                out.append(name)
        if len(out) >= MAX_AUTHORS:
            break
    return out[:MAX_AUTHORS]


_NOUN_ENDING = re.compile(r"(?:cao|coes|dade|dades|encia|ancia|mento|mentos|ismo|ivas?|ais|icas?|ion|ions|ency)$", re.I)
_CONNECTORS = {"de", "da", "do", "dos", "das", "e"}
_FOREIGN_WORDS = {"in", "the", "to", "of", "and", "for", "on", "nos", "nas", "na", "no", "em"}


def _name_like(name: str) -> bool:
    """A person's name: no institution or subject words, no nouns ending as nouns do, one connector at most."""
    words = name.split()
    lower = [w.lower() for w in words]
    return not (
        _NOT_NAME.search(name)
        or _CREDENTIALS.search(name)
        or sum(w in _CONNECTORS for w in lower) > 2
        or any(w in _FOREIGN_WORDS for w in lower)
        or any(_NOUN_ENDING.search(w) for w in words if len(w) > 3)
    )


def _title_case(name: str) -> str:
    if any(c.islower() for c in name):
        return name
    small = {"de", "da", "do", "dos", "das", "e"}
    return " ".join(w.lower() if w.lower() in small else w.capitalize() for w in name.split())


def is_byline(line: str) -> bool:
    """A line that is only a person's name with a footnote sign after it ("Deusdedith Brasil (*)", "Pedro Gomes
    de Queiroz2"): how an article presents its author under the title."""
    match = _NAME.match(fold(unicodedata.normalize("NFC", line)).strip())
    return bool(match and match["mark"] and len(match["name"].split()) >= 2 and _name_like(match["name"]))


def is_cover_name(line: str) -> bool:
    """A line in capitals that is a person's name of three words or more ("MARCELO CAMA PROENÇA FERNANDES"):
    the author on a thesis cover, above the title."""
    text = fold(unicodedata.normalize("NFC", line)).strip()
    match = _NAME.match(text)
    return bool(text.isupper() and match and len(match["name"].split()) >= 3 and _name_like(match["name"]))
