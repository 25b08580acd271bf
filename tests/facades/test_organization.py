"""The organization's settings (issue 31; docs/api.md, "Organization settings"): GET and PATCH
/v1/organization, its name and its IANA time zone; agents read them (`get_organization`) and
never change them; one organization's change never touches another's."""

from __future__ import annotations

import re
import uuid

import grpc
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, identity_pb2, identity_pb2_grpc

from core import admin
from harness.oauth_flow import PASSWORD, mcp, register, sign_in, tokens_for
from tests.conftest import LOW_CREDIT_THRESHOLD
from tests.core.rpc_helpers import error_info
from tests.messages import names

CREATED_AT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$")


@pytest.fixture
async def org(orgs):
    return await orgs()


async def _read(http, org) -> dict:
    response = await http.get("/v1/organization", headers=org.auth)
    assert response.status_code == 200, response.text
    return response.json()


async def _agent_token(http, channel, org, scope: str) -> str:
    session = await sign_in(channel, org.email)
    return (await tokens_for(http, session, (await register(http))["client_id"], scope))["access_token"]


async def test_a_new_organization_is_named_by_its_slug_and_in_utc(http, org) -> None:
    body = await _read(http, org)
    assert CREATED_AT.match(body.pop("created_at"))
    assert body == {
        "id": org.org_id,
        "slug": org.slug,
        "name": org.slug,
        "time_zone": "UTC",
        # Nothing waits for approval until the organization says so (docs/teams.md, "Approvals").
        "approvals_required_for": [],
        "approval_profile_tags": [],
        "self_approval": False,
    }


async def test_patch_changes_only_the_fields_it_sends(http, org) -> None:
    zoned = await http.patch("/v1/organization", json={"time_zone": "Europe/Paris"}, headers=org.auth)
    assert zoned.status_code == 200, zoned.text
    assert (zoned.json()["time_zone"], zoned.json()["name"]) == ("Europe/Paris", org.slug)
    named = await http.patch("/v1/organization", json={"name": "  Acme, Inc.  "}, headers=org.auth)
    assert (named.json()["name"], named.json()["time_zone"]) == ("Acme, Inc.", "Europe/Paris")
    assert await _read(http, org) == named.json()
    both = await http.patch(
        "/v1/organization", json={"name": "Acme", "time_zone": "America/Argentina/Buenos_Aires"}, headers=org.auth
    )
    assert (both.json()["name"], both.json()["time_zone"]) == ("Acme", "America/Argentina/Buenos_Aires")
    # 200 characters once trimmed is the longest name; UTC is always a zone.
    longest = await http.patch(
        "/v1/organization", json={"name": f" {'n' * 200}\t", "time_zone": "UTC"}, headers=org.auth
    )
    assert (longest.status_code, longest.json()["name"], longest.json()["time_zone"]) == (200, "n" * 200, "UTC")


