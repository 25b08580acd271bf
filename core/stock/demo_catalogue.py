"""The demo stock provider's catalogue: 26 photos drawn with Pillow, and their renditions."""

from __future__ import annotations

import math
import os
import random
import re
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFilter

# Bump when the drawing changes: files drawn by another version are not reused.
VERSION = 1
MAX_SIDE = 8192  # the largest rendition side the demo CDN makes
_BAND = 512  # rows drawn at a time
_FORMATS = {
    "jpg": ("JPEG", "jpg"),
    "jpeg": ("JPEG", "jpg"),
    "pjpg": ("JPEG", "jpg"),
    "png": ("PNG", "png"),
    "webp": ("WEBP", "webp"),
}
MIME_TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp"}
_PALETTES = {  # by first tag: two gradient ends and an accent
    "coffee": ((59, 36, 22), (196, 154, 108), (240, 230, 214)),
    "mountain": ((28, 52, 94), (214, 228, 240), (120, 130, 140)),
    "office": ((200, 205, 210), (90, 100, 115), (40, 120, 200)),
    "city": ((12, 18, 40), (90, 80, 120), (250, 200, 80)),
    "beach": ((0, 150, 180), (240, 220, 170), (255, 255, 255)),
    "forest": ((30, 70, 30), (200, 120, 40), (90, 60, 30)),
    "plant": ((20, 90, 40), (150, 210, 110), (230, 250, 220)),
    "food": ((240, 236, 225), (120, 170, 60), (200, 40, 60)),
    "pet": ((120, 160, 80), (220, 180, 110), (70, 50, 30)),
    "desert": ((240, 120, 50), (250, 210, 140), (120, 60, 30)),
    "books": ((90, 50, 30), (200, 170, 120), (150, 30, 30)),
    "camera": ((40, 40, 40), (170, 160, 150), (200, 60, 40)),
    "tea": ((70, 110, 50), (225, 215, 170), (160, 90, 40)),
}
# (width, height, title = alt text, tags; the first tag picks the palette)
_ENTRIES: tuple[tuple[int, int, str, tuple[str, ...]], ...] = (
    (6000, 4000, "A cup of black coffee on a wooden table", ("coffee", "cafe", "drink", "morning", "table")),
    (3000, 4500, "Latte art in a white cup seen from above", ("coffee", "latte", "cafe", "drink")),
    (4000, 4000, "Barista pouring espresso into a glass", ("coffee", "espresso", "barista", "cafe")),
    (6000, 4000, "Snowy mountain peak at sunrise", ("mountain", "snow", "sunrise", "nature", "landscape")),
    (5472, 3648, "Mountain lake surrounded by pine forest", ("mountain", "lake", "forest", "nature")),
    (3648, 5472, "Hiker standing on a mountain ridge", ("mountain", "hiking", "adventure", "nature")),
    (1920, 1080, "Open-plan office with rows of desks", ("office", "work", "desk", "business")),
    (4000, 4000, "Laptop and notebook on an office desk", ("office", "laptop", "desk", "work")),
    (5000, 3333, "Team meeting in a glass-walled office", ("office", "meeting", "team", "business")),
    (6000, 3375, "City skyline at night", ("city", "skyline", "night", "urban")),
    (4000, 6000, "Busy city street with yellow taxis", ("city", "street", "traffic", "urban")),
    (3000, 3000, "Aerial view of city blocks", ("city", "aerial", "architecture", "urban")),
    (6016, 4016, "Sandy beach with turquoise water", ("beach", "sea", "summer", "travel")),
    (2400, 3600, "Palm trees against a blue sky", ("beach", "palm", "summer", "tropical")),
    (5184, 3456, "Path through an autumn forest", ("forest", "autumn", "nature", "path")),
    (3024, 3024, "Close-up of green fern leaves", ("plant", "leaf", "green", "nature")),
    (4000, 2667, "Bowl of fresh green salad", ("food", "salad", "healthy", "lunch")),
    (2848, 4272, "Stack of pancakes with berries", ("food", "breakfast", "pancakes", "berries")),
    (5000, 3333, "Golden retriever running in a park", ("pet", "dog", "animal", "park")),
    (1080, 1350, "Cat asleep on a grey sofa", ("pet", "cat", "animal", "home")),
    (7000, 3000, "Desert dunes at sunset", ("desert", "sand", "sunset", "landscape")),
    (1080, 1920, "Rain on a window with city lights behind", ("city", "rain", "window", "night")),
    (3456, 5184, "Shelves of books in a quiet library", ("books", "library", "reading")),
    (800, 533, "Vintage camera on a wooden shelf", ("camera", "vintage", "photography")),
    # Appended, so the photos above keep their numbers, ids and drawings.
    (6000, 4000, "A pot of green tea with two cups", ("tea", "drink", "cup", "morning", "table")),
    (3000, 4500, "Hands around a mug of tea by a window", ("tea", "drink", "mug", "cosy", "home")),
)
_PHOTOGRAPHERS = (
    "Ana Ruiz", "Ben Okafor", "Chloe Martin", "Dev Patel", "Elif Yilmaz", "Finn Larsen", "Grace Liu",
    "Hugo Silva", "Ines Duarte", "Jonas Berg", "Kemi Adeyemi", "Lea Fischer",
)  # fmt: skip
_ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"


