"""herald.profiles.v1.ProfileService: translates proto to the profiles service and back.

A member's profile limits (core/identity/profile_limits.py) hold in every method: a profile
outside them is NOT_FOUND (require_profile: no query without limits), lists leave it out, and a
profile a limited member makes or retags keeps one of their tags."""

from __future__ import annotations

import grpc
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc

from core.catalog.service import platform_message
from core.identity import profile_limits
from core.identity.principal import CredentialKind
from core.pagination import page_request
from core.posts import slot_assignment
from core.posts.slot_table import SlotTable
from core.profiles import events, service
from core.profiles.messages import profile_message
from core.rpc.context import current_call
from core.rpc.policy import MethodPolicy, PageBounds

_READ = frozenset({"posts:read"})

POLICIES = {
    # Humans see their profiles in the dashboard with or without a plan; keys and tokens need one.
    "ListProfiles": MethodPolicy(
        permission="read", scopes=_READ, plan_exempt_for_sessions=True, page=PageBounds(default=100, maximum=500)
    ),
    "GetProfile": MethodPolicy(permission="read", scopes=_READ, plan_exempt_for_sessions=True),
    # The dashboard's "connect a sandbox profile" form: humans only, with or without a plan.
    # Writing tools (docs/api.md, "Authentication": generate:read reads destination limits).
    "GetDestinationLimits": MethodPolicy(permission="read", scopes=frozenset({"generate:read"})),
    # Time slots decide when posts go out: reading them is reading posts, setting them is scheduling.
    "GetProfileSlots": MethodPolicy(permission="read", scopes=_READ),
    "SetProfileSlots": MethodPolicy(permission="publish", scopes=frozenset({"posts:write"}), writes=True),
    # A profile's default language decides what its posts are sent with, its tags which posts
    # go to it: changing them is writing posts. Humans change them with or without a plan.
    "UpdateProfile": MethodPolicy(
        permission="manage_integrations", scopes=frozenset({"posts:write"}), plan_exempt_for_sessions=True, writes=True
    ),
    "CreateProfile": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=frozenset({CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
        writes=True,
    ),
    # Deleting a profile drops its posts' history and cannot be undone: humans and their servers
    # only, never agents (docs/api.md, "Deleting a profile").
    "DeleteProfile": MethodPolicy(
        permission="manage_integrations",
        credential_kinds=frozenset({CredentialKind.API_KEY, CredentialKind.SESSION}),
        plan_exempt_for_sessions=True,
        writes=True,
    ),
}


def slots_message(table: SlotTable) -> profiles_pb2.ProfileSlots:
    return profiles_pb2.ProfileSlots(
        timezone=table.timezone, slots=[profiles_pb2.TimeSlot(day=s.day, time=s.time) for s in table.slots]
    )


class ProfileServicer(profiles_pb2_grpc.ProfileServiceServicer):
    async def GetProfileSlots(
        self, request: profiles_pb2.GetProfileSlotsRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.ProfileSlots:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        return slots_message(await slot_assignment.get_slots(call.conn, call.principal.org_id, request.slug))

    async def SetProfileSlots(
        self, request: profiles_pb2.SetProfileSlotsRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.ProfileSlots:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        slots = [{"day": s.day, "time": s.time} for s in request.slots]
        table = await slot_assignment.set_slots(call.conn, call.principal.org_id, request.slug, request.timezone, slots)
        return slots_message(table)

    async def ListProfiles(
        self, request: profiles_pb2.ListProfilesRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.ListProfilesResponse:
        call = current_call()
        page = page_request(request.page_size, request.page_token, POLICIES["ListProfiles"].page)
        found, token = await service.list_profiles(
            call.conn, call.principal.org_id, tag=request.tag, page=page, limited_to=call.principal.profile_tags
        )
        return profiles_pb2.ListProfilesResponse(profiles=[profile_message(p) for p in found], next_page_token=token)

    async def GetProfile(
        self, request: profiles_pb2.GetProfileRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.Profile:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        return profile_message(await service.get_profile(call.conn, call.principal.org_id, request.slug))

    async def CreateProfile(
        self, request: profiles_pb2.CreateProfileRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.Profile:
        call = current_call()
        profile = request.profile
        profile_limits.require_kept(call.principal, profile.tags)
        created = await service.create_profile(
            call.conn,
            call.principal.org_id,
            slug=profile.slug,
            connector=profile.connector,
            display_name=profile.display_name,
            tags=list(profile.tags),
            now=call.now,
            default_language=profile.default_language,
        )
        return profile_message(created)

    async def UpdateProfile(
        self, request: profiles_pb2.UpdateProfileRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.Profile:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        if request.update_tags:
            profile_limits.require_kept(call.principal, request.tags)
        change = service.ProfileChange(
            display_name=request.display_name if request.HasField("display_name") else None,
            tags=list(request.tags) if request.update_tags else None,
            default_language=request.default_language if request.HasField("default_language") else None,
        )
        changed = await service.update_profile(call.conn, call.principal.org_id, request.slug, change)
        return profile_message(changed)

    async def DeleteProfile(
        self, request: profiles_pb2.DeleteProfileRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.Profile:
        call = current_call()
        await profile_limits.require_profile(call.conn, call.principal, request.slug)
        org_id = call.principal.org_id
        deleted = await service.delete_profile(call.conn, org_id, request.slug, validate_only=request.validate_only)
        if not request.validate_only:
            await events.emit_profile(call.conn, org_id, deleted, "profile.deleted", call.now)
        return profile_message(deleted)

    async def GetDestinationLimits(
        self, request: profiles_pb2.GetDestinationLimitsRequest, context: grpc.aio.ServicerContext
    ) -> profiles_pb2.GetDestinationLimitsResponse:
        call = current_call()
        found = await service.profiles_for_limits(
            call.conn, call.principal.org_id, list(request.profiles), limited_to=call.principal.profile_tags
        )
        return profiles_pb2.GetDestinationLimitsResponse(
            destinations=[
                profiles_pb2.DestinationLimits(
                    profile=p.slug, display_name=p.display_name, platform=platform_message(p.connector)
                )
                for p in found
            ]
        )
