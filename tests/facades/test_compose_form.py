"""The compose page over plain HTTP (docs/dashboard.md, "Compose"): the form without its script
creates the posts or shows itself again with the error and everything typed; the endpoints its
script calls (preview, create) take the session and the form's CSRF token, answer JSON, and 401
when the session is gone; the preview is the core's, in /v1/posts:preview's shape; a link (the
calendar's) fills in the time, its zone, profiles and content, and says once what it could not."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import httpx
import pytest

from tests.dashboard_forms import signed_in
from tests.posts_api import create, later

# One backend: the form's protocol and rendering; creation's SQL is tested at /v1 on both databases.
pytestmark = pytest.mark.one_backend

REQUEST_KEY = re.compile(r'name="request_key" value="([^"]+)"')
ZONE = "Europe/Paris"


def _checked(html: str, slug: str) -> bool:
    """Whether the page shows the profile's checkbox checked."""
    box = re.search(rf'<input type="checkbox" id="profile-{slug}"[^>]*>', html)
    assert box, slug
    return " checked" in box.group(0)


@pytest.fixture
async def client(stack):
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        yield http


@pytest.fixture
async def org(orgs):
    org = await orgs(credits=100)
    for slug, platform in (("acme-x", "x"), ("acme-bsky", "bluesky"), ("acme-yt", "youtube")):
        await orgs.profile(org, slug, platform, ("launch",) if platform != "youtube" else ())
    return org


async def _signed_in(client: httpx.AsyncClient, org) -> tuple[str, str]:
    """Signs in; the compose form's CSRF token and request key."""
    token = await signed_in(client, org.email, "/dashboard/compose")
    page = await client.get("/dashboard/compose")
    assert page.status_code == 200, page.text
    return token, REQUEST_KEY.search(page.text).group(1)


def _local(days: int = 2, hour: int = 10) -> datetime:
    return (datetime.now(ZoneInfo(ZONE)) + timedelta(days=days)).replace(hour=hour, minute=15, second=0, microsecond=0)


async def test_the_form_creates_the_posts_without_a_script(client, http, org) -> None:
    token, key = await _signed_in(client, org)
    when = _local()
    form = {
        "csrf_token": token,
        "request_key": key,
        "content": "Hello from the form",
        "profiles": ["acme-x", "acme-bsky"],
        "thread": ["Second part", ""],
        "first_comment": "More soon",
        "v.acme-bsky.content": "Bluesky's own words",
        "v.acme-bsky.no_thread": "1",
        "schedule_at": when.strftime("%Y-%m-%dT%H:%M"),
        "time_zone": ZONE,
        "action": "schedule",
    }
    response = await client.post("/dashboard/compose", data=form)
    assert response.status_code == 303, response.text
    assert response.headers["location"] == "/dashboard/posts?notice=posts-scheduled"
    posts = {p["profile"]: p for p in (await http.get("/v1/posts", headers=org.auth)).json()["posts"]}
    assert set(posts) == {"acme-x", "acme-bsky"}
    x, bsky = posts["acme-x"], posts["acme-bsky"]
    assert (
        datetime.fromisoformat(x["schedule_at"]) == when.astimezone(UTC) == datetime.fromisoformat(bsky["schedule_at"])
    )
    assert (x["content"], [t["content"] for t in x["thread"]], x["first_comment"]) == (
        "Hello from the form",
        ["Second part"],
        "More soon",
    )
    assert (bsky["content"], bsky["thread"], bsky["first_comment"]) == ("Bluesky's own words", [], "More soon")
    # The same form again (a double click, a retry) creates nothing more: the page's request key.
    again = await client.post("/dashboard/compose", data=form)
    assert again.status_code == 303
    assert len((await http.get("/v1/posts", headers=org.auth)).json()["posts"]) == 2


async def test_the_form_refuses_without_its_csrf_token(client, http, org) -> None:
    token, key = await _signed_in(client, org)
    form = {"request_key": key, "content": "Forged", "profiles": ["acme-x"], "action": "publish"}
    for sent in (None, "", "x" * 43, token + "x"):
        data = form | ({} if sent is None else {"csrf_token": sent})
        response = await client.post("/dashboard/compose", data=data)
        assert response.status_code == 403, sent
        preview = await client.post("/dashboard/compose/preview", data=data)
        assert (preview.status_code, preview.json()["code"]) == (403, "FORBIDDEN")
        create = await client.post("/dashboard/compose/create", data=data)
        assert (create.status_code, create.json()["code"]) == (403, "FORBIDDEN")
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


