"""The structure of a cleaned legal document: which part of it each character belongs to.

Brazilian legal documents are built from fixed parts, and a lawyer's question is usually about one
of them: the ementa of an acórdão, the reasoning of a vote, the requests of a petition, one clause of
a contract. Chunks that never cross a part boundary carry one part's meaning each, and their path
("voto > II – Da não incidência do CDC") lets search show and filter where a passage sits.

What is recognised, by line-level rules on the accent-folded text:
- top-level parts by their heading (a whole line, letter-spaced or numbered as "I –", "2."): EMENTA,
  ACÓRDÃO, RELATÓRIO, VOTO (vencido, vista, vogal), CERTIDÃO/TERMO DE JULGAMENTO, DISPOSITIVO, DECISÃO,
  FATOS, DIREITO, FUNDAMENTAÇÃO/ANÁLISE/MÉRITO, PRELIMINAR, PEDIDOS, CONCLUSÃO, notes after a rule
  ("____" then "[1]");
- acórdãos: the caption repeated before each part ("RECURSO ESPECIAL Nº ...") is a "cabecalho" of its
  own; an ementa without its heading (the block between the caption and "ACÓRDÃO"); the dispositivo of
  each vote (its last paragraph opening with "Ante o exposto", "Forte nessas razões", ...);
- sentenças and decisões: relatório from "Vistos" to "É o relatório", fundamentação, dispositivo;
- statutes, regulations and administrative acts: LIVRO/TÍTULO/CAPÍTULO/SEÇÃO, artigo > parágrafo > inciso >
  alínea, CONSIDERANDO..., RESOLVE/DECIDE (the chunker packs small units with their article, so an inciso
  keeps its caput when they fit one chunk); EU acts: CHAPTER/TITLE/SECTION, "Article 3" / "Artigo 3.º",
  paragraphs "1." and points "(a)"; contracts: CLÁUSULAS and their paragraphs (incisos stay with their clause);
- compilations of case law: each tese of a "Jurisprudência em Teses" edition (with the precedents it
  cites, "Julgados: ..."), each "PROCESSO" note of an informativo, each "Processo Nº" entry of an ementário
  is a unit of its own (Section.standalone: never packed with another);
- e-mails: one part per message header block;
- anything else, and inside every part: numbered, lettered or all-caps sub-headings ("2.1.",
  "c.1)", "(iv) Do dispositivo", "II – Da responsabilidade solidária"), nested by numbering style.

Sections cover the whole text (pages joined by PAGE_SEPARATOR) without gaps; each starts at the
start of a line. A heading alone with nothing under it before a deeper heading is merged into the
section that follows it (a chunk of just "2. FUNDAMENTAÇÃO" would be noise).
"""

import bisect
import re
from dataclasses import dataclass
from itertools import accumulate

from precedente.shared.legal.codes import normalize_document_type
from precedente.shared.legal.document_types import guess_document_type
from precedente.shared.legal.text import fold
from precedente.shared.payloads import PAGE_SEPARATOR, Page

SEPARATOR = " > "
LIST_WINDOW = 5
"""Lines looked at around a numbered line to tell a list item from a heading."""
LABEL_MAX = 80
"""Sub-heading labels are cut to this many characters: a path names a place, it does not quote it."""
CAPTION_MAX_PAGES = 3
"""A caption (cabeçalho) spans fewer pages than this; a longer leading part is read for its headings."""


@dataclass(frozen=True)
class Section:
    path: str
    char_start: int
    char_end: int
    page_start: int
    page_end: int
    standalone: bool = False
    """A unit that is a passage of its own (one tese of a compilation, one note of an informativo): the chunker
    never packs it with its neighbours."""

    @property
    def top(self) -> str:
        return self.path.split(SEPARATOR, 1)[0]


# ----------------------------------------------------------------------------------- catalogue

_CATALOGUE: list[tuple[str, str]] = [
    (r"EMENTA", "ementa"),
    (r"ACORDAO", "acordao"),
    (r"RELATORIO(?:EVOTO)?", "relatorio"),
    (r"VOTO(?:DO(?:A)?RELATORA?|CONDUTOR|VENCEDOR)?", "voto"),
    (r"VOTO(?:VENCIDO|DIVERGENTE)", "voto_vencido"),
    (r"VOTOVISTA", "voto_vista"),
    (r"VOTOVOGAL|DECLARACAODEVOTO", "voto_vogal"),
    (r"CERTIDAODEJULGAMENTO|TERMODEJULGAMENTO|EXTRATODEATA|CERTIDAO", "certidao"),
    (r"(?:DO)?DISPOSITIVO", "dispositivo"),
    (r"DECISAO(?:MONOCRATICA)?", "decisao"),
    (r"(?:DOS|DO|SINTESEDOS|RELATODOS|BREVERELATODOS)?FATOS?|HISTORICO", "fatos"),
    (r"(?:DO)?DIREITO|(?:DOS)?FUNDAMENTOSJURIDICOS", "direito"),
    (
        r"(?:DA)?FUNDAMENTACAO(?:JURIDICA)?|(?:DOS)?FUNDAMENTOS|(?:DA)?ANALISE(?:JURIDICA)?|(?:DO)?MERITO",
        "fundamentacao",
    ),
    (r"(?:DAS?)?PRELIMINAR(?:ES|MENTE)?", "preliminar"),
    (r"(?:DOS?)?(?:PEDIDOS?|REQUERIMENTOS?)(?:LIMINAR(?:ES)?|PRINCIPA(?:L|IS)|FINA(?:L|IS))?", "pedidos"),
    (r"(?:DA)?CONCLUS(?:AO|OES)|CONSIDERACOESFINAIS", "conclusao"),
    (r"RESOLVE[MU]?|DECIDE|DETERMINA", "decide"),
    (r"NOTAS|REFERENCIAS(?:BIBLIOGRAFICAS)?|BIBLIOGRAFIA", "notas"),
    (r"RESUMO|ABSTRACT|RESUMEN|SINOPSE", "resumo"),
    (r"INTRODUCAO|INTRODUCTION", "introducao"),
]
_CATALOGUE_RE = [(re.compile(p), code) for p, code in _CATALOGUE]
_STF_PARTS: list[tuple[str, str]] = [
    (r"Relatorio", "relatorio"),
    (r"Voto(?: - MIN\. .+)?|(?:Antecipacao|Aditamento) ao Voto|(?:Retificacao|Confirmacao|Reajuste) de Voto|"
     r"Voto s/ Proposta", "voto"),
    (r"Voto Vista", "voto_vista"),
    (r"Voto Vogal", "voto_vogal"),
    (r"Debates?|Vista|Esclarecimentos?|Observacao|Explicacao|Proposta|Aparte|Questao de Ordem", "debate"),
    (r"Extrato de Ata(?: - \d{2}/\d{2}/\d{4})?", "certidao"),
]  # fmt: skip
"""The names the STF's inteiro teor gives its parts, each written by the extractor as the first line of the page
where the part begins (services/extractor/logic.py, from the page's hidden label): the only mark of where one
minister's vote ends and the session's debate begins ("Debate", "Vista", "Esclarecimento" are oral interventions)."""
_STF_PARTS_RE = [(re.compile(p), code) for p, code in _STF_PARTS]
_ACORDAO_ONLY = frozenset({"acordao", "voto_vencido", "voto_vista", "voto_vogal", "debate"})
_ACT_ONLY = frozenset({"decide"})
_DOCTRINE_ONLY = frozenset({"resumo", "introducao"})
_LEADING_PARTS = ("cabecalho", "corpo", "resumo", "introducao")
"""Parts a numbered heading that follows closes instead of nesting under them: a work's "2 O modelo dispositivo"
comes after its introduction, not inside it."""
_INLINE_ABSTRACT = re.compile(r"^(?:RESUMO|Resumo|ABSTRACT|Abstract|RESUMEN|Resumen)\s*[:–-]\s*\S")
"""An abstract run into its heading's line: "RESUMO: A compreensão e aplicação do Direito ..."."""
OPENING = {
    "doutrina": "abertura",
    "jurisprudencia_compilada": "abertura",
    "ato_normativo": "preambulo",
    "ato_administrativo": "preambulo",
}
"""What the part before the first heading is called by type, where it is no caption of a case: a work's title,
authors and abstract ("abertura"), an act's title, ementa and enacting formula ("preambulo"); "cabecalho" else."""

