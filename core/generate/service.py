"""Running the writing tools: a call creates a run (charged atomically with it); the built-in
engine answers inside the call, a model backend's run goes to the lease queue and the call waits
for it up to HERALD_GENERATION_WAIT_SECONDS, then answers with the run as it stands.

The job handler (`GenerateJobs`, kind `generate_run`) runs on the workers: it reads the voice in
effect *when it runs* (never-publish phrases added meanwhile apply), asks the backend, checks
the output like any other (core/generate/outputs.py) and records it, fenced on its lease."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.brand import service as brand
from core.brand.never_publish import matcher
from core.brand.voice import VoiceDocument
from core.db.engine import transaction
from core.db.models import profiles
from core.db.types import utcnow
from core.errors import NotFound
from core.generate import runs
from core.generate.catalogue import TOOLS, checked_request
from core.generate.outputs import Output, Style, Target, check
from core.generate.records import RunRecord
from core.generate.text import entities
from core.identity import profile_limits
from core.jobs.queue import Job
from core.jobs.runner import JobFailure
from core.rpc.context import Call
from core.settings import CoreSettings

POLL_SECONDS = 0.1


async def _targets(
    conn: AsyncConnection, org_id: str, slugs: list[str], limited_to: tuple[str, ...] = ()
) -> list[tuple[str, Target]]:
    """(profile id, target) per slug, in order; NOT_FOUND naming unknown slugs, and those outside
    `limited_to` (the caller's profile limits: core/identity/profile_limits.py) alike."""
    if not slugs:
        return []
    named = select(profiles.c.id, profiles.c.slug, profiles.c.connector).where(
        profiles.c.org_id == org_id, profiles.c.slug.in_(slugs)
    )
    rows = {r.slug: r for r in await conn.execute(profile_limits.narrowed(named, profiles.c.id, org_id, limited_to))}
    unknown = [s for s in slugs if s not in rows]
    if unknown:
        raise NotFound(f"no profile {', '.join(repr(s[:64]) for s in unknown[:10])} in this organization")
    return [(rows[s].id, Target(s, rows[s].connector)) for s in slugs]


async def voice_and_style(conn: AsyncConnection, org_id: str, profile_ids: list[str]) -> tuple[VoiceDocument, Style]:
    """The organization's voice (the first profile's when exactly one is named) as the engine
    uses it; never-publish phrases are those of every named profile together."""
    slug_voice = await brand.get_voice(conn, org_id)
    phrases = await brand.matchers(conn, org_id, profile_ids) if profile_ids else {}
    combined = tuple(dict.fromkeys(p for m in phrases.values() for p in m.phrases)) or slug_voice.document.never_publish
    doc = slug_voice.document
    style = Style(
        terms=tuple((t.use, t.instead_of) for t in doc.preferred_terms),
        emoji=doc.emoji,
        hashtags=doc.hashtags,
        signature=doc.signature_hashtags,
        never_publish=matcher(tuple(combined)),
        examples=doc.examples,
    )
    return doc, style


def _cost(settings: CoreSettings, backend: str) -> int:
    return settings.generation_builtin_cost if backend == "builtin" else settings.generation_openai_cost


async def generate(call: Call, tool_name: str, request: dict[str, Any]) -> RunRecord:
    """Creates the run of one generate_* call and answers it as it stands after the wait."""
    tool = TOOLS[tool_name]
    request = checked_request(tool, request)
    settings = call.settings
    backend = settings.generation_backend
    org_id = call.principal.org_id
    async with call.transaction(writes=True) as conn:
        found = await _targets(conn, org_id, request.get("profiles", []), call.principal.profile_tags)
        targets = [t for _, t in found]
        request["targets"] = [{"profile": t.profile, "connector": t.connector} for t in targets]
        output = None
        if backend == "builtin":
            voice, style = await voice_and_style(conn, org_id, [pid for pid, _ in found])
            output = _checked(tool.builtin(request, targets, style), style, request, tool.text_field)
        run_id, balance = await runs.create(
            conn,
            org_id=org_id,
            user_id=call.principal.user_id,
            tool=tool_name,
            backend=backend,
            request=request,
            cost=_cost(settings, backend),
            now=call.now,
            output=output,
            max_attempts=settings.generation_max_attempts,
            low_threshold=settings.low_credit_threshold,
        )
        if balance is not None:
            call.credits_remaining = balance
        run = await runs.get(conn, org_id, run_id)
    if run.status == "ready":
        return run
    deadline = time.monotonic() + settings.generation_wait_seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        async with call.transaction() as conn:
            run = await runs.get(conn, org_id, run_id)
        if run.status in ("ready", "failed"):
            break
    return run


def _checked(output: Output, style: Style, request: dict[str, Any], text_field: str) -> Output:
    brief = entities(request[text_field])
    output.drafts = [check(d, style, brief) for d in output.drafts]
    return output


async def get_run(conn: AsyncConnection, org_id: str, run_id: str) -> RunRecord:
    return await runs.get(conn, org_id, run_id)


class BuiltinBackend:
    """The built-in engine behind the backend interface the queue uses (a builtin run normally
    finishes inside its call and never reaches the queue)."""

    async def run(
        self, tool: Any, request: dict[str, Any], targets: list[Target], voice: VoiceDocument, style: Style
    ) -> Output:
        return tool.builtin(request, targets, style)


def backends(settings: CoreSettings) -> dict[str, Any]:
    """The backends a worker can run: the built-in engine, and the configured model server."""
    from core.generate.openai_backend import OpenAIBackend

    found: dict[str, Any] = {"builtin": BuiltinBackend()}
    if settings.generation_openai_base_url:
        found["openai"] = OpenAIBackend(settings)
    return found


class GenerateJobs:
    """The `generate_run` jobs: a model backend's runs, on the workers."""

    kind = runs.JOB_KIND

    def __init__(self, settings: CoreSettings, engine: AsyncEngine, backends: dict[str, Any]) -> None:
        self.settings = settings
        self.engine = engine
        self.backends = backends

    async def work(self, job: Job) -> Output:
        now = utcnow()
        async with transaction(self.engine, writes=True) as conn:
            run = await runs.load(conn, job.subject_id)
            await runs.started(conn, run.id, now)
            slugs = [t["profile"] for t in run.input.get("targets", [])]
            found = await _targets(conn, run.org_id, slugs) if slugs else []
            voice, style = await voice_and_style(conn, run.org_id, [pid for pid, _ in found])
        tool = TOOLS[run.tool]
        targets = [Target(t["profile"], t["connector"]) for t in run.input.get("targets", [])]
        backend = self.backends.get(run.backend)
        if backend is None:
            raise JobFailure(
                "GENERATION_FAILED", f"this worker has no {run.backend!r} backend configured", retryable=False
            )
        output = await backend.run(tool, run.input, targets, voice, style)
        return _checked(output, style, run.input, tool.text_field)

    async def record(self, conn: AsyncConnection, job: Job, outcome: Output, now: datetime) -> None:
        await runs.complete(conn, job.subject_id, outcome, now)

    async def give_up(self, conn: AsyncConnection, job: Job, failure: JobFailure, now: datetime) -> None:
        run = await runs.load(conn, job.subject_id)
        await runs.fail(conn, run, failure.code, failure.message, now)
