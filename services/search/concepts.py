"""The legal concept layer: the names one concept goes by (data/legal_concepts.tsv, general legal knowledge).

Lawyers write "CDC" where a decision writes "Código de Defesa do Consumidor", "epp" for "empresa de
pequeno porte", "rebus sic stantibus" for "teoria da imprevisão". The explanation of a result names
the concept when the passage carries it under another name than the query's, and the UI highlights
it. Expanding the query itself with the other names was measured on JurisTCU and lost (G1 nDCG@10
48.6 -> 46.6 with every name, 48.5 with abbreviations only), so ranking does not use it.
"""

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from shared.legal.citations import extract_citations
from shared.legal.text import fold

CONCEPTS_FILE = Path(__file__).parent / "data" / "legal_concepts.tsv"


@dataclass(frozen=True)
class Concept:
    names: tuple[str, ...]


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
    """The pattern a concept's name is found by: on the text itself for a case-sensitive name, else on the
    text lower-cased and accent-folded (ConceptIndex.find and in_passage, services.search.explain)."""
    words = [re.escape(part) for part in re.split(r"\s+", name.strip())]
    body = r"\s+".join(words)
    if case_sensitive(name):
        return re.compile(rf"(?<!\w){body}(?!\w)")
    return re.compile(rf"(?<!\w){fold(body.lower())}(?!\w)")


class ConceptIndex:
    def __init__(self, concepts: list[Concept]) -> None:
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


@cache
def concept_index() -> ConceptIndex:
    return ConceptIndex.from_file(CONCEPTS_FILE)
