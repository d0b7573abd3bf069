"""A generator of degraded scans of real text, each page with its ground truth (issue #36 item 6).

    from bench.scan_degrade import generate_page
    page = generate_page(seed)          # page.pdf: a one-page image-only PDF; page.truth: its text

Six scans tuned the extractor's OCR (../shared/scans); this draws as many as wanted from a distribution
instead, with seeds, so rules can be tuned on one seed range and judged on another. Each seed picks:

- a source: a paragraph run of a decision of ../shared/corpus (its `text` or `ementa`), typeset on an A5 page
  in Times or Helvetica at 9-12 pt, or the upper or lower half of a page of ../shared/archive (a born-digital
  page with a text layer). The ground truth is the vector page's own text layer (what was actually typeset,
  or the words that lie wholly inside the half), so it never disagrees with the pixels;
- degradations, none (a clean scan at 200 dpi), one, or two to four together, each with a severity in [0, 1]:
  resolution (300 -> 100 dpi), skew (up to 4 degrees either way), rotation (90, 180 or 270 degrees), stamp
  (a coloured ellipse ring with words, or a box, over the body), speckle (salt-and-pepper specks),
  streaks (fax-like dark horizontal lines), blur (Gaussian), JPEG (quality 80 -> 20).

Corpus text is read at run time and never written into the repository; generate_page works in memory and
bench/scan_gate.py writes pages (with --keep) only into a folder it is given (a temp folder by default).
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pymupdf
from PIL import Image, ImageDraw, ImageFilter, ImageFont

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
ARCHIVE = SHARED / "archive"

KINDS = ("resolution", "skew", "rotation", "stamp", "speckle", "streaks", "blur", "jpeg")
DEFAULT_DPI = 200
"""A clean office scan; the resolution kind draws 300 -> 100 dpi with its severity."""

_A5 = (420, 595)  # points
_STAMP_WORDS = (
    "RECEBIDO",
    "PROTOCOLO",
    "CONFERE COM O ORIGINAL",
    "CÓPIA",
    "ARQUIVADO",
    "JUNTADA",
    "CARTÓRIO",
    "URGENTE",
)
_STAMP_COLOURS = ((30, 60, 170), (190, 30, 40), (120, 40, 140), (30, 120, 60))


@dataclass(frozen=True)
class GeneratedPage:
    """One degraded page: an image-only PDF, the text on it, and what was done to it."""

    seed: int
    source: str  # "corpus:<file>:<id>" or "archive:<file>:p<N>"
    truth: str
    degradations: dict[str, float] = field(default_factory=dict)  # kind -> severity in [0, 1]
    dpi: int = DEFAULT_DPI
    rotation: int = 0
    skew: float = 0.0
    image: np.ndarray | None = None  # the RGB scan, as embedded
    pdf: bytes = b""

    @property
    def label(self) -> str:
        """ "clean", one kind, or "combo"."""
        if not self.degradations:
            return "clean"
        return next(iter(self.degradations)) if len(self.degradations) == 1 else "combo"


# --------------------------------------------------------------------------------------------
# Sources
# --------------------------------------------------------------------------------------------


def _corpus_record(rng: np.random.Generator) -> tuple[str, str]:
    """A random decision's text (or ementa) and its name: a random line of a random file, read by seeking."""
    files = sorted(CORPUS.glob("*.jsonl"))
    for _ in range(50):
        path = files[int(rng.integers(len(files)))]
        size = path.stat().st_size
        with path.open("rb") as handle:
            handle.seek(int(rng.integers(size)))
            handle.readline()  # the rest of a line cut by the seek
            line = handle.readline() or (handle.seek(0) or handle.readline())
        record = json.loads(line)
        text = record.get("text") or record.get("ementa") or ""
        if len(text.split()) >= 60:
            return text, f"corpus:{path.name}:{record.get('id', '?')}"
    raise RuntimeError(f"no decision with text found in {CORPUS}")


def _typeset(text: str, rng: np.random.Generator) -> pymupdf.Document:
    """An A5 page with as much of `text` (from a random word on) as fits, in a base-14 font."""
    words = text.split()
    start = int(rng.integers(max(1, len(words) - 60)))
    words = words[start : start + 260]
    font = ("tiro", "helv")[int(rng.integers(2))]
    size = float(rng.uniform(9.0, 12.0))
    margin = 36
    doc = pymupdf.open()
    count = len(words)
    while count > 10:
        page = doc.new_page(width=_A5[0], height=_A5[1])
        box = pymupdf.Rect(margin, margin, _A5[0] - margin, _A5[1] - margin)
        if page.insert_textbox(box, " ".join(words[:count]), fontname=font, fontsize=size, align=3) >= 0:
            return doc
        doc.delete_page(0)
        count = int(count * 0.85)
    raise RuntimeError("text did not fit")


