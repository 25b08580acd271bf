"""Media on Google Cloud Storage through the whole stack (core, facade, worker; HERALD_STORAGE_
BACKEND=gcs): presign, PUT to the signed URL, confirm (its thumbnail made from the bucket), then publish; the platform is handed a
read URL of the generation confirm checked. Against gcp-storage-emulator (the flow; it ignores
generations) and against a fake GCS that honours them (harness/fakes/gcs.py), where the still-valid
upload URL replaces the object after confirm and the published URL still serves the confirmed
bytes, or nothing without Object Versioning, never the replacement (core/storage/gcs.py)."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import grpc
import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from herald.media.v1 import media_pb2, media_pb2_grpc
from PIL import Image
from sqlalchemy import select

from core import admin
from core.db.engine import create_engine
from core.db.models import media
from core.settings import CoreSettings
from harness.fakes.gcs import FakeGcs
from harness.stack import Stack, database, running_stack
from tests.core.test_storage_gcs import BUCKET as EMULATOR_BUCKET
from tests.core.test_storage_gcs import Emulator, _service_account
from tests.core.test_storage_gcs import gcs as gcs  # the emulator fixture, module-scoped

pytestmark = pytest.mark.one_backend


@dataclass
class Gcs:
    """Where the stack's bucket lives, and the fake when it is one (None: the emulator)."""

    endpoint: str
    bucket: str
    credentials_file: str
    fake: FakeGcs | None


@pytest.fixture(scope="module", params=["emulator", "fake", "fake-without-versioning"])
def storage_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gcs]:
    if request.param == "emulator":
        emulator: Emulator = request.getfixturevalue("gcs")
        settings = emulator.settings
        yield Gcs(emulator.endpoint, EMULATOR_BUCKET, settings.gcs_credentials_file, None)
        return
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    credentials = tmp_path_factory.mktemp("gcs-fake") / "service-account.json"
    credentials.write_text(json.dumps(_service_account(key)))
    fake = FakeGcs("herald-fake", versioning=request.param == "fake")
    try:
        yield Gcs(fake.endpoint, fake.bucket, str(credentials), fake)
    finally:
        fake.close()


@pytest.fixture(scope="module")
def gcs_stack(storage_server: Gcs, backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    workdir = tmp_path_factory.mktemp("gcs-stack")
    with (
        database(backend, workdir) as url,
        running_stack(
            url,
            workdir,
            HERALD_STORAGE_BACKEND="gcs",
            HERALD_GCS_BUCKET=storage_server.bucket,
            HERALD_GCS_ENDPOINT=storage_server.endpoint,
            HERALD_GCS_CREDENTIALS_FILE=storage_server.credentials_file,
        ) as stack,
    ):
        stack.spawn("core", "worker", log_name="worker", env={"HERALD_PUBLISH_POLL_SECONDS": "0.05"})
        yield stack


@pytest.fixture
async def api(gcs_stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=gcs_stack.base_url, timeout=30) as client:
        yield client


def jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), color).save(buf, "JPEG")
    return buf.getvalue()


async def _org(database_url: str) -> tuple[dict[str, str], str]:
    engine = create_engine(CoreSettings(database_url=database_url))
    try:
        boot = await admin.bootstrap(
            engine, email="gcs@example.com", password="a long password", org="gcs", credits_=10, plan="active"
        )
        await admin.add_profile(engine, org="gcs", slug="gcs-ig", platform="instagram", tags=[], display_name="")
        return {"Authorization": f"Bearer {boot['api_key']}"}, boot["org_id"]
    finally:
        await engine.dispose()


async def _generation(database_url: str, media_id: str) -> int | None:
    engine = create_engine(CoreSettings(database_url=database_url))
    try:
        async with engine.connect() as conn:
            return await conn.scalar(select(media.c.storage_generation).where(media.c.id == media_id))
    finally:
        await engine.dispose()


async def _published_image_url(api: httpx.AsyncClient, auth: dict[str, str], media_id: str) -> str:
    created = await api.post(
        "/v1/posts", json={"content": "pinned", "profiles": ["gcs-ig"], "media_ids": [media_id]}, headers=auth
    )
    assert created.status_code == 201, created.text
    post_id = created.json()["posts"][0]["id"]
    for _ in range(300):
        post = (await api.get(f"/v1/posts/{post_id}", headers=auth)).json()
        if post["status"] not in ("queued", "publishing"):
            break
        await asyncio.sleep(0.1)
    assert post["status"] == "published", post
    (entry,) = (await api.get(f"/v1/posts/{post_id}/outbox", headers=auth)).json()["entries"]
    return next(r["form"]["image_url"] for r in entry["requests"] if "image_url" in r.get("form", {}))


async def test_confirmed_bytes_are_pinned_to_their_generation(
    api: httpx.AsyncClient, gcs_stack: Stack, storage_server: Gcs
) -> None:
    auth, org_id = await _org(gcs_stack.database_url)
    checked, swapped = jpeg((200, 10, 10)), jpeg((10, 200, 10)) + b"\0" * 5000
    ticket = await api.post(
        "/v1/media/presign",
        json={"filename": "photo.jpg", "mime_type": "image/jpeg", "size_bytes": len(checked)},
        headers=auth,
    )
    assert ticket.status_code == 201, ticket.text
    upload_url, media_id = ticket.json()["upload_url"], ticket.json()["media_id"]
    assert upload_url.startswith(f"{storage_server.endpoint}/{storage_server.bucket}/{org_id}/{media_id}?")
    async with httpx.AsyncClient(timeout=30) as storage:
        put = await storage.put(upload_url, content=checked, headers={"Content-Type": "image/jpeg"})
        assert put.status_code == 200, put.text
        confirmed = await api.post(f"/v1/media/{media_id}/confirm", headers=auth)
        assert (confirmed.status_code, confirmed.json()["status"]) == (200, "confirmed"), confirmed.text
        generation = await _generation(gcs_stack.database_url, media_id)
        assert generation is not None
        # Its thumbnail was read from the bucket in byte ranges of that generation and stored beside it.
        async with grpc.aio.insecure_channel(gcs_stack.core_target) as channel:
            thumb = await media_pb2_grpc.MediaServiceStub(channel).GetMediaThumbnail(
                media_pb2.GetMediaThumbnailRequest(media_id=media_id),
                metadata=(("authorization", auth["Authorization"]),),
            )
        assert thumb.mime_type == "image/webp" and Image.open(io.BytesIO(thumb.data)).size == (40, 30)
        if storage_server.fake is not None:
            assert generation == storage_server.fake.generations(f"{org_id}/{media_id}")[0]
            # The upload URL is valid for an hour: a second PUT replaces the object with other bytes.
            again = await storage.put(upload_url, content=swapped, headers={"Content-Type": "image/jpeg"})
            assert again.status_code == 200, again.text
        image_url = await _published_image_url(api, auth, media_id)
        assert dict(parse_qsl(urlsplit(image_url).query))["generation"] == str(generation)
        served = await storage.get(image_url)
    if storage_server.fake is None or storage_server.fake.versioning:
        assert (served.status_code, served.content) == (200, checked)
    else:  # the replaced generation is gone: nothing is served, certainly not the replacement
        assert served.status_code == 404
