"""The firm's thesaurus (issue 34, item 4): administrators keep the firm's own equivalence sets, the names one
concept goes by in this firm (a client's name for a contract type, a regional variant, the Latin its partners use).

- `GET /thesaurus` (paged), `POST /thesaurus`, `GET /thesaurus/{id}`, `PUT /thesaurus/{id}`,
  `DELETE /thesaurus/{id}`: administrators only (the `admin` permission, as /audit).
- `GET /thesaurus/base`: the general concepts shipped with the code (services/search/data/legal_concepts.tsv),
  which stay under the firm's sets and are not edited here.

A change takes effect on the next search of every replica, without a restart (store/thesaurus.py): a set the query
names widens the lexical side with its other names, and the explanation's concept line and the highlights name it.
Each change is written with its audit entry in one transaction (thesaurus.add, thesaurus.edit, thesaurus.remove,
with the names before and after).
"""

import re
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from precedente.services.search import problems
from precedente.services.search.concepts import shipped_index
from precedente.services.search.deps import AdminDep, DbDep
from precedente.services.search.engine.models import Text
from precedente.services.search.store import audit
from precedente.services.search.store import thesaurus as store
from precedente.shared.legal.text import fold

router = APIRouter(tags=["thesaurus"])

ConceptId = Annotated[int, Path(ge=1, le=2**63 - 1)]
NAME_MAX = 200
NAMES_MAX = 50


def clean_names(values: list[str]) -> list[str]:
    """The names with their spaces collapsed, each once (case and accents aside); at least two, each with a letter
    or digit: a set of one name says nothing, and a name of punctuation alone would match anywhere."""
    names: list[str] = []
    seen: set[str] = set()
    for value in values:
        name = re.sub(r"\s+", " ", value).strip()
        if not name:
            continue
        if len(name) > NAME_MAX:
            raise ValueError(f"a name has at most {NAME_MAX} characters")
        if not any(ch.isalnum() for ch in name):
            raise ValueError(f"the name {name!r} has no letter or digit")
        key = fold(name.lower())
        if key not in seen:
            seen.add(key)
            names.append(name)
    if len(names) < 2:
        raise ValueError("a set needs at least two different names of the concept")
    return names


class ConceptSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    names: list[Text] = Field(
        min_length=2,
        max_length=NAMES_MAX,
        description='The names of one concept, e.g. ["Contrato Azul", "locação sob medida", "built to suit"]. Two '
        "different ones at least; spaces are collapsed, a name repeated (case and accents aside) kept once. An "
        "all-capitals name of two letters matches only in capitals; every other in any case and with or without "
        "accents.",
    )

    @field_validator("names")
    @classmethod
    def _clean(cls, values: list[str]) -> list[str]:
        return clean_names(values)


class FirmConcept(BaseModel):
    id: int
    names: list[str]
    created_by: str
    created_at: datetime
    updated_by: str
    updated_at: datetime


class ThesaurusPage(BaseModel):
    items: list[FirmConcept] = Field(description="This page of the firm's sets, in the order they were added.")
    total: int = Field(description="The firm's sets, on every page.")
    limit: int
    offset: int


class BaseConcept(BaseModel):
    names: list[str]


class BasePage(BaseModel):
    items: list[BaseConcept] = Field(description="This page of the shipped concepts, in the file's order.")
    total: int
    limit: int
    offset: int


def _out(concept: store.FirmConcept) -> FirmConcept:
    return FirmConcept(**concept.__dict__)


Limit = Annotated[int, Query(ge=1, le=200)]
Offset = Annotated[int, Query(ge=0, le=100_000)]


@router.get("/thesaurus", response_model=ThesaurusPage)
async def list_thesaurus(who: AdminDep, pool: DbDep, limit: Limit = 50, offset: Offset = 0) -> ThesaurusPage:
    """The firm's own equivalence sets (none until an administrator adds one)."""
    items, total = await store.page(pool, limit, offset)
    return ThesaurusPage(items=[_out(c) for c in items], total=total, limit=limit, offset=offset)


@router.get("/thesaurus/base", response_model=BasePage)
async def list_base(who: AdminDep, limit: Limit = 50, offset: Offset = 0) -> BasePage:
    """The general concepts shipped with the code, under the firm's sets (read-only: a release changes them)."""
    concepts = shipped_index().concepts
    shown = concepts[offset : offset + limit]
    return BasePage(
        items=[BaseConcept(names=list(c.names)) for c in shown], total=len(concepts), limit=limit, offset=offset
    )


@router.post("/thesaurus", status_code=201, response_model=FirmConcept)
async def add_concept(body: ConceptSet, who: AdminDep, pool: DbDep) -> FirmConcept:
    """Add a set; the next search of every replica uses it."""
    async with pool.acquire() as conn, conn.transaction():
        added = await store.add(conn, who, body.names)
        await audit.record(conn, who, "thesaurus.add", detail={"id": added.id, "names": added.names})
    return _out(added)


@router.get("/thesaurus/{concept_id}", response_model=FirmConcept, responses=problems.responses(404))
async def get_concept(concept_id: ConceptId, who: AdminDep, pool: DbDep) -> FirmConcept:
    found = await store.get(pool, concept_id)
    if found is None:
        raise HTTPException(404, "set not found in the firm's thesaurus")
    return _out(found)


@router.put("/thesaurus/{concept_id}", response_model=FirmConcept, responses=problems.responses(404))
async def edit_concept(concept_id: ConceptId, body: ConceptSet, who: AdminDep, pool: DbDep) -> FirmConcept:
    """Replace a set's names."""
    async with pool.acquire() as conn, conn.transaction():
        before = await store.get(conn, concept_id)
        edited = await store.edit(conn, who, concept_id, body.names)
        if before is None or edited is None:
            raise HTTPException(404, "set not found in the firm's thesaurus")
        detail = {"id": concept_id, "before": before.names, "names": edited.names}
        await audit.record(conn, who, "thesaurus.edit", detail=detail)
    return _out(edited)


@router.delete("/thesaurus/{concept_id}", status_code=204, responses=problems.responses(404))
async def remove_concept(concept_id: ConceptId, who: AdminDep, pool: DbDep) -> Response:
    async with pool.acquire() as conn, conn.transaction():
        removed = await store.remove(conn, concept_id)
        if removed is None:
            raise HTTPException(404, "set not found in the firm's thesaurus")
        await audit.record(conn, who, "thesaurus.remove", detail={"id": concept_id, "names": removed.names})
    return Response(status_code=204)