async def test_a_refused_form_is_shown_again_with_everything_typed(client, http, org) -> None:
    token, key = await _signed_in(client, org)
    form = {
        "csrf_token": token,
        "request_key": key,
        "content": "z" * 300,
        "profiles": ["acme-x"],
        "thread": ["kept item"],
        "v.acme-x.first_comment": "kept comment",
        "time_zone": ZONE,
        "action": "publish",
    }
    response = await client.post("/dashboard/compose", data=form)
    assert response.status_code == 400
    assert 'data-error-code="VALIDATION_ERROR"' in response.text
    assert response.text.count('role="alert"') == 3  # the error, and the script's two (hidden)
    assert "z" * 300 + "</textarea>" in response.text and ">kept item</textarea>" in response.text
    assert ">kept comment</textarea>" in response.text
    assert _checked(response.text, "acme-x")
    assert f'<option value="{ZONE}" selected>' in response.text
    # A time the zone skips (the spring-forward hour) is refused, not moved.
    gap = {**form, "content": "ok", "schedule_at": "2031-03-30T02:30", "action": "schedule"}
    skipped = await client.post("/dashboard/compose", data=gap)
    assert skipped.status_code == 400 and 'data-error-code="VALIDATION_ERROR"' in skipped.text
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


async def test_the_form_buttons_without_a_script(client, org) -> None:
    token, key = await _signed_in(client, org)
    base = {"csrf_token": token, "request_key": key, "content": "Typed text", "thread": ["one", "two"]}
    tagged = await client.post("/dashboard/compose", data={**base, "select_tag": "launch"})
    assert tagged.status_code == 200
    assert [_checked(tagged.text, slug) for slug in ("acme-x", "acme-bsky", "acme-yt")] == [True, True, False]
    assert ">Typed text</textarea>" in tagged.text
    added = await client.post("/dashboard/compose", data={**base, "thread_add": "1"})
    assert added.text.count('name="thread" rows="3"') == 3 + 1  # three items, and the template's
    removed = await client.post("/dashboard/compose", data={**base, "thread_remove": "1"})
    assert ">two</textarea>" in removed.text and ">one</textarea>" not in removed.text


async def test_the_preview_is_the_cores(client, http, org) -> None:
    token, _ = await _signed_in(client, org)
    when = _local(days=3, hour=8)
    form = {
        "csrf_token": token,
        "content": "Launch 🚀 https://example.com/launch",
        "profiles": ["acme-x", "acme-yt"],
        "v.acme-yt.title": "Launch video",
        "v.acme-yt.post_type": "short",
        "schedule_at": when.strftime("%Y-%m-%dT%H:%M"),
        "time_zone": ZONE,
    }
    answer = await client.post("/dashboard/compose/preview", data=form)
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    shown = answer.json()
    body = {
        "content": form["content"],
        "profiles": ["acme-x", "acme-yt"],
        "customizations": {"acme-yt": {"title": "Launch video", "post_type": "short"}},
        "schedule_at": when.astimezone(UTC).isoformat(),
    }
    assert shown["preview"] == (await http.post("/v1/posts:preview", json=body, headers=org.auth)).json()
    youtube = shown["preview"]["destinations"][1]
    assert [p["role"] for p in youtube["parts"]] == ["title", "content"] and youtube["post_type"] == "short"
    # YouTube needs a video: not ready, and every button that needs a valid post says why.
    assert shown["preview"]["valid"] is False
    assert shown["actions"]["schedule"] == {
        "enabled": False,
        "reason": "Fix the problems of acme-yt first (shown on its card).",
    }
    assert shown["actions"]["draft"] == {"enabled": True, "reason": ""}

    ready = await client.post("/dashboard/compose/preview", data={**form, "profiles": ["acme-x"]})
    assert ready.json()["actions"] == {
        "schedule": {"enabled": True, "reason": ""},
        "publish": {"enabled": True, "reason": ""},
        "draft": {"enabled": True, "reason": ""},
    }
    empty = (await client.post("/dashboard/compose/preview", data={"csrf_token": token, "profiles": ["acme-x"]})).json()
    assert empty["preview"] is None
    assert {a["reason"] for a in empty["actions"].values()} == {"Write the post's text in Content first."}
    # A request the contract refuses before any check: its problem names the argument.
    many = {**form, "profiles": ["acme-x"], "thread": [f"item {i}" for i in range(40)]}
    refused = (await client.post("/dashboard/compose/preview", data=many)).json()
    assert (refused["preview"], refused["problem"]["code"], refused["problem"]["argument"]) == (
        None,
        "VALIDATION_ERROR",
        "thread",
    )
    assert not any(a["enabled"] for a in refused["actions"].values())
    gap = {**form, "schedule_at": "2031-03-30T02:30"}
    skipped = (await client.post("/dashboard/compose/preview", data=gap)).json()
    assert (skipped["problem"]["code"], skipped["problem"]["argument"]) == ("VALIDATION_ERROR", "schedule_at")
    for zone in ("Mars/Olympus", None):
        sent = {**form, "time_zone": zone} if zone else {k: v for k, v in form.items() if k != "time_zone"}
        refused = (await client.post("/dashboard/compose/preview", data=sent)).json()
        assert (refused["problem"]["code"], refused["problem"]["argument"]) == ("VALIDATION_ERROR", "time_zone")