def _archive_half(rng: np.random.Generator) -> tuple[pymupdf.Page, pymupdf.Rect, str, str]:
    """Half of a text page of the archive: the page, the clip, the words wholly inside it, a name."""
    files = sorted(ARCHIVE.glob("*.pdf"))
    for _ in range(50):
        path = files[int(rng.integers(len(files)))]
        doc = pymupdf.open(path)
        number = int(rng.integers(doc.page_count))
        page = doc[number]
        rect = page.rect
        top = bool(rng.integers(2))
        clip = pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0 + rect.height * 0.55)
        if not top:
            clip = pymupdf.Rect(rect.x0, rect.y0 + rect.height * 0.45, rect.x1, rect.y1)
        words = [w for w in page.get_text("words", sort=True) if pymupdf.Rect(w[:4]) in clip]
        if page.rotation == 0 and len(words) >= 80 and sum(len(w[4]) >= 4 for w in words) >= 40:
            return page, clip, _lines(words), f"archive:{path.name}:p{number + 1}{'top' if top else 'bottom'}"
        doc.close()
    raise RuntimeError(f"no text page found in {ARCHIVE}")


def _lines(words: list[tuple]) -> str:
    lines: dict[tuple[int, int], list[str]] = {}
    for w in words:
        lines.setdefault((w[5], w[6]), []).append(w[4])
    return "\n".join(" ".join(line) for line in lines.values())


def _render(page: pymupdf.Page, dpi: int, clip: pymupdf.Rect | None = None) -> Image.Image:
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False, clip=clip)
    return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)


# --------------------------------------------------------------------------------------------
# Degradations (each takes a severity in [0, 1])
# --------------------------------------------------------------------------------------------


