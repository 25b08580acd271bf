"""The event catalogue: every type an endpoint may subscribe to, and when it is sent
(docs/webhooks.md has each one's `data`)."""

from __future__ import annotations

EVENT_TYPES: dict[str, str] = {
    "post.created": "A post was created, whatever its status (scheduled, queued, draft).",
    "post.updated": "A post's content, schedule, media, thread or first comment changed.",
    "post.published": "A post went out: data carries the platform's post id and URL.",
    "post.partially_published": "A thread failed for good after some of its items went out.",
    "post.failed": "A post failed for good: data carries the failure reason and the platform's error.",
    "post.canceled": "A post was canceled before it went out.",
    "post.approval_requested": "A post waits for a person's approval (created, submitted or edited so).",
    "post.approved": "A person approved a post: it is scheduled or queued.",
    "post.rejected": "A person rejected a post: it is a draft again, with the review.",
    "media.confirmed": "A media record became usable: a confirmed upload or a sourced stock photo.",
    "credits.low": "The organization's balance crossed below its low-credit threshold.",
    "credits.depleted": "The organization's balance reached 0.",
    "profile.connected": "A platform account was connected to a profile.",
    "profile.disconnected": "A profile's platform account was disconnected.",
    "profile.needs_reauth": "A profile's platform access was revoked or expired: reconnect it.",
    "profile.deleted": "A profile was deleted, with its past posts.",
    "generate.run.completed": "A generation run finished with its drafts.",
    "generate.run.failed": "A generation run failed.",
    "webhook.test": "Sent on request (POST /v1/webhooks/{id}/test), to try an endpoint.",
}
# An endpoint subscribed to every type, present and future.
ALL = "*"
