"""The folder watcher's logic (precedente/watch.py) without a broker or an API: scanning, diffing,
applying with fake upload/delete functions, failures retried, and the state surviving a restart."""

import os
import time
from pathlib import Path

import httpx
import pytest

from precedente.watch import FileState, apply, diff, external_id, load_state, save_state, scan, sync_once

OLD = time.time() - 60


def write(root: Path, relative: str, content: bytes, mtime: float = OLD) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    os.utime(path, (mtime, mtime))
    return path


class FakeApi:
    def __init__(self) -> None:
        self.uploads: list[str] = []
        self.deletes: list[tuple[str, str]] = []
        self.fail_upload: set[str] = set()
        self.fail_delete: set[str] = set()

    def upload(self, relative: str, path: Path) -> str:
        if relative in self.fail_upload:
            raise httpx.ConnectError("down")
        self.uploads.append(relative)
        return f"id-{relative}"

    def delete(self, relative: str, document_id: str) -> None:
        if relative in self.fail_delete:
            raise httpx.ConnectError("down")
        self.deletes.append((relative, document_id))


def test_scan_lists_files_with_relative_posix_paths_and_skips_hidden(tmp_path: Path) -> None:
    write(tmp_path, "a.pdf", b"a")
    write(tmp_path, "sub/b.docx", b"b")
    write(tmp_path, ".hidden", b"x")
    write(tmp_path, ".git/config", b"x")
    found = scan(tmp_path, {})
    assert sorted(found) == ["a.pdf", "sub/b.docx"]
    assert found["a.pdf"].size == 1 and len(found["a.pdf"].sha256) == 64


def test_scan_waits_for_a_file_still_being_written(tmp_path: Path) -> None:
    write(tmp_path, "fresh.pdf", b"partial", mtime=time.time())
    assert scan(tmp_path, {}, settle=5) == {}
    assert "fresh.pdf" in scan(tmp_path, {}, settle=0)


def test_scan_does_not_rehash_an_untouched_file(tmp_path: Path) -> None:
    path = write(tmp_path, "a.pdf", b"a")
    info = path.stat()
    known = {"a.pdf": FileState(info.st_size, info.st_mtime_ns, "remembered", "id-1")}
    assert scan(tmp_path, known)["a.pdf"].sha256 == "remembered"


def test_diff_added_changed_removed_and_a_touch_is_not_a_change() -> None:
    known = {
        "same.pdf": FileState(1, 1, "h1", "d1"),
        "touched.pdf": FileState(1, 1, "h2", "d2"),
        "edited.pdf": FileState(1, 1, "h3", "d3"),
        "gone.pdf": FileState(1, 1, "h4", "d4"),
    }
    current = {
        "same.pdf": FileState(1, 1, "h1", "d1"),
        "touched.pdf": FileState(1, 99, "h2", "d2"),
        "edited.pdf": FileState(2, 2, "h3b", "d3"),
        "new.pdf": FileState(1, 1, "h5"),
    }
    changes = diff(known, current)
    assert changes.added == ["new.pdf"]
    assert changes.changed == ["edited.pdf"]
    assert changes.removed == ["gone.pdf"]


def test_apply_uploads_new_and_changed_and_deletes_removed(tmp_path: Path) -> None:
    api = FakeApi()
    known = {"edited.pdf": FileState(1, 1, "old", "id-edited.pdf"), "gone.pdf": FileState(1, 1, "h", "doc-gone")}
    current = {"edited.pdf": FileState(2, 2, "new"), "new.pdf": FileState(1, 1, "n")}
    state, _ = apply(tmp_path, known, current, api.upload, api.delete)
    assert sorted(api.uploads) == ["edited.pdf", "new.pdf"]
    assert api.deletes == [("gone.pdf", "doc-gone")]
    assert state == {
        "edited.pdf": FileState(2, 2, "new", "id-edited.pdf"),
        "new.pdf": FileState(1, 1, "n", "id-new.pdf"),
    }


def test_failures_keep_the_previous_state_so_the_next_scan_retries(tmp_path: Path) -> None:
    api = FakeApi()
    api.fail_upload = {"new.pdf", "edited.pdf"}
    api.fail_delete = {"gone.pdf"}
    known = {"edited.pdf": FileState(1, 1, "old", "d1"), "gone.pdf": FileState(1, 1, "h", "d2")}
    current = {"edited.pdf": FileState(2, 2, "new"), "new.pdf": FileState(1, 1, "n")}
    state, _ = apply(tmp_path, known, current, api.upload, api.delete)
    assert state == known  # nothing recorded: the same diff comes back next time
    assert diff(state, current).added == ["new.pdf"]


def test_state_round_trips_and_a_restart_republishes_nothing(tmp_path: Path) -> None:
    folder, state_file = tmp_path / "dms", tmp_path / "state.json"
    write(folder, "a.pdf", b"a")
    write(folder, "b/c.pdf", b"c")
    api = FakeApi()
    changes = sync_once(folder, state_file, api)  # type: ignore[arg-type]
    assert changes.added == ["a.pdf", "b/c.pdf"]
    assert load_state(state_file)["a.pdf"].document_id == "id-a.pdf"
    again = FakeApi()
    assert not sync_once(folder, state_file, again)  # type: ignore[arg-type]
    assert again.uploads == [] and again.deletes == []
    write(folder, "a.pdf", b"a2", mtime=OLD + 1)
    (folder / "b" / "c.pdf").unlink()
    changes = sync_once(folder, state_file, again)  # type: ignore[arg-type]
    assert changes.changed == ["a.pdf"] and changes.removed == ["b/c.pdf"]
    assert again.deletes == [("b/c.pdf", "id-b/c.pdf")]
    assert set(load_state(state_file)) == {"a.pdf"}


def test_state_file_inside_the_folder_is_not_a_document(tmp_path: Path) -> None:
    write(tmp_path, "a.pdf", b"a")
    save_state(tmp_path / ".precedente-watch.json", {"a.pdf": FileState(1, 1, "h", "d")})
    assert list(scan(tmp_path, {})) == ["a.pdf"]


@pytest.mark.parametrize("relative", ["a.pdf", "sub/dir/b.pdf"])
def test_external_id_is_stable_per_path(relative: str) -> None:
    assert external_id("acme", relative) == f"dms:acme/{relative}"
