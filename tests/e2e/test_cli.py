"""The `precedente ingest` and `precedente search` commands against a running stack, and what every command that
calls the API says when the API is stopped or refuses the credential."""

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from precedente.cli import main
from precedente.harness import RunningStack
from precedente.shared.infra.embedded import free_port
from tests.helpers.office import contract_docx
from tests.helpers.pdfs import retitled
from tests.helpers.stack import SMALL_PDFS, VARIANT_PAGES

pytestmark = pytest.mark.e2e


def precedente(stack: RunningStack, *args: str, key: str | None = None) -> subprocess.CompletedProcess:
    """The command as an operator runs it: the admin key unless another credential is given."""
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=stack.cli_env(key),
    )


def test_ingest_waits_reports_and_fails_on_a_bad_file(stack: RunningStack, tmp_path: Path) -> None:
    folder = tmp_path / "lote"
    folder.mkdir()
    (folder / "locacao.docx").write_bytes(
        contract_docx("O locatário poderá sublocar o imóvel a terceiros mediante consentimento prévio e escrito.")
    )
    good = precedente(stack, "ingest", str(folder), "--api", stack.url, "--wait", "--groups", "imobiliario")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "locacao.docx" in good.stdout and "1 indexado" in good.stdout
    # The admin key has no groups: the operator is told it will not find what it just sent.
    warning = [line for line in good.stderr.splitlines() if line.startswith("aviso:")]
    assert len(warning) == 1 and "imobiliario" in warning[0] and "não encontrará" in warning[0], good.stderr

    (folder / "corrompido.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    mixed = precedente(stack, "ingest", str(folder), "--api", stack.url, "--wait", "--groups", "imobiliario")
    assert mixed.returncode == 1, mixed.stdout
    assert "1 não processado" in mixed.stdout and "corrompido.pdf" in mixed.stdout

    made = precedente(stack, "keys", "create", "--scope", "search", "--groups", "imobiliario", "--name", "teste cli")
    assert made.returncode == 0, made.stdout + made.stderr
    key = made.stdout.split()[-1]
    assert key.startswith("prk_")
    found = precedente(
        stack,
        "search",
        "sublocação do imóvel depende de consentimento do locador",
        "--api",
        stack.url,
        "--json",
        key=key,
    )
    assert found.returncode == 0, found.stderr
    results = json.loads(found.stdout)["results"]
    assert "sublocar" in results[0]["chunk_text"]

    hidden = precedente(
        stack, "search", "sublocação do imóvel depende de consentimento do locador", "--api", stack.url, "--json"
    )
    assert all("sublocar" not in r["chunk_text"] for r in json.loads(hidden.stdout)["results"])


# Every command that calls the API, as an operator types it (the URL comes from PRECEDENTE_API_URL).
API_COMMANDS = [
    ("search", "dano moral"),
    ("status",),
    ("users", "list"),
    ("keys", "list"),
    ("audit",),
    ("review",),
    ("whoami",),
    ("ingest", "README.md"),
]


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", *args], capture_output=True, text=True, timeout=120, env=env
    )


