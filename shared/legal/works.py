"""Work identity: which files of a drive hold the same decision or act (a PDF, a scan, an ementa-only extract).

Two documents belong to one work when
- they share an identity key (`work_keys`): the same judicial decision (the CNJ number of the case, or a
  higher court's class chain and number, with the kind of decision) or the same act (kind, issuer, number,
  year). Keys come from the annotator's metadata and are emitted only when they name one decision or act:
  a parecer's internal process number, a comment that quotes a decision's caption, a despacho (many per
  case) or an act whose issuer or year is unknown give no key. An ementa-only copy joins its decision
  through the key: the annotator reads the same caption on both.
- or their texts are near-duplicates: estimated Jaccard similarity of their MinHash signatures (folded
  letter 9-grams, 128 permutations) at least SIMILARITY_THRESHOLD, and at least one LSH band in common (the
  database finds candidates by bands; requiring one here keeps the benchmark's decision identical), unless
  both name their decision and not the same one (identical decisions issued in many cases stay apart).

Containment alone (a short text mostly found inside a longer one) is deliberately not a reason: a comment
on a decision, a Jurisprudência em Teses booklet or a later judgment quotes the ementa almost whole
(i649 holds 70% of REsp 1.602.076's ementa-only copy), so containment would pull commentary into the
decision's work. Works are the connected components of these pairwise joins; a work is named by its
oldest member. No I/O here: services/indexer/works.py stores and queries, bench/works.py measures.
"""

import hashlib
import itertools
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np

from precedente.shared.legal.dates import MONTH_PATTERN
from precedente.shared.legal.process_numbers import check_digits
from precedente.shared.legal.text import ascii_letters, fold
from precedente.shared.payloads import DocumentMetadata

NUM_PERM = 128
SHINGLE_CHARS = 9
"""Letters per shingle, spaces and digits dropped: an OCR split or merged word does not break a shingle,
and a misread letter costs 9 shingles where a word 3-shingle loses ~17 characters' worth."""
BAND_ROWS = 3
BANDS = NUM_PERM // BAND_ROWS  # 42 bands of 3 rows: P(candidate) = 0.996 at J=0.5, 0.04 at J=0.1
SIMILARITY_THRESHOLD = 0.5
"""Measured on ../shared (bench/works.py, 102 files): copies 1.00, a decision's relatório-and-voto extract
against the whole acórdão 0.96, the original and the consolidated text of one directive 0.68; the extractor's
OCR of the two scans against their text layer 0.98 and 0.97 (true Jaccard; estimated 0.97, 0.96); a copy with
4/6/8% of its characters misread 0.67/0.57/0.49. Across different works at most 0.21 (0.23 estimated): the
comment i649 beside the ementa-only copies it quotes, two tables of contents. 128 permutations: standard error
0.04 near 0.5."""
MIN_SHINGLES = 100
"""Below this (about a paragraph) a text is no evidence of identity: no signature, no bands."""

_SEEDS = np.array(
    [
        int.from_bytes(hashlib.blake2b(f"precedente-minhash-{i}".encode(), digest_size=8).digest())
        for i in range(NUM_PERM)
    ],
    dtype=np.uint64,
)
"""One seed per permutation, from a hash rather than numpy's generators (whose streams may change between
releases): signatures stored in the database must stay comparable."""
_BLOCK = 8192


# ------------------------------------------------------------------------------------------ MinHash


def _letters(text: str) -> bytes:
    """Lower-case ASCII letters only: accents folded, digits, punctuation and spaces dropped."""
    return ascii_letters(text).encode()


