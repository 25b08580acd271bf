"""The one way a test reads an error's human message.

An error's contract is its code (`code` in a /v1 body or an MCP tool error, the ErrorInfo reason
over gRPC, the RFC 6749 `error` of an OAuth answer) and the fields the contract gives it
(`argument`, `valid_for`, `phrase`, `profile`, a dry run's `length` and `max_length`...); tests
assert on those. The message (`error`, `error_description`) is for humans and may be reworded.
Some promises are about the message itself, where the contract carries no field for what it
names: a /v1 `VALIDATION_ERROR` names the argument or the profile at fault and the thread item
(docs/api.md, "Errors"; docs/posts.md, "Creating posts"), `UNKNOWN_PRESET` lists the presets
(docs/stock.md), the 21st webhook is refused naming the limit (docs/webhooks.md), a never-publish
failure's `failure_detail` names the phrase (docs/brand-voice.md), /mcp's `invalid_token` says
what kind of credential was sent (docs/oauth.md, "The /mcp gate"), the CLI's `NOT_MIGRATED` says
to run `herald migrate`, a post group's refusal names the post that refused
(docs/posts.md, "Post groups"). Only such promises are checked, one per test, through `names`, so each
check says it reads the message on purpose.
"""

from __future__ import annotations

from typing import Any


def names(error: dict[str, Any] | str, *words: str) -> bool:
    """Whether the error's human message (a body's `error`, or the text itself) names every one
    of `words`."""
    message = error if isinstance(error, str) else str(error["error"])
    return all(word in message for word in words)