@dataclass(frozen=True, slots=True)
class DemoPhoto:
    """One catalogue photo. It has a Pexels id and an Unsplash id (the demo server speaks both
    APIs over the same pictures), a title that is its alt text, tags searches match (the
    catalogue answers "coffee", "mountain", "office", "city" and more), and a photographer."""

    number: int
    width: int
    height: int
    title: str
    tags: tuple[str, ...]
    photographer: str
    username: str
    pexels_id: int
    unsplash_id: str
    unsplash_slug: str  # the image's name on the demo's Unsplash image host: photo-<ms>-<hex>
    color: str  # "#rrggbb", the photo's average colour as the APIs report it

    @property
    def orientation(self) -> str:
        ratio = self.width / self.height
        return "square" if 0.9 <= ratio <= 1.1 else "landscape" if ratio > 1 else "portrait"

    @property
    def words(self) -> frozenset[str]:
        """Its tags and the words of its title: what a search matches."""
        return frozenset(self.tags) | frozenset(re.findall(r"[a-z0-9]+", self.title.lower()))

    def score(self, words: list[str]) -> int:
        """How many of the query's words this photo matches (tags and title; plurals too)."""
        own = self.words
        return sum(1 for word in words if word in own or word.rstrip("s") in own or f"{word}s" in own)

    def closeness(self, words: list[str], related: frozenset[str]) -> tuple[int, float]:
        """How close a photo the query's words do not match comes: first the tags it shares
        with the photos they match in any orientation (`related`: "tea" matches a landscape
        tea photo tagged `drink`, so a square photo tagged `drink` is close), then how much
        its words look like the query's (shared three-letter runs)."""
        return len(related & set(self.tags)), max((_alike(w, own) for w in words for own in self.words), default=0.0)


def _trigrams(word: str) -> set[str]:
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def _alike(a: str, b: str) -> float:
    """The share of three-letter runs two words have in common (0 to 1)."""
    x, y = _trigrams(a), _trigrams(b)
    return len(x & y) / len(x | y)


def _build() -> tuple[DemoPhoto, ...]:
    photos = []
    for number, (width, height, title, tags) in enumerate(_ENTRIES, start=1):
        rng = random.Random(f"herald-stock-demo-{number}")
        name = _PHOTOGRAPHERS[(number * 5) % len(_PHOTOGRAPHERS)]
        # A letter first: an Unsplash id is never all digits, so it never reads as a Pexels id.
        unsplash_id = rng.choice(_ID_ALPHABET[:52]) + "".join(rng.choice(_ID_ALPHABET) for _ in range(10))
        ends = _PALETTES[tags[0]]
        photos.append(
            DemoPhoto(
                number=number,
                width=width,
                height=height,
                title=title,
                tags=tags,
                photographer=name,
                username=name.lower().replace(" ", "_"),
                pexels_id=1_000_000 + number * 37_591,
                unsplash_id=unsplash_id,
                unsplash_slug=f"photo-{1_600_000_000_000 + number * 86_400_000}-{rng.getrandbits(48):012x}",
                color="#" + "".join(f"{(a + b) // 2:02x}" for a, b in zip(ends[0], ends[1], strict=True)),
            )
        )
    return tuple(photos)