# A judgment of the Court of Justice of the European Union (or its General Court), in Portuguese or English, has none
# of a Brazilian acórdão's parts: no ementa, and "Acórdão" heads the whole judgment, not the short "acordam" that
# records the result. Read as an acórdão, Asturcom (C-40/08, ../shared/archive i1093) had its list of representatives
# called an ementa, its legal framework and referred questions called "o acórdão (resultado do julgamento)", and a
# quoted provision's "5. O recurso de anulação ..." taken for a heading; Mostaza Claro (C-168/05, i1091) one "corpo".
# Its own headings name its parts: the report (legal context, the dispute, the questions referred), the Court's
# reasoning ("Quanto à questão prejudicial", "The question referred", "Costs"), and the ruling ("Pelos fundamentos
# expostos, o Tribunal de Justiça ... declara:").
_EU_JUDGMENT_TITLE = re.compile(
    r"^(?:ACORDAO DO TRIBUNAL (?:DE JUSTICA|GERAL) (?:\([^)]*(?:Seccao|Pleno)\)|DAS COMUNIDADES EUROPEIAS)"
    r"|JUDGMENT OF THE (?:GENERAL )?COURT (?:\([^)]*(?:Chamber|Court)\)|OF JUSTICE))"
)
_EU_JUDGMENT_OPENING = re.compile(r"^(?:Acordao|Judgment)$")
_EU_JUDGMENT_REPORT = re.compile(
    r"^(?:Quadro juridico|(?:Regulamentacao|Legislacao|Direito) (?:comunitari[ao]|da Uniao|nacional|internacional)"
    r"|Litigio no processo principal.*|Antecedentes do litigio.*|Tramitacao processual.*|Questo(?:es|ao) prejudicia.*"
    r"|Legal (?:context|framework)|(?:Community|European Union|EU|National|International) (?:legislation|law)"
    r"|The dispute in the main proceedings.*|The main proceedings.*|Background to the dispute.*|Procedure.*)$"
)
_EU_JUDGMENT_REASONS = re.compile(
    r"^(?:Quanto (?:a|ao|as|aos) .+|Observacoes preliminares|Consideration of the questions? referred.*"
    r"|The questions? referred(?: for a preliminary ruling)?|Preliminary (?:observations|remarks)"
    r"|Findings of the Court|Admissibility.*|Substance|Costs|Despesas)$"
)
_EU_JUDGMENT_RULING = re.compile(r"^(?:Pelos fundamentos expostos|On those grounds)\b")
_VOTES = frozenset({"voto", "voto_vencido", "voto_vista", "voto_vogal"})
_BODIES = _VOTES | {"fundamentacao", "decisao", "direito"}

