"""Canonical codes for document types and courts, their display labels, and the normalisation
that turns whatever a submitter or an older payload wrote ("Acórdão", "TJ-SP", "TRE/SP") into a code.

Codes are what the pipeline stores and filters on: lower-case ASCII, stable, one per thing
("acordao", "stj", "tjsp", "trf3", "trt2", "tre_sp", "tce_mg", "mpmg", "carf"). Labels are for people
("Acórdão", "STJ", "TRE-SP"); the API and UI turn a code into its label with `label()`.
"""

import re

from precedente.shared.legal.text import fold

DOCUMENT_TYPE_LABELS: dict[str, str] = {
    "acordao": "Acórdão",
    "sentenca": "Sentença",
    "decisao_monocratica": "Decisão monocrática",
    "despacho": "Despacho",
    "parecer": "Parecer",
    "peticao": "Petição",
    "contrato": "Contrato",
    "sumula": "Súmula / enunciado",
    "ato_normativo": "Ato normativo",
    "ato_administrativo": "Ato administrativo",
    "doutrina": "Doutrina",
    "jurisprudencia_compilada": "Jurisprudência compilada",
    "email": "E-mail",
    "outro": "Outro",
}
DOCUMENT_TYPES = tuple(DOCUMENT_TYPE_LABELS)
DECISION_TYPES = frozenset({"acordao", "sentenca", "decisao_monocratica", "despacho"})

# What kind of act, work or filing a document of a type is: code -> label, grouped by the type they refine.
# One vocabulary with the types: document_subtype always holds one of these codes.
DOCUMENT_SUBTYPES: dict[str, dict[str, str]] = {
    "ato_normativo": {
        "lei": "Lei",
        "lei_complementar": "Lei complementar",
        "decreto": "Decreto",
        "decreto_lei": "Decreto-lei",
        "medida_provisoria": "Medida provisória",
        "emenda_constitucional": "Emenda constitucional",
        "resolucao": "Resolução",
        "provimento": "Provimento",
        "portaria": "Portaria",
        "instrucao_normativa": "Instrução normativa",
        "codigo": "Código",
        "regimento": "Regimento",
        "diretiva": "Diretiva (UE)",
        "regulamento": "Regulamento (UE)",
        "decisao_ue": "Decisão (UE)",
        "retificacao": "Retificação",
    },
    "ato_administrativo": {
        "portaria": "Portaria",
        "oficio": "Ofício",
        "edital": "Edital",
        "ata": "Ata",
        "memorando": "Memorando",
        "circular": "Circular",
        "nota_tecnica": "Nota técnica",
        "decisao_administrativa": "Decisão administrativa",
    },
    "doutrina": {
        "artigo": "Artigo",
        "tese": "Tese de doutorado",
        "dissertacao": "Dissertação de mestrado",
        "monografia": "Monografia / TCC",
        "livro": "Livro / coletânea",
        "capitulo": "Capítulo de livro",
        "comentario": "Comentário de jurisprudência",
        "material_didatico": "Material didático (prova ou questões comentadas)",
    },
    "jurisprudencia_compilada": {
        "jurisprudencia_em_teses": "Jurisprudência em Teses",
        "informativo": "Informativo de jurisprudência",
        "ementario": "Ementário",
        "jurisprudencia_comentada": "Jurisprudência comentada",
    },
    "peticao": {
        "peticao_inicial": "Petição inicial",
        "contestacao": "Contestação",
        "replica": "Réplica",
        "recurso": "Recurso",
        "contrarrazoes": "Contrarrazões",
        "memoriais": "Memoriais",
        "manifestacao": "Manifestação",
    },
    "sumula": {"sumula": "Súmula", "sumula_vinculante": "Súmula vinculante", "enunciado": "Enunciado"},
}
DOCUMENT_SUBTYPE_LABELS: dict[str, str] = {
    code: text for group in DOCUMENT_SUBTYPES.values() for code, text in group.items()
}

UF_BY_STATE = {
    "ACRE": "AC",
    "ALAGOAS": "AL",
    "AMAPA": "AP",
    "AMAZONAS": "AM",
    "BAHIA": "BA",
    "CEARA": "CE",
    "DISTRITO FEDERAL": "DF",
    "ESPIRITO SANTO": "ES",
    "GOIAS": "GO",
    "MARANHAO": "MA",
    "MATO GROSSO DO SUL": "MS",
    "MATO GROSSO": "MT",
    "MINAS GERAIS": "MG",
    "PARAIBA": "PB",
    "PARANA": "PR",
    "PARA": "PA",
    "PERNAMBUCO": "PE",
    "PIAUI": "PI",
    "RIO DE JANEIRO": "RJ",
    "RIO GRANDE DO NORTE": "RN",
    "RIO GRANDE DO SUL": "RS",
    "RONDONIA": "RO",
    "RORAIMA": "RR",
    "SANTA CATARINA": "SC",
    "SAO PAULO": "SP",
    "SERGIPE": "SE",
    "TOCANTINS": "TO",
}
UFS = frozenset(UF_BY_STATE.values())

