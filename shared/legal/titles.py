"""A document's title and its case caption: a decision's class and number ("REsp 1.602.076/SP",
"Agravo de Instrumento 0017387-33.2017.8.19.0000"), another document's own title line (the "Parecer nº"
line, the action a petition brings, the e-mail subject), else its first heading line; the file name when
nothing else names it.
"""

import re
from pathlib import PurePath
from typing import NamedTuple

from shared.legal.codes import DECISION_TYPES, UFS
from shared.legal.document_text import DocumentText
from shared.legal.document_types import OPENING_LINES
from shared.legal.text import fold, title_case_plain

__all__ = ["CLASS_ABBREVIATIONS", "TITLE_MAX", "Caption", "caption", "filename_title", "guess_title"]

TITLE_MAX = 200


class Caption(NamedTuple):
    """The class line of a case ("AgInt no AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE")."""

    prefix: str  # "AgInt no "
    cls: str  # the class as printed: "AGRAVO EM RECURSO ESPECIAL"
    short: str | None  # its abbreviation when a higher court's: "AREsp"
    number: str  # "2560760" or a CNJ number
    uf: str | None


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
_LETTERHEAD = re.compile(
    r"^(?:PODER\s+JUDICIARIO|TRIBUNAL|SUPERIOR\s+TRIBUNAL|SUPREMO|MINISTERIO|PROCURADORIA|PROMOTORIA|"
    r"DEFENSORIA|GOVERNO|ESTADO\s+D|REPUBLICA|PREFEITURA|SECRETARIA|CAMARA|COMARCA|FORO|JUIZADO|"
    r"GABINETE|\d+\s*[ªa]?\s+VARA|VARA|fls?\.|Pagina|Documento|Assinad|EXCELENTISSIM|EXM[OA]\b|"
    r"ILUSTRISSIM|ILM[OA]\b|\[|Processo|Classe|Relator|Requerente|Requerido|Autor|Reu|Juiz)",
    re.I,
)


def _case_number(number: str, uf: str | None) -> str:
    """A higher-court number with thousands dots ("2560760" -> "2.560.760") and its state."""
    if number.isdigit() and len(number) > 3:
        number = f"{int(number):,}".replace(",", ".")
    return f"{number}/{uf}" if uf else number


def _class_title(doc: DocumentText) -> tuple[int, str] | None:
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
        return pos, f"{prefix}{title_case_plain(cls_original)} {_case_number(number, uf)}"
    return None


def caption(doc: DocumentText) -> Caption | None:
    """The first line of the opening pages that names a case class and number."""
    for _, line in doc.head_lines:
        match = _CLASS_LINE.match(fold(line))
        if not match:
            continue
        cls_folded = re.sub(r"\s+", " ", match.group("cls")).strip()
        cls_original = line[match.start("cls") : match.start("cls") + len(match.group("cls"))].strip()
        uf = match.group("uf") if match.group("uf") in UFS else None
        prefix = re.sub(r"\s+", " ", line[: match.start("cls")])
        return Caption(prefix, cls_original, CLASS_ABBREVIATIONS.get(cls_folded), match.group("num"), uf)
    return None


def _esaj_title(doc: DocumentText) -> tuple[int, str] | None:
    """(position, "Cumprimento de sentença 1048106-30.2024.8.26.0100") from "Processo nº" and
    "Classe - Assunto" labels (e-SAJ and PJe headers)."""
    process = _ESAJ_PROCESS.search(doc.head)
    if not process:
        return None
    cls = _ESAJ_CLASS.search(doc.head, max(0, process.start() - 500), process.end() + 500)
    name = cls.group("cls").strip() if cls else "Processo"
    return process.start(), f"{name} {process.group('num')}"


def _line_title(doc: DocumentText, pattern: re.Pattern[str]) -> str | None:
    for _, line in doc.head_lines:
        if pattern.match(fold(line)):
            return line[:TITLE_MAX].strip()
    return None


def _heading_title(doc: DocumentText) -> str | None:
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


_TYPE_TITLE_LINES = OPENING_LINES | {
    "peticao": re.compile(r"^ACAO\s+\w", re.I),
    "email": re.compile(r"^(?:Assunto|Subject)\s*:", re.I),
}


def guess_title(doc: DocumentText, document_type: str) -> str | None:
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


def filename_title(filename: str) -> str:
    """The title of a document that names itself nowhere: its file name without the extension."""
    return PurePath(filename).stem or filename or "documento"
