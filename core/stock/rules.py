"""What stock searches and sourcing accept (docs/stock.md): providers, presets, the
destinations each preset reaches, and the bounds of each field. Checked in the documented order
(docs/stock.md, "Sourcing") before any photo is fetched or anything is charged."""

from __future__ import annotations

from fractions import Fraction

from core.errors import ValidationError
from core.posts.rules import PLATFORM_LIMITS
from core.stock.errors import PresetDestination, UnknownPreset, UnknownProvider

PROVIDERS = ("stock_a", "stock_b")
# width:height of each preset (docs/stock.md, "Sourcing"): square is the default, publishable
# everywhere.
PRESET_RATIOS: dict[str, tuple[int, int]] = {
    "square": (1, 1),
    "portrait": (4, 5),
    "landscape": (191, 100),
    "story": (9, 16),
}
DEFAULT_PRESET = "square"
# `story` (9:16) reaches only the microblogging platforms (docs/stock.md, "Sourcing"): on a
# photo-sharing feed, a professional network or a short-video photo post a full-height image is cut
# or letterboxed.
PRESET_KINDS: dict[str, frozenset[str] | None] = {"story": frozenset({"microblogging"})}
SEARCH_COUNT = (1, 30, 12)  # min, max, default (Unsplash pages hold at most 30)
MAX_QUERY = 200
MAX_SOURCE_REFS = 10
MAX_SOURCE_REF = 128
MAX_SOURCE_QUERY = 500


def _ratio(text: str) -> Fraction:
    width, height = text.split(":")
    return Fraction(width) / Fraction(height)


def reaches(preset: str, platform: str) -> bool:
    """Whether an image of the preset's ratio can go in the platform's default post: the post
    takes images at all, within the platform's image aspect bounds (core/posts/rules.py), on a
    platform of a kind the preset is for."""
    rules = PLATFORM_LIMITS[platform]
    kinds = PRESET_KINDS.get(preset)
    if kinds is not None and rules["kind"] not in kinds:
        return False
    default = next(iter(rules["media"].values()))
    if not any("image" in layout["kinds"] for layout in default["layouts"]):
        return False
    bounds = default.get("aspect", {}).get("image")
    if not bounds:
        return True
    width, height = PRESET_RATIOS[preset]
    ratio = Fraction(width, height)
    low = _ratio(bounds["min"]) if bounds["min"] else None
    high = _ratio(bounds["max"]) if bounds["max"] else None
    return (low is None or ratio >= low) and (high is None or ratio <= high)


def valid_for(preset: str) -> list[str]:
    return [platform for platform in PLATFORM_LIMITS if reaches(preset, platform)]


def check_provider(provider: str) -> str:
    provider = provider or PROVIDERS[0]
    if provider not in PROVIDERS:
        raise UnknownProvider(f"provider must be one of {', '.join(PROVIDERS)}, not {provider[:40]!r}")
    return provider


def check_preset(preset: str) -> str:
    preset = preset or DEFAULT_PRESET
    if preset not in PRESET_RATIOS:
        raise UnknownPreset(f"preset must be one of {', '.join(PRESET_RATIOS)}, not {preset[:40]!r}")
    return preset


def check_query(query: str) -> str:
    query = " ".join(query.split())
    if not query:
        raise ValidationError("query is required: what the photos should show")
    if len(query) > MAX_QUERY:
        raise ValidationError(f"query is at most {MAX_QUERY} characters")
    return query


def check_count(count: int) -> int:
    low, high, default = SEARCH_COUNT
    if count == 0:
        return default
    if not low <= count <= high:
        raise ValidationError(f"count must be {low} to {high}")
    return count


def check_source_refs(refs: list[str]) -> list[str]:
    if not 1 <= len(refs) <= MAX_SOURCE_REFS:
        raise ValidationError(f"source_refs takes 1 to {MAX_SOURCE_REFS} photos")
    for ref in refs:
        if not ref or len(ref) > MAX_SOURCE_REF or not ref.isprintable() or ref != ref.strip():
            raise ValidationError(f"each source_ref is a photo's handle from a search, 1-{MAX_SOURCE_REF} characters")
    if len(set(refs)) != len(refs):
        raise ValidationError("source_refs names a photo twice")
    return refs


def check_destination(destination: str, preset: str) -> str:
    """The destination, if any: a platform key the preset reaches, else PRESET_DESTINATION with
    the destinations it does reach."""
    if not destination:
        return ""
    if destination not in PLATFORM_LIMITS:
        raise ValidationError(f"destination must be one of {', '.join(PLATFORM_LIMITS)}")
    if not reaches(preset, destination):
        reach = valid_for(preset)
        raise PresetDestination(
            f"the {preset} preset cannot be posted to {destination}; it reaches {', '.join(reach) or 'no platform'}",
            valid_for=",".join(reach),
        )
    return destination