async def test_publishing_now_needs_the_credits(client, orgs) -> None:
    poor = await orgs(credits=0)
    await orgs.profile(poor, "poor-x", "x")
    token, _ = await _signed_in(client, poor)
    form = {"csrf_token": token, "content": "No credits", "profiles": ["poor-x"], "next_slot": "1"}
    shown = (await client.post("/dashboard/compose/preview", data=form)).json()
    assert shown["preview"]["deliverable"] is False
    assert shown["actions"]["publish"] == {
        "enabled": False,
        "reason": "Not enough credits: this costs 1, the balance is 0.",
    }
    assert shown["actions"]["schedule"]["enabled"] is True  # charged when it goes out


async def test_the_scripts_create_endpoint(client, http, org) -> None:
    token, key = await _signed_in(client, org)
    form = {"csrf_token": token, "request_key": key, "content": "From the script", "profiles": ["acme-x"]}
    odd = await client.post("/dashboard/compose/create", data={**form, "action": "shout"})
    assert (odd.status_code, odd.json()["code"], odd.json()["argument"]) == (400, "VALIDATION_ERROR", "action")
    refused = await client.post("/dashboard/compose/create", data={**form, "action": "schedule", "next_slot": "1"})
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")  # acme-x has no slots
    created = await client.post("/dashboard/compose/create", data={**form, "action": "draft"})
    assert created.status_code == 201, created.text
    assert created.json() == {"created": 1, "location": "/dashboard/posts?notice=drafts-saved"}
    (draft,) = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert (draft["status"], draft["content"]) == ("draft", "From the script")


async def test_the_scripts_endpoints_answer_401_when_the_session_is_gone(client, org) -> None:
    token, key = await _signed_in(client, org)
    form = {"csrf_token": token, "request_key": key, "content": "x", "profiles": ["acme-x"], "action": "publish"}
    # A session the core no longer accepts (signed out elsewhere): 401, and the cookie is dropped.
    session = client.cookies["herald_session"]
    async with httpx.AsyncClient(base_url=str(client.base_url), timeout=30) as other:
        other.cookies.set("herald_session", session)
        assert (await other.post("/logout", data={"csrf_token": token})).status_code == 303
    for path in ("/dashboard/compose/preview", "/dashboard/compose/create"):
        client.cookies.set("herald_session", session)
        answer = await client.post(path, data=form)
        assert answer.status_code == 401, path
        assert answer.json()["code"] == "UNAUTHORIZED"
        assert answer.json()["sign_in"] == "/login?next=%2Fdashboard%2Fcompose"
        assert 'herald_session=""' in answer.headers.get("set-cookie", "")
    # No cookie at all: the same.
    client.cookies.clear()
    bare = await client.post("/dashboard/compose/preview", data=form)
    assert (bare.status_code, bare.json()["code"]) == (401, "UNAUTHORIZED")
    # The page itself sends a visitor without a session to sign in, and back.
    page = await client.get("/dashboard/compose")
    assert (page.status_code, page.headers["location"]) == (303, "/login?next=%2Fdashboard%2Fcompose")


