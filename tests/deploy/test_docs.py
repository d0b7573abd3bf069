"""The generated reference documents under docs/ are current and well formed.

docs/asyncapi.json, docs/openapi.json and docs/configuration.md are generated from the code by
`precedente docs` (precedente/docs_gen.py). These tests regenerate them in memory and compare: they
fail when a contract, a route or a setting changed without `precedente docs` being run.
"""

import json
from functools import cache
from pathlib import Path

import pytest

from precedente import docs_gen
from precedente.shared.contracts import DocumentDeleted, DocumentSubmitted, Topic
from precedente.shared.settings import Settings

DOCS = Path(__file__).resolve().parents[2] / "docs"
REGENERATE = "run `.venv/bin/precedente docs` and commit docs/"


@cache
def rendered() -> dict[str, str]:
    return docs_gen.render()


@pytest.mark.parametrize("name", docs_gen.FILES)
def test_committed_file_matches_the_code(name: str) -> None:
    path = DOCS / name
    assert path.exists(), f"{path} is missing: {REGENERATE}"
    assert path.read_text() == rendered()[name], f"{path} is out of date: {REGENERATE}"


def test_generation_is_deterministic() -> None:
    assert docs_gen.render() == rendered()


def asyncapi() -> dict:
    return json.loads(rendered()["asyncapi.json"])


def resolve(document: dict, ref: str) -> dict:
    node = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def message_payload(document: dict, channel: str) -> dict:
    messages = document["channels"][channel]["messages"]
    assert len(messages) == 1
    message = resolve(document, next(iter(messages.values()))["$ref"])
    return resolve(document, message["payload"]["$ref"])


def test_asyncapi_structure() -> None:
    doc = asyncapi()
    assert doc["asyncapi"] == "3.0.0"
    assert doc["info"]["title"] and doc["info"]["version"]
    assert doc["servers"] and all(server["protocol"] == "kafka" for server in doc["servers"].values())
    assert {Topic.SUBMITTED.value, Topic.DELETED.value} <= set(doc["channels"])
    for name, channel in doc["channels"].items():
        assert channel["address"] == name
        assert name in {t.value for t in Topic}
    # Every $ref resolves.
    text = json.dumps(doc)
    for ref in {part.split('"')[0] for part in text.split('"$ref": "')[1:]}:
        resolve(doc, ref)


def test_asyncapi_says_who_publishes_and_who_receives() -> None:
    operations = asyncapi()["operations"]
    actions = {op["channel"]["$ref"].rsplit("/", 1)[-1]: op["action"] for op in operations.values()}
    assert actions[Topic.SUBMITTED.value] == "receive"  # Precedente receives what a DMS publishes
    assert actions[Topic.DELETED.value] == "receive"
    assert actions[Topic.INDEXED.value] == "send"


def test_submitted_message_schema_is_the_contract() -> None:
    payload = message_payload(asyncapi(), Topic.SUBMITTED.value)
    contract = DocumentSubmitted.model_json_schema()
    assert set(payload["required"]) == set(contract["required"])
    assert {"document_id", "blob_key", "filename", "content_hash", "size_bytes"} <= set(payload["required"])
    assert set(payload["properties"]) == set(DocumentSubmitted.model_fields)
    assert payload["additionalProperties"] is False
    assert payload["properties"]["document_id"]["format"] == "uuid"


def test_deleted_message_schema_is_the_contract() -> None:
    payload = message_payload(asyncapi(), Topic.DELETED.value)
    assert payload["required"] == ["document_id"]
    assert set(payload["properties"]) == set(DocumentDeleted.model_fields)


def test_openapi_structure_and_the_routes_integrators_use() -> None:
    doc = json.loads(rendered()["openapi.json"])
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    assert "post" in paths["/search"]
    assert "post" in paths["/documents"]
    assert {"get", "delete"} <= set(paths["/documents/{document_id}"])
    assert "get" in paths["/documents/{document_id}/status"]
    assert "SearchRequest" in doc["components"]["schemas"]


def test_configuration_reference_lists_every_setting_with_its_default() -> None:
    text = rendered()["configuration.md"]
    rows = {line.split("|")[1].strip(" `"): line for line in text.splitlines() if line.startswith("| `PRECEDENTE_")}
    expected = {f"PRECEDENTE_{name.upper()}" for name in Settings.model_fields}
    assert set(rows) == expected
    assert "`4`" in rows["PRECEDENTE_TOPIC_PARTITIONS"]
    assert "`auto`" in rows["PRECEDENTE_EMBEDDING_PROVIDER"]
    assert "one page past this is marked failed" in rows["PRECEDENTE_OCR_PAGE_TIMEOUT_S"]  # the source comment


def test_every_setting_has_a_description() -> None:
    missing = [row["env"] for row in docs_gen.settings_reference() if not row["description"]]
    assert not missing, f"add a comment beside these in shared/settings.py (or to FALLBACK in docs_gen): {missing}"