def shingles(text: str) -> np.ndarray:
    """The distinct letter 9-grams of the text, each as its exact base-26 code (below 26**9 < 2**45)."""
    codes = np.frombuffer(_letters(text), dtype=np.uint8).astype(np.uint64) - np.uint64(ord("a"))
    count = len(codes) - SHINGLE_CHARS + 1
    if count <= 0:
        return np.zeros(0, dtype=np.uint64)
    value = np.zeros(count, dtype=np.uint64)
    for i in range(SHINGLE_CHARS):
        value = value * np.uint64(26) + codes[i : i + count]
    return np.unique(value)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, one independent 64-bit hash per seed. (A linear hash (a*x + b) mod p with
    a, b below 2**32 is no permutation: for small x it keeps x's order, and every "permutation" then picks the
    same minimum; measured: 0.41 for two unrelated acórdãos whose true Jaccard is 0.05.)"""
    z = x + np.uint64(0x9E37_79B9_7F4A_7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58_476D_1CE4_E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D0_49BB_1331_11EB)
    return z ^ (z >> np.uint64(31))


def minhash(text: str) -> list[int]:
    """MinHash signature (NUM_PERM values below 2**63) of the text's shingles; [] when it has too few."""
    values = shingles(text)
    if len(values) < MIN_SHINGLES:
        return []
    signature = np.full(NUM_PERM, np.iinfo(np.uint64).max, dtype=np.uint64)
    for start in range(0, len(values), _BLOCK):
        block = values[start : start + _BLOCK]
        signature = np.minimum(signature, _mix(block[None, :] ^ _SEEDS[:, None]).min(axis=1))
    signature >>= np.uint64(1)  # 63 bits: the values fit PostgreSQL's signed bigint
    return [int(v) for v in signature]


def lsh_bands(signature: Sequence[int]) -> list[str]:
    """One hash per band of BAND_ROWS signature values, prefixed by the band number ("07:9f3a..."):
    two signatures with estimated Jaccard J share a band with probability 1 - (1 - J**3)**42."""
    if len(signature) != NUM_PERM:
        return []
    rows = np.asarray(signature, dtype=np.uint64)
    bands = []
    for band in range(BANDS):
        chunk = rows[band * BAND_ROWS : (band + 1) * BAND_ROWS].tobytes()
        bands.append(f"{band:02d}:{hashlib.blake2b(chunk, digest_size=8).hexdigest()}")
    return bands


def similarity(a: Sequence[int], b: Sequence[int]) -> float:
    """Estimated Jaccard similarity of the two texts: the share of equal signature positions (0 when either
    text was too short to sign)."""
    if len(a) != NUM_PERM or len(b) != NUM_PERM:
        return 0.0
    return float(np.mean(np.asarray(a, dtype=np.uint64) == np.asarray(b, dtype=np.uint64)))


# -------------------------------------------------------------------------------------- identity keys

_DECISION_KINDS = {"acordao": "acordao", "sentenca": "sentenca", "decisao_monocratica": "monocratica"}
"""Decision types whose case number names one decision (a despacho does not: a case has dozens)."""
_ACT_TYPES = frozenset({"ato_normativo", "ato_administrativo"})

# Higher courts' classes and incidental prefixes, folded and lower-cased, to their abbreviation.
_CLASSES = {
    "recurso especial": "resp",
    "resp": "resp",
    "agravo em recurso especial": "aresp",
    "aresp": "aresp",
    "embargos de divergencia em recurso especial": "eresp",
    "eresp": "eresp",
    "embargos de divergencia em agravo em recurso especial": "earesp",
    "earesp": "earesp",
    "recurso extraordinario": "re",
    "re": "re",
    "recurso extraordinario com agravo": "are",
    "agravo em recurso extraordinario": "are",
    "are": "are",
    "agravo interno": "agint",
    "agint": "agint",
    "agravo regimental": "agrg",
    "agrg": "agrg",
    "agr": "agrg",
    "embargos de declaracao": "edcl",
    "edcl": "edcl",
    "ed": "edcl",
    "habeas corpus": "hc",
    "hc": "hc",
    "recurso em habeas corpus": "rhc",
    "rhc": "rhc",
    "recurso ordinario em habeas corpus": "rhc",
    "mandado de seguranca": "ms",
    "ms": "ms",
    "recurso em mandado de seguranca": "rms",
    "recurso ordinario em mandado de seguranca": "rms",
    "rms": "rms",
    "conflito de competencia": "cc",
    "cc": "cc",
    "reclamacao": "rcl",
    "rcl": "rcl",
    "agravo de instrumento": "ag",
    "ag": "ag",
    "ai": "ai",
    "medida cautelar": "mc",
    "mc": "mc",
    "sentenca estrangeira": "se",
    "se": "se",
    "sentenca estrangeira contestada": "sec",
    "sec": "sec",
    "acao direta de inconstitucionalidade": "adi",
    "adi": "adi",
    "adin": "adi",
    "acao declaratoria de constitucionalidade": "adc",
    "adc": "adc",
    "arguicao de descumprimento de preceito fundamental": "adpf",
    "adpf": "adpf",
    "recurso de revista": "rr",
    "rr": "rr",
    "agravo de instrumento em recurso de revista": "airr",
    "airr": "airr",
}
_PREFIXES = frozenset({"agint", "agrg", "edcl"})
_COURT_OF_CLASS = {"resp": "stj", "aresp": "stj", "eresp": "stj", "earesp": "stj", "re": "stf", "are": "stf",
                   "adi": "stf", "adc": "stf", "adpf": "stf", "ai": "stf", "rr": "tst", "airr": "tst"}  # fmt: skip
