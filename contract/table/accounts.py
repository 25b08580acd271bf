"""Operations on the organization's profiles, credits and settings."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from herald.identity.v1 import accounts_pb2
from herald.profiles.v1 import profiles_pb2

from contract import organization as org
from contract import requests as rq
from contract import resources as rs
from contract.operation import Operation, Tool
from contract.requests import rpc_path

ROWS = (
    Operation(
        id="listProfiles",
        method="GET",
        path="/v1/profiles",
        summary="List the organization's connected profiles, in slug order",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "ListProfiles"),
        request=rq.ListProfilesRequest,
        responses={200: rs.ProfileList},
        errors=("VALIDATION_ERROR",),
        tool=Tool(
            name="list_profiles",
            title="List connected profiles",
            description="List the social profiles connected to the organization (slug, platform as `connector`, "
            "display name, tags), in slug order, optionally only those with a tag. Use the slugs in "
            "create_post's `profiles`. Paged: pass next_page_token back as page_token.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="getProfile",
        method="GET",
        path="/v1/profiles/{slug}",
        summary="One profile",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "GetProfile"),
        request=rq.GetProfileRequest,
        responses={200: rs.Profile},
        errors=("NOT_FOUND",),
    ),
    Operation(
        id="getProfileSlots",
        method="GET",
        path="/v1/profiles/{slug}/slots",
        summary="A profile's publishing time slots",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "GetProfileSlots"),
        request=rq.GetProfileSlotsRequest,
        responses={200: rs.ProfileSlots},
        errors=("NOT_FOUND",),
        tool=Tool(
            name="get_profile_slots",
            title="Get a profile's time slots",
            description="Read a profile's weekly publishing times (its IANA time zone and {day, time} slots): the "
            "times create_post with next_slot true fills, each profile's next free one.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="setProfileSlots",
        method="PUT",
        path="/v1/profiles/{slug}/slots",
        summary="Replace a profile's publishing time slots",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "SetProfileSlots"),
        request=rq.SetProfileSlotsRequest,
        responses={200: rs.ProfileSlots},
        errors=("VALIDATION_ERROR", "NOT_FOUND"),
        description="`timezone` is an IANA name; `slots` are `{day: mon..sun, time: HH:MM}` in that zone. A slot "
        "that does not exist on a day (daylight saving starts) moves to the first minute after the gap; one that "
        "exists twice (it ends) is its first occurrence.",
        tool=Tool(
            name="set_profile_slots",
            title="Set a profile's time slots",
            description="Replace a profile's weekly publishing times: timezone (IANA, e.g. Europe/Paris) and slots "
            "[{day: mon..sun, time: HH:MM}]. Posts created with next_slot true take the next free one. [] clears.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updateProfile",
        method="PATCH",
        path="/v1/profiles/{slug}",
        summary="Change a profile's settings (display name, tags, default language)",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "UpdateProfile"),
        request=rq.UpdateProfileRequest,
        responses={200: rs.Profile},
        errors=("VALIDATION_ERROR", "NOT_FOUND"),
        description="Absent fields are kept; at least one must be sent. `display_name` is trimmed, then 1 to 200 "
        "characters. `tags` replaces the profile's tags (`[]` removes them all; the rules of creation: each 1-64 "
        "of a-z 0-9 _ : -, stored lowercase, at most 20); the tag filters read them as they are now. "
        "`default_language` is a BCP 47 tag (e.g. `en`, `pt-BR`) the profile's posts get when a post "
        'names no `language`; "" removes it. Posts already created keep theirs. A refused request changes nothing.',
        tool=Tool(
            name="update_profile",
            title="Change a profile's settings",
            description="Change a profile's display_name (1-200 characters), its tags (the list replaces them all; "
            "[] removes them; each 1-64 of a-z 0-9 _ : -) or its default_language (the BCP 47 tag, e.g. en, pt-BR, "
            'its posts are sent with when create_post names no language; "" removes it). Send only what changes. '
            "Tags group profiles: list_profiles with a tag finds them. Returns the profile.",
            destructive=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="deleteProfile",
        method="DELETE",
        path="/v1/profiles/{slug}",
        summary="Delete a profile without an account, with its past posts",
        tag="profiles",
        rpc=rpc_path(profiles_pb2, "ProfileService", "DeleteProfile"),
        request=rq.DeleteProfileRequest,
        responses={200: rs.Profile},
        errors=("NOT_FOUND", "PROFILE_IN_USE"),
        description="Answers the profile as it was. Only a profile that holds no platform account (`sandbox` or "
        "`disconnected`: disconnect a connected one first) and has no post that has not gone out (draft, "
        "scheduled, queued, publishing: cancel them first); otherwise `PROFILE_IN_USE` and nothing changes. Its "
        "past posts (published, failed, canceled), their outbox entries, its tags, time slots and brand voice "
        "override are deleted with it; the credit ledger keeps its entries. Cannot be undone. API keys only "
        "(and dashboard sessions): agents have no tool for it.",
    ),
    Operation(
        id="getCredits",
        method="GET",
        path="/v1/credits",
        summary="The organization's credit balance, plan and most recent ledger entries",
        tag="credits",
        rpc=rpc_path(credits_pb2, "CreditsService", "GetCreditAccount"),
        request=rq.GetCreditsRequest,
        responses={200: rs.CreditAccount},
        errors=("VALIDATION_ERROR",),
    ),
    Operation(
        id="listLedgerEntries",
        method="GET",
        path="/v1/credits/ledger",
        summary="The credit ledger, newest first",
        tag="credits",
        rpc=rpc_path(credits_pb2, "CreditsService", "ListLedgerEntries"),
        request=rq.ListLedgerRequest,
        responses={200: rs.LedgerPage},
        errors=("VALIDATION_ERROR",),
    ),
    Operation(
        id="getOrganization",
        method="GET",
        path="/v1/organization",
        summary="The organization's settings: its name and time zone",
        tag="organization",
        rpc=rpc_path(accounts_pb2, "AccountService", "GetOrganization"),
        request=org.GetOrganizationRequest,
        responses={200: org.Organization},
        description="The organization is the credential's. `time_zone` (an IANA name, `UTC` by default) is the "
        "zone its people work in: the dashboard shows and chooses times in it. Every time the API takes or "
        "answers (`schedule_at`, `created_at`…) stays an ISO 8601 instant.",
        tool=Tool(
            name="get_organization",
            title="Read the organization's settings",
            description="Read the organization you act for: id, slug, name and time_zone (an IANA name such as "
            "Europe/Paris, UTC by default). time_zone is the organization's default zone for showing and choosing "
            'times: when a person says "9:30 tomorrow" without a zone, it means 9:30 there, and show them times '
            "in it. schedule_at and every time you send or read stay ISO 8601 instants: convert a local time to "
            "an instant with its offset (e.g. 2026-11-28T09:30:00+01:00) before create_post. Read-only: agents "
            "cannot change these settings.",
            read_only=True,
            idempotent=True,
        ),
    ),
    Operation(
        id="updateOrganization",
        method="PATCH",
        path="/v1/organization",
        summary="Change the organization's settings (its name, its time zone)",
        tag="organization",
        rpc=rpc_path(accounts_pb2, "AccountService", "UpdateOrganization"),
        request=org.UpdateOrganizationRequest,
        responses={200: org.Organization},
        errors=("VALIDATION_ERROR", "FORBIDDEN"),
        description="Absent fields are kept; a GET body sent back is accepted (`id`, `slug` and `created_at` "
        "are output only, ignored). `name` is trimmed, then 1 to 200 characters; `time_zone` must be an IANA "
        "name (`UTC` included). A refused request changes nothing. API keys and dashboard sessions only: agents "
        "do not change the organization's settings (no MCP tool; an OAuth access token is `FORBIDDEN`).",
    ),
)
