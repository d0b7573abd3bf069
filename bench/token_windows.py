"""Benchmark passages of a given size in tokens, cut from real text (bench/embed_engines.py, bench/embed_gpu.py)."""

from collections.abc import Callable


def token_windows(words: list[str], n: int, tokens: int, token_count: Callable[[str], int]) -> list[str]:
    """n consecutive passages of at most `tokens` tokens (as `token_count` counts them), cycling over `words`."""
    chunks: list[str] = []
    start = 0
    while len(chunks) < n:
        window = [words[(start + i) % len(words)] for i in range(tokens)]  # a word is at least one token
        low, high = 1, len(window)
        while low < high:  # the most words that still fit
            mid = (low + high + 1) // 2
            if token_count(" ".join(window[:mid])) <= tokens:
                low = mid
            else:
                high = mid - 1
        chunks.append(" ".join(window[:low]))
        start += low
    return chunks
