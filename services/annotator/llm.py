"""Optional LLM metadata extractor, merged over the rules (precedente.services.annotator.logic.merge).

The rules are exact where a document follows its formulas; a model reads what they cannot (a subject
written as prose, a party named only in the report). It is off unless `metadata_llm_provider` says
"anthropic" (Messages API, forced tool call) or "openai" (any OpenAI-compatible chat completions
server, JSON schema output). Its answer is untrusted input: each field is validated on its own and
dropped when it fails (a bad date, an unknown court, a CNJ number whose check digits fail), so one
wrong field does not cost the others. Any failure of the call (timeout, connection error, HTTP error,
malformed answer) leaves the rules' metadata as it is, with a warning that names the reason and never
the document's text.
"""

import logging
import re
from datetime import date
from typing import Any

import httpx
from pydantic import BaseModel, ValidationError, field_validator

from precedente.services.annotator.logic import annotate, merge
from precedente.shared.contracts import MetadataHints
from precedente.shared.infra.llm import PROVIDERS, Endpoint, LLMFailure, StructuredPrompt, structured_call
from precedente.shared.legal import process_numbers
from precedente.shared.legal.codes import is_known_court, normalize_court, normalize_document_type
from precedente.shared.legal.text import strip_accents
from precedente.shared.payloads import PAGE_SEPARATOR, DocumentMetadata, Page, Party
from precedente.shared.settings import Settings

__all__ = ["SCHEMA", "TOOL_NAME", "LLMFailure", "annotate_with_llm", "excerpt", "llm_metadata", "validate"]

log = logging.getLogger(__name__)

TOOL_NAME = "record_metadata"
MAX_TOKENS = 2048
MAX_FIELD_CHARS = 2000
"""Longer than any real subject or name: a longer value is the model pasting text, not extracting it."""

_NULLABLE_STRING = {"type": ["string", "null"]}
_DATE = {"type": ["string", "null"], "description": "Data no formato YYYY-MM-DD."}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "document_type": {
            "type": ["string", "null"],
            "description": "acordao, sentenca, decisao_monocratica, despacho, parecer, peticao, contrato, sumula, "
            "ato_normativo, ato_administrativo, email ou outro.",
        },
        "court": {"type": ["string", "null"], "description": 'Sigla do tribunal ou órgão, ex.: "STJ", "TJRJ", "TRF3".'},
        "process_number": {"type": ["string", "null"], "description": "Número do processo como escrito (CNJ)."},
        "procedural_class": {**_NULLABLE_STRING, "description": 'Classe processual, ex.: "Agravo de Instrumento".'},
        "relator": {**_NULLABLE_STRING, "description": "Nome do relator, sem títulos."},
        "judging_body": {**_NULLABLE_STRING, "description": 'Órgão julgador, ex.: "18ª Câmara Cível".'},
        "judgment_date": _DATE,
        "publication_date": _DATE,
        "parties": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "role": {"type": "string", "description": 'Papel processual, ex.: "agravante", "reu".'},
                },
                "required": ["name", "role"],
            },
        },
        "subject": {**_NULLABLE_STRING, "description": "Assunto ou ementa resumida."},
        "citations": {
            "type": "array",
            "items": {"type": "string"},
            "description": 'Normas e precedentes citados, ex.: "CF/1988, art. 5º, XXXV", "Súmula 7/STJ".',
        },
    },
}

SYSTEM = (
    "Você extrai metadados de documentos jurídicos brasileiros. Registre somente o que o texto afirma "
    "expressamente; nunca invente, deduza ou complete valores. Deixe nulo (ou lista vazia) todo campo que o "
    "texto não traz. Datas no formato YYYY-MM-DD. Responda apenas com os metadados no esquema pedido."
)


def _prompt(text: str) -> StructuredPrompt:
    return StructuredPrompt(
        name=TOOL_NAME,
        description="Registra os metadados jurídicos lidos no documento.",
        schema=SCHEMA,
        system=SYSTEM,
        user=f"Extraia os metadados do documento abaixo.\n\n<documento>\n{text}\n</documento>",
        max_tokens=MAX_TOKENS,
    )


# --- validation --------------------------------------------------------------------------------------------

_CNJ_SHAPED = re.compile(r"\d{7}-?\d{2}\.?\d{4}\.?\d\.?\d{2}\.?\d{4}")


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        raise ValueError("not a string")
    value = " ".join(value.split())
    if len(value) > MAX_FIELD_CHARS:
        raise ValueError("too long")
    return value or None


def _iso_date(value: Any) -> date | None:
    """Only YYYY-MM-DD: pydantic would also take a number as a Unix time, which no document means."""
    if value is None:
        return None
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value.strip()):
        raise ValueError("not YYYY-MM-DD")
    return date.fromisoformat(value.strip())


def _role(value: str) -> str:
    """A role code like the rules write: "Agravado(a)" -> "agravado", "Réu" -> "reu"."""
    folded = strip_accents(value).lower()
    folded = re.sub(r"\(\w{1,2}\)", "", folded)
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_")


