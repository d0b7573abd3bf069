"""The LLM metadata extractor against real local HTTP servers that speak the Anthropic Messages and the
OpenAI chat-completions wire formats (no client is patched): merging over the rules, per-field
validation, and every failure falling back to the rules' metadata."""

import json
import logging
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from precedente.services.annotator.llm import TOOL_NAME, annotate_with_llm, llm_metadata, validate
from precedente.services.annotator.logic import VERIFIED, annotate
from precedente.shared.legal import process_numbers
from precedente.shared.payloads import Page
from precedente.shared.settings import Settings
from tests.helpers.fake_llm import FakeLLM, Reply, chat_completion, fake_llm_server, messages_response, tool_use_block

DOCS = Path(__file__).resolve().parents[3].parent / "shared" / "docs"
TJRJ = "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"
TJRJ_NUMBER = "0017387-33.2017.8.19.0000"
API_KEY = "test-key"
# A different number whose check digits hold: the LLM's reading must still lose to the rules' verified one.
OTHER_NUMBER = f"0001234-{process_numbers.check_digits('0001234', '2017', '8', '19', '0001')}.2017.8.19.0001"


@pytest.fixture
def llm_server() -> Iterator[FakeLLM]:
    with fake_llm_server() as server:
        yield server


@pytest.fixture(scope="module")
def pages() -> list[Page]:
    with pymupdf.open(DOCS / TJRJ) as doc:
        return [Page(number=i, text=page.get_text()) for i, page in enumerate(doc, start=1)]


def settings(url: str, provider: str = "anthropic", **overrides: Any) -> Settings:
    values = {
        "metadata_llm_provider": provider,
        "metadata_llm_base_url": url,
        "metadata_llm_api_key": API_KEY,
        "metadata_llm_timeout_s": 5,
    }
    return Settings(**(values | overrides))


def tool_use(answer: dict[str, Any]) -> dict[str, Any]:
    return tool_use_block(TOOL_NAME, answer)


ANSWER = {
    "document_type": "Acórdão",
    "court": "TJ-RJ",
    "process_number": OTHER_NUMBER,
    "procedural_class": "Agravo de Instrumento",
    "relator": "Cláudio Dell'Orto",
    "judging_body": "18ª Câmara Cível",
    "judgment_date": "07/06/2017",  # not YYYY-MM-DD: dropped alone
    "publication_date": "2017-06-12",  # the rules found none
    "parties": [
        {"name": "CONSTRUÇÕES E COMÉRCIO CAMARGO CORRÊA S/A", "role": "Agravante"},
        {"name": "ENERGIA SUSTENTÁVEL DO BRASIL S/A", "role": "agravado"},
        {"role": "agravado"},  # no name: dropped alone
    ],
    "subject": "Anulação de sentença arbitral",
    "citations": ["Lei 9.307/1996, art. 32", "Súmula 7/STJ"],
}


def check_messages_request(server: FakeLLM) -> None:
    path, headers, body = server.requests[0]
    assert path == "/v1/messages"
    assert headers["x-api-key"] == API_KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["content-type"] == "application/json"
    assert body["model"] == "claude-3-5-haiku-latest"
    assert body["max_tokens"] > 0 and body["system"]
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert body["tools"][0]["name"] == TOOL_NAME
    assert "publication_date" in body["tools"][0]["input_schema"]["properties"]
    assert body["messages"][0]["role"] == "user"
    assert TJRJ_NUMBER in body["messages"][0]["content"]
    assert "ENERGIA SUSTENTÁVEL DO BRASIL" in body["messages"][0]["content"]


async def test_llm_fills_gaps_and_keeps_verified_fields(llm_server: FakeLLM, pages: list[Page]) -> None:
    llm_server.replies = [Reply(body=messages_response([{"type": "text", "text": "Vou registrar."}, tool_use(ANSWER)]))]
    rules = annotate(pages, TJRJ)
    assert rules.publication_date is None and rules.sources["process_number"] == VERIFIED

    merged = await annotate_with_llm(pages, TJRJ, None, None, settings(llm_server.url))

    check_messages_request(llm_server)
    assert merged.publication_date == date(2017, 6, 12) and merged.sources["publication_date"] == "llm"
    assert merged.subject == "Anulação de sentença arbitral" and merged.sources["subject"] == "llm"
    assert merged.process_number == TJRJ_NUMBER and merged.sources["process_number"] == VERIFIED
    assert merged.judgment_date == rules.judgment_date and merged.sources["judgment_date"] == "rules"
    assert merged.parties == rules.parties and merged.sources["parties"] == "rules"  # same two, bad one dropped
    assert (merged.document_type, merged.court, merged.sources["court"]) == ("acordao", "tjrj", "rules")
    assert merged.citations[: len(rules.citations)] == rules.citations
    assert merged.citations[-1] == "Súmula 7/STJ" and merged.sources["citations"] == "rules+llm"


async def test_provider_none_sends_nothing(llm_server: FakeLLM, pages: list[Page]) -> None:
    result = await annotate_with_llm(pages, TJRJ, None, None, settings(llm_server.url, provider="none"))
    assert result == annotate(pages, TJRJ) and llm_server.requests == []


