"""The ingestion and review pages for the people who do them, in a real browser against a real stack.

A stack with sign-in: ana (socios, a reviewer) and bruno (contencioso, no review rights) are made through
`POST /users`; a decision open to everyone, an illegible scan that ends in the review queue and a PDF locked by a
password (review, no text) are ingested. services/gateway/e2e/operations.e2e.mjs then drives Debian's chromium
(desktop and 390x844): the menus show only what each may do, the ingestion page lists, searches and filters the
documents in Portuguese with their history, "Enviar documentos" uploads with access groups (and bruno, outside
them, never sees the upload), approving asks for a confirmation that says what will be indexed and is refused
without text, the header fits a phone; carla, an administrator, sees "Mensagens recusadas" with a message that
names no document (published with confluent-kafka, not the product's aiokafka), which ana does not; axe-core
checks both pages.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/ingestion.png and review.png.
"""

import os
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka import Producer

from precedente.harness import RunningStack
from precedente.shared.contracts import Topic
from precedente.shared.runtime.broker import topic_name
from precedente.shared.settings import Settings
from tests.helpers.gateway import (
    CHROMIUM,
    GATEWAY_DIR,
    SCREENSHOTS,
    require_tools,
    stack_with_people,
    unique_pdf,
)
from tests.helpers.pdfs import encrypted_pdf, illegible_scan

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "operations.e2e.mjs"
PASSWORDS = {"ana": "ana-senha-forte-1", "bruno": "bruno-senha-forte-2", "carla": "carla-senha-forte-3"}
PEOPLE = {"ana": (["socios"], ["reviewer"]), "bruno": (["contencioso"], []), "carla": ([], ["admin"])}
PUBLIC_FILE = "tjsp_sentenca_vara_empresarial_arbitragem.pdf"
PUBLIC_PAGES = 4  # the pages only list and hold it: its first four of fourteen pages are a decision all the same
REVIEW_FILE = "digitalizacao_operacoes.pdf"
LOCKED_FILE = "acordao_com_senha.pdf"
HELD_FILE = "decisao_retida_pela_busca.pdf"


@pytest.fixture(scope="module")
def node() -> str:
    return require_tools()


BUSY_IN_FLIGHT = 1000
"""Search counts as busy here only at this many searches in flight, which the test alone records (the p95 bar is out
of reach): the stages hold a document back then, up to 10 minutes, and never for the stack's own searches."""
ADMISSION_ENV = {
    "PRECEDENTE_ADMISSION_BUSY_IN_FLIGHT": str(BUSY_IN_FLIGHT),
    "PRECEDENTE_ADMISSION_BUSY_P95_MS": "3600000",
    "PRECEDENTE_ADMISSION_MAX_YIELD_S": "600",
    "PRECEDENTE_SEARCH_LOAD_STALE_S": "3600",  # the row the test records stays fresh without a replica renewing it
}


