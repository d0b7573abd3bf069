"""Blind panels' SQL (migration 0018): the panel, its queries, each judge's merged list and which team picked
each result. `team` is read only by `report`: nothing a judge is sent is built from it."""

import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg

from precedente.services.search.interleaving import Team
from precedente.services.search.store.judgments import normalise_query
from precedente.shared.accounts import Identity

Db = asyncpg.Pool | asyncpg.Connection


@dataclass(frozen=True)
class PanelRow:
    id: str
    name: str
    created_by: str
    a: dict[str, Any]
    b: dict[str, Any]
    judges: list[str]
    depth: int
    filters: dict[str, Any]
    seed: int
    created_at: datetime
    queries: list[str]


@dataclass(frozen=True)
class Item:
    """One result of a judge's merged list as stored: `team` stays on the server."""

    shown_rank: int
    team: Team
    rank_in_team: int
    work_id: str
    document_id: uuid.UUID
    passage_id: int
    shown: dict[str, Any]


async def create(
    db: asyncpg.Pool,
    who: Identity,
    *,
    name: str,
    queries: list[str],
    a: dict[str, Any],
    b: dict[str, Any],
    judges: list[str],
    depth: int,
    filters: dict[str, Any],
    seed: int | None,
) -> PanelRow:
    panel_id = secrets.token_hex(6)
    seed = seed if seed is not None else secrets.randbits(62)
    async with db.acquire() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO panels (id, name, created_by, a, b, judges, depth, filters, seed)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            panel_id, name, who.user, a, b, sorted(set(judges)), depth, filters, seed,
        )  # fmt: skip
        await conn.executemany(
            "INSERT INTO panel_queries (panel_id, position, query, query_key) VALUES ($1, $2, $3, $4)",
            [(panel_id, i, q, normalise_query(q)) for i, q in enumerate(queries, start=1)],
        )
    found = await get(db, panel_id)
    assert found is not None
    return found


_PANEL = (
    "SELECT p.*, coalesce((SELECT array_agg(q.query ORDER BY q.position) FROM panel_queries q"
    " WHERE q.panel_id = p.id), '{}') AS queries FROM panels p"
)


async def get(db: Db, panel_id: str) -> PanelRow | None:
    row = await db.fetchrow(f"{_PANEL} WHERE p.id = $1", panel_id)
    return PanelRow(**dict(row)) if row else None


async def read_all(db: Db) -> list[PanelRow]:
    return [PanelRow(**dict(row)) for row in await db.fetch(f"{_PANEL} ORDER BY p.created_at DESC, p.id")]


async def progress(db: Db, panel_id: str, who: Identity) -> list[tuple[int, bool, int, int]]:
    """Per query position: whether the judge has a list, how many of its results they may see now, and how many
    of those they judged."""
    rows = await db.fetch(
        "SELECT q.position, l.judge IS NOT NULL AS listed, count(d.id) AS shown, count(j.id) AS judged"
        " FROM panel_queries q"
        " LEFT JOIN panel_lists l ON l.panel_id = q.panel_id AND l.position = q.position AND l.judge = $2"
        " LEFT JOIN panel_items i ON i.panel_id = l.panel_id AND i.position = l.position AND i.judge = l.judge"
        " LEFT JOIN documents d ON d.id = i.document_id"
        " AND public.precedente_visible(d.access_groups, d.deny_groups, $3::text[])"
        " LEFT JOIN judgments j ON d.id IS NOT NULL AND j.judge = i.judge AND j.query_key = q.query_key"
        " AND j.passage_id = i.passage_id"
        " WHERE q.panel_id = $1 GROUP BY q.position, l.judge ORDER BY q.position",
        panel_id,
        who.user,
        list(who.groups),
    )
    return [(r["position"], r["listed"], r["shown"], r["judged"]) for r in rows]


