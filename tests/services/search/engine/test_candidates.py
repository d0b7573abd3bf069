"""The candidate statement's named parameters, numbered as asyncpg binds them (engine/candidates.py positional)."""

import pytest

from precedente.services.search.engine.candidates import CANDIDATES, POOL, positional


def test_each_name_is_one_number_in_order_of_first_use() -> None:
    sql, values = positional(
        "SELECT :b::text[], :a, c.x::int FROM t WHERE :b IS NULL OR y = :a", {"a": 1, "b": ["x"], "unused": 3}
    )
    assert sql == "SELECT $1::text[], $2, c.x::int FROM t WHERE $1 IS NULL OR y = $2"
    assert values == [["x"], 1], "a value no name uses is left out"


def test_a_name_without_a_value_is_an_error_not_a_null() -> None:
    with pytest.raises(KeyError, match=":court"):
        positional("SELECT 1 WHERE :court IS NULL", {})


def test_the_search_statement_takes_every_filter_by_name() -> None:
    names = {
        "query_vector", "groups", "document_type", "document_subtype", "court", "date_from", "date_to", "relator",
        "judging_body", "procedural_class", "cited_law", "dense", "lexical", "preselection", "lexemes", "required",
        "process_numbers", "walked_languages", "exact_languages", "qualified_precedent", "ementa", "field_relator",
        "field_judging_body", "field_procedural_class", "field_court", "field_cited_law",
    }  # fmt: skip
    sql, values = positional(CANDIDATES + POOL, dict.fromkeys(names))
    assert len(values) == len(names) and f"${len(names)}" in sql and f"${len(names) + 1}" not in sql
    assert "''::tsquery" in sql and "'\\D'" in sql, "casts and literals are left alone"
