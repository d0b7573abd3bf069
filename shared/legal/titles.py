"""A document's title and its case caption: a decision's class and number ("REsp 1.602.076/SP",
"Agravo de Instrumento 0017387-33.2017.8.19.0000"), another document's own title line (the "Parecer nº"
line, the action a petition brings, the e-mail subject), else its first heading line; the file name when
nothing else names it.
"""

import re
from pathlib import PurePath
from typing import NamedTuple

from precedente.shared.legal.codes import DECISION_TYPES, UF_BY_STATE, UFS
from precedente.shared.legal.dates import ENGLISH_MONTHS, MONTH_PATTERN
from precedente.shared.legal.doctrine import is_byline, is_cover_name, is_plain_name
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.document_types import COMPILATION, OPENING_LINES
from precedente.shared.legal.identifiers import remove_identifiers
from precedente.shared.legal.text import fold, title_case_plain

__all__ = ["CLASS_ABBREVIATIONS", "TITLE_MAX", "Caption", "caption", "filename_title", "guess_title"]

TITLE_MAX = 200


class Caption(NamedTuple):
    """The class line of a case ("AgInt no AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE")."""

    prefix: str  # "AgInt no "
    cls: str  # the class as printed: "AGRAVO EM RECURSO ESPECIAL"
    short: str | None  # its abbreviation when a higher court's: "AREsp"
    number: str  # "2560760" or a CNJ number
    uf: str | None
    line: int = 0  # its index among the document's non-empty head lines


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
_STATE_NAMES = "|".join(sorted(UF_BY_STATE, key=len, reverse=True))
_RECURSO = (
    r"(?:AgInt|AgRg|EDcl|AgR|ED|EDv|EREsp|"
    r"(?:(?:SEGUND|TERCEIR|QUART)[OA]S\s+)?(?:EMB\.\s?DECL|AG\.\s?REG|EMB\.\s?DIV)\.)"
)
_CLASS_LINE = re.compile(
    rf"^(?P<prefix>(?:{_RECURSO}\s+(?i:n[oa]s?)\s+)*)"
    rf"(?P<cls>(?:{_CLASS_WORDS})\b[A-Z ]{{0,80}}?)(?:\s+N[º°o.]{{0,2}}\s*:?\s*|\s+(?=\d{{1,3}}\.\d{{3}}\b))"
    rf"(?P<num>\d[\d./-]*\d)(?:\s*[-/]\s*(?P<uf>[A-Z]{{2}})\b|\s+(?P<state>{_STATE_NAMES})\b)?"
)
"""A case's class line: "AgInt no AGRAVO EM RECURSO ESPECIAL Nº 2560760 - SE", and the STF's form without "Nº",
with the state written out and its recursos abbreviated ("SEGUNDOS EMB.DECL. NO RECURSO EXTRAORDINÁRIO 1.366.243
SANTA CATARINA")."""
_STF_RECURSOS = [
    (re.compile(r"EMB\.\s?DECL\."), "ED"),
    (re.compile(r"AG\.\s?REG\."), "AgR"),
    (re.compile(r"EMB\.\s?DIV\."), "EDv"),
    (re.compile(r"\b(SEGUND|TERCEIR|QUART)([OA]S)\b"), None),
    (re.compile(r"\bN([OA]S?)\b"), None),
]
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


_FRONT_MATTER = re.compile(
    r"^(?:APRESENTACAO|SUMARIO|INDICE|PREFACIO|AGRADECIMENTOS?|DEDICATORIA|EPIGRAFE|NOTA\s+(?:DO|DA|DOS)\s+AUTOR(?:A|ES)?|"
    r"LISTA\s+DE\s+(?:ABREVIATURAS|SIGLAS|TABELAS|FIGURAS)|CONTENTS|TABLE\s+OF\s+CONTENTS|FOREWORD|PREFACE)\s*[:.]?$",
    re.I,
)
"""The headings of a publication's front matter: a part of it, not its title ("APRESENTAÇÃO", "SUMÁRIO")."""