async def test_the_page_opens_only_what_its_script_needs(client, stack, org) -> None:
    token, _ = await _signed_in(client, org)
    page = await client.get("/dashboard/compose")
    policy = page.headers["content-security-policy"]
    # Its own endpoints and, for uploads from the computer, the storage's origin: the media page's.
    assert f"connect-src 'self' {stack.storage_url}; frame-ancestors" in policy and "script-src 'self'" in policy
    media_policy = (await client.get("/dashboard/media")).headers["content-security-policy"]
    assert re.search(r"connect-src [^;]*;", policy).group(0) == re.search(r"connect-src [^;]*;", media_policy).group(0)
    assert "connect-src" not in (await client.get("/dashboard/posts")).headers["content-security-policy"]
    # The upload area: the media page's, with the catalog's limits as data and "Upload" its input.
    area = re.search(r'<div class="upload-area" id="compose-upload"[^>]*>', page.text, re.S)
    assert area, page.text[:500]
    assert 'data-presign="/dashboard/media/uploads"' in area.group(0)
    assert 'data-sign-in="/login?next=%2Fdashboard%2Fcompose"' in area.group(0)
    assert "data-media-upload" not in area.group(0)  # compose.js attaches it, with its callbacks
    assert "&#34;image/png&#34;:{&#34;kind&#34;:&#34;image&#34;" in area.group(0)
    assert '<label for="compose-upload-input">Upload</label>' in page.text
    file_input = re.search(r'<input type="file" id="compose-upload-input"[^>]*>', page.text).group(0)
    assert " name=" not in file_input  # not a field of the form: the preview and the draft skip it
    # Its CSRF token is what the upload endpoints check (X-CSRF-Token), a wrong one refused.
    ask = {"filename": "a.png", "mime_type": "image/png", "size_bytes": 10}
    for sent, status in ((token + "x", 403), (token, 201)):
        answer = await client.post("/dashboard/media/uploads", json=ask, headers={"X-CSRF-Token": sent})
        assert answer.status_code == status, answer.text
    assert (await client.post("/dashboard/media/uploads", json=ask)).json()["code"] == "FORBIDDEN"
    # The organization's zone is the default, named beside the field.
    assert '<option value="UTC" selected>UTC</option>' in page.text


