"""Hostile and broken files: each ends with a clear reason, in bounded time and memory.

Every input is built at run time (tests/helpers/hostile.py; no file is checked in), written to a temporary
file and read by extract() in a child process under an address-space limit (RLIMIT_AS), so a reader that
tried to inflate a bomb would fail inside the child with MemoryError instead of taking the
machine down; the child reports its outcome, the seconds extract() took and its peak resident
memory (VmHWM, about 160 MB of it interpreter and libraries).
bench/hostile_inputs.py prints the same cases as a table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.hostile import (
    docx_lying_directory,
    docx_zip_bomb,
    encrypted_docx,
    giant_page_pdf,
    html_named_pdf,
    image_bomb_pdf,
    javascript_pdf,
    looping_ole,
    many_pages_pdf,
    nested_eml,
    nested_html,
    png_named_docx,
    write_oversized,
    zip_directory_bomb,
)
from tests.helpers.office import TEXT

REPO = Path(__file__).resolve().parents[3]

# --------------------------------------------------------------------------------------------
# Running extract() in a child under limits
# --------------------------------------------------------------------------------------------

CHILD = r"""
import json, resource, sys, time
limit = int(sys.argv[3]) * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from precedente.services.extractor.logic import BadInput, extract
result = {}
start = time.perf_counter()
try:
    with open(sys.argv[1], "rb") as source:
        data = source.read()
    start = time.perf_counter()
    doc = extract(data, sys.argv[2], **json.loads(sys.argv[4]))
    result = {"outcome": "ok", "reason": f"{len(doc.pages)} page(s) read", "warnings": doc.warnings,
              "text": doc.pages[0].text[:300]}
except BadInput as bad:
    result = {"outcome": bad.disposition, "reason": bad.reason, "code": bad.code}
except MemoryError:
    result = {"outcome": "MemoryError", "reason": "the reader ran out of address space"}
result["seconds"] = time.perf_counter() - start
# VmHWM, not ru_maxrss: the latter keeps the forking parent's size across exec.
with open("/proc/self/status") as status:
    hwm = next(line for line in status if line.startswith("VmHWM:"))
