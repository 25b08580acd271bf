"""The GCS backend reads only the object generation it is asked for (core/storage/gcs.py), against
a fake GCS that honours generations (harness/fakes/gcs.py; the emulator ignores them): an upload
URL that is still valid can replace the object, and a pinned read or read URL still gives the
bytes confirm checked, or nothing, never the replacement."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import rsa

from core.settings import CoreSettings
from core.storage.gcs import GcsStorage
from harness.fakes.gcs import FakeGcs
from tests.core.test_storage_gcs import _service_account, verify_v4

BUCKET = "herald-pinned"


@pytest.fixture(scope="module")
def signer(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, rsa.RSAPrivateKey]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path = tmp_path_factory.mktemp("gcs-key") / "service-account.json"
    path.write_text(json.dumps(_service_account(key)))
    return path, key


def _storage(fake: FakeGcs, credentials: Path, data_dir: Path) -> GcsStorage:
    settings = CoreSettings(
        data_dir=data_dir,
        storage_backend="gcs",
        gcs_bucket=BUCKET,
        gcs_credentials_file=str(credentials),
        gcs_endpoint=fake.endpoint,
    )
    return GcsStorage(settings)


@pytest.fixture(params=[True, False], ids=["versioning", "no-versioning"])
def fake(request: pytest.FixtureRequest) -> Iterator[FakeGcs]:
    server = FakeGcs(BUCKET, versioning=request.param)
    yield server
    server.close()


async def _read(storage: GcsStorage, key: str, **kwargs: int | None) -> bytes:
    return b"".join([chunk async for chunk in storage.read(key, **kwargs)])


async def _put(url: str, data: bytes, content_type: str = "image/png") -> None:
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.put(url, content=data, headers={"Content-Type": content_type})
    assert response.status_code == 200, response.text


async def test_a_pinned_read_never_gives_the_bytes_that_replaced_it(fake: FakeGcs, signer, tmp_path: Path) -> None:
    credentials, private_key = signer
    storage = _storage(fake, credentials, tmp_path)
    key = f"org_test/med_{os.getpid()}"
    checked, swapped = os.urandom(3000), os.urandom(5000)
    upload = storage.upload_url(key, content_type="image/png", size_bytes=len(checked))
    await _put(upload, checked)
    stored = await storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.generation) == (len(checked), fake.generations(key)[0])
    pinned = stored.generation

    await _put(upload, swapped)  # the same upload URL, still valid: a new generation
    assert fake.generations(key)[-1] != pinned
    assert await _read(storage, key) == swapped  # unpinned: the live object (the fake honours generations)
    reads_before = len(fake.reads)
    url = storage.read_url(key, generation=pinned)
    query = dict(parse_qsl(urlsplit(url).query))
    assert query["generation"] == str(pinned)
    verify_v4(url, private_key.public_key(), method="GET", headers={})  # the generation is signed
    with pytest.raises(InvalidSignature):
        verify_v4(
            url.replace(f"generation={pinned}", f"generation={pinned + 1}"),
            private_key.public_key(),
            method="GET",
            headers={},
        )
    async with httpx.AsyncClient(timeout=30) as client:
        served = await client.get(url)
        live = await client.get(storage.read_url(key))
    assert live.content == swapped
    if fake.versioning:
        assert await _read(storage, key, generation=pinned) == checked
        assert await _read(storage, key, generation=pinned, start=100, end=2100, chunk_size=512) == checked[100:2100]
        assert (served.status_code, served.content) == (200, checked)
    else:  # GCS dropped the replaced generation: the pinned read fails rather than serve other bytes
        with pytest.raises(FileNotFoundError):
            await _read(storage, key, generation=pinned)
        assert served.status_code == 404
    # Every byte read of the pinned object named its generation.
    assert {g for name, g in fake.reads[reads_before:] if name == key} <= {pinned, None}
    assert (key, pinned) in fake.reads[reads_before:] or not fake.versioning


async def test_an_unpinned_read_stays_on_the_generation_it_started_with(signer, tmp_path: Path) -> None:
    """A read without a generation names the one it found first in every ranged download, so a
    replacement arriving mid-read fails the read instead of mixing two objects."""
    fake = FakeGcs(BUCKET, versioning=False)
    try:
        storage = _storage(fake, signer[0], tmp_path)
        key = "org_test/med_midread"
        upload = storage.upload_url(key, content_type="video/mp4", size_bytes=1)
        await _put(upload, os.urandom(9 * 1024 * 1024), "video/mp4")  # two ranged downloads
        reading = storage.read(key, chunk_size=1024 * 1024)
        first = await anext(reading)
        assert len(first) == 1024 * 1024
        await _put(upload, os.urandom(9 * 1024 * 1024), "video/mp4")
        with pytest.raises(FileNotFoundError):
            async for _ in reading:
                pass
    finally:
        fake.close()
