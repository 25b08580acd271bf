"""What one operation of the table is (contract/operations.py): its HTTP route, its core method,
its request and response shapes, its error codes and, where agents have it, its MCP tool."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from contract.base import Request, Response

if TYPE_CHECKING:
    from contract.binding import Contract

# Every operation may also answer these: the credential (401), then the plan (402), a malformed
# argument (400: any text argument may hold a character no text field takes, such as NUL), and
# the core being unreachable (503), the caller's rate limit spent (429, core/ratelimit.py).
# Listed once, added to each operation's own codes.
COMMON_ERRORS = ("VALIDATION_ERROR", "UNAUTHORIZED", "SUBSCRIPTION_REQUIRED", "SERVICE_UNAVAILABLE", "RATE_LIMITED")


@dataclass(frozen=True, slots=True)
class Tool:
    """An operation as an MCP tool (annotations as the MCP tools spec defines them)."""

    name: str
    title: str
    description: str
    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False
    # When the tool answers differently from the REST body (e.g. adds upload instructions).
    output: type[Response] | None = None
    adapt: Callable[[Any, Request], dict[str, Any]] | None = None
    # The MCP Apps resource (`ui://…`) a host renders the result in (facades/mcp/apps/).
    ui: str | None = None


@dataclass(frozen=True, slots=True)
class Operation:
    id: str  # the OpenAPI operationId
    method: str
    path: str  # OpenAPI template, e.g. /v1/posts/{post_id}
    summary: str
    tag: str
    rpc: str  # the core method's gRPC path
    request: type[Request]
    # Status → the response shape answered with it; `choose` picks one for a core response.
    responses: Mapping[int, type[Response]]
    errors: tuple[str, ...] = ()
    description: str = ""
    tool: Tool | None = None
    choose: Callable[[Any], int] | None = None
    # OpenAPI links: operations the response's id is used with next (parameter, value expression).
    links: tuple[str, str, tuple[str, ...]] | None = None
    # The request body's media type; a multipart upload is streamed by a handler of its own.
    body_media_type: str = "application/json"

    @property
    def status(self) -> int:
        """The success status when there is one (the first otherwise)."""
        return next(iter(self.responses))

    def render(self, message: Any, contract: Contract | None = None) -> tuple[int, dict[str, Any]]:
        """The success status and the JSON body of a core response. A shape whose rendering
        depends on the catalog (it publishes schemas) has `from_proto_bound(message, contract)`."""
        status = self.choose(message) if self.choose else self.status
        shape = self.responses[status]
        bound = getattr(shape, "from_proto_bound", None)
        if bound is not None and contract is not None:
            return status, bound(message, contract)
        return status, shape.from_proto(message)  # type: ignore[attr-defined]

    @property
    def all_errors(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys((*self.errors, *COMMON_ERRORS)))