_HIGHER_COURTS = frozenset({"stf", "stj", "tst", "tse", "stm"})
_CASE = re.compile(
    r"^(?P<cls>[a-z][a-z ]*?)\s*(?:n\s*[.o]?\s*[o.]?\s+)?(?P<num>\d{1,3}(?:\.\d{3})+|\d+)(?![\d.]*\d)"
    r"(?:\s*[-/]\s*(?P<uf>[a-z]{2})\b)?"
)
_CNJ = re.compile(r"(?<!\d)(\d{7})-?\s?(\d{2})\.?(\d{4})\.?(\d)\.?(\d{2})\.?(\d{4})(?!\d)")


def work_keys(metadata: DocumentMetadata) -> list[str]:
    """Identity keys of the decision or act the metadata describes; [] when none is certain enough."""
    kind = _DECISION_KINDS.get(metadata.document_type)
    if kind is not None:
        key = _decision_key(metadata, kind)
        return [key] if key else []
    if metadata.document_type in _ACT_TYPES:
        key = act_key(metadata.title, metadata.court, metadata.judgment_date or metadata.document_date)
        return [key] if key else []
    return []


def _decision_key(metadata: DocumentMetadata, kind: str) -> str | None:
    for value in (metadata.process_number, metadata.title):
        if not value:
            continue
        digits = cnj_digits(value)
        if digits is not None:
            return f"cnj:{digits}:{kind}"
        key = higher_court_key(value, metadata.court, metadata.procedural_class)
        if key is not None:
            return f"{key}:{kind}"
    return None


def cnj_digits(value: str) -> str | None:
    """The 20 digits of a CNJ number whose check digits hold (ISO 7064 mod 97-10, Resolução CNJ 65/2008)."""
    match = _CNJ.search(value)
    if match is None:
        return None
    n, dd, a, j, tr, o = match.groups()
    if check_digits(n, a, j, tr, o) != dd:
        return None
    return n + dd + a + j + tr + o


def _key_form(value: str) -> str:
    """A value as keys compare it: folded, lower case, "º" as "o", spaces collapsed."""
    return re.sub(r"\s+", " ", fold(value).lower().replace("º", "o").replace("°", "o")).strip()


# Cached: every card reads the keys of the citations its passage makes (2% of a search's CPU uncached).
@lru_cache(maxsize=8192)
def higher_court_key(value: str, court: str | None, procedural_class: str | None = None) -> str | None:
    """ "stj:resp:1602076" for "REsp 1.602.076/SP", "RECURSO ESPECIAL Nº 1.602.076 - SP" or "REsp 1602076";
    "stj:agint-aresp:2560760" for "AgInt no AREsp 2.560.760/SE" (another decision than the AREsp's own).

    The class chain must be recognised whole and the court known (the metadata's, or the only court that
    has the class); the UF is dropped (a number is unique within its class at a court)."""
    text = _key_form(value)
    if text[:1].isdigit() and procedural_class:
        text = f"{_key_form(procedural_class)} {text}"  # a bare number: the class comes from its own field
    match = _CASE.match(text)
    if match is None:
        return None
    chain = _class_chain(match["cls"])
    if not chain:
        return None
    court = court if court in _HIGHER_COURTS else _COURT_OF_CLASS.get(chain[-1])
    if court is None:
        return None
    return f"{court}:{'-'.join(chain)}:{match['num'].replace('.', '')}"


def _class_chain(words: str) -> list[str] | None:
    """["agint", "edcl", "aresp"] for "agint nos edcl no aresp": prefixes, then the class; None if unknown."""
    parts = [p.strip() for p in re.split(r"\b(?:no|na|nos|nas)\b", words.strip())]
    chain = [_CLASSES.get(p) for p in parts]
    if not chain or any(c is None for c in chain) or any(c not in _PREFIXES for c in chain[:-1]):
        return None
    return [c for c in chain if c is not None]


# ---------------------------------------------------------------------------------------------- acts