def _prefix(text: str) -> str:
    """The recursos before the class as the higher courts cite them: "SEGUNDOS EMB.DECL. NO " -> "Segundos ED no "."""
    text = re.sub(r"\s+", " ", text)
    for pattern, short in _STF_RECURSOS:
        text = pattern.sub(short or (lambda m: m[0].capitalize() if len(m[0]) > 3 else m[0].lower()), text)
    return text


def _class_match(doc: DocumentText) -> tuple[int, str, re.Match[str]] | None:
    """(position, the line, its match) of the first head line naming a class and number; the line is joined
    with the next when the state's name runs onto it ("... 1.366.243 SANTA" / "CATARINA")."""
    lines = doc.head_lines
    for i, (pos, line) in enumerate(lines):
        match = _CLASS_LINE.match(fold(line))
        if not match:
            continue
        if i + 1 < len(lines) and len(lines[i + 1][1]) <= 30 and lines[i + 1][1].isupper():
            joined = f"{line} {lines[i + 1][1]}"
            longer = _CLASS_LINE.match(fold(joined))
            if longer and longer["state"] and longer.end("state") > len(line):
                return pos, joined, longer
        return pos, line, match
    return None


def _uf(match: re.Match[str]) -> str | None:
    if match["uf"] in UFS:
        return match["uf"]
    return UF_BY_STATE.get(re.sub(r"\s+", " ", match["state"]).upper()) if match["state"] else None


def _case_number(number: str, uf: str | None) -> str:
    """A higher-court number with thousands dots ("2560760" -> "2.560.760") and its state."""
    if number.isdigit() and len(number) > 3:
        number = f"{int(number):,}".replace(",", ".")
    return f"{number}/{uf}" if uf else number


def _class_title(doc: DocumentText) -> tuple[int, str] | None:
    """(position, "REsp 1.602.076/SP") from the first line that names a case class and number."""
    found = _class_match(doc)
    if found is None:
        return None
    pos, line, match = found
    cls_folded = re.sub(r"\s+", " ", match.group("cls")).strip()
    cls_original = line[match.start("cls") : match.start("cls") + len(match.group("cls"))].strip()
    number, uf = match.group("num"), _uf(match)
    prefix = _prefix(line[: match.start("cls")])
    if not _CNJ_NUMBER.match(number) and cls_folded in CLASS_ABBREVIATIONS:
        return pos, f"{prefix}{CLASS_ABBREVIATIONS[cls_folded]} {_case_number(number, uf)}"
    if not _CNJ_NUMBER.match(number) and (compound := _compound_class(cls_folded)):
        return pos, f"{prefix}{compound} {_case_number(number, uf)}"
    return pos, f"{prefix}{title_case_plain(cls_original)} {_case_number(number, uf)}"


def _compound_class(cls_folded: str) -> str | None:
    """A compound class written out, in the form the higher courts cite it: "EMBARGOS DE DECLARACAO NO RECURSO
    ESPECIAL" -> "EDcl no REsp", "AGRAVO INTERNO NOS EMBARGOS DE DECLARACAO NO AGRAVO EM RECURSO ESPECIAL" -> "AgInt
    nos EDcl no AREsp"; None unless every part is a class the courts abbreviate."""
    parts = re.split(r"\s+(NOS|NAS|NO|NA)\s+", cls_folded)
    if len(parts) < 3:
        return None
    names = parts[0::2]
    if any(name not in CLASS_ABBREVIATIONS for name in names):
        return None
    joints = [joint.lower() for joint in parts[1::2]]
    return " ".join(f"{CLASS_ABBREVIATIONS[name]} {joint}" for name, joint in zip(names, joints, strict=False)) + (
        " " + CLASS_ABBREVIATIONS[names[-1]]
    )


