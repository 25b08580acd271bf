"""Operations on the organization's profiles and credits."""

from __future__ import annotations

from herald.credits.v1 import credits_pb2
from herald.profiles.v1 import profiles_pb2

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
)