_ROMAN = r"(?=[IVXLC])C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?![A-Za-z])"
_NUMBERING = re.compile(r"^(?:" + _ROMAN + r"|\d{1,2}(?:\.\d{1,2})*|[a-z](?:\.\d{1,2})?)\s*[-–—.)]?\s+(?=\S)")
_ROMAN_HEAD = re.compile(r"^(?P<num>" + _ROMAN + r")(?:\s*[-–—.)]\s*|\s+)(?P<title>\S.*)$")
_ROMAN_ALONE = re.compile(r"^" + _ROMAN + r"\s*[-–—.)]?$")
_DECIMAL_HEAD = re.compile(
    r"^(?P<num>\d{1,2}(?:\.\d{1,2}){1,3}\.?|\d{1,2}(?:\.|\)|\s*[-–—]))\s*(?:[-–—)]\s*)?(?P<title>[A-Z\"“'(].*)$"
)
_BARE_DECIMAL_HEAD = re.compile(r"^(?P<num>\d{1,2}(?:\.\d{1,2}){0,3})\s+(?P<title>[A-Z][^\n]{2,100})$")
"""A work's heading numbered without a stop, as ABNT journals print them: "1 Introdução", "2.1 O modelo dispositivo"."""
_CONTENTS_ENTRY = re.compile(r"(?:\.\s?){5,}\s*\d{1,4}$")
"""A line of a table of contents, its page number after dot leaders: "1. INTRODUÇÃO........ 07"."""
_LETTER_HEAD = re.compile(r"^(?P<num>[a-z](?:\.\d{1,2})?)\)\s+(?P<title>\S.*)$")
_PAREN_HEAD = re.compile(r"^\((?P<num>[ivxlc]{1,6}|[a-z])\)\s+(?P<title>D[oa]s?\s.*)$")
_CAPS_HEAD = re.compile(r"^(?:DOS?|DAS?)\s+[A-Z].*$")
_STF_ROLES = r"(?:EMBTE|EMBDO|RECTE|RECDO|AGTE|AGDO|INTDO|ADV|PROC|IMPTE|IMPDO|REQTE|REQDO|PACTE|LIT\.PAS)\."
"""The STF caption's abbreviated roles ("EMBTE.(S)", "PROC.(A/S)(ES)"), each value on the line after its label."""
_PARTY_LINE = re.compile(r"\((?:A/S|ES)\)|\b" + _STF_ROLES)
"""A party of the STF's caption ("DOS ESTADOS E DO DISTRITO FEDERAL - CONPEG PROC.(A/S)(ES) :VIVIANE ..."): not a
heading, though it opens with "DOS" in capitals."""
_CAPTION = re.compile(
    r"^(?:(?:AgInt|AgRg|EDcl|AgR|ED)\s+n[oa]s?\s+)*(?:RECURSO|AGRAVO|APELACAO|EMBARGOS|HABEAS|MANDADO|ACAO|RECLAMACAO|"
    r"CONFLITO|REVISAO|PETICAO|MEDIDA|SUSPENSAO|TUTELA|ARGUICAO|EXECUCAO|REMESSA|INCIDENTE|PEDIDO|HOMOLOGACAO|"
    r"SENTENCA ESTRANGEIRA)\b[A-Z ]{0,80}?\s+N[º°o.]{0,2}\s*:?\s*\d"
)
_ROLE_LINE = re.compile(
    r"^(?:RECORRENTE|RECORRID[OA]|AGRAVANTE|AGRAVAD[OA]|APELANTE|APELAD[OA]|EMBARGANTE|EMBARGAD[OA]|IMPETRANTE|"
    r"IMPETRAD[OA]|AUTORA?|REU|RE|REQUERENTE|REQUERID[OA]|INTERESSAD[OA]|INTERES\.|ORIGEM|RELATORA?|ADVOGAD[OA]S?|"
    r"PROCURADOR(?:ES|A)?|PACIENTE|EXEQUENTE|EXECUTAD[OA]|JUIZO|LITISCONSORTE)\b[^\n]*"
    r"|^(?:" + _STF_ROLES + r"|AM\. CURIAE\.|:)",  # the STF's, and its values (":SINDICATO ...")
    re.I,
)
_DISPOSITIVO = re.compile(
    r"^(?:Ante\s+o\s+exposto|Diante\s+do\s+exposto|Pelo\s+exposto|Por\s+todo\s+o\s+exposto|Em\s+face\s+do\s+exposto|"
    r"Isto\s+posto|Isso\s+posto|Posto\s+isso|Ex\s+positis|Forte\s+(?:nessas|em\s+tais)\s+razoes|"
    r"Por\s+(?:tais|essas|estas)\s+(?:razoes|motivos|fundamentos)|Com\s+essas\s+consideracoes|Em\s+arremate|"
    r"(?:Assim|Dessa\s+forma|Portanto)\s*,\s*(?-i:JULGO|DECLARO|CONDENO|HOMOLOGO|EXTINGO|DEFIRO|INDEFIRO|CONCEDO|"
    r"DENEGO|REJEITO|ACOLHO|NEGO|DOU|CONHECO))\b|^(?-i:JULGO|DECLARO|CONDENO|HOMOLOGO|EXTINGO)\s",
    re.I,
)
_VISTOS = re.compile(r"^Vistos\b", re.I)
_END_OF_REPORT = re.compile(
    r"\bE\s+o\s+(?:breve\s+)?relatorio\b|\bBrevemente\s+relatado\b|\bRelatados?,?\s+decido\b", re.I
)
_FOOTNOTE_RULE = re.compile(r"^_{5,}\s*$")
_FOOTNOTE = re.compile(r"^\[?\d{1,3}\]?\s+\S")
_MAIL_FROM = re.compile(r"^(?:De|From|Remetente)\s*:", re.I)
_MAIL_OTHER = re.compile(r"^(?:Para|To|Assunto|Subject|Cc|Enviad[oa](?:\s+em)?|Sent|Data|Date)\s*:", re.I)
_STRUCTURE = re.compile(
    r"^(?P<kind>LIVRO|PARTE|TITULO|CAPITULO|SECAO|SUBSECAO)\s+(?P<num>[IVXLC]+|UNIC[OA]|\d+|GERAL|ESPECIAL)\b\s*[-–—.]?\s*(?P<rest>.*)$",
    re.I,
)
_STRUCTURE_LEVEL = {"LIVRO": 0, "PARTE": 0, "TITULO": 1, "CAPITULO": 2, "SECAO": 3, "SUBSECAO": 4}
_ARTICLE = re.compile(r"^Art\.?\s*(?P<n>\d{1,4}(?:\.\d{3})?)\s*(?P<ord>[º°o])?(?P<suffix>-[A-Z])?\s*[.\-–]?\s")
_PARAGRAPH = re.compile(
    r"^(?:§\s*(?P<n>\d{1,3})\s*[º°o]?(?:-[A-Z])?|(?P<unico>Paragrafo\s+unico)|Paragrafo\s+(?P<word>\w+))\b", re.I
)
_CLAUSE = re.compile(
    r"^CLAUSULA\s+(?P<num>[A-Z0-9ºª]+(?:\s+(?:PRIMEIRA|SEGUNDA|TERCEIRA|QUARTA|QUINTA|SEXTA|SETIMA|OITAVA|NONA))?)\b(?P<rest>.*)$",
    re.I,
)
_CONSIDERANDO = re.compile(r"^CONSIDERANDO\b", re.I)
_EU_STRUCTURE = re.compile(r"^(?P<kind>CHAPTER|TITLE|SECTION|PART)\s+(?P<num>[IVXLC]+|\d+)\s*[-–—.]?\s*(?P<rest>.*)$")
_EU_ARTICLE = re.compile(r"^(?P<word>Article|Artigo)\s+(?P<n>\d{1,3})\s*(?:\.\s*[º°o]|[º°o])?\s*$")
_EU_PARAGRAPH = re.compile(r"^(?P<n>\d{1,2})\.(?:\s+(?=\S)|\s*$)")
_POINT = re.compile(r"^\((?P<p>[a-z]{1,2}|[ivx]{1,5})\)(?:\s+(?=\S)|\s*$)")
_INCISO = re.compile(r"^(?P<n>" + _ROMAN + r")\s*[-–—]\s*(?=\S)")
_ALINEA = re.compile(r"^(?P<l>[a-z])\)\s+(?=\S)")
_LEVEL_ARTICLE, _LEVEL_PARAGRAPH, _LEVEL_INCISO, _LEVEL_ALINEA = 6, 7, 8, 9
# Compilations of case law: an edition's heading, its numbered teses (each followed by the precedents it rests
# on), an informativo's court sections and "PROCESSO" notes, an ementário's "Processo Nº" entries.
_EDITION = re.compile(r"^EDICAO\s+N[º°o.]*\s*\d+\s*:")
_TESE = re.compile(r"^(?P<n>\d{1,3})\s*[.)]\s+(?=[A-Z])")
_PRECEDENTS = re.compile(r"^(?:Julgados|Acordaos|Precedentes|Decisoes\s+Monocraticas)\s*:", re.I)
_INFORMATIVO_SECTION = re.compile(
    r"^(?:RECURSOS\s+REPETITIVOS|CORTE\s+ESPECIAL|PLENARIO|REPERCUSSAO\s+GERAL|"
    r"(?:PRIMEIRA|SEGUNDA|TERCEIRA|QUARTA|QUINTA|SEXTA)\s+(?:SECAO|TURMA))$"
)
_NOTE_ENTRY = re.compile(r"^Processo(?:\s+[A-Z][a-z]+)?\s+N[º°o.]*\s*[\d.\-/]{3,}")


def _compact(text: str) -> str:
    return re.sub(r"[^A-Z]", "", fold(text).upper())


@dataclass
class _Line:
    start: int
    end: int
    text: str  # stripped, without a leading page number, accent-folded
    raw: str  # stripped original
    page: int


def _lines(text: str, pages: list[Page], page_starts: list[int]) -> list[_Line]:
    out = []
    for match in re.finditer(r"[^\n]+", text):
        raw = match.group().strip()
        if not raw or raw == "\f":
            continue
        page = pages[bisect.bisect_right(page_starts, match.start()) - 1].number
        body = raw
        lead = re.match(r"(\d{1,4})\s+(?=\S)", body)
        if lead and int(lead.group(1)) == page:
            body = body[lead.end() :]  # "14 c.2) Tratamento ..." on page 14: a page number run into the line
        out.append(_Line(match.start(), match.end(), fold(body), body, page))
    return out