async def test_times_are_read_in_the_organizations_zone_by_default(client, http, org) -> None:
    changed = await http.patch("/v1/organization", json={"time_zone": "Asia/Tokyo"}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    token, key = await _signed_in(client, org)
    page = await client.get("/dashboard/compose")
    assert '<option value="Asia/Tokyo" selected>Asia/Tokyo</option>' in page.text
    assert "the organization's (Asia/Tokyo)" in page.text
    # Without its zone field, the form's time is read in the organization's zone.
    local = (datetime.now(ZoneInfo("Asia/Tokyo")) + timedelta(days=1)).replace(
        hour=7, minute=0, second=0, microsecond=0
    )
    form = {"csrf_token": token, "request_key": key, "content": "Tokyo morning", "profiles": ["acme-x"]}
    sent = await client.post(
        "/dashboard/compose", data=form | {"schedule_at": local.strftime("%Y-%m-%dT%H:%M"), "action": "schedule"}
    )
    assert sent.status_code == 303, sent.text
    (post,) = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert datetime.fromisoformat(post["schedule_at"]) == local.astimezone(UTC)


def _zone_chosen(html: str) -> list[str]:
    select = re.search(r'<select id="compose-zone".*?</select>', html, re.S)
    assert select, html[:500]
    return re.findall(r'<option value="([^"]+)" selected>', select.group(0))


def _time_shown(html: str) -> str:
    found = re.search(r'<input type="datetime-local" id="compose-schedule-at" name="schedule_at" value="([^"]*)"', html)
    assert found, html[:500]
    return found.group(1)


def _from_link(html: str) -> str:
    found = re.search(r'<form [^>]*id="compose"[^>]*>', html, re.S)
    assert found
    named = re.search(r'data-from-link="([^"]*)"', found.group(0))
    return named.group(1) if named else ""


@pytest.mark.one_backend
async def test_a_link_fills_in_the_form(client, http, org) -> None:
    changed = await http.patch("/v1/organization", json={"time_zone": ZONE}, headers=org.auth)
    assert changed.status_code == 200, changed.text
    token, key = await _signed_in(client, org)
    tokyo = (datetime.now(ZoneInfo("Asia/Tokyo")) + timedelta(days=5)).replace(
        hour=9, minute=0, second=0, microsecond=0
    )
    at = tokyo.strftime("%Y-%m-%dT%H:%M")
    # The calendar's free slot: a time, its zone and a profile (the form's own field names).
    page = await client.get(
        "/dashboard/compose",
        params={"schedule_at": at, "time_zone": "Asia/Tokyo", "profiles": "acme-bsky"},
    )
    assert page.status_code == 200, page.text
    assert _time_shown(page.text) == at
    assert _zone_chosen(page.text) == ["Asia/Tokyo"]
    assert [_checked(page.text, slug) for slug in ("acme-x", "acme-bsky", "acme-yt")] == [False, True, False]
    assert _from_link(page.text) == "profiles schedule_at time_zone"  # a restored draft leaves these alone
    assert 'role="alert">' not in page.text.replace('role="alert" hidden>', "")
    # Content too, several profiles; the request key is the page's own, never the link's.
    page = await client.get(
        "/dashboard/compose",
        params=[
            ("content", "From a link </textarea><b>"),
            ("profiles", "acme-x"),
            ("profiles", "acme-yt"),
            ("request_key", key),
        ],
    )
    assert page.status_code == 200
    assert ">From a link &lt;/textarea&gt;&lt;b&gt;</textarea>" in page.text
    assert [_checked(page.text, slug) for slug in ("acme-x", "acme-bsky", "acme-yt")] == [True, False, True]
    assert _zone_chosen(page.text) == [ZONE] and _time_shown(page.text) == ""
    assert _from_link(page.text) == "content profiles"
    assert REQUEST_KEY.search(page.text).group(1) != key
    # The page without a query is the empty form, nothing named.
    plain = await client.get("/dashboard/compose")
    assert _from_link(plain.text) == "" and not _checked(plain.text, "acme-x")
    # The prefilled form creates the post at that time in that zone.
    sent = await client.post(
        "/dashboard/compose",
        data={
            "csrf_token": token,
            "request_key": key,
            "content": "Tokyo",
            "profiles": ["acme-bsky"],
            "schedule_at": at,
            "time_zone": "Asia/Tokyo",
            "action": "schedule",
        },
    )
    assert sent.status_code == 303, sent.text
    (post,) = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    assert datetime.fromisoformat(post["schedule_at"]) == tokyo.astimezone(UTC)


@pytest.mark.one_backend
@pytest.mark.parametrize(
    ("query", "argument"),
    [
        ({"profiles": ["acme-bsky", "ghost"]}, "profiles"),
        ({"time_zone": "Mars/Olympus_Mons"}, "time_zone"),
        ({"schedule_at": "next tuesday"}, "schedule_at"),
        ({"schedule_at": "2031-12-01"}, "schedule_at"),  # a date without its time
        ({"schedule_at": "2031-12-01T09:00+09:00"}, "schedule_at"),  # an offset: the zone says it
        ({"schedule_at": "2031-03-30T02:30", "time_zone": "Europe/Paris"}, "schedule_at"),  # skipped
    ],
)
async def test_what_a_link_cannot_fill_in_is_said_once(client, http, org, query, argument) -> None:
    await _signed_in(client, org)
    full = {"schedule_at": "2031-12-01T09:00", "time_zone": "Asia/Tokyo", "profiles": ["acme-bsky"]} | query
    page = await client.get("/dashboard/compose", params=full)
    assert page.status_code == 400
    assert 'data-error-code="VALIDATION_ERROR"' in page.text
    assert page.text.count('<p class="error" role="alert">') == 1
    # What it could take is there; what it could not is the form's default.
    assert _checked(page.text, "acme-bsky")
    assert "ghost" not in re.search(r'<ul class="choices" id="profile-choices">.*?</ul>', page.text, re.S).group(0)
    expected_zone = "UTC" if argument == "time_zone" else full["time_zone"]
    assert _zone_chosen(page.text) == [expected_zone]
    assert _time_shown(page.text) == ("" if argument == "schedule_at" else full["schedule_at"])
    assert _from_link(page.text) == "profiles schedule_at time_zone"
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


# -- "Duplicate": a post's page opens the form filled in from that post ----------------------------

FROM_POST = re.compile(r'data-from-post="([^"]*)"')


def _media_checked(html: str) -> list[str]:
    """The media whose checkbox the page shows checked, in its order."""
    return re.findall(r'<input type="checkbox" id="media-(med_[0-9a-z]+)" name="media_ids"[^>]* checked>', html)


def _thread_shown(html: str) -> list[str]:
    return re.findall(r'<textarea id="thread-\d+" name="thread" rows="3">([^<]*)</textarea>', html)


@pytest.mark.one_backend
async def test_duplicate_fills_in_the_form_from_a_post(client, http, org, orgs) -> None:
    token, key = await _signed_in(client, org)
    photo, poster = await orgs.media(org), await orgs.media(org, width=640, height=480)
    body = {
        "content": "The original\nwith two lines",
        "profiles": ["acme-x"],
        "media_ids": [photo, poster],
        "thread": [{"content": "Item one"}, {"content": "Item two"}],
        "first_comment": "More soon",
        "schedule_at": later(3),
    }
    post_id = await create(http, org, body)
    # The post's page links to the copy.
    detail = await client.get(f"/dashboard/posts/{post_id}")
    assert f'<a href="/dashboard/compose?from={post_id}" id="post-duplicate"' in detail.text

    page = await client.get("/dashboard/compose", params={"from": post_id})
    assert page.status_code == 200, page.text
    assert ">The original\nwith two lines</textarea>" in page.text
    assert [_checked(page.text, slug) for slug in ("acme-x", "acme-bsky", "acme-yt")] == [True, False, False]
    assert _thread_shown(page.text) == ["Item one", "Item two"]
    assert (
        'name="first_comment" rows="2" aria-describedby="compose-first-comment-hint">More soon</textarea>' in page.text
    )
    assert sorted(_media_checked(page.text)) == sorted([photo, poster])
    # Not scheduled: no time, the organization's zone; a whole post, so the script restores no draft.
    assert _time_shown(page.text) == "" and _zone_chosen(page.text) == ["UTC"]
    assert FROM_POST.search(page.text).group(1) == post_id and _from_link(page.text) == ""
    assert f'id="compose-from" class="note">A copy of <a href="/dashboard/posts/{post_id}">' in page.text
    assert REQUEST_KEY.search(page.text).group(1) != key

    # Sent as it is (with a time), the copy is a second post with the same parts.
    when = _local(days=4)
    fields = {
        "csrf_token": token,
        "request_key": REQUEST_KEY.search(page.text).group(1),
        "content": body["content"],
        "profiles": ["acme-x"],
        "thread": ["Item one", "Item two"],
        "first_comment": "More soon",
        "media_ids": _media_checked(page.text),
        "schedule_at": when.strftime("%Y-%m-%dT%H:%M"),
        "time_zone": ZONE,
        "action": "schedule",
    }
    assert (await client.post("/dashboard/compose", data=fields)).status_code == 303
    posts = (await http.get("/v1/posts", headers=org.auth)).json()["posts"]
    (copy,) = [p for p in posts if p["id"] != post_id]
    assert (copy["content"], copy["first_comment"], sorted(copy["media_ids"])) == (
        body["content"],
        "More soon",
        sorted([photo, poster]),
    )
    assert [t["content"] for t in copy["thread"]] == ["Item one", "Item two"]

    # What else the link names wins (a calendar slot's time and profile); the rest is the post's.
    at = _local(days=6).strftime("%Y-%m-%dT%H:%M")
    slot = await client.get(
        "/dashboard/compose", params={"from": post_id, "schedule_at": at, "time_zone": ZONE, "profiles": "acme-bsky"}
    )
    assert slot.status_code == 200
    assert (_time_shown(slot.text), _zone_chosen(slot.text)) == (at, [ZONE])
    assert [_checked(slot.text, slug) for slug in ("acme-x", "acme-bsky")] == [False, True]
    assert ">The original\nwith two lines</textarea>" in slot.text and _thread_shown(slot.text) == [
        "Item one",
        "Item two",
    ]

    # A media deleted since (its posts canceled first) leaves the post's record with it: not attached.
    for canceled in (post_id, copy["id"]):
        assert (await http.delete(f"/v1/posts/{canceled}", headers=org.auth)).status_code == 200
    assert (await http.delete(f"/v1/media/{poster}", headers=org.auth)).status_code in (200, 204)
    again = await client.get("/dashboard/compose", params={"from": post_id})
    assert again.status_code == 200 and _media_checked(again.text) == [photo]
    assert poster not in again.text


@pytest.mark.one_backend
async def test_duplicate_copies_a_title_and_post_type_as_the_profiles_version(client, http, org) -> None:
    await _signed_in(client, org)
    body = {
        "content": "A video's text",
        "profiles": ["acme-yt"],
        "customizations": {"acme-yt": {"title": "Launch video", "post_type": "short"}},
        "draft": True,
    }
    post_id = await create(http, org, body)
    page = await client.get("/dashboard/compose", params={"from": post_id})
    assert page.status_code == 200, page.text
    assert _checked(page.text, "acme-yt")
    assert 'name="v.acme-yt.title" maxlength="1000" value="Launch video">' in page.text
    select = re.search(r'<select id="v-acme-yt-post-type".*?</select>', page.text, re.S).group(0)
    assert re.findall(r'<option value="([^"]*)" selected>', select) == ["short"]
    assert _media_checked(page.text) == [] and _thread_shown(page.text) == []


@pytest.mark.one_backend
async def test_duplicate_of_a_post_the_organization_has_not_is_404_and_fills_in_nothing(
    client, http, orgs, org
) -> None:
    await _signed_in(client, org)
    other = await orgs.with_profiles("x")
    theirs = await create(http, other, {"content": "Another organization's", "profiles": ["acme-x"], "draft": True})
    for post_id in (theirs, "pst_" + "z" * 26, "not-a-post", "pst_UPPER"):
        page = await client.get("/dashboard/compose", params={"from": post_id})
        assert page.status_code == 404, post_id
        assert 'data-error-code="NOT_FOUND"' in page.text
        assert page.text.count('<p class="error" role="alert">') == 1
        assert "Another organization" not in page.text
        assert "data-from-post" not in page.text and 'id="compose-from"' not in page.text
        assert not any(_checked(page.text, slug) for slug in ("acme-x", "acme-bsky", "acme-yt"))
        assert _thread_shown(page.text) == [] and _media_checked(page.text) == []
    # The link's own fields are still filled in; the post's refusal is the alert.
    page = await client.get("/dashboard/compose", params={"from": theirs, "profiles": "acme-bsky"})
    assert page.status_code == 404 and _checked(page.text, "acme-bsky")
    # The copy's own form is checked as any: without its CSRF token, nothing is created.
    refused = await client.post("/dashboard/compose", data={"content": "x", "profiles": ["acme-x"], "action": "draft"})
    assert refused.status_code == 403
    assert (await http.get("/v1/posts", headers=org.auth)).json()["posts"] == []


@pytest.mark.one_backend
async def test_duplicate_offers_a_media_older_than_the_newest_listed(client, http, org, orgs) -> None:
    await _signed_in(client, org)
    old = await orgs.media(org)
    post_id = await create(
        http, org, {"content": "Old photo", "profiles": ["acme-x"], "media_ids": [old], "draft": True}
    )
    newer = [await orgs.media(org) for _ in range(100)]  # the newest 100 are what the form lists
    page = await client.get("/dashboard/compose", params={"from": post_id})
    assert page.status_code == 200
    assert _media_checked(page.text) == [old]
    assert page.text.count('name="media_ids"') == 101 and f'id="media-{newer[-1]}"' in page.text
