"""Which kind of document a text is (the document-type codes of precedente.shared.legal.codes), by the fixed formulas
Brazilian legal documents announce themselves with: the "ACÓRDÃO" heading, "Vistos, relatados e discutidos",
"EXCELENTÍSSIMO SENHOR JUIZ", mail headers, "PARECER Nº", "LEI Nº 8.078", "DIRECTIVE 2011/83/EU",
"Jurisprudência em Teses", and for doctrine the apparatus of academic writing (abstract, key words, ISSN,
"Dissertação apresentada ao Programa de Pós-Graduação").

Matching is on the accent-folded opening of the document (precedente.shared.legal.document_text), most specific rule
first; "outro" when none fires. The subtype (which act, work or filing: precedente.shared.legal.codes.DOCUMENT_SUBTYPES)
is read by guess_subtype.
"""

import re

from precedente.shared.legal import process_numbers
from precedente.shared.legal.doctrine import is_byline
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.payloads import Page

__all__ = ["COMPILATION", "OPENING_LINES", "guess_document_type", "guess_subtype", "guess_type"]

_EMAIL_FROM = re.compile(r"^(?:De|From|Remetente)\s*:", re.I)
_EMAIL_OTHER = re.compile(r"^(?:Para|To|Assunto|Subject|Cc|Enviad[oa](?: em)?|Sent|Data|Date)\s*:", re.I)
_ADDRESSING = re.compile(r"^(?:EXCELENTISSIM[OA]|EXM[OA]\b|EGREGI[OA]|ILUSTRISSIM[OA]|ILM[OA]\b)", re.I)
_FILING = re.compile(r"\b(?:propor|ajuizar|promover|impetrar|oferecer|interpor|acao|requer(?:er)?)\b", re.I)
# "Vistos e examinados" also opens sentenças; the "acordam os/em" formula is the collegiate one.
_ACORDAO = re.compile(
    r"vistos,?\s+relatados\s+e\s+discutidos|\bacordam\b,?\s+(?:os|as|em|a|o)\b|"
    r"^(?:JUDGMENT\s+OF\s+THE\s+(?:GENERAL\s+)?COURT|ACORDAO\s+DO\s+TRIBUNAL(?:\s+GERAL)?)\b",
    re.I | re.M,
)
# The STF's inteiro teor opens on the session's date and the collegiate body ("16/12/2024" / "PLENÁRIO"): an
# acórdão, whose "Vistos, relatados e discutidos" may come after three pages of parties (i277, Tema 1.234).
COLLEGIATE_SESSION = re.compile(r"^\d{2}/\d{2}/\d{4}\s*\n(?:PLENARIO|PRIMEIRA TURMA|SEGUNDA TURMA)\s*$", re.I | re.M)
# Part of a collegiate judgment without its ementa: a report and a vote signed by a minister or judge.
_REPORT_BY = re.compile(r"^(?:O|A)\s+(?:SENHOR|SENHORA|EXMO\.?|EXMA\.?)\s+(?:MINISTR[OA]|DESEMBARGADOR[A]?)\b", re.M)
_JULGO = re.compile(r"\bJULGO\b|\bjulgo\s+(?:procedente|improcedente|extint)", re.I)
_DECIDO = re.compile(r"\bdecido\b|\bmonocr[aá]tica", re.I)
_RULES_ALONE = re.compile(
    r"\b(?:nego|dou)(?:-lhes?)?\s+(?:parcial\s+)?provimento\b|\bnao\s+conheco\b|\bconheco\s+(?:em\s+parte\s+)?d[oa]s?\b|"
    r"\b(?:in)?defiro\b|\bhomologo\b|\bjulgo\s+prejudicad|\b(?:acolho|rejeito)\s+os\s+embargos\b|"
    r"\b(?:concedo|denego)\s+a\s+ordem\b|\b(?:nega|da)-se\s+(?:parcial\s+)?provimento\b|"
    r"\b(?:rejeitam|acolhem)-se\s+os\s+embargos\b|\bnao\s+se\s+conhece\b",
    re.I,
)
"""A single judge ruling in the first person ("não conheço do habeas corpus", "nego-lhe provimento", "acolho os
embargos") or impersonally ("nega-se provimento", "rejeitam-se os embargos"), in the folded text of a decision's last
pages: an STJ monocrática says "decido" nowhere in 47 of 150 sampled (../shared/corpus), and since 2024 many open with
an EMENTA where the DECISÃO heading was."""
_PARECER = re.compile(r"^PARECER\b", re.I)
_CONTRATO = re.compile(r"^(?:CONTRATO|Contrato)\b")
_CLAUSULA = re.compile(r"\bcl[aá]usula\b", re.I)
_SUMULA = re.compile(r"^SUMULA(?:\s+VINCULANTE)?\s+(?:N[º°o.]*\s*)?\d+", re.I)
_NORMATIVE_KINDS = (
    r"LEI(?:\s+COMPLEMENTAR)?|DECRETO(?:-LEI)?|RESOLUCAO|INSTRUCAO\s+NORMATIVA|MEDIDA\s+PROVISORIA|"
    r"EMENDA\s+CONSTITUCIONAL|PROVIMENTO|PORTARIA\s+NORMATIVA|DELIBERACAO|REGIMENTO\s+INTERNO"
)
# "LEI Nº 8.078", "RESOLUÇÃO 228, DE", and with the issuer between kind and number: "PROVIMENTO/CGJ N. 2",
# "PROVIMENTO TRT 18ª SCR Nº 4/2012", "RESOLUÇÃO CNJ Nº 125".
_BR_ACT = (
    rf"(?:{_NORMATIVE_KINDS})(?:\s*/\s*[A-Z]{{2,10}}|\s+[A-Z]{{2,6}}(?:\s+\d{{1,2}}[ªa])?(?:\s+[A-Z]{{2,6}})?)?"
    r"(?:\s+N[º°o.]*\s*|\s+)\d"
)
# EU acts: "DIRECTIVE 2002/22/EC OF THE", "REGULATION (EU) No 524/2013", "REGULAMENTO (UE) 2022/1925 DO",
# "DIRECTIVA 2005/29/CE DO", a corrigendum "Rectificação ao Regulamento (CE) n.o 593/2008".
EU_ACT = (
    r"(?:(?:RECTIFICACAO|RETIFICACAO|CORRIGENDUM)\s+(?:AO?|DA|DO|TO(?:\s+THE)?)\s+)?"
    r"(?P<eu_kind>DIRECTIVE|DIRECTIVA|DIRETIVA|REGULATION|REGULAMENTO|DECISION|DECISAO)\s*"
    r"(?:\((?:EU|UE|CE|EC|EEC|CEE|EURATOM)\)\s*)?(?:N[º°o.]*\s*\.?\s*(?:o\s+)?)?"
    r"(?P<eu_number>\d{2,4}/\d{1,4}(?:/(?:EU|UE|CE|EC|EEC|CEE))?)\b"
)
_NORMATIVE = re.compile(rf"^(?:{_BR_ACT}|{EU_ACT})", re.I)
# A code or statute named by its title, with articles below: "CÓDIGO DE ÉTICA E DISCIPLINA DA OAB".
_CODE_TITLE = re.compile(r"^(?:CODIGO|ESTATUTO|REGIMENTO|CONSOLIDACAO|REGULAMENTO\s+GERAL)\s+(?:DE|DA|DO|DOS|DAS)\s+")
# A foreign constitution or statute by the title it opens with, in capitals: "BASIC-LAW: ISRAEL - THE NATION STATE
# OF THE JEWISH PEOPLE", "CONSTITUTION OF THE REPUBLIC OF ...", "GRUNDGESETZ"; its provisions are numbered, not "Art.".
_FOREIGN_STATUTE = re.compile(
    r"^(?:BASIC[- ]LAW|LEI\s+FUNDAMENTAL|GRUNDGESETZ|CONSTITUTION\s+OF\s+THE|CONSTITUICAO\s+DA\s+REPUBLICA|"
    r"[A-Z][A-Z ]{2,80}\s+ACT,?\s+(?:19|20)\d{2})\b"
)
_PROVISION_LINE = re.compile(
    r"^\s*(?:Art\.?|Artigo|Article|Section|§)?\s*\d{1,3}\.?\s*$|^\s*\d{1,3}\.\s+\(?[a-zA-Z]", re.M
)
_ARTICLE_LINE = re.compile(r"^\s*(?:Art\.?|Artigo|Article)\s*\d{1,4}", re.M | re.I)
# Compilations of case law, by the title they print on their opening lines.
COMPILATION = re.compile(
    r"\bJurisprudencia\s+em\s+Teses\b|\bInformativo\s+(?:de\s+Jurisprudencia|n[º°o.]*\s*\d)|"
    r"\bperiodico\s+destaca\s+teses\b|\bEMENTARIO\b|\bJurisprudencia\s+Comentada\b|"
    r"\bRepositorio\s+de\s+Jurisprudencia\b",
    re.I,
)
# Doctrine: each kind of academic apparatus counts once; two kinds make a work of doctrine.
_DOCTRINE_SIGNS: dict[str, re.Pattern[str]] = {
    # "SUMÁRIO: 1 Introdução; 2 ..." (an article's own contents line): no word boundary after its colon.
    "abstract": re.compile(r"^(?:(?:RESUMO|Resumo|ABSTRACT|Abstract|RESUMEN)\b|(?:SUMARIO|Sumario)\s*:)", re.M),
    "keywords": re.compile(r"\b(?:Palavras[- ]chave|Key[- ]?words|Palabras\s+clave)\b", re.I),
    "serial": re.compile(r"\b(?:e-?ISSN|ISSN|ISBN|DOI)\b|\bdoi\.org/|\b10\.\d{4,5}/\S", re.I),
    "venue": re.compile(
        r"\b(?:Revista|Rev\.|Journal|Review|Cadernos?|Anais|Periodico|Law\s+Review)\b.{0,80}"
        r"(?:\bv\.\s*\d|\bvol\.\s*\d|\bn\.\s*\d|\bno?\.?\s*\d|\bano\s+\d|\b(?:19|20)\d{2}\b)|"
        r"^(?:Revista|REVISTA)\b|\bVolume\s+\d+\b|\bv\.\s*\d+,\s*n\.\s*\d+|\bAno\s+\d+\s+\((?:19|20)\d{2}\)",
        re.M,
    ),
    "academic": re.compile(
        # the cover's "Tese apresentada ao Programa...", capitalised: a decision weighs "a tese apresentada" by a party
        # (11 of 300 STJ monocráticas of ../shared/corpus were read as doctrine, and lost their court)
        r"\b(?-i:Tese|TESE|Dissertacao|DISSERTACAO|Monografia|MONOGRAFIA|Trabalho\s+de\s+Conclusao\s+de\s+Curso|"
        r"TRABALHO\s+DE\s+CONCLUSAO\s+DE\s+CURSO)\b.{0,60}"
        r"\b(?:apresentad[oa]|submetid[oa]|de\s+(?:Mestrado|Doutorado)|requisito)|"
        r"\bPrograma\s+de\s+Pos-?\s?Graduacao\b|\bOrientador[a]?\s*:|\bOrientad(?:or|ora)\b|"
        r"\b(?:Mestrado|Doutorado)\s+em\s+Direito\b|\bTese\s+de\s+(?:Doutorado|Livre)|"
        r"\b(?:PhD|Master'?s)\s+(?:thesis|dissertation)\b|Dados\s+Internacionais\s+de\s+Catalogacao|"
        r"\bProvas?\s+Comentadas?\b|\bQuestoes\s+Comentadas\b|\bSimulados?\s+Comentados?\b",
        re.I,
    ),
    "received": re.compile(
        r"\b(?:Recebido|Submetido|Aprovado|Aceito|Aceitacao|Received|Accepted|Published)\s*(?:em|on|:)", re.I
    ),
    "author": re.compile(
        r"^.{0,80}\b(?:Professor[a]?|Docente?|Advogad[oa]|Doutor[a]?|Mestre|Mestrand[oa]|Doutorand[oa]|Graduad[oa]|"
        r"Bacharel|Pesquisador[a]?|Lecturer|Auditor[a]?-Fiscal|University|PhD|LL\.?M)\b(?!\s*:)",
        re.M,
    ),
    "comment": re.compile(r"\bComentario\s+(?:por|de|a[oa]?)\b|^ARTIGO\s+ORIGINAL|^ARTICLE$", re.I | re.M),
    # A note on where the piece appeared: "Artigo publicado no jornal “O Liberal”", "Sobre o artigo:".
    "published": re.compile(
        r"\b(?:Artigo|Texto|Ensaio)\s+publicad[oa]\s+(?:n[oa]s?|em|originalmente)\b|\bSobre\s+o\s+(?:artigo|autor)\s*:|"
        r"\bArticle\s+(?:first\s+)?published\s+in\b",
        re.I,
    ),
}
_ADMINISTRATIVE = re.compile(
    r"^(?:PORTARIA|OFICIO|EDITAL|ATA|MEMORANDO|CIRCULAR|ORDEM\s+DE\s+SERVICO|AVISO|NOTA\s+TECNICA|"
    r"COMUNICADO|DESPACHO\s+ADMINISTRATIVO)\b(?:\s+N[º°o.]*\s*\d|\s*$|\s+\d|\s+D[AEO]S?\b)",
    re.I,
)

