"""Why a passage came up, in the lawyer's words, built only from the passage: which of its sentences carries
the query's concept, the concept when the passage names it otherwise, the law or precedent that sentence
cites, and what its section does in the decision (the ementa states the thesis, the dispositivo the result).

The card's header already shows the score, court, date, page and title, so none of them is repeated here;
a passage that shares nothing identifiable with the query says so rather than inventing a reason, and a
query word that stands only in a formula ("Registre-se.", the dateline, the signature) is not a reason either. Pure
Python and regular expressions (no model, no embedding): it runs once per result, inside the request.
"""

import math
import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from precedente.services.search.concepts import (
    ConceptIndex,
    ConceptMatch,
    acts_named,
    case_sensitive,
    concept_index,
    name_pattern,
)
from precedente.shared.legal.citations import extract_citations, under_portuguese_law
from precedente.shared.legal.identifiers import remove_identifiers
from precedente.shared.legal.text import fold, fold_lower, strip_marks

__all__ = [
    "STOPWORDS",
    "Explanation",
    "explain",
    "bibliographic",
    "formulaic",
    "highlight_spans",
    "section_role",
    "sentences",
    "shared_terms",
]


# Query words that say nothing about the concept; they are neither highlighted nor named.
_STOPWORDS_TEXT = (
    "para pela pelo pelas pelos como sobre entre quando mais menos isso esta este essa esse aquele aquela "
    "qual quais onde seja sido sendo tem temos deve devem pode podem cabe caso casos sera seria ser quem "
    "porque pois tambem ainda apenas mesmo mesma outro outra outros outras todo toda todos todas numa num "
    "dos das nos nas com sem"
)
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
_WORD = re.compile(r"\w{4,}")
_ADDRESS = re.compile(r"\S*(?:://|www\.|[=@])\S*")
"""A URL, a query string ("&internet=1&numero=7") or an e-mail address: the words inside it name a link, so
a passage does not say the query's word because its footnote's address holds it."""


@lru_cache(maxsize=512)
def _query_stems(query: str) -> dict[str, tuple[int, str]]:
    """Stem-like prefix (6 letters, accent-insensitive) of each informative query word -> (order, word)."""
    stems: dict[str, tuple[int, str]] = {}
    for word in re.findall(r"\w{4,}", query):
        folded = strip_marks(word.lower())
        if folded not in STOPWORDS and folded[:6] not in stems:
            stems[folded[:6]] = (len(stems), word)
    return stems


@lru_cache(maxsize=512)
def _stem_openings(query: str) -> tuple[list[int], int, frozenset[str]]:
    """The query stems' lengths, the shortest, and every stem cut to it: a word whose opening is not one of these
    matches no stem, so _matches skips it with one set lookup (most of a passage's words)."""
    lengths = sorted({len(stem) for stem in _query_stems(query)})
    return lengths, lengths[0], frozenset(stem[: lengths[0]] for stem in _query_stems(query))


@lru_cache(maxsize=256)
def _folded(passage: str) -> str:
    """fold_lower of a passage, once: a shown passage is folded for its highlights, its explanation and the
    concepts of both (kept for the passages of the last few searches, each a few kilobytes)."""
    return fold_lower(passage)


@lru_cache(maxsize=256)
def _matches(query: str, passage: str) -> tuple[tuple[int, int, str], ...]:
    """Spans of passage words sharing a stem-like prefix (6 letters, accent-insensitive) with a query word.

    Each span comes with the query word it matches, so the explanation names exactly what is highlighted.
    A word matching several query words takes the first of them in the query. Cached: a result's best
    passage is matched for its highlights and again for its explanation.
    """
    stems = _query_stems(query)
    if not stems:
        return ()
    lengths, shortest, openings = _stem_openings(query)
    folded = _folded(passage)
    addresses = [match.span() for match in _ADDRESS.finditer(folded)]
    found = []
    for match in _WORD.finditer(folded):
        word = match.group()
        if word[:shortest] not in openings:  # most words: no stem can match (a stem is at least `shortest` long)
            continue
        if addresses and any(start <= match.start() < end for start, end in addresses):
            continue
        hits = [stems[word[:n]] for n in lengths if word[:n] in stems]
        if hits:
            found.append((match.start(), match.end(), min(hits)[1]))
    return tuple(found)


def highlight_spans(query: str, passage: str) -> list[tuple[int, int]]:
    """Character offsets in the passage of the words that match the query and of the concepts it names
    in other words ("empresa de pequeno porte" for "epp"), for the UI to highlight; sorted, disjoint. Those in
    a formula ("Registre-se." for "registro") are not highlighted, as explain does not take them for a reason."""
    spans = [(start, end) for start, end, _ in _matches(query, passage)]
    spans += [span for _, found in _concepts_in(query, passage, _folded(passage)) for span in found]
    spans = [span for span, kept in zip(spans, _outside_formulas(passage, [s for s, _ in spans]), strict=True) if kept]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def shared_terms(query: str, passage: str, limit: int = 4) -> list[str]:
    """The query words found in the passage, in the order the passage uses them."""
    found: list[str] = []
    for _, _, word in _matches(query, passage):
        if word not in found:
            found.append(word)
    return found[:limit]


# --- sentences ---------------------------------------------------------------------------------------------

