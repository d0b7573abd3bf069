"""Page images for Tesseract: the best pixels a page has, then the fixes that measurably help.

What each step does (bench/ocr_cer.py --ablation; CER without running headers and footers, easy /
hard scan of ../shared/docs/scanned; all steps on: 0.69% / 0.83%):

- Native pixels: a scan is one embedded image, often at 130-200 dpi. MuPDF's render at 300 dpi
  resamples it into the page; the image itself, upscaled with bicubic interpolation, gives
  Tesseract sharper strokes (without: 0.82% / 1.15%).
- Deskew (projection profiles, +-5 degrees): the largest gain. Tesseract drops whole paragraphs of
  a page tilted by 2-3 degrees as non-text (without: 0.79% / 9.6%).
- Round stamps (Hough circles, the ring painted over): a stamp across a paragraph makes Tesseract's
  layout analysis skip the paragraph (without: 0.69% / 2.1%).
- Orientation: Tesseract's OSD costs 0.6-2 s a page, more than reading it, so ocr.py calls it only
  when a first pass reads a page with low confidence, as an upside-down or sideways page does
  (without: the hard scan's upside-down page 2 is lost, 2.8%).
- Off, because they did not help: adaptive binarisation (Tesseract 5's LSTM reads grey better:
  6.8% / 30%), median denoising on every page (0.70% / 0.67%, and one word of the easy scan lost);
  Otsu binarisation lost words on the hard scan in earlier trials. Both stay here for the ablation.

Steps chosen per page by a measured signal (bench/scans.py on the six scans of ../shared/scans;
body word recall before -> after, each figure the whole scan):

- Dark edges (dark_edge_bands: margin columns or rows whose median grey is well below the paper's):
  the band is divided by its own background. With the specks, dark-edged copy 95.6% -> 98.7%.
- Specks (speckle_density: tiny dark blobs per megapixel >= SPECKLE_PER_MPX): a 3x3 median. Office
  scan 98.1% -> 100% (body CER 8.3% -> 2.1%); both scans of ../shared/docs stay below the bar.
- Streaks (streak_lines: thin horizontal dark lines across the page >= MIN_STREAK_LINES, as a fax
  leaves through every text line): subtracted down to the paper. Fax 22% -> 94% (a fax page: 0% ->
  96%: Tesseract's layout analysis took the struck lines for rules and read nothing); -> 97.2% (body
  CER 4.2% -> 2.7%) since the strokes crossing a streak keep their grey (_STROKE_OVER_STREAK).
- Quick orientation (quick_orientation: column vs row profile sharpness for 90/270, ascenders vs
  descenders for 180): a few ms instead of a Tesseract pass and an OSD call; the 270-degree page of
  the decree, which Tesseract read sideways at confidence 0.86 (so OSD never ran), is now turned.
- Contrast stretching and background division over the whole page did not help the faded copy
  (99.3% as it is, Tesseract normalises contrast itself) and cost the dark-edged one words, so
  they are not here.

Everything here works on 8-bit greyscale numpy arrays (OpenCV releases the GIL, so pages prepared
in worker threads run in parallel); only page_image() touches MuPDF, which is not thread-safe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import pymupdf

# One OpenCV thread per call: the extractor already runs one page per core.
cv2.setNumThreads(1)

MAX_PAGE_PIXELS = 25_000_000
"""A page image larger than this is made at a lower resolution: A3 at 300 dpi is 17 Mpx, A2 would be
35. Tesseract needs several bytes per pixel, and an extractor replica has 1.5 GiB for two pages."""

READING_SCALE = 0.5
"""Tesseract reads the prepared page at half its ~300 dpi (~150 dpi, x-heights of ~11 px on 12 pt text).
The fixes above are tuned in 300 dpi pixels, so they run first (the deskew too) and the page is shrunk
before the quarter turn (prepare_page). Tesseract's cost is a part that grows with the pixels (layout analysis, its
PNG round trip of every text line) and one that does not (the LSTM sees each line at 36 px high whatever
the resolution, ~80% of a page's time at 150 dpi): at 0.65 its CPU per page fell 27% from 300 dpi (2.11 ->
1.55 s, the six scans' 37 pages), and 0.5 took another 16% (Tesseract alone on the same prepared pages,
0.82 -> 0.68 s a page). Body word recall, 0.65 -> 0.5 with this module's other changes of issue #16 item 5
(bench/scans.py): stamped 98.26 -> 98.55, faded 99.29 -> 99.53, turned decree 98.85 -> 98.62, fax 97.20 ->
97.05 (one word), office 100 -> 100, dark edges 99.37 -> 99.37; Tesseract alone at 0.5 kept both scans of
../shared/docs/scanned (99.55 -> 99.55, 99.72 -> 99.65). 0.55 read the fax at 96.9: the recall moves a word
or two either way with the scale, and the fax's 6-8 pt print keeps it near the 0.97 bar at any of them.
A half is also a whole factor: OpenCV shrinks by averaging 2 x 2 blocks, 1 ms a page where 0.65 took 16."""

MAX_SKEW_DEGREES = 5.0
"""Scanner skew beyond this is rare; a wider search costs time and finds false angles in tables."""

_SKEW_PROBE_WIDTH = 800
"""Least width of the thumbnail the skew is measured on (800-1600 px: the page shrunk by a whole factor):
~100 dpi for A4 is plenty for line profiles."""

_MIN_SKEW_DEGREES = 0.1
"""Below this, rotating costs an interpolation pass and gains nothing."""

_MIN_SKEW_GAIN = 1.1
"""How much sharper the best angle's line profile must be than the unrotated one to trust it."""


