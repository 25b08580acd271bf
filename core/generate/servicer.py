"""herald.generate.v1.GenerateService: translates proto to the writing tools and back."""

from __future__ import annotations

from typing import Any

from herald.generate.v1 import generate_pb2, generate_pb2_grpc

from core.generate import service
from core.generate.drafts import measured
from core.generate.runs import RunRecord
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy

# Runs write (the run, its charge, its job) in transactions of their own, and a call may wait for
# its run: no transaction stays open meanwhile.
_WRITE = MethodPolicy(scopes=frozenset({"generate:write"}), writes=True, transactional=False)

POLICIES = {
    "GeneratePost": _WRITE,
    "GenerateThread": _WRITE,
    "GenerateVariations": _WRITE,
    "GenerateHashtags": _WRITE,
    "RewriteForDestination": _WRITE,
    "GetGenerateRun": MethodPolicy(scopes=frozenset({"generate:read"})),
}

_STATUS = {
    "queued": generate_pb2.RUN_STATUS_QUEUED,
    "running": generate_pb2.RUN_STATUS_RUNNING,
    "ready": generate_pb2.RUN_STATUS_READY,
    "failed": generate_pb2.RUN_STATUS_FAILED,
}


def run_message(run: RunRecord) -> generate_pb2.GenerateRun:
    message = generate_pb2.GenerateRun(
        id=run.id,
        tool=run.tool,
        status=_STATUS[run.status],
        backend=run.backend,
        cost=run.charged,
        create_time=timestamp(run.created_at),
        finish_time=timestamp(run.finished_at),
    )
    if run.output is not None:
        message.output.CopyFrom(
            generate_pb2.GenerateOutput(
                drafts=[
                    generate_pb2.Draft(
                        profile=d.profile,
                        connector=d.connector,
                        variant=d.variant,
                        parts=[_part(d.connector, text) for text in d.parts],
                        fits=d.fits,
                        problems=d.problems,
                    )
                    for d in run.output.drafts
                ],
                hashtags=run.output.hashtags,
                notes=run.output.notes,
            )
        )
    if run.error_code:
        message.error.CopyFrom(generate_pb2.RunError(code=run.error_code, message=run.error_message))
    return message


def _part(connector: str, text: str) -> generate_pb2.Part:
    length, limit, unit = measured(connector, text)
    return generate_pb2.Part(text=text, length=length, max_length=limit, unit=unit)


async def _generate(tool: str, request: dict[str, Any]) -> generate_pb2.GenerateRun:
    return run_message(await service.generate(current_call(), tool, request))


class GenerateServicer(generate_pb2_grpc.GenerateServiceServicer):
    async def GeneratePost(self, request, context):  # noqa: ANN001, ANN201, N802
        return await _generate("generate_post", {"brief": request.brief, "profiles": list(request.profiles)})

    async def GenerateThread(self, request, context):  # noqa: ANN001, ANN201, N802
        arguments: dict[str, Any] = {"text": request.text, "profiles": list(request.profiles)}
        if request.HasField("numbered"):
            arguments["numbered"] = request.numbered
        return await _generate("generate_thread", arguments)

    async def GenerateVariations(self, request, context):  # noqa: ANN001, ANN201, N802
        return await _generate(
            "generate_variations", {"brief": request.brief, "profiles": list(request.profiles), "count": request.count}
        )

    async def GenerateHashtags(self, request, context):  # noqa: ANN001, ANN201, N802
        return await _generate(
            "generate_hashtags", {"text": request.text, "profiles": list(request.profiles), "count": request.count}
        )

    async def RewriteForDestination(self, request, context):  # noqa: ANN001, ANN201, N802
        return await _generate("rewrite_for_destination", {"text": request.text, "profiles": [request.profile]})

    async def GetGenerateRun(self, request, context):  # noqa: ANN001, ANN201, N802
        call = current_call()
        return run_message(await service.get_run(call.conn, call.principal.org_id, request.run_id))
