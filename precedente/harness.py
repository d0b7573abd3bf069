"""A running `precedente up` driven over HTTP: what the end-to-end tests and the benchmarks use."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil

from shared.contracts import TERMINAL_STAGES
from shared.embedded import free_port

FINAL = {str(stage) for stage in TERMINAL_STAGES}

# Short group joins on Tansu keep the end-to-end tests quick.
TEST_ENV = {
    "PRECEDENTE_CONSUMER_SESSION_TIMEOUT_MS": "4000",
    "PRECEDENTE_CONSUMER_HEARTBEAT_INTERVAL_MS": "1000",
    "PRECEDENTE_STAGE_MAX_ATTEMPTS": "2",
}


class RunningStack:
    """`precedente up` in a subprocess, on a free port, with its own data directory."""

    def __init__(self, data_dir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, **TEST_ENV, "PRECEDENTE_GATEWAY_PORT": str(free_port()), **(extra_env or {})}
        for key in ("PRECEDENTE_DATABASE_URL", "PRECEDENTE_KAFKA_BOOTSTRAP"):
            self.env.pop(key, None)
        self.process: subprocess.Popen | None = None
        self.log_offset = 0
        self.client = httpx.Client(base_url=self.url, timeout=60)

    def __enter__(self) -> "RunningStack":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.client.close()

    def start(self, timeout: float = 180) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.data_dir / "up.log", "ab")  # noqa: SIM115
        self.log_offset = log.tell()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "precedente.cli", "up", "--data-dir", str(self.data_dir), "--port", str(self.port)],
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

    @staticmethod
    def headers(groups: str | None) -> dict[str, str]:
        return {"X-Precedente-Groups": groups} if groups else {}

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
        response = self.client.post(
            "/documents",
            files={"file": (filename or path.name, data)},
            data=form,  # type: ignore[union-attr]
        )
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