@dataclass(frozen=True)
class PreprocessOptions:
    """Which steps may run. The defaults are the steps that helped on the sample scans; the ones marked
    "by signal" run on a page only when its measured signal says the page needs them (PageSignals)."""

    native_pixels: bool = True
    deskew: bool = True
    remove_stamps: bool = True
    denoise: bool = False
    binarise: bool = False
    orientation: bool = True
    dark_edges: bool = True  # by signal: margin bands darker than the paper
    despeckle: bool = True  # by signal: many specks
    streaks: bool = True  # by signal: long horizontal streaks through the text lines (fax)
    quick_orientation: bool = True  # by signal: projection profiles and ascenders, before any Tesseract call
    reading_scale: float = READING_SCALE  # Tesseract reads the prepared ~300 dpi page at this scale

    @classmethod
    def off(cls) -> PreprocessOptions:
        """Plain Tesseract on MuPDF's render: the baseline the bench compares against."""
        return cls(
            native_pixels=False,
            deskew=False,
            remove_stamps=False,
            orientation=False,
            dark_edges=False,
            despeckle=False,
            streaks=False,
            quick_orientation=False,
            reading_scale=1.0,
        )


# --------------------------------------------------------------------------------------------
# Getting the pixels (MuPDF: call from one thread only)
# --------------------------------------------------------------------------------------------


def page_image(page: pymupdf.Page, dpi: int, *, native: bool = True, max_pixels: int = MAX_PAGE_PIXELS) -> np.ndarray:
    """Greyscale pixels of a page at about `dpi`, never more than max_pixels.

    A page that is just one upright scanned image (no visible text or drawings on top) gives that
    image at its own resolution, upscaled with bicubic interpolation: sharper than MuPDF's render.
    Any other page is rendered. A colour page goes grey through drop_colour_stamps.
    """
    width_in, height_in = page.rect.width / 72, page.rect.height / 72
    dpi = capped_dpi(width_in, height_in, dpi, max_pixels)
    if native:
        image = _native_scan(page, max_pixels)
        if image is not None:
            width = max(1, round(width_in * dpi))
            height = max(1, round(height_in * dpi))
            if (width, height) != (image.shape[1], image.shape[0]):
                shrinking = width < image.shape[1]
                image = cv2.resize(
                    image, (width, height), interpolation=cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
                )
            return drop_colour_stamps(image, dpi) if image.ndim == 3 else image
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csRGB, alpha=False)
    return drop_colour_stamps(_pixmap_array(pix), dpi)


def capped_dpi(width_in: float, height_in: float, dpi: int, max_pixels: int = MAX_PAGE_PIXELS) -> int:
    """The resolution at which a page of that size stays within max_pixels (very large sheets)."""
    area = max(width_in * height_in, 1e-6)
    if area * dpi * dpi <= max_pixels:
        return dpi
    return max(1, int(math.sqrt(max_pixels / area)))


