"""The shape of Herald's log lines, the same in every process (facade, core, worker, storage):
one JSON object per line (HERALD_LOG_FORMAT=json, the default) or the classic text line
(`text`, for a terminal).

    {"time": "2026-11-26T10:43:58.551Z", "level": "INFO", "logger": "core.server", "pid": 18811,
     "message": "core serving on 127.0.0.1:50051", "request_id": "req_…"}

`request_id` is the X-Request-Id of the request being served (the facade accepts or makes one,
and passes it to the core in gRPC metadata), present when there is one. A record's `extra`
fields (`logger.info("…", extra={"status": 201})`) become keys of their own. Nothing here knows
any secret: code never passes tokens, keys or passwords to a logger (a test greps every log).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from contextvars import ContextVar
from datetime import UTC, datetime

# The request being served in this task (set by the facade's middleware, or the core's
# interceptor from the call's metadata).
REQUEST_ID: ContextVar[str | None] = ContextVar("herald_request_id", default=None)
REQUEST_ID_HEADER = "x-request-id"  # HTTP header and gRPC metadata key alike

# What a caller's X-Request-Id may be to be kept (it reaches logs and webhook receivers): a
# token of at most 128 visible characters; anything else is replaced by one of ours.
_ACCEPTED = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")

# Attributes every LogRecord has: not copied as `extra` fields.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime", "taskName"}


def request_id_from(value: str | None) -> str:
    """The caller's id when it is an acceptable token, else a new `req_<24 hex>`."""
    if value and _ACCEPTED.fullmatch(value):
        return value
    return f"req_{secrets.token_hex(12)}"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,
            "message": record.getMessage(),
        }
        if (request_id := REQUEST_ID.get()) is not None:
            line["request_id"] = request_id
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in line:
                line[key] = value
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str, ensure_ascii=False)


class _TextRequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        request_id = REQUEST_ID.get()
        record.request = f" [{request_id}]" if request_id else ""
        return True


def configure(level: str, fmt: str = "json") -> None:
    """The root logger of this process: one handler on stderr, in `fmt` (json or text)."""
    handler = logging.StreamHandler()
    if fmt == "text":
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s[%(process)d]%(request)s: %(message)s")
        )
        handler.addFilter(_TextRequestId())
    else:
        handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
