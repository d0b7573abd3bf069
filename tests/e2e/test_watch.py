"""`precedente watch` and deletions end to end: a real stack (`precedente up`), the real CLI.

A folder stands for a document-management system's export: a new file is indexed, a changed file
becomes a new version whose chunks replace the old ones, a removed file's document is deleted
(documents.deleted) and search no longer finds it. Deletions through the API: access list, repeat,
and a deletion that overtakes the pipeline.
"""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from precedente.harness import RunningStack

pytestmark = pytest.mark.e2e

FIRST = (
    "PARECER JURÍDICO Nº 77/2024. Consulta sobre a cobrança de taxa de ocupação de terreno de marinha "
    "incidente sobre imóvel aforado em Florianópolis. A enfiteuse confere ao foreiro o domínio útil, e o "
    "laudêmio é devido à União na transferência onerosa. Conclui-se pela legalidade da cobrança do laudêmio. "
)
SECOND = (
    "PARECER JURÍDICO Nº 77/2024, versão revista. Consulta sobre a responsabilidade do condomínio por "
    "infiltrações originadas em área comum, que danificaram o apartamento de um condômino. O condomínio "
    "responde pelos danos decorrentes da falta de manutenção das áreas comuns, nos termos do Código Civil. "
)


def watch_once(stack: RunningStack, folder: Path, state: Path, *extra: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "watch", str(folder), "--once", "--settle", "0",
         "--api", stack.url, "--state-file", str(state), *extra],
        capture_output=True, text=True, timeout=120, env=stack.cli_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def chunks_of(stack: RunningStack, document_id: str) -> int:
    return int(stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}'"))


def wait_until(predicate, timeout: float = 120, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(1)
    raise AssertionError(f"timed out waiting for {what}")


def found_ids(stack: RunningStack, query: str, groups: str | None = None) -> set[str]:
    return {r["document_id"] for r in stack.search(query, groups=groups, top_k=10)}


def test_watch_mirrors_a_folder_add_change_delete(stack: RunningStack, tmp_path: Path) -> None:
    folder, state = tmp_path / "dms", tmp_path / "watch-state.json"
    (folder / "pareceres").mkdir(parents=True)
    path = folder / "pareceres" / "parecer-77.txt"
    path.write_text(FIRST * 3)
    old = time.time() - 30
    os.utime(path, (old, old))

    # Added: uploaded once, indexed, found.
    watch_once(stack, folder, state)
    document_id = json.loads(state.read_text())["files"]["pareceres/parecer-77.txt"]["document_id"]
    status = stack.wait_final({document_id: None}, timeout=300)[document_id]
    assert status["stage"] == "indexed", status
    assert status["version"] == 1
    first_chunks = chunks_of(stack, document_id)
    assert first_chunks > 0
    assert document_id in found_ids(stack, "laudêmio na transferência do domínio útil de terreno de marinha")

    # A restart with nothing changed sends nothing (the state file remembers).
    watch_once(stack, folder, state)
    assert stack.status(document_id)["version"] == 1

    # Changed: a new version of the same document; its chunks replace the old ones.
    path.write_text(SECOND * 3)
    os.utime(path, (old + 10, old + 10))
    watch_once(stack, folder, state)
    assert json.loads(state.read_text())["files"]["pareceres/parecer-77.txt"]["document_id"] == document_id
    wait_until(lambda: stack.status(document_id)["version"] == 2, 30, "version 2")
    status = stack.wait_final({document_id: None}, timeout=300)[document_id]
    assert status["stage"] == "indexed" and status["version"] == 2, status
    assert stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}' AND version <> 2") == "0"
    assert (
        stack.sql(f"SELECT count(*) FROM chunks WHERE document_id = '{document_id}' AND text ILIKE '%laudêmio%'") == "0"
    )
    assert document_id in found_ids(stack, "condomínio responde por infiltração vinda de área comum")

    # Removed: the document is deleted, its chunks go, search no longer finds it.
    path.unlink()
    watch_once(stack, folder, state)
    assert json.loads(state.read_text())["files"] == {}
    assert stack.status(document_id)["stage"] == "deleted"
    wait_until(lambda: chunks_of(stack, document_id) == 0, 60, "the chunks to be deleted")
    assert document_id not in found_ids(stack, "condomínio responde por infiltração vinda de área comum")
    assert stack.sql(f"SELECT count(*) FROM blobs WHERE key LIKE 'documents/{document_id}/%'") == "0"
    assert stack.sql(f"SELECT count(*) FROM documents WHERE id = '{document_id}' AND stage = 'deleted'") == "1"

    # The same file back again: a new version, indexed again (the old deletion does not remove it).
    path.write_text(SECOND * 3)
    os.utime(path, (old + 20, old + 20))
    watch_once(stack, folder, state)
    wait_until(lambda: stack.status(document_id)["stage"] != "deleted", 30, "resubmission")
    status = stack.wait_final({document_id: None}, timeout=300)[document_id]
    assert status["stage"] == "indexed" and status["version"] == 3, status
    assert chunks_of(stack, document_id) > 0


