"""Document metadata from the cleaned page texts, by plain rules: type, court or origin, case number,
class, rapporteur, judging body, dates, parties, subject, citations and title.

Brazilian legal documents announce what they are in a few fixed formulas (the "ACÓRDÃO" heading,
"Vistos, relatados e discutidos", "EXCELENTÍSSIMO SENHOR JUIZ", "Brasília (DF), 15 de setembro de
2016", "RECORRENTE : ..."), so ordered regular expressions over the first pages get these right without
a model, and each guess can be traced to the line that produced it. What the submitter already knows
(MetadataHints) always wins over a guess; a second extractor (an LLM) can be merged in with `merge`,
where the rules keep the fields they verified (a CNJ number whose check digits hold).

Matching is done on an accent-folded copy of the text that keeps every character's position, so
"ACÓRDÃO", "ACORDAO" and "Acórdão" match one pattern and values are cut from the original text.
Codes and labels of document types and courts live in shared.legal_codes.
"""

import re
import unicodedata
from collections.abc import Iterator
from datetime import date
from email.utils import parsedate_to_datetime
from functools import lru_cache
from pathlib import PurePath

from services.annotator import cnj, fields
from services.annotator.citations import extract_citations
from shared.contracts import MetadataHints
from shared.legal_codes import (
    DECISION_TYPES,
    DOCUMENT_TYPES,
    FIRM,
    UF_BY_STATE,
    UFS,
    normalize_court,
    normalize_document_type,
)
from shared.payloads import DocumentMetadata, Page

__all__ = [
    "DOCUMENT_TYPES",
    "UF_BY_STATE",
    "annotate",
    "guess_document_type",
    "merge",
]


def _words(text: str) -> list[str]:
    return text.split()


HEAD_PAGES = 3
"""Type, court and title are read from the first pages: that is where documents say what they are."""
HEADER_CHARS = 2000
"""The letterhead zone of page 1, where a court or office names itself."""
TITLE_MAX = 200
OPENING_LINES = 8
"""Non-empty lines that count as a document's opening (letterhead, title, case number)."""
VERIFIED = "rules:verified"
"""Source of a field the rules checked (a CNJ number's check digits): merge never overrides it."""


def annotate(
    pages: list[Page], filename: str, hints: MetadataHints | None = None, raw_pages: list[Page] | None = None
) -> DocumentMetadata:
    """The metadata of a document; the non-None fields of `hints` replace the guesses (codes are
    normalised: a hint "Acórdão" or "TJ-SP" becomes "acordao" or "tjsp").

    pages: the cleaned pages. raw_pages: the extracted pages before cleaning, when available: the
    cleaner drops page furniture (letterheads, DJe footers, signature stamps) that holds the court,
    the judging body and the publication date, so those are read from the raw text when the cleaned
    one lacks them.
    """
    doc = _Text(pages)
    raw = _Text(raw_pages) if raw_pages else doc
    document_type = guess_type(doc)
    sources: dict[str, str] = {}
    court = None if document_type == "email" else guess_court(doc) or guess_court(raw)
    if court is None and document_type == "parecer":
        court = FIRM  # an opinion with no outside letterhead is the firm's own
    caption = _caption(doc)
    process_number, verified = fields.process_number(doc, document_type, caption)
    if process_number is None and raw is not doc:
        process_number, verified = fields.process_number(raw, document_type, caption)
    if process_number:
        sources["process_number"] = VERIFIED if verified else "rules"
        if verified and court is None:
            court = cnj.court_of(process_number)
    judgment_date = guess_date(doc, document_type) or guess_date(raw, document_type)
    publication_date = fields.publication_date(doc) or fields.publication_date(raw)
    title = guess_title(doc, document_type)
    sources["title"] = "rules" if title else "rules:filename"
    own = [process_number or "", title or ""]
    dated = judgment_date or publication_date
    guessed = DocumentMetadata(
        title=title or _filename_title(filename),
        document_type=document_type,
        court=court,
        document_date=dated,
        process_number=process_number,
        procedural_class=fields.procedural_class(doc, document_type, caption),
        relator=fields.relator(doc, document_type),
        judging_body=fields.judging_body(doc, document_type) or fields.judging_body(raw, document_type),
        judgment_date=judgment_date,
        publication_date=publication_date,
        parties=fields.parties(doc, document_type),
        subject=fields.subject(doc, pages, document_type),
        citations=extract_citations(doc.full, own, court, dated.year if dated else None),
    )
    for name in DocumentMetadata.model_fields:
        if name not in sources and name != "sources" and getattr(guessed, name) not in (None, [], ""):
            sources[name] = "rules"
    guessed.sources = sources
    if hints is None:
        return guessed
    return apply_hints(guessed, hints)


