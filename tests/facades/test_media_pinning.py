"""On the embedded storage, an upload URL cannot replace bytes once they landed, so nothing
confirmed can change under a media record: the second PUT to the same URL, even after confirm
and within the URL's hour, is refused, and what publishing hands a platform is the confirmed
file (GCS pins the generation instead: tests/e2e/test_media_gcs.py)."""

from __future__ import annotations

import asyncio
import io

import httpx
import pytest
from PIL import Image


def jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), color).save(buf, "JPEG")
    return buf.getvalue()


@pytest.mark.one_backend
@pytest.mark.usefixtures("worker")
async def test_an_upload_url_cannot_replace_confirmed_bytes(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "pin-ig", "instagram")
    checked, swapped = jpeg((200, 10, 10)), jpeg((10, 200, 10))
    body = {"filename": "photo.jpg", "mime_type": "image/jpeg", "size_bytes": len(checked)}
    ticket = (await http.post("/v1/media/presign", json=body, headers=org.auth)).json()
    async with httpx.AsyncClient(timeout=30) as storage:
        put = await storage.put(ticket["upload_url"], content=checked, headers={"Content-Type": "image/jpeg"})
        assert put.status_code == 200, put.text
        confirmed = await http.post(f"/v1/media/{ticket['media_id']}/confirm", headers=org.auth)
        assert confirmed.status_code == 200, confirmed.text
        again = await storage.put(ticket["upload_url"], content=swapped, headers={"Content-Type": "image/jpeg"})
        assert (again.status_code, again.json()["code"]) == (409, "UPLOAD_ALREADY_COMPLETE")

        created = await http.post(
            "/v1/posts",
            json={"content": "pinned", "profiles": ["pin-ig"], "media_ids": [ticket["media_id"]]},
            headers=org.auth,
        )
        assert created.status_code == 201, created.text
        post_id = created.json()["posts"][0]["id"]
        for _ in range(300):
            post = (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json()
            if post["status"] not in ("queued", "publishing"):
                break
            await asyncio.sleep(0.1)
        assert post["status"] == "published", post
        (entry,) = (await http.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"]
        image_url = next(r["form"]["image_url"] for r in entry["requests"] if "image_url" in r.get("form", {}))
        served = await storage.get(image_url)
    assert (served.status_code, served.content) == (200, checked)
