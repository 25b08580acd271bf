"""CatalogService (the facts the core owns, served without a credential) and
IdentityService.CheckAccess (another method's policy, checked without running it), over gRPC."""

from __future__ import annotations

import grpc
import pytest
from herald.catalog.v1 import catalog_pb2, catalog_pb2_grpc
from herald.identity.v1 import identity_pb2, identity_pb2_grpc

from core.identity.scopes import SCOPES
from core.media.service import ALLOWED_TYPES, PRESIGN_LIMITS
from core.posts.rules import PLATFORM_LIMITS
from core.server import SERVICES
from harness.oauth_flow import register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info

CREATE_POSTS = "/herald.posts.v1.PostService/CreatePosts"


async def test_the_catalog_is_served_without_a_credential(channel) -> None:
    catalog = await catalog_pb2_grpc.CatalogServiceStub(channel).GetCatalog(catalog_pb2.GetCatalogRequest())
    assert [p.key for p in catalog.platforms] == list(PLATFORM_LIMITS)
    bluesky = next(p for p in catalog.platforms if p.key == "bluesky")
    assert (bluesky.text.max_length, bluesky.text.max_utf8_bytes, bluesky.text.unit) == (300, 3000, "graphemes")
    assert bluesky.kind == catalog_pb2.PLATFORM_KIND_MICROBLOGGING
    youtube = next(p for p in catalog.platforms if p.key == "youtube")
    assert youtube.title.required and youtube.title.max_length == 100
    assert [t.name for t in youtube.post_types] == ["video", "short"]
    instagram = next(p for p in catalog.platforms if p.key == "instagram")
    feed = instagram.post_types[0]
    assert feed.name == "feed" and feed.media_required
    assert [(list(lay.kinds), lay.min_items, lay.max_items) for lay in feed.layouts][-1] == (["image", "video"], 2, 10)
    assert {t.mime_type: t.kind for t in catalog.media_types} == ALLOWED_TYPES
    assert {t.kind: t.presign_max_bytes for t in catalog.media_types} == PRESIGN_LIMITS
    assert [s.name for s in catalog.scopes] == list(SCOPES)
    assert [s.name for s in catalog.scopes if s.advertised] == ["posts:write", "posts:read", "media:write"]
    methods = {m.name: m for m in catalog.methods}
    every = {f"/{svc.descriptor.full_name}/{m.name}" for svc in SERVICES for m in svc.descriptor.methods}
    assert set(methods) == every
    assert list(methods[CREATE_POSTS].scopes) == ["posts:write"]
    profiles = methods["/herald.profiles.v1.ProfileService/ListProfiles"].page
    assert (profiles.default_size, profiles.max_size) == (100, 500)
    assert not methods[CREATE_POSTS].HasField("page")
    assert catalog.field_limits.max_title_chars == 100  # docs/api.md, "Limits"
    assert "insufficient_credits" in catalog.failure_reasons


async def _check(channel, method: str, metadata) -> grpc.aio.AioRpcError | None:
    stub = identity_pb2_grpc.IdentityServiceStub(channel)
    try:
        await stub.CheckAccess(identity_pb2.CheckAccessRequest(method=method), metadata=metadata)
    except grpc.aio.AioRpcError as error:
        return error
    return None


async def test_check_access_applies_the_named_methods_policy(channel, orgs, http) -> None:
    org = await orgs()
    assert await _check(channel, CREATE_POSTS, org.metadata) is None
    unauthenticated = await _check(channel, CREATE_POSTS, ())
    assert error_info(unauthenticated).reason == "UNAUTHORIZED"
    unpaid = await orgs(plan="none")
    assert error_info(await _check(channel, CREATE_POSTS, unpaid.metadata)).reason == "SUBSCRIPTION_REQUIRED"
    # A dashboard session may not call what only keys and tokens call (CreateProfile: sessions only).
    session = await sign_in(channel, org.email)
    assert await _check(channel, "/herald.profiles.v1.ProfileService/CreateProfile", org.metadata) is not None
    assert (
        await _check(
            channel, "/herald.profiles.v1.ProfileService/CreateProfile", (("authorization", f"Bearer {session}"),)
        )
        is None
    )


async def test_check_access_names_every_scope_the_method_needs(channel, orgs, http) -> None:
    org = await orgs(plan="none")
    session = await sign_in(channel, org.email)
    client = await register(http)
    tokens = await tokens_for(http, session, client["client_id"], "posts:read")
    token = (("authorization", f"Bearer {tokens['access_token']}"),)
    missing = error_info(await _check(channel, CREATE_POSTS, token))
    # Scope before plan (docs/api.md, "Errors": the order calling the method would answer in).
    assert (missing.reason, missing.metadata["scope"]) == ("INSUFFICIENT_SCOPE", "posts:write")
    # Agents read the brand voice; they never save it, whatever their scopes.
    saving = error_info(await _check(channel, "/herald.brand.v1.BrandVoiceService/UpdateBrandVoice", token))
    assert saving.reason == "FORBIDDEN"


@pytest.mark.parametrize(
    "method",
    [
        "",
        "/herald.posts.v1.PostService/Nope",
        "/herald.identity.v1.IdentityService/CheckAccess",
        "/herald.catalog.v1.CatalogService/GetCatalog",
        "/herald.identity.v1.OAuthService/ExchangeToken",
    ],
)
async def test_check_access_refuses_what_is_not_a_checkable_method(channel, orgs, method: str) -> None:
    org = await orgs()
    assert error_info(await _check(channel, method, org.metadata)).reason == "VALIDATION_ERROR"
