"""Thumbnails made by confirm (docs/media.md, "Thumbnails"), through the public surfaces: files
uploaded with /v1 (presign, PUT to the storage, confirm), their thumbnails read over gRPC
(MediaService.GetMediaThumbnail): PNG, JPEG (its EXIF orientation applied), GIF (the first
frame), WebP, MP4, MOV and WebM (a frame decoded by PyAV), each a WebP at most 320 px on its long
side; a corrupt file and a decompression bomb get none, and confirm still succeeds. Deleting a
media deletes its thumbnail. ListMediaDetails and GetUploadOrigin, the media page's other reads.
The budgets of RangeFile, the reader the thumbnails read storage through."""

from __future__ import annotations

import io
import struct
import time
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import av
import grpc
import httpx
import pytest
from herald.media.v1 import media_pb2, media_pb2_grpc
from PIL import Image

from core.media.thumbnails import BudgetSpent, RangeFile
from tests.conftest import Org
from tests.core.rpc_helpers import error_info

pytestmark = pytest.mark.one_backend  # no SQL decides what a thumbnail looks like


def picture(fmt: str, size: tuple[int, int], color: tuple[int, int, int] = (200, 30, 30), **save) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt, **save)
    return buf.getvalue()


def rotated_jpeg() -> bytes:
    """400 x 1000 as stored, EXIF orientation 6 (turn 90° clockwise to view): 1000 x 400 upright."""
    exif = Image.Exif()
    exif[0x0112] = 6
    return picture("JPEG", (400, 1000), exif=exif)


def animated_gif() -> bytes:
    frames = [Image.new("RGB", (200, 100), color) for color in ((255, 0, 0), (0, 0, 255))]
    buf = io.BytesIO()
    frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return buf.getvalue()


def video(fmt: str, codec: str, width: int = 96, height: int = 64, seconds: int = 2) -> bytes:
    """A tiny video made with PyAV (its wheels bundle the encoders): each tenth of a second
    another shade, so the frame one second in is not the first."""
    buf = io.BytesIO()
    with av.open(buf, "w", format=fmt) as container:
        stream = container.add_stream(codec, rate=10)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        for n in range(seconds * 10):
            frame = av.VideoFrame.from_image(Image.new("RGB", (width, height), (10 * n, 120, 200)))
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return buf.getvalue()


