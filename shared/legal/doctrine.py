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

from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.text import fold

__all__ = ["DoctrineInfo", "is_byline", "is_cover_name", "is_plain_name", "read_doctrine"]

OPENING = 40
"""Lines looked at: a cover page or an article's head."""
MAX_AUTHORS = 6


@dataclass(frozen=True)
class DoctrineInfo:
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    title: str | None = None  # only from the work's reference to itself ("To cite this article: ...")


_VENUE = re.compile(
    r"\b(?:Revista|REVISTA|Journal|JOURNAL|Review|Cadernos?|Anais|Law\s+Review|civilistica\.com|"
    r"JURIDICA\s+INTERNATIONAL|Pensar)\b|"
    r"\bRev\.?\s+(?=[A-Z])|"  # an abbreviated journal: "Rev. Ciên. Jur. e Soc. da Unipar", "Rev Saúde Pública 2007"
    r"\b[A-Z]{3,8},\s*(?:Ano|Vol\.?|v\.)\s*\d+"  # a journal's acronym and issue: "RJLB, Ano 1 (2015), nº 1"
)
_UNIVERSITY = re.compile(r"^(?:UNIVERSIDADE|Universidade|UNIVERSITY|University|FACULDADE|Faculdade|PONTIFICIA)\b")
_YEAR = re.compile(r"(?<![\d/.-])((?:19|20)\d{2})(?![\d/])")
_COVER_YEAR = re.compile(
    r"^.{0,30}?(?<![\d/.-])((?:19|20)\d{2})\W*$|\b(?:Ano|Vol\.?|v\.)\s*\d+\s*\(((?:19|20)\d{2})\)", re.I
)
"""A year that ends a short line: a cover's "2012", "São Paulo 2021", an issue's "Jan/Jun. 2023." or "Ano 5 (2019)"
(the years in a paragraph are the ones it discusses)."""
_VENUE_YEAR = re.compile(r"(?<![\d.-])((?:19|20)\d{2})(?!\d)")
"""A year on the venue's own line, also after a slash: "JURIDICA INTERNATIONAL XVIII/2011"."""
_SUPERVISION = re.compile(
    r"\b(?:Co-?orientador[a]?|Orientador[a]?|Orientacao|Supervisor[a]?|Advisor|Banca\s+Examinadora|Membros\s*:)", re.I
)
"""Where a thesis names its supervisor and examiners: the names from there on are not its authors'."""
_NAME_WORD = r"(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[A-Z]{2,}|[A-Z]\.|de|da|do|dos|das|e|van|von|del)"
_NAME = re.compile(
    rf"^(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,6}}?)\s*(?P<mark>\d{{1,2}}|\*+|\(\*+\)|¹|²|(?<=[a-z])I{{1,3}})?$"
)
"""A name with its footnote mark after it: a number, asterisks, or a roman numeral glued to it ("Vieira" + "I")."""
_LEADING_MARK = re.compile(r"^(?:\*+|\(\*+\))\s*(?=[A-Z])")
"""A footnote mark printed before the name: "*Maria Laura Lopes Nunes Santos", "** Luciano Nunes Santos Filho"."""
_AFFILIATION = re.compile(
    r"^(?:Centro|Universidade|Universidad|University|Instituto|Institute|Faculdade|Faculty|Departamento|Department|"
    r"Escola|School|Fundacao|Programa)\b"
)
"""An institution printed under a run of authors' names: "Centro Paulista de Economia da Saúde"."""
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
    r"Pesquisador[a]?|Lecturer|University|Universidade|Auditor|PhD|LL\.?M|Juiz[a]?|Promotor[a]?|Procurador[a]?|"
    r"(?:Mestrado|Doutorado)\s+em|Pos-[Gg]raduad[oa])\b"
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
    top = list(zip(*_opening(raw), strict=True))[:3] if raw is not None else []  # page 1's head, cleaned away
    candidates = [*heads, *top, *zip(lines, folded, strict=True)]
    for k, (raw_line, line) in enumerate(candidates):
        if _VENUE.search(line) and len(line) <= 160:
            venue = _without_page_number(raw_line)
            under = [candidates[k + 1][1]] if k + 1 < len(candidates) else []  # the issue under the journal's name
            issue = [line] + [other for _, other in heads] if (raw_line, line) in heads else [line, *under]
            if found := next((m for text in issue if (m := _VENUE_YEAR.search(text))), None):
                year = int(found.group(1))  # also "Janeiro / Fevereiro de 2013" printed under "Revista Eletrônica"
            break
    if venue is None:
        university = next((orig for orig, line in zip(lines, folded, strict=True) if _UNIVERSITY.match(line)), None)
        venue = re.sub(r"\s+", " ", university).strip() if university else None
    if venue:
        venue = re.sub(r"\s*\|\s*(?:e-?ISSN|ISSN|DOI)\b[^|]*", " ", venue).strip(" |")  # the serial number is no venue
        venue = re.sub(r"\s*\|+\s*", " | ", venue)
    raw_folded = _opening(raw)[1] if raw is not None else []
    if year is None:  # the cleaner drops a cover's bare "2012" with the page numbers: the raw text keeps it
        years = [int(m[1] or m[2]) for line in [*folded, *raw_folded] if (m := _COVER_YEAR.search(line))]
        year = years[0] if years else None
    authors = _authors(lines, folded)
    if not authors and raw is not None:
        authors = _authors(*_opening(raw))  # a byline printed as a running head is cleaned away with it
    cited = _self_citation(raw or doc) or _catalogue_card(raw or doc)
    if cited is not None:  # the work's own reference: who, where and when, as the publisher wants it cited
        authors = cited.authors or authors
        venue = cited.venue or venue
        year = cited.year or year
    return DoctrineInfo(authors, venue, year, cited.title if cited else None)