def caption(doc: DocumentText) -> Caption | None:
    """The first line of the opening pages that names a case class and number."""
    found = _class_match(doc)
    if found is None:
        return None
    pos, line, match = found
    index = next(i for i, (p, _) in enumerate(doc.head_lines) if p == pos)
    cls_folded = re.sub(r"\s+", " ", match.group("cls")).strip()
    cls_original = line[match.start("cls") : match.start("cls") + len(match.group("cls"))].strip()
    prefix = _prefix(line[: match.start("cls")])
    short = CLASS_ABBREVIATIONS.get(cls_folded)
    if short is None and not _CNJ_NUMBER.match(match.group("num")):
        short = _compound_class(cls_folded)
    return Caption(prefix, cls_original, short, match.group("num"), _uf(match), index)


def _esaj_title(doc: DocumentText) -> tuple[int, str] | None:
    """(position, "Cumprimento de sentença 1048106-30.2024.8.26.0100") from "Processo nº" and
    "Classe - Assunto" labels (e-SAJ and PJe headers)."""
    process = _ESAJ_PROCESS.search(doc.head)
    if not process:
        return None
    cls = _ESAJ_CLASS.search(doc.head, max(0, process.start() - 500), process.end() + 500)
    name = cls.group("cls").strip() if cls else "Processo"
    return process.start(), f"{name} {process.group('num')}"


def _with_subject(doc: DocumentText, heading: str) -> str:
    """A bare "Parecer" heading with the subject printed under it, up to its full stop ("Parecer — Análise da
    viabilidade da autenticação digital ... VS Data Imagem"): the word alone names no opinion."""
    lines = [line for _, line in doc.head_lines]
    start = next((i + 1 for i, line in enumerate(lines) if line.startswith(heading)), len(lines))
    subject: list[str] = []
    for line in lines[start : start + 4]:
        if not any(ch.islower() for ch in line):
            break
        subject.append(line)
        if line.endswith("."):
            break
    text = " ".join(subject).rstrip(".")
    if not text or NARRATIVE.search(fold(text)) or len(heading.strip()) + 3 + len(text) > TITLE_MAX:
        return heading  # the text's first sentence ("Trata-se de consulta formulada pelo advogado ..."), or one
        # cut where the title's room ends, is no subject: the parecer is cited by its issuer and date
    return f"{heading.strip()} — {text}"


NARRATIVE = re.compile(
    r"\b(?:trata-se|cuida-se|versa(?:m)?\s+(?:os\s+autos|o\s+presente)|consulta\s+formulada|o\s+presente|"
    r"vem\s+(?:o|a)\s|foi\s+formulad[ao]|formulad[ao]\s+pel[ao]|solicitad[ao]\s+pel[ao]|inscrit[oa]|"
    r"portador[a]?)\b",
    re.I,
)
"""The words a text's opening sentence runs on (a parecer's "Trata-se de Consulta formulada pelo advogado ...,
inscrito ..."): a sentence, not a subject line a card can cite."""


def _line_title(doc: DocumentText, pattern: re.Pattern[str]) -> str | None:
    for _, line in doc.head_lines:
        if pattern.match(fold(line)):
            return line[:TITLE_MAX].strip()
    return None


