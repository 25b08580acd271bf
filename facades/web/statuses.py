"""The post statuses as the pages list them (the posts page's and the calendar's status filters),
in the order of a post's life: one tuple, so a new status reaches every filter at once."""

from __future__ import annotations

POST_STATUSES = (
    "draft",
    "pending_approval",
    "scheduled",
    "queued",
    "publishing",
    "published",
    "partially_published",
    "failed",
    "canceled",
)