# Federal agencies and councils whose decisions the firm keeps: code -> label.
AGENCIES: dict[str, str] = {
    "carf": "CARF",
    "cade": "CADE",
    "cvm": "CVM",
    "bcb": "Banco Central",
    "anatel": "ANATEL",
    "aneel": "ANEEL",
    "anvisa": "ANVISA",
    "ans": "ANS",
    "anac": "ANAC",
    "antt": "ANTT",
    "antaq": "ANTAQ",
    "anp": "ANP",
    "ancine": "ANCINE",
    "ana": "ANA",
    "anm": "ANM",
    "senacon": "SENACON",
    "procon": "PROCON",
    "cnj": "CNJ",
    "cnmp": "CNMP",
    "pgfn": "PGFN",
    "rfb": "Receita Federal",
}
FIRM = "interno"
"""The firm itself: the origin of internal pareceres and notes."""

FIXED_COURT_LABELS = {
    "stf": "STF",
    "stj": "STJ",
    "tst": "TST",
    "tse": "TSE",
    "stm": "STM",
    "tcu": "TCU",
    "tjdft": "TJDFT",
    "mpf": "MPF",
    "mpt": "MPT",
    "mpm": "MPM",
    "mpdft": "MPDFT",
    "oab": "OAB",  # Conselho Federal da Ordem dos Advogados do Brasil
    "tjue": "TJUE",  # Tribunal de Justiça da União Europeia
    "ue": "União Europeia",  # EU legislation: the European Parliament and the Council
    "presidencia": "Presidência da República",  # federal decrees, laws and medidas provisórias it enacts
    FIRM: "Escritório (interno)",
} | AGENCIES

_ORDINALS_EN = ("First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth")
EU_ENGLISH_NAMES: dict[str, str] = {
    "Reference for a preliminary ruling": "Pedido de decisão prejudicial",
    "Action for failure to fulfil obligations": "Ação por incumprimento",
    "Action for annulment": "Recurso de anulação",
    "Grand Chamber": "Grande Secção",
} | {f"{ordinal} Chamber": f"{n}ª Secção" for n, ordinal in enumerate(_ORDINALS_EN, start=1)}
"""The EU Court of Justice's English names of its proceedings and formations -> the names its judgments in
Portuguese give them ("Pedido de decisão prejudicial", "1ª Secção"): the annotator stores these for a judgment in
English, so one class is one facet value; a value stored in English before is labelled by them (label())."""


def name_value(name: str) -> str:
    """A procedural class or judging body as one facet value: an EU Court name stored in English before is the
    Portuguese one the annotator stores now, so "Reference for a preliminary ruling" and "Pedido de decisão
    prejudicial" are one value, not two lines of the same label."""
    return EU_ENGLISH_NAMES.get(name, name)


def stored_names(names: list[str] | None) -> list[str] | None:
    """Every stored value a filter on these names must match: each name, its Portuguese (name_value) and the
    English names stored before that share it, so ticking the merged value finds the works of either."""
    if not names:
        return names
    wanted = {name_value(name) for name in names}
    english = [en for en, pt in EU_ENGLISH_NAMES.items() if pt in wanted]
    return list(dict.fromkeys([*names, *wanted, *english]))


_COURT_CODE = re.compile(
    r"^(?:(?P<fixed>[a-z]+)|trf(?P<trf>[1-6])|trt(?P<trt>\d{1,2})|tj(?P<tj>[a-z]{2})|tre_(?P<tre>[a-z]{2})|"
    r"tce_(?P<tce>[a-z]{2})|mp(?P<mp>[a-z]{2}))$"
)


def court_label(code: str) -> str:
    """ "tre_sp" -> "TRE-SP", "trf3" -> "TRF3", "stj" -> "STJ"; unknown codes upper-cased."""
    if code in FIXED_COURT_LABELS:
        return FIXED_COURT_LABELS[code]
    match = _COURT_CODE.match(code)
    if match and (match["tre"] or match["tce"]):
        prefix = "TRE" if match["tre"] else "TCE"
        return f"{prefix}-{(match['tre'] or match['tce']).upper()}"
    return code.upper().replace("_", "-")