OPENING_LINES: dict[str, re.Pattern[str]] = {
    "parecer": _PARECER,
    "contrato": _CONTRATO,
    "sumula": _SUMULA,
    "ato_normativo": _NORMATIVE,
    "ato_administrativo": _ADMINISTRATIVE,
}
"""The folded line a document of these types opens with ("PARECER Nº 16/2022", "LEI Nº 8.078, ..."):
the type is read from it, and so is the title (precedente.shared.legal.titles)."""


def doctrine_signs(text: str) -> set[str]:
    """Which kinds of academic apparatus the (folded) text shows: abstract, key words, ISSN/DOI, ..."""
    return {kind for kind, pattern in _DOCTRINE_SIGNS.items() if pattern.search(text)}


def _is_doctrine(doc: DocumentText) -> bool:
    """Two kinds of academic apparatus in the opening pages (an author's credentials only on the first page,
    where an article presents its authors: its letterhead zone; a byline right under the title); a thesis's or a
    book's formula alone suffices."""
    signs = doctrine_signs(doc.fhead) - {"author"}
    if _DOCTRINE_SIGNS["author"].search(doc.fheader):
        signs.add("author")
    if any(is_byline(line) for _, line in doc.head_lines[1:4]):
        signs.add("byline")  # "Deusdedith Brasil (*)" under the title: an author with a footnote on who they are
    return len(signs) >= 2 or "academic" in signs


