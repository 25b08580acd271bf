"""POST /v1/media, the legacy multipart upload: the same record and checks as presign+confirm,
limits of 50 MB for images and GIFs and 100 MB for video, streamed (docs/media.md, "Legacy multipart upload")."""

from __future__ import annotations

import hashlib
import os
from datetime import UTC, datetime, timedelta

import pytest

from tests.facades.test_media import MP4, jpeg, png


async def send(http, org, data: bytes, mime: str = "image/png", name: str = "pic.png", field: str = "file"):
    return await http.post("/v1/media", files={field: (name, data, mime)}, headers=org.auth)


async def test_upload_returns_a_confirmed_record(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "p", "x")
    data = png(300, 200)
    response = await send(http, org, data)
    assert response.status_code == 201, response.text
    record = response.json()
    assert record["media_id"].startswith("med_")
    assert (record["type"], record["mime_type"], record["size_bytes"], record["name"]) == (
        "image",
        "image/png",
        len(data),
        "pic.png",
    )
    assert (record["status"], record["width"], record["height"]) == ("confirmed", 300, 200)
    assert record["content_hash"] == hashlib.sha256(data).hexdigest()
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    post = await http.post(
        "/v1/posts",
        json={"content": "x", "profiles": ["p"], "media_ids": [record["media_id"]], "schedule_at": later},
        headers=org.auth,
    )
    assert post.status_code == 201 and post.json()["posts"][0]["media_ids"] == [record["media_id"]]
    assert (await http.get(f"/v1/media/{record['media_id']}", headers=org.auth)).json() == record


async def test_video_and_dedupe(http, orgs) -> None:
    org = await orgs()
    first = (await send(http, org, MP4, "video/mp4", "clip.mp4")).json()
    assert first["type"] == "video"
    again = await send(http, org, MP4, "video/mp4", "same.mp4")
    assert again.status_code == 201 and again.json()["media_id"] == first["media_id"]


@pytest.mark.parametrize(
    ("data", "mime", "field", "code"),
    [
        (b"", "image/png", "file", "VALIDATION_ERROR"),  # empty file
        (png(), "image/png", "upload", "VALIDATION_ERROR"),  # no `file` part
        (png(), "image/svg+xml", "file", "UNSUPPORTED_MEDIA_TYPE"),
        (jpeg(), "image/png", "file", "UNSUPPORTED_MEDIA_TYPE"),  # bytes are not of the declared type
        (b"just text", "video/mp4", "file", "UNSUPPORTED_MEDIA_TYPE"),
    ],
)
async def test_errors(http, orgs, data: bytes, mime: str, field: str, code: str) -> None:
    org = await orgs()
    response = await send(http, org, data, mime, field=field)
    assert response.status_code == 400, response.text
    assert response.json()["code"] == code
    assert (await http.get("/v1/media", headers=org.auth)).json()["media"] == []


async def test_not_multipart(http, orgs) -> None:
    org = await orgs()
    response = await http.post("/v1/media", json={"file": "x"}, headers=org.auth)
    assert (response.status_code, response.json()["code"]) == (400, "VALIDATION_ERROR")
    assert (await http.post("/v1/media", json={"file": "x"})).status_code == 401


async def test_malformed_multipart(http, orgs) -> None:
    org = await orgs()
    response = await http.post(
        "/v1/media",
        content=b"--xyz\r\nnot a header line\r\n\r\n--",
        headers={**org.auth, "Content-Type": "multipart/form-data; boundary=xyz"},
    )
    assert response.status_code == 400 and response.json()["code"] == "VALIDATION_ERROR"


async def test_video_over_100_mb_is_refused_and_nothing_is_kept(http, orgs) -> None:
    org = await orgs()
    big = MP4 + os.urandom(100_000_001 - len(MP4))
    response = await send(http, org, big, "video/mp4", "big.mp4")
    assert (response.status_code, response.json()["code"]) == (400, "FILE_TOO_LARGE")
    assert (await http.get("/v1/media", headers=org.auth)).json()["media"] == []


async def test_image_over_50_mb_is_refused(http, orgs) -> None:
    org = await orgs()
    big = png() + b"\0" * 50_000_001
    response = await send(http, org, big)
    assert (response.status_code, response.json()["code"]) == (400, "FILE_TOO_LARGE")


async def test_a_refusal_before_the_body_is_read_keeps_its_code(http, orgs) -> None:
    """The core refuses the header (an SVG is never accepted) while the facade is still streaming
    the file's chunks to it: the answer is that refusal every time, never a 500. (grpcio's asyncio
    client reported INTERNAL when a write failed after the server's status had come: the core
    reads what the client sends before it answers a refusal.)"""
    org = await orgs()
    body = png() + bytes(4 * 1024 * 1024)
    for _ in range(12):
        response = await send(http, org, body, "image/svg+xml", name="big.svg")
        assert (response.status_code, response.json()["code"]) == (400, "UNSUPPORTED_MEDIA_TYPE"), response.text
