"""A generation run as the core holds it once read (RunRecord), and its output as the
`generate_runs` table keeps it (JSON): shared by the runs' storage and their messages."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from core.generate.outputs import Draft, Output


@dataclass(frozen=True, slots=True)
class RunRecord:
    id: str
    org_id: str
    tool: str
    backend: str
    status: str
    input: dict[str, Any]
    output: Output | None
    error_code: str
    error_message: str
    charged: int
    created_at: datetime
    finished_at: datetime | None


def output_json(output: Output) -> str:
    return json.dumps(asdict(output), ensure_ascii=False, separators=(",", ":"))


def output_of(text: str | None) -> Output | None:
    if text is None:
        return None
    data = json.loads(text)
    return Output(drafts=[Draft(**d) for d in data["drafts"]], hashtags=data["hashtags"], notes=data.get("notes", []))