def guess_type(doc: DocumentText) -> str:
    """The first rule that fires, most specific first; "outro" when none does.

    A petition or an e-mail often quotes judgments, so their own markers (addressing a judge at
    the top, mail headers) are checked before the judgment formulas; so are a compilation's title
    and doctrine's apparatus, whose pages are full of quoted ementas and "acordam" formulas.
    """
    opening = doc.opening_lines(15)
    headings = set(doc.heading_lines())
    text = doc.fhead
    if any(_EMAIL_FROM.match(line) for line in opening) and any(_EMAIL_OTHER.match(line) for line in opening):
        return "email"
    if any(_ADDRESSING.match(line) for line in opening[:12]) and _FILING.search(text):
        return "peticao"
    # on a heading-length line: a decision copied as one paragraph names an "Informativo" inside its one long line
    if any(COMPILATION.search(line) for line in opening if len(line) <= 200):
        return "jurisprudencia_compilada"
    first = opening[:5]
    if any(_NORMATIVE.match(line) for line in opening[:8]):
        return "ato_normativo"
    if _is_doctrine(doc):
        return "doutrina"
    if (
        "ACORDAO" in headings
        or "EMENTAEACORDAO" in headings
        or _ACORDAO.search(text)
        or COLLEGIATE_SESSION.search(text)
    ):
        return "acordao"
    if "RELATORIO" in headings and _REPORT_BY.search(text):
        return "acordao"
    if "SENTENCA" in headings or (re.search(r"\bVistos\.", text) and _JULGO.search(text)):
        return "sentenca"
    if "DECISAOMONOCRATICA" in headings or (
        ("DECISAO" in headings or process_numbers.has_stj_caption(opening))
        and (_DECIDO.search(text) or _RULES_ALONE.search(doc.ffull[-6000:]))
    ):
        return "decisao_monocratica"
    if any(_PARECER.match(line) for line in opening):
        return "parecer"
    if "DESPACHO" in headings:
        return "despacho"
    if any(_CONTRATO.match(line) for line in opening) and _CLAUSULA.search(text):
        return "contrato"
    if any(_SUMULA.match(line) for line in first):
        return "sumula"
    if any(_CODE_TITLE.match(line) for line in first) and len(_ARTICLE_LINE.findall(doc.ffull)) >= 5:
        return "ato_normativo"
    if any(_FOREIGN_STATUTE.match(line) for line in opening[:2]) and len(_PROVISION_LINE.findall(doc.fhead)) >= 2:
        return "ato_normativo"
    if any(_ADMINISTRATIVE.match(line) for line in first):
        return "ato_administrativo"
    return "outro"