def _fragment(line: _Line | None) -> bool:
    """One upper-case word on a line of its own: a piece of an ementa broken word by word (a justified
    ementa set in a narrow column)."""
    return (
        line is not None
        and len(line.text.split()) == 1
        and bool(re.search(r"[A-Z]{2}", line.text))
        and not re.search(r"[a-z]", line.text)
    )


_REFERENCE = re.compile(
    r"\b(?:Acesso em|Disponivel em|Available at|Accessed on)\b|https?://|www\.|"
    r"\b\d{1,2}\s+(?:jan|fev|mar|abr|mai|jun|jul|ago|set|out|nov|dez)\.?\s+\d{4}\b",
    re.I,
)
"""A bibliographic reference's tail ("2. Acesso em: 08 dez. 2020."): a footnote's URL wrapped before its last
digit left it at the head of a line (USP dissertation i1074, whose every page below p. 23 sat under it)."""
_DANGLING = re.compile(
    r"\b(?:a|o|as|os|de|do|da|dos|das|em|no|na|nos|nas|e|ou|que|para|por|pelo|pela|com|ao|aos|um|uma|se)$", re.I
)
"""A line that stops on an article, preposition or conjunction is a sentence wrapped mid-way, never a title:
"i) que seja conferida interpretação de que a" (a request listed in an STF relatório, i277)."""


def _not_a_title(title: str, previous: _Line | None, item: bool) -> bool:
    """A numbered or lettered line that cannot be a heading: a reference's tail, a sentence wrapped mid-way, or,
    for a one-level number or a letter (`item`), an item of a list its previous line opens ("... para:") or
    continues ("...;"). A deeper number after a colon stays a heading ("... as seguintes premissas:" / "1.1.
    Premissas", STF i278), and so does any number after a speaker's line in capitals."""
    text = fold(title).rstrip()
    return bool(
        _REFERENCE.search(text)
        or _DANGLING.search(text)
        or text.endswith("-")  # a word broken over the line: "d) Pode ainda o terceiro negar que o docu-"
        or (
            item
            and previous is not None
            and previous.text.rstrip().endswith((":", ";"))
            and any(c.islower() for c in previous.text)  # not a speaker: "O SENHOR MINISTRO ... (RELATOR):"
        )
    )


def _sentence_like(title: str) -> bool:
    """A numbered line that reads as a sentence of a list rather than a title."""
    return title.rstrip().endswith(".") and len(title.split()) > 3 or len(title.split()) > 8


def _label(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" :")
    if len(text) <= LABEL_MAX:
        return text
    return text[: LABEL_MAX - 1].rsplit(" ", 1)[0] + "…"


