"""The schema and the ledger against a real embedded PostgreSQL (pgvector, unaccent, Portuguese)."""

import asyncpg

from precedente.shared.contracts import MetadataHints, Source
from precedente.shared.infra.db import migrate, migration_files
from precedente.shared.runtime import ledger


async def test_migrations_apply_once(database_url: str, pool: asyncpg.Pool) -> None:
    assert await migrate(database_url) == []
    applied = await pool.fetchval("SELECT count(*) FROM schema_migrations")
    assert applied == len(migration_files())


async def test_portuguese_full_text_ignores_accents_and_inflection(pool: asyncpg.Pool) -> None:
    matches = await pool.fetchval(
        "SELECT to_tsvector('public.pt_unaccent', 'as responsabilidades solidárias do tomador')"
        " @@ plainto_tsquery('public.pt_unaccent', 'responsabilidade solidaria')"
    )
    assert matches is True


async def submit(pool: asyncpg.Pool, external_id: str, content_hash: str) -> ledger.Submission:
    return await ledger.register_submission(
        pool,
        external_id=external_id,
        filename="a.pdf",
        content_type="application/pdf",
        content_hash=content_hash,
        size_bytes=10,
        source=Source.CLI,
        access_groups=["*"],
        hints=MetadataHints(),
    )


async def test_submission_outcomes(pool: asyncpg.Pool) -> None:
    first = await submit(pool, "cli:/a.pdf", "h1")
    assert first.outcome == "new" and first.event is not None and first.event.version == 1

    same = await submit(pool, "cli:/a.pdf", "h1")
    assert (same.document_id, same.outcome, same.event) == (first.document_id, "unchanged", None)

    elsewhere = await submit(pool, "cli:/copy-of-a.pdf", "h1")
    assert (elsewhere.document_id, elsewhere.outcome, elsewhere.event) == (first.document_id, "duplicate", None)

    changed = await submit(pool, "cli:/a.pdf", "h2")
    assert changed.document_id == first.document_id and changed.outcome == "new_version"
    assert changed.event is not None and changed.event.version == 2

    await pool.execute("UPDATE documents SET stage = 'failed' WHERE id = $1", first.document_id)
    retry = await submit(pool, "cli:/a.pdf", "h2")
    assert retry.outcome == "retry" and retry.event is not None and retry.event.version == 2
    assert await pool.fetchval("SELECT stage FROM documents WHERE id = $1", first.document_id) == "submitted"


async def test_advance_refuses_a_stale_version(pool: asyncpg.Pool) -> None:
    sub = await submit(pool, "cli:/b.pdf", "hb1")
    assert sub.event is not None
    newer = await submit(pool, "cli:/b.pdf", "hb2")
    assert newer.event is not None
    assert await ledger.advance(pool, sub.event, ledger.Stage.EXTRACTED) is False
    assert await ledger.advance(pool, newer.event, ledger.Stage.EXTRACTED, page_count=3) is True
    row = await ledger.current(pool, sub.document_id)
    assert row is not None and (row["stage"], row["version"], row["page_count"]) == ("extracted", 2, 3)


async def test_the_same_content_under_another_access_list_is_another_document(pool: asyncpg.Pool) -> None:
    async def under(external_id: str, groups: list[str]) -> ledger.Submission:
        return await ledger.register_submission(
            pool,
            external_id=external_id,
            filename="c.pdf",
            content_type="application/pdf",
            content_hash="hc",
            size_bytes=10,
            source=Source.UPLOAD,
            access_groups=groups,
            hints=MetadataHints(),
        )

    restricted = await under("upload:1", ["fusao-x", "contencioso"])
    public = await under("upload:2", ["*"])
    assert public.outcome == "new" and public.document_id != restricted.document_id
    same_groups = await under("upload:3", ["contencioso", "fusao-x"])
    assert (same_groups.outcome, same_groups.document_id) == ("duplicate", restricted.document_id)