# Words that a period follows without ending the sentence (folded, lower case): "art. 4º", "Rel. Min. Fulano",
# "fls. 10", "REsp n. 1.602.076", "i.e.", "Ltda.", "S.A.".
_ABBREVIATIONS_TEXT = (
    "art arts n nº no nos num fl fls f fs p pp pag pags inc incs al als par pars cap caps tit sec item c/c "
    "min mins rel rela relª des desa desemb dr dra drs dras sr sra srs sras sr(a) exmo exma exmos exmas "
    "prof profa jr sto sta v vs cf ex ed eds vol vols cit op ob id ibid apud j julg publ dje dj ac "
    "resp aresp re rext agrg agint agr edcl emb ag ai hc ms rms adi adpf reclm proc lc dec res "
    "ltda cia s.a s/a i.e e.g v.g "
    "jan fev mar abr mai jun jul ago set out nov dez"
)
_ABBREVIATIONS = frozenset(_ABBREVIATIONS_TEXT.split())
# A sentence ends at . ! ? (or a colon closing a line) before what can open one: a capital, a digit, a quote,
# "§" or a dash. Not before "(": a reference in parentheses ("(REsp 632958/AL, Rel. Min. ...).") belongs to
# the sentence it attributes.
_END = re.compile(r"(?:[.!?]+[\"”’)\]]*|:(?=[ \t]*\n))\s+(?=(?:[\"“‘']|[—–-][ \t]*)?[A-ZÀ-ÝÇ0-9§])")
# A line that is a heading ("III – Do alcance do art. 4º", "a) Legitimidade", "RELATÓRIO") ends a sentence though it
# has no period.
_HEADING_LINE = re.compile(
    r"^[ \t]*(?:(?:[IVXLC]{1,6}|\d{1,2}(?:\.\d{1,2})*|[a-z](?:\.\d{1,2})?)[ \t]*[–—.)-][ \t]*\S[^\n]{0,100}|"
    r"[A-ZÀ-ÝÇ][A-ZÀ-ÝÇ \t–—-]{2,60})(?<![.,;:])[ \t]*\n(?=[ \t]*[\"“]?[A-ZÀ-ÝÇ][ \t]?[a-zà-ÿç])",
    re.M,
)
# A blank line before a capital ends a sentence after a short line (a heading) or after closing punctuation; a
# long line running into it is a page break inside a sentence.
_BLANK_LINE = re.compile(r"\n[ \t\f]*\n\s*(?=[\"“]?[A-ZÀ-ÝÇ0-9§])")
SHORT_LINE = 100
# A page break after a line that closes (a period, a bracket, a quote) ends a sentence, whatever opens the next page:
# a page's footnotes stand between its last line and the next page's, so a sentence running on across the break
# runs on from a footnote ("Acesso em: 16 ago. 2022." then the next page's "• Tem menos possibilidade de comprar",
# "[Acesso em 17 jan 2006]" then "medicamentos que, em sua maioria, ..."): quoted whole, the card read the footnote
# as the passage's words. A break after an open line is a sentence running on, as _BLANK_LINE keeps it.
_PAGE_BREAK = re.compile(r"(?<=[.!?;)\]”\"'])[ \t]*\n?[ \t]*\f\s*")
_NOTE_CALL = re.compile(r"[.!?)”\"]\d{1,3}$")
"""A paragraph's last line ending in its note's number ("... companhias aéreas, etc.).309"): the sentence is closed."""
_NOTE_LINE = re.compile(r"\n[ \t]*(?=\[\d{1,3}\][ \t]*[A-ZÀ-Ý])")
"""A line opening with a footnote's number in brackets ("[3] MARTINS, Guilherme...") starts a note."""
_MARKER = re.compile(r"^(?:[IVXLC]{1,6}|\d{1,3}|[a-zA-Z])?[.)\-–—\s]*$")


def _token_before(passage: str, end: int) -> str:
    """The folded word a sentence end follows, with its opening parentheses or quotes dropped."""
    start = end
    while start > 0 and not passage[start - 1].isspace():
        start -= 1
    return fold_lower(passage[start:end]).lstrip("(\"“‘'[")


def _is_boundary(passage: str, match: re.Match[str]) -> bool:
    if passage[match.start()] == ":":
        return True
    dot = match.start()
    token = _token_before(passage, dot)
    if passage[dot] != ".":
        return True
    if token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()):
        return False  # "art.", "Min.", an initial ("C. A. Carmona") or a lettered item ("a.")
    return not (token.endswith(("º", "ª")) and passage[match.end()].isdigit())  # "nº. 8.078"


def sentences(passage: str) -> list[tuple[int, int]]:
    """[start, end) of the passage's sentences, whitespace trimmed. Abbreviations of legal writing, numbers
    with thousands dots and list markers ("I.", "2.-") do not end one; a heading line does, and so does a page
    break after a closed line (_PAGE_BREAK)."""
    cuts = {m.end() for m in _END.finditer(passage) if _is_boundary(passage, m)}
    cuts |= {m.end() for m in _HEADING_LINE.finditer(passage)}
    cuts |= {m.end() for m in _PAGE_BREAK.finditer(passage)}
    cuts |= {m.end() for m in _NOTE_LINE.finditer(passage)}
    for m in _BLANK_LINE.finditer(passage):
        line = passage[passage.rfind("\n", 0, m.start()) + 1 : m.start()].rstrip()
        if (
            len(line) <= SHORT_LINE
            or line.endswith((".", "!", "?", ":", ";", ")", "”", '"'))
            or _NOTE_CALL.search(line)
        ):
            cuts.add(m.end())
    bounds = [0, *sorted(cuts), len(passage)]
    spans: list[tuple[int, int]] = []
    carry: int | None = None  # where a bare list marker waiting for its sentence starts
    for start, end in zip(bounds, bounds[1:], strict=False):
        text = passage[start:end]
        stripped = text.strip()
        if not stripped:
            continue
        first = start + len(text) - len(text.lstrip())
        last = start + len(text.rstrip())
        if carry is not None:
            first, carry = carry, None
        if _MARKER.match(stripped) or not any(ch.isalpha() for ch in stripped):
            carry = first  # "II." or "(...)" alone: it belongs to what follows
            continue
        spans.append((first, last))
    if carry is not None:
        if spans:
            spans[-1] = (spans[-1][0], len(passage.rstrip()))
        else:
            spans.append((carry, len(passage.rstrip())))
    return spans


# --- formulas: sentences that say nothing of the case -------------------------------------------------------

# Whole short sentences that every decision or act carries: its closing directives, the vote's and report's
# closings, the dateline, the signature block, the e-signature stamp. A query word inside one ("Registre-se" for
# "registro", "Brasília" for "brasileiro", "publicado no DJe" for "publicação") is a coincidence of spelling,
# not a reason: explain quotes the passage's next best sentence, or says it shares nothing. Matched on the
# sentence on one line, accents folded; each pattern must cover the whole sentence, so "Registre-se que o
# contrato..." or "publique-se o edital com prazo de 30 dias" (content) is untouched.
FORMULA_CHARS = 320
"""Longer sentences are never formulas (an e-signature stamp with its name, date and law runs to ~250)."""

