"""`precedente up` ends what an earlier run on its data directory left behind, and nothing else; it runs the
pipeline's services at a lower CPU priority than search."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from precedente import stack
from precedente.shared.settings import Settings
from precedente.stack import PIPELINE_SERVICES, Stack, end_orphans, module_command, orphans_of


def _sleeper(data_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "PRECEDENTE_DATA_DIR": str(data_dir)}
    process = subprocess.Popen(["sleep", "300"], env=env, start_new_session=True)  # its own group, as readers make
    # Until its exec, a child shows its parent's environment: on a loaded CI machine orphans_of once looked before.
    deadline = time.monotonic() + 10
    while psutil.Process(process.pid).environ().get("PRECEDENTE_DATA_DIR") != str(data_dir):
        assert time.monotonic() < deadline, "the sleeper never started"
        time.sleep(0.01)
    return process


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


def test_services_start_from_a_folder_that_holds_decoys_of_our_packages(tmp_path: Path) -> None:
    """`precedente up` run where a `shared/` or `precedente/` folder lies (../shared beside a checkout) must still
    import the installed packages: a decoy that raises on import would otherwise be picked up by `python -m`."""
    for package in ("shared", "precedente", "services"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("raise ImportError('decoy imported from the current folder')\n")
    started = subprocess.run(  # noqa: S603 - our own interpreter and module
        module_command("precedente.cli", "serve", "--help"), cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, started.stderr[-2000:]
    assert "decoy" not in started.stderr
    plain = subprocess.run(  # noqa: S603 - what the command was before -P, to show the decoy bites
        [sys.executable, "-m", "precedente.cli", "serve", "--help"], cwd=tmp_path, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert plain.returncode != 0 and "decoy" in plain.stderr


@pytest.mark.parametrize("nice", [10, 0])
def test_the_pipeline_services_run_nicer_than_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nice: int
) -> None:
    """Every ingestion process `up` starts (the extractor, whose OCR runs inherit it, the indexers...) gets
    up_pipeline_nice more niceness than this process, which search keeps: a query wins the CPU from ingestion."""
    monkeypatch.setattr(stack, "module_command", lambda *args: ["sleep", "60"])  # a stand-in for each service
    running = Stack(Settings(up_pipeline_nice=nice), tmp_path, port=0)
    running.logs.mkdir(parents=True)
    ours = psutil.Process().nice()
    try:
        for name in [*PIPELINE_SERVICES, "search"]:
            running._spawn(name, 0)
        niceness = {child.name: psutil.Process(child.process.pid).nice() for child in running.children.values()}
        groups = {child.name: stack.autogroup_nice(child.process.pid) for child in running.children.values()}
    finally:
        for child in running.children.values():
            child.process.kill()
            child.process.wait(timeout=5)
    assert niceness.pop("search") == ours
    assert set(niceness) == set(PIPELINE_SERVICES) and len(PIPELINE_SERVICES) >= 4
    assert all(value == min(ours + nice, 19) for value in niceness.values()), niceness
    # Each service is its own session: where the kernel gives each its own CPU share (autogroups), that share's
    # nice value is what ranks ingestion below search; niceness alone would not.
    our_group = stack.autogroup_nice()
    if our_group is None:
        assert set(groups.values()) == {None}
    else:
        assert groups.pop("search") == our_group
        assert all(value == min(our_group + nice, 19) for value in groups.values()), groups


def test_the_init_sessions_autogroup_reads_as_nice_zero() -> None:
    """init's group (the root one, where a container's or CI's shell may run `up`) shows an empty autogroup file:
    it must read as nice 0, not as "no autogroups", or the services' groups would be left unranked."""
    enabled = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    if not enabled:
        assert stack.autogroup_nice(1) is None
    elif Path("/proc/1/autogroup").read_text().strip() == "":
        assert stack.autogroup_nice(1) == 0
    else:  # pid 1 is a container's own init, in a group of its own
        assert isinstance(stack.autogroup_nice(1), int)


def test_stop_signals_every_service_at_once_and_kills_one_that_outlives_the_stop_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A service that ignores SIGTERM (stuck) is killed once SERVICE_STOP_S has passed since the signal, the others
    end on the signal; `up` says where its stop spent its time."""
    monkeypatch.setattr(stack, "SERVICE_STOP_S", 2.0)
    ready = "print('ready', flush=True); time.sleep(300)"
    stubborn = f"import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); {ready}"
    polite = f"import time; {ready}"
    children = {}
    for name, code in (("indexer", stubborn), ("cleaner", polite)):
        process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)  # noqa: S603
        assert process.stdout is not None and process.stdout.readline() == "ready\n"  # its handler is in place
        children[name] = stack.Child(name, 0, process, time.monotonic())
    up = Stack(settings=Settings(), data_dir=tmp_path, port=0, children=children)
    with caplog.at_level("INFO", logger=stack.log.name):
        up.stop()

    assert children["indexer"].process.returncode == -9  # killed
    assert children["cleaner"].process.returncode == -15  # ended by the SIGTERM
    assert "indexer did not stop in time; killing it" in caplog.text
    assert "cleaner did not stop" not in caplog.text
    assert "stopped in" in caplog.text and "the services in" in caplog.text


def test_a_services_metrics_port_taken_by_another_process_is_chosen_again(tmp_path: Path) -> None:
    """A service keeps its /metrics port across restarts, unless another process bound it meanwhile: the web page,
    started on port 0, once got the cleaner's, and the cleaner restarted for ever on "Address already in use"."""
    running = Stack(Settings(), tmp_path, port=0)
    first = running._metrics_port("cleaner-0")
    assert running._metrics_port("cleaner-0") == first  # kept while nobody else holds it
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", first))
        squatter.listen()
        second = running._metrics_port("cleaner-0")
    assert second != first
    listed = json.loads((tmp_path / "metrics-ports.json").read_text())
    assert listed["cleaner-0"] == f"http://127.0.0.1:{second}/metrics"
