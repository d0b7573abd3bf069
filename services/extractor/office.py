"""Legacy Word (.doc), OpenDocument (.odt) and RTF, read by converting them to DOCX with LibreOffice.

No Python library reads .doc text reliably, and LibreOffice reads all three well; its DOCX output
then goes through the same reader as any DOCX (page breaks, tables, headers, footnotes). Each
conversion runs in a throwaway user profile (so concurrent conversions do not fight over a lock
and nothing is left behind), under a virtual-memory limit and a wall-clock timeout that kills
soffice.bin too, not just its launcher. It stays in the caller's process group, so the service's
isolated reader (isolation.py), when it kills its own group, takes LibreOffice with it.

Without LibreOffice the file goes to review with a reason that says what to install or how to
save the file instead: never silently dropped.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import psutil

from precedente.shared.errors import BadInput, quoted

CONVERT_TIMEOUT_S = 120
"""A 300-page .doc converts in about 10 s on one core; a file that takes longer is pathological."""
CONVERT_MEMORY_BYTES = 2 * 1024 * 1024 * 1024
"""Address-space limit for LibreOffice (it needs about 250 MB of resident memory for a small file)."""
DEBIAN_PACKAGE = "libreoffice-writer-nogui"

_WHAT = {
    "doc": "a legacy Word document (.doc)",
    "odt": "an OpenDocument text (.odt)",
    "rtf": "an RTF document",
}


def find_soffice(configured: str | None = None) -> str | None:
    """The LibreOffice binary: the configured one (a name or a path), else soffice or libreoffice on PATH."""
    if configured is not None:
        return shutil.which(configured)
    return shutil.which("soffice") or shutil.which("libreoffice")


def convert_to_docx(
    data: bytes,
    kind: str,
    filename: str,
    *,
    soffice: str | None = None,
    timeout_s: float = CONVERT_TIMEOUT_S,
) -> bytes:
    """The file converted to DOCX by LibreOffice headless, or BadInput saying why it could not be."""
    what = _WHAT.get(kind, f"a {kind} file")
    binary = find_soffice(soffice)
    if binary is None:
        missing = f" ({soffice} was not found)" if soffice else ""
        raise BadInput(
            f"unsupported here: {quoted(filename)} is {what}, which is read by converting it with LibreOffice, "
            f"and LibreOffice is not installed{missing}; install LibreOffice "
            f"(Debian package {DEBIAN_PACKAGE}) or save the file as DOCX or PDF",
            "review",
            code="converter_missing",
        )
    with tempfile.TemporaryDirectory(prefix="precedente-office-") as tmp:
        root = Path(tmp)
        source = root / f"document.{kind}"
        source.write_bytes(data)
        out = root / "out"
        command = [
            "sh",
            "-c",
            f'ulimit -v {CONVERT_MEMORY_BYTES // 1024}; exec "$@"',
            "sh",
            binary,
            "--headless",
            "--norestore",
            "--nolockcheck",
            "--nologo",
            "--nodefault",
            f"-env:UserInstallation={(root / 'profile').as_uri()}",
            "--convert-to",
            "docx:MS Word 2007 XML",
            "--outdir",
            str(out),
            str(source),
        ]
        env = {**os.environ, "HOME": tmp, "SAL_USE_VCLPLUGIN": "svp"}
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=tmp)
        try:
            output, _ = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill_tree(process)
            raise BadInput(
                f"LibreOffice took more than {timeout_s:.0f} s to convert {quoted(filename)} ({what}) and was stopped; "
                "open it in a word processor and save it as DOCX or PDF",
                "review",
                code="timeout",
            ) from None
        converted = out / "document.docx"
        if process.returncode != 0 or not converted.is_file() or converted.stat().st_size == 0:
            detail = output.decode("utf-8", "replace").strip().splitlines()
            detail = [line for line in detail if "javaldx" not in line][-2:]
            raise BadInput(
                f"{quoted(filename)} looks like {what} but LibreOffice could not read it "
                f"(exit status {process.returncode}{': ' + ' / '.join(detail) if detail else ''}); "
                "it is damaged, or not what it seems: open it in a word processor and save it as DOCX or PDF",
                "deadletter",
                code="damaged",
            )
        return converted.read_bytes()


def _kill_tree(process: subprocess.Popen[bytes]) -> None:
    """Kill the launcher and everything it started (soffice.bin), then reap the launcher."""
    try:
        descendants = psutil.Process(process.pid).children(recursive=True)
    except psutil.Error:
        descendants = []
    for child in descendants:
        with contextlib.suppress(psutil.Error):
            child.kill()
    process.kill()
    process.communicate()