_DIRECTIVE = (
    r"(?:(?:publique|publiquem|registre|registrem|intime|intimem|cumpra|cumpram|cite|citem|comunique|comuniquem|"
    r"arquive|arquivem|oficie|notifique|notifiquem|certifique|junte|autue|remeta|remetam)-se"
    r"|de-se (?:ciencia|baixa|vista)|ao arquivo|p\.?\s?r\.?\s?i\.?(?:\s?c\.?)?)"
    r"(?:\s+(?:no (?:diario (?:da justica|oficial)(?: eletronico)?(?: d[oa] [a-z]+(?: d[aeo] [a-z]+)?)?|dje)"
    r"|as partes|os autos"
    r"|os interessados|(?:com|observadas) as cautelas (?:de estilo|de praxe|legais|de lei)"
    r"|com baixa(?: na distribuicao)?"
    r"|a quem de direito|(?:ao|o) ministerio publico|na forma da lei)){0,2}"
)
_CLOSINGS = re.compile(
    rf"(?:(?:apos|oportunamente|no mais|por fim|ao final)\s*,?\s*)?{_DIRECTIVE}"
    rf"(?:\s*(?:,|;|\.|\be\b)\s*(?:(?:apos|oportunamente|em seguida)\s*,?\s*)?{_DIRECTIVE})*"
    r"|e (?:como|o) (?:voto|relatorio|parecer|que (?:me )?(?:cabia|cumpria|importa) relatar)"
    r"(?:,? (?:s\.?\s?m\.?\s?j\.?|salvo melhor juizo|do necessario|senhor(?:a)? presidente|sr(?:a)?\. presidente))?"
    r"|e o (?:breve|sucinto) relatorio|vistos(?:,? etc)?|(?:nestes|nesses) termos,? pede(?:-se)? deferimento"
    r"|termos em que,? pede(?:-se)? deferimento|revogam-se as disposicoes em contrario|a consideracao superior"
    r"|s\.?\s?m\.?\s?j|salvo melhor juizo"
)
_MONTH = r"(?:janeiro|fevereiro|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro)"
_DATE = rf"(?:(?:\d{{1,2}}(?:º|o)? de )?{_MONTH} de \d{{4}}|\d{{1,2}}[./]\d{{1,2}}[./]\d{{2,4}})"
_DATELINE = re.compile(  # on the sentence with its case: the place is a proper name ("Boa Vista/RR, 6 de ...")
    r"(?i:sala das sessoes)\b[^.;:]{0,120}"  # "Sala das Sessões, em 10 de maio de 2021"
    rf"|(?:(?i:plenario|gabinete)\b[^.;:]{{0,80}},\s*"
    r"|[A-Z][\w'-]*(?:\s+(?:(?i:d[aeo]s?)\s+)?[A-Z][\w'-]*){0,3}(?:\s*\(\s*[A-Z]{2}\s*\)|\s*[/-]\s*[A-Z]{2})?\s*,\s*)?"
    rf"(?i:(?:em\s+)?{_DATE}(?:\s*\(data do julgamento\)(?:\s+.{{0,80}})?)?)"  # STJ: "(Data do Julgamento) MINISTRO"
)
_STAMP = re.compile(
    r"(?:documento |este documento (?:foi )?)?assinado (?:eletronicamente|digitalmente|de forma digital)"
    r"(?:(?: por|:).*)?"
    r"|(?:a )?autenticidade d[oe]s?t?e? documento pode ser conferida\b.*|para conferir o original\b.*"
    r"|este texto nao substitui o (?:original|publicado)\b.*|codigo (?:de )?verificador\b.*"
)
# A signature: a person's name (capitalised words, "de"/"da" between them) with their office before or after it
# ("Tânia Vasconcelos / Corregedora-Geral de Justiça", "MINISTRO MARCO AURÉLIO BELLIZZE, Relator", "Presidente
# MINISTRA NANCY ANDRIGHI"). Case-sensitive for the name, so "A Corregedora-Geral de Justiça determinou" is not one.
_OFFICE = (
    r"(?i:(?:relator(?:a)?(?: (?:designad[oa]|convocad[oa]|para o acordao))?"
    r"|(?:vice-)?presidente|corregedor(?:a)?(?:[- ]geral| nacional| regional)?"
    r"|juiz(?:a)?(?: de direito)?(?: substitut[oa])?)"
    r"(?: d[aeo]s? [\w ºª-]{2,40})?"  # "Corregedor do TRT da 18ª Região", "Corregedora-Geral de Justiça"
    r"|desembargador(?:a)?(?: relator(?:a)?)?|ministr[oa](?: relator(?:a)?)?"
    r"|(?:sub)?procurador(?:a)?(?:-geral)?(?: de justica| da republica| do estado| federal)?"
    r"|promotor(?:a)? de justica(?: substitut[oa])?|defensor(?:a)? public[oa])"
)
_SIGNED_OFFICE = (  # "Secretaria Municipal de Saúde" is no signature; the STF's "Assessora-Chefe do Plenário" is
    rf"(?:{_OFFICE}|(?i:secretari[oa](?:[- ]geral)?|assessor(?:a)?-chefe(?: d[aeo] [\w ]{{2,30}})?))"
)
_TITLE = (
    r"(?i:(?:(?:exm[oa]|sr|sra)\.?\s+)*(?:o senhor |a senhora )?"
    r"(?:ministr[oa]|min\.|desembargador(?:a)?|des\.|juiz(?:a)?|dr(?:a)?\.|doutor(?:a)?))"
)
_NOT_NAMES = (  # an all-caps heading ("RETENÇÃO INDEVIDA DE DOCUMENTOS PELO ADVOGADO") is not a name
    "d[aeo]s? e em a o as os n[aoe]s? aos? pel[oa]s? por para contra com sem sobre ou que um uma se "
    "capitulo titulo secao livro anexo art voto relatorio"
)
_NAME_WORD = rf"(?!(?i:{'|'.join(_NOT_NAMES.split())})\b)[A-Z][\w'´’.-]*"
_NAME = rf"{_NAME_WORD}(?:\s+(?:(?i:d[aeo]s?|e)\s+)?{_NAME_WORD}){{1,6}}"
_SIGNATURE = re.compile(
    rf"(?:{_TITLE}\s+)?{_NAME}(?:\s*\([^)]{{1,60}}\))?\s*[,–—-]?\s*{_SIGNED_OFFICE}(?:\s*\([^)]{{1,60}}\))?"
    rf"|{_OFFICE}\s*[,:–—-]\s*(?:{_TITLE}\s+)?{_NAME}"  # "Relator: Ministro Marco Buzzi"
    rf"|(?:{_OFFICE}\s+)?{_TITLE}\s+{_NAME}"  # "Presidente MINISTRA NANCY ANDRIGHI"
    rf"|{_OFFICE}"  # a signature's second line ("Corregedor Nacional de Justiça")
)
# A bare heading of a decision's or a work's part ("RELATÓRIO", "IV. CONCLUSÃO", "2. FUNDAMENTAÇÃO 2.1." with the
# next paragraph's number, "A C Ó R D Ã O"), alone or with the speaker it introduces ("VOTO O SENHOR MINISTRO DIAS
# TOFFOLI (PRESIDENTE):"): it names the part, not what the part says. A heading with content after it in the same
# sentence ("EMENTA RECURSO ESPECIAL.", "Dispositivo e tese") is content.
_PART = (
    r"(?:d[aeo]s?\s+)?(?:ementa|acordao|relatorio(?:\s+e\s+voto)?|declaracao\s+de\s+voto"
    r"|voto(?:[- ](?:vista|vogal|vencido|divergente|condutor|vencedor)|\s+d[oa]\s+relator(?:a)?)?"
    r"|certidao(?:\s+de\s+julgamento)?|extrato\s+de\s+ata|dispositivo|decisao(?:\s+monocratica)?|fatos|direito|merito"
    r"|fundamentacao(?:\s+juridica)?|fundamentos(?:\s+juridicos)?|preliminar(?:es)?|pedidos?|conclus(?:ao|oes)"
    r"|consideracoes\s+finais|parecer|introducao|resumo|abstract|sumario|referencias(?:\s+bibliograficas)?"
    r"|bibliografia|resolve|decide|determina)"
)
_SPEAKER = rf"(?i:[oa]\s+)?{_TITLE}\s+{_NAME}(?:\s*\([^)]{{1,60}}\))?"
_HEADING = re.compile(
    rf"(?i:(?:\d{{1,3}}\s+)?{_PART}(?:\s+\d{{1,3}}(?:\.\d{{1,2}})*)?)"  # "53 PARECER", "CONCLUSÃO 30"
    rf"(?:\s*[-–—:]?\s*{_SPEAKER})?"
)
_SPACED = re.compile(r"(?:\w ){3,}\w")  # "A C Ó R D Ã O"
# The STF's authentication stamp, as the page furniture leaves it in the text: "Documento assinado digitalmente
# conforme MP n° 2.200-2/2001 de 24/08/2001. O documento pode ser acessado pelo endereço http://www.stf.jus.br/
# portal/autenticacao/autenticarDocumento.asp sob o código 6900-DBAD-DFEC-11FB e senha 64F5-6292-528C-2E71" (or
# "... no endereço eletrônico ... sob o número 7043226"), often cut to its URL and code; and the STJ's "Documento:
# 1234567 - EMENTA / ACORDÃO - Site certificado - DJe: 18/11/2016". Matched anywhere in the sentence; what stands
# beside it must be page furniture (the page's number, the court's name, the page header "Voto s/ Proposta
# 23/05/2019 PLENÁRIO EMB.DECL.", the running header "RE 1366243 ED-SEGUNDOS / SC") or a formula of its own ("É
# como voto.", the relator's signature), else the sentence is content with a stamp inside it.
_AUTHENTICATION = re.compile(
    r"(?:documento assinado digitalmente(?: conforme (?:a )?(?:mp|medida provisoria) n\S{0,2} ?2\.200-2/2001"
    r"(?: de \d{2}/\d{2}/\d{4})?)?\.?\s*)?"
    r"(?:(?:o )?documento pode ser acessado (?:pelo|no) endereco(?: eletronico)?\s*)?"
    r"(?:https?://\S*autentica\S*\s+)?sob o (?:numero \d{5,}"
    r"|codigo [0-9a-f]{4}(?:-[0-9a-f]{4}){3}(?: e senha [0-9a-f]{4}(?:-[0-9a-f]{4}){3})?)"
    r"|documento: ?\d{5,} - [^-]{3,40} - site certificado(?: - dje: ?\d{2}/\d{2}/\d{4})?"
)
_COURT = r"(?:supremo tribunal federal|superior tribunal de justica)"
_PAGE_FURNITURE = re.compile(
    rf"(?:\d{{1,4}}\b\s*)?(?:{_COURT}\s*)*"
    r"(?:(?:[a-z][a-z/ .-]{0,30}\s)?\d{2}/\d{2}/\d{4}\s+(?:plenario|primeira turma|segunda turma)"
    r"(?:\s+[a-z]{2,6}\.[a-z.]{0,8}|(?:\s+[a-z]{2,20}){1,3}\s+[\d.]{3,}(?:\s+[a-z]{2,20}){0,3})?"
    r"|[a-z]{2,5}\s+[\d.]{3,}(?:\s+[a-z-]{2,20})?\s*/\s*[a-z]{2})?"
    rf"(?:\s*{_COURT})*"
)
_FORMULA_EDGES = " \t.!;:,-–—"
# A publisher's imprint: what a booklet, a periodical or a journal says of itself, in its front matter or its running
# header, not of the law ("Edição n. 110 Brasília, 21 de setembro de 2018 As teses apresentadas foram elaboradas
# após pesquisa na base de dados de Jurisprudência do STJ atualizada até 24/08/2018." and "Este periódico não é um
# repositório oficial de jurisprudência." in the STJ's Jurisprudência em Teses; "Revista Direito em Foco – Edição nº
# 15 – Ano: 2023 revistaonline@..."). A query on "pesquisa de jurisprudência" matched those words there, and the card
# quoted the imprint instead of the tese beneath it. Matched anywhere in a short sentence, accents folded.
_IMPRINT = re.compile(
    r"\best[ea] (?:periodico|informativo|boletim|publicacao|revista)\b.{0,40}\b(?:repositorio|destaca|divulga|reune)"
    r"|\brepositorio oficial de jurisprudencia\b"
    r"|\bas teses (?:aqui )?(?:apresentadas|resumidas|divulgadas)\b.{0,40}\b(?:elaboradas|extraidas|pesquisa)"
    r"|\batualizad[ao] ate (?:\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2} de [a-z]+ de \d{4})"
    r"|^edicao n[º°o.]*\s*\d{1,4}\b(?!\s*:)"  # a booklet's issue line, not its heading "EDIÇÃO N. 110: DOS CONTRATOS"
    r"|\brevista\b.{0,80}\bedicao n[º°o.]*\s*\d{1,4}\b.{0,10}\bano:?\s*\d{4}"
    r"|\b(?:todos os direitos reservados|impresso no brasil|ficha catalografica|dados internacionais de catalogacao"
    r"|projeto grafico|diagramacao|secretaria de jurisprudencia|coordenadoria de divulgacao de jurisprudencia)\b"
    r"|\bis[sb]n\b"
    # the running header of the EU's Official Journal ("Jornal Oficial da União Europeia L 309/87"), which every page
    # of a directive or regulation repeats: "União Europeia" in a query made it the card's reason 3 times of 1,855
    r"|^(?:jornal oficial da uniao europeia|official journal of the european union) [lc] \d{1,3}/\d{1,4}$"
)
_FURNITURE_WORD = re.compile(r"\S*(?:://|www\.|@|\.(?:br|com|org|gov|jus)\b)\S*|\bpagina \d+\b")
"""An address or a page counter of a running header or footer ("scon.stj.jus.br/SCON/jt/", "Página 44")."""


