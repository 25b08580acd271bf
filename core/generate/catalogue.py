"""The generation catalogue (docs/writing-tools.md): each writing tool's arguments and limits,
and how the built-in engine answers it. `tools/list` is the authority for agents; this module
is the authority for the core."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.errors import ValidationError
from core.generate import builtin
from core.generate.outputs import Output, Style, Target

MAX_BRIEF = 5000
MAX_THREAD_TEXT = 12_000
MAX_PROFILES = 20
MAX_VARIATIONS = 5
DEFAULT_VARIATIONS = 3
MAX_HASHTAGS = 30
DEFAULT_HASHTAGS = 5


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    # The argument holding the text worked on, and its limit.
    text_field: str
    max_text: int
    # Whether at least one profile is needed (hashtags can do without).
    needs_profiles: bool
    builtin: Callable[[dict[str, Any], list[Target], Style], Output]
    task: str  # what the tool asks of a model (core/generate/openai_backend.py)


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "generate_post",
            "brief",
            MAX_BRIEF,
            True,
            lambda r, targets, style: builtin.generate_post(r["brief"], targets, style),
            "Write one post per profile from the brief.",
        ),
        Tool(
            "generate_thread",
            "text",
            MAX_THREAD_TEXT,
            True,
            lambda r, targets, style: builtin.generate_thread(r["text"], targets, style, numbered=r["numbered"]),
            "Split the text into a thread per profile: items in order, each within the limit, never breaking a "
            "link, mention, hashtag or emoji; end each item with i/n when there are several and numbered is true.",
        ),
        Tool(
            "generate_variations",
            "brief",
            MAX_BRIEF,
            True,
            lambda r, targets, style: builtin.generate_variations(r["brief"], targets, style, r["count"]),
            "Write `count` distinct posts per profile from the brief (variant 1, 2, …).",
        ),
        Tool(
            "generate_hashtags",
            "text",
            MAX_BRIEF,
            False,
            lambda r, targets, style: builtin.generate_hashtags(r["text"], targets, style, r["count"]),
            "Propose at most `count` hashtags for the text, best first; answer them under `hashtags`.",
        ),
        Tool(
            "rewrite_for_destination",
            "text",
            MAX_BRIEF,
            True,
            lambda r, targets, style: builtin.rewrite_for_destination(r["text"], targets[0], style),
            "Rewrite the text to fit the profile: in the voice, shortened if needed, every link and mention kept.",
        ),
    )
}


def checked_request(tool: Tool, request: dict[str, Any]) -> dict[str, Any]:
    """The request with defaults applied, or VALIDATION_ERROR naming the field."""
    text = request.get(tool.text_field, "")
    if not text.strip():
        raise ValidationError(f"{tool.text_field} is required")
    if len(text) > tool.max_text:
        raise ValidationError(f"{tool.text_field} is {len(text)} characters; the maximum is {tool.max_text}")
    profiles = request.get("profiles", [])
    if tool.needs_profiles and not profiles:
        raise ValidationError("name at least one profile")
    if len(profiles) > MAX_PROFILES:
        raise ValidationError(f"name at most {MAX_PROFILES} profiles")
    if len(set(profiles)) != len(profiles):
        raise ValidationError("profiles names a profile more than once")
    out = dict(request)
    if tool.name == "generate_variations":
        out["count"] = request.get("count") or DEFAULT_VARIATIONS
        if not 1 <= out["count"] <= MAX_VARIATIONS:
            raise ValidationError(f"count must be between 1 and {MAX_VARIATIONS}")
    if tool.name == "generate_hashtags":
        out["count"] = request.get("count") or DEFAULT_HASHTAGS
        if not 1 <= out["count"] <= MAX_HASHTAGS:
            raise ValidationError(f"count must be between 1 and {MAX_HASHTAGS}")
    if tool.name == "generate_thread":
        out["numbered"] = request.get("numbered", True)
    return out