async def has_list(db: Db, panel_id: str, position: int, judge: str) -> bool:
    return bool(
        await db.fetchval(
            "SELECT EXISTS (SELECT 1 FROM panel_lists WHERE panel_id = $1 AND position = $2 AND judge = $3)",
            panel_id,
            position,
            judge,
        )
    )


async def save_list(db: asyncpg.Pool, panel_id: str, position: int, who: Identity, items: list[Item]) -> None:
    """The judge's list of this query, unless a concurrent request saved one first (that one stands)."""
    async with db.acquire() as conn, conn.transaction():
        made = await conn.fetchval(
            "INSERT INTO panel_lists (panel_id, position, judge, judge_groups) VALUES ($1, $2, $3, $4)"
            " ON CONFLICT DO NOTHING RETURNING true",
            panel_id, position, who.user, sorted(who.groups),
        )  # fmt: skip
        if made:
            await conn.executemany(
                "INSERT INTO panel_items (panel_id, position, judge, shown_rank, team, rank_in_team, work_id,"
                " document_id, passage_id, shown) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                [
                    (panel_id, position, who.user, it.shown_rank, it.team, it.rank_in_team, it.work_id,
                     it.document_id, it.passage_id, it.shown)
                    for it in items
                ],
            )  # fmt: skip


async def visible_items(db: Db, panel_id: str, position: int, who: Identity) -> list[tuple[Item, bool | None]]:
    """The judge's stored list, each result with their judgment (None: not yet), leaving out any document they
    may not see now (their groups or its access list changed since): the wall holds at every reading."""
    rows = await db.fetch(
        "SELECT i.*, j.relevant FROM panel_items i"
        " JOIN panel_queries q ON q.panel_id = i.panel_id AND q.position = i.position"
        " JOIN documents d ON d.id = i.document_id"
        " LEFT JOIN judgments j ON j.judge = i.judge AND j.query_key = q.query_key AND j.passage_id = i.passage_id"
        " WHERE i.panel_id = $1 AND i.position = $2 AND i.judge = $3"
        " AND public.precedente_visible(d.access_groups, d.deny_groups, $4::text[])"
        " ORDER BY i.shown_rank",
        panel_id, position, who.user, list(who.groups),
    )  # fmt: skip
    return [(_item(row), row["relevant"]) for row in rows]


async def item(db: Db, panel_id: str, position: int, judge: str, shown_rank: int) -> Item | None:
    row = await db.fetchrow(
        "SELECT * FROM panel_items WHERE panel_id = $1 AND position = $2 AND judge = $3 AND shown_rank = $4",
        panel_id,
        position,
        judge,
        shown_rank,
    )
    return _item(row) if row else None


def _item(row: asyncpg.Record) -> Item:
    return Item(
        row["shown_rank"], row["team"], row["rank_in_team"], row["work_id"], row["document_id"], row["passage_id"],
        row["shown"],
    )  # fmt: skip


async def credits(db: Db, panel_id: str) -> list[asyncpg.Record]:
    """Per query: the judges who were shown it, the results shown, judged, and each team's relevant picks. A
    judgment counts whether it was made in the panel or on the search page (one per judge, query and passage)."""
    return await db.fetch(
        "SELECT q.position, q.query, count(DISTINCT i.judge) AS judges, count(i.shown_rank) AS shown,"
        " count(j.id) AS judged,"
        " count(*) FILTER (WHERE j.relevant AND i.team = 'a') AS credit_a,"
        " count(*) FILTER (WHERE j.relevant AND i.team = 'b') AS credit_b"
        " FROM panel_queries q"
        " LEFT JOIN panel_items i ON i.panel_id = q.panel_id AND i.position = q.position"
        " LEFT JOIN judgments j ON j.judge = i.judge AND j.query_key = q.query_key AND j.passage_id = i.passage_id"
        " WHERE q.panel_id = $1 GROUP BY q.position, q.query ORDER BY q.position",
        panel_id,
    )