def _heading_title(doc: DocumentText, work: bool = False) -> str | None:
    """The first heading-like line of the opening that is not letterhead or boilerplate: an
    all-caps line if there is one, else a short line that is not a sentence. For a work (an article, a
    thesis), the journal's running head, review dates and authors' names are not candidates either, and a
    mixed-case title takes the lines it wraps onto."""
    candidates = []
    lines = doc.head_lines[:40]
    if work and (labelled := _after_genre_label(lines[:GENRE_LINES])):
        return labelled
    for i, (_, line) in enumerate(lines):
        letters = [ch for ch in line if ch.isalpha()]
        nxt = lines[i + 1][1] if i + 1 < len(lines) else ""
        alone = not (i and len(lines[i - 1][1].split()) == 1) and not (
            i + 2 < len(lines) and " " not in lines[i + 2][1]
        )
        if work and _one_word(line) and _one_word(nxt) and alone and not candidates:
            candidates.append(f"{line} {nxt}")  # a title set one word a line: "Processo" / "Eletrônico", two alone
            continue
        if (
            len(letters) < 4
            or _LETTERHEAD.match(fold(line))
            or _FRONT_MATTER.match(fold(line))
            or len(line) > TITLE_MAX
        ):
            continue
        if work and (
            _FURNITURE.search(fold(line))
            or _is_author_line(line)
            or _AFFILIATION.match(fold(line))
            or is_cover_name(line)
            or _NUMBERED_HEADING.match(line)
            or (any(ch.islower() for ch in letters) and is_plain_name(line))
        ):
            continue
        if i == 0 and len(line.split()) <= 3 and _lower_continuations(lines[1:4]):
            # a cover's title set in short lines ("Manual" / "da Apostila"): the lines it runs onto in lower case
            return " ".join([line, *_lower_continuations(lines[1:4])])
        if not work and i == 0 and _opens_with_title(line, lines[1][1] if len(lines) > 1 else ""):
            return re.sub(r"\s*\*+$", "", line)  # without its footnote mark
        if not any(ch.islower() for ch in letters):
            if i and len(lines[i - 1][1]) >= PARAGRAPH_LINE and re.search(r"[a-z]$", lines[i - 1][1]):
                continue  # a word in capitals inside a paragraph ("... em nossa" / "PROVA COMENTADA.")
            if work and candidates and (len(line.split()) == 1 or _DATE_LINE.search(fold(line))):
                continue  # a section's label or the date after the title ("STRATEGY", "DECEMBER 13TH, 2024")
            title = _continued(line, lines[i + 1 : i + 5], work)
            if work:  # without its footnote mark, and without the translation printed after a bar
                title = re.sub(
                    r"(?<=[^\W\d_])(?:\d{1,2}|\s*\(?\*+\)?)$|(?<=\))\s?\d{1,2}$", "", title.split(" | ")[0]
                ).rstrip(" :")
            return title
        credited = i + 1 < len(lines) and _AFFILIATION.match(fold(lines[i + 1][1]))  # a name above its credentials
        if work and (credited or _ADDRESS.search(line) or _DATE_LINE.search(fold(line))):
            continue
        if work and len(line.split()) >= 2 and line[-1] not in ",;:!?" and not _BODY_TEXT.search(line):
            # a work's title may end in a full stop
            title = _wrapped(line.rstrip("."), [nxt for _, nxt in lines[i + 1 : i + 4]])
            candidates.append(re.sub(r"(?<=[^\W\d_])(?:\d{1,2}|\s*\(?\*+\)?)$", "", title))  # its footnote mark
        elif len(line) <= 120 and len(line.split()) >= 2 and line[-1] not in ".,;:" and not _BODY_TEXT.search(line):
            candidates.append(line)
    return candidates[0] if candidates else None


_ADDRESS = re.compile(
    r"^(?:Rua|R\.|Av\.|Avenida|Praça|Alameda|Rodovia|Caixa\s+Postal)\s|\b\d{5}-\d{3}\b|"
    r"^(?:[A-Z]{2},\s*)?(?:Brasil|Brazil|Portugal)\.?$"
)
"""A line of an author's address under a work's title block: the street, a CEP, "SP, Brasil"."""


def _one_word(line: str) -> bool:
    """A line that is one capitalised word of four letters or more, not in capitals ("Processo")."""
    return bool(re.fullmatch(r"[A-ZÀ-Ý][a-zà-ÿ]{3,}", line.strip()))


