"""Stock photos turned into publishable JPEGs: the preset's aspect ratio, a detail-seeking crop."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass

from PIL import Image, ImageCms, ImageFilter, ImageOps

from core.stock.fetch import IMAGE_FORMATS, ImageRefused, fetch_image, is_allowed_url, sniff_image_format

__all__ = [
    "PRESETS",
    "TARGET_BOX",
    "Cropped",
    "ImageRefused",
    "crop_to_preset",
    "fetch_image",
    "is_allowed_url",
    "sniff_image_format",
]

# Width:height of each preset (docs/stock.md, "Sourcing").
PRESETS: dict[str, tuple[int, int]] = {"square": (1, 1), "portrait": (4, 5), "landscape": (191, 100), "story": (9, 16)}
# The largest pixel box any destination a preset reaches shows, which is what Herald asks a
# provider for and scales down to: square and portrait at the photo-sharing feed's 1080 width
# (1080x1350 is its tallest feed post), landscape at the 1200 width the professional network
# and the microblogging platform show link-sized photos at (1200x629, not 628: 1200/628 is just
# over the feed's 1.91:1 bound), story at 1080x1920.
TARGET_BOX: dict[str, tuple[int, int]] = {
    "square": (1080, 1080),
    "portrait": (1080, 1350),
    "landscape": (1200, 629),
    "story": (1080, 1920),
}
JPEG_QUALITY = 88
# The detail map is computed on a copy whose long side is about this many pixels.
ANALYSIS_SIDE = 256
# How much a window's distance from its anchor (a fraction of the slack axis) costs against
# the share of the image's detail it holds: enough to centre a photo with even detail, far too
# little to cut off the one object in a plain frame.
CENTRE_BIAS = 0.5
# Where the window's centre is drawn to along each axis: the middle across, a little above the
# middle down (subjects of a tall photo sit high; skies and floors are cut first).
HORIZONTAL_ANCHOR = 0.5
VERTICAL_ANCHOR = 0.4
# Mean edge strength (0-255 scale) below which a frame counts as featureless: noise would pick
# the window, so the anchors do.
FEATURELESS = 0.5
# EXIF orientation -> the transpose that shows the image upright (EXIF 2.32, tag 0x0112).
_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
_ORIENTATION_TAG = 0x0112
_WHITE = (255, 255, 255)

Box = tuple[float, float, float, float]


@dataclass(frozen=True, slots=True)
class Cropped:
    """A cropped photo ready to store: baseline-compatible progressive JPEG, RGB, sRGB, upright,
    no metadata."""

    data: bytes
    width: int
    height: int
    mime_type: str = "image/jpeg"


def crop_to_preset(
    data: bytes, preset: str, *, box: tuple[int, int] | None = None, max_pixels: int | None = None
) -> Cropped:
    """Crops a JPEG, PNG or WebP to the preset's aspect ratio and scales it down to fit `box`
    (TARGET_BOX[preset] by default). CPU-bound and blocking: callers run it in a thread
    (`asyncio.to_thread`).

    - Size: the largest W x H with W:H equal to the preset's ratio within one pixel
      (|W*b - H*a| <= max(a, b)) that fits both `box` and the upright source: never upscaled.
      The rounding always goes toward square, so landscape never passes 1.91:1 and portrait
      never gets taller than 4:5 (the photo-sharing feed's bounds).
    - Window: the largest window of that ratio slides along the source's long axis to where
      the most detail is (edge strength on a ~256-pixel grayscale copy), with a slight pull
      toward the centre (across) or just above it (down); a featureless frame is centred.
    - Cost: a JPEG is decoded reduced (`Image.draft`, 1/2 to 1/8 scale) to no fewer pixels
      than the window needs at the output size; the window is resampled straight from the
      decoded image (bicubic: at the 1-2x reductions sized renditions need it looks like Lanczos
      at 80% of the time; larger reductions go through `reduce` first), and only the output is
      rotated. A source already the output's size is not resampled at all.
    - Output: EXIF orientation applied, then every metadata stripped; transparency flattened
      onto white; an embedded ICC profile other than sRGB converted to sRGB, the result
      untagged (what browsers and platforms assume); JPEG quality 88, progressive, optimized.

    Raises ImageRefused(NOT_AN_IMAGE) for anything Pillow cannot decode as a JPEG, PNG or WebP,
    and for images over `max_pixels` (Image.MAX_IMAGE_PIXELS by default: decompression bombs).
    ValueError for an unknown preset or an empty box.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; valid presets: {', '.join(PRESETS)}")
    box_w, box_h = box or TARGET_BOX[preset]
    if box_w < 1 or box_h < 1:
        raise ValueError(f"the box must be at least 1x1, not {box_w}x{box_h}")
    ratio = PRESETS[preset]
    limit = Image.MAX_IMAGE_PIXELS if max_pixels is None else max_pixels
    try:
        with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS) as image:
            return _crop(image, ratio, (box_w, box_h), limit)
    except ImageRefused:
        raise
    except Image.DecompressionBombError as error:
        raise ImageRefused("NOT_AN_IMAGE", f"the image is too large to decode ({error})") from error
    except Exception as error:  # Pillow raises many kinds on hostile or truncated bytes
        raise ImageRefused("NOT_AN_IMAGE", "the bytes cannot be decoded as a JPEG, PNG or WebP image") from error