def apply_hints(metadata: DocumentMetadata, hints: MetadataHints) -> DocumentMetadata:
    """The submitter's values over the guesses, normalised to codes."""
    given = hints.model_dump(exclude_none=True)
    if "document_type" in given:
        given["document_type"] = normalize_document_type(given["document_type"]) or given["document_type"]
    if "court" in given:
        given["court"] = normalize_court(given["court"])
    sources = dict(metadata.sources) | {name: "hint" for name in given}
    return metadata.model_copy(update=given | {"sources": sources})


def merge(rules: DocumentMetadata, other: DocumentMetadata, source: str = "llm") -> DocumentMetadata:
    """Combine the rules' metadata with another extractor's (an LLM's), field by field:
    - fields the rules verified (a CNJ number with valid check digits) or took from hints stay;
    - otherwise the other extractor's value wins when it has one (it reads context rules cannot),
      except the title, which it only replaces when the rules fell back to the file name;
    - citations are the union (rules' first), deduplicated.
    `sources` records who set each field."""
    update: dict[str, object] = {}
    sources = dict(rules.sources)
    for name in DocumentMetadata.model_fields:
        if name == "sources":
            continue
        mine, theirs = getattr(rules, name), getattr(other, name)
        if name == "citations":
            union = list(dict.fromkeys([*mine, *theirs]))
            if len(union) > len(mine):
                update[name] = union
                sources[name] = f"rules+{source}" if mine else source
            continue
        if sources.get(name) in (VERIFIED, "hint") or theirs in (None, [], ""):
            continue
        if name == "title" and sources.get("title") != "rules:filename":
            continue  # a title read from the document beats another reading; a file name does not
        if name == "document_type" and theirs == "outro":
            continue
        if theirs != mine:
            update[name] = theirs
            sources[name] = source
    return rules.model_copy(update=update | {"sources": sources})


def guess_document_type(pages: list[Page]) -> str:
    """The document-type code of the pages (what the chunker uses before the annotator runs)."""
    return guess_type(_Text(pages))


# --------------------------------------------------------------------------------------- text


@lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
    return base if len(base) == 1 else ch


def fold(text: str) -> str:
    """Strip accents, keeping case and length (one character out for every character in)."""
    return "".join(_fold_char(ch) for ch in text)


class _Text:
    """The texts the rules look at, in original and accent-folded form."""

    def __init__(self, pages: list[Page]) -> None:
        texts = [unicodedata.normalize("NFC", p.text) for p in pages]
        self.head = "\n".join(texts[:HEAD_PAGES])
        self.full = "\n".join(texts)
        self.header = texts[0][:HEADER_CHARS] if texts else ""
        self.fhead, self.ffull, self.fheader = fold(self.head), fold(self.full), fold(self.header)
        self.head_lines = [(m.start(), m.group().strip()) for m in re.finditer(r"[^\n]+", self.head)]
        self.head_lines = [(pos, line) for pos, line in self.head_lines if line]

    def opening_lines(self, count: int) -> list[str]:
        """The first non-empty lines of the document, accent-folded."""
        return [fold(line) for _, line in self.head_lines[:count]]

    def heading_lines(self) -> Iterator[str]:
        """Head lines folded, upper-cased, without spaces or punctuation: "S E N T E N Ç A" and
        "SENTENÇA:" both give "SENTENCA"."""
        for _, line in self.head_lines:
            yield re.sub(r"[\W_]+", "", fold(line)).upper()


# --------------------------------------------------------------------------------------- type

