"""Where a sandbox delivery's `url` points (docs/posts.md, "Sandbox links").

A sandbox delivery sends nothing to the platform, so there is no platform page to link to: the
`url` of a sandbox post, of each of its thread items and of its first comment is the post's page
on Herald itself, at the outbox entry that recorded that part. One rule for the core, which
writes the links when it records a delivery, and the dashboard, which gives each outbox entry
its anchor.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def post_page_path(post_id: str) -> str:
    """The dashboard's page of a post."""
    return f"/dashboard/posts/{post_id}"


def outbox_anchor(part: str, position: int = 0) -> str:
    """The fragment of a part's outbox entry on the post's page: `outbox-post`,
    `outbox-thread-<position>` (0-based, the outbox entry's `position`) or
    `outbox-first-comment`."""
    if part == "thread":
        return f"outbox-thread-{position}"
    if part == "first_comment":
        return "outbox-first-comment"
    return "outbox-post"


def sandbox_url(base_url: str, post_id: str, part: str = "post", position: int = 0) -> str:
    """The `url` of a sandbox delivery: `{base_url}/dashboard/posts/{post_id}#outbox-…`."""
    return f"{base_url.rstrip('/')}{post_page_path(post_id)}#{outbox_anchor(part, position)}"


def sandbox_anchor(url: str, post_id: str) -> str | None:
    """The anchor a sandbox delivery's `url` names on the post's page, or None when `url` is
    not that page (a live delivery's platform URL). The base URL is not compared: a page links
    to its own entries by path, whatever host the browser reached Herald by."""
    parts = urlsplit(url)
    if parts.path != post_page_path(post_id) or not parts.fragment.startswith("outbox-"):
        return None
    return parts.fragment
