"""The MCP tools, built from the operation table (contract/operations.py): `tools/list` shows every
operation that has a Tool, with input and output schemas from the same catalog-bound models the
/v1 routes check; `tools/call` checks the arguments against the input model before anything
reaches the core, calls the operation's core method and answers its response model.

Results follow the MCP tools spec (2025-06-18 on): `structuredContent` that conforms to
`outputSchema`, and the same JSON as a text block. A business failure is a result with `isError`
whose text is `{code, error, retryable, argument?}` and no structuredContent (clients validate
structuredContent against the output schema even on errors). A missing scope or a bad token is
not a tool result: it is the HTTP challenge (403 / 401) a client re-authorizes from.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from contract.binding import Contract
from contract.errors import CreditWarning
from contract.operation import Operation
from contract.operations import TOOLS
from facades.core_client import CoreClient, CoreResult
from facades.errors import ApiError
from facades.mcp.icons import icons
from facades.validation import validate


def _tool(op: Operation, contract: Contract, base_url: str) -> types.Tool:
    tool = op.tool
    assert tool is not None
    output_model = tool.output or next(iter(op.responses.values()))
    output = contract.json_schema(output_model, mode="serialization")
    output.setdefault("properties", {})["warning"] = {
        **contract.json_schema(CreditWarning, mode="serialization"),
        "description": "Present once the organization's credit balance is below the low-credit threshold.",
    }
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=contract.json_schema(op.request),
        output_schema=output,
        icons=icons(base_url, op.tag),
        # MCP Apps: the host renders the result in this UI resource (hosts without it read the text).
        _meta={"ui": {"resourceUri": tool.ui}} if tool.ui else None,
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            open_world_hint=tool.open_world,
        ),
    )


def list_tools(contract: Contract, base_url: str) -> dict[str, Any]:
    """The tools/list result, in the table's order (deterministic), built once per catalog; the
    transport adds what the caller's revision asks on top (2026-07-28: resultType, caching)."""

    def build() -> dict[str, Any]:
        tools = [
            _tool(op, contract, base_url).model_dump(by_alias=True, exclude_none=True, mode="json")
            for op in TOOLS.values()
        ]
        return {"tools": tools}

    return contract.cached("mcp.tools", build)


class ToolCall:
    """One tools/call as the token's principal: the core client, the credential and the audience."""

    def __init__(self, core: CoreClient, authorization: str, audience: str) -> None:
        self.core = core
        self.authorization = authorization
        self.audience = audience

    async def run(self, op: Operation, contract: Contract, arguments: dict[str, Any]) -> dict[str, Any]:
        """The CallToolResult (as JSON) of one call; raises ApiError for access failures, which
        the transport turns into challenges."""
        tool = op.tool
        assert tool is not None
        try:
            request = validate(contract.model(op.request), arguments)
        except ApiError as error:
            # Access first (credential, scope, plan), then the arguments (docs/api.md, "Errors").
            await self.core.check_access(op.rpc, authorization=self.authorization, audience=self.audience)
            return tool_error(error)
        try:
            result: CoreResult[Any] = await self.core.call(
                self.core.method(op.rpc), request.to_proto(), authorization=self.authorization, audience=self.audience
            )
        except ApiError as error:
            if access_failure(error):
                raise
            return tool_error(error)
        structured = tool.adapt(result.response, request) if tool.adapt else op.render(result.response)[1]
        if result.low_credits and result.credits_remaining is not None:
            structured["warning"] = {"code": "low_credits", "remaining": result.credits_remaining}
        return _result(structured)


# Failures that are the token's, not the call's: answered as HTTP challenges.
ACCESS_CODES = frozenset({"UNAUTHORIZED", "FORBIDDEN", "INSUFFICIENT_SCOPE"})


def access_failure(error: ApiError) -> bool:
    """Whether the token is at fault (an HTTP challenge), not the call. A refusal by the member's
    role (FORBIDDEN naming a `permission`, docs/teams.md) is the call's: the token is good, and
    re-authorizing would change nothing, so it is a tool error the agent can read."""
    return error.code in ACCESS_CODES and not (error.code == "FORBIDDEN" and "permission" in error.metadata)


def _result(structured: dict[str, Any]) -> dict[str, Any]:
    text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
    content = [{"type": "text", "text": note} for note in _notes(structured)]
    return {"content": [*content, {"type": "text", "text": text}], "structuredContent": structured}


def _notes(structured: dict[str, Any]) -> list[str]:
    """What the agent must not miss, said in words before the JSON: posts that wait for a person's
    approval (docs/teams.md, "Approvals") do not go out on their own."""
    found = structured.get("posts")
    posts = found if isinstance(found, list) else [structured] if "status" in structured else []
    waiting = [p.get("profile", "") for p in posts if isinstance(p, dict) and p.get("status") == "pending_approval"]
    if not waiting:
        return []
    return [
        f"{len(waiting)} post(s) pending approval ({', '.join(waiting)}): a person in the organization must approve "
        "them before they go out; nothing is published or charged until then. Tell the user, and follow them with "
        "get_post (status moves to scheduled or queued once approved, or back to draft if rejected)."
    ]


def tool_error(error: ApiError) -> dict[str, Any]:
    failure: dict[str, Any] = {"code": error.code, "error": error.message, "retryable": error.retryable}
    if error.argument:
        failure["argument"] = error.argument
    # Every detail the /v1 body carries beyond {error, code}, under the same names.
    failure.update({k: v for k, v in error.body().items() if k not in ("error", "code")})
    text = json.dumps(failure, ensure_ascii=False)
    return {"content": [{"type": "text", "text": text}], "isError": True}