@pytest.mark.parametrize(
    "body",
    [
        {"time_zone": "Mars/Olympus_Mons"},
        {"time_zone": "europe/paris"},  # names are case-sensitive, as in the zone database
        {"time_zone": "localtime"},  # a file of the database, not a zone
        {"time_zone": "../../etc/passwd"},
        {"time_zone": ""},
        {"time_zone": "x" * 65},
        {"time_zone": None},
        {"time_zone": 1},
        {"name": ""},
        {"name": "   "},
        {"name": "n" * 201},
        {"name": "two\nlines"},
        {"name": None},
        {"name": ["Acme"]},
        {},  # nothing to change
        {"name": "Fine", "time_zone": "Nowhere/Zone"},  # one bad field: the good one is not saved either
        {"name": "Fine", "plan": "active"},  # not a setting
        {"name": "Fine", "time_zones": "Europe/Paris"},  # a typo
    ],
)
async def test_a_refused_patch_is_a_validation_error_and_changes_nothing(http, org, body) -> None:
    before = await _read(http, org)
    response = await http.patch("/v1/organization", json=body, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR"), response.text
    assert await _read(http, org) == before


async def test_an_unknown_zone_is_refused_naming_the_field(http, org) -> None:
    response = await http.patch("/v1/organization", json={"time_zone": "Mars/Olympus_Mons"}, headers=org.auth)
    assert response.json()["code"] == "VALIDATION_ERROR"
    assert names(response.json(), "time_zone")


async def test_a_body_read_can_be_edited_and_sent_back_whole(http, orgs) -> None:
    """GET, change a field, PATCH the whole body back: its output-only fields (id, slug,
    created_at, and the low-credit `warning`) are ignored, whatever their values."""
    org = await orgs(credits=LOW_CREDIT_THRESHOLD - 1)
    read = await _read(http, org)
    assert read["warning"]["code"] == "low_credits"  # a GET body may carry it: sent back, it is ignored
    saved = await http.patch("/v1/organization", json={**read, "time_zone": "Asia/Tokyo"}, headers=org.auth)
    assert saved.status_code == 200, saved.text
    assert {k: v for k, v in saved.json().items() if k != "time_zone"} == {
        k: v for k, v in read.items() if k != "time_zone"
    }
    odd = {**saved.json(), "id": "org_someone_else", "slug": "not-mine", "created_at": 5, "warning": None}
    again = await http.patch("/v1/organization", json={**odd, "name": "Renamed"}, headers=org.auth)
    assert again.status_code == 200, again.text
    assert (again.json()["id"], again.json()["slug"], again.json()["created_at"]) == (
        read["id"],
        read["slug"],
        read["created_at"],
    )
    assert (again.json()["name"], again.json()["time_zone"]) == ("Renamed", "Asia/Tokyo")


@pytest.mark.one_backend  # the contract's schema: no SQL decides it
async def test_the_schema_marks_output_only_fields(http) -> None:
    components = (await http.get("/openapi.json")).json()["components"]["schemas"]
    read_only = {k for k, v in components["Organization"]["properties"].items() if v.get("readOnly")}
    assert read_only == {"id", "slug", "created_at"}
    update = components["UpdateOrganizationRequest"]["properties"]
    assert {k for k, v in update.items() if v.get("readOnly")} == {"id", "slug", "created_at", "warning"}
    assert {k for k, v in update.items() if not v.get("readOnly")} == {
        "name",
        "time_zone",
        "approvals_required_for",
        "approval_profile_tags",
        "self_approval",
    }


async def test_one_organizations_change_never_touches_another(http, orgs, engine) -> None:
    first, second = await orgs(), await orgs()
    # The same user in a third organization: a key acts in its own organization only.
    third_slug = f"org-{uuid.uuid4().hex[:10]}"
    third = await admin.bootstrap(
        engine, email=first.email, password=PASSWORD, org=third_slug, credits_=10, plan="active"
    )
    third_auth = {"Authorization": f"Bearer {third['api_key']}"}
    untouched = [await _read(http, second), (await http.get("/v1/organization", headers=third_auth)).json()]
    changed = await http.patch(
        "/v1/organization", json={"name": "First", "time_zone": "Pacific/Auckland"}, headers=first.auth
    )
    assert changed.json()["id"] == first.org_id
    assert [await _read(http, second), (await http.get("/v1/organization", headers=third_auth)).json()] == untouched
    assert untouched[1]["slug"] == third_slug and untouched[1]["time_zone"] == "UTC"


async def test_an_organization_without_a_plan_needs_one_for_keys(http, orgs) -> None:
    unpaid = await orgs(plan="none")
    for response in (
        await http.get("/v1/organization", headers=unpaid.auth),
        await http.patch("/v1/organization", json={"time_zone": "Europe/Paris"}, headers=unpaid.auth),
    ):
        assert (response.status_code, response.json()["code"]) == (402, "SUBSCRIPTION_REQUIRED")


async def test_agents_read_the_settings_with_posts_read_and_have_no_tool_to_change_them(http, channel, org) -> None:
    await http.patch("/v1/organization", json={"name": "Acme", "time_zone": "Europe/Paris"}, headers=org.auth)
    token = await _agent_token(http, channel, org, "posts:read")
    tools = (await mcp(http, token, "tools/list")).json()["result"]["tools"]
    by_name = {t["name"]: t for t in tools}
    assert by_name["get_organization"]["annotations"]["readOnlyHint"] is True
    assert not [name for name in by_name if "organization" in name and name != "get_organization"]
    result = (await mcp(http, token, "tools/call", {"name": "get_organization", "arguments": {}})).json()["result"]
    assert not result.get("isError"), result
    assert result["structuredContent"] == await _read(http, org)
    refused = await mcp(http, token, "tools/call", {"name": "update_organization", "arguments": {"name": "x"}})
    assert refused.json().get("error") or refused.json()["result"].get("isError"), refused.text
    # Without posts:read: the scope challenge, before the arguments.
    other = await _agent_token(http, channel, org, "generate:read")
    challenge = await mcp(http, other, "tools/call", {"name": "get_organization", "arguments": {}})
    assert challenge.status_code == 403 and 'scope="posts:read"' in challenge.headers["www-authenticate"]


async def test_an_agent_token_cannot_change_the_settings_over_grpc_or_rest(http, channel, org) -> None:
    token = await _agent_token(http, channel, org, "posts:read posts:write media:write generate:read generate:write")
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    as_agent = (("authorization", f"Bearer {token}"),)
    read = await stub.GetOrganization(accounts_pb2.GetOrganizationRequest(), metadata=as_agent)
    assert (read.id, read.time_zone) == (org.org_id, "UTC")
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.UpdateOrganization(accounts_pb2.UpdateOrganizationRequest(time_zone="Asia/Tokyo"), metadata=as_agent)
    assert (refused.value.code(), error_info(refused.value).reason) == (grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN")
    # At /v1 an access token is not a credential at all (docs/api.md, "Authentication").
    rest = await http.patch(
        "/v1/organization", json={"time_zone": "Asia/Tokyo"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert (rest.status_code, rest.json()["code"]) == (401, "UNAUTHORIZED")
    assert (await _read(http, org))["time_zone"] == "UTC"


async def test_a_session_changes_the_settings_and_its_principal_carries_the_zone(channel, org) -> None:
    session = (("authorization", f"Bearer {await sign_in(channel, org.email)}"),)
    stub = accounts_pb2_grpc.AccountServiceStub(channel)
    identity = identity_pb2_grpc.IdentityServiceStub(channel)
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=session)).time_zone == "UTC"
    saved = await stub.UpdateOrganization(
        accounts_pb2.UpdateOrganizationRequest(time_zone="Australia/Lord_Howe"), metadata=session
    )
    assert (saved.time_zone, saved.name) == ("Australia/Lord_Howe", org.slug)
    principal = await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=session)
    assert principal.time_zone == "Australia/Lord_Howe"
    # Only sessions carry it: an API key's principal is resolved without the settings.
    assert (await identity.GetPrincipal(identity_pb2.GetPrincipalRequest(), metadata=org.metadata)).time_zone == ""