_FURNITURE = re.compile(
    r"\b(?:ISSN|I S S N|ISBN|DOI|doi|https?:|www\.|Rev\b\.?|Revista|REVISTA|Journal|Vol\.|VOL\.|"
    r"v\.\s*\d|n\.\s*\d|p\.\s*\d|Ano\s+\d|"
    r"Submetido|Recebido|Aprovado|Aceit[oa]|Publicado|Published|Received|Accepted)|\|\||@|^\d+\s*$|"
    r"^(?:[A-Z]{2,6}\s*[-–]\s*)?(?:UNIVERSIDADE|FACULDADE|PROGRAMA|DOUTORADO|MESTRADO|DEPARTAMENTO|CENTRO|ESCOLA|"
    r"INSTITUTO|(?i:RESUMO|ABSTRACT|SUMARIO|ARTIGO|ARTICLE|KEYWORDS|PALAVRAS-CHAVE|INTRODUCAO|BANCA EXAMINADORA|"
    r"REFERENCIAS|CONCLUSAO|CONSIDERACOES\s+FINAIS))\b|^\W",
)
"""Lines of a work's opening that are not its title: the journal's running head, review dates, the institution
on a thesis cover, the abstract's heading."""
_AUTHOR_LINE = re.compile(
    r"^(?:[A-Z][\w'’.-]*|d[aeo]s?|e)(?:\s+(?:[A-Z][\w'’.-]*|d[aeo]s?|e)){1,5}\s*(?:\(?\*+\)?|\d{1,2})$"
)
"""An author's name with its footnote mark: "Claudia Lima MARQUES*", "Celso Hiroshi Iocohama1"."""
_AFFILIATION = re.compile(
    r"^(?:University|Universidade|Universidad|Faculty|Faculdade|Docent|Lecturer|Professor[a]?|Advogad[oa]|"
    r"Pesquisador[a]?|Researcher)\b",
    re.I,
)
"""An author's credentials under their name ("Docent of Civil Law", "University of Tartu"): not the title."""


def _is_author_line(line: str) -> bool:
    """A name with its footnote mark; a line in capitals only when its words read as a name (is_byline): "O
    ADVOGADO TEM FÉ PÚBLICA1" is a title with a footnote."""
    return bool(_AUTHOR_LINE.match(line)) and (any(ch.islower() for ch in line) or is_byline(line))


_CONNECTIVE_WORD = re.compile(
    r"\b(?:de|do|da|dos|das|e|em|no|na|nos|nas|a|o|as|os|ao|aos|para|com|por|pela|pelo|sobre|entre|of|the|and|in|"
    r"on|for|to)$",
    re.I,
)


_SUBTITLE_RUN = re.compile(r"^[A-ZÀ-Ý][\w'’-]*(?:\s+[\w'’-]+){0,3}:\s+\S")
"""A wrapped title's next line that carries its subtitle's colon within its first words ("Paulo: gasto público e
organização federativa" under "Os impactos da judicialização da saúde no município de São")."""


def _wrapped(line: str, following: list[str]) -> str:
    """A mixed-case title with the lines it wraps onto after a connective ("Subsídios para implantação de" /
    "Política de Assinatura Digital na RFB"), onto the line holding its subtitle's colon, or a title in Title Case
    whose subtitle runs on in Title Case ("... Rule-Makers: Beyond Business" / "Models to Private Regulation")."""
    for nxt in following:
        wrapped = (
            _CONNECTIVE_WORD.search(fold(line))
            or nxt[:1].islower()
            or (":" not in line and _SUBTITLE_RUN.match(nxt))
            or (":" in line and _title_cased(line.split(":")[-1]) and _title_cased(nxt) and nxt[-1:] not in ".,;:")
        )
        if not wrapped or _FURNITURE.search(fold(nxt)) or _is_author_line(nxt) or len(line) + len(nxt) > TITLE_MAX:
            break
        line = f"{line} {nxt}"
    return line


def _title_cased(text: str) -> bool:
    """Words in Title Case, the short connectives aside ("Beyond Business", "Models to Private Regulation")."""
    words = [w for w in text.split() if not _CONNECTIVE_WORD.fullmatch(w.lower())]
    return bool(words) and len(words) <= 6 and all(w[:1].isupper() and not w.isupper() for w in words)


_NUMBERED_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-ZÀ-Ý]")
"""A numbered section heading ("1. INTRODUÇÃO", "1 INTRODUÇÃO"): a part of a work, not its title."""
WRAPPED_LINE = 30
PARAGRAPH_LINE = 60
"""A line at least this long that ends on a word without punctuation is a paragraph's, running on."""
"""An all-caps title line at least this long that runs onto another all-caps line was wrapped at the page's width."""