_EMAIL_FROM = re.compile(r"^(?:De|From|Remetente)\s*:", re.I)
_EMAIL_OTHER = re.compile(r"^(?:Para|To|Assunto|Subject|Cc|Enviad[oa](?: em)?|Sent|Data|Date)\s*:", re.I)
_ADDRESSING = re.compile(r"^(?:EXCELENTISSIM[OA]|EXM[OA]\b|EGREGI[OA]|ILUSTRISSIM[OA]|ILM[OA]\b)", re.I)
_FILING = re.compile(r"\b(?:propor|ajuizar|promover|impetrar|oferecer|acao|requer(?:er)?)\b", re.I)
# "Vistos e examinados" also opens sentenças; the "acordam os/em" formula is the collegiate one.
_ACORDAO = re.compile(r"vistos,?\s+relatados\s+e\s+discutidos|\bacordam\b,?\s+(?:os|as|em|a|o)\b", re.I)
_JULGO = re.compile(r"\bJULGO\b|\bjulgo\s+(?:procedente|improcedente|extint)", re.I)
_DECIDO = re.compile(r"\bdecido\b|\bmonocr[aá]tica", re.I)
_PARECER = re.compile(r"^PARECER\b", re.I)
_CONTRATO = re.compile(r"^(?:CONTRATO|Contrato)\b")
_CLAUSULA = re.compile(r"\bcl[aá]usula\b", re.I)
_SUMULA = re.compile(r"^SUMULA(?:\s+VINCULANTE)?\s+(?:N[º°o.]*\s*)?\d+", re.I)
_NORMATIVE = re.compile(
    r"^(?:LEI(?:\s+COMPLEMENTAR)?|DECRETO(?:-LEI)?|RESOLUCAO|INSTRUCAO\s+NORMATIVA|MEDIDA\s+PROVISORIA|"
    r"EMENDA\s+CONSTITUCIONAL|PROVIMENTO|PORTARIA\s+NORMATIVA|DELIBERACAO|REGIMENTO\s+INTERNO)"
    r"(?:\s+N[º°o.]*\s*|\s+)\d",
    re.I,
)
_ADMINISTRATIVE = re.compile(
    r"^(?:PORTARIA|OFICIO|EDITAL|ATA|MEMORANDO|CIRCULAR|ORDEM\s+DE\s+SERVICO|AVISO|NOTA\s+TECNICA|"
    r"COMUNICADO|DESPACHO\s+ADMINISTRATIVO)\b(?:\s+N[º°o.]*\s*\d|\s*$|\s+\d|\s+DE\b)",
    re.I,
)


def guess_type(doc: _Text) -> str:
    """The first rule that fires, most specific first; "outro" when none does.

    A petition or an e-mail often quotes judgments, so their own markers (addressing a judge at
    the top, mail headers) are checked before the judgment formulas.
    """
    opening = doc.opening_lines(15)
    headings = set(doc.heading_lines())
    text = doc.fhead
    if any(_EMAIL_FROM.match(line) for line in opening) and any(_EMAIL_OTHER.match(line) for line in opening):
        return "email"
    if any(_ADDRESSING.match(line) for line in opening[:12]) and _FILING.search(text):
        return "peticao"
    if "ACORDAO" in headings or _ACORDAO.search(text):
        return "acordao"
    if "SENTENCA" in headings or (re.search(r"\bVistos\.", text) and _JULGO.search(text)):
        return "sentenca"
    if "DECISAOMONOCRATICA" in headings or ("DECISAO" in headings and _DECIDO.search(text)):
        return "decisao_monocratica"
    if any(_PARECER.match(line) for line in opening):
        return "parecer"
    if "DESPACHO" in headings:
        return "despacho"
    if any(_CONTRATO.match(line) for line in opening) and _CLAUSULA.search(text):
        return "contrato"
    first = opening[:5]
    if any(_SUMULA.match(line) for line in first):
        return "sumula"
    if any(_NORMATIVE.match(line) for line in first):
        return "ato_normativo"
    if any(_ADMINISTRATIVE.match(line) for line in first):
        return "ato_administrativo"
    return "outro"


# -------------------------------------------------------------------------------------- court

_STATES = "|".join(sorted((re.escape(s).replace(r"\ ", r"\s+") for s in UF_BY_STATE), key=len, reverse=True))
_OF_STATE = rf"(?:do\s+Estado\s+)?d[oea]s?\s+(?P<state>{_STATES})\b"
_ORDINALS = {"PRIMEIRA": 1, "SEGUNDA": 2, "TERCEIRA": 3, "QUARTA": 4, "QUINTA": 5, "SEXTA": 6}
_REGION = r"(?:(?P<n>\d{1,2})\s*[ªa]?|(?P<word>PRIMEIRA|SEGUNDA|TERCEIRA|QUARTA|QUINTA|SEXTA))\s+Regiao"


def _names(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern.replace(" ", r"\s+"), re.I)