def imprint(sentence: str) -> bool:
    """Whether a short sentence is a publisher's imprint (see _IMPRINT) or page furniture of addresses and page
    counters ("scon.stj.jus.br/SCON/jt/ 8/12", "revistaonline@unifia.edu.br Página 44"): it says nothing of the law."""
    if len(sentence) > FORMULA_CHARS:
        return False
    line = _one_line(fold(sentence)).strip(_FORMULA_EDGES).lower()
    if _IMPRINT.search(line):
        return True
    rest = _FURNITURE_WORD.sub(" ", line)
    return rest != line and len(re.findall(r"[a-z]{3,}", re.sub(r"\d+\s*/\s*\d+", " ", rest))) < 2


# A bibliographic reference, in a footnote or a list of works: where a work was read ("Acesso em: 16 ago. 2022.",
# "Disponível em: <http://...>"), an entry ("[3] MARTINS, Guilherme Magalhães, Responsabilidade civil por acidente
# de consumo na Internet. 2.ed. São Paulo. Editora Revista dos Tribunais, 2014", "______. Contratos no CDC. São
# Paulo: RT, 2011.") or a locator with a title's few words ("Ciência Jurídica, n. 14, p. 22, fev. 1988", "Cf. Marcel
# Fontaine, Synthese des travaux, ob. cit., p. 441"). Its words name a work on the subject, not what the passage
# says: of the 1,855 cards of the paraphrase and judged queries' top 5 on the archive and docs (2026-12-06), 8
# quoted one as the reason, 1 after this rule. The entry shapes are migration 0034's (reference_list), matched on
# the folded sentence.
_ACCESS = re.compile(r"\[?\s*(?:acess(?:o|ado) em|consultado em|disponivel em|available (?:at|from)|accessed)\b", re.I)
_ENTRY = re.compile(
    r"(?:\[\d{1,3}\]\s*|\d{1,3}\s+)?"  # a footnote's number
    r"(?:[A-Z][A-Z'’-]+(?:\s+(?:[A-Z][A-Z'’-]+|DE|DA|DO|DOS|DAS|E))*,\s*(?:[A-Z][a-z]+|[A-Z]\.)|_{2,}\.)"
)
_PUBLISHER = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)?: ?[A-Z][^,:]{1,40}, (?:19|20)\d{2}")
_LOCATOR = re.compile(
    r"\b(?:p|pp|pg|pag|n|v|vol|ed|fls?)\.\s*[\dIVX]|\b(?:ob|op)\.\s*cit\b|\b(?:19|20)\d{2}\b"
    r"|\b(?:jan|fev|mar|abr|mai|jun|jul|ago|set|out|nov|dez)\.\s*(?:19|20)\d{2}"
)
_PARENTHESES = re.compile(r"\([^()]*\)")
_PAGE = re.compile(r"\b(?:p|pp|pg|pag)\.\s*\d|\b(?:ob|op)\.\s*cit\b")
_CONFER = re.compile(r"(?:\d{1,3}\s+)?(?:cf|vide|ver|apud)\.?\s", re.I)


