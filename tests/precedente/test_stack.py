"""`precedente up` ends what an earlier run on its data directory left behind, and nothing else."""

import os
import subprocess
import time
from pathlib import Path

import psutil

from precedente.stack import end_orphans, orphans_of


def _sleeper(data_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "PRECEDENTE_DATA_DIR": str(data_dir)}
    return subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)  # its own group, as readers make


def test_orphans_of_this_data_directory_are_ended_and_others_are_left(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    orphan, other = _sleeper(ours), _sleeper(theirs)
    try:
        assert [p.pid for p in orphans_of(ours)] == [orphan.pid]
        assert end_orphans(ours) == 1
        orphan.wait(timeout=5)  # ended (end_orphans may have reaped it itself)
        time.sleep(0.2)
        assert other.poll() is None and psutil.pid_exists(other.pid)
        assert end_orphans(ours) == 0
    finally:
        orphan.kill()
        other.kill()