def png_bomb(width: int = 30_000, height: int = 30_000) -> bytes:
    """A valid PNG header declaring far more pixels than Pillow's limit, with almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * 64))
        + chunk(b"IEND", b"")
    )


async def upload(http: httpx.AsyncClient, org: Org, data: bytes, mime: str, name: str = "file") -> dict:
    ticket = await http.post(
        "/v1/media/presign", json={"filename": name, "mime_type": mime, "size_bytes": len(data)}, headers=org.auth
    )
    assert ticket.status_code == 201, ticket.text
    async with httpx.AsyncClient() as storage:
        put = await storage.put(ticket.json()["upload_url"], content=data, headers={"Content-Type": mime})
    assert put.status_code == 200, put.text
    confirmed = await http.post(f"/v1/media/{ticket.json()['media_id']}/confirm", headers=org.auth)
    assert confirmed.status_code == 200, confirmed.text
    return confirmed.json()


def media_stub(channel: grpc.aio.Channel) -> media_pb2_grpc.MediaServiceStub:
    return media_pb2_grpc.MediaServiceStub(channel)


async def thumbnail_of(channel, org: Org, media_id: str) -> media_pb2.MediaThumbnail:
    return await media_stub(channel).GetMediaThumbnail(
        media_pb2.GetMediaThumbnailRequest(media_id=media_id), metadata=org.metadata
    )


@pytest.mark.parametrize(
    ("make", "mime", "kind", "size", "center"),
    [
        (lambda: picture("PNG", (640, 480)), "image/png", "image", (320, 240), (200, 30, 30)),
        (rotated_jpeg, "image/jpeg", "image", (320, 128), (200, 30, 30)),
        (animated_gif, "image/gif", "gif", (200, 100), (255, 0, 0)),  # the first frame
        (lambda: picture("WEBP", (300, 200), (20, 160, 60)), "image/webp", "image", (300, 200), (20, 160, 60)),
        (lambda: video("mp4", "libx264"), "video/mp4", "video", (96, 64), None),
        (lambda: video("mov", "libx264", 64, 128), "video/quicktime", "video", (64, 128), None),
        (lambda: video("webm", "libvpx"), "video/webm", "video", (96, 64), None),
    ],
    ids=["png", "jpeg-exif-rotated", "gif-first-frame", "webp", "mp4", "mov", "webm"],
)
async def test_confirm_makes_a_thumbnail(stack, orgs, channel, make, mime, kind, size, center) -> None:
    org = await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as http:
        record = await upload(http, org, make(), mime)
    thumb = await thumbnail_of(channel, org, record["media_id"])
    assert (thumb.media_id, thumb.type, thumb.mime_type) == (record["media_id"], kind, "image/webp")
    with Image.open(io.BytesIO(thumb.data)) as shown:
        assert shown.format == "WEBP" and shown.size == size
        middle = shown.convert("RGB").getpixel((size[0] // 2, size[1] // 2))
    if center is not None:
        assert all(abs(a - b) <= 12 for a, b in zip(middle, center, strict=True)), middle
    else:  # a video: the frame one second in (the 10th shade), not the first
        assert 70 <= middle[0] <= 130, middle


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\x00broken" * 100, "image/png"),
        (png_bomb(), "image/png"),
        (b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + b"\x00" * 1000, "video/mp4"),
    ],
    ids=["corrupt-png", "decompression-bomb", "corrupt-mp4"],
)
async def test_no_thumbnail_for_what_cannot_be_decoded_and_confirm_still_succeeds(
    stack, orgs, channel, data, mime
) -> None:
    org = await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as http:
        started = time.monotonic()
        record = await upload(http, org, data, mime)
        assert time.monotonic() - started < 15
    assert record["status"] == "confirmed"
    thumb = await thumbnail_of(channel, org, record["media_id"])
    assert (thumb.type, thumb.mime_type, thumb.data) == (record["type"], "", b"")


async def test_thumbnails_belong_to_their_organization_and_go_with_their_media(stack, orgs, channel) -> None:
    owner, other = await orgs(), await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as http:
        record = await upload(http, owner, picture("PNG", (64, 64)), "image/png")
        media_id = record["media_id"]
        thumb_file = Path(stack.workdir) / "data" / "objects" / owner.org_id / f"{media_id}.thumb"
        assert thumb_file.exists()

        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await thumbnail_of(channel, other, media_id)
        assert error_info(refused.value).reason == "NOT_FOUND"

        # A pending upload has no thumbnail yet: empty, with its type.
        ticket = await http.post(
            "/v1/media/presign",
            json={"filename": "v.mp4", "mime_type": "video/mp4", "size_bytes": 10},
            headers=owner.auth,
        )
        pending = await thumbnail_of(channel, owner, ticket.json()["media_id"])
        assert (pending.type, pending.data) == ("video", b"")

        # The same bytes again: confirm answers the library's media and makes no second thumbnail.
        again = await upload(http, owner, picture("PNG", (64, 64)), "image/png")
        assert again["media_id"] == media_id
        assert sorted(p.name for p in thumb_file.parent.iterdir() if p.name.endswith(".thumb")) == [thumb_file.name]

        assert (await http.delete(f"/v1/media/{media_id}", headers=owner.auth)).status_code == 200
        assert not thumb_file.exists()


async def test_media_details_name_the_posts_using_each_media(stack, orgs, channel) -> None:
    org = await orgs.with_profiles("x")
    other = await orgs()
    used, unused, theirs = await orgs.media(org), await orgs.media(org), await orgs.media(other)
    later = (datetime.now(UTC) + timedelta(days=1)).isoformat()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=60) as http:
        posts = []
        for _ in range(2):
            created = await http.post(
                "/v1/posts",
                json={"content": "Hi", "profiles": ["acme-x"], "media_ids": [used], "schedule_at": later},
                headers=org.auth,
            )
            assert created.status_code == 201, created.text
            posts.append(created.json()["posts"][0]["id"])
        canceled = await http.delete(f"/v1/posts/{posts[1]}", headers=org.auth)
        assert canceled.status_code == 200, canceled.text

    stub = media_stub(channel)
    answer = await stub.ListMediaDetails(
        media_pb2.ListMediaDetailsRequest(media_ids=[theirs, unused, used, "med_unknown"]), metadata=org.metadata
    )
    details = {d.media_id: d for d in answer.details}
    assert [d.media_id for d in answer.details] == [unused, used]  # another organization's left out
    assert [(u.post_id, u.status) for u in details[used].uses] == [(posts[1], "canceled"), (posts[0], "scheduled")]
    assert (details[used].use_count, details[used].blocking_post_id) == (2, posts[0])
    assert (details[unused].use_count, details[unused].blocking_post_id, list(details[unused].uses)) == (0, "", [])
    assert not details[used].has_thumbnail  # rows made without the upload flow

    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await stub.ListMediaDetails(media_pb2.ListMediaDetailsRequest(media_ids=[used] * 101), metadata=org.metadata)
    assert error_info(refused.value).reason == "VALIDATION_ERROR"

    origin = await stub.GetUploadOrigin(media_pb2.GetUploadOriginRequest(), metadata=org.metadata)
    assert origin.origin == stack.storage_url


def test_the_range_reader_keeps_to_its_budgets() -> None:
    data = bytes(range(256)) * 4096  # 1 MiB
    asked: list[tuple[int, int]] = []

    def fetch(start: int, end: int) -> bytes:
        asked.append((start, end))
        return data[start:end]

    reader = RangeFile(fetch, len(data), budget=len(data), deadline=time.monotonic() + 60)
    assert reader.read(10) == data[:10]
    reader.seek(-5, io.SEEK_END)
    assert reader.read() == data[-5:]
    reader.seek(1000)
    assert reader.read(3) == data[1000:1003]
    assert asked[0] == (0, 256 * 1024)  # sequential reads read ahead; a jump starts small again

    spent = RangeFile(fetch, len(data), budget=300 * 1024, deadline=time.monotonic() + 60)
    with pytest.raises(BudgetSpent):
        while spent.read(64 * 1024):
            pass
    late = RangeFile(fetch, len(data), budget=len(data), deadline=time.monotonic() - 1)
    with pytest.raises(BudgetSpent):
        late.read(1)
    stopped = RangeFile(fetch, len(data), budget=len(data), deadline=time.monotonic() + 60)
    stopped.stop()
    with pytest.raises(BudgetSpent):
        stopped.read(1)
