"""The `openai` generation backend: any server speaking the OpenAI-compatible chat-completions API
(vLLM, llama.cpp's server, Ollama, hosted services), through the official `openai` client.

The request carries the brand voice, each destination's real limit and counting (from the same
rules creation checks) and the tool's task; it asks for JSON matching a schema (structured
output where the server supports it), at temperature 0 with a fixed seed for repeatable output.
What comes back is parsed strictly and then checked like any output (core/generate/outputs.py):
a model that ignores a limit gets its draft reported as not fitting, never cut. Failures map to
stable codes a run records: GENERATION_TIMEOUT, RATE_LIMITED, GENERATION_FAILED.
"""

from __future__ import annotations

import json
from typing import Any

import openai
from pydantic import BaseModel, ConfigDict, ValidationError

from core.brand.voice import VoiceDocument
from core.generate.catalogue import Tool
from core.generate.outputs import Draft, Output, Style, Target
from core.jobs.runner import JobFailure
from core.posts.rules import PLATFORM_LIMITS
from core.settings import CoreSettings

SEED = 7


class _Draft(BaseModel):
    model_config = ConfigDict(extra="forbid")
    profile: str
    variant: int = 1
    parts: list[str]


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    drafts: list[_Draft] = []
    hashtags: list[str] = []


SCHEMA = {
    "type": "object",
    "properties": {
        "drafts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "profile": {"type": "string"},
                    "variant": {"type": "integer"},
                    "parts": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["profile", "variant", "parts"],
                "additionalProperties": False,
            },
        },
        "hashtags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["drafts", "hashtags"],
    "additionalProperties": False,
}


def _voice_text(voice: VoiceDocument) -> str:
    lines = []
    if voice.description:
        lines.append(f"Voice: {voice.description}")
    if voice.tone:
        lines.append(f"Tone: {', '.join(voice.tone)}")
    if voice.audience:
        lines.append(f"Audience: {voice.audience}")
    for i, example in enumerate(voice.examples, 1):
        lines.append(f"Approved example {i}: {example}")
    for term in voice.preferred_terms:
        lines.append(f"Write '{term.use}', never '{term.instead_of}'.")
    lines.append(f"Emoji: {voice.emoji}. Hashtags: {voice.hashtags}.")
    if voice.signature_hashtags:
        lines.append(f"Signature hashtags: {' '.join(voice.signature_hashtags)}")
    if voice.never_publish:
        lines.append("Never write any of these phrases: " + "; ".join(voice.never_publish))
    return "\n".join(lines)


def messages(tool: Tool, request: dict[str, Any], targets: list[Target], voice: VoiceDocument) -> list[dict[str, str]]:
    destinations = "\n".join(
        f"- profile {t.profile!r}: {PLATFORM_LIMITS[t.connector]['name']}, at most "
        f"{PLATFORM_LIMITS[t.connector]['max_length']} {PLATFORM_LIMITS[t.connector]['unit']} "
        f"({PLATFORM_LIMITS[t.connector]['counting']})"
        for t in targets
    )
    system = (
        "You write social media posts for one organization, in its brand voice. Keep every link and "
        "@mention of the brief exactly as written. Stay within each destination's limit as that platform "
        "counts. Answer only with JSON matching the given schema.\n\n" + _voice_text(voice)
    )
    arguments = {k: v for k, v in request.items() if k != "targets"}
    user = f"Task: {tool.task}\nDestinations:\n{destinations or '- none named'}\nArguments: {json.dumps(arguments, ensure_ascii=False)}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


class OpenAIBackend:
    def __init__(self, settings: CoreSettings) -> None:
        self.model = settings.generation_openai_model
        self.client = openai.AsyncOpenAI(
            base_url=settings.generation_openai_base_url or None,
            api_key=settings.generation_openai_api_key.get_secret_value() or "unused",
            timeout=settings.generation_timeout_seconds,
            max_retries=0,  # the job queue retries, with backoff, across workers
        )

    async def close(self) -> None:
        await self.client.close()

    async def run(
        self, tool: Tool, request: dict[str, Any], targets: list[Target], voice: VoiceDocument, style: Style
    ) -> Output:
        try:
            response = await self.client.chat.completions.create(
                model=self.model,
                messages=messages(tool, request, targets, voice),  # type: ignore[arg-type]
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "herald_drafts", "strict": True, "schema": SCHEMA},
                },
                temperature=0,
                seed=SEED,
            )
        except openai.APITimeoutError:
            raise JobFailure(
                "GENERATION_TIMEOUT", "the generation backend did not answer in time", retryable=True
            ) from None
        except openai.RateLimitError as error:
            raise JobFailure(
                "RATE_LIMITED",
                "the generation backend's rate limit was reached",
                retryable=True,
                retry_after=_retry_after(error),
            ) from None
        except openai.APIConnectionError:
            raise JobFailure(
                "GENERATION_FAILED", "the generation backend could not be reached", retryable=True
            ) from None
        except openai.APIStatusError as error:
            retryable = error.status_code >= 500
            raise JobFailure(
                "GENERATION_FAILED", f"the generation backend answered {error.status_code}", retryable=retryable
            ) from None
        return _output(response, targets)


def _retry_after(error: openai.RateLimitError) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _output(response: Any, targets: list[Target]) -> Output:  # a ChatCompletion
    """The model's answer as an Output; an answer that is not the schema's JSON fails the attempt
    (retried: another attempt may answer well)."""
    try:
        content = response.choices[0].message.content or ""
        answer = _Answer.model_validate(json.loads(content))
    except (IndexError, AttributeError, ValueError, ValidationError):
        raise JobFailure(
            "GENERATION_FAILED",
            "the generation backend answered something that is not the expected JSON",
            retryable=True,
        ) from None
    connectors = {t.profile: t.connector for t in targets}
    drafts = []
    for draft in answer.drafts:
        if draft.profile not in connectors:
            continue  # a profile nobody asked for is ignored
        drafts.append(Draft(draft.profile, connectors[draft.profile], draft.variant, list(draft.parts)))
    answered = {d.profile for d in drafts}
    for target in targets:
        if target.profile not in answered:
            drafts.append(
                Draft(target.profile, target.connector, 1, [""], ["the backend wrote no draft for this profile"])
            )
    return Output(drafts, [h if h.startswith("#") else f"#{h}" for h in answer.hashtags if h.strip()])