# (pattern over folded text, acronym template); {uf} is the state's UF, {n} the region number.
_COURT_NAMES: list[tuple[re.Pattern[str], str]] = [
    (_names("Supremo Tribunal Federal"), "STF"),
    (_names("Superior Tribunal de Justica"), "STJ"),
    (_names("Tribunal Superior do Trabalho"), "TST"),
    (_names("Tribunal Superior Eleitoral"), "TSE"),
    (_names("Superior Tribunal Militar"), "STM"),
    (_names(f"Tribunal Regional Federal da {_REGION}"), "TRF{n}"),
    (_names(f"Tribunal Regional do Trabalho da {_REGION}"), "TRT{n}"),
    (_names(f"Tribunal Regional Eleitoral {_OF_STATE}"), "TRE-{uf}"),
    (_names("Tribunal de Contas da Uniao"), "TCU"),
    (_names(f"Tribunal de Contas {_OF_STATE}"), "TCE-{uf}"),
    (_names("Tribunal de Justica do Distrito Federal e (?:dos )?Territorios"), "TJDFT"),
    (_names(f"Tribunal de Justica {_OF_STATE}"), "TJ{uf}"),
    (_names(f"Poder Judiciario do Estado d[oea]s? (?P<state>{_STATES})\\b"), "TJ{uf}"),
    (_names("Conselho Administrativo de Recursos Fiscais"), "CARF"),
    (_names("Ministerio Publico Federal|Procuradoria[-\\s]+Geral da Republica"), "MPF"),
    (_names("Ministerio Publico do Trabalho"), "MPT"),
    (_names("Ministerio Publico do Distrito Federal e (?:dos )?Territorios"), "MPDFT"),
    (_names(f"(?:Ministerio Publico|Procuradoria[-\\s]+Geral de Justica) {_OF_STATE}"), "MP{uf}"),
]
_UF_ALT = "|".join(sorted(UFS))
_COURT_ACRONYMS = re.compile(
    rf"(?<![\w-])(?:(?P<plain>STF|STJ|TST|TSE|STM|TCU|CARF|MPF|MPT|TJDFT|MPDFT)"
    rf"|TRF-?(?P<trf>[1-6])|TRT-?(?P<trt>\d{{1,2}})|TJ[-/]?(?P<tj>{_UF_ALT})|TRE-?(?P<tre>{_UF_ALT})"
    rf"|TCE-?(?P<tce>{_UF_ALT})|(?:MP|PGJ)-?(?P<mp>{_UF_ALT}))(?![\w])"
)
_CONVOCADO = re.compile(r"convocad[oa]\W*$", re.I)
_CLASS_COURT = [
    (re.compile(r"^(?:\w+ n[oa]s? )*(?:AGRAVO EM )?RECURSO ESPECIAL\b|^(?:\w+ n[oa]s? )*A?REsp\b"), "STJ"),
    (re.compile(r"^(?:\w+ n[oa]s? )*(?:RECURSO EXTRAORDINARIO|ARE\b|ADI\b|ADPF\b|ADC\b)"), "STF"),
    (re.compile(r"^(?:\w+ n[oa]s? )*(?:RECURSO DE REVISTA|AIRR\b)"), "TST"),
]


# Agencies and councils named in full in a letterhead (codes.AGENCIES).
_AGENCY_NAMES: list[tuple[re.Pattern[str], str]] = [
    (_names("Agencia Nacional de Telecomunicacoes"), "anatel"),
    (_names("Agencia Nacional de Energia Eletrica"), "aneel"),
    (_names("Agencia Nacional de Vigilancia Sanitaria"), "anvisa"),
    (_names("Agencia Nacional de Saude Suplementar"), "ans"),
    (_names("Agencia Nacional de Aviacao Civil"), "anac"),
    (_names("Agencia Nacional de Transportes Terrestres"), "antt"),
    (_names("Agencia Nacional do Petroleo"), "anp"),
    (_names("Conselho Administrativo de Defesa Economica"), "cade"),
    (_names("Comissao de Valores Mobiliarios"), "cvm"),
    (_names("Banco Central do Brasil"), "bcb"),
    (_names("Procuradoria[-\\s]+Geral da Fazenda Nacional"), "pgfn"),
    (_names("Conselho Nacional de Justica"), "cnj"),
]


