"""The base's own citation graph (issue 33, item 2): by which citation ids other documents cite a decision.

A document's citations are canonical ids (precedente.shared.legal.citations: "REsp 1.602.076/SP", "RE 657.718"); a
decision of the base is cited by the id of its own case number, read by the same extractor, with or without the UF (an
author may leave it out: "RE 657.718" cites RE 657.718/MG). The class chain must match whole: "RE 855.178" is the
extraordinary appeal, not the embargos "ED no RE 855.178/SE" judged on it, so neither cites the other. A CNJ number (a
state court's case) is not cited by an id here, nor a number the extractor reads only in part ("Segundos ED no RE
1.366.243/SC" would read as the first embargos), and a decision without a case number is cited by none: a citation
resolved wrongly is worse than none.

Measured by bench/citation_graph_archive.py on ../shared/archive: 4 pairs (citing document, cited work) resolved,
4 right by hand (the STF's RE 855.178 ED and RE 1.366.243 second ED citing RE 657.718; a TJSP sentença and a
journal's comment citing REsp 1.602.076/SP).
"""

from precedente.shared.legal.citations import find_precedents
from precedente.shared.legal.works import higher_court_key

__all__ = ["cited_as", "cited_keys"]


def cited_as(process_number: str | None) -> list[str]:
    """The citation ids that name this decision: its own case number as the extractor reads it, then without the UF
    ("REsp 1.602.076/SP", "REsp 1.602.076"); [] for a number the extractor does not read as a precedent."""
    if not process_number:
        return []
    found = find_precedents(process_number.strip())
    if not found or found[0][0] != 0:
        return []  # "Segundos ED no RE 1.366.243/SC" reads as "ED no RE ...": the first embargos' id, not its own
    own = found[0][1]
    return list(dict.fromkeys([own, own.split("/")[0]]))


def cited_keys(citations: list[str]) -> list[str]:
    """The work keys (precedente.shared.legal.works: "stj:resp:1602076:acordao") of the acórdãos these citation ids
    name, in their order, once each: only ids whose class names its court ("HC 123.456" may be the STF's or the STJ's
    and is left out) and only acórdãos (a citation of a case names its collegiate judgment, not a monocratic decision in
    it)."""
    keys = (higher_court_key(c, None) for c in citations if not c.startswith(("Súmula", "Tema")))
    return list(dict.fromkeys(f"{key}:acordao" for key in keys if key))
