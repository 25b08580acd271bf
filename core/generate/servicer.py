"""herald.generate.v1.GenerateService: translates proto to the writing tools and back."""

from __future__ import annotations

from typing import Any

import grpc
from herald.generate.v1 import generate_pb2, generate_pb2_grpc

from core.generate import service
from core.generate.messages import run_message
from core.rpc.context import current_call
from core.rpc.policy import MethodPolicy

# Runs write (the run, its charge, its job) in transactions of their own, and a call may wait for
# its run: no transaction stays open meanwhile.
_WRITE = MethodPolicy(scopes=frozenset({"generate:write"}), writes=True, transactional=False, permission="compose")

POLICIES = {
    "GeneratePost": _WRITE,
    "GenerateThread": _WRITE,
    "GenerateVariations": _WRITE,
    "GenerateHashtags": _WRITE,
    "RewriteForDestination": _WRITE,
    "GetGenerateRun": MethodPolicy(permission="read", scopes=frozenset({"generate:read"})),
}


async def _generate(tool: str, request: dict[str, Any]) -> generate_pb2.GenerateRun:
    return run_message(await service.generate(current_call(), tool, request))


class GenerateServicer(generate_pb2_grpc.GenerateServiceServicer):
    async def GeneratePost(
        self, request: generate_pb2.GeneratePostRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        return await _generate("generate_post", {"brief": request.brief, "profiles": list(request.profiles)})

    async def GenerateThread(
        self, request: generate_pb2.GenerateThreadRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        arguments: dict[str, Any] = {"text": request.text, "profiles": list(request.profiles)}
        if request.HasField("numbered"):
            arguments["numbered"] = request.numbered
        return await _generate("generate_thread", arguments)

    async def GenerateVariations(
        self, request: generate_pb2.GenerateVariationsRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        return await _generate(
            "generate_variations", {"brief": request.brief, "profiles": list(request.profiles), "count": request.count}
        )

    async def GenerateHashtags(
        self, request: generate_pb2.GenerateHashtagsRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        return await _generate(
            "generate_hashtags", {"text": request.text, "profiles": list(request.profiles), "count": request.count}
        )

    async def RewriteForDestination(
        self, request: generate_pb2.RewriteForDestinationRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        return await _generate("rewrite_for_destination", {"text": request.text, "profiles": [request.profile]})

    async def GetGenerateRun(
        self, request: generate_pb2.GetGenerateRunRequest, context: grpc.aio.ServicerContext
    ) -> generate_pb2.GenerateRun:
        call = current_call()
        return run_message(await service.get_run(call.conn, call.principal.org_id, request.run_id))
