"""The legal concept layer: the names one concept goes by (data/legal_concepts.tsv, general legal knowledge).

Lawyers write "CDC" where a decision writes "Código de Defesa do Consumidor", "epp" for "empresa de
pequeno porte", "rebus sic stantibus" for "teoria da imprevisão". The explanation of a result names
the concept when the passage carries it under another name than the query's, and the UI highlights
it. Expanding the query itself with the other names was measured on JurisTCU and lost (G1 nDCG@10
48.6 -> 46.6 with every name, 48.5 with abbreviations only), so ranking does not use it.

The firm's own thesaurus (issue 34, item 4; services/search/store/thesaurus.py) adds its equivalence sets on top of
these: a client's name for a contract type is no general knowledge a text embedding or the shipped list has, so the
search expands its lexical side with a firm set's other names (Concept.firm), and names the concept and highlights
it as it does a shipped one. The index a search uses is set for its duration (in_effect); concept_index() reads it.
"""

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from precedente.shared.legal.citations import extract_citations
from precedente.shared.legal.text import fold

CONCEPTS_FILE = Path(__file__).parent / "data" / "legal_concepts.tsv"


@dataclass(frozen=True)
class Concept:
    names: tuple[str, ...]
    firm: bool = False  # one of the firm's own sets: its other names also widen the lexical search


@dataclass(frozen=True)
class ConceptMatch:
    concept: Concept
    written: str  # the name as the query wrote it
    others: tuple[str, ...]  # the concept's other names, which the query did not write


def case_sensitive(name: str) -> bool:
    """Two-letter acronyms (CP, ME, RE) are ordinary words in lower case: they count only in capitals."""
    return len(name) <= 2 and name.isupper()


def acts_named(text: str) -> set[str]:
    """Canonical ids of the acts a text names, however written ("lei 8666/93" and "Lei 8.666/1993" alike)."""
    return {citation.split(",")[0] for citation in extract_citations(text)}


def name_pattern(name: str) -> re.Pattern[str]:
    """The pattern a concept's name is found by: on the text itself for a case-sensitive name, else on the text
    lower-cased and accent-folded (ConceptIndex.find and in_passage, precedente.services.search.explain)."""
    words = [re.escape(part) for part in re.split(r"\s+", name.strip())]
    body = r"\s+".join(words)
    if case_sensitive(name):
        return re.compile(rf"(?<!\w){body}(?!\w)")
    return re.compile(rf"(?<!\w){fold(body.lower())}(?!\w)")


class ConceptIndex:
    def __init__(self, concepts: list[Concept]) -> None:
        self.concepts = tuple(concepts)
        self._entries = [
            (concept, name, name_pattern(name), acts_named(name)) for concept in concepts for name in concept.names
        ]

    @classmethod
    def from_file(cls, path: Path) -> "ConceptIndex":
        concepts = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                names = tuple(name.strip() for name in line.split("|") if name.strip())
                if len(names) >= 2:
                    concepts.append(Concept(names))
        return cls(concepts)

    def find(self, query: str) -> list[ConceptMatch]:
        """Concepts the query names, in the order they appear, each with the names it did not write."""
        folded = fold(query.lower())
        acts = acts_named(query)
        found: dict[Concept, tuple[int, set[str]]] = {}  # concept -> (where, names the query already says)
        for concept, name, pattern, name_acts in self._entries:
            match = pattern.search(query if case_sensitive(name) else folded)
            # A law number written another way ("lei 8666/93") is the same name; a popular name is not.
            same_act = bool(name_acts & acts) and any(ch.isdigit() for ch in name)
            if match or same_act:
                start, said = found.get(concept, (len(query), set()))
                found[concept] = (min(start, match.start() if match else len(query)), said | {name})
        matches = []
        for concept, (_, said) in sorted(found.items(), key=lambda item: item[1][0]):
            others = tuple(name for name in concept.names if name not in said)
            if others:
                first = next(name for name in concept.names if name in said)
                matches.append(ConceptMatch(concept, first, others))
        return matches

    def in_passage(self, query: str, passage: str) -> list[tuple[ConceptMatch, list[tuple[int, int]]]]:
        """Concepts the query names that the passage carries under another name, with where it says them."""
        folded = fold(passage.lower())
        found = []
        for match in self.find(query):
            spans = [
                (hit.start(), hit.end())
                for concept, name, pattern, _ in self._entries
                if concept == match.concept and name in match.others
                for hit in pattern.finditer(passage if case_sensitive(name) else folded)
            ]
            if spans:
                found.append((match, sorted(spans)))
        return found

    def expansion(self, query: str) -> str:
        """The other names of the firm's sets the query names, for the lexical side of the search ("" when none:
        the shipped concepts never widen it, see the module docstring)."""
        return " ".join(name for match in self.find(query) if match.concept.firm for name in match.others)


@cache
def shipped_index() -> ConceptIndex:
    """The general concepts shipped with the code (data/legal_concepts.tsv)."""
    return ConceptIndex.from_file(CONCEPTS_FILE)


def with_firm(sets: Iterable[Iterable[str]]) -> ConceptIndex:
    """The shipped concepts and, after them, the firm's own sets (each a set of two names or more)."""
    firm = [Concept(tuple(names), firm=True) for names in sets]
    return ConceptIndex([*shipped_index().concepts, *(c for c in firm if len(c.names) >= 2)])


_in_effect: ContextVar[ConceptIndex | None] = ContextVar("concepts_in_effect", default=None)


@contextmanager
def in_effect(index: ConceptIndex | None) -> Iterator[None]:
    """concept_index() is `index` (None: the shipped one) within this block, in this task only: a search's
    explanations and highlights read the firm's sets it was given, another search running beside it its own."""
    token = _in_effect.set(index)
    try:
        yield
    finally:
        _in_effect.reset(token)


def concept_index() -> ConceptIndex:
    """The concepts in effect: the firm's thesaurus with the shipped ones during a search that read it, else
    the shipped ones alone."""
    index = _in_effect.get()
    return shipped_index() if index is None else index
