"""Which language a document is written in, and how PostgreSQL should stem it.

A Brazilian firm's drive is mostly Portuguese, but it holds EU directives and regulations in English,
articles in English and Spanish, the odd French or German judgment. Stemming an English directive with the
Portuguese stemmer leaves "directives" and "directive" apart, so the full-text index stems each document
under its own language (chunks.ts_config, migration 0014) and the search stems the query under every
language the collection holds.

Detection is py3langid (langid.py's naive Bayes over byte n-grams, its model shipped in the wheel, numpy
only): it needs no network and takes a few milliseconds on the sample read here. Text too short to tell
is "und" (undetermined), which PostgreSQL indexes with the accent-folding 'simple' configuration.
"""

import re
from functools import lru_cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

__all__ = ["LANGUAGES", "TS_CONFIGS", "UNDETERMINED", "detect_language", "ts_config"]

UNDETERMINED = "und"  # ISO 639-2's code for "undetermined"

TS_CONFIGS: dict[str, str] = {
    "pt": "public.pt_unaccent",
    "en": "public.en_unaccent",
    "es": "public.es_unaccent",
    "fr": "public.fr_unaccent",
    "de": "public.de_unaccent",
    "it": "public.it_unaccent",
}
"""ISO 639-1 code -> the text search configuration its chunks are indexed with (migration 0014: each is
PostgreSQL's own stemmer and stop words after unaccent, as pt_unaccent has been since migration 0001)."""
SIMPLE_CONFIG = "public.simple_unaccent"  # any other language, and "und": lower-cased, accents folded, no stems

LANGUAGES = ("pt", "en", "es", "fr", "de", "it", "nl", "la", "ca", "gl")
"""What a Brazilian firm's documents are written in, for the classifier to choose among. Restricting the
model's 97 languages keeps it from naming a near neighbour on short or OCR-damaged text (Portuguese legal
Latin as "la" stays possible; Galician is listed because its texts exist, and it is indexed as 'simple')."""

MIN_LETTERS = 40  # fewer letters than this (a cover page, a scanned image's stray OCR) is "und"
SAMPLE = 4000  # characters read at each of the start, the middle and the end of a long text
MIN_CONFIDENCE = 0.5  # below this (normalised probability) the classifier is guessing: "und"

_LETTER = re.compile(r"[^\W\d_]")


@lru_cache(maxsize=1)
def _identifier() -> LanguageIdentifier:
    """The model, loaded once (about 0.3 s) and restricted to LANGUAGES."""
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


def _sample(text: str) -> str:
    """The start, the middle and the end of a long text: a cover or an annex in another language does not
    decide alone, and a 300-page thesis costs what a 3-page one does."""
    if len(text) <= 3 * SAMPLE:
        return text
    middle = len(text) // 2 - SAMPLE // 2
    return "\n".join((text[:SAMPLE], text[middle : middle + SAMPLE], text[-SAMPLE:]))


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is written in ("pt", "en", "es", ...), "und" when there is
    too little text to tell or the model is unsure."""
    sample = _sample(text)
    if len(_LETTER.findall(sample)) < MIN_LETTERS:
        return UNDETERMINED
    language, confidence = _identifier().classify(sample)
    return language if confidence >= MIN_CONFIDENCE else UNDETERMINED


def ts_config(language: str | None) -> str:
    """The PostgreSQL text search configuration to index text of `language` with (None: Portuguese, what
    every document indexed before languages were detected was)."""
    if language is None:
        return TS_CONFIGS["pt"]
    return TS_CONFIGS.get(language, SIMPLE_CONFIG)