def test_delete_respects_the_access_list_and_is_idempotent(stack: RunningStack) -> None:
    document_id = stack.upload(
        content=(FIRST * 2).encode(), filename="sigiloso.txt", access="socios", external_id="test:delete-acl"
    )["document_id"]
    assert stack.client.delete(f"/documents/{document_id}").status_code == 404  # not visible: not deletable
    assert stack.client.delete(f"/documents/{document_id}", headers=stack.headers("estagiarios")).status_code == 404
    first = stack.client.delete(f"/documents/{document_id}", headers=stack.headers("socios"))
    assert first.status_code == 202 and first.json()["outcome"] == "deleted"
    second = stack.client.delete(f"/documents/{document_id}", headers=stack.headers("socios"))
    assert second.status_code == 200 and second.json()["outcome"] == "already_deleted"
    # The deletion overtook the pipeline: no later stage brings the document back.
    time.sleep(20)
    assert stack.status(document_id, "socios")["stage"] == "deleted"
    assert chunks_of(stack, document_id) == 0
    history = [h["stage"] for h in stack.status(document_id, "socios")["history"]]
    assert history.count("deleted") == 1 and history[-1] == "deleted", history


def stack_settings(stack: RunningStack):
    from precedente.shared.settings import Settings

    env = stack.service_process("search").environ()
    return Settings(
        database_url=env["PRECEDENTE_DATABASE_URL"],
        kafka_bootstrap=env["PRECEDENTE_KAFKA_BOOTSTRAP"],
        topic_prefix=env.get("PRECEDENTE_TOPIC_PREFIX", ""),
    )


def test_a_dms_publishes_deletions_and_a_lost_one_is_resumed(stack: RunningStack) -> None:
    import asyncio
    import uuid

    from precedente.shared.contracts import DocumentDeleted, Source, Topic
    from precedente.shared.runtime.broker import make_broker, publish
    from precedente.shared.runtime.recovery import resume_unfinished

    ids = [
        stack.upload(content=(text * 2).encode(), filename=f"dms-{n}.txt", external_id=f"test:dms-delete-{n}")[
            "document_id"
        ]
        for n, text in enumerate([FIRST.replace("77", "78"), SECOND.replace("77", "79")])
    ]
    statuses = stack.wait_final(dict.fromkeys(ids), timeout=300)
    assert all(s["stage"] == "indexed" for s in statuses.values()), statuses
    direct, lost = ids
    assert chunks_of(stack, direct) > 0 and chunks_of(stack, lost) > 0
    settings = stack_settings(stack)

    # A DMS publishes documents.deleted itself (no API call).
    async def publish_deletion() -> None:
        broker = make_broker(settings)
        await broker.start()
        try:
            event = DocumentDeleted(document_id=uuid.UUID(direct), version=1, source=Source.DMS, reason="gone")
            await publish(broker, settings, Topic.DELETED, event)
        finally:
            await broker.stop()

    asyncio.run(publish_deletion())
    wait_until(lambda: chunks_of(stack, direct) == 0, 60, "the DMS deletion")
    assert stack.status(direct)["stage"] == "deleted"
    assert "gone" in stack.status(direct)["history"][-1]["detail"]

    # The ledger says deleted but the event never arrived: resuming publishes the deletion again.
    stack.sql(f"UPDATE documents SET stage = 'deleted' WHERE id = '{lost}'")
    assert chunks_of(stack, lost) > 0
    assert asyncio.run(resume_unfinished(settings)) >= 1
    wait_until(lambda: chunks_of(stack, lost) == 0, 60, "the resumed deletion")