@lru_cache(maxsize=8192)  # tested on the line of each query word a shown passage holds
def bibliographic(sentence: str) -> bool:
    """Whether a short sentence is a bibliographic reference (see _ACCESS): where a work was read, an entry of a
    list of works, or a locator ("p. 22", "n. 14", a year, "ob. cit.") with at most a title's few words beside it.
    Prose that cites a work in passing ("Bioni (2019, p. 38) chama-os consumidores de vidro") is prose."""
    if len(sentence) > FORMULA_CHARS:
        return False
    line = _one_line(fold(sentence)).strip(_FORMULA_EDGES)
    if _ACCESS.match(line):
        return True
    line = _PARENTHESES.sub(" ", line)  # "(Bioni, 2019, p. 38)": prose citing a work in passing
    locators = len(_LOCATOR.findall(line))
    if (entry := _ENTRY.match(line)) and (locators or _PUBLISHER.search(line) or entry.group(0)[0] == "["):
        return True
    if not _PAGE.search(line):  # a law's "n. 8.078/1990" is no work's locator; a page is
        return False
    rest = _LOCATOR.sub(" ", _CONFER.sub(" ", line, count=1))
    return locators >= 2 and len(re.findall(r"[^\W\d_]{3,}", rest)) <= 6


# Cached: each sentence holding a query word is tested, for the highlights and again for the explanation (9% of a
# search's CPU uncached).
@lru_cache(maxsize=8192)
def formulaic(sentence: str) -> bool:
    """Whether the sentence is a formula (see above): a closing directive, a dateline, a signature, an e-signature
    or authentication stamp, a bare heading, a publisher's imprint (imprint) or a bibliographic reference
    (bibliographic)."""
    if len(sentence) > FORMULA_CHARS:
        return False
    if imprint(sentence) or bibliographic(sentence):
        return True
    if marker := _LEAD_MARKER.match(sentence):
        sentence = sentence[marker.end() :]
    line = _one_line(fold(sentence)).strip(_FORMULA_EDGES)
    lower = line.lower()
    if _CLOSINGS.fullmatch(lower) or _DATELINE.fullmatch(line) or _STAMP.fullmatch(lower) or _SIGNATURE.fullmatch(line):
        return True
    heading = line.replace(" ", "") if _SPACED.fullmatch(line) else line
    # a heading opens with a capital: "direito." is the end of a sentence cut by a blank line
    if heading.lstrip("0123456789 ")[:1].isupper() and _HEADING.fullmatch(heading):
        return True
    if stamp := _AUTHENTICATION.search(lower):
        return all(
            not part or _PAGE_FURNITURE.fullmatch(part.lower()) or formulaic(part)
            for part in (line[: stamp.start()].strip(_FORMULA_EDGES), line[stamp.end() :].strip(_FORMULA_EDGES))
        )
    return False


@lru_cache(maxsize=256)
def _sentence_spans(passage: str) -> tuple[tuple[int, int], ...]:
    """sentences() of a passage, once: a shown passage is split for its highlights and for its explanation."""
    return tuple(sentences(passage))


def _outside_formulas(passage: str, positions: list[int]) -> list[bool]:
    """For each position (of a query word or concept), whether it stands outside the passage's formulaic
    sentences; only the sentences holding one are tested, so a passage sharing nothing costs no split."""
    if not positions:
        return []
    bounds = _sentence_spans(passage)
    starts = [start for start, _ in bounds]
    verdicts: dict[int, bool] = {}
    kept = []
    for position in positions:
        i = bisect_right(starts, position) - 1
        if i >= 0 and position < bounds[i][1] and i not in verdicts:
            verdicts[i] = formulaic(passage[bounds[i][0] : bounds[i][1]])
        kept.append(
            not (i >= 0 and position < bounds[i][1] and verdicts[i]) and not _in_reference_line(passage, position)
        )
    return kept


def _in_reference(passage: str, position: int) -> bool:
    """Whether the position stands in a bibliographic reference, its sentence or its line (bibliographic)."""
    sentence = next((passage[a:b] for a, b in _sentence_spans(passage) if a <= position < b), "")
    return bibliographic(sentence) or _in_reference_line(passage, position)


def _in_reference_line(passage: str, position: int) -> bool:
    """Whether the position's line is a bibliographic reference (bibliographic): a list's entry splits into
    "sentences" at every period ("MARQUES, Claudia Lima." "Contratos no CDC." "São Paulo: RT, 2011."), and its
    title's words would otherwise read as the passage's own."""
    start = passage.rfind("\n", 0, position) + 1
    end = passage.find("\n", position)
    return bibliographic(passage[start : end if end >= 0 else len(passage)])


# --- sections ----------------------------------------------------------------------------------------------

