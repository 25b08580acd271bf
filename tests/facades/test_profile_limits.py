"""Profile limits (issue 32; docs/teams.md, "Profile limits"): a member limited to profiles
carrying given tags reaches those profiles and their posts only, in every list and every action,
with every credential they hold; another profile or post is NOT_FOUND, as another organization's.
Who may set limits, invitations that carry them, and a change holding on the next request."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from herald.identity.v1 import accounts_pb2, accounts_pb2_grpc, members_pb2, members_pb2_grpc
from herald.posts.v1 import posts_pb2, posts_pb2_grpc
from herald.profiles.v1 import profiles_pb2, profiles_pb2_grpc

from harness.oauth_flow import mcp, register, sign_in, tokens_for
from tests.core.rpc_helpers import error_info

LATER = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(days=3)
PASSWORD = "correct horse battery"


async def _limit(http, by, member, tags: list[str], **more) -> dict:
    answer = await http.patch(f"/v1/members/{member.user_id}", json={"profile_tags": tags, **more}, headers=by.auth)
    assert answer.status_code == 200, answer.text
    return answer.json()


async def _create(http, who, profiles: list[str], **body) -> list[dict]:
    answer = await http.post(
        "/v1/posts",
        json={"content": "hello", "profiles": profiles, "schedule_at": LATER.isoformat(), **body},
        headers=who.auth,
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["posts"]


def _code(answer) -> tuple[int, str]:
    return answer.status_code, answer.json().get("code", "")


def _window() -> posts_pb2.ListCalendarPostsRequest:
    request = posts_pb2.ListCalendarPostsRequest()
    request.start_time.FromDatetime(LATER - timedelta(days=1))
    request.end_time.FromDatetime(LATER + timedelta(days=1))
    return request


@pytest.fixture
async def agency(orgs):
    """An organization with client A's profiles (tagged client-a), client B's and an untagged one,
    and an editor limited to client A by the owner."""
    org = await orgs(credits=1000)
    await orgs.profile(org, "a-x", "x", tags=("client-a",))
    await orgs.profile(org, "a-bsky", "bluesky", tags=("client-a", "launch"))
    await orgs.profile(org, "b-x", "x", tags=("client-b",))
    await orgs.profile(org, "house", "x")
    return org


@pytest.fixture
async def limited(http, orgs, agency):
    editor = await orgs.member(agency, "editor")
    answer = await _limit(http, agency, editor, ["Client-A", "client-a"])
    assert answer["profile_tags"] == ["client-a"]
    return editor


async def test_limits_are_shown_and_only_managers_within_theirs_change_them(http, orgs, agency, limited) -> None:
    listed = {
        m["user_id"]: m["profile_tags"] for m in (await http.get("/v1/members", headers=limited.auth)).json()["members"]
    }
    assert listed == {agency.user_id: [], limited.user_id: ["client-a"]}
    # Owners take none; a malformed tag and a role without manage_members are refused.
    owner_limited = await http.patch(f"/v1/members/{agency.user_id}", json={"profile_tags": ["x"]}, headers=agency.auth)
    assert _code(owner_limited) == (403, "FORBIDDEN")  # their own, first
    second = await orgs.member(agency, "owner")
    assert _code(
        await http.patch(f"/v1/members/{second.user_id}", json={"profile_tags": ["x"]}, headers=agency.auth)
    ) == (400, "VALIDATION_ERROR")
    assert _code(
        await http.patch(f"/v1/members/{limited.user_id}", json={"profile_tags": ["no spaces"]}, headers=agency.auth)
    ) == (400, "VALIDATION_ERROR")
    viewer = await orgs.member(agency, "viewer")
    assert _code(
        await http.patch(f"/v1/members/{viewer.user_id}", json={"profile_tags": ["client-a"]}, headers=limited.auth)
    ) == (403, "FORBIDDEN")
    # A limited member made owner keeps no limits: refused unless the same request lifts them.
    promoted = await http.patch(f"/v1/members/{limited.user_id}", json={"role": "owner"}, headers=agency.auth)
    assert _code(promoted) == (400, "VALIDATION_ERROR")

    # A limited admin gives limits within their own, to members within theirs, never to themselves.
    admin = await orgs.member(agency, "admin")
    await _limit(http, agency, admin, ["client-a", "client-b"])
    assert (await _limit(http, admin, limited, ["client-b"]))["profile_tags"] == ["client-b"]
    for user, tags in (
        (limited, []),  # lifting them
        (limited, ["client-c"]),  # beyond the admin's own
        (viewer, ["client-a"]),  # a member with no limits (every profile) is beyond them
        (admin, ["client-a"]),  # their own
    ):
        refused = await http.patch(f"/v1/members/{user.user_id}", json={"profile_tags": tags}, headers=admin.auth)
        assert _code(refused) == (403, "FORBIDDEN"), (user.email, tags, refused.text)
    lifted = await _limit(http, agency, limited, [], role="owner")
    assert (lifted["role"], lifted["profile_tags"]) == ("owner", [])


async def test_a_limited_member_sees_and_acts_on_their_profiles_and_posts_only(http, agency, limited) -> None:
    mixed = await _create(http, agency, ["a-x", "b-x"])
    [b_only] = await _create(http, agency, ["b-x"])
    [house] = await _create(http, agency, ["house"])
    a_post, b_post = mixed
    group = a_post["group_id"]

    profiles = (await http.get("/v1/profiles", headers=limited.auth)).json()["profiles"]
    assert [p["slug"] for p in profiles] == ["a-bsky", "a-x"]
    listed = (await http.get("/v1/posts", headers=limited.auth)).json()["posts"]
    assert [p["id"] for p in listed] == [a_post["id"]]
    assert (await http.get("/v1/posts", params={"profile": "b-x"}, headers=limited.auth)).json()["posts"] == []
    assert (await http.get(f"/v1/post-groups/{group}", headers=limited.auth)).json()["posts"][0]["id"] == a_post["id"]
    assert len((await http.get(f"/v1/post-groups/{group}", headers=limited.auth)).json()["posts"]) == 1
    limits = (await http.get("/v1/destination-limits", headers=limited.auth)).json()["destinations"]
    assert [d["profile"] for d in limits] == ["a-bsky", "a-x"]

    # Another client's profile, post or group answers as another organization's would.
    for post in (b_post, b_only, house):
        post_id = post["id"]
        for method, path, body in (
            ("GET", f"/v1/posts/{post_id}", None),
            ("PATCH", f"/v1/posts/{post_id}", {"content": "mine now"}),
            ("DELETE", f"/v1/posts/{post_id}", None),
            ("POST", f"/v1/posts/{post_id}/retry", {}),
            ("POST", f"/v1/posts/{post_id}/schedule", {}),
            ("POST", f"/v1/posts/{post_id}/approve", {}),
            ("POST", f"/v1/posts/{post_id}/reject", {}),
            ("GET", f"/v1/posts/{post_id}/events", None),
            ("GET", f"/v1/posts/{post_id}/outbox", None),
        ):
            answer = await http.request(method, path, json=body, headers=limited.auth)
            assert _code(answer) == (404, "NOT_FOUND"), (method, path, answer.text)
    for method, path, body in (
        ("GET", "/v1/profiles/b-x", None),
        ("GET", "/v1/profiles/house/slots", None),
        ("PUT", "/v1/profiles/b-x/slots", {"timezone": "UTC", "slots": []}),
        ("GET", "/v1/profiles/b-x/limits", None),
        ("GET", f"/v1/post-groups/{b_only['group_id']}", None),
        ("POST", f"/v1/post-groups/{b_only['group_id']}/cancel", {}),
    ):
        answer = await http.request(method, path, json=body, headers=limited.auth)
        assert _code(answer) == (404, "NOT_FOUND"), (method, path, answer.text)
    # A group with a post outside the limits is not theirs to act on as a whole.
    refused = await http.post(f"/v1/post-groups/{group}/cancel", json={}, headers=limited.auth)
    assert _code(refused) == (403, "FORBIDDEN")
    assert (await http.get(f"/v1/posts/{b_post['id']}", headers=agency.auth)).json()["status"] == "scheduled"

    # Creating to another client's profile creates nothing; their own works as for anyone.
    before = len((await http.get("/v1/posts", headers=agency.auth)).json()["posts"])
    answer = await http.post(
        "/v1/posts", json={"content": "hi", "profiles": ["a-x", "b-x"], "draft": True}, headers=limited.auth
    )
    assert _code(answer) == (400, "VALIDATION_ERROR") and "'b-x'" in answer.json()["error"]
    assert len((await http.get("/v1/posts", headers=agency.auth)).json()["posts"]) == before
    checked = (
        await http.post("/v1/posts:validate", json={"content": "hi", "profiles": ["b-x"]}, headers=limited.auth)
    ).json()
    assert checked["valid"] is False and "unknown profile" in checked["profiles"][0]["problems"][0]["message"]
    [mine] = await _create(http, limited, ["a-bsky"])
    edited = await http.patch(f"/v1/posts/{mine['id']}", json={"content": "edited"}, headers=limited.auth)
    assert edited.json()["content"] == "edited"
    canceled = await http.post(f"/v1/post-groups/{mine['group_id']}/cancel", json={}, headers=limited.auth)
    assert canceled.json()["posts"][0]["status"] == "canceled"


async def test_the_dashboards_lists_and_an_agents_token_hold_to_the_limits(http, channel, agency, limited) -> None:
    a_post, b_post = await _create(http, agency, ["a-x", "b-x"])
    [b_only] = await _create(http, agency, ["b-x"])
    daily = [{"day": day, "time": "09:00"} for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    slots = await http.put("/v1/profiles/b-x/slots", json={"timezone": "UTC", "slots": daily}, headers=agency.auth)
    assert slots.status_code == 200, slots.text
    session = (("authorization", f"Bearer {await sign_in(channel, limited.email)}"),)
    posts = posts_pb2_grpc.PostServiceStub(channel)

    groups = (await posts.ListPostGroups(posts_pb2.ListPostGroupsRequest(), metadata=session)).groups
    assert [([p.id for p in g.group.posts], list(g.matching_post_ids)) for g in groups] == [
        ([a_post["id"]], [a_post["id"]])
    ]
    calendar = await posts.ListCalendarPosts(_window(), metadata=session)
    assert [p.id for p in calendar.posts] == [a_post["id"]]
    other = _window()
    other.profile = "b-x"
    calendar = await posts.ListCalendarPosts(other, metadata=session)
    assert (list(calendar.posts), list(calendar.free_slots)) == ([], [])
    # The owner sees every post and the profile's slots in the same calendar.
    owner_session = (("authorization", f"Bearer {await sign_in(channel, agency.email)}"),)
    everything = await posts.ListCalendarPosts(_window(), metadata=owner_session)
    assert {p.id for p in everything.posts} == {a_post["id"], b_post["id"], b_only["id"]}
    assert len((await posts.ListCalendarPosts(other, metadata=owner_session)).free_slots) >= 1

    # The member's agent acts with the member's limits, whatever its scopes.
    client_id = (await register(http))["client_id"]
    token = (await tokens_for(http, session[0][1].removeprefix("Bearer "), client_id, "posts:read posts:write"))[
        "access_token"
    ]
    listed = (await mcp(http, token, "tools/call", {"name": "list_posts", "arguments": {}})).json()["result"]
    assert [p["id"] for p in listed["structuredContent"]["posts"]] == [a_post["id"]]
    found = (await mcp(http, token, "tools/call", {"name": "get_post", "arguments": {"post_id": b_post["id"]}})).json()[
        "result"
    ]
    assert found["isError"] and json.loads(found["content"][0]["text"])["code"] == "NOT_FOUND", found
    agent = (("authorization", f"Bearer {token}"),)
    profiles = await profiles_pb2_grpc.ProfileServiceStub(channel).ListProfiles(
        profiles_pb2.ListProfilesRequest(), metadata=agent
    )
    assert [p.slug for p in profiles.profiles] == ["a-bsky", "a-x"]


async def test_lifting_or_changing_limits_holds_on_the_next_request(http, agency, limited) -> None:
    async def slugs() -> list[str]:
        return [p["slug"] for p in (await http.get("/v1/profiles", headers=limited.auth)).json()["profiles"]]

    assert await slugs() == ["a-bsky", "a-x"]
    await _limit(http, agency, limited, [])
    assert await slugs() == ["a-bsky", "a-x", "b-x", "house"]
    await _limit(http, agency, limited, ["launch", "client-b"])
    assert await slugs() == ["a-bsky", "b-x"]


async def test_an_invitation_gives_its_limits_to_the_member_who_joins(http, channel, orgs, agency) -> None:
    email = f"client-{agency.slug}@example.com"
    created = await http.post(
        "/v1/invitations", json={"email": email, "role": "editor", "profile_tags": ["CLIENT-A"]}, headers=agency.auth
    )
    assert created.status_code == 201, created.text
    assert created.json()["invitation"]["profile_tags"] == ["client-a"]
    listed = (await http.get("/v1/invitations", headers=agency.auth)).json()["invitations"]
    assert [i["profile_tags"] for i in listed] == [["client-a"]]
    token = created.json()["url"].rsplit("/", 1)[1]
    joined = await accounts_pb2_grpc.AccountServiceStub(channel).SignUpByInvitation(
        accounts_pb2.SignUpByInvitationRequest(token=token, password=PASSWORD)
    )
    session = (("authorization", f"Bearer {joined.token}"),)
    members = await members_pb2_grpc.MemberServiceStub(channel).ListMembers(
        members_pb2.ListMembersRequest(), metadata=session
    )
    assert [list(m.profile_tags) for m in members.members if m.is_caller] == [["client-a"]]
    profiles = await profiles_pb2_grpc.ProfileServiceStub(channel).ListProfiles(
        profiles_pb2.ListProfilesRequest(), metadata=session
    )
    assert [p.slug for p in profiles.profiles] == ["a-bsky", "a-x"]

    # An owner invitation takes none; a limited inviter gives only limits within theirs.
    owner = await http.post(
        "/v1/invitations", json={"email": "o@example.com", "role": "owner", "profile_tags": ["a"]}, headers=agency.auth
    )
    assert _code(owner) == (400, "VALIDATION_ERROR")
    admin = await orgs.member(agency, "admin")
    await _limit(http, agency, admin, ["client-a"])
    for tags in ([], ["client-b"]):
        refused = await http.post(
            "/v1/invitations",
            json={"email": "n@example.com", "role": "viewer", "profile_tags": tags},
            headers=admin.auth,
        )
        assert _code(refused) == (403, "FORBIDDEN"), tags


async def test_a_limited_manager_keeps_the_profiles_they_make_within_reach(http, channel, orgs, agency) -> None:
    admin = await orgs.member(agency, "admin")
    await _limit(http, agency, admin, ["client-a"])
    session = (("authorization", f"Bearer {await sign_in(channel, admin.email)}"),)
    stub = profiles_pb2_grpc.ProfileServiceStub(channel)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.CreateProfile(
            profiles_pb2.CreateProfileRequest(profile=profiles_pb2.Profile(slug="b-new", connector="x")),
            metadata=session,
        )
    assert error_info(refused.value).reason == "VALIDATION_ERROR"
    made = profiles_pb2.Profile(slug="a-new", connector="x", tags=["client-a"])
    assert (await stub.CreateProfile(profiles_pb2.CreateProfileRequest(profile=made), metadata=session)).slug == "a-new"
    # Retagging a profile out of their reach is refused; deleting, disconnecting or voicing
    # another's is NOT_FOUND; the organization's voice speaks for every profile: not theirs.
    out = await http.patch("/v1/profiles/a-x", json={"tags": ["client-b"]}, headers=admin.auth)
    assert _code(out) == (400, "VALIDATION_ERROR")
    kept = await http.patch("/v1/profiles/a-x", json={"tags": ["client-a", "client-b"]}, headers=admin.auth)
    assert kept.json()["tags"] == ["client-a", "client-b"]
    for method, path, body in (
        ("PATCH", "/v1/profiles/b-x", {"display_name": "Mine"}),
        ("DELETE", "/v1/profiles/b-x", None),
        ("POST", "/v1/profiles/b-x/disconnect", {}),
        ("GET", "/v1/brand-voice?profile=house", None),
        ("PUT", "/v1/brand-voice?profile=house", {"description": "Ours."}),
    ):
        answer = await http.request(method, path, json=body, headers=admin.auth)
        assert _code(answer) == (404, "NOT_FOUND"), (method, path, answer.text)
    assert _code(await http.put("/v1/brand-voice", json={"description": "Ours."}, headers=admin.auth)) == (
        403,
        "FORBIDDEN",
    )
    voiced = await http.put("/v1/brand-voice?profile=a-x", json={"description": "Ours."}, headers=admin.auth)
    assert voiced.status_code == 200, voiced.text
    assert (await http.delete("/v1/profiles/a-new", headers=admin.auth)).status_code == 200


async def test_comments_and_notifications_keep_to_the_limits(http, orgs, agency, limited) -> None:
    a_post, b_post = await _create(http, agency, ["a-x", "b-x"])
    for method, body in (("POST", {"body": "Looks good"}), ("GET", None)):
        answer = await http.request(method, f"/v1/posts/{b_post['id']}/comments", json=body, headers=limited.auth)
        assert _code(answer) == (404, "NOT_FOUND"), answer.text
        group = await http.request(
            method, f"/v1/post-groups/{a_post['group_id']}/comments", json=body, headers=limited.auth
        )
        assert _code(group) == (403, "FORBIDDEN"), group.text
    said = await http.post(f"/v1/posts/{a_post['id']}/comments", json={"body": "Looks good"}, headers=limited.auth)
    assert said.status_code == 201, said.text
    listed = (await http.get(f"/v1/posts/{a_post['id']}/comments", headers=limited.auth)).json()["comments"]
    assert [c["body"] for c in listed] == ["Looks good"]


@pytest.mark.usefixtures("worker")
async def test_approvers_are_told_only_of_posts_within_their_limits(http, orgs, agency, limited) -> None:
    contributor = await orgs.member(agency, "contributor")
    [outside] = await _create(http, contributor, ["b-x"])
    [inside] = await _create(http, contributor, ["a-x"])
    assert outside["status"] == inside["status"] == "pending_approval"

    async def asked(who) -> list[str]:
        answer = await http.get("/v1/notifications", headers=who.auth)
        assert answer.status_code == 200, answer.text
        return [n["subject_id"] for n in answer.json()["notifications"] if n["kind"] == "approval_requested"]

    for _ in range(100):
        if len(await asked(agency)) == 2:
            break
        await asyncio.sleep(0.1)
    assert sorted(await asked(agency)) == sorted([outside["id"], inside["id"]])
    assert await asked(limited) == [inside["id"]]