def _stamp(image: Image.Image, severity: float, rng: np.random.Generator, dpi: int) -> Image.Image:
    """A coloured stamp pressed over the body: an ellipse ring (most) or a box, with words, at an angle."""
    mm = dpi / 25.4
    width, height = image.size
    a = float(rng.uniform(18, 30) * mm)
    b = a * float(rng.uniform(0.55, 1.0))
    colour = _STAMP_COLOURS[int(rng.integers(len(_STAMP_COLOURS)))]
    opacity = int(120 + 135 * severity)
    thickness = max(2, int((0.6 + 1.2 * severity) * mm))
    side = int(2 * a + 4 * thickness)
    layer = Image.new("L", (side, side), 0)
    draw = ImageDraw.Draw(layer)
    box = (side / 2 - a, side / 2 - b, side / 2 + a, side / 2 + b)
    if rng.random() < 0.75:
        draw.ellipse(box, outline=255, width=thickness)
        draw.ellipse(
            (box[0] + 2.5 * thickness, box[1] + 2.5 * thickness, box[2] - 2.5 * thickness, box[3] - 2.5 * thickness),
            outline=255,
            width=max(1, thickness // 2),
        )
    else:
        draw.rectangle(box, outline=255, width=thickness)
    font = _stamp_font(max(8, int(b * 0.35)))
    word = _STAMP_WORDS[int(rng.integers(len(_STAMP_WORDS)))]
    draw.text((side / 2, side / 2), word, fill=255, font=font, anchor="mm")
    date = f"{int(rng.integers(1, 29)):02d}/{int(rng.integers(1, 13)):02d}/{int(rng.integers(2005, 2025))}"
    draw.text((side / 2, side / 2 + b * 0.45), date, fill=255, font=font, anchor="mm")
    layer = layer.rotate(float(rng.uniform(-30, 30)), resample=Image.Resampling.BILINEAR)
    layer = layer.point(lambda v: v * opacity // 255)
    x = int(rng.uniform(0.15, 0.85) * width - side / 2)
    y = int(rng.uniform(0.25, 0.8) * height - side / 2)
    ink = Image.new("RGB", layer.size, colour)
    out = image.copy()
    # Ink multiplies with the paper: the stamp's colour where it is pressed, the text darker under it.
    region = out.crop((x, y, x + side, y + side))
    multiplied = Image.fromarray(
        (np.asarray(region, dtype=np.uint16) * np.asarray(ink, dtype=np.uint16) // 255).astype(np.uint8)
    )
    out.paste(Image.composite(multiplied, region, layer), (x, y))
    return out


def _speckle(pixels: np.ndarray, severity: float, rng: np.random.Generator) -> np.ndarray:
    density = 0.002 + 0.03 * severity
    mask = rng.random(pixels.shape[:2])
    pixels = pixels.copy()
    pixels[mask < density / 2] = 0
    pixels[mask > 1 - density / 2] = 255
    return pixels


def _streaks(pixels: np.ndarray, severity: float, rng: np.random.Generator, dpi: int) -> np.ndarray:
    height = pixels.shape[0]
    count = int(5 + 40 * severity * rng.uniform(0.5, 1.0))
    pixels = pixels.astype(np.int16)
    for _ in range(count):
        y = int(rng.integers(height))
        thick = max(1, int(rng.uniform(0.5, 1.0 + 2 * severity) * dpi / 150))
        darkness = int(rng.uniform(60, 90 + 100 * severity))
        pixels[y : y + thick] -= darkness
    return np.clip(pixels, 0, 255).astype(np.uint8)


def _jpeg(image: Image.Image, quality: int) -> Image.Image:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")


def _choose_degradations(rng: np.random.Generator) -> dict[str, float]:
    roll = rng.random()
    count = 0 if roll < 0.1 else 1 if roll < 0.6 else int(rng.integers(2, 5))
    kinds = list(rng.choice(KINDS, size=count, replace=False)) if count else []
    return {str(kind): round(float(rng.uniform(0.0, 1.0)), 3) for kind in kinds}


def severity_band(severity: float) -> str:
    return "light" if severity < 1 / 3 else "medium" if severity < 2 / 3 else "heavy"


def generate_page(seed: int, *, kinds: dict[str, float] | None = None, source: str | None = None) -> GeneratedPage:
    """The page of this seed; `kinds` and `source` ("corpus" or "archive") override the drawn ones."""
    rng = np.random.default_rng(seed)
    degradations = kinds if kinds is not None else _choose_degradations(rng)
    from_archive = (rng.random() < 0.3) if source is None else source == "archive"
    dpi = DEFAULT_DPI
    if "resolution" in degradations:
        dpi = int(round(300 - 200 * degradations["resolution"]))
    if from_archive:
        page, clip, truth, name = _archive_half(rng)
        image = _render(page, dpi, clip)
        page.parent.close()
    else:
        text, name = _corpus_record(rng)
        with _typeset(text, rng) as doc:
            truth = doc[0].get_text()
            image = _render(doc[0], dpi)
    rotation, skew = 0, 0.0
    if "stamp" in degradations:
        image = _stamp(image, degradations["stamp"], rng, dpi)
    if "skew" in degradations:
        skew = float(np.sign(rng.uniform(-1, 1)) * (0.5 + 3.5 * degradations["skew"]))
        image = image.rotate(skew, resample=Image.Resampling.BICUBIC, expand=True, fillcolor=(255, 255, 255))
    if "blur" in degradations:
        image = image.filter(ImageFilter.GaussianBlur(radius=(0.4 + 1.4 * degradations["blur"]) * dpi / 200))
    pixels = np.asarray(image)
    if "speckle" in degradations:
        pixels = _speckle(pixels, degradations["speckle"], rng)
    if "streaks" in degradations:
        pixels = _streaks(pixels, degradations["streaks"], rng, dpi)
    image = Image.fromarray(pixels)
    if "rotation" in degradations:
        rotation = (90, 180, 270)[int(rng.integers(3))]
        image = image.rotate(-rotation, expand=True)  # PIL turns counter-clockwise
    quality = 92
    if "jpeg" in degradations:
        quality = int(round(80 - 60 * degradations["jpeg"]))
    image = _jpeg(image, quality)
    return GeneratedPage(
        seed=seed,
        source=name,
        truth=truth,
        degradations=degradations,
        dpi=dpi,
        rotation=rotation,
        skew=skew,
        image=np.asarray(image),
        pdf=_as_pdf(image, dpi, quality),
    )


def _as_pdf(image: Image.Image, dpi: int, quality: int) -> bytes:
    """An image-only PDF page the size the image covers at `dpi`, the image stored as JPEG (as scanners do)."""
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=quality)
    width, height = (side * 72 / dpi for side in image.size)
    with pymupdf.open() as doc:
        page = doc.new_page(width=width, height=height)
        page.insert_image(page.rect, stream=buffer.getvalue())
        return doc.tobytes(garbage=3, deflate=True)


def describe(page: GeneratedPage) -> str:
    parts = [f"{kind} {severity:.2f}" for kind, severity in page.degradations.items()] or ["clean"]
    extra = []
    if page.rotation:
        extra.append(f"turned {page.rotation}")
    if page.skew:
        extra.append(f"skew {page.skew:+.1f}")
    return f"seed {page.seed} {page.dpi} dpi: {', '.join(parts)}{' (' + ', '.join(extra) + ')' if extra else ''}"


def angle_of(page: GeneratedPage) -> float:
    """The page's total tilt (for tests): quarter turn plus skew."""
    return math.fmod(page.rotation + page.skew, 360)


def _stamp_font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """DejaVu Sans Bold where installed (it has the accents), Pillow's own font otherwise."""
    try:
        return ImageFont.truetype("DejaVuSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default(size=size)