class _Detector:
    def __init__(self, lines: list[_Line], document_type: str) -> None:
        self.lines = lines
        self.type = document_type
        self.events: dict[int, tuple[str, ...]] = {}  # line index -> ("top", code) | ("sub", style, label) ...
        self.implicit: set[int] = set()  # parts that start without a heading line (prose)
        self.standalone: set[int] = set()  # units that are passages of their own (teses, notes)
        self.eu_articles: set[int] = set()  # "Article 3" / "Artigo 3.º" lines: paragraphs "1." and points "(a)" follow
        self.chapter: int | None = None  # a work of doctrine's last chapter number ("3 A PROVA DOCUMENTAL")

    # ---- helpers

    def prev(self, i: int) -> _Line | None:
        return self.lines[i - 1] if i > 0 else None

    def next(self, i: int) -> _Line | None:
        return self.lines[i + 1] if i + 1 < len(self.lines) else None

    def catalogue(self, i: int) -> str | None:
        """The top-level code a heading line names, or None."""
        line = self.lines[i]
        text = line.text
        if self.type == "doutrina" and _INLINE_ABSTRACT.match(line.raw):
            return "resumo"
        previous = self.prev(i)
        if self.type == "acordao" and (previous is None or previous.page != line.page):
            stf = next((code for pattern, code in _STF_PARTS_RE if pattern.fullmatch(text)), None)
            if stf:
                return stf
        if len(text) > 100 or _CONTENTS_ENTRY.search(text):
            return None
        spaced = re.fullmatch(r"(?:\w ){2,}\w", text) is not None  # "V O T O": set out, no "V" numbering it
        body = _NUMBERING.sub("", text, count=1) if _NUMBERING.match(text) and not spaced else text
        inline = None
        if re.match(r"^E\s?M\s?E\s?N\s?T\s?A\s*[:–-]", body, re.I):
            inline = "ementa"
        key = _compact(body)
        code = inline or next((c for p, c in _CATALOGUE_RE if p.fullmatch(key)), None)
        if code is None or (
            not inline and re.search(r"[a-z]{3}", body) and not re.fullmatch(r"[A-Z][a-z]+", body.strip(" :."))
        ):
            return None
        if code in _ACORDAO_ONLY and self.type != "acordao":
            return None
        if code in _ACT_ONLY and self.type not in ("ato_administrativo", "ato_normativo"):
            return None
        if code in _DOCTRINE_ONLY and self.type != "doutrina":
            return None
        if code == "decisao" and self.type in ("acordao", "peticao", "parecer"):
            return None
        if not spaced and (_fragment(self.prev(i)) or _fragment(self.next(i))):
            return None  # a word of an ementa broken word by word (a heading set out letter by letter never is)
        nxt = self.next(i)
        if nxt is not None and nxt.text.startswith(":"):
            return None  # a caption's label, its value on the next line ("REDATOR DO" / "ACÓRDÃO" / ": MIN. ...")
        return code

    def subheading(self, i: int, in_ementa: bool) -> tuple[str, str, int] | None:
        """(style, label, lines used) of a numbered, lettered or upper-case sub-heading at line i."""
        line = self.lines[i]
        text, raw = line.text, line.raw
        nxt = self.next(i)
        if (_fragment(self.prev(i)) and _fragment(nxt)) or _CONTENTS_ENTRY.search(text):
            return None
        if _ROMAN_ALONE.match(text) and nxt is not None and self._caps_title(nxt.text):
            label, used = self._join_caps(i + 1)
            return "roman", f"{raw.rstrip(' -–—.)')} – {label}", used + 1
        match = _ROMAN_HEAD.match(text)
        if match:
            title = match["title"]
            if self._caps_title(title) or (re.match(r"D[oa]s?\s", title) and self._short_title(title, 22)):
                label, used = self._join_caps(i) if self._caps_title(title) else (raw, 1)
                return "roman", label, used
            return None
        if in_ementa:
            return None
        match = _PAREN_HEAD.match(text)
        if match and self._short_title(match["title"], 20):
            return "paren", raw, 1
        bare = self.type == "doutrina" and not _DECIMAL_HEAD.match(text)
        match = _BARE_DECIMAL_HEAD.match(text) if bare else _DECIMAL_HEAD.match(text)
        if match and int(re.match(r"\d+", match["num"]).group()) <= 20:
            title = match["title"]
            caps = self._caps_title(title)
            deep = "." in match["num"].rstrip(".")
            plain = (
                self._short_title(title, 15)
                and ("," not in title or deep)
                and not _not_a_title(title, self.prev(i), item=not deep)
                # an ABNT heading ("1 Introdução") never ends on a full stop; a footnote ("7 Abordaremos as
                # teorias ... em nosso Capítulo 1.", USP i1074) does
                and not (bare and title.rstrip().endswith("."))
            )
            heading = (caps or plain) and not self._in_list(i, match["num"], _sentence_like(title))
            if heading and (caps or self._prose_follows(i)):
                label, used = self._join_caps(i) if caps else (raw, 1)
                return f"dec{match['num'].rstrip('.)-–— ').count('.') + 1}", label, used
            return None
        match = _LETTER_HEAD.match(text)
        if match:
            title = match["title"]
            if (
                self._short_title(title, 16)
                and not title.rstrip().endswith(".")
                and not ("," in title and len(title.split()) >= 10)  # a sentence run on: an exam's options (i1038)
                and not _not_a_title(title, self.prev(i), item=True)
                and self._prose_follows(i)
            ):
                return ("letterdec" if "." in match["num"] else "letter"), raw, 1
            return None
        caps_heading = (
            _CAPS_HEAD.match(text)
            and self._caps_title(text)
            and 3 <= len(text.split()) <= 15
            and not _PARTY_LINE.search(text)
            and not (nxt is not None and _PARTY_LINE.search(nxt.text))  # a party's name wrapped over its lines
        )
        if caps_heading and not text.endswith(".") and self._prose_follows(i) and not self._caps_runs_on(i):
            label, used = self._join_caps(i)
            return "caps", label, used
        return None

    def _caps_runs_on(self, i: int) -> bool:
        """Whether line i goes on with the capitals line before it, a sentence not finished and no heading of its
        own: an ementa in capitals quoted in a relatório ("... NECESSIDADE DE AMPLIAÇÃO" / "DO DIÁLOGO, DADA A
        COMPLEXIDADE DO TEMA, ...", STF i277, whose pages 9-31 sat under that "heading")."""
        previous = self.prev(i)
        return (
            previous is not None
            and i - 1 not in self.events
            and self._caps_title(previous.text)
            and not re.search(r"[.:;!?]\W*$", previous.text)
        )

    @staticmethod
    def _caps_title(text: str) -> bool:
        letters = [c for c in text if c.isalpha()]
        return len(letters) >= 4 and not any(c.islower() for c in letters) and len(text) <= 150

    @staticmethod
    def _short_title(text: str, words: int) -> bool:
        return len(text) <= 150 and len(text.split()) <= words and not re.search(r"[;,:]$", text.strip())

    def _in_list(self, i: int, num: str, sentence: bool) -> bool:
        """Whether a numbered line is an item of a numbered list (a quoted ementa's "1. ... 2. Recurso
        especial provido."): a line numbered n ± 1 within a few lines, one of the two reading as a
        sentence rather than a title."""
        if "." in num.rstrip(".)-–— "):
            return False
        n = int(re.match(r"\d+", num).group())
        for j in range(max(0, i - LIST_WINDOW), min(len(self.lines), i + LIST_WINDOW + 1)):
            other = re.match(r"^(\d{1,2})\s*[.)]-?\s+(.*)$", self.lines[j].text)
            if j != i and other and abs(int(other.group(1)) - n) == 1 and (sentence or _sentence_like(other.group(2))):
                return True
        return False

    def _prose_follows(self, i: int) -> bool:
        """Whether the next line can follow a heading: prose opening a paragraph, or a deeper heading."""
        nxt = self.next(i)
        return nxt is None or bool(re.match(r"[\"“'A-Z0-9]|[a-z](?:\.\d{1,2})?\)\s", nxt.text))

    def _join_caps(self, i: int) -> tuple[str, int]:
        """An upper-case heading wrapped over up to three lines, joined."""
        parts, used = [self.lines[i].raw], 1
        while used < 3 and i + used < len(self.lines):
            line = self.lines[i + used]
            if not self._caps_title(line.text) or _NUMBERING.match(line.text) or self.catalogue(i + used):
                break
            parts.append(line.raw)
            used += 1
        return _label(" ".join(parts)), used

    # ---- passes

    def run(self) -> list[tuple[int, tuple[str, ...]]]:
        if self.type == "acordao" and any(_EU_JUDGMENT_TITLE.match(line.text) for line in self.lines[:8]):
            self._european_judgment()
            self._footnotes()
            return sorted(self.events.items())
        if self.type == "email":
            self._email()
        elif self.type in ("ato_normativo", "ato_administrativo", "contrato"):
            self._units()
        elif self.type == "jurisprudencia_compilada":
            self._compilation()
        if not self.standalone:  # a compilation's entries print "EMENTA:" each: no top-level parts there
            self._tops()
        if self.type == "acordao":
            self._captions()
            self._implicit_ementa()
        if self.type in ("sentenca", "decisao_monocratica", "despacho"):
            self._report_split()
        self._footnotes()
        self._plausible()
        self._subs_and_dispositivo()
        return sorted(self.events.items())

    def _plausible(self) -> None:
        """Drop top-level headings that cannot be where they are: an ementa after the body has begun
        (an ementa quoted in a vote), a second certificate heading inside the certificate, and in a work of
        doctrine a heading its next line follows with another heading (its contents line: "4 CONCLUSÃO.
        REFERÊNCIAS BIBLIOGRÁFICAS", printed before the abstract)."""
        if self.type == "doutrina":
            for i in sorted(self.events):
                nxt = self.next(i)
                listed = nxt is not None and any(
                    p.fullmatch(_compact(_NUMBERING.sub("", nxt.text))) for p, _ in _CATALOGUE_RE
                )
                contents = self.events.get(i + 1, ("",))[0] == "top" or listed
                if self.events[i][0] == "top" and contents and not _INLINE_ABSTRACT.match(self.lines[i].raw):
                    del self.events[i]
        current = None
        body_started = False
        for i in sorted(self.events):
            event = self.events[i]
            if event[0] != "top":
                continue
            code = event[1]
            if code == "ementa" and body_started:
                del self.events[i]
                continue
            if code == "certidao" and current == "certidao":
                del self.events[i]
                continue
            if code == "cabecalho":
                body_started = False
            elif code != "ementa":
                body_started = True
            current = code

    def _tops(self) -> None:
        for i in range(len(self.lines)):
            if i in self.events:
                continue
            code = self.catalogue(i)
            if code:
                self.events[i] = ("top", code)

    def _captions(self) -> None:
        """The case caption repeated at the head of each part of an acórdão."""
        heads = sorted(i for i, e in self.events.items() if e[0] == "top")
        for i, line in enumerate(self.lines):
            if i == 0 or i in self.events or not _CAPTION.match(line.text):
                continue
            k = bisect.bisect_right(heads, i)
            if k < len(heads) and heads[k] - i <= 30 and all(j not in self.events for j in range(i, heads[k])):
                self.events[i] = ("top", "cabecalho")

    def _implicit_ementa(self) -> None:
        """An ementa printed without its heading: the block between the caption and "ACÓRDÃO"."""
        tops = sorted((i, e[1]) for i, e in self.events.items() if e[0] == "top")
        first_acordao = next((i for i, code in tops if code == "acordao"), None)
        if first_acordao is None or any(code == "ementa" for i, code in tops if i < first_acordao):
            return
        start = max((i for i, code in tops if i < first_acordao), default=-1) + 1
        roles = [i for i in range(start, first_acordao) if _ROLE_LINE.match(self.lines[i].text)]
        if not roles:
            return
        begin = roles[-1] + 1
        words = sum(len(self.lines[j].text.split()) for j in range(begin, first_acordao))
        if begin < first_acordao and words >= 15:
            self.events[begin] = ("top", "ementa")
            self.implicit.add(begin)

    def _report_split(self) -> None:
        """Sentenças and decisões: relatório from "Vistos" (or the first part) to "É o relatório"."""
        if any(e[:2] == ("top", "relatorio") for e in self.events.values()):
            return
        end = next((i for i, line in enumerate(self.lines) if _END_OF_REPORT.search(line.text)), None)
        if end is None:
            return
        vistos = next((i for i in range(end + 1) if _VISTOS.match(self.lines[i].text)), None)
        if vistos is None:
            firsts = [i for i, e in self.events.items() if e[0] == "top" and i <= end]
            vistos = max(firsts) if firsts else None
        if vistos is None:
            return
        self.events[vistos] = ("top", "relatorio")
        self.implicit.add(vistos)
        if end + 1 < len(self.lines) and end + 1 not in self.events:
            self.events[end + 1] = ("top", "fundamentacao")
            self.implicit.add(end + 1)

    def _european_judgment(self) -> None:
        """A CJEU judgment's parts from its own headings (see _EU_JUDGMENT_TITLE): what comes before "Acórdão" is
        the caption, then the report, the Court's reasoning and the ruling; each heading of the report or the
        reasoning a sub-part of it. A heading is a short line of its own, never a sentence of the text."""
        part = "cabecalho"
        for i, line in enumerate(self.lines):
            text = line.text
            heading = len(text.split()) <= 14 and not re.search(r"[.;:,»”’]$", text)
            if part == "cabecalho" and heading and _EU_JUDGMENT_OPENING.match(text):
                part = "relatorio"
                self.events[i] = ("top", part)
            elif part != "cabecalho" and _EU_JUDGMENT_RULING.match(text):
                part = "dispositivo"
                self.events[i] = ("top", part)
            elif part in ("relatorio", "fundamentacao") and heading and _EU_JUDGMENT_REASONS.match(text):
                if part == "relatorio":  # the reasoning begins under its first heading: "fundamentacao > Quanto à ..."
                    part = "fundamentacao"
                    self.events[i] = ("top", part, _label(line.raw))
                else:
                    self.events[i] = ("sub", "eu", _label(line.raw))
            elif part == "relatorio" and heading and _EU_JUDGMENT_REPORT.match(text):
                self.events[i] = ("sub", "eu", _label(line.raw))

    def _footnotes(self) -> None:
        for i, line in enumerate(self.lines[:-1]):
            if _FOOTNOTE_RULE.match(line.text) and _FOOTNOTE.match(self.lines[i + 1].text):
                self.events[i] = ("top", "notas")

    def _email(self) -> None:
        count = 0
        for i, line in enumerate(self.lines):
            if _MAIL_FROM.match(line.text) and any(_MAIL_OTHER.match(o.text) for o in self.lines[i + 1 : i + 7]):
                count += 1
                self.events[i] = ("top", f"mensagem {count}")

    def _units(self) -> None:
        """Statute and contract units: structural headings, articles, clauses and their paragraphs."""
        in_decide = False
        for i, line in enumerate(self.lines):
            text = line.text
            if self.type == "ato_administrativo":
                if _CONSIDERANDO.match(text):
                    if not (i > 0 and self.events.get(i - 1, ("",))[:2] == ("top", "considerandos")):
                        prev_top = self._last_top(i)
                        if prev_top != "considerandos":
                            self.events[i] = ("top", "considerandos")
                    continue
                if self.catalogue(i) == "decide":
                    self.events[i] = ("top", "decide")
                    in_decide = True
                    continue
            structure = _STRUCTURE.match(text)
            if structure and self.type != "contrato":
                kind = _compact(structure["kind"])
                label = f"{line.raw.split()[0].capitalize()} {structure['num']}"
                rest = structure["rest"].strip()
                nxt = self.next(i)
                if not rest and nxt is not None and self._caps_title(nxt.text) and not _ARTICLE.match(nxt.text):
                    rest = nxt.raw
                label = _label(f"{label} – {rest}" if rest else label)
                self.events[i] = ("unit", str(_STRUCTURE_LEVEL[kind]), label)
                continue
            eu_structure = _EU_STRUCTURE.match(text)
            if eu_structure and self.type == "ato_normativo":
                kind = {"PART": "PARTE", "TITLE": "TITULO", "CHAPTER": "CAPITULO", "SECTION": "SECAO"}[
                    eu_structure["kind"]
                ]
                rest = eu_structure["rest"].strip()
                nxt = self.next(i)
                if not rest and nxt is not None and self._caps_title(nxt.text):
                    rest = nxt.raw
                label = f"{eu_structure['kind'].capitalize()} {eu_structure['num']}"
                self.events[i] = ("unit", str(_STRUCTURE_LEVEL[kind]), _label(f"{label} – {rest}" if rest else label))
                continue
            eu_article = _EU_ARTICLE.match(text)
            if eu_article and self.type == "ato_normativo":
                word = line.raw.split()[0]
                label = f"{word} {eu_article['n']}" + (".º" if word.startswith("Artigo") else "")
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), label, "decide" if in_decide else "")
                self.eu_articles.add(i)
                continue
            level = self._last_unit_level(i)
            in_eu = self._last_article_kind(i) == "eu"
            if in_eu and level is not None and (paragraph := _EU_PARAGRAPH.match(text)):
                self.events[i] = ("unit", str(_LEVEL_PARAGRAPH), f"{paragraph['n']}.")
                continue
            if in_eu and level is not None and (point := _POINT.match(text)):
                self.events[i] = ("unit", str(_LEVEL_INCISO), f"({point['p']})")
                continue
            if self.type != "contrato" and level is not None and not in_eu:
                inciso = _INCISO.match(text)
                if inciso and not _ARTICLE.match(text):
                    self.events[i] = ("unit", str(_LEVEL_INCISO), inciso["n"], "decide" if in_decide else "")
                    continue
                alinea = _ALINEA.match(text)
                if alinea and level >= _LEVEL_INCISO:
                    self.events[i] = ("unit", str(_LEVEL_ALINEA), f"{alinea['l']})", "decide" if in_decide else "")
                    continue
            article = _ARTICLE.match(text)
            if article and self.type != "contrato":
                n = int(article["n"].replace(".", ""))
                label = f"Art. {article['n']}{'º' if n < 10 else ''}{article['suffix'] or ''}"
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), label, "decide" if in_decide else "")
                continue
            clause = _CLAUSE.match(text)
            if clause and self.type == "contrato":
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), _label(line.raw))
                continue
            paragraph = _PARAGRAPH.match(text)
            if paragraph and self._last_unit_level(i) is not None:
                if paragraph["n"]:
                    n = int(paragraph["n"])
                    label = f"§ {n}{'º' if n < 10 else ''}"
                else:
                    label = "Parágrafo único" if paragraph["unico"] else f"Parágrafo {paragraph['word'].lower()}"
                self.events[i] = ("unit", str(_LEVEL_PARAGRAPH), label, "decide" if in_decide else "")

    def _out_of_sequence(self, i: int, style: str) -> bool:
        """In a work of doctrine, a chapter heading ("4 A JURISDIÇÃO DIGITAL") numbers on from the last one: a
        footnote set at a page's foot ("17 BRASIL. ITI. Estrutura da ICP-Brasil. Disponível em: ..."), a second "3"
        ("3 Comentários ao código de processo civil. Tomo IV.") or a list restarting at "1." inside a chapter is no
        heading. Across the archive's works, such lines had become chapters of their own on the cards' places (i332,
        i432, i1046, i287). self.chapter holds the last accepted number and is updated here."""
        if self.type != "doutrina" or style != "dec1":
            return False
        n = int(re.match(r"\d+", self.lines[i].text).group())
        if self.chapter is not None and n != self.chapter + 1:
            return True
        self.chapter = n
        return False

    def _last_article_kind(self, i: int) -> str | None:
        """ "eu" when the article above line i is an EU act's ("Article 3"), "" for a Brazilian one, None before any."""
        for j in range(i - 1, -1, -1):
            event = self.events.get(j)
            if event and event[0] == "unit" and int(event[1]) == _LEVEL_ARTICLE:
                return "eu" if j in self.eu_articles else ""
        return None

    def _compilation(self) -> None:
        """Each tese, informativo note or ementário entry a unit of its own, under its edition or court section.

        A numbered line opens a tese only when the precedents it rests on ("Julgados: ...") follow before the
        next numbered line: a quoted ementa's "1. ... 2. ..." stays inside its tese.
        """
        numbered = [i for i, line in enumerate(self.lines) if _TESE.match(line.text)]
        precedents = [i for i, line in enumerate(self.lines) if _PRECEDENTS.match(line.text)]
        for k, i in enumerate(numbered):
            end = numbered[k + 1] if k + 1 < len(numbered) else len(self.lines)
            if any(i < j < end for j in precedents):
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), f"Tese {_TESE.match(self.lines[i].text)['n']}")
                self.standalone.add(i)
        for i, line in enumerate(self.lines):
            text = line.text
            if _EDITION.match(text):
                label, _ = self._join_caps(i)
                self.events[i] = ("unit", "1", label)
            elif _INFORMATIVO_SECTION.match(text):
                self.events[i] = ("unit", "1", line.raw.title())
            elif _compact(text) == "PROCESSO" and self.next(i) is not None:
                case = re.split(r",|\s+Rel\.", self.next(i).raw)[0].strip()
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), _label(f"Processo {case}"))
                self.standalone.add(i)
            elif _NOTE_ENTRY.match(text):
                self.events[i] = ("unit", str(_LEVEL_ARTICLE), _label(re.split(r"\s+[-–—]\s+", line.raw)[0]))
                self.standalone.add(i)

    def _last_top(self, i: int) -> str | None:
        for j in range(i - 1, -1, -1):
            event = self.events.get(j)
            if event and event[0] == "top":
                return event[1]
        return None

    def _last_unit_level(self, i: int) -> int | None:
        for j in range(i - 1, -1, -1):
            event = self.events.get(j)
            if event and event[0] == "unit":
                return int(event[1])
        return None

    def _subs_and_dispositivo(self) -> None:
        """Sub-headings inside each top-level part, and the dispositivo of decisions."""
        tops = sorted(i for i, e in self.events.items() if e[0] in ("top", "unit"))
        bounds = [*tops, len(self.lines)]
        regions = [(0, bounds[0], "cabecalho")] if bounds[0] > 0 else []
        regions += [(bounds[k], bounds[k + 1], self.events[bounds[k]][1]) for k in range(len(tops))]
        for start, end, code in regions:
            if self.events.get(start, ("",))[0] == "unit":
                continue
            i = start + 1 if start in self.events else start
            if code == "introducao":
                self.chapter = None  # the body begins: a contents page's "2. A PROVA ..." before it numbers nothing
            # an act's or a decision's opening is its caption; a work's has the headings of its first parts
            # (a caption of a few pages at most: a parecer whose first heading the catalogue knows is on page 35
            # had pages 1-34 called its caption, and a card said "O cabeçalho identifica o caso" of page 16)
            typed_preamble = (
                code == "cabecalho"
                and self.type not in ("outro", "email", "doutrina")
                and self.lines[min(end, len(self.lines)) - 1].page - self.lines[start].page < CAPTION_MAX_PAGES
            )
            while i < end and not typed_preamble:
                if _STRUCTURE.match(self.lines[i].text):
                    self.chapter = None  # "CAPÍTULO II" of a work: its sections number from 1 again
                sub = self.subheading(i, code == "ementa")
                if sub and self._out_of_sequence(i, sub[0]):
                    sub = None
                if sub:
                    style, label, used = sub
                    named = _compact(re.sub(r"^\W*[\w.]{1,6}\W+", "", self.lines[i].text, count=1))
                    if re.fullmatch(r"(?:DO)?DISPOSITIVO", named):
                        self.events[i] = ("sub", "dispositivo", "dispositivo")
                    else:
                        self.events[i] = ("sub", style, label)
                    i += used
                else:
                    i += 1
            if self.type in ("acordao", "sentenca", "decisao_monocratica") and code in _BODIES:
                has = any(self.events.get(j, ("",))[-1:] == ("dispositivo",) for j in range(start, end))
                formula = [j for j in range(start, end) if _DISPOSITIVO.match(self.lines[j].text)]
                if formula and not has and formula[-1] != start:
                    nested = code in _VOTES
                    self.events[formula[-1]] = (
                        ("sub", "dispositivo", "dispositivo") if nested else ("top", "dispositivo")
                    )
                    self.implicit.add(formula[-1])