async def test_timeout_falls_back_quickly(llm_server: FakeLLM, pages: list[Page], caplog) -> None:
    llm_server.replies = [Reply(body=messages_response([tool_use(ANSWER)]), sleep_s=10)]
    start = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="precedente.services.annotator.llm"):
        result = await annotate_with_llm(pages, TJRJ, None, None, settings(llm_server.url, metadata_llm_timeout_s=0.3))
    assert time.monotonic() - start < 2
    assert result == annotate(pages, TJRJ)
    assert "timeout" in caplog.text


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply(status=500, body={"type": "error", "error": {"type": "api_error", "message": "Internal"}}), "500"),
        (Reply(status=401, body={"type": "error", "error": {"type": "authentication_error"}}), "401"),
        (Reply(body=b'{"id": "msg_01", "content": [{"type": "tool_use"'), "not JSON"),
        (Reply(body=messages_response([{"type": "text", "text": "Não sei."}])), "no tool_use"),
        (Reply(body=messages_response([tool_use(["not", "an", "object"])])), "not a JSON object"),
    ],
    ids=["http-500", "http-401", "truncated-json", "no-tool-use", "input-not-object"],
)
async def test_failures_fall_back_to_rules(
    llm_server: FakeLLM, pages: list[Page], caplog, reply: Reply, reason: str
) -> None:
    llm_server.replies = [reply]
    with caplog.at_level(logging.WARNING, logger="precedente.services.annotator.llm"):
        result = await annotate_with_llm(pages, TJRJ, None, None, settings(llm_server.url))
    assert result == annotate(pages, TJRJ)
    assert len(llm_server.requests) == 1  # no retry on these
    assert reason in caplog.text and "ENERGIA" not in caplog.text and TJRJ_NUMBER not in caplog.text


async def test_connection_refused_returns_none(caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="precedente.services.annotator.llm"):
        assert await llm_metadata("texto", settings("http://127.0.0.1:9")) is None
    assert "ConnectError" in caplog.text


async def test_overloaded_is_retried_once_after_retry_after(llm_server: FakeLLM) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    llm_server.replies = [
        Reply(status=529, body=overloaded, headers={"retry-after": "0.1"}),
        Reply(body=messages_response([tool_use({"subject": "Arbitragem"})])),
    ]
    result = await llm_metadata("texto", settings(llm_server.url))
    assert result is not None and result.subject == "Arbitragem" and len(llm_server.requests) == 2

    llm_server.requests.clear()
    llm_server.replies = [Reply(status=429, body=overloaded, headers={"retry-after": "0"})]
    assert await llm_metadata("texto", settings(llm_server.url)) is None
    assert len(llm_server.requests) == 2  # once, not forever


async def test_openai_compatible_server(llm_server: FakeLLM, pages: list[Page]) -> None:
    content = "```json\n" + json.dumps({"subject": "Sentença arbitral", "court": "Tribunal Imaginário"}) + "\n```"
    llm_server.replies = [Reply(body=chat_completion(content))]
    config = settings(llm_server.url + "/", provider="openai", metadata_llm_model="qwen2.5-7b-instruct")

    merged = await annotate_with_llm(pages, TJRJ, None, None, config)

    path, headers, body = llm_server.requests[0]
    assert path == "/v1/chat/completions" and headers["authorization"] == f"Bearer {API_KEY}"
    assert body["model"] == "qwen2.5-7b-instruct"
    assert body["response_format"]["type"] == "json_schema"
    assert "parties" in body["response_format"]["json_schema"]["schema"]["properties"]
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert TJRJ_NUMBER in body["messages"][1]["content"]
    assert merged.subject == "Sentença arbitral" and merged.sources["subject"] == "llm"
    assert merged.court == "tjrj" and merged.sources["court"] == "rules"  # the unknown court was dropped


async def test_text_is_cut_to_max_chars(llm_server: FakeLLM) -> None:
    llm_server.replies = [Reply(body=messages_response([tool_use({})]))]
    result = await llm_metadata("a" * 500 + "FIM", settings(llm_server.url, metadata_llm_max_chars=500))
    assert result is not None and "FIM" not in llm_server.requests[0][2]["messages"][0]["content"]


def test_validate_drops_bad_fields_one_by_one() -> None:
    metadata, dropped = validate(
        {
            "document_type": "Decisão monocrática",
            "court": "STJ",
            "process_number": "0017387-34.2017.8.19.0000",  # check digits off by one
            "relator": 42,
            "judgment_date": "2017-02-30",
            "publication_date": 1496793600,  # a Unix time is not a date the document wrote
            "parties": [{"name": "Fulano de Tal", "role": "Réu"}, "x"],
            "subject": "  Arbitragem \n e  anulação ",
            "citations": ["CF/1988, art. 5º", 7, "CF/1988, art. 5º"],
        }
    )
    assert metadata.document_type == "decisao_monocratica" and metadata.court == "stj"
    assert metadata.process_number is None and metadata.relator is None
    assert metadata.judgment_date is None and metadata.publication_date is None
    assert [(p.name, p.role) for p in metadata.parties] == [("Fulano de Tal", "reu")]
    assert metadata.subject == "Arbitragem e anulação" and metadata.citations == ["CF/1988, art. 5º"]
    assert set(dropped) == {"process_number", "relator", "judgment_date", "publication_date", "1 parties"}
    assert validate({"document_type": "romance", "court": "Tribunal de Marte"})[1] == ["document_type", "court"]