def assert_one_line(result: subprocess.CompletedProcess, *words: str) -> None:
    assert result.returncode == 1, (result.args, result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("precedente: "), result.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_a_stopped_api_is_one_clear_line_not_a_traceback(tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    env = {
        **os.environ,
        "PRECEDENTE_API_URL": closed,
        "PRECEDENTE_API_KEY": "prk_x",
        "PRECEDENTE_DATA_DIR": str(tmp_path),
    }
    for command in API_COMMANDS:
        assert_one_line(run_cli(*command, env=env), "cannot reach the search API", closed, "precedente up")


def test_a_missing_or_invalid_credential_is_one_clear_line(stack: RunningStack, tmp_path: Path) -> None:
    """The API's problem document, read: its status and detail, and what to do about it."""
    empty = tmp_path / "sem-chave"
    empty.mkdir()
    bad = stack.cli_env("prk_000000000000_forged")
    missing = {**stack.cli_env(), "PRECEDENTE_API_KEY": "", "PRECEDENTE_DATA_DIR": str(empty)}
    for command in API_COMMANDS:
        assert_one_line(run_cli(*command, env=bad), "401 Unauthorized", "invalid", "PRECEDENTE_API_KEY")
        assert_one_line(
            run_cli(*command, env=missing),
            "401 Unauthorized",
            "authentication required",
            "PRECEDENTE_API_KEY is not set",
            str((empty / "admin.key").resolve()),  # where it looked, so one sees the folder was the wrong one
            "PRECEDENTE_DATA_DIR",
        )
    searcher = precedente(stack, "keys", "create", "--scope", "search", "--name", "so busca").stdout.split()[-1]
    refused = run_cli("users", "list", env=stack.cli_env(searcher))
    assert_one_line(refused, "403 Forbidden", "needs permission: admin")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`precedente ARGS` in this process (so its HTTP requests can be counted): exit status, stdout, stderr."""
    with pytest.raises(SystemExit) as ended:
        main(list(args))
    out, err = capsys.readouterr()
    return ended.value.code, out, err


@pytest.fixture(scope="module")
def own_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """A stack of its own: the decisions ingested here, open to everyone, would be copies in the suite's shared
    stack, and the pipeline tests there find each decision by its text."""
    with RunningStack(tmp_path_factory.mktemp("cli-ingest")) as running:
        yield running


def test_ingest_waits_with_one_status_request_per_interval_then_search_filters(
    own_stack: RunningStack, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three real decisions (and a README that --include leaves out): the progress moves, --wait asks
    GET /documents once per interval for all of them, and search's filters and paging reach the API."""
    folder = tmp_path / "decisoes"
    folder.mkdir()
    for name in SMALL_PDFS:
        (folder / name).write_bytes(retitled(name, "cli-wait", VARIANT_PAGES))
    (folder / "README.md").write_text("Estas são decisões de exemplo.\n")
    calls: list[tuple[str, str]] = []
    send = httpx.HTTPTransport.handle_request

    def counted(self: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        calls.append((request.method, request.url.path))
        return send(self, request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", counted)
    monkeypatch.setenv("PRECEDENTE_API_URL", own_stack.url)
    monkeypatch.setenv("PRECEDENTE_API_KEY", own_stack.admin_key())
    monkeypatch.setenv("COLUMNS", "80")

    started = time.monotonic()
    status, out, err = run(capsys, "ingest", str(folder), "--include", "*.pdf", "--wait", "--interval", "1", "--json")
    elapsed = time.monotonic() - started
    assert status == 0, err
    report = json.loads(out)
    assert sorted(Path(d["file"]).name for d in report["documents"]) == sorted(SMALL_PDFS)
    assert report["counts"] == {"indexed": 3} and report["upload_errors"] == [], report
    assert all(d["chunk_count"] for d in report["documents"]), report
    assert calls.count(("POST", "/documents")) == 3
    listings = calls.count(("GET", "/documents"))
    assert 1 <= listings <= elapsed + 2, (listings, elapsed)
    assert not [path for _, path in calls if path.endswith("/status")], calls
    progress = [line for line in err.splitlines() if " processados " in line]
    assert progress[-1].endswith("processados 3/3: 3 indexados, 0 em revisão, 0 não processados, 0 em andamento"), err
    assert len(progress) >= 2, err  # it moved: a count before the end, not a bar at 0:00:00

    query = "responsabilidade civil e dano moral"
    status, out, err = run(capsys, "search", query, "--court", "STJ", "--type", "Acórdão", "--json")
    assert status == 0, err
    found = json.loads(out)["results"]
    assert found and all(r["court"] == "stj" and r["document_type"] == "acordao" for r in found), found
    status, out, _ = run(capsys, "search", query, "--court", "TJ-RJ", "--json")
    assert {r["court"] for r in json.loads(out)["results"]} == {"tjrj"}
    status, out, _ = run(capsys, "search", query, "--from", "2099", "--json")
    assert json.loads(out)["results"] == []
    classes = {r["procedural_class"] for r in found if r["procedural_class"]}
    assert classes, found
    wanted = sorted(classes)[0]
    status, out, _ = run(capsys, "search", query, "--class", wanted, "--json")
    assert status == 0 and {r["procedural_class"] for r in json.loads(out)["results"]} == {wanted}, out
    status, out, _ = run(capsys, "search", query, "--top-k", "1", "--page", "2", "--sort", "date", "--json")
    second = json.loads(out)
    assert second["offset"] == 1 and len(second["results"]) == 1

    status, out, _ = run(capsys, "search", query, "--court", "stj")
    assert status == 0
    lines = out.splitlines()
    assert all(len(line) <= 80 for line in lines), out
    assert lines[0].split()[1] == "resultados" and " p. " in out and "1. [" in out, out

    status, out, _ = run(capsys, "whoami", "--json")
    me = json.loads(out)
    assert status == 0 and me["groups"] == [] and "admin" in me["permissions"], me