GENRE_LINES = 40
"""Opening lines a genre label is looked for in: a journal prints its section and the title block after the
first page's summary and footnotes when it draws the title block last (the text layer then reads it last)."""
_GENRE_LABEL = re.compile(
    r"^(?:ARTICLES?|ARTIGOS?(?:\s+ORIGINAL)?|ORIGINAL\s+ARTICLE|RESEARCH\s+ARTICLE|REVIEW\s+ARTICLE|ENSAIO|ESSAY)\s*$",
    re.I,
)
"""A work's genre, or its journal's section ("Artigos"), printed alone on a line above the title."""


def _after_genre_label(lines: list[tuple[int, str]]) -> str | None:
    """The title printed right under a work's genre label ("ARTICLE" / "Digital Platforms as Rule-Makers: Beyond
    Business" / "Models to Private Regulation"), with the lines it wraps onto; also a title whose subtitle runs
    onto the next line after its colon ("Valor Probante do Documento Eletrônico:" / "sua aceitação e limites")."""
    for i, (_, line) in enumerate(lines[:-1]):
        nxt = lines[i + 1][1]
        after = lines[i + 2][1] if i + 2 < len(lines) else ""
        labelled = _GENRE_LABEL.match(fold(line)) and any(ch.islower() for ch in nxt)
        subtitled = nxt.endswith(":") and after[:1].islower()
        titled = len(nxt.split()) >= 3 and not is_plain_name(nxt) and (nxt[-1] not in ",;:" or subtitled)
        if labelled and titled and not _FURNITURE.search(fold(nxt)):
            return _wrapped(nxt.rstrip("."), [other for _, other in lines[i + 2 : i + 4]])
    return None


def _opens_with_title(line: str, nxt: str) -> bool:
    """A document whose first line is a title in mixed case followed by its subtitle or byline, also in mixed case
    ("Manual da Apostila" / "Um Manual para a operação prática da Apostila", "A Judicialização Do Direito À Saúde" /
    "www.nucleodoconhecimento.com.br"): that line is the title, not a later line in capitals (the publisher's name,
    a section)."""
    words = line.split()
    return (
        2 <= len(words) <= 20
        and any(ch.islower() for ch in line)
        and sum(w[:1].isupper() for w in words) >= 2
        and line[-1] not in ".,;:"
        and not _BODY_TEXT.search(line)
        and any(ch.islower() for ch in nxt)
    )


_BODY_TEXT = re.compile(r"[a-z]\d{1,2}\b.*\s\w|https?:|@")
"""A sentence of the text, not a heading: a footnote call inside it ("a vida humana2 e da Terra3"), a link."""


_MONTH_WORDS = f"{MONTH_PATTERN}|{'|'.join(ENGLISH_MONTHS)}"
_DATE_LINE = re.compile(rf"^\W*(?:\d{{1,2}}\w*\s+)?(?:{_MONTH_WORDS})\b.{{0,24}}\b(?:19|20)\d{{2}}\W*$", re.I)
"""A line that is only a date: "DECEMBER 13TH, 2024", "Janeiro / Fevereiro de 2013"."""
_ROMAN = re.compile(r"^[ivxlc]+$")
_ENGLISH_WORDS = frozenset({"the", "of", "and", "to", "as", "in", "on", "for", "an", "with", "from", "by", "its"})
_PORTUGUESE_WORDS = frozenset(
    {"de", "da", "do", "dos", "das", "e", "em", "no", "na", "nos", "nas", "para", "com", "por", "um", "uma", "os", "ao"}
)


def _language_of(line: str) -> str | None:
    """ "en" or "pt" by the function words a line has most of; None when it has none."""
    words = fold(line).lower().split()
    english, portuguese = sum(w in _ENGLISH_WORDS for w in words), sum(w in _PORTUGUESE_WORDS for w in words)
    return None if english == portuguese else "en" if english > portuguese else "pt"


def _lower_continuations(following: list[tuple[int, str]]) -> list[str]:
    """The lines after a heading that continue it: they begin in lower case ("RECOMMENDATIONS" / "for a better
    presentation of information to" / "consumers"); a page number in roman numerals ("ix") does not."""
    out = []
    for _, nxt in following:
        if not nxt[:1].islower() or len(nxt) < 4 or _ROMAN.match(nxt.strip()):
            break
        out.append(nxt)
    return out