# Section codes of shared/legal/sections.py -> (what the part does, said before a quote; "of the part").
_ROLES: dict[str, tuple[str, str]] = {
    "ementa": ("A ementa firma a tese", "da ementa"),
    "dispositivo": ("O dispositivo dá o resultado", "do dispositivo"),
    "decide": ("A parte decisória do ato determina", "da parte decisória do ato"),
    "acordao": ("O acórdão registra o resultado do julgamento", "do acórdão"),
    "certidao": ("A certidão de julgamento registra", "da certidão de julgamento"),
    "voto": ("A fundamentação do voto sustenta", "da fundamentação do voto"),
    "voto_vista": ("O voto-vista sustenta", "do voto-vista"),
    "voto_vogal": ("O voto vogal sustenta", "do voto vogal"),
    "voto_vencido": ("O voto vencido, que não prevaleceu, sustenta", "do voto vencido"),
    "debate": ("Nos debates do julgamento, consta", "dos debates"),
    "fundamentacao": ("A fundamentação sustenta", "da fundamentação"),
    "direito": ("A fundamentação sustenta", "da fundamentação"),
    "decisao": ("A decisão sustenta", "da decisão"),
    "preliminar": ("A preliminar examina", "da preliminar"),
    "relatorio": ("O relatório narra", "do relatório"),
    "fatos": ("A exposição dos fatos narra", "da exposição dos fatos"),
    "pedidos": ("O pedido requer", "dos pedidos"),
    "conclusao": ("A conclusão afirma", "da conclusão"),
    "considerandos": ("Os considerandos motivam o ato", "dos considerandos"),
    "cabecalho": ("O cabeçalho identifica o caso", "do cabeçalho"),
    "preambulo": ("O preâmbulo do ato diz", "do preâmbulo do ato"),
    "abertura": ("A abertura do texto diz", "da abertura do texto"),
    "resumo": ("O resumo do trabalho afirma", "do resumo do trabalho"),
    "introducao": ("A introdução do trabalho apresenta", "da introdução do trabalho"),
    "notas": ("Uma nota do texto diz", "das notas"),
}


def section_role(section_path: str | None) -> str | None:
    """The code of the deepest part of the path whose role we know ("voto > dispositivo" -> "dispositivo"),
    None when no part of it is one (a sub-heading's label, an article of a statute, "corpo")."""
    for part in reversed((section_path or "").split(" > ")):
        code = fold(part.strip()).lower()
        if code in _ROLES:
            return code
    return None


# --- the query's concept in the passage --------------------------------------------------------------------


def _concept_patterns(query: str) -> tuple[tuple[ConceptMatch, tuple[tuple[re.Pattern[str], bool], ...]], ...]:
    """The concepts the query names, each with the patterns of its other names (once per query and concepts in
    effect, not per passage: search explains every result of one query)."""
    return _patterns_of(concept_index(), query)


@lru_cache(maxsize=512)
def _patterns_of(
    index: ConceptIndex, query: str
) -> tuple[tuple[ConceptMatch, tuple[tuple[re.Pattern[str], bool], ...]], ...]:
    return tuple(
        (match, tuple((name_pattern(name), case_sensitive(name)) for name in match.others))
        for match in index.find(query)
    )


@lru_cache(maxsize=1024)
def _name_acts(name: str) -> frozenset[str]:
    """The acts a concept's name is ("Código de Defesa do Consumidor" -> CDC): not cited again beside it."""
    return frozenset(acts_named(name))


def _concepts_in(query: str, passage: str, folded: str) -> list[tuple[ConceptMatch, list[tuple[int, int]]]]:
    """What ConceptIndex.in_passage finds, on the passage folded once (the fold is most of its cost)."""
    found = []
    for match, patterns in _concept_patterns(query):
        spans = sorted(hit.span() for pattern, cs in patterns for hit in pattern.finditer(passage if cs else folded))
        if spans:
            found.append((match, spans))
    return found


# --- the explanation ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Explanation:
    text: str
    """One or two short sentences in Portuguese."""
    sentence: tuple[int, int] | None
    """[start, end) in the passage of the sentence that carries the query's concept, for the page to highlight."""


# Words in most legal passages (folded, first six letters): a sentence holding only them is weaker evidence than
# one holding a rare word, and a query of one of them alone names no subject (query.vague_query).
_GENERIC_STEMS_TEXT = (
    "recurs proces tribun direit justic acao decisa julgam especi civil juiz parte partes artigo codigo "
    "materi questa pedido autos federa"
)
GENERIC_STEMS = frozenset(_GENERIC_STEMS_TEXT.split())
_RESULTS = frozenset({"dispositivo", "acordao", "decide"})
"""Parts whose sentences open with the result ("DOU PROVIMENTO ao recurso..."): quoted from their start."""
QUOTE_CHARS = 180
"""A sentence up to this long is quoted whole; a longer one is quoted around the query's words."""
EXCERPT_CHARS = 150


def _weights(stems: dict[str, set[int]], count: int) -> dict[str, float]:
    """Rarity of each query word within the passage: a word in every sentence tells none of them apart."""
    return {
        stem: (0.5 if stem in GENERIC_STEMS else 1.0) * (1.0 + math.log((1 + count) / (1 + len(found))))
        for stem, found in stems.items()
    }


def _one_line(text: str) -> str:
    return " ".join(text.split())


_LEAD_MARKER = re.compile(r"(?:(?:[IVXLC]{1,6}|\d{1,3}|[a-z])(?:\s*[.)]\s*[-–—]?|\s*[-–—])|[-–—•])\s+(?=\S)")
_CLAUSE_BREAK = re.compile(r"[,;:–—]\s+")


def _excerpt(passage: str, sentence: tuple[int, int], hits: list[tuple[int, int]], from_start: bool = False) -> str:
    """The sentence on one line without its list marker ("2.", "IV –"); a long one cut to the stretch from the
    clause where its first matched word stands (or from its start), in whole words."""
    start, end = sentence
    if marker := _LEAD_MARKER.match(passage, start, end):
        start = marker.end()
    text = _one_line(passage[start:end])
    if len(text) <= QUOTE_CHARS:
        return text
    first = start
    if hits and not from_start and hits[0][0] - start > 30:
        hit = hits[0][0]
        clauses = list(_CLAUSE_BREAK.finditer(passage, max(start, hit - 80), hit))
        first = clauses[-1].end() if clauses else hit - 30
        while first > start and not passage[first - 1].isspace():  # whole words only
            first -= 1
    last = min(end, first + EXCERPT_CHARS)
    while last < end and not passage[last].isspace():
        last += 1
    text = _one_line(passage[first:last]).rstrip(" ,;:")
    if last < end and " " in text and fold_lower(text.rsplit(" ", 1)[1]).rstrip(".") in _ABBREVIATIONS:
        text = text.rsplit(" ", 1)[0].rstrip(" ,;:")  # not "nos termos do art.…"
    return ("…" if first > start else "") + text + ("…" if last < end else "")


_INNER_QUOTES = str.maketrans({"“": "‘", "”": "’"})


def _nested(excerpt: str) -> str:
    """The excerpt's own quotation marks as single ones, the quote within a quote of Portuguese typography (ABNT):
    the line wraps it in “ ”, and a sentence that ends on its own closing mark (“... COMPROMISSÓRIA “PATOLÓGICA””)
    read with two, an inner quote's end taken for the line's."""
    return excerpt.translate(_INNER_QUOTES)