def _court_from_name(match: re.Match[str], template: str) -> str | None:
    groups = match.groupdict()
    uf = UF_BY_STATE.get(re.sub(r"\s+", " ", groups["state"]).upper()) if groups.get("state") else ""
    n = groups.get("n") or (str(_ORDINALS[groups["word"].upper()]) if groups.get("word") else "")
    if ("{uf}" in template and not uf) or ("{n}" in template and not n):
        return None
    return template.format(uf=uf, n=int(n) if n else "")


def _court_names(text: str) -> list[str]:
    """Every court or prosecution office named in full, in order of appearance; of two names
    starting at one place the longer wins ("... do Distrito Federal e dos Territórios")."""
    found: list[tuple[int, int, str]] = []
    for pattern, template in _COURT_NAMES:
        for match in pattern.finditer(text):
            court = _court_from_name(match, template)
            if court:
                found.append((match.start(), match.start() - match.end(), court))
    for pattern, code in _AGENCY_NAMES:
        for match in pattern.finditer(text):
            found.append((match.start(), match.start() - match.end(), code))
    return [court for *_, court in sorted(found)]


def _court_from_acronym(match: re.Match[str]) -> str:
    g = match.groupdict()
    if g["plain"]:
        return g["plain"]
    if g["trf"]:
        return f"TRF{g['trf']}"
    if g["trt"]:
        return f"TRT{int(g['trt'])}"
    if g["tj"]:
        return f"TJ{g['tj']}"
    if g["tre"]:
        return f"TRE-{g['tre']}"
    if g["tce"]:
        return f"TCE-{g['tce']}"
    return f"MP{g['mp']}"


def guess_court(doc: _Text) -> str | None:
    """The code of the court (or office, or agency) the document comes from (see _find_court)."""
    court = _find_court(doc)
    return normalize_court(court) if court else None


def _find_court(doc: _Text) -> str | None:
    """The court (or prosecution office) the document comes from, by decreasing evidence:

    1. the court named in the judgment formula "acordam os ... do <Tribunal>";
    2. the first court, office or agency named in full in the letterhead zone of page 1;
    3. a case class only one court judges ("RECURSO ESPECIAL" -> STJ) opening the document;
    4. the CNJ case number in the letterhead zone (its J.TR segment names the court);
    5. "e-STJ" page references; an acronym on a short opening line ("STJ", "TJ/SP", "PGJMG"),
       except one naming a judge's home court ("Desembargador convocado TJRS").
    Courts only cited further down the text are not taken: citations name other courts.
    """
    for match in re.finditer(r"\bacordam\b", doc.fhead, re.I):
        named = _court_names(doc.fhead[match.end() : match.end() + 400])
        if named:
            return named[0]
    named = _court_names(doc.fheader)
    if named:
        return named[0]
    for line in doc.opening_lines(3):
        for pattern, court in _CLASS_COURT:
            if pattern.match(line):
                return court
    for match in cnj.CNJ.finditer(doc.fheader):
        court = cnj.court_of(cnj.format_number(match))
        if court:
            return court
    if re.search(r"\be-STJ\b", doc.head):
        return "STJ"
    for line in doc.opening_lines(OPENING_LINES):
        if len(line) > 100:
            continue
        for match in _COURT_ACRONYMS.finditer(line):
            if not _CONVOCADO.search(line[max(0, match.start() - 30) : match.start()]):
                return _court_from_acronym(match)
    return None


# --------------------------------------------------------------------------------------- date

