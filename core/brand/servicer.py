"""herald.brand.v1.BrandVoiceService: translates proto to the brand voice service and back."""

from __future__ import annotations

import grpc
from herald.brand.v1 import brand_pb2, brand_pb2_grpc

from core.brand import service
from core.brand.voice import PreferredTerm, VoiceDocument
from core.errors import Forbidden
from core.identity import profile_limits
from core.identity.principal import CredentialKind
from core.rpc.context import current_call
from core.rpc.convert import timestamp
from core.rpc.policy import MethodPolicy

POLICIES = {
    # Agents read it (generate:read); humans see it in the dashboard with or without a plan.
    "GetBrandVoice": MethodPolicy(
        permission="read", scopes=frozenset({"generate:read"}), plan_exempt_for_sessions=True
    ),
    # Written by humans (dashboard) and servers (API keys), never by agents.
    "UpdateBrandVoice": MethodPolicy(
        permission="publish",
        credential_kinds=frozenset({CredentialKind.API_KEY, CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
        writes=True,
    ),
}

EMOJI = {
    "": brand_pb2.EMOJI_HABIT_UNSPECIFIED,
    "none": brand_pb2.EMOJI_HABIT_NONE,
    "sparing": brand_pb2.EMOJI_HABIT_SPARING,
    "frequent": brand_pb2.EMOJI_HABIT_FREQUENT,
}
HASHTAGS = {
    "": brand_pb2.HASHTAG_HABIT_UNSPECIFIED,
    "none": brand_pb2.HASHTAG_HABIT_NONE,
    "few": brand_pb2.HASHTAG_HABIT_FEW,
    "many": brand_pb2.HASHTAG_HABIT_MANY,
}
_EMOJI_NAMES = {v: k for k, v in EMOJI.items()}
_HASHTAG_NAMES = {v: k for k, v in HASHTAGS.items()}


def voice_message(voice: service.Voice) -> brand_pb2.BrandVoice:
    doc = voice.document
    return brand_pb2.BrandVoice(
        profile=voice.profile,
        version=voice.version,
        profile_version=voice.profile_version,
        description=doc.description,
        tone=doc.tone,
        audience=doc.audience,
        examples=doc.examples,
        never_publish=doc.never_publish,
        preferred_terms=[brand_pb2.PreferredTerm(use=t.use, instead_of=t.instead_of) for t in doc.preferred_terms],
        emoji=EMOJI[doc.emoji],
        hashtags=HASHTAGS[doc.hashtags],
        signature_hashtags=doc.signature_hashtags,
        update_time=timestamp(voice.updated_at),
        updated_by=voice.updated_by,
    )


def document_of(message: brand_pb2.BrandVoice) -> VoiceDocument:
    return VoiceDocument(
        description=message.description,
        tone=tuple(message.tone),
        audience=message.audience,
        examples=tuple(message.examples),
        never_publish=tuple(message.never_publish),
        preferred_terms=tuple(PreferredTerm(t.use, t.instead_of) for t in message.preferred_terms),
        emoji=_EMOJI_NAMES.get(message.emoji, ""),
        hashtags=_HASHTAG_NAMES.get(message.hashtags, ""),
        signature_hashtags=tuple(message.signature_hashtags),
    )


async def _within_limits(call, profile: str) -> None:  # the Call
    """A member with profile limits (core/identity/profile_limits.py) changes the voice of a
    profile within them only; the organization's voice speaks for every profile, so not that."""
    if profile:
        await profile_limits.require_profile(call.conn, call.principal, profile)
    elif call.principal.profile_tags:
        raise Forbidden("your profile limits let you change a profile's voice, not the organization's")


class BrandVoiceServicer(brand_pb2_grpc.BrandVoiceServiceServicer):
    async def GetBrandVoice(
        self, request: brand_pb2.GetBrandVoiceRequest, context: grpc.aio.ServicerContext
    ) -> brand_pb2.BrandVoice:
        call = current_call()
        if request.profile:
            await profile_limits.require_profile(call.conn, call.principal, request.profile)
        return voice_message(await service.get_voice(call.conn, call.principal.org_id, request.profile))

    async def UpdateBrandVoice(
        self, request: brand_pb2.UpdateBrandVoiceRequest, context: grpc.aio.ServicerContext
    ) -> brand_pb2.BrandVoice:
        call = current_call()
        await _within_limits(call, request.voice.profile)
        voice = await service.update_voice(
            call.conn,
            call.principal.org_id,
            call.principal.user_id,
            request.voice.profile,
            document_of(request.voice),
            request.expected_version if request.HasField("expected_version") else None,
            call.now,
        )
        return voice_message(voice)
