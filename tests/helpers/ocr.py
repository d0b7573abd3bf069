"""Text as a poor OCR reads it, made deterministically from a clean text, for tests of what must survive
OCR noise (work identity between a PDF and its scan)."""

import random


def ocr_noisy(text: str, rate: float, seed: int = 7) -> str:
    """A copy as a poor OCR reads it: confusable letters, dropped letters, split and merged words, and a
    running header on every page the original did not have."""
    confusions = {"e": "c", "c": "e", "l": "1", "i": "l", "o": "0", "a": "o", "n": "u", "u": "n", "m": "rn",
                  "h": "b", "s": "5", "t": "f", "ç": "c", "ã": "a", "é": "e"}  # fmt: skip
    rng = random.Random(seed)
    out = []
    for ch in text:
        x = rng.random()
        if x < rate * 0.6:
            out.append(confusions.get(ch.lower(), ch))
        elif x < rate * 0.75 or (x < rate * 0.9 and ch == " "):
            continue  # a letter dropped, or two words run together
        elif x < rate:
            out.append(ch + " ")
        else:
            out.append(ch)
    pages = "".join(out).split("\f") if "\f" in text else ["".join(out)]
    return "\n".join(f"DIGITALIZADO - fls. {i + 1}\n{page}" for i, page in enumerate(pages))