def detect_sections(pages: list[Page], document_type: str | None = None) -> list[Section]:
    """The sections of the cleaned pages (see the module docstring); [] when there is no text.

    document_type: a code or label ("acordao", "Acórdão"); guessed from the text when None.
    """
    text = PAGE_SEPARATOR.join(p.text for p in pages)
    if not text.strip():
        return []
    code = normalize_document_type(document_type) if document_type else None
    if code is None:
        code = guess_document_type(pages)
    page_starts = list(accumulate((len(p.text) + len(PAGE_SEPARATOR) for p in pages[:-1]), initial=0))
    lines = _lines(text, pages, page_starts)
    detector = _Detector(lines, code)
    events = detector.run()

    starts: list[tuple[int, str, bool, bool]] = []  # (offset, path, starts with a heading line, standalone)
    top, stack, units = "cabecalho" if events and events[0][0] > 0 else "corpo", [], []
    top_style = None  # numbering style of a top level that is itself a sub-heading (documents without parts)
    for index, event in events:
        kind = event[0]
        if kind == "top":
            top, stack, units, top_style = event[1], [], [], None
            if len(event) > 2:  # a part that opens under a heading of its own (a CJEU judgment's reasoning)
                stack = [("eu", event[2])]
        elif kind == "unit":
            level, label = int(event[1]), event[2]
            if len(event) > 3 and event[3] and top != event[3]:
                top, stack = event[3], []
            units = [(lv, lb) for lv, lb in units if lv < level] + [(level, label)]
        elif kind == "sub":
            style, label = event[1], event[2]
            if style == "dispositivo":
                stack = [("dispositivo", "dispositivo")]
            elif (top in _LEADING_PARTS and not stack) or style == top_style:
                top, stack, top_style = label, [], style
                starts.append((lines[index].start, top, True, False))
                continue
            else:
                styles = [s for s, _ in stack]
                if style in styles:
                    stack = stack[: styles.index(style)]
                stack = [*stack, (style, label)]
        parts = [top] if not units or top not in ("cabecalho", "corpo") else []
        parts += [lb for _, lb in units] + [lb for _, lb in stack]
        heading = index not in detector.implicit and not (kind == "unit" and int(event[1]) >= _LEVEL_ARTICLE)
        standalone = index in detector.standalone
        starts.append((lines[index].start, SEPARATOR.join(parts) or top, heading, standalone))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, "cabecalho" if starts else "corpo", False, False))
    if opening := OPENING.get(code):
        starts = [(at, _renamed(path, opening), *rest) for at, path, *rest in starts]  # type: ignore[misc]
    return _finish(text, pages, page_starts, starts)