result["peak_rss_mb"] = int(hwm.split()[1]) / 1024
print(json.dumps(result))
"""


@dataclass
class Case:
    name: str
    filename: str
    build: Callable[[], bytes] | None
    """None: the oversized file, written sparse rather than built in memory."""
    outcome: str
    says: list[str]
    code: str | None = None
    max_seconds: float = 5.0
    max_rss_mb: float = 400.0
    memory_limit_mb: int = 1536
    kwargs: dict[str, Any] = field(default_factory=dict)

    def write(self, path: Path) -> None:
        if self.build is None:
            write_oversized(path)
        else:
            path.write_bytes(self.build())


CASES = [
    Case("10,000-page PDF", "autos.pdf", many_pages_pdf, "review", ["10000 pages", "limit of 2000"],
         "too_many_pages", max_seconds=2.0),
    Case("50000 x 50000 image in a PDF", "bomba.pdf", image_bomb_pdf, "review",
         ["50,000 x 50,000 pixels", "decompression bomb"], "image_bomb", max_seconds=2.0),
    Case("200 x 200 inch page", "planta.pdf", giant_page_pdf, "review", ["megapixels", "normal page size"],
         "page_too_large", max_seconds=2.0),
    Case("DOCX zip bomb (512 MiB of XML)", "contrato.docx", docx_zip_bomb, "review",
         ["zip bomb", "unpacks to 512"], "zip_bomb", max_seconds=2.0),
    Case("ZIP listing 1,000,000 members", "contrato.docx", zip_directory_bomb, "review",
         ["zip bomb", "1,000,000 files"], "zip_bomb", max_seconds=1.0),
    Case("DOCX whose ZIP directory lies", "contrato.docx", docx_lying_directory, "deadletter",
         ["cannot be opened"], "damaged"),
    Case("PDF with JavaScript", "formulario.pdf", javascript_pdf, "ok", ["1 page(s) read"]),
    Case("file over 200 MiB", "enorme.pdf", None, "deadletter",
         ["209,715,201 bytes", "more than the limit of 209,715,200 bytes"], "too_large", max_seconds=1.0,
         max_rss_mb=450),
    Case("password-protected DOCX", "sigiloso.docx", encrypted_docx, "review", ["password-protected"],
         "password_protected"),
    Case("OLE2 file whose sectors loop", "antigo.doc", looping_ole, "deadletter", ["damaged OLE2"], "damaged"),
    Case("HTML nested 100,000 levels", "pagina.html", nested_html, "review", ["no text could be extracted"],
         "no_text"),
    Case("e-mail nested 5,000 MIME levels", "mensagem.eml", nested_eml, "deadletter", ["cannot be parsed"],
         "damaged"),
    Case("PNG named .docx", "contrato.docx", png_named_docx, "deadletter", ["a PNG image"], "unsupported_format"),
    Case("HTML named .pdf", "parecer.pdf", html_named_pdf, "ok", ["1 page(s) read"]),
]  # fmt: skip


def run_isolated(case: Case, workdir: Path) -> dict[str, Any]:
    """extract() on the case's file in a fresh child process under RLIMIT_AS; its JSON report."""
    path = workdir / f"input-{abs(hash(case.name))}"
    case.write(path)
    try:
        completed = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), case.filename, str(case.memory_limit_mb), json.dumps(case.kwargs)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=REPO,
            env={**os.environ, "OMP_THREAD_LIMIT": "1", "OPENBLAS_NUM_THREADS": "1"},
        )
    finally:
        path.unlink(missing_ok=True)
    if completed.returncode != 0 or not completed.stdout.strip():
        return {"outcome": f"crashed (exit {completed.returncode})", "reason": completed.stderr[-500:]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_ends_with_a_clear_reason_in_bounded_time_and_memory(case: Case, tmp_path: Path):
    report = run_isolated(case, tmp_path)

    assert report["outcome"] == case.outcome, report
    for words in case.says:
        assert words in report["reason"], report
    if case.code:
        assert report["code"] == case.code
    assert report["seconds"] < case.max_seconds, report
    assert report["peak_rss_mb"] < case.max_rss_mb, report


def test_javascript_is_ignored_and_reported_as_a_warning(tmp_path: Path):
    report = run_isolated(next(c for c in CASES if c.name == "PDF with JavaScript"), tmp_path)
    assert TEXT in report["text"]
    assert len(report["warnings"]) == 1
    assert "JavaScript (3 object(s))" in report["warnings"][0] and "never run" in report["warnings"][0]


def test_html_named_pdf_is_read_as_html_without_its_script(tmp_path: Path):
    report = run_isolated(next(c for c in CASES if c.name == "HTML named .pdf"), tmp_path)
    assert report["text"] == TEXT


@pytest.mark.slow
def test_zip_bomb_would_exhaust_the_child_without_the_guard(tmp_path: Path):
    """The bomb is real: python-docx alone, under the same 1.5 GiB limit, grows to it and fails."""
    path = tmp_path / "bomba.docx"
    path.write_bytes(docx_zip_bomb())
    child = (
        "import resource, sys, docx\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))\n"
        "try:\n    docx.Document(sys.argv[1])\n    print('opened')\n"
        "except Exception as exc:\n    print(type(exc).__name__)\n"
        "print(next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM')) // 1024)\n"
    )
    completed = subprocess.run([sys.executable, "-c", child, str(path)], capture_output=True, text=True, timeout=120)
    outcome, peak_mb = completed.stdout.split()
    assert outcome in ("MemoryError", "XMLSyntaxError")  # libxml2 reports a failed malloc as "unknown error"
    assert int(peak_mb) > 1200
