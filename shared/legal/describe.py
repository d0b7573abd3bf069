"""The fields a document of each type carries beyond a decision's: which act, work or filing it is
(document_subtype), an act's number, date and issuer, a work's authors, venue and year, a petition's requests.

One entry point for the annotator: describe(doc, document_type) gives the DocumentMetadata fields the type's own rules
read (precedente.shared.legal.legislation, precedente.shared.legal.doctrine, precedente.shared.legal.pedidos), only
those with a value."""

from typing import Any

from precedente.shared.legal.doctrine import read_doctrine
from precedente.shared.legal.document_text import DocumentText
from precedente.shared.legal.document_types import guess_subtype
from precedente.shared.legal.legislation import read_act
from precedente.shared.legal.pedidos import read_pedidos

__all__ = ["describe"]


def describe(doc: DocumentText, document_type: str, raw: DocumentText | None = None) -> dict[str, Any]:
    """DocumentMetadata fields of the type's own rules: document_subtype always where the text says it;
    act_number, issuing_body and document_date for acts; authors, venue and year for doctrine, and the title when
    the work prints its own reference (read from
    `raw`, the text before cleaning, when given: running heads name an article's journal); pedidos for petitions
    (from the cleaned text, whose paragraphs are whole: a request broken by a page reads on)."""
    fields: dict[str, Any] = {"document_subtype": guess_subtype(doc, document_type)}
    if document_type in ("ato_normativo", "ato_administrativo"):
        act = read_act(doc)
        fields |= {"act_number": act.act_number, "issuing_body": act.issuing_body, "document_date": act.document_date}
    elif document_type == "doutrina":
        work = read_doctrine(doc, raw)
        fields |= {"authors": work.authors, "venue": work.venue, "year": work.year}
        if work.title:  # the work's reference to itself names its title as it is to be cited
            fields["title"] = work.title
    elif document_type == "peticao":
        fields["pedidos"] = read_pedidos(doc.full, doc.ffull)
    return {name: value for name, value in fields.items() if value not in (None, [], "")}