CATALOGUE: tuple[DemoPhoto, ...] = _build()
BY_PEXELS_ID = {str(p.pexels_id): p for p in CATALOGUE}
BY_UNSPLASH_ID = {p.unsplash_id: p for p in CATALOGUE}
BY_UNSPLASH_SLUG = {p.unsplash_slug: p for p in CATALOGUE}


@dataclass(frozen=True, slots=True)
class Sizing:
    """What an image CDN request asks for, in the imgix terms both providers' CDNs use: `w`/`h`
    (times `dpr`), `fit=crop` to fill the box exactly (else the image fits inside it, never
    enlarged), `crop=entropy` (or `edges`) to keep the busiest part, else the centre, `fm`, `q`."""

    width: int | None
    height: int | None
    crop: bool
    entropy: bool
    extension: str  # jpg, png or webp
    quality: int

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> Sizing:
        """Raises ValueError for values the demo CDN does not take."""
        dpr = _number(query.get("dpr"), 1, 5) or 1
        width, height = _number(query.get("w"), 1, MAX_SIDE), _number(query.get("h"), 1, MAX_SIDE)
        width = None if width is None else min(MAX_SIDE, width * dpr)
        height = None if height is None else min(MAX_SIDE, height * dpr)
        extension = _FORMATS.get(query.get("fm", "jpg").lower(), ("JPEG", "jpg"))[1]
        crop_modes = set(query.get("crop", "").lower().split(","))
        return cls(
            width=width,
            height=height,
            crop=query.get("fit", "").lower() == "crop" and width is not None and height is not None,
            entropy=bool(crop_modes & {"entropy", "edges"}),
            extension=extension,
            quality=_number(query.get("q"), 1, 100) or 75,
        )

    @property
    def is_original(self) -> bool:
        return self.width is None and self.height is None and self.extension == "jpg"

    def name(self, photo: DemoPhoto) -> str:
        mode = ("crop-entropy" if self.entropy else "crop") if self.crop else "fit"
        return f"{photo.number:02d}-{self.width or 0}x{self.height or 0}-{mode}-q{self.quality}.{self.extension}"


def _number(value: str | None, low: int, high: int) -> int | None:
    if value is None or value == "":
        return None
    number = float(value)  # ValueError for text; imgix takes "2.0" as well as "2"
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{value!r} is not between {low} and {high}")
    return max(low, round(number))


class ImageStore:
    """Originals and renditions on disk under `data_dir/stock-demo-v{VERSION}`, each made once
    (a lock per file; written to a temporary name and renamed, so processes sharing the
    directory never read half a file).

    Originals are drawn at first use: a gradient, shapes and grain, so JPEG sizes are those of
    photos (the largest ~4.5 MB), byte for byte the same on every run with the same Pillow.
    Renditions are made as the providers' image CDNs make them (`Sizing`), decoded reduced
    where JPEG allows (draft mode)."""

    def __init__(self, data_dir: Path) -> None:
        self.root = Path(data_dir) / f"stock-demo-v{VERSION}"
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        # Memory stays bounded however many first requests arrive at once: one original drawn
        # at a time (~100 MB for the largest), a few renditions decoded at a time.
        self._drawing = threading.Lock()
        self._rendering = threading.BoundedSemaphore(4)

    def original(self, photo: DemoPhoto) -> Path:
        def draw(path: Path) -> None:
            with self._drawing:
                _draw(photo, path)

        return self._made(self.root / "originals" / f"{photo.number:02d}.jpg", draw)

    def rendition(self, photo: DemoPhoto, sizing: Sizing) -> Path:
        original = self.original(photo)
        if sizing.is_original:
            return original

        def render(path: Path) -> None:
            with self._rendering:
                _render(original, sizing, path)

        return self._made(self.root / "renditions" / sizing.name(photo), render)

    def prepare(self) -> None:
        """Draws every original now (a long-lived demo server does it at start)."""
        for photo in CATALOGUE:
            self.original(photo)

    def _made(self, path: Path, make: Callable[[Path], None]) -> Path:
        if path.exists():
            return path
        with self._guard:
            lock = self._locks.setdefault(str(path), threading.Lock())
        with lock:
            if not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".part")
                os.close(fd)
                try:
                    make(Path(temporary))
                    os.replace(temporary, path)
                finally:
                    if os.path.exists(temporary):
                        os.unlink(temporary)
        return path