MONTHS = {
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
_LONG = rf"(?P<d>\d{{1,2}})\s*[º°o]?\s+(?i:de)\s+(?P<m>(?i:{'|'.join(MONTHS)}))\s+(?i:de)\s+(?P<y>\d{{4}})\b"
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


def guess_date(doc: _Text, document_type: str = "outro") -> date | None:
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


# -------------------------------------------------------------------------------------- title

# Class names of the higher courts and the short forms their case numbers are cited with.
CLASS_ABBREVIATIONS = {
    "RECURSO ESPECIAL": "REsp",
    "AGRAVO EM RECURSO ESPECIAL": "AREsp",
    "EMBARGOS DE DIVERGENCIA EM RECURSO ESPECIAL": "EREsp",
    "RECURSO EXTRAORDINARIO": "RE",
    "AGRAVO EM RECURSO EXTRAORDINARIO": "ARE",
    "RECURSO EXTRAORDINARIO COM AGRAVO": "ARE",
    "HABEAS CORPUS": "HC",
    "RECURSO EM HABEAS CORPUS": "RHC",
    "RECURSO ORDINARIO EM HABEAS CORPUS": "RHC",
    "MANDADO DE SEGURANCA": "MS",
    "RECURSO EM MANDADO DE SEGURANCA": "RMS",
    "RECURSO ORDINARIO EM MANDADO DE SEGURANCA": "RMS",
    "CONFLITO DE COMPETENCIA": "CC",
    "RECLAMACAO": "Rcl",
    "ACAO DIRETA DE INCONSTITUCIONALIDADE": "ADI",
    "ACAO DECLARATORIA DE CONSTITUCIONALIDADE": "ADC",
    "ARGUICAO DE DESCUMPRIMENTO DE PRECEITO FUNDAMENTAL": "ADPF",
    "RECURSO DE REVISTA": "RR",
    "AGRAVO DE INSTRUMENTO EM RECURSO DE REVISTA": "AIRR",
    "SENTENCA ESTRANGEIRA CONTESTADA": "SEC",
    "HOMOLOGACAO DE DECISAO ESTRANGEIRA": "HDE",
    "AGRAVO INTERNO": "AgInt",
    "AGRAVO REGIMENTAL": "AgRg",
    "EMBARGOS DE DECLARACAO": "EDcl",
}
_CLASS_WORDS = (
    r"RECURSO|AGRAVO|APELACAO|EMBARGOS|HABEAS|MANDADO|ACAO|RECLAMACAO|CONFLITO|REVISAO|INQUERITO|PETICAO|"
    r"MEDIDA|SUSPENSAO|TUTELA|ARGUICAO|EXECUCAO|CUMPRIMENTO|REMESSA|CORREICAO|INCIDENTE|PEDIDO|"
    r"HOMOLOGACAO|SENTENCA ESTRANGEIRA|EXCECAO|CARTA|QUEIXA|DENUNCIA"
)
_CLASS_LINE = re.compile(
    r"^(?P<prefix>(?:(?:AgInt|AgRg|EDcl|AgR|ED|EDv|EREsp)\s+n[oa]s?\s+)*)"
    rf"(?P<cls>(?:{_CLASS_WORDS})\b[A-Z ]{{0,80}}?)\s+N[º°o.]{{0,2}}\s*:?\s*"
    r"(?P<num>\d[\d./-]*\d)(?:\s*[-/]\s*(?P<uf>[A-Z]{2})\b)?"
)
_CNJ_NUMBER = re.compile(r"^\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4}$")
_ESAJ_PROCESS = re.compile(r"Processo\s*(?:n[º°o.]*)?\s*:?\s*(?P<num>\d{7}-\d{2}\.\d{4}\.\d\.\d{2}\.\d{4})", re.I)
_ESAJ_CLASS = re.compile(r"Classe(?:\s*-\s*Assunto)?\s*:?\s*\n?\s*(?P<cls>[^\n]+?)\s*(?:\s-\s|\n|$)", re.I)
_SMALL_WORDS = frozenset(_words("a à ao as às com da das de do dos e em na nas no nos o os para pela pelo por"))
_LETTERHEAD = re.compile(
    r"^(?:PODER\s+JUDICIARIO|TRIBUNAL|SUPERIOR\s+TRIBUNAL|SUPREMO|MINISTERIO|PROCURADORIA|PROMOTORIA|"
    r"DEFENSORIA|GOVERNO|ESTADO\s+D|REPUBLICA|PREFEITURA|SECRETARIA|CAMARA|COMARCA|FORO|JUIZADO|"
    r"GABINETE|\d+\s*[ªa]?\s+VARA|VARA|fls?\.|Pagina|Documento|Assinad|EXCELENTISSIM|EXM[OA]\b|"
    r"ILUSTRISSIM|ILM[OA]\b|\[|Processo|Classe|Relator|Requerente|Requerido|Autor|Reu|Juiz)",
    re.I,
)


def _title_case(text: str) -> str:
    """ "AGRAVO DE INSTRUMENTO" -> "Agravo de Instrumento"."""
    words = text.lower().split()
    return " ".join(w if i and w in _SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words))


def _case_number(number: str, uf: str | None) -> str:
    """A higher-court number with thousands dots ("2560760" -> "2.560.760") and its state."""
    if number.isdigit() and len(number) > 3:
        number = f"{int(number):,}".replace(",", ".")
    return f"{number}/{uf}" if uf else number