_CITE_THIS = re.compile(
    r"\bTo\s+cite\s+this\s+article\s*:\s*(?P<authors>[^()]{3,300}?)\s*\((?P<year>(?:19|20)\d{2})\)\s*"
    r"(?P<rest>.{10,600}?)(?:,\s*DOI\s*:|\s+To\s+link\s+to\s+this|$)",
    re.S,
)
_CITED_VENUE = re.compile(r",\s*(?P<venue>[^,]{3,150}?),\s*\d{1,4}\s*(?::|\()\s*\d")
_ABNT_SELF = re.compile(
    r"^(?P<surname>[A-Z][A-Z'’-]{1,30}(?:\s+[A-Z][A-Z'’-]{1,30}){0,3}),\s+(?P<given>[A-Z][\w'’-]+(?:\s+[\w'’-]+){0,5})\.\s+"
    r"(?P<title>[^.]{10,300})\.\s+(?P<venue>[^.]{3,150})\.(?P<rest>.{0,200})",
    re.S,
)
_COMMENT_BY = re.compile(
    rf"\bComentario\s+(?:por|de)\s+(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,6}})\s*(?:[.,;]|$)", re.M
)


def _self_citation(doc: DocumentText) -> DoctrineInfo | None:
    """The reference a work prints to itself on its first page: a publisher's "To cite this article: Cristiana
    Santos, Viktorija Morozovaite & Silvia De Conca (2025) No harm no foul ..., Information & Communications
    Technology Law, 34:3, 329-375"; an ABNT reference whose title is the work's own ("BARBOSA, Diego Cury-Rad. A
    Judicialização Do Direito À Saúde. Revista Científica Multidisciplinar Núcleo do Conhecimento. Ano 06, ...
    Maio de 2021."); a comment's "Comentário por Patrícia Cândido Alves Ferreira."."""
    first = doc.page_texts[0] if doc.page_texts else ""
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", first))
    cite = _CITE_THIS.search(text)
    if cite:
        names = [n.strip() for n in re.split(r",\s*|\s+&\s+|\s+and\s+", cite["authors"]) if n.strip()]
        venue = _CITED_VENUE.search(cite["rest"])
        title = cite["rest"][: venue.start()].strip() if venue else None
        return DoctrineInfo(names[:MAX_AUTHORS], venue["venue"].strip() if venue else None, int(cite["year"]), title)
    lines = [unicodedata.normalize("NFKC", line) for _, line in doc.head_lines[:OPENING]]
    heads = {fold(line).lower().strip(" .") for line in lines}
    for i in range(len(lines)):
        abnt = _ABNT_SELF.match(" ".join(lines[i : i + 4]))
        if abnt and fold(abnt["title"]).lower().strip() in heads:
            years = _VENUE_YEAR.findall(abnt["rest"])
            author = f"{abnt['given']} {_title_case(abnt['surname'])}"
            title = re.sub(r"\s+", " ", abnt["title"]).strip()
            return DoctrineInfo([author], abnt["venue"].strip(), int(years[0]) if years else None, title)
    opening = "\n".join(lines[:5])
    comment = _COMMENT_BY.search(fold(opening))
    if comment:
        name = _title_case(opening[comment.start("name") : comment.end("name")])
        line = next((line for line in lines[:5] if name in line), "")
        title = (
            line[: line.find(name)].rstrip(" ,") if line.find(name) > 0 else None
        )  # "STJ – REsp ... – Comentário por"
        title = re.sub(r"\s+(?:por|de)$", "", title) if title else None
        return DoctrineInfo([name], title=title)
    return None