def output_size(source: tuple[int, int], ratio: tuple[int, int], box: tuple[int, int]) -> tuple[int, int]:
    """The largest W x H of `ratio` (within one pixel, rounded toward square) that fits both
    the upright `source` and `box`."""
    a, b = ratio
    limit_w, limit_h = min(source[0], box[0]), min(source[1], box[1])
    if limit_w * b <= limit_h * a:  # the width binds; the height follows from it
        width = limit_w
        height = -(-width * b // a) if a > b else width * b // a
    else:
        height = limit_h
        width = height * a // b if a > b else -(-height * a // b)
    # Ceiling rounding of a value that fits an integer bound still fits it.
    return max(1, width), max(1, height)


def _crop(image: Image.Image, ratio: tuple[int, int], box: tuple[int, int], limit: int | None) -> Cropped:
    stored_w, stored_h = image.size
    if limit is not None and stored_w * stored_h > limit:
        raise ImageRefused("NOT_AN_IMAGE", f"the image has {stored_w * stored_h} pixels, over the {limit} limit")
    orientation = image.getexif().get(_ORIENTATION_TAG, 1)
    turn = _UPRIGHT.get(orientation) if isinstance(orientation, int) else None
    swapped = turn in (
        Image.Transpose.TRANSPOSE,
        Image.Transpose.ROTATE_270,
        Image.Transpose.TRANSVERSE,
        Image.Transpose.ROTATE_90,
    )
    upright = (stored_h, stored_w) if swapped else (stored_w, stored_h)
    width, height = output_size(upright, ratio, box)
    # The window, as a fraction of the upright image: full along one axis, sliding along the other.
    horizontal = upright[0] * height >= upright[1] * width
    span = (upright[1] * width / height) / upright[0] if horizontal else (upright[0] * height / width) / upright[1]

    # Decode no fewer pixels than the window needs at the output size (JPEG only; others ignore it).
    needed = (math.ceil(width / span), height) if horizontal else (width, math.ceil(height / span))
    needed_stored = (needed[1], needed[0]) if swapped else needed
    drafted = image.draft("RGB", (max(1, needed_stored[0]), max(1, needed_stored[1])))
    icc = image.info.get("icc_profile")
    decoded = _flatten(image)
    scale_w, scale_h = (drafted[1][2], drafted[1][3]) if drafted else (float(stored_w), float(stored_h))

    start = _best_start(decoded, turn, horizontal, span)
    window: Box = (start, 0.0, start + span, 1.0) if horizontal else (0.0, start, 1.0, start + span)
    x0, y0, x1, y1 = _to_stored(window, turn)
    size = (height, width) if swapped else (width, height)
    pixels = decoded.resize(
        size,
        Image.Resampling.BICUBIC,
        box=(x0 * scale_w, y0 * scale_h, min(x1 * scale_w, decoded.width), min(y1 * scale_h, decoded.height)),
        reducing_gap=2.0,
    )
    if turn is not None:
        pixels = pixels.transpose(turn)
    rgb = _to_srgb(pixels, icc)
    out = io.BytesIO()
    rgb.save(out, "JPEG", quality=JPEG_QUALITY, progressive=True, optimize=True)
    return Cropped(data=out.getvalue(), width=rgb.width, height=rgb.height)


def _flatten(image: Image.Image) -> Image.Image:
    """The decoded pixels in a mode that resizes cleanly: RGB, L or CMYK (colour-managed later);
    transparency composited onto white, 16-bit and float samples scaled to 8 bits."""
    image.load()
    mode = image.mode
    if mode in ("RGB", "L", "CMYK"):
        return image
    if mode in ("RGBA", "LA", "PA", "RGBa", "La") or (mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, _WHITE)
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    if mode.startswith("I;16") or mode == "I":
        # 16-bit PNG samples (0-65535) to 8 bits; `point` on mode I takes a linear map only.
        return image.convert("I").point(lambda v: v * (1 / 257)).convert("L")
    if mode in ("1", "F"):
        return image.convert("L")
    return image.convert("RGB")


def _best_start(decoded: Image.Image, turn: Image.Transpose | None, horizontal: bool, span: float) -> float:
    """Where the window starts along its free axis (a fraction of it): the most edge energy,
    less CENTRE_BIAS times its centre's distance from the anchor."""
    slack = 1.0 - span
    anchor = HORIZONTAL_ANCHOR if horizontal else VERTICAL_ANCHOR
    centred = min(max(anchor - span / 2, 0.0), slack)
    if slack <= 1e-9:
        return 0.0
    factor = max(1, max(decoded.size) // ANALYSIS_SIDE)
    small = (decoded.reduce(factor) if factor > 1 else decoded).convert("L")
    if turn is not None:
        small = small.transpose(turn)
    if small.width < 3 or small.height < 3:
        return centred
    # FIND_EDGES leaves a frame's border pixels unfiltered: zero them, or borders would count as detail.
    edges = ImageOps.expand(ImageOps.crop(small.filter(ImageFilter.FIND_EDGES), 1), 1, fill=0).convert("F")
    length = edges.width if horizontal else edges.height
    profile = edges.resize((length, 1) if horizontal else (1, length), Image.Resampling.BOX)
    energy = [float(v) for v in profile.get_flattened_data()]
    total = sum(energy)
    if total / length < FEATURELESS:
        return centred
    prefix = [0.0]
    for value in energy:
        prefix.append(prefix[-1] + value)

    def held(start: float) -> float:  # the energy between start and start + span (fractions)
        return _interpolate(prefix, (start + span) * length) - _interpolate(prefix, start * length)

    steps = max(1, min(4 * length, 512))
    candidates = [slack * i / steps for i in range(steps + 1)]
    return max(candidates, key=lambda s: held(s) / total - CENTRE_BIAS * abs(s + span / 2 - anchor))


def _interpolate(prefix: list[float], position: float) -> float:
    position = min(max(position, 0.0), len(prefix) - 1.0)
    index = min(int(position), len(prefix) - 2)
    return prefix[index] + (prefix[index + 1] - prefix[index]) * (position - index)


def _to_stored(window: Box, turn: Image.Transpose | None) -> Box:
    """A window given as fractions of the upright image, as fractions of the stored one."""

    def stored(u: float, v: float) -> tuple[float, float]:  # the inverse of each `turn`
        match turn:
            case Image.Transpose.FLIP_LEFT_RIGHT:
                return 1 - u, v
            case Image.Transpose.ROTATE_180:
                return 1 - u, 1 - v
            case Image.Transpose.FLIP_TOP_BOTTOM:
                return u, 1 - v
            case Image.Transpose.TRANSPOSE:
                return v, u
            case Image.Transpose.ROTATE_270:
                return v, 1 - u
            case Image.Transpose.TRANSVERSE:
                return 1 - v, 1 - u
            case Image.Transpose.ROTATE_90:
                return 1 - v, u
            case _:
                return u, v

    (ax, ay), (bx, by) = stored(window[0], window[1]), stored(window[2], window[3])
    return min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)


def _to_srgb(image: Image.Image, icc: bytes | None) -> Image.Image:
    """RGB pixels in sRGB: converted through the embedded profile unless it is sRGB already; a
    profile LittleCMS cannot use is ignored (the plain conversion is the best left)."""
    if icc:
        try:
            profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            if "srgb" not in ImageCms.getProfileDescription(profile).lower():
                converted = ImageCms.profileToProfile(image, profile, ImageCms.createProfile("sRGB"), outputMode="RGB")
                if converted is not None:
                    return converted
        except (ImageCms.PyCMSError, OSError, ValueError, TypeError):
            pass
    return image if image.mode == "RGB" else image.convert("RGB")
