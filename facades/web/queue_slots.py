"""A profile's queue slots on its page (docs/dashboard.md, "Profiles", Queue slots): the weekly
times `next_slot` posts take, in words, and a proposal from its best times (AudienceService's
SuggestQueueSlots without `apply`: nothing is written) that the member may then use.

"Use these slots" saves the slots the page showed, as they were shown (ProfileService's
SetProfileSlots with the proposal's zone and slots, which SuggestQueueSlots with `apply` amounts
to): asking for a new proposal at that moment could save other slots than the member read, should
a reading land between the two. Who may change them is a role carrying `publish`, by the core's
catalog and the session's principal; any other member sees the slots without the forms, and the
core refuses what they send anyway (FORBIDDEN)."""

from __future__ import annotations

from typing import Any

from herald.analytics.v1 import audience_pb2
from herald.profiles.v1 import profiles_pb2
from sanic import Request

from contract.requests import rpc_path
from facades.errors import ApiError
from facades.web.best_times_view import LONG_DAYS
from facades.web.session import Viewer

SUGGEST = rpc_path(audience_pb2, "AudienceService", "SuggestQueueSlots")
PUBLISH = "publish"  # the permission setting a profile's slots needs (the core's catalog says which roles carry it)
DEFAULT_COUNT = 7  # core/analytics/queue_suggestion.py DEFAULT_COUNT and MAX_COUNT: the field's default and bounds
MAX_COUNT = 21
SAVED = "slots-saved"  # the profile page's notice after "Use these slots" (`?notice=`)
# The longest slot list a "Use these slots" form may carry (the core's own bound on a table).
MAX_SLOTS = 168


def in_words(day: str, time: str) -> str:
    """("tue", "09:00") → "Tuesday 09:00"."""
    return f"{LONG_DAYS.get(day, day)} {time}"


def _slots(slots: Any) -> list[dict[str, str]]:  # repeated TimeSlot or SuggestedSlot
    return [
        {"day": s.day, "time": s.time, "text": in_words(s.day, s.time), "value": f"{s.day} {s.time}"} for s in slots
    ]


async def editor(request: Request, viewer: Viewer) -> dict[str, Any]:
    """Whether the signed-in member may change the profile's slots, and when not, why."""
    role = viewer.principal.role
    # The core's catalog of roles, read here rather than through post_review.roles_with: that
    # module's imports come back to the profile page's.
    catalog = (await request.app.ctx.contract.get()).catalog.message
    publishers = [f"{r.name}s" for r in catalog.roles if PUBLISH in r.permissions]
    if role in {name[:-1] for name in publishers}:
        return {"allowed": True, "why": ""}
    who = ", ".join(publishers[:-1]) + f" and {publishers[-1]}" if len(publishers) > 1 else "".join(publishers)
    return {
        "allowed": False,
        "why": f"Your role ({role or 'none'}) cannot change a profile's queue slots: {who or 'no role'} can.",
    }


async def current(request: Request, viewer: Viewer, slug: str) -> dict[str, Any]:
    """The profile's slot table: its zone and its slots in the week's order, in words."""
    core = request.app.ctx.core
    found = await core.call(
        core.profiles.GetProfileSlots,
        profiles_pb2.GetProfileSlotsRequest(slug=slug),
        authorization=viewer.authorization,
    )
    return {"zone": found.response.timezone, "slots": _slots(found.response.slots)}


def basis_in_words(found: audience_pb2.QueueSuggestion) -> str:
    if found.basis == "history":
        return f"from this profile's {found.sample_size} post{'s' if found.sample_size != 1 else ''} read"
    return (
        f"the platform's usual best hours: too few of this profile's posts are read yet ({found.sample_size})"
        if found.sample_size
        else "the platform's usual best hours: none of this profile's posts is read yet"
    )


def count_of(text: str) -> int:
    """The form's "Slots a week"; anything but a whole number in bounds is VALIDATION_ERROR (the
    core would refuse a number out of bounds as well)."""
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_COUNT:
        raise ApiError("VALIDATION_ERROR", f"Slots a week must be a whole number from 1 to {MAX_COUNT}.")
    return int(text)


async def propose(request: Request, viewer: Viewer, slug: str, count: int) -> dict[str, Any]:
    """The slots proposed from the profile's best times, with their basis; nothing is written."""
    core = request.app.ctx.core
    found = (
        await core.call(
            core.method(SUGGEST),
            audience_pb2.SuggestQueueSlotsRequest(slug=slug, count=count),
            authorization=viewer.authorization,
        )
    ).response
    return {
        "count": count,
        "zone": found.time_zone,
        "basis": found.basis,
        "basis_text": basis_in_words(found),
        "slots": _slots(found.slots),
    }


def slots_sent(values: list[str]) -> list[profiles_pb2.TimeSlot]:
    """The "Use these slots" form's `slot` fields ("tue 09:00" each) as the core takes them; the
    core checks the days and times."""
    if len(values) > MAX_SLOTS:
        raise ApiError("VALIDATION_ERROR", f"At most {MAX_SLOTS} slots a week.")
    out = []
    for value in values:
        day, _, time = value.strip().partition(" ")
        out.append(profiles_pb2.TimeSlot(day=day[:8], time=time.strip()[:8]))
    return out


async def save(request: Request, viewer: Viewer, slug: str, zone: str, slots: list[profiles_pb2.TimeSlot]) -> None:
    """Saves the slots as the profile's table, replacing it."""
    core = request.app.ctx.core
    await core.call(
        core.profiles.SetProfileSlots,
        profiles_pb2.SetProfileSlotsRequest(slug=slug, timezone=zone[:100], slots=slots),
        authorization=viewer.authorization,
    )
