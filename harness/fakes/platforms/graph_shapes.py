"""Meta's Graph answers the fake Threads and Instagram share: the error envelope, the refusal of
an object that cannot be had, the fields asked for, timestamps and cursors."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Any

from harness.fakes.platforms.base import Answer, answer


def graph_error(
    status: int,
    message: str,
    code: int,
    subcode: int | None = None,
    *,
    user_title: str = "",
    user_msg: str = "",
) -> Answer:
    """Meta's Graph error envelope."""
    error: dict[str, Any] = {"message": message, "type": "OAuthException", "code": code}
    if subcode is not None:
        error["error_subcode"] = subcode
    if user_title:
        error |= {"is_transient": False, "error_user_title": user_title, "error_user_msg": user_msg}
    error["fbtrace_id"] = "A" + secrets.token_urlsafe(16)
    return answer(status, {"error": error})


def no_object(object_id: str, verb: str) -> Answer:
    return graph_error(
        400,
        f"Unsupported {verb} request. Object with ID '{object_id}' does not exist, cannot be loaded due to missing "
        "permissions, or does not support this operation.",
        100,
        33,
    )


def pick(fields: dict[str, Any], wanted: str) -> dict[str, Any]:
    """Graph answers the fields asked for, and always the id."""
    names = {f.strip() for f in wanted.split(",") if f.strip()}
    return {k: v for k, v in fields.items() if k == "id" or k in names}


def timestamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S+0000")


def cursor(post_id: str) -> str:
    return hashlib.sha256(post_id.encode()).hexdigest()[:40]