def _renamed(path: str, opening: str) -> str:
    """The path with its "cabecalho" part called what the type's opening is (OPENING)."""
    top, sep, rest = path.partition(SEPARATOR)
    return f"{opening}{sep}{rest}" if top == "cabecalho" else path


def _finish(
    text: str, pages: list[Page], page_starts: list[int], starts: list[tuple[int, str, bool, bool]]
) -> list[Section]:
    """Sections from their start offsets: heading-only sections merged into a deeper one that follows."""
    merged: list[tuple[int, str, bool, bool]] = []  # (start, path, heading only, standalone)
    for k, (start, path, heading, standalone) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(text)
        body = text[start:end].strip()
        only_heading = heading and ("\n" not in body or (body.count("\n") <= 2 and not re.search(r"[a-z]", fold(body))))
        if merged and merged[-1][2] and path.startswith(merged[-1][1] + SEPARATOR):
            merged[-1] = (merged[-1][0], path, only_heading, standalone)
        else:
            merged.append((start, path, only_heading, standalone))

    def page_of(offset: int) -> int:
        return pages[bisect.bisect_right(page_starts, offset) - 1].number

    sections = []
    for k, (start, path, _, standalone) in enumerate(merged):
        end = merged[k + 1][0] if k + 1 < len(merged) else len(text)
        chunk = text[start:end]
        first = start + (len(chunk) - len(chunk.lstrip()))
        last = start + len(chunk.rstrip()) - 1
        if last < first:
            first = last = start
        sections.append(Section(path, start, end, page_of(first), page_of(max(first, last)), standalone))
    return sections


