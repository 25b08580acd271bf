"""Operations of the generation catalogue (docs/writing-tools.md): one tool per writing tool, and
the run a longer call is collected with."""

from __future__ import annotations

from herald.generate.v1 import generate_pb2

from contract import generate as gen
from contract.operation import Operation, Tool
from contract.requests import rpc_path

_ERRORS = ("NOT_FOUND", "INSUFFICIENT_CREDITS", "PAYLOAD_TOO_LARGE")
_RUN = {200: gen.GenerateRun, 202: gen.GenerateRun}
_AFTER = (
    " Every draft is checked before it is returned: it fits the platform as that platform counts, holds no "
    "never-publish phrase and keeps the brief's links and mentions; one that cannot be made to fit says so in "
    "`problems` (fits: false), it is never cut. Answers the run: `ready` with its output, or, when it takes "
    "longer, `queued`/`running` with its id for get_generate_run."
)


def _status(run: generate_pb2.GenerateRun) -> int:
    # Still being made: 202 Accepted, collect it at /v1/generate/runs/{id}.
    return 202 if run.status in (generate_pb2.RUN_STATUS_QUEUED, generate_pb2.RUN_STATUS_RUNNING) else 200


def _row(op_id: str, path: str, method: str, summary: str, request: type, tool: Tool) -> Operation:
    return Operation(
        id=op_id,
        method="POST",
        path=path,
        summary=summary,
        tag="writing",
        rpc=rpc_path(generate_pb2, "GenerateService", method),
        request=request,
        responses=_RUN,
        choose=_status,
        errors=_ERRORS,
        description="Creates a run; 200 when it finished within the call, 202 while it is still being made." + _AFTER,
        links=("run_id", "$response.body#/id", ("getGenerateRun",)),
        tool=tool,
    )


ROWS = (
    _row(
        "generatePost",
        "/v1/generate/posts",
        "GeneratePost",
        "Draft one post per profile from a brief, in the brand voice",
        gen.GeneratePostRequest,
        Tool(
            name="generate_post",
            title="Draft a post",
            description="Draft one post per profile from a brief, in the organization's brand voice, fitting each "
            "profile's platform as that platform counts. With the built-in engine (the default; the run's `backend` "
            "says which) the draft is an arrangement of the brief, not new writing: a hook line (the sentence "
            "carrying the brief's key phrase, on a line of its own), the other sentences tightened (wordy phrasings "
            "and filler removed) and cut to about the length of the voice's example posts, the voice applied "
            "(preferred terms in their casing, the emoji habit and the examples' emoji, signature hashtags, the "
            "examples' hashtag count), hashtags made of the brief's salient words, and no sentence holding a "
            "never-publish phrase. It invents nothing: put the facts, links and @mentions the post needs in the "
            "brief. A deployment with an `openai`-compatible model backend writes freer drafts from the same brief "
            "and voice." + _AFTER,
            idempotent=False,
        ),
    ),
    _row(
        "generateThread",
        "/v1/generate/threads",
        "GenerateThread",
        "Split a long text into a thread per profile",
        gen.GenerateThreadRequest,
        Tool(
            name="generate_thread",
            title="Split a text into a thread",
            description="Split a long text into a thread for each profile (X, Bluesky, Threads, Mastodon): items "
            "packed from whole sentences, each within the platform's limit, never breaking a link, mention, "
            "hashtag or emoji, numbered i/n. A platform without threads gets one post, or its problems. Each "
            "draft's `post` is create_post's fields: put it as customizations[profile] (several destinations) or "
            "as content and thread (one destination)." + _AFTER,
        ),
    ),
    _row(
        "generateVariations",
        "/v1/generate/variations",
        "GenerateVariations",
        "Draft several distinct posts per profile",
        gen.GenerateVariationsRequest,
        Tool(
            name="generate_variations",
            title="Draft variations",
            description="Draft `count` distinct posts per profile from one brief, to choose from or test. The "
            "built-in engine makes them as generate_post does, then as written, led by another sentence, compact, "
            "with more hashtags, with none added (distinct ones only); a model backend writes freer ones." + _AFTER,
        ),
    ),
    _row(
        "generateHashtags",
        "/v1/generate/hashtags",
        "GenerateHashtags",
        "Propose hashtags for a text",
        gen.GenerateHashtagsRequest,
        Tool(
            name="generate_hashtags",
            title="Propose hashtags",
            description="Propose hashtags for a text, best first: its own, the voice's signature hashtags, then "
            "ones made of its keywords; no more than any named profile's platform takes. Answers them under "
            "output.hashtags.",
            read_only=False,
        ),
    ),
    _row(
        "rewriteForDestination",
        "/v1/generate/rewrites",
        "RewriteForDestination",
        "Rewrite a text to fit one profile",
        gen.RewriteForDestinationRequest,
        Tool(
            name="rewrite_for_destination",
            title="Make a text fit a destination",
            description="Rewrite a text so it fits one profile's platform: in the brand voice, shortened by "
            "removing whole units (extra hashtags, asides, sentences without a link or mention), every link and "
            "mention kept." + _AFTER,
        ),
    ),
    Operation(
        id="getGenerateRun",
        method="GET",
        path="/v1/generate/runs/{run_id}",
        summary="A generation run: its status and, once ready, its output",
        tag="writing",
        rpc=rpc_path(generate_pb2, "GenerateService", "GetGenerateRun"),
        request=gen.GetGenerateRunRequest,
        responses={200: gen.GenerateRun},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_generate_run",
            title="Collect a generation run",
            description="Collect the output of a generate_* call that answered `queued` or `running`: call again "
            "with its run_id until the status is `ready` (the output is there) or `failed` (the error says why; "
            "nothing was charged).",
            read_only=True,
            idempotent=True,
        ),
    ),
)