_CONNECTIVE_END = re.compile(
    r"(?:-|–|—|:|\b(?:DE|DO|DA|DOS|DAS|E|EM|NO|NA|NOS|NAS|A|O|AS|OS|AO|AOS|PARA|COM|POR|PELA|PELO|SOBRE|ENTRE|OF|THE|AND|"
    r"IN|ON|FOR|TO))$"
)


def _page_wide(line: str) -> bool:
    """A title line wrapped at the page's width: long, in words only (no party's registration number, no date), and
    not closed by a quotation mark or a full stop."""
    return len(line) >= WRAPPED_LINE and not re.search(r"\d", line) and line.rstrip()[-1:] not in "”\"').!?"


_CONNECTIVE_START = re.compile(r"^(?:DE|DO|DA|DOS|DAS|E|EM|NO|NA|NOS|NAS|PARA|COM|POR|PELA|PELO|SOBRE|ENTRE|OF|AND)\s")


def _continued(line: str, following: list[tuple[int, str]], work: bool = False) -> str:
    """An all-caps heading with the all-caps lines it runs onto: a title wrapped after a connective
    ("... NORMA FUNDAMENTAL DO" / "PROCESSO CIVIL E SEUS REFLEXOS NA ARBITRAGEM") or before one ("... E A
    EXIBIÇÃO" / "DE DOCUMENTO OU COISA NO PROCESSO"); the author's name below a
    title that ends on a full word is not joined. A work's title also runs on from a line wrapped at the page's
    width (WRAPPED_LINE: "... DOS EFEITOS JURÍDICOS DAS CLÁUSULAS" / "ABUSIVAS NOS CONTRATOS ..."), and any heading
    onto lines that begin in lower case ("RECOMMENDATIONS" / "for a better presentation of information to")."""
    lower = _lower_continuations(following)
    if lower:
        return " ".join([line, *lower])[:TITLE_MAX]
    previous = line
    for k, (_, nxt) in enumerate(following):
        letters = [ch for ch in nxt if ch.isalpha()]
        after = following[k + 1][1] if k + 1 < len(following) else ""
        if fold(nxt).startswith(fold(line)):  # a running head repeating the title's start, then the title whole
            line = previous = nxt
            continue
        wrapped = _CONNECTIVE_END.search(fold(line).rstrip()) or _CONNECTIVE_START.match(fold(nxt))
        place = re.search(r"[-–]\s?[A-Z]{2}$", nxt) or re.fullmatch(r"\s*(?:19|20)\d{2}\s*", after)  # "BRASÍLIA-DF"
        if work and _page_wide(previous) and not (is_cover_name(nxt) or _is_author_line(nxt) or place):
            wrapped = wrapped or not _FURNITURE.search(fold(nxt))
        flipped = {_language_of(line), _language_of(nxt)} == {"en", "pt"}  # its translation follows the title
        if not wrapped or not letters or any(ch.islower() for ch in letters) or flipped:
            break
        previous = nxt
        joined = f"{line}{nxt}" if line.endswith("-") else f"{line} {nxt}"  # "ZERO-" / "PRICE": a compound
        if len(joined) > TITLE_MAX:
            break
        line = joined
    return line


_TYPE_TITLE_LINES = OPENING_LINES | {
    "peticao": re.compile(r"^ACAO\s+\w", re.I),
    "email": re.compile(r"^(?:Assunto|Subject)\s*:", re.I),
}


def guess_title(doc: DocumentText, document_type: str) -> str | None:
    """Decisions: class and number; other types: their own title line (the "Parecer nº" line, the action a petition
    brings, the e-mail subject); else the first heading line. Never a decision's part heading ("EMENTA"), and never with
    a personal identifier in it (precedente.shared.legal.identifiers)."""
    title = _guess_title(doc, document_type)
    if title and document_type in DECISION_TYPES and _PART_HEADING.fullmatch(fold(title)):
        return None  # "EMENTA" names a part of the decision: it falls back to the file name, not a card's case
    return remove_identifiers(title)


