"""The media library through /v1 and the real storage server: presign, PUT, confirm, dedupe,
every error code, list/get/edit/delete, organization isolation."""

from __future__ import annotations

import hashlib
import io
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from PIL import Image


def png(width: int = 64, height: int = 48, color: tuple[int, int, int] = (200, 10, 10)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return buf.getvalue()


def jpeg(width: int = 32, height: int = 32) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (1, 2, 3)).save(buf, "JPEG")
    return buf.getvalue()


MP4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 1000


async def presign(http, org, data: bytes, mime: str = "image/png", **extra) -> httpx.Response:
    body = {"filename": "photo.png", "mime_type": mime, "size_bytes": len(data), **extra}
    return await http.post("/v1/media/presign", json=body, headers=org.auth)


async def upload(http, org, data: bytes, mime: str = "image/png", **extra) -> str:
    ticket = (await presign(http, org, data, mime, **extra)).json()
    async with httpx.AsyncClient() as storage:
        put = await storage.put(ticket["upload_url"], content=data, headers={"Content-Type": mime})
    assert put.status_code < 300, put.text
    return ticket["media_id"]


async def test_presign_upload_confirm_then_post(http, orgs, stack) -> None:
    org = await orgs()
    await orgs.profile(org, "acme-x", "x")
    data = png(640, 480)
    response = await presign(http, org, data)
    assert response.status_code == 201
    ticket = response.json()
    assert set(ticket) == {"media_id", "upload_url", "expires_in"}
    assert ticket["expires_in"] == 3600
    assert ticket["upload_url"].startswith(stack.storage_url)  # object storage, never the API
    async with httpx.AsyncClient() as storage:
        put = await storage.put(ticket["upload_url"], content=data, headers={"Content-Type": "image/png"})
    assert put.status_code < 300
    confirmed = await http.post(f"/v1/media/{ticket['media_id']}/confirm", headers=org.auth)
    assert confirmed.status_code == 200, confirmed.text
    record = confirmed.json()
    assert {k: record[k] for k in ("media_id", "type", "mime_type", "size_bytes", "name", "description", "tags")} == {
        "media_id": ticket["media_id"],
        "type": "image",
        "mime_type": "image/png",
        "size_bytes": len(data),
        "name": "photo.png",
        "description": "",
        "tags": "",
    }
    assert (record["width"], record["height"]) == (640, 480)
    assert record["content_hash"] == hashlib.sha256(data).hexdigest()
    assert record["status"] == "confirmed" and record["created_at"].endswith("Z")
    post = await http.post(
        "/v1/posts",
        json={
            "content": "pic",
            "profiles": ["acme-x"],
            "media_ids": [ticket["media_id"]],
            "schedule_at": (datetime.now(UTC) + timedelta(days=1)).isoformat(),
        },
        headers=org.auth,
    )
    assert post.status_code == 201 and post.json()["posts"][0]["media_ids"] == [ticket["media_id"]]


async def test_duplicate_by_declared_hash(http, orgs) -> None:
    org = await orgs()
    data = png(10, 10)
    digest = hashlib.sha256(data).hexdigest()
    first = await upload(http, org, data, content_hash=digest)
    assert (await http.post(f"/v1/media/{first}/confirm", headers=org.auth)).status_code == 200
    again = await presign(http, org, data, content_hash=digest)
    assert again.status_code == 200
    assert again.json() == {"media_id": first, "duplicate": True}
    # Another organization with the same bytes gets its own upload.
    other = await orgs()
    assert (await presign(http, other, data, content_hash=digest)).status_code == 201


async def test_dedupe_at_confirm_returns_the_existing_media(http, orgs) -> None:
    org = await orgs()
    data = png(12, 12)
    first = await upload(http, org, data)
    await http.post(f"/v1/media/{first}/confirm", headers=org.auth)
    second = await upload(http, org, data)
    response = await http.post(f"/v1/media/{second}/confirm", headers=org.auth)
    assert response.status_code == 200 and response.json()["media_id"] == first
    assert (await http.get(f"/v1/media/{second}", headers=org.auth)).status_code == 404


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"mime_type": "image/png", "size_bytes": 10}, "VALIDATION_ERROR"),
        ({"filename": "", "mime_type": "image/png", "size_bytes": 10}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "size_bytes": 10}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png"}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": "10"}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": True}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": 0}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": -5}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": 1.5}, "VALIDATION_ERROR"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": 10, "content_hash": "ABC"}, "VALIDATION_ERROR"),
        (
            {"filename": "a.png", "mime_type": "image/png", "size_bytes": 10, "content_hash": "A" * 64},
            "VALIDATION_ERROR",
        ),
        ({"filename": "a.exe", "mime_type": "application/x-msdownload", "size_bytes": 10}, "UNSUPPORTED_MEDIA_TYPE"),
        ({"filename": "a.svg", "mime_type": "image/svg+xml", "size_bytes": 10}, "UNSUPPORTED_MEDIA_TYPE"),
        ({"filename": "a.png", "mime_type": "image/png", "size_bytes": 50_000_001}, "FILE_TOO_LARGE"),
        ({"filename": "a.gif", "mime_type": "image/gif", "size_bytes": 50_000_001}, "FILE_TOO_LARGE"),
        ({"filename": "a.mp4", "mime_type": "video/mp4", "size_bytes": 1_000_000_001}, "FILE_TOO_LARGE"),
    ],
)
async def test_presign_errors(http, orgs, body, code) -> None:
    org = await orgs()
    response = await http.post("/v1/media/presign", json=body, headers=org.auth)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code