class _Strings(BaseModel):
    """One free-text field at a time, so a bad one is dropped alone."""

    value: str | None

    @field_validator("value", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> str | None:
        return None if value is None else _text(value)


class _Date(BaseModel):
    value: date | None

    @field_validator("value", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> date | None:
        return _iso_date(value)


_TEXT_FIELDS = ("procedural_class", "relator", "judging_body", "subject")
_DATE_FIELDS = ("judgment_date", "publication_date")


def _parties(value: Any) -> list[Party]:
    parties: list[Party] = []
    for item in value if isinstance(value, list) else []:
        try:
            party = Party.model_validate(item)
            name, role = _text(party.name), _role(party.role)
        except (ValidationError, ValueError):
            continue
        if name and role and all((p.name, p.role) != (name, role) for p in parties):
            parties.append(Party(name=name, role=role))
    return parties


def validate(raw: Any) -> tuple[DocumentMetadata, list[str]]:
    """The model's answer as DocumentMetadata (title empty, which merge ignores) and the fields dropped.

    Codes are normalised with precedente.shared.legal.codes; a field that fails is left out on its own."""
    if not isinstance(raw, dict):
        raise LLMFailure("answer is not a JSON object")
    found: dict[str, Any] = {}
    dropped: list[str] = []
    for name in _TEXT_FIELDS:
        if raw.get(name) is None:
            continue
        try:
            found[name] = _Strings(value=raw[name]).value
        except ValidationError:
            dropped.append(name)
    for name in _DATE_FIELDS:
        if raw.get(name) is None:
            continue
        try:
            found[name] = _Date(value=raw[name]).value
        except ValidationError:
            dropped.append(name)
    if raw.get("document_type") is not None:
        code = normalize_document_type(raw["document_type"]) if isinstance(raw["document_type"], str) else None
        if code:
            found["document_type"] = code
        else:
            dropped.append("document_type")
    if raw.get("court") is not None:
        code = normalize_court(raw["court"]) if isinstance(raw["court"], str) else None
        if code and is_known_court(code):
            found["court"] = code
        else:
            dropped.append("court")
    if raw.get("process_number") is not None:
        number = raw["process_number"].strip() if isinstance(raw["process_number"], str) else ""
        # a CNJ-shaped number must pass its check digits: a failing one is a misreading or an invention
        if number and len(number) <= 60 and (not _CNJ_SHAPED.fullmatch(number) or process_numbers.is_valid(number)):
            found["process_number"] = number
        else:
            dropped.append("process_number")
    if raw.get("parties"):
        given = raw["parties"] if isinstance(raw["parties"], list) else [raw["parties"]]
        found["parties"] = _parties(given)
        if len(found["parties"]) < len(given):
            dropped.append(f"{len(given) - len(found['parties'])} parties")
    if raw.get("citations"):
        items = raw["citations"] if isinstance(raw["citations"], list) else []
        found["citations"] = list(dict.fromkeys(c for c in (_safe_text(i) for i in items) if c))
    found = {k: v for k, v in found.items() if v not in (None, [], "")}
    return DocumentMetadata(title="", **found), dropped


def _safe_text(value: Any) -> str | None:
    try:
        return _text(value)
    except ValueError:
        return None


# --- public API --------------------------------------------------------------------------------------------


def excerpt(pages: list[Page], max_chars: int) -> str:
    """The first pages' text up to max_chars: type, court, parties and ementa sit at the start, and the
    cost and latency of a call grow with its length."""
    return PAGE_SEPARATOR.join(page.text for page in pages if page.text)[:max_chars]


async def llm_metadata(
    text: str, settings: Settings, client: httpx.AsyncClient | None = None
) -> DocumentMetadata | None:
    """The model's metadata for `text` (cut to metadata_llm_max_chars), validated; None when the provider
    is "none" or the call fails in any way (the reason is logged as a warning)."""
    endpoint = Endpoint.from_settings(settings, "metadata_llm")
    if endpoint.provider not in PROVIDERS:
        return None
    try:
        raw = await structured_call(_prompt(text[: settings.metadata_llm_max_chars]), endpoint, client=client)
        metadata, dropped = validate(raw)
    except LLMFailure as exc:
        return _failed(endpoint.provider, settings, str(exc), len(text))
    except ValidationError:  # validate() checks each field first; this is a last guard, not a path
        return _failed(endpoint.provider, settings, "answer does not fit DocumentMetadata", len(text))
    if dropped:
        log.info("LLM metadata: dropped invalid fields %s", ", ".join(dropped))
    return metadata


def _failed(provider: str, settings: Settings, reason: str, chars: int) -> None:
    log.warning(
        "LLM metadata failed (%s, model %s, %d chars): %s; keeping the rules' metadata",
        provider,
        settings.metadata_llm_model,
        chars,
        reason,
    )
    return None


async def annotate_with_llm(
    pages: list[Page],
    filename: str,
    hints: MetadataHints | None,
    raw_pages: list[Page] | None,
    settings: Settings,
) -> DocumentMetadata:
    """The rules' metadata (annotate), with the LLM's merged over it when a provider is configured:
    fields the rules verified and the submitter's hints stay, and `sources` says who set each field."""
    rules = annotate(pages, filename, hints, raw_pages)
    if settings.metadata_llm_provider == "none":
        return rules
    other = await llm_metadata(excerpt(pages, settings.metadata_llm_max_chars), settings)
    return rules if other is None else merge(rules, other, source="llm")