def _class_title(doc: _Text) -> tuple[int, str] | None:
    """(position, "REsp 1.602.076/SP") from the first line that names a case class and number."""
    for pos, line in doc.head_lines:
        match = _CLASS_LINE.match(fold(line))
        if not match:
            continue
        cls_folded = re.sub(r"\s+", " ", match.group("cls")).strip()
        cls_original = line[match.start("cls") : match.start("cls") + len(match.group("cls"))].strip()
        number, uf = match.group("num"), match.group("uf")
        if uf not in UFS:
            uf = None
        prefix = re.sub(r"\s+", " ", line[: match.start("cls")])
        if not _CNJ_NUMBER.match(number) and cls_folded in CLASS_ABBREVIATIONS:
            return pos, f"{prefix}{CLASS_ABBREVIATIONS[cls_folded]} {_case_number(number, uf)}"
        return pos, f"{prefix}{_title_case(cls_original)} {_case_number(number, uf)}"
    return None


def _caption(doc: _Text) -> fields.Caption | None:
    """The first line of the opening pages that names a case class and number."""
    for _, line in doc.head_lines:
        match = _CLASS_LINE.match(fold(line))
        if not match:
            continue
        cls_folded = re.sub(r"\s+", " ", match.group("cls")).strip()
        cls_original = line[match.start("cls") : match.start("cls") + len(match.group("cls"))].strip()
        uf = match.group("uf") if match.group("uf") in UFS else None
        prefix = re.sub(r"\s+", " ", line[: match.start("cls")])
        return fields.Caption(prefix, cls_original, CLASS_ABBREVIATIONS.get(cls_folded), match.group("num"), uf)
    return None


def _esaj_title(doc: _Text) -> tuple[int, str] | None:
    """(position, "Cumprimento de sentença 1048106-30.2024.8.26.0100") from "Processo nº" and
    "Classe - Assunto" labels (e-SAJ and PJe headers)."""
    process = _ESAJ_PROCESS.search(doc.head)
    if not process:
        return None
    cls = _ESAJ_CLASS.search(doc.head, max(0, process.start() - 500), process.end() + 500)
    name = cls.group("cls").strip() if cls else "Processo"
    return process.start(), f"{name} {process.group('num')}"


def _line_title(doc: _Text, pattern: re.Pattern[str]) -> str | None:
    for _, line in doc.head_lines:
        if pattern.match(fold(line)):
            return line[:TITLE_MAX].strip()
    return None


def _heading_title(doc: _Text) -> str | None:
    """The first heading-like line of the opening that is not letterhead or boilerplate: an
    all-caps line if there is one, else a short line that is not a sentence."""
    candidates = []
    for _, line in doc.head_lines[:40]:
        letters = [ch for ch in line if ch.isalpha()]
        if len(letters) < 4 or _LETTERHEAD.match(fold(line)) or len(line) > TITLE_MAX:
            continue
        if not any(ch.islower() for ch in letters):
            return line
        if len(line) <= 120 and len(line.split()) >= 2 and line[-1] not in ".,;:":
            candidates.append(line)
    return candidates[0] if candidates else None


_TYPE_TITLE_LINES = {
    "parecer": _PARECER,
    "peticao": re.compile(r"^ACAO\s+\w", re.I),
    "contrato": _CONTRATO,
    "sumula": _SUMULA,
    "ato_normativo": _NORMATIVE,
    "ato_administrativo": _ADMINISTRATIVE,
    "email": re.compile(r"^(?:Assunto|Subject)\s*:", re.I),
}


def guess_title(doc: _Text, document_type: str) -> str | None:
    """Decisions: class and number; other types: their own title line (the "Parecer nº" line,
    the action a petition brings, the e-mail subject); else the first heading line."""
    if document_type in DECISION_TYPES:
        found = [t for t in (_class_title(doc), _esaj_title(doc)) if t]
        if found:
            return min(found)[1][:TITLE_MAX]
    pattern = _TYPE_TITLE_LINES.get(document_type)
    if pattern is not None:
        line = _line_title(doc, pattern)
        if line and document_type == "email":
            line = line.split(":", 1)[1].strip()
        if line:
            return line
    return _heading_title(doc)


def _filename_title(filename: str) -> str:
    return PurePath(filename).stem or filename or "documento"