_PRECEDENT = re.compile(r"^(?:(?:AgInt|AgRg|AgR|EDcl|ED)\s+n[oa]s?\s+)*[A-Z][A-Za-z]{1,6}\s+[\d.]+(?:/[A-Z]{2})?$")
_FEMININE = ("Lei", "LC", "Súmula", "Resolução", "MP", "IN", "Portaria", "EC", "CF", "CLT", "LINDB", "Emenda")


def _with_article(citation: str) -> str:
    """ "o CDC, art. 14", "a Lei 9.307/1996", "o REsp 1.602.076/SP", "o processo 0017387-33.2017.8.19.0000"."""
    if re.match(r"^\d{7}-\d{2}\.", citation):
        return "o processo " + citation
    first = citation.split()[0].split(",")[0].split("/")[0]
    return ("a " if first in _FEMININE else "o ") + citation


def _most_specific(citations: list[str], limit: int = 2) -> list[str]:
    """Ids no other one refines ("CDC, art. 14" over "CDC"), in the order cited; siblings written together
    ("art. 81, parágrafo único, I, II e III") are named by what they share ("CDC, art. 81, parágrafo único")."""
    leaves = [c for c in citations if not any(other.startswith(c + ",") for other in citations)]
    chosen: list[str] = []
    for leaf in leaves:
        parent = leaf.rsplit(", ", 1)[0] if ", " in leaf else None
        siblings = [c for c in leaves if parent and c.rsplit(", ", 1)[0] == parent]
        name = parent if parent and len(siblings) > 1 and "," in parent else leaf
        if name not in chosen:
            chosen.append(name)
    return chosen[:limit]


CITATION_CHARS = 600
"""Citations are read in at most about this much of the chosen sentence (their parser costs ~1.5 µs a
character): a longer sentence is read in the clauses, between semicolons, around its first matched word."""


def _citation_window(passage: str, sentence: tuple[int, int], hits: list[tuple[int, int]]) -> tuple[int, int]:
    """The sentence, or for a long one its ";"-clauses around the first hit (a citation does not cross a
    semicolon, so none is cut in half and bound to the wrong act); the whole sentence when it has none."""
    start, end = sentence
    if end - start <= CITATION_CHARS:
        return sentence
    cuts = [start, *(start + m.end() for m in re.finditer(";", passage[start:end])), end]
    if len(cuts) == 2:
        return sentence
    at = hits[0][0] if hits else start
    i = max(bisect_right(cuts, at) - 1, 0)
    first, last = i, min(i + 1, len(cuts) - 1)
    while cuts[last] - cuts[first] < CITATION_CHARS // 2 and (first > 0 or last < len(cuts) - 1):
        if last < len(cuts) - 1:
            last += 1
        if first > 0 and cuts[last] - cuts[first] < CITATION_CHARS // 2:
            first -= 1
    return cuts[first], cuts[last]


@lru_cache(maxsize=2048)
def _citations_in(
    text: str, dated: date | None = None, before: str = "", foreign: bool | None = None
) -> tuple[str, ...]:
    """extract_citations of a passage or sentence, once: the parser is most of an explanation's cost, and the
    passages a firm's searches show recur (the same decision for the next query, a second page, a colleague).
    A bare "CPC" takes the edition named in the passage before the sentence (`before`), else the one in force at
    the document's date (`dated`): "art. 585 do CPC" in a decision judged in 2012 is the CPC/1973's. `foreign`:
    the passage is under Portugal's law (under_portuguese_law), where a bare "CPC" is not Brazil's and is not named."""
    return tuple(extract_citations(text, year=dated, before=before, foreign=foreign))


def _cited(passage: str, window: tuple[int, int], citations: list[str] | None, dated: date | None = None) -> list[str]:
    """What the chosen sentence cites; else, when the caller gives stored ids, what the rest of the passage
    itself cites. The stored ids are the document's (every chunk row carries the document's citations), so
    one is named only when the passage's own text yields it too: the reason must be true of the passage shown,
    not of a page it does not show."""
    foreign = under_portuguese_law(passage)  # the whole passage says so better than the sentence alone
    found = _most_specific(list(_citations_in(passage[window[0] : window[1]], dated, passage[: window[0]], foreign)))
    if not found and citations:
        own = _sentence_citations(passage, dated, foreign)
        found = _most_specific([c for c in citations if c in set(own)] or own)
    return [remove_identifiers(c) or c for c in found]


def _sentence_citations(passage: str, dated: date | None = None, foreign: bool | None = None) -> list[str]:
    """What the passage cites, each sentence read alone: an article takes the act named nearest it in its own
    sentence, never one a sentence before ("O CPC prevê a impugnação. O art. 33, § 3º ..." cited "CPC/2015, art.
    33, § 3º" where the passage applied the Lei 9.307/1996); an article whose act is only in another sentence is
    left out of the reason."""
    found: list[str] = []
    for start, end in _sentence_spans(passage):
        for citation in _citations_in(passage[start:end], dated, passage[:start], foreign):
            if citation not in found:
                found.append(citation)
    return found


_CUT_REFERENCE = re.compile(r"(?:[a-z]\.\s+)?(?:§+\s*)?(?:\d[\d.]*|[IVXLC]+|únic[oa])\s*[º°ª]?\.?\s*[,;]\s")
"""A passage opening inside a reference: the chunker's overlap starts a passage at any word, so one may open on
the tail of "art. 3.º, §2.º, do CDC" ("3.º, §2.º, do CDC” (A vulnerabilidade ...") or of a footnote's
"v. 54, n. 342, p. 34" ("54, n. 342, ..."): the article word, the act or the work it belongs to is in the
passage before."""
_REFERENCE_WORDS_TEXT = (
    "art arts inc incs al n nº no nos p pp v vol c c/c e do da dos das de cf jan fev mar abr mai jun jul ago set out "
    "nov dez"
)
_REFERENCE_WORDS = frozenset(_REFERENCE_WORDS_TEXT.split())


def _past_cut_reference(passage: str, start: int, end: int) -> int:
    """Where the words of a passage's opening sentence start after the cut reference it opens with (see
    _CUT_REFERENCE): its numbers, paragraphs, items, roman numerals, acronyms ("CDC", "LICC") and the short words
    between them are skipped; `start` when the sentence does not open with one."""
    if not _CUT_REFERENCE.match(passage, start, end):
        return start
    for token in re.finditer(r"\S+", passage[start:end]):
        word = token.group(0).strip("”“\"'’‘)(][.,;:")
        bare = fold_lower(word.rstrip("ºª°"))
        if (
            not word
            or re.fullmatch(r"§*[\d./-]*\d[\d./-]*[ºª°o]?|[IVXLC]+|§+\w*", word)
            or re.fullmatch(r"\(?[a-z][.)][,;]?", token.group(0))  # "c)", "a." (ano), not the article "o"
            or bare in _REFERENCE_WORDS
            or bare in ("unico", "unica")
            or (len(word) >= 2 and word.isupper())
        ):
            continue
        return start + token.start()
    return end


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " e " + items[-1]


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