_BR_KINDS = {
    "lei complementar": "lc",
    "lc": "lc",
    "lei delegada": "lei-delegada",
    "lei": "lei",
    "decreto-lei": "decreto-lei",
    "decreto lei": "decreto-lei",
    "decreto legislativo": "decreto-legislativo",
    "decreto": "decreto",
    "medida provisoria": "mp",
    "emenda constitucional": "ec",
    "resolucao": "resolucao",
    "provimento": "provimento",
    "instrucao normativa": "in",
    "portaria": "portaria",
}
_STATUTES = frozenset({"lc", "lei-delegada", "lei", "decreto-lei", "decreto-legislativo", "decreto", "mp", "ec"})
_BR_KIND_PATTERN = "|".join(sorted((re.escape(k) for k in _BR_KINDS), key=len, reverse=True))
_BR_ACT = re.compile(
    rf"^(?P<kind>{_BR_KIND_PATTERN})\b(?P<scope>\s+(?:federal|estadual|municipal|distrital)\b)?"
    r"(?P<issuer>(?:\s*/\s*[a-z]{2,12}|\s+(?!n[o.]?\b|de\b)[a-z]{2,6}(?=\s+n[o.]?\b|\s+n\.|\s+\d))*)"
    r"\s*(?:n\s*[.o]*\s*[o.]?\s*)?(?P<num>\d{1,3}(?:\.\d{3})+|\d{1,6})(?:\s*/\s*(?P<year>\d{4}|\d{2})(?!\d))?"
    rf"(?:\s*,?\s*de\s+\d{{1,2}}\s*o?\s+de\s+(?:{MONTH_PATTERN})\s+de\s+(?P<year2>\d{{4}}))?"
)
_EU_ACT = re.compile(
    r"^(?P<kind>regulamento|regulation|directiva|diretiva|directive|decisao|decision)"
    r"(?:\s+(?:de\s+execucao|delegad[oa]|implementing|delegated))?\s*(?:\(\s*(?:ue|ce|cee|eu|ec|eec)"
    r"(?:\s*,\s*euratom)?\s*\))?\s*(?P<no>n\s*\.?\s*o\s*\.?\s*|no\.?\s+)?(?P<x>\d{1,4})\s*/\s*(?P<y>\d{1,4})\b"
)
_EU_KINDS = {"regulamento": "regulation", "regulation": "regulation", "directiva": "directive", "diretiva": "directive",
             "directive": "directive", "decisao": "decision", "decision": "decision"}  # fmt: skip


def _full_year(digits: str) -> int:
    year = int(digits)
    return year if len(digits) == 4 else year + (1900 if year >= 50 else 2000)


def act_key(title: str, court: str | None = None, dated: date | None = None) -> str | None:
    """ "act:br:lei:-:8078:1990" for "Lei 8.078/1990" or "Lei nº 8.078, de 11 de setembro de 1990";
    "act:eu:regulation:524:2013" for "Regulation (EU) No 524/2013" and "Regulamento (UE) n.º 524/2013".

    A title that does not open with the designation gives no key (a commentary names the act later on).
    The year is the title's, else that of the act's date; an act of an issuer that numbers its own acts
    (a resolução, a provimento) needs the issuer, from the title or the metadata's origin."""
    text = _key_form(title)
    eu = _EU_ACT.match(text)
    if eu is not None:
        return _eu_key(eu)
    match = _BR_ACT.match(text)
    if match is None:
        return None
    kind = _BR_KINDS[re.sub(r"\s+", " ", match["kind"])]
    year_text = match["year"] or match["year2"]
    year = _full_year(year_text) if year_text else dated.year if dated else None
    if year is None:
        return None
    issuer = "-".join(re.findall(r"[a-z]+", match["issuer"]))
    origin = court or ""
    local = (match["scope"] or "").strip() not in ("", "federal")
    if (kind not in _STATUTES or local) and not (issuer or origin):
        return None  # a state law or a resolução of an unknown issuer: its number is not unique
    if kind in _STATUTES and not local:
        scope = "-"  # a federal statute's number and year are unique nationally, whoever holds the copy
    else:
        scope = "-".join(dict.fromkeys(p for p in (origin, *issuer.split("-")) if p))
    return f"act:br:{kind}:{scope}:{match['num'].replace('.', '')}:{year}"


