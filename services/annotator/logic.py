"""Document metadata from the cleaned page texts, by plain rules: type, court or origin, case number,
class, rapporteur, redator do acórdão, judging body, dates, parties, subject, citations and title.

Brazilian legal documents announce what they are in a few fixed formulas (the "ACÓRDÃO" heading,
"Vistos, relatados e discutidos", "EXCELENTÍSSIMO SENHOR JUIZ", "Brasília (DF), 15 de setembro de
2016", "RECORRENTE : ..."), so ordered regular expressions over the first pages get these right without
a model, and each guess can be traced to the line that produced it. What the submitter already knows
(MetadataHints) always wins over a guess; a second extractor (an LLM) can be merged in with `merge`,
where the rules keep the fields they verified (a CNJ number whose check digits hold).

The rules themselves are legal-domain knowledge and live in precedente.shared.legal (document_types, courts,
dates, titles, process_numbers, citations; codes and labels in codes); the fields read from a case's
caption and formulas in precedente.services.annotator.fields. This module puts them together.
"""

from precedente.services.annotator import fields
from precedente.shared.contracts import MetadataHints
from precedente.shared.legal import judges, process_numbers
from precedente.shared.legal.citations import extract_citations
from precedente.shared.legal.codes import DECISION_TYPES, FIRM, normalize_court, normalize_document_type
from precedente.shared.legal.courts import guess_court
from precedente.shared.legal.dates import guess_date
from precedente.shared.legal.describe import describe
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.document_types import guess_type
from precedente.shared.legal.language import detect_language
from precedente.shared.legal.precedents import find_qualified_precedents
from precedente.shared.legal.status import find_status_statements
from precedente.shared.legal.titles import caption, filename_title, guess_title
from precedente.shared.payloads import DocumentMetadata, Page, QualifiedPrecedentRef, StatusSignalRef

__all__ = ["VERIFIED", "annotate", "apply_hints", "merge"]

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
    doc = DocumentText(pages)
    raw = DocumentText(raw_pages) if raw_pages else doc
    document_type = guess_type(doc)
    sources: dict[str, str] = {}
    court = guess_court(doc, document_type) or guess_court(raw, document_type)
    if court is None and document_type == "parecer":
        court = FIRM  # an opinion with no outside letterhead is the firm's own
    caption_line = caption(doc)
    process_number, verified = fields.process_number(doc, document_type, caption_line)
    if process_number is None and raw is not doc:
        process_number, verified = fields.process_number(raw, document_type, caption_line)
    if process_number:
        sources["process_number"] = VERIFIED if verified else "rules"
        if verified and court is None:
            court = process_numbers.court_of(process_number)
    judgment_date = guess_date(doc, document_type) or guess_date(raw, document_type)
    publication_date = fields.publication_date(doc) or fields.publication_date(raw)
    if judgment_date and publication_date and publication_date < judgment_date:
        # published before it was judged: the "DJe:" read was a quoted decision's (a TJDFT acórdão of 2018 cited
        # "DJe 18/04/2013"); the judgment date is read from the decision's own formula and signature
        publication_date = None
    title = guess_title(doc, document_type)
    sources["title"] = "rules" if title else "rules:filename"
    own = [process_number or "", title or ""]
    dated = judgment_date or publication_date
    guessed = DocumentMetadata(
        title=title or filename_title(filename),
        document_type=document_type,
        court=court,
        document_date=dated,
        process_number=process_number,
        procedural_class=fields.procedural_class(doc, document_type, caption_line),
        relator=judges.relator(doc, document_type),
        redator=judges.redator(doc, document_type),
        judging_body=fields.judging_body(doc, document_type) or fields.judging_body(raw, document_type),
        judgment_date=judgment_date,
        publication_date=publication_date,
        parties=fields.parties(doc, document_type),
        subject=fields.subject(doc, pages, document_type),
        citations=extract_citations(doc.full, own, court, dated),  # the day says which CPC a bare "CPC" is
        language=detect_language(doc.full),  # the index stems the document under it (migration 0014)
    )
    guessed = guessed.model_copy(update=describe(doc, document_type, raw))  # the fields of acts, doctrine and filings
    for name in DocumentMetadata.model_fields:
        if name not in sources and name != "sources" and getattr(guessed, name) not in (None, [], ""):
            sources[name] = "rules"
    guessed.sources = sources
    described = guessed if hints is None else apply_hints(guessed, hints)
    return with_status_signals(with_qualified_precedents(described, doc), doc)


def with_qualified_precedents(metadata: DocumentMetadata, doc: DocumentText) -> DocumentMetadata:
    """The qualified precedents a decision is or applies (precedente.shared.legal.precedents), read once its type and
    court are final (a submitter's hint included): only a decision is or applies one; a petition or a parecer that cites
    a Tema argues it."""
    if metadata.document_type not in DECISION_TYPES:
        return metadata
    found = find_qualified_precedents(doc.full, metadata.court)
    if not found:
        return metadata
    refs = [QualifiedPrecedentRef(**p.as_dict()) for p in found]
    sources = dict(metadata.sources) | {"qualified_precedents": "rules"}
    return metadata.model_copy(update={"qualified_precedents": refs, "sources": sources})


def with_status_signals(metadata: DocumentMetadata, doc: DocumentText) -> DocumentMetadata:
    """What the document says was cancelled, revised or overruled (precedente.shared.legal.status), read once its court
    is final (a bare "Súmula 7" in the STJ's decision is the STJ's); a petition's "a Súmula está superada" argues it,
    and is not read."""
    if metadata.document_type == "peticao":
        return metadata
    found = find_status_statements(doc.full, metadata.court)
    if not found:
        return metadata
    refs = [StatusSignalRef(**s.as_dict()) for s in found]
    sources = dict(metadata.sources) | {"status_signals": "rules"}
    return metadata.model_copy(update={"status_signals": refs, "sources": sources})


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