_KNOWN_COURT_PATTERN = re.compile(
    rf"^(?:trf[1-6]|trt(?:[1-9]|1\d|2[0-4])|(?:tj|mp)(?:{'|'.join(uf.lower() for uf in sorted(UFS))})"
    rf"|(?:tre|tce)_(?:{'|'.join(uf.lower() for uf in sorted(UFS))}))$"
)


def is_known_court(code: str) -> bool:
    """A code of a court or origin that exists (normalize_court keeps unknown values as they came)."""
    return code in FIXED_COURT_LABELS or bool(_KNOWN_COURT_PATTERN.match(code))


def document_type_label(code: str) -> str:
    return DOCUMENT_TYPE_LABELS.get(code, code)


def document_subtype_label(code: str) -> str:
    return DOCUMENT_SUBTYPE_LABELS.get(code, code)


def label(field: str, code: str | None) -> str | None:
    """Display label of a code for the API and the UI: label("document_type", "acordao") == "Acórdão"; a class or
    a judging body in Portuguese as it is, one the EU Court names in English in Portuguese (EU_ENGLISH_NAMES)."""
    if code is None:
        return None
    if field == "document_type":
        return document_type_label(code)
    if field == "document_subtype":
        return document_subtype_label(code)
    if field == "court":
        return court_label(code)
    if field in ("procedural_class", "judging_body"):
        return EU_ENGLISH_NAMES.get(code, code)
    return code


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", fold(text).lower()).strip()


_TYPE_ALIASES = (
    {_key(v): k for k, v in DOCUMENT_TYPE_LABELS.items()}
    | {_key(k): k for k in DOCUMENT_TYPE_LABELS}
    | {
        "decisao monocratica": "decisao_monocratica",
        "decisao": "decisao_monocratica",
        "sumula": "sumula",
        "enunciado": "sumula",
        "e mail": "email",
        "mensagem": "email",
        "peticao inicial": "peticao",
        "contestacao": "peticao",
        "acordao": "acordao",
        "lei": "ato_normativo",
        "decreto": "ato_normativo",
        "resolucao": "ato_normativo",
        "provimento": "ato_normativo",
        "diretiva": "ato_normativo",
        "regulamento": "ato_normativo",
        "legislacao": "ato_normativo",
        "ata": "ato_administrativo",
        "artigo": "doutrina",
        "dissertacao": "doutrina",
        "jurisprudencia em teses": "jurisprudencia_compilada",
        "informativo": "jurisprudencia_compilada",
        "ementario": "jurisprudencia_compilada",
    }
)


def normalize_document_type(value: str | None) -> str | None:
    """A document-type code from a code or a label in any case or accentuation; None when unknown."""
    if not value:
        return None
    return _TYPE_ALIASES.get(_key(value))


_SUBTYPE_ALIASES = {_key(v): k for k, v in DOCUMENT_SUBTYPE_LABELS.items()} | {
    _key(k): k for k in DOCUMENT_SUBTYPE_LABELS
}


def normalize_document_subtype(value: str | None) -> str | None:
    """A document-subtype code from a code or a label ("Diretiva (UE)", "petição inicial"); None when unknown."""
    if not value:
        return None
    return _SUBTYPE_ALIASES.get(_key(value))


def document_type_of_subtype(code: str) -> str | None:
    """The document type a subtype refines (the first one listing it: "portaria" is normative first)."""
    return next((kind for kind, group in DOCUMENT_SUBTYPES.items() if code in group), None)


def normalize_court(value: str | None) -> str | None:
    """A court code from a code or an acronym as people write it ("TJ-SP", "TJ/SP", "TRE-SP", "TRT 2ª",
    "STJ"); the folded, lower-cased value itself when it is not recognised (never silently dropped)."""
    if not value:
        return None
    key = re.sub(r"[^a-z0-9]", "", fold(value).lower())
    if key in FIXED_COURT_LABELS:
        return key
    if key in ("tjdf", "tjdft"):
        return "tjdft"
    if key in ("mpdf", "mpdft"):
        return "mpdft"
    if key in ("presidenciadarepublica", "presidentedarepublica", "planalto"):
        return "presidencia"
    match = re.fullmatch(r"(trf|trt|tj|tre|tce|mp|pgj)(\d{1,2}|[a-z]{2})", key)
    if match:
        kind, rest = match.groups()
        if kind in ("trf", "trt") and rest.isdigit():
            return f"{kind}{int(rest)}"
        if not rest.isdigit() and rest.upper() in UFS:
            if kind in ("tre", "tce"):
                return f"{kind}_{rest}"
            if kind == "pgj":
                return f"mp{rest}"
            return f"{kind}{rest}"
    return re.sub(r"[^a-z0-9_]+", "_", fold(value).lower()).strip("_") or None