async def test_limits_are_inclusive(http, orgs) -> None:
    org = await orgs()
    for mime, size in (("image/png", 50_000_000), ("image/gif", 50_000_000), ("video/mp4", 1_000_000_000)):
        response = await http.post(
            "/v1/media/presign", json={"filename": "f", "mime_type": mime, "size_bytes": size}, headers=org.auth
        )
        assert response.status_code == 201, (mime, response.text)


async def test_confirm_errors(http, orgs) -> None:
    org = await orgs()
    data = png()
    not_uploaded = (await presign(http, org, data)).json()["media_id"]
    response = await http.post(f"/v1/media/{not_uploaded}/confirm", headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "FILE_NOT_UPLOADED")

    short = (await presign(http, org, data)).json()
    async with httpx.AsyncClient() as storage:
        await storage.put(short["upload_url"], content=data[:-10], headers={"Content-Type": "image/png"})
    response = await http.post(f"/v1/media/{short['media_id']}/confirm", headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "FILE_SIZE_MISMATCH")

    fake = await upload(http, org, jpeg(), mime="image/png")  # JPEG bytes declared as PNG
    response = await http.post(f"/v1/media/{fake}/confirm", headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "UNSUPPORTED_MEDIA_TYPE")

    wrong_hash = await upload(http, org, png(5, 5), content_hash="0" * 64)
    response = await http.post(f"/v1/media/{wrong_hash}/confirm", headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "CONTENT_HASH_MISMATCH")

    good = await upload(http, org, png(7, 7))
    assert (await http.post(f"/v1/media/{good}/confirm", headers=org.auth)).status_code == 200
    for media_id in (good, "med_unknown"):  # already confirmed, unknown
        response = await http.post(f"/v1/media/{media_id}/confirm", headers=org.auth)
        assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")


async def test_video_confirm(http, orgs) -> None:
    org = await orgs()
    media_id = await upload(http, org, MP4, mime="video/mp4")
    record = (await http.post(f"/v1/media/{media_id}/confirm", headers=org.auth)).json()
    assert (record["type"], record["width"], record["height"]) == ("video", None, None)


async def test_unconfirmed_media_cannot_be_attached(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "p", "x")
    pending = await upload(http, org, png(3, 3))
    response = await http.post(
        "/v1/posts", json={"content": "x", "profiles": ["p"], "media_ids": [pending]}, headers=org.auth
    )
    assert response.json()["code"] == "INVALID_MEDIA"


async def test_list_get_edit_delete(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "p", "x")
    ids = []
    for color in ((1, 1, 1), (2, 2, 2), (3, 3, 3)):
        media_id = await upload(http, org, png(8, 8, color))
        await http.post(f"/v1/media/{media_id}/confirm", headers=org.auth)
        ids.append(media_id)
    await upload(http, org, png(9, 9))  # unconfirmed: not listed
    listed = (await http.get("/v1/media", headers=org.auth)).json()["media"]
    assert [m["media_id"] for m in listed] == ids[::-1]
    edited = await http.patch(
        f"/v1/media/{ids[0]}", json={"description": "A red square", "tags": "Brand, launch"}, headers=org.auth
    )
    assert edited.status_code == 200
    assert (edited.json()["description"], edited.json()["tags"]) == ("A red square", "brand,launch")
    tagged = (await http.get("/v1/media", params={"tag": "launch"}, headers=org.auth)).json()["media"]
    assert [m["media_id"] for m in tagged] == [ids[0]]
    assert (await http.get("/v1/media", params={"tag": "lau"}, headers=org.auth)).json()["media"] == []
    for body in ({}, {"tags": "no spaces!"}, {"description": 5}, {"name": "x"}):
        bad = await http.patch(f"/v1/media/{ids[0]}", json=body, headers=org.auth)
        assert bad.status_code == 400 and bad.json()["code"] == "VALIDATION_ERROR", body

    post = (
        await http.post(
            "/v1/posts",
            json={
                "content": "x",
                "profiles": ["p"],
                "media_ids": [ids[1]],
                "schedule_at": (datetime.now(UTC) + timedelta(days=1)).isoformat(),
            },
            headers=org.auth,
        )
    ).json()["posts"][0]
    in_use = await http.delete(f"/v1/media/{ids[1]}", headers=org.auth)
    assert (in_use.status_code, in_use.json()["code"]) == (409, "MEDIA_IN_USE")
    await http.delete(f"/v1/posts/{post['id']}", headers=org.auth)
    assert (await http.delete(f"/v1/media/{ids[1]}", headers=org.auth)).status_code == 200
    assert (await http.get(f"/v1/media/{ids[1]}", headers=org.auth)).status_code == 404


async def test_another_organization_cannot_touch_media(http, orgs) -> None:
    owner, other = await orgs(), await orgs()
    await orgs.profile(other, "p", "x")
    media_id = await upload(http, owner, png(4, 4))
    assert (await http.post(f"/v1/media/{media_id}/confirm", headers=other.auth)).status_code == 404
    assert (await http.post(f"/v1/media/{media_id}/confirm", headers=owner.auth)).status_code == 200
    for method, path, kwargs in (("GET", "", {}), ("PATCH", "", {"json": {"description": "mine"}}), ("DELETE", "", {})):
        response = await http.request(method, f"/v1/media/{media_id}{path}", headers=other.auth, **kwargs)
        assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND"), method
    attach = await http.post(
        "/v1/posts", json={"content": "x", "profiles": ["p"], "media_ids": [media_id]}, headers=other.auth
    )
    assert attach.json()["code"] == "INVALID_MEDIA"
    assert (await http.get("/v1/media", headers=other.auth)).json()["media"] == []
    assert (await http.get(f"/v1/media/{media_id}", headers=owner.auth)).json()["description"] == ""