def _native_scan(page: pymupdf.Page, max_pixels: int) -> np.ndarray | None:
    """The page's only image, if the page is nothing else: upright, covering the page, no visible text.
    Grey, or RGB when the image has colour (drop_colour_stamps makes it grey)."""
    if page.rotation or page.get_drawings():
        return None
    if any(span["type"] != 3 for span in page.get_texttrace()):  # type 3: invisible text (an OCR layer)
        return None
    infos = page.get_image_info()  # xrefs=True would hash the image's pixels (~6 ms a page): get_images names it
    images = page.get_images()
    if len(infos) != 1 or len(images) != 1 or not images[0][0]:
        return None
    info, xref = infos[0], images[0][0]
    a, b, c, d, _, _ = info["transform"]
    if abs(b) > 1e-3 or abs(c) > 1e-3 or a <= 0 or d <= 0:
        return None  # rotated or mirrored placement: let MuPDF render it
    bbox = pymupdf.Rect(info["bbox"]) & page.rect
    if bbox.is_empty or bbox.get_area() < 0.9 * page.rect.get_area():
        return None
    if info["width"] * info["height"] > 4 * max_pixels:
        return None
    try:
        pix = pymupdf.Pixmap(page.parent, xref)
        if pix.alpha:
            pix = pymupdf.Pixmap(pix, 0)
        if pix.n not in (1, 3):
            pix = pymupdf.Pixmap(pymupdf.csRGB, pix)
        image = _pixmap_array(pix)
        # The image's own pixels must look like the page: a stencil mask, a colour key or an odd
        # decode array would give something else, and MuPDF's render knows how to paint those.
        probe = _pixmap_array(page.get_pixmap(dpi=_NATIVE_PROBE_DPI, colorspace=pymupdf.csGRAY, alpha=False))
    except Exception:  # exotic colour spaces or filters: MuPDF's render handles them
        return None
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY) if image.ndim == 3 else image
    shrunk = cv2.resize(grey, (probe.shape[1], probe.shape[0]), interpolation=cv2.INTER_AREA)
    if float(np.abs(shrunk.astype(np.int16) - probe.astype(np.int16)).mean()) > _NATIVE_MAX_DIFFERENCE:
        return None
    return image


_NATIVE_PROBE_DPI = 36
_NATIVE_MAX_DIFFERENCE = 25.0
"""Mean grey-level difference between the image and a thumbnail render above which they differ
(same image: ~3.5, resampling; inverted: ~200)."""


def _pixmap_array(pix: pymupdf.Pixmap) -> np.ndarray:
    """The pixmap's pixels: (height, width) for grey, (height, width, n) for n > 1 channels."""
    array = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width * pix.n]
    if pix.n > 1:
        array = array.reshape(pix.height, pix.width, pix.n)
    return np.ascontiguousarray(array)


_COLOUR_SATURATION = 40
"""A pixel whose channels differ by more than this is coloured ink (black text and grey paper differ by < 20;
a green stamp's ink by 90, 50-60 after JPEG's chroma subsampling)."""
_COLOUR_SATURATION_SHRUNK = 25
"""The same on the page shrunk to a quarter, where a stroke 2-3 px wide is averaged with the paper around it."""
_COLOUR_STAMP_MIN_MM = 12.0
"""A coloured shape at least this tall and wide may be a stamp; a coloured line of text (a link, a red heading)
is 3-6 mm tall and stays as it is."""
_COLOUR_STAMP_MAX_MM = 80.0
"""Nor may it be wider or taller than this (office stamps are 15-60 mm): a booklet's coloured layout frame or
paragraphs of coloured text joined by a fax's streaks are hollow too, and span the page (held-out seeds 100236,
100063 lost half their words when this was not checked)."""
_COLOUR_STAMP_HOLLOW = 1.8
"""A stamp is an outline (a ring, a box, their sides at an angle) with words inside: its bounding box covers this
many times its own ink (on the quarter page, strokes thickened by a pixel) or more: 3.0 for a double ring with its
words, 8 for a tilted side of a box. A block of coloured text is dense (1.0-1.5 there) and is left alone."""


