"""The MCP tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) over Herald's runs.

Herald already has durable handles for long work: a `generate_*` call that outlasts
HERALD_GENERATION_WAIT_SECONDS answers its run (`run_…`, on the lease job queue, collected with
`get_generate_run`), and a `source_media` call that outlasts HERALD_STOCK_SOURCE_WAIT_SECONDS
answers its sourcing run (`srn_…`, collected with `get_sourcing_run`). A task is such a run seen
through the extension: the task id is the run id, `tasks/get` reads the run with the same core
method (and so the same scopes and organization rule) as the collecting tool, and a finished
task's `result` is exactly what that tool answers, which is what the call would have answered
had it finished in time. Clients without the extension keep the run handles
(docs/mcp.md, "Tasks (the `io.modelcontextprotocol/tasks` extension)").

- A task is answered only on 2026-07-28 requests whose `_meta` client capabilities declare the
  extension (the handshake revisions carry no per-request capabilities, and their 2025-11-25
  tasks are another design, not served).
- Statuses: a run `queued` or `running` is `working`; `ready` or `failed` is `completed` (a
  failed run is a tool result saying why, as the synchronous call answers it: the spec keeps
  `failed` for JSON-RPC errors). Nothing here asks for input, so never `input_required`.
- `tasks/cancel` is acknowledged and not honoured: a run's charge is taken when it starts and
  refunded only when it fails, and cancellation is cooperative in the extension.
- `tasks/update` is acknowledged (no task of Herald's asks for input).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from contract.operations import OPERATIONS_BY_ID, TOOLS

EXTENSION_ID = "io.modelcontextprotocol/tasks"
METHODS = frozenset({"tasks/get", "tasks/update", "tasks/cancel"})
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # the ids' Crockford base32 (core/ids.py)


@dataclass(frozen=True, slots=True)
class RunKind:
    """A kind of run: the id prefix the core gives it, the tool that collects it, how often to
    poll it."""

    prefix: str
    reader: str
    poll_interval_ms: int


KINDS = (RunKind("run_", "get_generate_run", 1000), RunKind("srn_", "get_sourcing_run", 2000))


def _task_tools() -> dict[str, tuple[RunKind, str]]:
    """The tools whose call may outlast its wait, from the operation table: an operation whose
    OpenAPI link sends its run id to an operation whose tool collects a run. Each with its kind
    of run and the field of its result that holds the run id."""
    found = {}
    for name, op in TOOLS.items():
        if op.links is None:
            continue
        _, pointer, targets = op.links
        reader = OPERATIONS_BY_ID[targets[0]].tool
        kind = next((k for k in KINDS if reader is not None and k.reader == reader.name), None)
        if kind is not None:
            found[name] = (kind, pointer.rsplit("/", 1)[1])
    return found


TASK_TOOLS = _task_tools()


def negotiated(params: dict[str, Any], capabilities_key: str) -> bool:
    """Whether the request's per-request client capabilities declare the extension."""
    meta = params.get("_meta")
    capabilities = meta.get(capabilities_key) if isinstance(meta, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    return isinstance(extensions, dict) and EXTENSION_ID in extensions


def kind_of(task_id: str) -> RunKind | None:
    return next((kind for kind in KINDS if task_id.startswith(kind.prefix)), None)


def _pending_run(tool: str, structured: dict[str, Any]) -> str | None:
    """The run id of a call's result that is not finished yet, or None."""
    kind_and_field = TASK_TOOLS.get(tool)
    if kind_and_field is None or structured.get("status") not in ("queued", "running"):
        return None
    run_id = structured.get(kind_and_field[1])
    return run_id if isinstance(run_id, str) and run_id else None


def _created_at(run_id: str) -> str:
    """A run id's creation time: its body starts with 10 base32 characters of epoch milliseconds."""
    millis = 0
    for char in run_id.partition("_")[2][:10]:
        millis = millis * 32 + _ALPHABET.index(char)
    return _iso(datetime.fromtimestamp(millis / 1000, UTC))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _task(task_id: str, kind: RunKind, status: str, run: dict[str, Any]) -> dict[str, Any]:
    created = run.get("created_at") or _created_at(task_id)
    return {
        "taskId": task_id,
        "status": status,
        "statusMessage": _STATUS_MESSAGES[status],
        "createdAt": created,
        "lastUpdatedAt": run.get("finished_at") or (_iso(datetime.now(UTC)) if status == "working" else created),
        # Runs are kept with the organization's records: no expiry of their own.
        "ttlMs": None,
        "pollIntervalMs": kind.poll_interval_ms,
    }


_STATUS_MESSAGES = {
    "working": "Still being made; poll tasks/get.",
    "completed": "Finished: the result is what the call answers.",
}


def created(tool: str, called: dict[str, Any]) -> dict[str, Any] | None:
    """The CreateTaskResult for a call whose run outlasted its wait; None when it finished."""
    structured = called.get("structuredContent")
    if called.get("isError") or not isinstance(structured, dict):
        return None
    run_id = _pending_run(tool, structured)
    if not isinstance(run_id, str):
        return None
    return {"resultType": "task", **_task(run_id, TASK_TOOLS[tool][0], "working", structured)}


def detailed(task_id: str, kind: RunKind, read: dict[str, Any]) -> dict[str, Any]:
    """tasks/get's DetailedTask from the collecting tool's result for the run."""
    run = read["structuredContent"]
    finished = run.get("status") in ("ready", "failed")
    task = _task(task_id, kind, "completed" if finished else "working", run)
    if finished:
        task["result"] = {**read, "resultType": "complete"}
    return {**task, "resultType": "complete"}