_PARTICLES = frozenset({"de", "da", "do", "das", "dos", "e", "a", "o", "em", "para", "com"})


def _abbreviation_of(one: str, other: str) -> bool:
    """Whether one name is the other's initials ("CDC" and "Código de Defesa do Consumidor", "EPP" and "empresa de
    pequeno porte"): the query then already said what a concept line would say, and the line is filler."""
    short, long = sorted((fold_lower(one).strip(), fold_lower(other).strip()), key=len)
    if " " in short or not short.isalpha() or " " not in long:
        return False
    words = re.findall(r"[a-z]+", long)
    initials = "".join(w[0] for w in words)
    significant = "".join(w[0] for w in words if w not in _PARTICLES)
    return short in (initials, significant)


_NUMBERED = re.compile(r"(?:\d{1,2}(?:\.\d{1,2})*\.?|[IVXLC]{1,6}\s*[.–—-])\s+[A-ZÀ-Ý]")


def _heading(sentence: str) -> bool:
    """An ementa's keyword heading (all capitals) or a section's numbered title on a line of its own ("2.6.3 Aluguel
    social no Brasil"): a numbered title was the card's reason 25 times in the 1,855 cards of the paraphrase and judged
    queries' top 5 on the archive and docs, 6 with this weight, where the section's sentences say the same words as
    a statement ("... a utilização, ainda que parca, do aluguel social no Brasil.")."""
    return sentence.isupper() or (
        "\n" not in sentence.strip()
        and len(sentence) <= SHORT_LINE
        and bool(_NUMBERED.match(sentence))
        and not sentence.rstrip().endswith((".", ";", ":"))
    )


def explain(
    query: str,
    passage: str,
    section_path: str | None,
    citations: list[str] | None = None,
    dated: date | None = None,
) -> Explanation:
    """Why this passage answers the query, from the passage alone (see the module docstring).

    citations: the stored citation ids (the document's), when the chosen sentence cites nothing itself: of
    them only those the passage's own text cites are named (see _cited).
    dated: the document's date, which says which code a bare "CPC" or "Código Civil" is (_citations_in).
    """
    role = section_role(section_path)
    folded = _folded(passage)
    found_words = _matches(query, passage)
    words = tuple(
        w for w, kept in zip(found_words, _outside_formulas(passage, [w[0] for w in found_words]), strict=True) if kept
    )
    concepts = [
        (match, [s for s, kept in zip(found, _outside_formulas(passage, [s[0] for s in found]), strict=True) if kept])
        for match, found in _concepts_in(query, passage, folded)
    ]
    concepts = [(match, found) for match, found in concepts if found]  # a formula's words are no reason (see above)
    # A sentence that opens on a cut reference (the passage's first, a footnote's year after a page break) is
    # read and quoted from past it, as a cut ("…"); the reference's words are no reason.
    spans, cut, skipped = [], set(), []
    for start, end in _sentence_spans(passage):
        past = _past_cut_reference(passage, start, end)
        if past > start:
            skipped.append((start, past))
            if past < end:
                cut.add(len(spans))
        if past < end:
            if spans and passage[past].islower():  # the tail of a sentence a page's footnotes cut (_PAGE_BREAK)
                cut.add(len(spans))
            spans.append((past, end))
    if skipped:

        def kept(position: int) -> bool:
            return not any(a <= position < b for a, b in skipped)

        words = tuple(w for w in words if kept(w[0]))
        concepts = [(match, [s for s in found if kept(s[0])]) for match, found in concepts]
        concepts = [(match, found) for match, found in concepts if found]
    if not spans or not (words or concepts):
        honest = "proximidade de sentido, sem os termos da consulta."  # only the dense similarity brought it
        if any(_in_reference(passage, start) for start, _, _ in found_words):
            honest = "proximidade de sentido; os termos da consulta só aparecem em referências bibliográficas."
        return Explanation(f"Trecho {_ROLES[role][1]}: {honest}" if role else _sentence_case(honest), None)

    starts = [start for start, _ in spans]

    def sentence_of(position: int) -> int:
        return max(bisect_right(starts, position) - 1, 0)

    stems: dict[str, set[int]] = {}
    for start, _, word in words:
        stems.setdefault(strip_marks(word.lower())[:6], set()).add(sentence_of(start))
    weight = _weights(stems, len(spans))
    scores = [0.0] * len(spans)
    for stem, found in stems.items():
        for i in found:
            scores[i] += weight[stem]
    concept_weight = max(weight.values(), default=1.0) + 0.5  # the concept named otherwise is the query's core
    by_sentence: dict[int, list[tuple[ConceptMatch, tuple[int, int]]]] = {}
    for match, found_spans in concepts:
        for i in {sentence_of(start) for start, _ in found_spans}:
            scores[i] += concept_weight
            by_sentence.setdefault(i, []).append((match, next(s for s in found_spans if sentence_of(s[0]) == i)))
    for i, (start, end) in enumerate(spans):
        if _heading(passage[start:end]):  # an ementa's keyword heading, a section's title: an index, not the thesis
            scores[i] *= 0.9
    for i in cut | ({0} if passage[spans[0][0]].islower() else set()):
        scores[i] *= 0.8  # a mid-sentence tail (the passage opens on one) quotes badly: a whole sentence wins ties
    best = max(range(len(spans)), key=lambda i: (scores[i], -(spans[i][1] - spans[i][0]) / 2000, -i))
    sentence = spans[best]

    hits = sorted(
        [(s, e) for s, e, _ in words if sentence[0] <= s < sentence[1]]
        + [span for _, span in by_sentence.get(best, [])]
    )
    excerpt = _excerpt(passage, sentence, hits, from_start=role in _RESULTS).rstrip(".")
    if best in cut and not excerpt.startswith("…"):
        excerpt = "…" + excerpt
    # The card goes where the passage does not (pasted into a petition, listed under "citado por"): a person's CPF,
    # OAB number or phone stays in the passage, never in the line (issue 36 item 2; archive d16 quoted an OAB number).
    quote = f"“{_nested(remove_identifiers(excerpt) or '…')}”"
    lead = f"{_ROLES[role][0]}: {quote}." if role else f"O trecho diz: {quote}."
    details: list[str] = []
    named = by_sentence.get(best, [])[:2]
    for match, (start, end) in named:
        other = _one_line(passage[start:end])
        if not _abbreviation_of(match.written, other):  # "CDC" for "Código de Defesa do Consumidor" says nothing new
            details.append(f"trata de {match.written} sob outro nome: “{other}”")
    if role not in ("cabecalho", "certidao", "preambulo"):  # there, the case's or act's own number would read as cited
        said = {act for match, _ in named for name in match.concept.names for act in _name_acts(name)}
        window = _citation_window(passage, sentence, hits)
        if cited := [c for c in _cited(passage, window, citations, dated) if c not in said]:
            details.append("cita " + _join([_with_article(c) for c in cited]))
    text = lead if not details else f"{lead} {_sentence_case('; '.join(details))}."
    return Explanation(text, sentence)