def _draw(photo: DemoPhoto, path: Path) -> None:
    """A gradient between the palette's ends and blurred shapes, drawn at 1/8 scale, enlarged
    band by band (the memory of a few bands, not of the whole photo three times over) with
    fine grain added (what makes JPEG sizes realistic)."""
    rng = random.Random(photo.number)
    start, end, accent = _PALETTES[photo.tags[0]]
    w, h = photo.width, photo.height
    small_size = (max(1, w // 8), max(1, h // 8))
    mask = Image.linear_gradient("L").rotate(rng.choice((0, 45, 90, 135))).resize(small_size)
    small = Image.composite(Image.new("RGB", small_size, start), Image.new("RGB", small_size, end), mask)
    draw = ImageDraw.Draw(small)
    for _ in range(10):
        x, y = rng.randrange(small_size[0]), rng.randrange(small_size[1])
        r = rng.randrange(small_size[0] // 24 + 1, small_size[0] // 5 + 2)
        shade = tuple(min(255, max(0, c + rng.randrange(-60, 61))) for c in accent)
        shape = draw.ellipse if rng.random() < 0.5 else draw.rectangle
        shape((x - r, y - r, x + r, y + r), fill=shade)
    small = small.filter(ImageFilter.GaussianBlur(2))
    image = Image.new("RGB", (w, h))
    scale_y = small_size[1] / h
    for top in range(0, h, _BAND):
        rows = min(_BAND, h - top)
        band = small.resize(
            (w, rows), Image.Resampling.BILINEAR, box=(0, top * scale_y, small_size[0], (top + rows) * scale_y)
        )
        grain_size = ((w + 1) // 2, (rows + 1) // 2)
        grain = Image.frombytes("L", grain_size, rng.randbytes(grain_size[0] * grain_size[1]))
        grain = grain.resize((w, rows), Image.Resampling.BILINEAR).point(lambda v: 128 + (v - 128) // 8)
        image.paste(ImageChops.add(band, Image.merge("RGB", (grain, grain, grain)), 1.0, -128), (0, top))
    image.save(path, "JPEG", quality=90)


def _render(original: Path, sizing: Sizing, path: Path) -> None:
    """The rendition: decoded reduced where JPEG allows (draft mode), then resized (and cropped)."""
    with Image.open(original) as image:
        ow, oh = image.size
        if sizing.crop:
            assert sizing.width is not None and sizing.height is not None
            w, h = sizing.width, sizing.height
            scale = max(w / ow, h / oh)
            image.draft("RGB", (math.ceil(ow * scale), math.ceil(oh * scale)))
            box = _crop_box(image, w / h, sizing.entropy)
            result = image.resize((w, h), Image.Resampling.LANCZOS, box=box)
        else:
            scale = min(1.0, (sizing.width or ow) / ow, (sizing.height or oh) / oh)
            size = (max(1, round(ow * scale)), max(1, round(oh * scale)))
            image.draft("RGB", size)
            result = image.resize(size, Image.Resampling.LANCZOS)
    kind = _FORMATS[sizing.extension][0]
    result.save(path, kind, quality=sizing.quality)


def _crop_box(image: Image.Image, ratio: float, entropy: bool) -> tuple[float, float, float, float]:
    """The largest box of aspect `ratio` in `image`: centred, or where a thumbnail's entropy is
    highest along the axis that has room (imgix `crop=entropy`)."""
    w, h = image.size
    bw, bh = (h * ratio, float(h)) if w / h > ratio else (float(w), w / ratio)
    if not entropy or (w - bw < 1 and h - bh < 1):
        return ((w - bw) / 2, (h - bh) / 2, (w + bw) / 2, (h + bh) / 2)
    thumb = image.reduce(max(1, max(w, h) // 128)).convert("L")
    thumb_scale = thumb.width / w
    steps = 9
    best, best_offset = -1.0, 0.0
    for step in range(steps):
        offset = (w - bw if w - bw >= 1 else h - bh) * step / (steps - 1)
        x, y = (offset, 0.0) if w - bw >= 1 else (0.0, offset)
        window = tuple(round(v * thumb_scale) for v in (x, y, x + bw, y + bh))
        score = thumb.crop(window).entropy()
        if score > best:
            best, best_offset = score, offset
    x, y = (best_offset, 0.0) if w - bw >= 1 else (0.0, best_offset)
    return (x, y, x + bw, y + bh)
