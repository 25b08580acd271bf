"""What a delivery attempt hands back when it did not deliver, and the claimed post as its
connector sees it (shared by the publisher and the delivery of a post's parts)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from core.connectors.base import DeliveryError, ErrorClass, OutgoingPost
from core.platform_accounts.token_refresh import ProfileToken
from core.publisher.queue import Claim

log = logging.getLogger("core.publisher")

# A final failure's class → the post's failure_reason (docs/posts.md "Lifecycle").
FAILURE_REASONS = {
    ErrorClass.NEEDS_REAUTH: "needs_reauth",
    ErrorClass.PERMANENT: "platform_rejected",
    ErrorClass.RETRYABLE: "retries_exhausted",
    ErrorClass.UNCERTAIN: "delivery_uncertain",
}


class Attempt(Exception):  # an attempt that did not deliver, with what it left
    """A delivery the platform refused or failed: the error, the progress state, the token used
    and when the platform asked the account to wait."""

    def __init__(
        self,
        error: DeliveryError,
        state: Mapping[str, Any],
        token: ProfileToken | None = None,
        throttled_until: datetime | None = None,
    ) -> None:
        super().__init__(str(error))
        self.error = error
        self.state = state
        self.token = token
        self.throttled_until = throttled_until


def outgoing(claim: Claim, **changes: Any) -> OutgoingPost:
    """The claimed post as its connector sees it (`changes`: a part's own fields)."""
    post = OutgoingPost(
        post_id=claim.post_id,
        delivery_key=claim.delivery_key,
        connector=claim.connector,
        content=claim.content,
        post_type=claim.post_type,
        account=claim.account,
        title=claim.title,
        media=claim.media,
        created_at=claim.created_at,
        language=claim.language,
        tiktok=claim.tiktok,
    )
    return replace(post, **changes) if changes else post


def log_problem(claim: Claim, what: str) -> None:
    """A delivery problem at WARNING: the post, the attempt, and (from the task's context, set by
    the publisher) the id of the request that created the post. `what` never holds a token: a
    platform's error is the text the post's `platform_error` shows its owner."""
    log.warning(
        "post %s attempt %d: %s",
        claim.post_id,
        claim.attempts,
        what,
        extra={"post_id": claim.post_id, "attempt": claim.attempts},
    )