_ACT_KINDS = (
    (r"LEI\s+COMPLEMENTAR", "lei_complementar"),
    (r"LEI", "lei"),
    (r"DECRETO-LEI", "decreto_lei"),
    (r"DECRETO", "decreto"),
    (r"MEDIDA\s+PROVISORIA", "medida_provisoria"),
    (r"EMENDA\s+CONSTITUCIONAL", "emenda_constitucional"),
    (r"RESOLUCAO|DELIBERACAO", "resolucao"),
    (r"PROVIMENTO", "provimento"),
    (r"PORTARIA", "portaria"),
    (r"INSTRUCAO\s+NORMATIVA", "instrucao_normativa"),
    (r"REGIMENTO", "regimento"),
    (r"CODIGO|ESTATUTO|CONSOLIDACAO|REGULAMENTO\s+GERAL", "codigo"),
    (r"BASIC[- ]LAW|LEI\s+FUNDAMENTAL|GRUNDGESETZ|CONSTITUTION|CONSTITUICAO", "lei"),
    (r"(?:RECTIFICACAO|RETIFICACAO|CORRIGENDUM)\b", "retificacao"),
    (r"DIRECTIVE|DIRECTIVA|DIRETIVA", "diretiva"),
    (r"REGULATION|REGULAMENTO", "regulamento"),
    (r"DECISION|DECISAO", "decisao_ue"),
)
_ADMINISTRATIVE_KINDS = (
    (r"PORTARIA", "portaria"),
    (r"OFICIO", "oficio"),
    (r"EDITAL", "edital"),
    (r"ATA", "ata"),
    (r"MEMORANDO", "memorando"),
    (r"CIRCULAR", "circular"),
    (r"NOTA\s+TECNICA", "nota_tecnica"),
)
_THESIS_FORMULA = re.compile(
    r"\b(?:apresentad[oa]|submetid[oa])\s+(?:ao|a|a\s+banca|perante)\s|\brequisito\s+(?:parcial\s+)?(?:para|a|à)\s|"
    r"\bOrientador[a]?\b|\bsupervisor\b|\bBanca\s+Examinadora\b",
    re.I,
)
_THESIS_KINDS = (
    (r"Tese\s*\(?\s*(?:de\s+)?Doutorado|Tese\s+(?:apresentada|submetida)|\bDoutorado\s+em\b|Doctoral", "tese"),
    (r"Disserta(?:cao|tion)|Mestrado|Master", "dissertacao"),
    (r"Monografia|Trabalho\s+de\s+Conclusao|Bacharel(?:ado)?\s+em\s+Direito", "monografia"),
)
_DOCTRINE_KINDS = (
    (r"\bProvas?\s+Comentadas?\b|\bQuestoes\s+Comentadas\b|\bSimulados?\s+Comentados?\b", "material_didatico"),
    (r"Dados\s+Internacionais\s+de\s+Catalogacao|\bISBN\b", "livro"),
    (r"Comentario\s+(?:por|de|a[oa]?)\b|\bComentario\b\s*$", "comentario"),
)
_COMPILATION_KINDS = (
    (r"Jurisprudencia\s+em\s+Teses", "jurisprudencia_em_teses"),
    (r"Informativo|periodico\s+destaca\s+teses", "informativo"),
    (r"EMENTARIO", "ementario"),
    (r"Jurisprudencia\s+Comentada", "jurisprudencia_comentada"),
)
_PETITION_KINDS = (
    (r"^CONTRARRAZOES|^CONTRA-RAZOES|\bapresentar\s+(?:suas\s+)?contrarrazoes", "contrarrazoes"),
    (r"^CONTESTACAO\b|\bapresentar\s+(?:sua\s+)?CONTESTACAO|\boferecer\s+CONTESTACAO", "contestacao"),
    (r"^REPLICA\b|^IMPUGNACAO\s+A\s+CONTESTACAO|\bapresentar\s+REPLICA", "replica"),
    (r"^MEMORIAIS\b|\bapresentar\s+(?:seus\s+)?MEMORIAIS", "memoriais"),
    (r"^RAZOES\s+D[EO]\s+(?:RECURSO|APELACAO|AGRAVO)|\binterpor\b", "recurso"),
    (r"\b(?:propor|ajuizar|promover|impetrar)\b", "peticao_inicial"),
)


