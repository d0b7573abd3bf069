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
  6.8% / 30%), median denoising (0.70% / 0.67%, and one word of the easy scan lost); Otsu
  binarisation lost words on the hard scan in earlier trials. Both stay here for the ablation.

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

MAX_SKEW_DEGREES = 5.0
"""Scanner skew beyond this is rare; a wider search costs time and finds false angles in tables."""

_SKEW_PROBE_WIDTH = 800
"""Width of the thumbnail the skew is measured on: ~100 dpi for A4 is plenty for line profiles."""

_MIN_SKEW_DEGREES = 0.1
"""Below this, rotating costs an interpolation pass and gains nothing."""

_MIN_SKEW_GAIN = 1.1
"""How much sharper the best angle's line profile must be than the unrotated one to trust it."""


@dataclass(frozen=True)
class PreprocessOptions:
    """Which steps run. The defaults are the steps that helped on the sample scans."""

    native_pixels: bool = True
    deskew: bool = True
    remove_stamps: bool = True
    denoise: bool = False
    binarise: bool = False
    orientation: bool = True

    @classmethod
    def off(cls) -> PreprocessOptions:
        """Plain Tesseract on MuPDF's render: the baseline the bench compares against."""
        return cls(native_pixels=False, deskew=False, remove_stamps=False, orientation=False)


# --------------------------------------------------------------------------------------------
# Getting the pixels (MuPDF: call from one thread only)
# --------------------------------------------------------------------------------------------


def page_image(page: pymupdf.Page, dpi: int, *, native: bool = True, max_pixels: int = MAX_PAGE_PIXELS) -> np.ndarray:
    """Greyscale pixels of a page at about `dpi`, never more than max_pixels.

    A page that is just one upright scanned image (no visible text or drawings on top) gives that
    image at its own resolution, upscaled with bicubic interpolation: sharper than MuPDF's render.
    Any other page is rendered.
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
            return image
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    return _pixmap_array(pix)


def capped_dpi(width_in: float, height_in: float, dpi: int, max_pixels: int = MAX_PAGE_PIXELS) -> int:
    """The resolution at which a page of that size stays within max_pixels (very large sheets)."""
    area = max(width_in * height_in, 1e-6)
    if area * dpi * dpi <= max_pixels:
        return dpi
    return max(1, int(math.sqrt(max_pixels / area)))


def _native_scan(page: pymupdf.Page, max_pixels: int) -> np.ndarray | None:
    """The page's only image, if the page is nothing else: upright, covering the page, no visible text."""
    if page.rotation or page.get_drawings():
        return None
    if any(span["type"] != 3 for span in page.get_texttrace()):  # type 3: invisible text (an OCR layer)
        return None
    infos = page.get_image_info(xrefs=True)
    if len(infos) != 1 or not infos[0].get("xref"):
        return None
    info = infos[0]
    a, b, c, d, _, _ = info["transform"]
    if abs(b) > 1e-3 or abs(c) > 1e-3 or a <= 0 or d <= 0:
        return None  # rotated or mirrored placement: let MuPDF render it
    bbox = pymupdf.Rect(info["bbox"]) & page.rect
    if bbox.is_empty or bbox.get_area() < 0.9 * page.rect.get_area():
        return None
    if info["width"] * info["height"] > 4 * max_pixels:
        return None
    try:
        pix = pymupdf.Pixmap(page.parent, info["xref"])
        if pix.alpha or pix.n != 1:
            pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.Pixmap(pix, 0) if pix.alpha else pix)
        image = _pixmap_array(pix)
        # The image's own pixels must look like the page: a stencil mask, a colour key or an odd
        # decode array would give something else, and MuPDF's render knows how to paint those.
        probe = _pixmap_array(page.get_pixmap(dpi=_NATIVE_PROBE_DPI, colorspace=pymupdf.csGRAY, alpha=False))
    except Exception:  # exotic colour spaces or filters: MuPDF's render handles them
        return None
    shrunk = cv2.resize(image, (probe.shape[1], probe.shape[0]), interpolation=cv2.INTER_AREA)
    if float(np.abs(shrunk.astype(np.int16) - probe.astype(np.int16)).mean()) > _NATIVE_MAX_DIFFERENCE:
        return None
    return image


_NATIVE_PROBE_DPI = 36
_NATIVE_MAX_DIFFERENCE = 25.0
"""Mean grey-level difference between the image and a thumbnail render above which they differ
(same image: ~3.5, resampling; inverted: ~200)."""


def _pixmap_array(pix: pymupdf.Pixmap) -> np.ndarray:
    array = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.stride)[:, : pix.width]
    return np.ascontiguousarray(array)


# --------------------------------------------------------------------------------------------
# Fixes (pure numpy/OpenCV, thread-safe)
# --------------------------------------------------------------------------------------------


def prepare(image: np.ndarray, options: PreprocessOptions) -> np.ndarray:
    """The enabled fixes, in the order that works: denoise, deskew, stamps, binarise."""
    if options.denoise:
        image = denoise(image)
    if options.deskew:
        image = deskew(image)
    if options.remove_stamps:
        image = remove_stamps(image)
    if options.binarise:
        image = binarise(image)
    return image


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
    scale = min(1.0, _SKEW_PROBE_WIDTH / max(width, 1))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else image
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