_PART_HEADING = re.compile(
    r"(?:E\s?M\s?E\s?N\s?T\s?A|A\s?C\s?O\s?R\s?D\s?A\s?O|RELATORIO(?:\s+E\s+VOTO)?|VOTO(?:[- ]VISTA)?|DECISAO"
    r"(?:\s+MONOCRATICA)?|DESPACHO|SENTENCA|CERTIDAO(?:\s+DE\s+JULGAMENTO)?|DISPOSITIVO|FUNDAMENTACAO|"
    r"EXTRATO\s+DE\s+ATA|INTEIRO\s+TEOR)\W*",
    re.I,
)


def _guess_title(doc: DocumentText, document_type: str) -> str | None:
    if document_type in DECISION_TYPES:
        found = [t for t in (_class_title(doc), _esaj_title(doc)) if t]
        if found:
            return min(found)[1][:TITLE_MAX]
    pattern = _TYPE_TITLE_LINES.get(document_type)
    if pattern is not None:
        line = _line_title(doc, pattern)
        if line and document_type == "email":
            line = line.split(":", 1)[1].strip()
        if line and document_type == "ato_normativo":
            line = _without_date_clause(line)
        if line and document_type == "parecer" and re.fullmatch(r"PARECER\W*", fold(line), re.I):
            line = _with_subject(doc, line)
        if line:
            return line
    if document_type == "jurisprudencia_compilada" and (title := _compilation_title(doc)):
        return title
    return _heading_title(doc, work=document_type == "doutrina")


_EDITION = re.compile(r"^EDICAO\s+N[º°o.]*\s*\d+\s*:", re.I)


def _compilation_title(doc: DocumentText) -> str | None:
    """A compilation's own name on its opening lines ("Jurisprudência em Teses", "Direito à Moradia -
    Jurisprudência Comentada", "EMENTÁRIO TED – 2014") and the edition's subject when it prints one ("EDIÇÃO
    N. 77: ALIMENTOS - II"), not its table of contents ("SUMÁRIO") nor the first section it opens with."""
    lines = doc.head_lines[:15]
    folded = [fold(line) for _, line in lines[:6]]
    issue = next((m[1] for line in folded if (m := re.fullmatch(r"Numero\s+(\d{1,4})", line.strip()))), None)
    if issue and any(re.search(r"\bperiodico\s+destaca\s+teses\b", line, re.I) for line in folded):
        return f"Informativo de Jurisprudência nº {issue}"  # the STJ's: its disclaimer, then "Número 736"
    name = next(
        (line for _, line in lines if COMPILATION.search(fold(line)) and len(line) <= 120 and line[-1] != "."), None
    )
    if name is None:
        return None
    edition = next((i for i, (_, line) in enumerate(doc.head_lines[:60]) if _EDITION.match(fold(line))), None)
    if edition is None:
        return name[:TITLE_MAX]
    subject = _continued(doc.head_lines[edition][1], doc.head_lines[edition + 1 : edition + 3])
    return f"{name} — {subject}"[:TITLE_MAX]


_DATE_CLAUSE = re.compile(
    rf"\s+(?:of|de)\s+\d{{1,2}}\s*[º°o]?\s+(?:de\s+)?(?:{MONTH_PATTERN}|{'|'.join(ENGLISH_MONTHS)})\b", re.I
)


def _without_date_clause(line: str) -> str:
    """An EU act's heading without the date and subject the cleaner joined to it: "DIRECTIVE 2002/22/EC OF THE
    EUROPEAN PARLIAMENT AND OF THE COUNCIL of 7 March 2002 on universal service ..." -> up to "COUNCIL".
    A Brazilian act's ", DE 29 DE JANEIRO DE 2016" is part of its name and stays."""
    match = _DATE_CLAUSE.search(fold(line))
    if match is None or match.start() < 10 or fold(line[: match.start()]).rstrip().endswith(","):
        return line
    return line[: match.start()].rstrip()


def filename_title(filename: str) -> str:
    """The title of a document that names itself nowhere: its file name without the extension."""
    return PurePath(filename).stem or filename or "documento"
