"""The generation catalogue's shapes (docs/writing-tools.md): each generate_* tool's arguments, and
the run every call answers with."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from herald.generate.v1 import generate_pb2
from pydantic import Field

from contract.base import FromCatalog, InPath, Request, Response, UniqueStrings, UtcTimestamp, timestamp
from contract.resources import Connector

Brief = Annotated[
    str,
    FromCatalog(lambda c: Field(max_length=c.limits.max_brief_chars)),
    Field(min_length=1, pattern=r"\S", description="What to write about: facts, links, @mentions, #hashtags."),
]
GenerateProfiles = Annotated[
    UniqueStrings,
    FromCatalog(lambda c: Field(min_length=1, max_length=c.limits.max_generate_profiles)),
    Field(description="Profile slugs: one draft (or thread) each, fitting its platform."),
]


class GeneratePostRequest(Request):
    brief: Brief
    profiles: GenerateProfiles

    def to_proto(self) -> generate_pb2.GeneratePostRequest:
        return generate_pb2.GeneratePostRequest(brief=self.brief, profiles=self.profiles)


class GenerateThreadRequest(Request):
    text: Annotated[
        str,
        FromCatalog(lambda c: Field(max_length=c.limits.max_thread_text_chars)),
        Field(min_length=1, pattern=r"\S", description="The text to split into a thread."),
    ]
    profiles: GenerateProfiles
    numbered: bool = Field(default=True, description="End each item with i/n when there are several.")

    def to_proto(self) -> generate_pb2.GenerateThreadRequest:
        return generate_pb2.GenerateThreadRequest(text=self.text, profiles=self.profiles, numbered=self.numbered)


class GenerateVariationsRequest(Request):
    brief: Brief
    profiles: GenerateProfiles
    count: Annotated[
        int,
        FromCatalog(lambda c: Field(ge=1, le=c.limits.max_variations)),
        Field(description="Distinct drafts per profile."),
    ] = 3

    def to_proto(self) -> generate_pb2.GenerateVariationsRequest:
        return generate_pb2.GenerateVariationsRequest(brief=self.brief, profiles=self.profiles, count=self.count)


class GenerateHashtagsRequest(Request):
    text: Brief
    profiles: Annotated[
        UniqueStrings,
        FromCatalog(lambda c: Field(max_length=c.limits.max_generate_profiles)),
        Field(description="Profiles whose platforms bound the number of hashtags (optional)."),
    ] = []
    count: Annotated[
        int, FromCatalog(lambda c: Field(ge=1, le=c.limits.max_hashtags)), Field(description="The most hashtags.")
    ] = 5

    def to_proto(self) -> generate_pb2.GenerateHashtagsRequest:
        return generate_pb2.GenerateHashtagsRequest(text=self.text, profiles=self.profiles, count=self.count)


class RewriteForDestinationRequest(Request):
    text: Brief
    profile: str = Field(min_length=1, description="The profile slug to fit.")

    def to_proto(self) -> generate_pb2.RewriteForDestinationRequest:
        return generate_pb2.RewriteForDestinationRequest(text=self.text, profile=self.profile)


class GetGenerateRunRequest(Request):
    run_id: Annotated[str, InPath(), Field(min_length=1, description="The run's `id` (`run_…`).")]

    def to_proto(self) -> generate_pb2.GetGenerateRunRequest:
        return generate_pb2.GetGenerateRunRequest(run_id=self.run_id)


class DraftPart(Response):
    text: str
    length: int = Field(description="As the platform counts it.")
    max_length: int
    unit: str


class DraftThreadItem(Response):
    content: str


class DraftPost(Response):
    """The draft as create_post takes it: `customizations[profile] = post`, or for one destination
    `content` and `thread` at the top level."""

    content: str
    thread: list[DraftThreadItem] | None = Field(description="The thread's items after the first; null for one post.")


class GeneratedDraft(Response):
    profile: str
    connector: Connector
    variant: int = Field(ge=1)
    parts: list[DraftPart] = Field(description="The post, or the thread's items in order.")
    fits: bool = Field(description="Every check passed: fits, no never-publish phrase, links and mentions kept.")
    problems: list[str]
    post: DraftPost = Field(description="The parts as create_post's fields: content, then the thread.")


class GeneratedOutput(Response):
    drafts: list[GeneratedDraft]
    hashtags: list[str]
    notes: list[str] = Field(description="What the run could not do as asked.")


class RunError(Response):
    code: str = Field(description="GENERATION_FAILED, GENERATION_TIMEOUT, RATE_LIMITED, INTERNAL.")
    message: str


_RUN_STATUS = {
    generate_pb2.RUN_STATUS_QUEUED: "queued",
    generate_pb2.RUN_STATUS_RUNNING: "running",
    generate_pb2.RUN_STATUS_READY: "ready",
    generate_pb2.RUN_STATUS_FAILED: "failed",
}


class GenerateRun(Response):
    """One call of a writing tool. `ready`: the output is there; `queued`/`running`: collect it
    later with get_generate_run; `failed`: the error says why (nothing was charged)."""

    id: Annotated[str, Field(pattern="^run_")]
    tool: str
    status: Literal["queued", "running", "ready", "failed"]
    backend: str
    output: GeneratedOutput | None
    error: RunError | None
    cost: int = Field(ge=0, description="Credits charged (0 once refunded).")
    created_at: UtcTimestamp
    finished_at: UtcTimestamp | None

    @classmethod
    def from_proto(cls, r: generate_pb2.GenerateRun) -> dict[str, Any]:
        output = None
        if r.HasField("output"):
            output = {
                "drafts": [
                    {
                        "profile": d.profile,
                        "connector": d.connector,
                        "variant": d.variant,
                        "parts": [
                            {"text": p.text, "length": p.length, "max_length": p.max_length, "unit": p.unit}
                            for p in d.parts
                        ],
                        "fits": d.fits,
                        "problems": list(d.problems),
                        "post": {
                            "content": d.parts[0].text if d.parts else "",
                            "thread": [{"content": p.text} for p in d.parts[1:]] if len(d.parts) > 1 else None,
                        },
                    }
                    for d in r.output.drafts
                ],
                "hashtags": list(r.output.hashtags),
                "notes": list(r.output.notes),
            }
        return {
            "id": r.id,
            "tool": r.tool,
            "status": _RUN_STATUS[r.status],
            "backend": r.backend,
            "output": output,
            "error": {"code": r.error.code, "message": r.error.message} if r.HasField("error") else None,
            "cost": r.cost,
            "created_at": timestamp(r.create_time),
            "finished_at": timestamp(r.finish_time) if r.HasField("finish_time") else None,
        }