def _first_kind(kinds: tuple[tuple[str, str], ...], text: str, flags: int = re.I | re.M) -> str | None:
    """The subtype whose pattern matches earliest in the text."""
    found = [(m.start(), code) for pattern, code in kinds if (m := re.search(pattern, text, flags))]
    return min(found)[1] if found else None


def guess_subtype(doc: DocumentText, document_type: str) -> str | None:
    """Which act, work or filing a document of this type is (codes of precedente.shared.legal.codes.DOCUMENT_SUBTYPES);
    None when the text does not say."""
    opening = doc.opening_lines(15)
    if document_type in ("ato_normativo", "ato_administrativo"):
        title = next((line for line in opening if _NORMATIVE.match(line) or _CODE_TITLE.match(line)), None) or next(
            (line for line in opening[:2] if _FOREIGN_STATUTE.match(line)), None
        )
        if document_type == "ato_administrativo" or title is None:
            title = next((line for line in opening[:5] if _ADMINISTRATIVE.match(line)), title)
            kinds = _ADMINISTRATIVE_KINDS if document_type == "ato_administrativo" else _ACT_KINDS
        else:
            kinds = _ACT_KINDS
        if title is None:
            return None
        return next((code for pattern, code in kinds if re.match(pattern, title, re.I)), None)
    if document_type == "doutrina":
        head = "\n".join(doc.fhead.splitlines()[:200])
        thesis = _first_kind(_THESIS_KINDS, head) if _THESIS_FORMULA.search(head) else None
        return thesis or _first_kind(_DOCTRINE_KINDS, head) or "artigo"
    if document_type == "jurisprudencia_compilada":
        return _first_kind(_COMPILATION_KINDS, "\n".join(opening))
    if document_type == "peticao":
        return _first_kind(_PETITION_KINDS, doc.fhead) or "manifestacao"
    if document_type == "sumula":
        head = "\n".join(opening[:5])
        if re.search(r"^SUMULA\s+VINCULANTE", head, re.I | re.M):
            return "sumula_vinculante"
        return "enunciado" if re.search(r"^ENUNCIADO", head, re.I | re.M) else "sumula"
    return None


def guess_document_type(pages: list[Page]) -> str:
    """The document-type code of the pages (what the chunker uses before the annotator runs)."""
    return guess_type(DocumentText(pages))
