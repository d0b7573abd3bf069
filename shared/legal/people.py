"""Whether a value read after a relator's or judge's label is a person's name, and not the party, the court or
the heading that a caption's next line holds.

A card once cited "TJDFT, 0740303-79.2019.8.07.0001, Rel. Des. Distribuidora Brasilia de Veiculos S/a e Oct
Veiculos Ltda": the parties' line stood as the relator. A name is 2 to 9 words, each a capitalised word, an
initial or a particle (de, da, do, dos, das, e, d'); no digit, no company marker (S/A, Ltda, ME, EPP, EIRELI,
Cia), no word that names an institution, a role or a part of a decision (Banco, Distribuidora, Ministério,
Estado, Turma, Câmara, Recorrente, Ementa ...), and no "e" joining two names of two words or more (two
parties). A field that fails is left out of the citation: never filled with the nearest text.
"""

import re

from precedente.shared.legal.text import fold

__all__ = ["is_person_name"]

_PARTICLES = frozenset({"de", "da", "do", "dos", "das", "e", "d'", "del", "di", "van", "von", "la", "le"})
_COMPANY = re.compile(
    r"(?:^|\s)(?:s\s*/\s*a|s\.\s*a\.?|ltda\.?|me|epp|eireli|cia\.?|s/c|mei|inc\.?|corp\.?|llc|ltd\.?|gmbh)(?=\s|$|[.,])",
    re.I,
)
_NOT_NAME_WORDS = frozenset(
    """
    banco bancos distribuidora distribuidor comercio comercial industria industrial empresa empresas companhia
    veiculos seguros seguradora financeira credito investimentos participacoes servicos transportes construtora
    incorporadora administradora associacao sindicato cooperativa fundacao instituto condominio igreja clube
    editora agencia telecomunicacoes energia saneamento engenharia consultoria advogados advocacia sociedade grupo
    holding brasil brasileira brasileiro nacional federal estadual municipal municipio estado uniao fazenda
    ministerio publico defensoria procuradoria tribunal turma camara secao vara juizo juizado comarca forum
    plenario pleno corte orgao especial civel criminal regiao justica poder judiciario gabinete conselho
    recorrente recorrido recorrida agravante agravado agravada apelante apelado apelada embargante embargado
    embargada impetrante impetrado autor autora reu requerente requerido requerida interessado advogado
    advogada advogados procurador procuradora paciente exequente executado outro outros outra outras
    ementa acordao relatorio voto decisao despacho sentenca certidao processo recurso agravo apelacao
    embargos classe origem assunto relator relatora revisor revisora presidente vogal convocado convocada
    substituto substituta designado designada lei artigo agte agtes agdo agda agdos recte recdo recda impte impdo
    pacte embte embdo reqte reqdo adv advs intdo intda
    """.split()  # noqa: SIM905 - a word list reads best as text
)
_INITIAL = re.compile(r"^(?:[A-ZÀ-Ý]\.){1,4}$|^[A-ZÀ-Ý]$")
_WORD = re.compile(r"^[A-ZÀ-Ý][a-zà-ÿA-ZÀ-Ý'’´-]*\.?$")


def is_person_name(value: str | None) -> bool:
    """Whether the value reads as one person's name (see the module docstring); titles ("Ministro", "Des.")
    are expected already cut."""
    if not value:
        return False
    text = re.sub(r"\s+", " ", value).strip(" .,;:")
    if not text or _COMPANY.search(text) or re.search(r"[\d@()|:;/]", text):
        return False
    words = text.split()
    if not 2 <= len(words) <= 9:
        return False
    folded = [fold(w).lower().strip(".,'’") for w in words]
    if any(w in _NOT_NAME_WORDS for w in folded):
        return False
    if folded[0] in _PARTICLES or folded[-1] in _PARTICLES:
        return False
    names = 0
    for word, low in zip(words, folded, strict=True):
        if low in _PARTICLES:
            continue
        if not (_WORD.match(word) or _INITIAL.match(word)):
            return False
        names += 1
    if names < 2:
        return False
    if "e" in folded:  # "Fulano de Tal e Beltrano Silva": two parties, not one name ("Nogueira e Silva" is one)
        i = folded.index("e")
        left = [w for w in folded[:i] if w not in _PARTICLES]
        right = [w for w in folded[i + 1 :] if w not in _PARTICLES]
        if len(left) >= 2 and len(right) >= 2:
            return False
    return True