def _eu_key(match: re.Match[str]) -> str:
    kind = _EU_KINDS[match["kind"]]
    x, y = match["x"], match["y"]

    def plausible(digits: str) -> bool:
        return len(digits) == 4 and 1950 <= int(digits) <= 2100

    if kind == "directive" or (not match["no"] and plausible(x)) or (plausible(x) and not plausible(y)):
        year, number = _full_year(x), int(y)  # "2002/22/EC", "Regulation (EU) 2016/679"
    else:
        year, number = _full_year(y), int(x)  # "Regulation (EU) No 524/2013"
    return f"act:eu:{kind}:{number}:{year}"


# -------------------------------------------------------------------------------------- works


@dataclass(frozen=True)
class Fingerprint:
    """What identity is decided from: keys, the MinHash signature ([] when too short) and its LSH bands."""

    keys: list[str]
    signature: list[int]
    bands: list[str]


def fingerprint(metadata: DocumentMetadata, text: str) -> Fingerprint:
    signature = minhash(text)
    return Fingerprint(work_keys(metadata), signature, lsh_bands(signature))


def join_reason(a: Fingerprint, b: Fingerprint, threshold: float = SIMILARITY_THRESHOLD) -> str | None:
    """Why two documents are one work ("key stj:resp:1602076:acordao", "similarity 0.97"), or None.

    Two documents that both name their decision or act, and not the same one, never join by text: courts
    issue identical decisions in dozens of cases (julgamentos em bloco), and those are different works."""
    shared = sorted(set(a.keys) & set(b.keys))
    if shared:
        return f"key {shared[0]}"
    if a.keys and b.keys:
        return None
    if set(a.bands) & set(b.bands):
        estimated = similarity(a.signature, b.signature)
        if estimated >= threshold:
            return f"similarity {estimated:.2f}"
    return None


@dataclass(frozen=True)
class Member:
    """A document in work formation: `age` orders members (oldest first), the oldest names the work."""

    id: Hashable
    age: tuple
    fingerprint: Fingerprint


@dataclass(frozen=True)
class Assignment:
    work: Hashable | None  # None: the document is a work of its own
    reason: str | None  # how it joined its work: "key ... with <id>"; None for the work's oldest member


def form_works(members: Sequence[Member], threshold: float = SIMILARITY_THRESHOLD) -> dict[Hashable, Assignment]:
    """Connected components of the pairwise joins; each multi-member work is named by its oldest member,
    and every other member says through which join (to an older member where one is direct) it belongs."""
    ordered = sorted(members, key=lambda m: m.age)
    edges: dict[Hashable, list[tuple[Hashable, str]]] = {m.id: [] for m in ordered}
    for i, j in sorted(_candidate_pairs(ordered)):
        a, b = ordered[i], ordered[j]
        reason = join_reason(a.fingerprint, b.fingerprint, threshold)
        if reason is not None:
            edges[a.id].append((b.id, reason))
            edges[b.id].append((a.id, reason))
    out: dict[Hashable, Assignment] = {}
    rank = {m.id: i for i, m in enumerate(ordered)}
    for root in ordered:
        if root.id in out:
            continue
        component, frontier = [root.id], [root.id]
        seen = {root.id}
        while frontier:
            nxt = []
            for node in frontier:
                for other, _ in edges[node]:
                    if other not in seen:
                        seen.add(other)
                        component.append(other)
                        nxt.append(other)
            frontier = nxt
        if len(component) == 1:
            out[root.id] = Assignment(None, None)
            continue
        out[root.id] = Assignment(root.id, None)
        for node in component[1:]:
            # Prefer a key over a similarity, then the oldest partner: a stable, readable reason.
            links = sorted(edges[node], key=lambda e: (not e[1].startswith("key"), rank[e[0]]))
            partner, reason = links[0]
            out[node] = Assignment(root.id, f"{reason} with {partner}")
    return out


def _candidate_pairs(ordered: Sequence[Member]) -> set[tuple[int, int]]:
    """The pairs that share a key or a band: join_reason is None for every other pair, so comparing only
    these gives the same works without comparing every member with every other."""
    holders: dict[str, list[int]] = {}
    for i, member in enumerate(ordered):
        for token in {*(f"k{k}" for k in member.fingerprint.keys), *(f"b{b}" for b in member.fingerprint.bands)}:
            holders.setdefault(token, []).append(i)
    return {pair for group in holders.values() for pair in itertools.combinations(group, 2)}