CARD_PAGES = 4
"""A book's catalogue card (CIP) sits on the back of its title page: one of its first pages."""
_CARD = re.compile(r"Cataloga[cç][aã]o\s+na\s+Publica[cç][aã]o|Ficha\s+catalogr[aá]fica", re.I)
_CARD_ENTRY = re.compile(
    r"(?P<title>[^\n/]{5,250}?)\s*/\s*(?:(?:organiza[cç][aã]o|organizadores|organizadoras|coordena[cç][aã]o|"
    r"coordenadores|coordenadoras|editores|editado\s+por)\s*:?\s*)?(?P<who>[^./]{3,300}?)\.\s*[–-]\s*"
    r"(?:(?P<city>[^:\n]{2,60}?)\s*:\s*)?(?P<publisher>[^,\n]{2,120}?),\s*(?P<year>(?:19|20)\d{2})\b",
    re.I,
)
"""The card's entry: "I Encontro de Internacionalização do CONPEDI / organizadores: João Marcelo de Lima Assafim,
Monica Navarro Michel. – Barcelona : Ediciones Laborum, 2015." (title / who. – City : Publisher, year)."""


def _catalogue_card(doc: DocumentText) -> DoctrineInfo | None:
    """A book's catalogue card (Dados Internacionais de Catalogação na Publicação): its title, organisers or
    authors, publisher and year as the library catalogues it, where its cover and title page are images or
    ornament (the CONPEDI volumes' first page has no text at all)."""
    for page in doc.page_texts[:CARD_PAGES]:
        card = _CARD.search(page)
        if not card:
            continue
        text = re.sub(r"[ \t]*\n[ \t]*(?=[a-zà-ÿ])", " ", unicodedata.normalize("NFKC", page[card.end() :]))
        entry = _CARD_ENTRY.search(re.sub(r"[ \t]+", " ", text))
        if entry is None:
            continue
        names = [n.strip() for n in re.split(r",\s*|\s+e\s+|;\s*", entry["who"]) if _card_name(n.strip())]
        title = re.sub(r"\s+", " ", entry["title"]).strip()
        return DoctrineInfo(names[:MAX_AUTHORS], entry["publisher"].strip(), int(entry["year"]), title)
    return None


def _card_name(name: str) -> bool:
    """After the card's slash come names by construction: two capitalised words or more, connectors between."""
    words = name.split()
    return len(words) >= 2 and all(w[:1].isupper() or w.lower() in _CONNECTORS for w in words)


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
    """The lines (original, folded) printed at the top or foot of both pages 2 and 3, page numbers aside; then
    those of both pages 2 and 4 (a journal that names itself on its even pages and the article on its odd ones)."""
    if len(doc.page_texts) < 3:
        return []
    edges = []
    for text in doc.page_texts[1:4]:
        page = [line.strip() for line in text.split("\n") if line.strip()]
        edges.append({re.sub(r"[\d\s|]+", " ", fold(line)).strip(): line for line in page[:3] + page[-2:]})
    pairs = [(edges[0], edges[1])] + ([(edges[0], edges[2])] if len(edges) > 2 else [])
    found = {key: line for first, other in pairs for key, line in first.items() if len(key) > 3 and key in other}
    return [(unicodedata.normalize("NFC", line), fold(line)) for line in found.values()]


def _authors(lines: list[str], folded: list[str]) -> list[str]:
    """Lines that read as a person's name and are marked as an author's: a footnote sign after the name,
    credentials on the next line or on the same one after a comma, or a name in capitals on a cover."""
    out: list[str] = []
    for i, line in enumerate(folded):
        if _SUPERVISION.search(line):
            if not out:  # a cover names its author right above the supervisor ("N.º USP: ..." between them)
                out += [name for j in (i - 1, i - 2) if j >= 0 and (name := _plain_name(lines[j], folded[j]))][:1]
            break
        for part in re.split(r";|\s+e\s+(?=[A-Z])|,\s*(?=[A-Z][a-z]+\s+[A-Z])", line):
            candidate = part.strip()
            leading = _LEADING_MARK.match(candidate)
            candidate = candidate[leading.end() :] if leading else candidate
            match = _NAME.match(candidate)
            if not match or len(match["name"].split()) < 2 or not _name_like(match["name"]):
                continue
            after = folded[i + 1] if i + 1 < len(folded) else ""
            below = [other for other in folded[i + 1 : i + 4] if not _plain_name_match(other)][:1]
            marked = (
                match["mark"]
                or leading
                or _CREDENTIALS.search(after)
                or (candidate.isupper() and i < 12)
                or (below and _AFFILIATION.match(below[0]) and i + 1 < len(folded))
            )
            if not marked:
                continue
            start = line.find(match["name"])
            name = lines[i][start : start + len(match["name"])] if start >= 0 else match["name"]
            name = _title_case(name)
            if name not in out:
                out.append(name)
        if len(out) >= MAX_AUTHORS:
            break
    return out[:MAX_AUTHORS] or _introduced(lines, folded)