# What each section code is called in Portuguese: the CLI and the page (lib/format.ts SECTION_LABELS) show these.
SECTION_LABELS = {
    "cabecalho": "Cabeçalho",
    "abertura": "Abertura",
    "preambulo": "Preâmbulo",
    "resumo": "Resumo",
    "introducao": "Introdução",
    "corpo": "Texto",
    "ementa": "Ementa",
    "acordao": "Acórdão",
    "relatorio": "Relatório",
    "voto": "Voto",
    "voto_vencido": "Voto vencido",
    "voto_vista": "Voto-vista",
    "voto_vogal": "Voto vogal",
    "debate": "Debates",
    "certidao": "Certidão de julgamento",
    "dispositivo": "Dispositivo",
    "decisao": "Decisão",
    "fatos": "Fatos",
    "direito": "Direito",
    "fundamentacao": "Fundamentação",
    "preliminar": "Preliminares",
    "pedidos": "Pedidos",
    "conclusao": "Conclusão",
    "decide": "Parte decisória",
    "considerandos": "Considerandos",
    "notas": "Notas",
}


def section_label(path: str | None) -> str:
    """ "voto > II – Da não incidência" -> "Voto › II – Da não incidência": the codes in Portuguese."""
    if not path:
        return ""
    return " › ".join(SECTION_LABELS.get(part.strip(), part.strip()) for part in path.split(" > ") if part.strip())


# Where a passage sits, said as a place after its page ("p. 4, na ementa"): a bare part name beside the type tag
# read as a second type ("Acórdão" tag, then "p. 4 Acórdão", issue 36). The page has the same (lib/format.ts
# SECTION_PLACES). The "acordao" part is the collegiate's judgment after the ementa ("acordam os Ministros ..."),
# named for what it holds, not only for the document it is in.
SECTION_PLACES = {
    "cabecalho": "no cabeçalho",
    "abertura": "na abertura",
    "preambulo": "no preâmbulo",
    "resumo": "no resumo",
    "introducao": "na introdução",
    "corpo": "no texto",
    "ementa": "na ementa",
    "acordao": "no acórdão (resultado do julgamento)",
    "relatorio": "no relatório",
    "voto": "no voto",
    "voto_vencido": "no voto vencido",
    "voto_vista": "no voto-vista",
    "voto_vogal": "no voto vogal",
    "debate": "nos debates",
    "certidao": "na certidão de julgamento",
    "dispositivo": "no dispositivo",
    "decisao": "na decisão",
    "fatos": "nos fatos",
    "direito": "na parte do direito",
    "fundamentacao": "na fundamentação",
    "preliminar": "nas preliminares",
    "pedidos": "nos pedidos",
    "conclusao": "na conclusão",
    "decide": "na parte decisória",
    "considerandos": "nos considerandos",
    "notas": "nas notas",
}
_MESSAGE = re.compile(r"^mensagem (\d+)$")


def section_place(path: str | None) -> str:
    """ "voto > II – Da não incidência" -> "no voto › II – Da não incidência", "ementa" -> "na ementa": the part
    as a place, so the CLI and the page print "p. 4, na ementa" and a part named like the type tag is not read as
    one. A path whose top is a heading of its own ("Art. 51 > § 2º") is its label: a heading names itself."""
    parts = [part.strip() for part in (path or "").split(" > ") if part.strip()]
    if not parts:
        return ""
    top, rest = parts[0], section_label(" > ".join(parts[1:]))
    message = _MESSAGE.match(top)
    place = f"na mensagem {message[1]}" if message else SECTION_PLACES.get(top)
    if place is None:
        return section_label(path)
    return f"{place} › {rest}" if rest else place