@pytest.fixture(scope="module")
def web_stack(node: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    directory = tmp_path_factory.mktemp("gateway-operations")
    with stack_with_people(directory, PEOPLE, PASSWORDS, extra_env=ADMISSION_ENV) as running:
        yield running


@pytest.fixture(scope="module")
def gateway(web_stack: RunningStack) -> str:
    """The page `precedente up` started for this stack, on a free port it took at start."""
    return web_stack.page_url()


@pytest.fixture(scope="module")
def documents(web_stack: RunningStack) -> dict[str, str]:
    public_pdf = unique_pdf(PUBLIC_FILE, "public", PUBLIC_PAGES)
    public = web_stack.upload(content=public_pdf, filename=PUBLIC_FILE)["document_id"]
    review = web_stack.upload(content=illegible_scan("operations"), filename=REVIEW_FILE)["document_id"]
    locked = web_stack.upload(content=encrypted_pdf(), filename=LOCKED_FILE)["document_id"]
    final = web_stack.wait_final({public: None, review: None, locked: None})
    assert final[public]["stage"] == "indexed", final[public]
    assert final[review]["stage"] == "review", final[review]
    assert final[locked]["stage"] == "review", final[locked]
    return {"PUBLIC_ID": public, "REVIEW_ID": review, "LOCKED_ID": locked}


@pytest.fixture(scope="module")
def refused_marker(web_stack: RunningStack) -> str:
    """A message that is not JSON and names no document, published on documents.submitted by an outside client,
    once the API lists it among the refused messages (the extractor refused it)."""
    marker = f"recusada-{uuid.uuid4().hex[:12]}"
    search = web_stack.service_process("search").environ()
    producer = Producer({"bootstrap.servers": search["PRECEDENTE_KAFKA_BOOTSTRAP"], "linger.ms": 0})
    topic = topic_name(Settings(topic_prefix=search.get("PRECEDENTE_TOPIC_PREFIX", "")), Topic.SUBMITTED)
    producer.produce(topic, value=f"isto nao e JSON {marker}".encode())
    assert producer.flush(10) == 0, "confluent-kafka could not deliver the message"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        listed = web_stack.client.get("/refused-messages", params={"limit": 200})
        assert listed.status_code == 200, listed.text
        if any(marker in m["message_start"] for m in listed.json()["messages"]):
            return marker
        time.sleep(0.5)
    raise AssertionError(f"the refused message is not listed within 60 s\n{web_stack.log_tail()}")


def test_ingestion_and_review_pages_in_a_browser(
    node: str, web_stack: RunningStack, gateway: str, documents: dict[str, str], refused_marker: str
) -> None:
    url = gateway
    env = {k: v for k, v in os.environ.items() if k != "SCREENSHOTS"}
    env.update(
        documents,
        CHROMIUM=CHROMIUM,
        GATEWAY_URL=url,
        PUBLIC_FILE=PUBLIC_FILE,
        REVIEW_FILE=REVIEW_FILE,
        LOCKED_FILE=LOCKED_FILE,
        ANA_PASSWORD=PASSWORDS["ana"],
        BRUNO_PASSWORD=PASSWORDS["bruno"],
        CARLA_PASSWORD=PASSWORDS["carla"],
        REFUSED_MARKER=refused_marker,
    )
    if os.environ.get("PRECEDENTE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        env["SCREENSHOTS"] = str(SCREENSHOTS)
    result = subprocess.run(
        [node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True, timeout=420
    )
    print(result.stdout, result.stderr)
    assert result.returncode == 0, f"browser scenarios failed:\n{result.stdout}\n{result.stderr}"
    assert " 0 failed" in result.stdout
    # What the page uploaded is on the ledger with the access list chosen there, and bruno's list never showed it.
    uploaded = web_stack.sql("SELECT access_groups FROM documents WHERE filename = 'nota_enviada_pela_pagina.txt'")
    assert uploaded.strip() in ("{socios}", "['socios']"), uploaded
    approved = web_stack.sql(f"SELECT stage FROM documents WHERE id = '{documents['REVIEW_ID']}'")
    assert approved.strip() != "review", "approving on the page moved the document on"
    locked = web_stack.sql(f"SELECT stage FROM documents WHERE id = '{documents['LOCKED_ID']}'")
    assert locked.strip() == "review", "a document without text was not approved"


def test_ingestion_page_says_it_yields_to_search_while_search_is_busy(
    node: str, web_stack: RunningStack, gateway: str, documents: dict[str, str]
) -> None:
    """Search's load recorded over the bar (as a replica publishes it): a new document is held back, the page says
    "Cedendo à busca" (operations.e2e.mjs with SEARCH_BUSY; the first run saw no such notice), and once the load is
    withdrawn the API no longer says so and the document is indexed."""
    replica = f"e2e:{uuid.uuid4().hex[:8]}"
    web_stack.sql(
        "INSERT INTO search_load (replica, in_flight, p95_ms, at)"
        f" VALUES ('{replica}', {BUSY_IN_FLIGHT}, 1800, clock_timestamp())"
    )
    try:
        held_pdf = unique_pdf(PUBLIC_FILE, "held", PUBLIC_PAGES)
        held = web_stack.upload(content=held_pdf, filename=HELD_FILE)["document_id"]
        shown = None
        deadline = time.monotonic() + 60
        while shown is None and time.monotonic() < deadline:
            shown = web_stack.client.get("/status").json()["yielding_to_search"]
            time.sleep(0.2)
        assert shown is not None and shown["documents"] >= 1, f"the API never said so\n{web_stack.log_tail()}"
        env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": gateway, "SEARCH_BUSY": "1"}
        env.update(documents, PUBLIC_FILE=PUBLIC_FILE, REVIEW_FILE=REVIEW_FILE, LOCKED_FILE=LOCKED_FILE)
        env.update(ANA_PASSWORD=PASSWORDS["ana"], REFUSED_MARKER="-")
        result = subprocess.run(
            [node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True, timeout=300
        )
        print(result.stdout, result.stderr)
        assert result.returncode == 0 and "1 passed, 0 failed" in result.stdout, result.stdout + result.stderr
        stage = web_stack.sql(f"SELECT stage FROM documents WHERE id = '{held}'")
        assert stage != "indexed", "the document went through while search was busy"
    finally:
        web_stack.sql(f"DELETE FROM search_load WHERE replica = '{replica}'")
    assert web_stack.client.get("/status").json()["yielding_to_search"] is None
    assert web_stack.wait_final({held: None})[held]["stage"] == "indexed", "ingestion did not resume"
