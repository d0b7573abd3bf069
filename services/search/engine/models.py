"""The search API's models in one place: what a search or a "Mais como este" request says, what each result card
holds, the engine's page (SearchPage) and the response the routers return (SearchResponse)."""

from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, WithJsonSchema, field_validator

from precedente.services.search.engine.relevance import RelevanceFeatures
from precedente.shared.legal.citations import extract_citations
from precedente.shared.legal.codes import normalize_court, normalize_document_subtype, normalize_document_type
from precedente.shared.legal.precedents import KIND_LABELS
from precedente.shared.legal.text import fold


def _storable(value: str) -> str:
    """PostgreSQL text holds neither NUL nor half a surrogate pair (JSON can carry both): such a query or
    filter is a 422 here, not a statement that fails with a 500."""
    if "\x00" in value:
        raise ValueError("text cannot contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError("text is not valid Unicode (it holds a lone surrogate)") from err
    return value


Text = Annotated[str, AfterValidator(_storable)]

FilterValue = Annotated[str, StringConstraints(min_length=1), AfterValidator(_storable)]
_FILTER_VALUE = {"type": "string", "minLength": 1}
# One value or a list of them (the web page sends one; the validators below make a list of one): the contract
# says both, and nothing else passes (a number, an object, an empty string).
OneOrMany = Annotated[
    list[FilterValue] | None,
    WithJsonSchema({"anyOf": [_FILTER_VALUE, {"type": "array", "items": _FILTER_VALUE}, {"type": "null"}]}),
]


_KIND_CODES = {fold(text).casefold(): code for code, text in KIND_LABELS.items()} | {code: code for code in KIND_LABELS}


class SearchFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt filter is a 422, not a filter silently ignored

    document_type: OneOrMany = None
    document_subtype: OneOrMany = Field(
        None, description='Which act, work or filing: "lei", "resolucao", "artigo", "tese" (codes or labels).'
    )
    court: OneOrMany = None
    date_from: date | None = None
    date_to: date | None = None
    relator: OneOrMany = None
    judging_body: OneOrMany = None
    procedural_class: OneOrMany = Field(
        None, description='The classe processual as extracted: "Recurso Especial", "Agravo de Instrumento".'
    )
    cited_law: OneOrMany = Field(
        None, description='Canonical citation prefixes, e.g. "Lei 8.078/1990" matches any of its articles.'
    )
    qualified_precedent: OneOrMany = Field(
        None,
        description='"Precedente qualificado": works a file of which is itself one of these kinds ("repetitivo",'
        ' "repercussao_geral", "sumula_vinculante", "irdr", "iac"; codes or labels), as its text announces it.',
    )

    @field_validator(
        "document_type",
        "document_subtype",
        "court",
        "relator",
        "judging_body",
        "procedural_class",
        "cited_law",
        "qualified_precedent",
        mode="before",
    )
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        if isinstance(value, str):
            return [value]
        return value

    @field_validator("document_type")
    @classmethod
    def _type_codes(cls, values: list[str] | None) -> list[str] | None:
        """Labels as lawyers write them ("Acórdão") become the stored codes ("acordao")."""
        return [normalize_document_type(v) or v for v in values] if values else values

    @field_validator("document_subtype")
    @classmethod
    def _subtype_codes(cls, values: list[str] | None) -> list[str] | None:
        """ "Diretiva (UE)" or "Tese de doutorado" as the page shows them become the stored codes."""
        return [normalize_document_subtype(v) or v for v in values] if values else values

    @field_validator("court")
    @classmethod
    def _court_codes(cls, values: list[str] | None) -> list[str] | None:
        return [normalize_court(v) or v for v in values] if values else values

    @field_validator("qualified_precedent")
    @classmethod
    def _kind_codes(cls, values: list[str] | None) -> list[str] | None:
        """ "Repercussão geral" as the page labels it becomes the stored kind ("repercussao_geral")."""
        return [_KIND_CODES.get(fold(v).casefold().strip(), v) for v in values] if values else values

    @field_validator("cited_law")
    @classmethod
    def _citation_ids(cls, values: list[str] | None) -> list[str] | None:
        """ "Lei 8.078/90, art. 14" as typed becomes the stored id ("CDC, art. 14"): the most specific one."""
        return [(extract_citations(v) or [v])[-1] for v in values] if values else values


class SearchRequest(BaseModel):
    query: Text = Field(min_length=1, max_length=2000)
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(5, ge=1, le=200, description="Works per page.")
    offset: int = Field(0, ge=0, le=1000, description="Works to skip: the second page of five is offset 5.")
    sort: Literal["relevance", "date"] = Field(
        "relevance",
        description="\"date\": newest first by the work's date (its best-dated copy's judgment or publication date),"
        " undated works last; the grade is shown but does not order.",
    )


class OtherPassage(BaseModel):
    """Another passage of the same work that says something else (repeats of the best one are dropped)."""

    passage_id: int
    document_id: str
    chunk_text: str
    page_number: int
    page_end: int
    section_path: str | None = None
    char_start: int = 0
    char_end: int = 0
    highlights: list[tuple[int, int]] = Field(default_factory=list)
    document_url: str


class DocumentCopy(BaseModel):
    """Another file of the same decision or act (a scan, an ementa-only extract), visible to the caller."""

    document_id: str
    title: str
    filename: str
    document_type: str | None = None
    page_count: int | None = None
    full_text: bool | None = Field(
        None,
        description="True: this file is the inteiro teor (it holds a relatório, voto, fundamentação or dispositivo);"
        " false: only the ementa (an extract of at most 3 pages); null: its parts do not tell.",
    )
    document_url: str


class QualifiedPrecedentBadge(BaseModel):
    """A qualified precedent (CPC art. 927) the work is or applies, as its text says (shared/legal/precedents.py)."""

    kind: str = Field(description='"repercussao_geral", "repetitivo", "sumula_vinculante", "sumula", "irdr", "iac",'
                      ' "jurisprudencia_em_teses".')  # fmt: skip
    court: str | None = None
    number: str | None = Field(None, description="As digits; the label writes it as lawyers do.")
    role: Literal["is", "applies"] = Field(
        description='"is": the work fixes it (the leading case); "applies": it decides on its ground.'
    )
    item: str | None = None
    label: str = Field(description='The badge: "Repetitivo – Tema 1.046", "Súmula vinculante 25", "Súmula 7/STJ".')


class LinkedDocument(BaseModel):
    """A work of the base that cites the result's work or that it cites (shared/legal/graph.py): one file of it the
    caller may see."""

    document_id: str
    title: str
    citation: str | None = None
    document_type: str | None = None
    document_url: str


class StatusSignal(BaseModel):
    """What a document of the base says of a precedent the result's work is or applies, or of the work's own case
    (its Tema, a súmula it applies, its case number): cancelled, revised or overruled (shared/legal/status.py). Only
    what the base says, never a claim from outside it: the card shows it "segundo o acervo", with the document."""

    kind: Literal["cancelada", "revista", "superada"]
    target: str = Field(description='The precedent named: "Súmula 408/STJ", "Repetitivo – Tema 931", "REsp 1.234/SP".')
    statement: str = Field(
        description='"Súmula 408/STJ cancelada", "Repetitivo – Tema 931 revisto": the card\'s words.'
    )
    sentence: str = Field(description="The sentence of the document that says it, as written.")
    said_by: LinkedDocument = Field(
        description="The most recent work that says it (one file of it the caller may see)."
    )
    said_by_count: int = Field(1, description="How many works the caller may see say it.")


class SearchResult(BaseModel):
    """One work (a decision, an act, a parecer): its best passage, and what a lawyer needs to cite it."""

    chunk_text: str
    document_title: str
    document_date: date | None = Field(
        description="The work's date: its best-dated file's judgment (or publication) date, whichever file is shown."
    )
    document_type: str | None
    relevance_explanation: str
    similarity_score: float
    page_number: int
    document_id: str
    court: str | None
    page_end: int
    section_path: str | None = None
    char_start: int = Field(0, description="Offset of chunk_text in the document's cleaned text.")
    char_end: int = 0
    document_type_label: str | None = None
    court_label: str | None = None
    highlights: list[tuple[int, int]] = Field(
        default_factory=list, description="[start, end) offsets in chunk_text of the words matching the query."
    )
    passage_id: int = Field(0, description="The passage (chunk) id: GET /documents/{document_id}?passage= marks it.")
    work_id: str = Field("", description="The decision or act this file is a copy of; one result per work.")
    relevance: Literal["forte", "provável", "fraca"] = Field(
        "fraca",
        description="Calibrated grade (services/search/engine/relevance.py): how likely a judge calls it relevant.",
    )
    relevance_probability: float = Field(0.0, description="The calibrated probability behind the grade.")
    relevance_basis: list[str] = Field(
        default_factory=list,
        description='Why the grade is what it is, the model\'s largest reasons ("conceito equivalente", "palavras da'
        ' consulta", "vários trechos da mesma decisão"; for "fraca", what lowered it): engine/relevance.py BASIS.',
    )
    explanation_span: tuple[int, int] | None = Field(
        None, description="[start, end) in chunk_text of the sentence that carries the query's concept."
    )
    other_passages: list[OtherPassage] = Field(default_factory=list, description="Up to two more of the work's.")
    copies: list[DocumentCopy] = Field(default_factory=list, description="The work's other files you may see.")
    full_text: bool | None = Field(
        None,
        description="Whether the file the passage is in is the inteiro teor (DocumentCopy.full_text's rule): a passage"
        " an ementa-only extract shares with the inteiro teor is shown in the inteiro teor.",
    )
    citation: str | None = Field(None, description="The reference to paste in a petition, from the metadata.")
    ementa: str | None = None
    document_url: str = Field("", description="The original, opening at the passage's page (marked in PDFs).")
    process_number: str | None = None
    procedural_class: str | None = None
    relator: str | None = None
    judged_alone: bool = Field(
        False, description="A judge decided alone (a sentença, a vara's decision): `relator` is the judge, 'Juiz(a)'."
    )
    redator: str | None = Field(
        None, description="The redator do acórdão, when the relator was defeated (shown as 'Redator(a) p/ o acórdão')."
    )
    judging_body: str | None = None
    judgment_date: date | None = None
    publication_date: date | None = None
    document_subtype: str | None = Field(
        None, description='Which act, work or filing: "lei", "resolucao", "artigo", "tese" (shared/legal/codes.py).'
    )
    document_subtype_label: str | None = None
    act_number: str | None = Field(None, description='An act\'s number as printed: "125", "2011/83/EU".')
    issuing_body: str | None = Field(None, description='Who issued an act: "Conselho Nacional de Justiça".')
    authors: list[str] = Field(default_factory=list, description="A work of doctrine's authors, as printed.")
    venue: str | None = Field(None, description="Where a work of doctrine appeared: journal, university, publisher.")
    year: int | None = Field(None, description="The year a work of doctrine appeared.")
    language: str | None = Field(None, description='The document\'s language, ISO 639-1 ("pt", "en"); "und": unknown.')
    qualified_precedents: list[QualifiedPrecedentBadge] = Field(
        default_factory=list,
        description='What the work is among qualified precedents (role "is", first) and those it applies, read'
        " from its files' text at indexing.",
    )
    cited_by_count: int = Field(
        0,
        description='"Citado por N documentos do acervo": works of the base the caller may see whose citations name'
        " this work's case number (with or without its UF).",
    )
    cited_by: list[LinkedDocument] = Field(
        default_factory=list, description="Up to five of them, the most recent first: one file of each work."
    )
    cites: list[LinkedDocument] = Field(
        default_factory=list,
        description="The decisions of the base (acórdãos the caller may see) this work cites by case number, in the"
        " order its citations name them, up to ten.",
    )
    status_signals: list[StatusSignal] = Field(
        default_factory=list,
        description='"Segundo o acervo: Súmula 408/STJ cancelada": what documents of the base the caller may see say'
        " was cancelled, revised or overruled among this work's precedents (the Tema it fixes, a súmula or Tema it"
        " applies, its own case number), each with the document that says it; the work's own files never count.",
    )
    unread_pages: list[int] = Field(
        default_factory=list,
        description="Pages of this document left out of the index (a photo, a scanned annex OCR could not read):"
        " nothing on them was searched.",
    )


class SimilarRequest(BaseModel):
    """The passages nearest one passage the caller may see, under the same filters and access list as a search."""

    model_config = ConfigDict(extra="forbid")

    passage_id: int = Field(ge=1, le=2**63 - 1, description="A result's passage_id (or one of its other_passages').")
    filters: SearchFilters = Field(default_factory=SearchFilters)
    top_k: int = Field(10, ge=1, le=200, description="Works per page.")
    offset: int = Field(0, ge=0, le=1000, description="Works to skip.")
    sort: Literal["relevance", "date"] = Field(
        "relevance",
        description='"relevance": nearest first; "date": newest first by the work\'s date, undated last (as a search).',
    )


class SimilarTo(BaseModel):
    """The passage a "Mais como este" list is near (the page says "Trechos parecidos com ...")."""

    passage_id: int
    document_id: str
    title: str
    citation: str | None = None
    page_number: int


class SearchResponse(BaseModel):
    results: list[SearchResult] = Field(description="One entry per work (a decision and its copies are one).")
    facets: dict[str, dict[str, int]] = Field(
        default_factory=dict,
        description="Documents per value of document_type, document_subtype, court, relator, judging_body, "
        "procedural_class and qualified_precedent (the kinds of qualified precedent the works are) among this query's "
        "candidates; a facet with a selection is counted under every other filter but its own, so its other values "
        "stay reachable.",
    )
    total: int = Field(0, description="Works among this query's candidates under these filters: what paging reaches.")
    relevant_total: int = Field(0, description='Of them, the works graded "forte" or "provável".')
    offset: int = 0
    no_strong_match: bool = Field(
        False,
        description='No work is at least "provável": nothing relevant was found; the results are only the closest.',
    )
    vague_query: bool = Field(
        False, description='One word that names no subject ("direito"): every result is "fraca"; say more.'
    )
    similar_to: SimilarTo | None = Field(None, description="POST /search/similar only: the passage the list is near.")


@dataclass(frozen=True)
class SearchPage:
    results: list[SearchResult]
    facets: dict[str, dict[str, int]]
    total: int = 0  # works among the candidates: what paging can reach
    relevant_total: int = 0  # of them, graded "forte" or "provável"
    no_strong_match: bool = True  # no work is at least "provável": say so, show the closest as weak
    features: list[RelevanceFeatures] = field(default_factory=list)  # of each result (bench/calibrate.py fits on them)
    vague: bool = False  # a query of one common word: every grade is "fraca" (vague_query)
