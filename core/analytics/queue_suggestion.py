"""A profile's queue slots filled from its best times (docs/analytics.md, "Suggesting queue
slots"): the best cells of the week as weekly slots in the organization's zone, proposed, and
saved as the profile's slot table when asked (`apply`), as PUT /v1/profiles/{slug}/slots saves one.

The slots are the best cells by score, at most ceil(count / 7) on one weekday, so a week's
slots spread over the days instead of filling one evening; fewer when the best times have fewer
cells with a score (the defaults of a platform name 10 to 24)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncConnection

from core.analytics.best_times import BestTimes, Cell, best_times
from core.errors import ValidationError
from core.posts import slot_assignment
from core.posts.slot_table import DAYS

DEFAULT_COUNT = 7
MAX_COUNT = 21


@dataclass(frozen=True, slots=True)
class Suggestion:
    best: BestTimes
    slots: list[tuple[str, str]]  # (day, "HH:MM"), in the week's order
    applied: bool


def pick(grid: list[Cell], count: int) -> list[Cell]:
    per_day = math.ceil(count / 7)
    ranked = sorted((c for c in grid if c.score > 0), key=lambda c: (-c.score, -c.posts, c.day, c.hour))
    taken: Counter[int] = Counter()
    chosen = []
    for cell in ranked:
        if taken[cell.day] < per_day:
            taken[cell.day] += 1
            chosen.append(cell)
            if len(chosen) == count:
                break
    return sorted(chosen, key=lambda c: (c.day, c.hour))


async def suggest(
    conn: AsyncConnection, org_id: str, slug: str, now: datetime, minimum: int, count: int, apply: bool
) -> Suggestion:
    """The proposed slots; saved as the profile's slot table when `apply`."""
    count = count or DEFAULT_COUNT
    if not 1 <= count <= MAX_COUNT:
        raise ValidationError(f"count must be 1 to {MAX_COUNT}", argument="count")
    best = await best_times(conn, org_id, slug, now, minimum)
    slots = [(DAYS[c.day], f"{c.hour:02d}:00") for c in pick(best.grid, count)]
    if apply:
        table = [{"day": day, "time": time} for day, time in slots]
        await slot_assignment.set_slots(conn, org_id, slug, best.timezone, table)
    return Suggestion(best, slots, apply)
