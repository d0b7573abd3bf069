"""`precedente watch DIR`: a document-management-system adapter that mirrors a folder into Precedente.

Every `interval` seconds the folder is scanned; new and changed files are uploaded through
`POST /documents` (external id `dms:<namespace>/<relative path>`, so a changed file becomes a new
version of the same document and its old chunks are replaced), and files gone from the folder are
deleted through `DELETE /documents/{id}` (documents.deleted removes their chunks and vectors).
A state file (relative path -> size, mtime, sha256, document id) survives restarts, so nothing is
uploaded twice; a file is only hashed again when its size or mtime moved. A file still being written
(modified less than `settle` seconds ago) waits for the next scan. A failed upload or deletion is
not recorded, so the next scan tries it again.

The logic is plain functions (`scan`, `diff`, `apply`) testable without a broker or an API.
"""

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import httpx

from precedente.credentials import IDLE_CONNECTIONS

log = logging.getLogger(__name__)

STATE_VERSION = 1


@dataclass(frozen=True)
class FileState:
    size: int
    mtime_ns: int
    sha256: str
    document_id: str | None = None


@dataclass
class Changes:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


def external_id(namespace: str, relative: str) -> str:
    """Stable across restarts and content changes: one document per path in the watched folder."""
    return f"dms:{namespace}/{relative}"


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def scan(
    root: Path, known: dict[str, FileState], settle: float = 1.0, now: float | None = None
) -> dict[str, FileState]:
    """The folder's files (relative POSIX paths; hidden files and folders skipped) with their hashes.

    A file whose size and mtime match `known` keeps its known hash. A file modified less than `settle`
    seconds ago is left out unless it is known (then its known state stands until it settles).
    """
    now = time.time() if now is None else now
    found: dict[str, FileState] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            path = Path(dirpath) / name
            relative = path.relative_to(root).as_posix()
            try:
                info = path.stat()
            except FileNotFoundError:
                continue
            previous = known.get(relative)
            if previous and previous.size == info.st_size and previous.mtime_ns == info.st_mtime_ns:
                found[relative] = previous
                continue
            if now - info.st_mtime_ns / 1e9 < settle:
                if previous:
                    found[relative] = previous
                continue
            try:
                digest = file_hash(path)
            except FileNotFoundError:
                continue
            document_id = previous.document_id if previous else None
            found[relative] = FileState(info.st_size, info.st_mtime_ns, digest, document_id)
    return found


def diff(known: dict[str, FileState], current: dict[str, FileState]) -> Changes:
    """What to upload and what to delete; a touched file with the same content is not a change."""
    changes = Changes()
    for relative, state in sorted(current.items()):
        before = known.get(relative)
        if before is None:
            changes.added.append(relative)
        elif before.sha256 != state.sha256:
            changes.changed.append(relative)
    changes.removed = sorted(set(known) - set(current))
    return changes


def load_state(path: Path) -> dict[str, FileState]:
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    return {relative: FileState(**entry) for relative, entry in data.get("files", {}).items()}


def save_state(path: Path, state: dict[str, FileState]) -> None:
    """Written to a temporary file and renamed: a crash never leaves a half-written state."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    body = {"version": STATE_VERSION, "files": {k: asdict(v) for k, v in sorted(state.items())}}
    temporary.write_text(json.dumps(body, indent=1))
    os.replace(temporary, path)


Uploader = Callable[[str, Path], str]  # (relative path, file) -> document id
Deleter = Callable[[str, str], None]  # (relative path, document id)


def apply(
    root: Path,
    known: dict[str, FileState],
    current: dict[str, FileState],
    upload: Uploader,
    delete: Deleter,
) -> tuple[dict[str, FileState], Changes]:
    """Upload the new and changed files, delete the removed ones; returns the state to save.

    Whatever fails keeps its previous state (nothing for a new file), so the next scan retries it.
    """
    changes = diff(known, current)
    state = {relative: entry for relative, entry in current.items() if relative not in changes.added + changes.changed}
    for relative in changes.added + changes.changed:
        try:
            document_id = upload(relative, root / relative)
        except (httpx.HTTPError, OSError) as err:
            log.warning("watch: upload of %s failed, will retry: %s", relative, err)
            if relative in known:
                state[relative] = known[relative]
            continue
        state[relative] = FileState(
            current[relative].size, current[relative].mtime_ns, current[relative].sha256, document_id
        )
    for relative in changes.removed:
        document_id = known[relative].document_id
        if document_id is not None:
            try:
                delete(relative, document_id)
            except httpx.HTTPError as err:
                log.warning("watch: deletion of %s failed, will retry: %s", relative, err)
                state[relative] = known[relative]
    return state, changes


class ApiClient:
    """Uploads and deletions through the search API, as the DMS source with the given access list."""

    def __init__(self, base_url: str, namespace: str, access_groups: str | None, headers: dict[str, str]) -> None:
        self.client = httpx.Client(base_url=base_url.rstrip("/"), timeout=120, headers=headers, limits=IDLE_CONNECTIONS)
        self.namespace = namespace
        self.access_groups = access_groups

    def upload(self, relative: str, path: Path) -> str:
        data = {"external_id": external_id(self.namespace, relative), "source": "dms"}
        if self.access_groups:
            data["access_groups"] = self.access_groups
        with path.open("rb") as handle:
            response = self.client.post("/documents", files={"file": (path.name, handle)}, data=data)
        response.raise_for_status()
        body = response.json()
        log.info("watch: %s -> %s (%s)", relative, body["document_id"], body["outcome"])
        return body["document_id"]

    def delete(self, relative: str, document_id: str) -> None:
        response = self.client.delete(f"/documents/{document_id}", params={"source": "dms"})
        if response.status_code == 404:  # already gone, or never visible to us: nothing left to do
            log.info("watch: %s (%s) was not there to delete", relative, document_id)
            return
        response.raise_for_status()
        log.info("watch: %s deleted (%s)", relative, document_id)

    def close(self) -> None:
        self.client.close()


def default_state_file(root: Path) -> Path:
    return root / ".precedente-watch.json"


def sync_once(root: Path, state_file: Path, api: ApiClient, settle: float = 1.0) -> Changes:
    known = load_state(state_file)
    current = scan(root, known, settle)
    state, changes = apply(root, known, current, api.upload, api.delete)
    if state != known:
        save_state(state_file, state)
    return changes


def watch(
    root: Path,
    api: ApiClient,
    state_file: Path,
    interval: float = 5.0,
    settle: float = 1.0,
    once: bool = False,
) -> None:
    """Poll the folder until interrupted (or once)."""
    while True:
        changes = sync_once(root, state_file, api, settle)
        if changes:
            log.info(
                "watch: %d added, %d changed, %d removed",
                len(changes.added),
                len(changes.changed),
                len(changes.removed),
            )
        if once:
            return
        time.sleep(interval)