_BIO = re.compile(rf"^(?P<name>{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,5}}?)\s+(?:e|is)\s+(?:an?\s+)?(?P<role>\w+)")
_BIO_ROLE = re.compile(
    r"^(?:Desembargador|Ministr[oa]|Magistrad[oa]|Juiz|Juiza|Defensor|Delegad[oa]|Professor|Docente|Advogad[oa]|"
    r"Procurador|Promotor|Pesquisador|Mestre|Doutor|Doutorand[oa]|Mestrand[oa]|Bacharel|Auditor|Analista|Assessor|"
    r"Lecturer|Researcher|Judge|Attorney|Associate|Assistant)a?s?$",
    re.I,
)
SIDEBAR_WORDS = 2
"""Words a line of a narrow side column holds at most: a byline set one or two words a line ("Ana" / "Carolina" /
"Zaina é" / "Desembargadora")."""


def _introduced(lines: list[str], folded: list[str]) -> list[str]:
    """The author a work introduces in a sentence, "Ana Carolina Zaina é Desembargadora Federal do Trabalho...",
    printed on one line or down a narrow side column one or two words a line (the lines are joined first): the
    name, then "é" (or "is") and a role. Only looked for when no byline is marked otherwise."""
    for i in range(len(folded)):
        end = i + 1
        while end < len(folded) and end - i < 8 and len(folded[end - 1].split()) <= SIDEBAR_WORDS:
            end += 1  # a side column's short lines, and the line they run into
        original, line = " ".join(lines[i:end]), " ".join(folded[i:end])
        bio = _BIO.match(line)
        if not bio or not _BIO_ROLE.match(bio["role"]) or not _name_like(bio["name"]):
            continue
        if original[bio.end("name") :].lstrip()[:1] not in "éi":  # "é", not the name's "e" ("Maria e Silva")
            continue
        return [_title_case(original[: bio.end("name")])]
    return []


_NOUN_ENDING = re.compile(r"(?:cao|coes|dade|dades|encia|ancia|mento|mentos|ismo|ivas?|ais|icas?|ion|ions|ency)$", re.I)
_CONNECTORS = {"de", "da", "do", "dos", "das", "e"}
_FOREIGN_WORDS = {"in", "the", "to", "of", "and", "for", "on", "nos", "nas", "na", "no", "em"}


def _plain_name_match(line: str) -> re.Match[str] | None:
    """A line that is only a person's name (two words or more), marked or not."""
    match = _NAME.match(line.strip())
    return match if match and len(match["name"].split()) >= 2 and _name_like(match["name"]) else None


def _plain_name(line: str, folded: str) -> str | None:
    match = _plain_name_match(folded)
    return _title_case(line.strip()[: len(match["name"])]) if match else None


def _name_like(name: str) -> bool:
    """A person's name: no institution or subject words, one connector at most, no nouns ending as nouns do but
    one surname among four names or more ("Paulo Junior Trindade dos Santos")."""
    words = name.split()
    lower = [w.lower() for w in words]
    nouns = [i for i, w in enumerate(words) if len(w) > 3 and _NOUN_ENDING.search(w)]
    capitalised = sum(w[:1].isupper() for w in words)
    return not (
        _NOT_NAME.search(name)
        or _CREDENTIALS.search(name)
        or sum(w in _CONNECTORS for w in lower) > 2
        or any(w in _FOREIGN_WORDS for w in lower)
        or len(nouns) > 1
        or (nouns and (nouns[0] == 0 or capitalised < 4))
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


def is_plain_name(line: str) -> bool:
    """A line that is only a person's name of two words or more, marked or not ("Fabiola Sulpino Vieira",
    "Paola Zucchi"): an author listed under a title, or above their affiliation."""
    return _plain_name_match(fold(unicodedata.normalize("NFC", line)).strip()) is not None