def drop_colour_stamps(rgb: np.ndarray, dpi: int) -> np.ndarray:
    """Greyscale of an RGB page with coloured stamps taken out: the ink of each stamp is divided out of the pixels
    under it, in the stamp colour's strongest channel, so the paper under it turns white and the black text
    under it stays black (ink multiplies with the paper it is pressed on).

    Why (issue #36 item 6, bench/scan_gate.py on generated pages, tuning seeds 0-299): a coloured stamp over
    the body, read in grey, cost Tesseract the paragraph under it (a stamp alone read 0.75-0.85 of its words at
    confidence 0.94: layout analysis took it for a picture). remove_stamps only finds round grey rings.
    """
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    scale = 0.25
    small = cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    saturation = small.max(axis=2).astype(np.int16) - small.min(axis=2)
    coloured = (saturation > _COLOUR_SATURATION_SHRUNK).astype(np.uint8)
    least = _COLOUR_STAMP_MIN_MM / 25.4 * dpi * scale
    most = _COLOUR_STAMP_MAX_MM / 25.4 * dpi * scale
    if int(coloured.sum()) < least * 2:
        return grey
    joined = cv2.dilate(coloured, np.ones((3, 3), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    for label in range(1, count):
        x, y, width, height, area = (int(v) for v in stats[label])
        if not least <= width <= most or not least <= height <= most:
            continue
        if width * height < _COLOUR_STAMP_HOLLOW * area:
            continue
        x0, y0 = max(0, int(x / scale) - 4), max(0, int(y / scale) - 4)
        x1, y1 = min(rgb.shape[1], int((x + width) / scale) + 4), min(rgb.shape[0], int((y + height) / scale) + 4)
        region = rgb[y0:y1, x0:x1]
        strong = (region.max(axis=2).astype(np.int16) - region.min(axis=2)) > _COLOUR_SATURATION
        if not strong.any():
            continue
        ink = np.median(region[strong], axis=0)
        channel = int(np.argmax(ink))
        near = cv2.dilate(strong.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
        divided = np.clip(region[..., channel].astype(np.float32) * 255.0 / max(float(ink[channel]), 1.0), 0, 255)
        grey[y0:y1, x0:x1][near] = divided.astype(np.uint8)[near]
    return grey


# --------------------------------------------------------------------------------------------
# Fixes (pure numpy/OpenCV, thread-safe)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    """A page image ready for Tesseract, what was done to it, and how far it was turned clockwise."""

    image: np.ndarray
    steps: tuple[str, ...]
    rotated: int = 0


def prepare(image: np.ndarray, options: PreprocessOptions) -> np.ndarray:
    """The enabled fixes (see prepare_page); only the image."""
    return prepare_page(image, options).image


def prepare_page(image: np.ndarray, options: PreprocessOptions) -> Prepared:
    """The enabled fixes, in the order that works: dark edges, specks, streaks, deskew, stamps, shrink to the
    reading scale, turn.

    Edges go first because every later signal (paper level, line profiles) would read the shadow
    as ink; specks and streaks are removed before the skew is measured so that its line profiles see
    the text. Every step up to the stamps works on the ~300 dpi page its constants are tuned for; the
    quarter turn is judged and made on the page shrunk to the size Tesseract reads (the quick
    orientation's 1150 px thumbnail is about that size already, and the turn moves a quarter of the pixels).
    """
    steps: list[str] = []
    if options.dark_edges:
        image, cropped = mask_dark_edges(image)
        if cropped:
            steps.append("edges " + "".join(cropped))
    if options.denoise or (options.despeckle and speckle_density(image) >= SPECKLE_PER_MPX):
        image = denoise(image)
        steps.append("despeckle")
    if options.streaks:
        opened = _horizontal_opening(image)
        if _streak_count(opened, image.shape[1]) >= MIN_STREAK_LINES:
            image = remove_streaks(image, opened)
            steps.append("streaks")
    if options.deskew:
        angle = skew_angle(image)
        if abs(angle) >= _MIN_SKEW_DEGREES:
            # At 300 dpi: straightening the page shrunk to 150 dpi saved ~11 ms a page but read the stamped
            # scan (+-3 degrees) at 97.97% body word recall, where this order reads it at 98.55%.
            image = _rotate(image, angle)
            steps.append(f"deskew {angle:+.1f}")
    if options.remove_stamps:
        before = image
        image = remove_stamps(image)
        if image is not before:
            steps.append("stamps")
    if options.reading_scale < 1.0:
        image = reading_size(image, options.reading_scale)
        steps.append(f"scale {options.reading_scale:g}")
    rotated = 0
    if options.quick_orientation:
        rotated = quick_orientation(image)
        if rotated:
            image = rotate_quarter(image, rotated)
            steps.append(f"turn {rotated}")
    if options.binarise:
        image = binarise(image)
        steps.append("binarise")
    return Prepared(image, tuple(steps), rotated)


def reading_size(image: np.ndarray, scale: float) -> np.ndarray:
    """The page shrunk by `scale` (area averaging) for Tesseract: see READING_SCALE."""
    if scale >= 1.0:
        return image
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------------------------
# Signals and fixes chosen by them
# --------------------------------------------------------------------------------------------

_EDGE_PROBE_SCALE = 0.25
_EDGE_DARKER_BY = 30
"""A margin column (or row) whose median grey is this much below the paper's is shadow."""
_EDGE_MAX_SHARE = 0.2
"""A band wider than this share of the page is no edge shadow (a dark page, a photo): left alone."""
_EDGE_SOLID_BELOW = 90
"""A shadow darker than this holds no readable text: painted with the paper's grey, not flattened."""


def dark_edge_bands(image: np.ndarray) -> dict[str, int]:
    """Width in pixels of the dark band along each side ("l", "r", "t", "b") that has one.

    A column's median grey is the paper's wherever text is (text covers well under half of any
    column), so a run of dark column medians from the border inwards is a photocopy edge shadow.
    """
    height, width = image.shape
    small = cv2.resize(image, None, fx=_EDGE_PROBE_SCALE, fy=_EDGE_PROBE_SCALE, interpolation=cv2.INTER_AREA)
    if min(small.shape) < 20:
        return {}
    paper = background_level(small)
    columns, rows = np.median(small, axis=0), np.median(small, axis=1)
    found: dict[str, int] = {}
    for side, profile, full in (("l", columns, width), ("r", columns[::-1], width), ("t", rows, height)):
        found[side] = _band(profile, paper, full)
    found["b"] = _band(rows[::-1], paper, height)
    return {side: band for side, band in found.items() if band}


def _band(profile: np.ndarray, paper: int, full: int) -> int:
    dark = profile < paper - _EDGE_DARKER_BY
    run = int(np.argmin(dark)) if not dark.all() else len(dark)
    if run < 2 or run > _EDGE_MAX_SHARE * len(profile):
        return 0
    return min(full, int(math.ceil((run + 1) / _EDGE_PROBE_SCALE)))


def mask_dark_edges(image: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Flatten the shadow bands of a photocopy's edges to the paper's grey; return the sides done.

    Each band is divided by its own background (the median of each column for a side band, of
    each row for a top or bottom band), which keeps any text printed inside the shadow; where the
    shadow is nearly black it is painted over.
    """
    bands = dark_edge_bands(image)
    if not bands:
        return image, []
    image = image.copy()
    paper = background_level(image)
    for side, band in bands.items():
        if side in "lr":
            region = image[:, :band] if side == "l" else image[:, -band:]
            background = np.median(region, axis=0, keepdims=True)
        else:
            region = image[:band] if side == "t" else image[-band:]
            background = np.median(region, axis=1, keepdims=True)
        flat = region.astype(np.float32) * (paper / np.maximum(background, 1.0))
        flat = np.where(background < _EDGE_SOLID_BELOW, paper, flat)
        region[...] = np.clip(flat, 0, 255).astype(np.uint8)
    return image, [side for side in "lrtb" if side in bands]


SPECKLE_PER_MPX = 80.0
"""Specks (dark blobs of at most _SPECK_AREA pixels) per megapixel from which a 3x3 median runs.
Clean scans measure 3-15, the faded copy 24-36, the stamped ones 39-64, the office scan and the
dark-edged copy 116-430, the 200 dpi decree ~1000. The median took body CER of the office scan from
8.3% to 2.1%; on the stamped sample scan of ../shared/docs (48-64) it cut CER too but lost a word
("compatível"), so the bar sits above that."""
_SPECK_AREA = 6
_SPECK_CONTRAST = 50


def speckle_density(image: np.ndarray) -> float:
    """Tiny dark connected components per megapixel: salt-and-pepper noise, not letters or dots.

    16-bit labels take 28 ms a page where 32-bit ones take 68 (the six scans), and their areas counted by a
    histogram of the labels 17 ms (the same counts: the other statistics are not needed); a page of more than
    65535 dark blobs overflows them and is counted again with 32-bit labels.
    """
    below = background_level(image) - _SPECK_CONTRAST  # dark: grey < below
    _, dark = cv2.threshold(image, below - 1, 1, cv2.THRESH_BINARY_INV)
    try:
        count, labels = cv2.connectedComponents(dark, connectivity=8, ltype=cv2.CV_16U)
        areas = cv2.calcHist([labels], [0], None, [count], [0, count]).ravel()  # one bin per label
    except cv2.error:
        count, labels = cv2.connectedComponents(dark, connectivity=8, ltype=cv2.CV_32S)
        areas = np.bincount(labels.ravel(), minlength=count)
    tiny = int(np.count_nonzero(areas[1:] <= _SPECK_AREA))
    return tiny / max(image.size / 1e6, 1e-6)


_STREAK_KERNEL = 61
"""Longer than any letter or word gap at 300 dpi: only rules and streaks survive a horizontal opening."""
_STREAK_EXCESS = 40
_STREAK_MIN_SHARE = 0.15
_STREAK_MAX_THICKNESS = 15
"""A dark horizontal band thicker than this (px at 300 dpi) is a bar or a shadow, not a scan line."""
MIN_STREAK_LINES = 15
"""Thin horizontal streaks across 15% of the page or more, counted as separate lines, from which a
page is treated as fax-like: the fax measures 21-145 a page, the other sample pages 0-7."""


def _horizontal_opening(image: np.ndarray) -> np.ndarray:
    """The inverted page opened with a long horizontal line: only rules and streaks are left (ink is bright)."""
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (_STREAK_KERNEL, 1))
    return cv2.morphologyEx(cv2.bitwise_not(image), cv2.MORPH_OPEN, kernel)


def streak_lines(image: np.ndarray) -> int:
    """How many thin long horizontal dark streaks (fax scan lines, rules) the page has."""
    return _streak_count(_horizontal_opening(image), image.shape[1])


def _streak_count(opened: np.ndarray, width: int) -> int:
    level = int(np.median(opened[::7, ::7]))  # the opened paper: its noise floor, not the paper's median
    rows = cv2.reduce((opened > level + _STREAK_EXCESS).view(np.uint8), 1, cv2.REDUCE_SUM, dtype=cv2.CV_32S)
    rows = rows.ravel() >= _STREAK_MIN_SHARE * width
    edges = np.flatnonzero(np.diff(np.concatenate(([0], rows.astype(np.int8), [0]))))
    thickness = edges[1::2] - edges[::2]
    return int(np.count_nonzero(thickness <= _STREAK_MAX_THICKNESS))


_STROKE_OVER_STREAK = 22
"""A pixel this many grey levels darker than the streak through it (the horizontal opening) is a letter's
stroke crossing the streak, and is left as it is. Fax body word recall by margin (bench/scans.py, the 7 pages):
none, every pixel lightened by the streak's darkness 94.5% (CER 4.2%); 10: 97.0% (6.0%); 18: 97.4% (3.2%);
22: 97.2% (2.7%); 25: 97.1% (2.5%); 30: 96.9% (2.9%); 40: 95.7% (3.7%). Lightening the strokes too took the
bottom of every letter sitting on a streak (fax streaks run along the baselines) and most of 6-8 pt print."""


def remove_streaks(image: np.ndarray, opened: np.ndarray | None = None) -> np.ndarray:
    """Subtract long horizontal dark structures down to the paper's grey, except where a letter crosses them.

    A fax page read 0% of its words with the streaks and 96% without (Tesseract's layout analysis takes
    struck lines for rules). Pixels of a streak go to the paper's grey; a stroke darker than the streak
    under it (_STROKE_OVER_STREAK) keeps its grey, so letters on a streak stay whole.
    """
    if opened is None:
        opened = _horizontal_opening(image)
    paper = 255 - background_level(image)
    excess = cv2.subtract(opened, paper)  # a scalar: saturating, like the arrays it replaces
    inverted = cv2.bitwise_not(image)
    cleaned = cv2.subtract(inverted, excess)
    stroke = cv2.compare(inverted, cv2.add(opened, _STROKE_OVER_STREAK), cv2.CMP_GT)
    cv2.copyTo(inverted, stroke, cleaned)
    return cv2.bitwise_not(cleaned)


_ORIENTATION_PROBE_SIDE = 1150
"""Longer side of the thumbnail orientation is judged on: ~100 dpi for A4, x-heights of 4-5 px."""
SIDEWAYS_RATIO = 1.0
"""Column-profile over row-profile sharpness above which the text runs vertically: upright pages of
the samples measure 0.02-0.33, the turned ones 2.3-16."""
UPSIDE_DOWN_BELOW = 0.6
"""Ink above the x-height band over ink below it, below which the page is upside down: Latin letters
(and Portuguese accents) rise more than they descend; upright pages measure 1.1-11, upside-down
ones 0.24-0.45. Between the two bars nothing is turned and the OSD fallback decides."""


def _ink_thumbnail(image: np.ndarray) -> np.ndarray:
    scale = min(1.0, _ORIENTATION_PROBE_SIDE / max(image.shape))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
    _, dark = cv2.threshold(small, 0, 1, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    return dark


def _profile_sharpness(profile: np.ndarray) -> float:
    return float(np.square(np.diff(profile.astype(np.float64))).sum())


def sideways_ratio(dark: np.ndarray) -> float:
    """How much sharper the column profile is than the row profile (> 1: the lines run vertically)."""
    return _profile_sharpness(dark.sum(axis=0)) / max(_profile_sharpness(dark.sum(axis=1)), 1e-9)


def ascender_ratio(dark: np.ndarray) -> float:
    """Ink above each text line's x-height band over ink below it, over all lines (1.0: cannot tell)."""
    rows = dark.sum(axis=1).astype(np.float64)
    inked = rows > 0.02 * dark.shape[1]
    upper = lower = 0.0
    edges = np.flatnonzero(np.diff(np.concatenate(([0], inked.astype(np.int8), [0]))))
    for start, end in zip(edges[::2], edges[1::2], strict=True):
        line = rows[start:end]
        if not 4 <= end - start <= 80:
            continue
        band = np.flatnonzero(line >= 0.5 * line.max())
        upper += float(line[: band[0]].sum())
        lower += float(line[band[-1] + 1 :].sum())
    if upper + lower <= 0:
        return 1.0
    return upper / max(lower, 1e-9)


def quick_orientation(image: np.ndarray) -> int:
    """Degrees to turn the page clockwise (0, 90, 180, 270) from its projection profiles; 0 if unsure.

    Costs a few milliseconds where Tesseract's OSD costs 0.6-2 s; pages it leaves alone still get
    the OSD check when their first reading is poor (ocr.py).
    """
    dark = _ink_thumbnail(image)
    if dark.sum() < 200:
        return 0
    turn = 0
    if sideways_ratio(dark) > SIDEWAYS_RATIO:
        turn, dark = 90, rotate_quarter(dark, 90)
    ratio = ascender_ratio(dark)
    if ratio < UPSIDE_DOWN_BELOW:
        turn = (turn + 180) % 360
    return turn


def background_level(image: np.ndarray) -> int:
    """The paper's grey level: the median of a sparse sample (text covers well under half a page)."""
    return int(np.median(image[::7, ::7])) if image.size else 255


def rotate_quarter(image: np.ndarray, degrees: int) -> np.ndarray:
    """Rotate clockwise by a multiple of 90 degrees (what OSD's "rotate" asks for), losslessly."""
    turns = (degrees // 90) % 4
    return np.ascontiguousarray(np.rot90(image, -turns)) if turns else image


def skew_angle(image: np.ndarray, max_degrees: float = MAX_SKEW_DEGREES) -> float:
    """The page's skew in degrees (counter-clockwise positive), from horizontal projection profiles.

    Text lines make the row histogram of dark pixels peaky when the page is straight; the angle
    that maximises the squared row-to-row differences is the skew. Measured on a thumbnail by
    rotating the dark pixels' coordinates, not the image, so it takes a few milliseconds.
    """
    height, width = image.shape
    # A whole factor: OpenCV averages k x k blocks then (3.5 ms a 300 dpi page), where 800 / width took 12 ms.
    factor = max(1, width // _SKEW_PROBE_WIDTH)
    small = cv2.resize(image, None, fx=1 / factor, fy=1 / factor, interpolation=cv2.INTER_AREA) if factor > 1 else image
    _, dark = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    ys, xs = np.nonzero(dark)
    if len(xs) < 200 or len(xs) > 0.5 * dark.size:
        return 0.0
    xs = xs.astype(np.float32) - small.shape[1] / 2
    ys = ys.astype(np.float32)

    def sharpness(angle: float) -> float:
        theta = math.radians(angle)
        rows = ys * math.cos(theta) - xs * math.sin(theta)
        histogram = np.bincount((rows - rows.min()).astype(np.int32)).astype(np.float64)
        return float(np.square(np.diff(histogram)).sum())

    coarse = max(np.arange(-max_degrees, max_degrees + 1e-6, 0.5), key=sharpness)
    fine = max(np.arange(coarse - 0.5, coarse + 0.5 + 1e-6, 0.05), key=sharpness)
    # Skewed scans gain 1.5-40x over the unrotated profile; a page with no clear lines (a photo, a
    # form) gains little, and is better left alone than turned by a guess.
    if sharpness(float(fine)) < _MIN_SKEW_GAIN * sharpness(0.0):
        return 0.0
    return float(fine)


def deskew(image: np.ndarray) -> np.ndarray:
    """Straighten the page; the canvas grows so that no corner of the text is cut off."""
    angle = skew_angle(image)
    if abs(angle) < _MIN_SKEW_DEGREES:
        return image
    return _rotate(image, angle)


def _rotate(image: np.ndarray, angle: float) -> np.ndarray:
    height, width = image.shape
    theta = math.radians(angle)
    new_width = int(math.ceil(width * abs(math.cos(theta)) + height * abs(math.sin(theta))))
    new_height = int(math.ceil(height * abs(math.cos(theta)) + width * abs(math.sin(theta))))
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    matrix[0, 2] += (new_width - width) / 2
    matrix[1, 2] += (new_height - height) / 2
    return cv2.warpAffine(
        image,
        matrix,
        (new_width, new_height),
        flags=cv2.INTER_LINEAR,  # at 300 dpi as good as cubic for OCR, and 5x faster (10 vs 50 ms)
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=background_level(image),
    )


_STAMP_PROBE_SCALE = 0.25
"""Circles are looked for at a quarter of the resolution (~75 dpi): stamps are big, text is not."""


_STAMP_RADIUS_PX = (90, 300)
"""Stamp radii at 300 dpi: rings 15-50 mm across (office stamps are 30-45 mm). Larger round shapes
are letterhead emblems and watermarks (the STJ "SJ" watermark curves measure 270-380 px)."""


def find_stamps(image: np.ndarray) -> list[tuple[float, float, float]]:
    """Round stamps as (x, y, radius) in pixels of a ~300 dpi page image.

    HOUGH_GRADIENT_ALT with a high "perfectness" threshold finds drawn circles and ignores the
    countless arcs of letters (the plain Hough gradient finds dozens of false circles in text).
    """
    scale = _STAMP_PROBE_SCALE
    if min(image.shape) < 2 * _STAMP_RADIUS_PX[0]:  # too small a page to hold a stamp
        return []
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    smallest, largest = (int(radius * scale) for radius in _STAMP_RADIUS_PX)
    circles = cv2.HoughCircles(
        small,
        cv2.HOUGH_GRADIENT_ALT,
        dp=1.5,
        minDist=2 * smallest,
        param1=300,
        param2=0.85,
        minRadius=smallest,
        maxRadius=largest,
    )
    if circles is None:
        return []
    return [(float(x) / scale, float(y) / scale, float(r) / scale) for x, y, r in circles[0]]


def remove_stamps(image: np.ndarray) -> np.ndarray:
    """Paint the ring of each round stamp with the paper's grey, so layout analysis sees the text.

    Only the ring goes (its radius and width measured from the dark-pixel profile around the
    circle found); letters it crosses lose a sliver, which the LSTM reads through. A circle whose
    outline is not mostly dark is no stamp and is left alone.
    """
    stamps = find_stamps(image)
    if not stamps:
        return image
    image = image.copy()
    height, width = image.shape
    for cx, cy, radius in stamps:
        margin = int(radius + 40)
        x0, x1 = max(0, int(cx) - margin), min(width, int(cx) + margin)
        y0, y1 = max(0, int(cy) - margin), min(height, int(cy) + margin)
        region = image[y0:y1, x0:x1]
        yy, xx = np.ogrid[y0:y1, x0:x1]
        distance = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2).astype(np.int32)
        paper = int(np.median(region))
        dark = region < paper - 40
        inked = np.bincount(distance.ravel(), weights=dark.ravel())
        total = np.maximum(np.bincount(distance.ravel()), 1)
        low, high = int(radius) - 30, int(radius) + 31
        profile = inked[low:high] / total[low:high]
        if profile.size == 0 or profile.max() < 0.5:
            continue
        ring = np.nonzero(profile >= 0.5 * profile.max())[0]
        inner, outer = low + int(ring.min()) - 6, low + int(ring.max()) + 7
        region[(distance >= inner) & (distance <= outer) & (region < paper - 20)] = paper
    return image


def denoise(image: np.ndarray) -> np.ndarray:
    """3x3 median: removes salt-and-pepper speckle. Off by default (see the module docstring)."""
    return cv2.medianBlur(image, 3)


def binarise(image: np.ndarray) -> np.ndarray:
    """Adaptive (local Gaussian) threshold. Off by default: it costs Tesseract 5 accuracy."""
    return cv2.adaptiveThreshold(image, 255, cv2.ADAPTIVE_THRESH_GAUSSIAN_C, cv2.THRESH_BINARY, 31, 15)
