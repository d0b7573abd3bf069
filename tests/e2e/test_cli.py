"""The `precedente ingest` and `precedente search` commands against a running stack."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from precedente.harness import RunningStack
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
