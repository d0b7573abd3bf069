"""`precedente up`: the whole product on one machine, each service its own process.

The supervisor starts the embedded database and broker (unless external ones are configured),
applies migrations, creates the topics, starts every service as a child process, resumes the
documents the ledger says are unfinished, restarts a service that dies, and on SIGINT/SIGTERM
stops everything in reverse order.
"""

import asyncio
import json
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from shared.broker import ensure_topics
from shared.db import migrate
from shared.embedded import EmbeddedBroker, EmbeddedPostgres, free_port, wait_for_port
from shared.recovery import resume_unfinished
from shared.settings import Settings

log = logging.getLogger("precedente.up")

PIPELINE_SERVICES = ["extractor", "cleaner", "chunker", "annotator", "indexer"]
ALL_SERVICES = [*PIPELINE_SERVICES, "search"]
GATEWAY = "gateway"
# `npm run build` in services/gateway (make install does it) leaves a self-contained Node server here.
GATEWAY_SERVER = Path(__file__).resolve().parents[1] / "services" / "gateway" / ".next" / "standalone" / "server.js"

# Tansu lets a consumer join its group after about half the session timeout: keep it short locally.
EMBEDDED_BROKER_DEFAULTS = {
    "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "6000",
    "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1500",
}


@dataclass
class Child:
    name: str
    replica: int
    process: subprocess.Popen
    started_at: float
    restarts: int = 0


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
    stopping: bool = False

    @property
    def logs(self) -> Path:
        return self.data_dir / "logs"

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(exist_ok=True)
        database_url = self.settings.database_url
        if not database_url:
            self.postgres = EmbeddedPostgres(self.data_dir)
            database_url = self.postgres.start()
            log.info("PostgreSQL 18 on %s (data in %s)", database_url, self.postgres.pgdata)
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
                "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1"),
                # Traces of every service in one JSON-lines file unless configured otherwise.
                "PRECEDENTE_TELEMETRY_EXPORTER": os.environ.get("PRECEDENTE_TELEMETRY_EXPORTER", "jsonl"),
                "PRECEDENTE_TELEMETRY_FILE": os.environ.get(
                    "PRECEDENTE_TELEMETRY_FILE", str(self.logs / "traces.jsonl")
                ),
            }
        )
        self.env = env
        effective = self.settings.model_copy(update={"database_url": database_url, "kafka_bootstrap": bootstrap})
        applied = asyncio.run(migrate(database_url))
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
        asyncio.run(ensure_topics(effective))
        for name in ALL_SERVICES:
            for replica in range(max(self.settings.up_replicas.get(name, 1), 1)):
                self._spawn(name, replica)
        wait_for_port(self.settings.api_host, self.port, 120, self.children["search-0"].process)
        self._wait_healthy()
        self._start_gateway()
        resumed = asyncio.run(resume_unfinished(effective))
        if resumed:
            log.info("resumed %d unfinished documents", resumed)

    def _spawn(self, name: str, replica: int, restarts: int = 0) -> None:
        key = f"{name}-{replica}"
        out = open(self.logs / (f"{name}.log" if replica == 0 else f"{key}.log"), "ab")  # noqa: SIM115 - owned by the child for its lifetime
        own_env: dict[str, str] = {}
        if name == GATEWAY:
            command = [self.gateway_env["PRECEDENTE_GATEWAY_NODE"], self.gateway_env["PRECEDENTE_GATEWAY_SERVER"]]
            own_env = self.gateway_env
        else:
            command = [sys.executable, "-m", "precedente.cli", "serve", name]
            if name != "search":  # the search API serves its own /metrics
                own_env = {"PRECEDENTE_METRICS_PORT": str(self._metrics_port(key))}
        process = subprocess.Popen(
            command,
            env={**os.environ, **self.env, **own_env},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()
        self.children[key] = Child(name, replica, process, time.monotonic(), restarts)

    def _metrics_port(self, key: str) -> int:
        """A port for a stage service's /metrics, kept across its restarts; all listed in metrics-ports.json."""
        if key not in self.metrics_ports:
            self.metrics_ports[key] = free_port()
            host = self.settings.metrics_host
            api_host = "127.0.0.1" if self.settings.api_host in ("0.0.0.0", "") else self.settings.api_host
            targets = {"search-0": f"http://{api_host}:{self.port}/metrics"}
            targets.update({k: f"http://{host}:{port}/metrics" for k, port in self.metrics_ports.items()})
            (self.data_dir / "metrics-ports.json").write_text(json.dumps(targets, indent=2) + "\n")
        return self.metrics_ports[key]

    def _start_gateway(self) -> None:
        """The web page (Next.js standalone server) as one more supervised child, when Node and the build exist."""
        server = Path(self.settings.gateway_server) if self.settings.gateway_server else GATEWAY_SERVER
        node = shutil.which("node")
        host, port = self.settings.gateway_host, self.settings.gateway_port
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
        users_file = self.settings.gateway_users_file
        self.gateway_env = {
            "PRECEDENTE_GATEWAY_NODE": node,
            "PRECEDENTE_GATEWAY_SERVER": str(server.resolve()),
            "PRECEDENTE_API_URL": f"http://{api_host}:{self.port}",
            # server.js changes to its own directory: a relative users-file path must be made absolute here.
            "PRECEDENTE_GATEWAY_USERS_FILE": str(Path(users_file).resolve()) if users_file else "",
            "PRECEDENTE_GATEWAY_SECRET": self.settings.gateway_secret or self._gateway_secret(),
            "PRECEDENTE_GATEWAY_DEMO_GROUPS": self.settings.gateway_demo_groups,
            "PORT": str(port),
            "HOSTNAME": host,
            "NODE_ENV": "production",
            "NEXT_TELEMETRY_DISABLED": "1",
        }
        self._spawn(GATEWAY, 0)
        self.gateway_url = f"http://{host}:{port}"
        mode = "sign-in from " + users_file if users_file else "demo mode, no sign-in"
        log.info("web page on %s (%s)", self.gateway_url, mode)

    def _gateway_secret(self) -> str:
        """A session key kept in the data directory, so sessions outlive a restart of `precedente up`."""
        path = self.data_dir / "gateway-secret"
        if not path.exists():
            path.touch(mode=0o600)
            path.write_text(secrets.token_hex(32))
        return path.read_text().strip()

    def _wait_healthy(self) -> None:
        url = f"http://{self.settings.api_host}:{self.port}/health"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(url, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise TimeoutError(f"the search API did not become healthy at {url}")

    def supervise(self) -> None:
        """Restart services that die, until asked to stop."""
        restart_at: dict[str, float] = {}
        while not self.stopping:
            now = time.monotonic()
            for key, child in list(self.children.items()):
                code = child.process.poll()
                if code is None:
                    continue
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

    def stop(self) -> None:
        self.stopping = True
        for child in self.children.values():
            if child.process.poll() is None:
                child.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 40
        for child in self.children.values():
            try:
                child.process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                log.warning("%s did not stop in time; killing it", child.name)
                child.process.kill()
                child.process.wait()
        if self.broker:
            self.broker.stop()
        if self.postgres:
            self.postgres.stop()


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
            print(f"Precedente is up: http://{settings.api_host}:{port}{page}  (logs in {stack.logs}; Ctrl-C stops)")
            sys.stdout.flush()
            stack.supervise()
    finally:
        print("Stopping Precedente...")
        stack.stop()
        print("Stopped.")
