"""The dashboard's media library over plain HTTP, as its page and its upload script use it
(docs/dashboard.md, "Media"; docs/media.md, "Uploads from the browser", "Thumbnails"): the
upload endpoints (presign, confirm, discard) with the session and the X-CSRF-Token header, the
storage's CORS for the dashboard's origin only, the page's policy, thumbnails and their
placeholders, where each media is used, the edit and delete forms; every form and endpoint
refuses a missing or wrong CSRF token, and another organization's media is 404 everywhere."""

from __future__ import annotations

import hashlib
import io
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import httpx
import pytest
from PIL import Image

from tests.conftest import Org
from tests.dashboard_forms import signed_in

MEDIA = "/dashboard/media"
ALERT = re.compile(r'role="alert" id="media-error" data-code="([A-Z_]+)"')


def png(width: int = 640, height: int = 480, color: tuple[int, int, int] = (200, 10, 10)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def later() -> str:
    return (datetime.now(UTC) + timedelta(days=1)).isoformat()


async def session(http: httpx.AsyncClient, org: Org) -> dict[str, str]:
    """Signs `http` in as the organization's owner: the headers the upload script sends."""
    token = await signed_in(http, org.email, MEDIA)
    return {"X-CSRF-Token": token}


async def uploaded(http: httpx.AsyncClient, script: dict[str, str], data: bytes, name: str = "photo.png") -> dict:
    """Presign, PUT (from the dashboard's origin, as a browser does) and confirm, through the
    dashboard's endpoints; the confirm answer."""
    ticket = await http.post(
        f"{MEDIA}/uploads",
        json={"filename": name, "mime_type": "image/png", "size_bytes": len(data)},
        headers=script,
    )
    assert ticket.status_code == 201, ticket.text
    async with httpx.AsyncClient() as browser:
        put = await browser.put(
            ticket.json()["upload_url"],
            content=data,
            headers={"Content-Type": "image/png", "Origin": origin(str(http.base_url))},
        )
    assert put.status_code == 200, put.text
    confirmed = await http.post(f"{MEDIA}/{ticket.json()['media_id']}/confirm", headers=script)
    assert confirmed.status_code == 200, confirmed.text
    return confirmed.json()


@pytest.mark.one_backend
async def test_an_upload_through_the_dashboard_and_its_thumbnail(stack, orgs) -> None:
    org = await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        script = await session(http, org)
        page = await http.get(MEDIA)
        assert page.status_code == 200
        # The policy opens connect-src for the dashboard's endpoints and the storage's origin only.
        policy = page.headers["content-security-policy"]
        assert f"connect-src 'self' {origin(stack.storage_url)};" in policy
        assert "script-src 'self';" in policy and "img-src 'self' data:;" in policy
        # The limits the script checks come from the core's catalog, as data.
        assert (
            'data-types="{&#34;image/jpeg&#34;:{&#34;kind&#34;:&#34;image&#34;,&#34;max_bytes&#34;:50000000}'
            in page.text
        )
        assert '<label for="upload-input">Upload</label>' in page.text

        data = png()
        done = await uploaded(http, script, data, "sunset.png")
        media_id = done["media_id"]
        assert (done["name"], done["type"], done["status"], done["duplicate"]) == (
            "sunset.png",
            "image",
            "confirmed",
            False,
        )
        assert f'id="media-{media_id}"' in done["item_html"] and 'data-thumbnail="made"' in done["item_html"]

        thumb = await http.get(f"{MEDIA}/{media_id}/thumbnail")
        assert thumb.status_code == 200 and thumb.headers["content-type"] == "image/webp"
        assert thumb.headers["cache-control"].startswith("private")
        with Image.open(io.BytesIO(thumb.content)) as picture:
            assert picture.format == "WEBP" and picture.size == (320, 240)

        # The same bytes again: the presign answers the library's media, nothing is created.
        again = await http.post(
            f"{MEDIA}/uploads",
            json={
                "filename": "copy.png",
                "mime_type": "image/png",
                "size_bytes": len(data),
                "content_hash": hashlib.sha256(data).hexdigest(),
            },
            headers=script,
        )
        assert again.status_code == 200
        assert again.json() == {
            "media_id": media_id,
            "duplicate": True,
            "name": "sunset.png",
            "type": "image",
            "dimensions": "640 × 480",
        }

        listed = (await http.get(MEDIA)).text
        assert listed.count('class="media-item"') == 1 and f'src="/dashboard/media/{media_id}/thumbnail"' in listed


@pytest.mark.one_backend
async def test_the_upload_endpoints_answer_the_core_s_codes(stack, orgs) -> None:
    org = await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        script = await session(http, org)

        async def ask(body: dict) -> httpx.Response:
            return await http.post(f"{MEDIA}/uploads", json=body, headers=script)

        too_large = await ask({"filename": "big.png", "mime_type": "image/png", "size_bytes": 60_000_000})
        assert (too_large.status_code, too_large.json()["code"]) == (400, "FILE_TOO_LARGE")
        unsupported = await ask({"filename": "a.bmp", "mime_type": "image/bmp", "size_bytes": 10})
        assert (unsupported.status_code, unsupported.json()["code"]) == (400, "UNSUPPORTED_MEDIA_TYPE")
        malformed = await ask({"filename": "a.png", "mime_type": "image/png"})
        assert (malformed.status_code, malformed.json()["code"]) == (400, "VALIDATION_ERROR")
        assert malformed.json()["argument"] == "size_bytes"
        not_json = await http.post(f"{MEDIA}/uploads", content=b"[", headers=script)
        assert not_json.json()["code"] == "VALIDATION_ERROR"

        # Confirm before the bytes landed: the core's code, and the record stays pending until discarded.
        ticket = (await ask({"filename": "a.png", "mime_type": "image/png", "size_bytes": 10})).json()
        early = await http.post(f"{MEDIA}/{ticket['media_id']}/confirm", headers=script)
        assert (early.status_code, early.json()["code"]) == (400, "FILE_NOT_UPLOADED")
        assert (await http.get(f"/v1/media/{ticket['media_id']}", headers=org.auth)).json()["status"] == "pending"
        gone = await http.post(f"{MEDIA}/{ticket['media_id']}/discard", headers=script)
        assert gone.json() == {"discarded": True}
        assert (await http.get(f"/v1/media/{ticket['media_id']}", headers=org.auth)).status_code == 404

        # Discard never deletes a confirmed media.
        kept = (await uploaded(http, script, png(color=(1, 2, 3))))["media_id"]
        refused = await http.post(f"{MEDIA}/{kept}/discard", headers=script)
        assert refused.json() == {"discarded": False}
        assert (await http.get(f"/v1/media/{kept}", headers=org.auth)).status_code == 200


@pytest.mark.one_backend
async def test_csrf_and_session_are_checked_by_every_endpoint_and_form(stack, orgs) -> None:
    org = await orgs()
    media_id = await orgs.media(org)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        body = {"filename": "a.png", "mime_type": "image/png", "size_bytes": 10}
        # No session: 401 JSON for the script (and an image request), sign-in for the forms.
        assert (await http.post(f"{MEDIA}/uploads", json=body)).status_code == 401
        assert (await http.get(f"{MEDIA}/{media_id}/thumbnail")).status_code == 401
        form = await http.post(f"{MEDIA}/{media_id}/edit", data={"description": "x"})
        assert (form.status_code, form.headers["location"].split("?")[0]) == (303, "/login")

        script = await session(http, org)
        for sent in (
            {},
            {"X-CSRF-Token": ""},
            {"X-CSRF-Token": "x" * 43},
            {"X-CSRF-Token": script["X-CSRF-Token"] + "x"},
        ):
            for path in ("uploads", f"{media_id}/confirm", f"{media_id}/discard"):
                refused = await http.post(f"{MEDIA}/{path}", json=body, headers=sent)
                assert (refused.status_code, refused.json()["code"]) == (403, "FORBIDDEN"), path
            for action, data in (("edit", {"description": "changed", "tags": "x"}), ("delete", {})):
                token = {} if "X-CSRF-Token" not in sent else {"csrf_token": sent["X-CSRF-Token"]}
                refused = await http.post(f"{MEDIA}/{media_id}/{action}", data=data | token)
                assert refused.status_code == 403, action
        record = (await http.get(f"/v1/media/{media_id}", headers=org.auth)).json()
        assert record["description"] == "" and record["tags"] == ""
        assert (await http.get("/v1/media", headers=org.auth)).json()["media"]  # nothing deleted

        # The form's token in the header or in the form both do.
        saved = await http.post(
            f"{MEDIA}/{media_id}/edit",
            data={"csrf_token": script["X-CSRF-Token"], "description": "A red square", "tags": "Launch, red"},
        )
        assert saved.status_code == 303 and saved.headers["location"] == f"{MEDIA}?notice=media-saved#media-{media_id}"


@pytest.mark.one_backend
async def test_another_organization_s_media_is_404_on_every_page_and_action(stack, orgs) -> None:
    owner, other = await orgs(), await orgs()
    theirs = await orgs.media(owner)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        script = await session(http, other)
        token = script["X-CSRF-Token"]
        for media_id in (theirs, "med_0000000000unknown000000000", "not-a-media", "med_UPPER"):
            assert (await http.get(f"{MEDIA}/{media_id}/thumbnail")).status_code == 404, media_id
            for path in ("confirm", "discard"):
                answer = await http.post(f"{MEDIA}/{media_id}/{path}", headers=script)
                assert (answer.status_code, answer.json()["code"]) == (404, "NOT_FOUND"), (media_id, path)
            edited = await http.post(f"{MEDIA}/{media_id}/edit", data={"csrf_token": token, "description": "mine now"})
            assert edited.status_code == 404, media_id
            deleted = await http.post(f"{MEDIA}/{media_id}/delete", data={"csrf_token": token})
            assert deleted.status_code == 404, media_id
        assert theirs not in (await http.get(MEDIA)).text
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        record = (await http.get(f"/v1/media/{theirs}", headers=owner.auth)).json()
        assert record["description"] == ""


async def test_edit_delete_and_where_media_is_used(stack, orgs) -> None:
    org = await orgs.with_profiles("x")
    used, unused = await orgs.media(org), await orgs.media(org)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        created = await http.post(
            "/v1/posts",
            json={"content": "With a picture", "profiles": ["acme-x"], "media_ids": [used], "schedule_at": later()},
            headers=org.auth,
        )
        assert created.status_code == 201, created.text
        post_id = created.json()["posts"][0]["id"]
        script = await session(http, org)
        token = script["X-CSRF-Token"]

        page = (await http.get(MEDIA)).text
        # A media confirmed without a thumbnail is shown with a placeholder of its type.
        assert page.count('data-thumbnail="placeholder"') == 2
        placeholder = await http.get(f"{MEDIA}/{used}/thumbnail")
        assert placeholder.status_code == 200 and placeholder.headers["content-type"] == "image/svg+xml"
        assert b">Image<" in placeholder.content
        # Where it is used, and why it cannot be deleted.
        assert f'<a href="/dashboard/posts/{post_id}">{post_id}</a> <span class="muted">scheduled</span>' in page
        assert re.search(rf'disabled aria-describedby="delete-why-{used}"', page)
        assert f'id="delete-why-{used}">Post {post_id} has not gone out yet' in page

        in_use = await http.post(f"{MEDIA}/{used}/delete", data={"csrf_token": token})
        assert in_use.status_code == 409 and ALERT.search(in_use.text).group(1) == "MEDIA_IN_USE"
        assert (await http.get(f"/v1/media/{used}", headers=org.auth)).status_code == 200

        long = "x" * 5001
        refused = await http.post(
            f"{MEDIA}/{used}/edit", data={"csrf_token": token, "description": long, "tags": "kept"}
        )
        assert refused.status_code == 400 and ALERT.search(refused.text).group(1) == "VALIDATION_ERROR"
        assert f">{long}</textarea>" in refused.text and 'value="kept"' in refused.text  # what was typed

        saved = await http.post(
            f"{MEDIA}/{used}/edit", data={"csrf_token": token, "description": "A red square", "tags": "Launch, Red"}
        )
        assert saved.status_code == 303
        shown = (await http.get(saved.headers["location"])).text
        assert "The description and tags are saved." in shown
        assert 'alt="A red square"' in shown and '<span class="tag">launch</span> <span class="tag">red</span>' in shown
        record = (await http.get(f"/v1/media/{used}", headers=org.auth)).json()
        assert (record["description"], record["tags"]) == ("A red square", "launch,red")

        deleted = await http.post(f"{MEDIA}/{unused}/delete", data={"csrf_token": token})
        assert (deleted.status_code, deleted.headers["location"]) == (303, f"{MEDIA}?notice=media-deleted")
        assert (await http.get(f"/v1/media/{unused}", headers=org.auth)).status_code == 404
        assert unused not in (await http.get(MEDIA)).text


@pytest.mark.one_backend
async def test_a_corrupt_image_gets_a_placeholder_not_an_error(stack, orgs) -> None:
    org = await orgs()
    broken = b"\x89PNG\r\n\x1a\n" + b"\x00not really a png" * 64  # a PNG by its magic number only
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        script = await session(http, org)
        done = await uploaded(http, script, broken, "broken.png")
        assert done["status"] == "confirmed" and 'data-thumbnail="placeholder"' in done["item_html"]
        shown = await http.get(f"{MEDIA}/{done['media_id']}/thumbnail")
        assert shown.status_code == 200 and shown.headers["content-type"] == "image/svg+xml"


@pytest.mark.one_backend
async def test_storage_answers_cors_for_the_dashboard_s_origin_only(stack, orgs) -> None:
    org = await orgs()
    dashboard = origin(stack.base_url)
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        ticket = (
            await http.post(
                "/v1/media/presign",
                json={"filename": "a.png", "mime_type": "image/png", "size_bytes": 10},
                headers=org.auth,
            )
        ).json()
    url = ticket["upload_url"]
    preflight = {"Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "content-type"}
    async with httpx.AsyncClient(timeout=30) as browser:
        allowed = await browser.options(url, headers={"Origin": dashboard} | preflight)
        assert allowed.status_code == 204
        assert allowed.headers["access-control-allow-origin"] == dashboard
        assert allowed.headers["access-control-allow-methods"] == "PUT"
        assert allowed.headers["access-control-allow-headers"] == "Content-Type"
        assert "Origin" in allowed.headers["vary"]

        for sent in (
            {"Origin": "https://evil.example"} | preflight,
            {"Origin": dashboard, "Access-Control-Request-Method": "DELETE"},
            {"Origin": dashboard} | preflight | {"Access-Control-Request-Headers": "content-type, x-extra"},
        ):
            refused = await browser.options(url, headers=sent)
            assert (refused.status_code, refused.json()["code"]) == (403, "CORS_REFUSED")
            assert "access-control-allow-origin" not in refused.headers

        # The PUT's answer names the dashboard's origin, errors included; another origin gets none.
        elsewhere = await browser.put(
            url, content=b"x" * 10, headers={"Content-Type": "image/png", "Origin": "https://evil.example"}
        )
        assert elsewhere.status_code == 200 and "access-control-allow-origin" not in elsewhere.headers
        again = await browser.put(url, content=b"x" * 10, headers={"Content-Type": "image/png", "Origin": dashboard})
        assert (again.status_code, again.json()["code"]) == (409, "UPLOAD_ALREADY_COMPLETE")
        assert again.headers["access-control-allow-origin"] == dashboard
