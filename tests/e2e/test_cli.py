"""The `precedente ingest` and `precedente search` commands against a running stack, and what every command that
calls the API says when the API is stopped or refuses the credential."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from precedente.harness import RunningStack
from shared.embedded import free_port
from tests.helpers.office import contract_docx

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
    assert "locacao.docx" in good.stdout and "1 indexed" in good.stdout

    (folder / "corrompido.pdf").write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 50)
    mixed = precedente(stack, "ingest", str(folder), "--api", stack.url, "--wait", "--groups", "imobiliario")
    assert mixed.returncode == 1, mixed.stdout
    assert "1 failed" in mixed.stdout and "corrompido.pdf" in mixed.stdout

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
        assert_one_line(run_cli(*command, env=missing), "401 Unauthorized", "authentication required")
    searcher = precedente(stack, "keys", "create", "--scope", "search", "--name", "so busca").stdout.split()[-1]
    refused = run_cli("users", "list", env=stack.cli_env(searcher))
    assert_one_line(refused, "403 Forbidden", "needs permission: admin")
