"""The GCS backend against a real GCS emulator process (gcp-storage-emulator), with V4 URLs (upload
PUTs and read GETs) signed offline by a throwaway service-account key. The emulator does not verify
signatures, so the signature is verified here, offline, by rebuilding the V4 canonical request from
Google's documented algorithm and checking the RSA signature with the key's public half."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import parse_qsl, quote, urlsplit

import httpx
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from core import admin
from core.db.engine import create_engine
from core.db.types import utcnow
from core.settings import CoreSettings
from core.storage.base import MAX_URL_LIFETIME, UPLOAD_URL_LIFETIME, ObjectTooLarge
from core.storage.factory import object_storage
from core.storage.gcs import RANGE_BYTES, GcsStorage
from core.worker.maintenance import ORPHAN_GRACE, remove_orphaned_objects
from harness.stack import ROOT, database, free_port, stop_processes
from tests.core.test_media_cleanup import _insert_media

BUCKET = "herald-test"
EMULATOR = ROOT / ".venv" / "bin" / "gcp-storage-emulator"


@dataclass
class Emulator:
    endpoint: str
    storage: GcsStorage
    public_key: rsa.RSAPublicKey
    settings: CoreSettings


@pytest.fixture(scope="module")
def gcs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    workdir = tmp_path_factory.mktemp("gcs")
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = open(workdir / "emulator.log", "ab")  # noqa: SIM115 - owned by the process
    proc = subprocess.Popen(
        [str(EMULATOR), "start", "--host", "127.0.0.1", "--port", str(port), "--in-memory", "--default-bucket", BUCKET],
        stdout=log,
        stderr=log,
        cwd=workdir,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert proc.poll() is None, "the emulator exited"
            try:
                if httpx.get(f"{endpoint}/storage/v1/b/{BUCKET}", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the emulator did not start"
            time.sleep(0.1)
        private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        credentials = workdir / "service-account.json"
        credentials.write_text(json.dumps(_service_account(private_key)))
        settings = CoreSettings(
            data_dir=workdir,
            storage_backend="gcs",
            gcs_bucket=BUCKET,
            gcs_credentials_file=str(credentials),
            gcs_endpoint=endpoint,
        )
        storage = object_storage(settings)
        assert isinstance(storage, GcsStorage)
        yield Emulator(endpoint, storage, private_key.public_key(), settings)
    finally:
        stop_processes([proc])
        log.close()


def _service_account(private_key: rsa.RSAPrivateKey) -> dict[str, str]:
    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return {
        "type": "service_account",
        "project_id": "herald-test",
        "private_key_id": "test-key-1",
        "private_key": pem,
        "client_email": "herald-uploads@herald-test.iam.gserviceaccount.com",
        "client_id": "100000000000000000001",
        "token_uri": "https://oauth2.googleapis.com/token",
    }


_counter = iter(range(10**9))


def new_key() -> str:
    return f"org_test/med_{os.getpid()}_{next(_counter)}"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def read_all(storage: GcsStorage, key: str, chunk_size: int = 1024 * 1024) -> bytes:
    return b"".join([chunk async for chunk in storage.read(key, chunk_size=chunk_size)])


def verify_v4(url: str, public_key: rsa.RSAPublicKey, *, method: str, headers: dict[str, str]) -> None:
    """Raises InvalidSignature unless `url` carries a valid GOOG4-RSA-SHA256 signature of this
    request (https://cloud.google.com/storage/docs/authentication/signatures)."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    signature = bytes.fromhex(query.pop("X-Goog-Signature"))
    enc = lambda s: quote(s, safe="-_.~")  # noqa: E731
    canonical_query = "&".join(f"{enc(k)}={enc(v)}" for k, v in sorted(query.items()))
    all_headers = {"host": parts.netloc, **{k.lower(): v.strip() for k, v in headers.items()}}
    signed = query["X-Goog-SignedHeaders"].split(";")
    canonical_headers = "".join(f"{name}:{all_headers[name]}\n" for name in signed)
    canonical_request = "\n".join(
        [method, parts.path, canonical_query, canonical_headers, ";".join(signed), "UNSIGNED-PAYLOAD"]
    )
    scope = query["X-Goog-Credential"].split("/", 1)[1]
    string_to_sign = "\n".join(
        [query["X-Goog-Algorithm"], query["X-Goog-Date"], scope, hashlib.sha256(canonical_request.encode()).hexdigest()]
    )
    public_key.verify(signature, string_to_sign.encode(), padding.PKCS1v15(), hashes.SHA256())


def test_upload_url_is_a_v4_signed_put(gcs: Emulator) -> None:
    key = new_key()
    url = gcs.storage.upload_url(key, content_type="image/png", size_bytes=1234)
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    assert f"{parts.scheme}://{parts.netloc}" == gcs.endpoint
    assert parts.path == f"/{BUCKET}/{key}"
    assert query["X-Goog-Algorithm"] == "GOOG4-RSA-SHA256"
    assert query["X-Goog-Expires"] == "3600"
    assert query["X-Goog-SignedHeaders"] == "content-type;host"
    assert query["X-Goog-Credential"].startswith("herald-uploads@herald-test.iam.gserviceaccount.com/")
    assert len(query["X-Goog-Signature"]) == 512  # hex of a 2048-bit RSA signature

    verify_v4(url, gcs.public_key, method="PUT", headers={"Content-Type": "image/png"})
    # The signature binds the method, the content type, the object and the expiry.
    for method, headers, altered in (
        ("GET", {"Content-Type": "image/png"}, url),
        ("PUT", {"Content-Type": "image/gif"}, url),
        ("PUT", {"Content-Type": "image/png"}, url.replace(f"/{key}?", f"/{key}x?")),
        ("PUT", {"Content-Type": "image/png"}, url.replace("X-Goog-Expires=3600", "X-Goog-Expires=7200")),
    ):
        with pytest.raises(InvalidSignature):
            verify_v4(altered, gcs.public_key, method=method, headers=headers)


def test_upload_url_lifetime_is_signed(gcs: Emulator) -> None:
    url = gcs.storage.upload_url(new_key(), content_type="video/mp4", size_bytes=1, expires_in=600)
    assert dict(parse_qsl(urlsplit(url).query))["X-Goog-Expires"] == "600"
    verify_v4(url, gcs.public_key, method="PUT", headers={"Content-Type": "video/mp4"})


async def test_signed_put_lands_and_reads_back(gcs: Emulator) -> None:
    key, data = new_key(), os.urandom(9 * 1024 * 1024 + 3)  # two ranged reads
    url = gcs.storage.upload_url(key, content_type="video/mp4", size_bytes=len(data))
    assert await gcs.storage.stat(key) is None
    async with httpx.AsyncClient(timeout=60) as client:
        response = await client.put(url, content=data, headers={"Content-Type": "video/mp4"})
    assert response.status_code == 200, response.text
    stored = await gcs.storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (len(data), "video/mp4")
    chunks = [chunk async for chunk in gcs.storage.read(key, chunk_size=1024 * 1024)]
    assert max(len(c) for c in chunks) == 1024 * 1024
    assert sha(b"".join(chunks)) == sha(data)


async def test_write_small_and_large_then_delete(gcs: Emulator) -> None:
    async def chunks(total: int, size: int = 300_000) -> AsyncIterator[bytes]:
        for offset in range(0, total, size):
            yield os.urandom(min(size, total - offset))

    for total in (5, 2_000_000, 12 * 1024 * 1024):  # multipart and resumable uploads
        key = new_key()
        collected: list[bytes] = []

        async def recording(total: int = total, collected: list[bytes] = collected) -> AsyncIterator[bytes]:
            async for chunk in chunks(total):
                collected.append(chunk)
                yield chunk

        assert await gcs.storage.write(key, recording(), content_type="image/gif", max_bytes=total) == total
        stored = await gcs.storage.stat(key)
        assert stored is not None and (stored.size_bytes, stored.content_type) == (total, "image/gif")
        assert sha(await read_all(gcs.storage, key)) == sha(b"".join(collected))
        await gcs.storage.delete(key)
        assert await gcs.storage.stat(key) is None
        await gcs.storage.delete(key)  # absent: not an error


async def test_put_stores_bytes_and_replaces(gcs: Emulator) -> None:
    key = new_key()
    await gcs.storage.put(key, b"first", content_type="image/jpeg")
    await gcs.storage.put(key, b"second version", content_type="image/png")
    stored = await gcs.storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (14, "image/png")
    assert await read_all(gcs.storage, key) == b"second version"


async def test_write_past_max_bytes_stores_nothing(gcs: Emulator) -> None:
    key = new_key()

    async def body() -> AsyncIterator[bytes]:
        for _ in range(5):
            yield b"x" * 100_000

    with pytest.raises(ObjectTooLarge):
        await gcs.storage.write(key, body(), content_type="image/png", max_bytes=499_999)
    assert await gcs.storage.stat(key) is None


async def test_absent_object(gcs: Emulator) -> None:
    assert await gcs.storage.stat("org_test/never") is None
    with pytest.raises(FileNotFoundError):
        await read_all(gcs.storage, "org_test/never")
    await gcs.storage.delete("org_test/never")


async def test_empty_object(gcs: Emulator) -> None:
    # (Written through the API: the emulator drops the connection on an empty signed PUT.)
    key = new_key()

    async def nothing() -> AsyncIterator[bytes]:
        return
        yield b""

    assert await gcs.storage.write(key, nothing(), content_type="image/png", max_bytes=10) == 0
    stored = await gcs.storage.stat(key)
    assert stored is not None and stored.size_bytes == 0
    assert await read_all(gcs.storage, key) == b""


# -- read URLs and ranged reads


async def _store(storage: GcsStorage, data: bytes, content_type: str = "video/mp4") -> str:
    key = new_key()

    async def chunks() -> AsyncIterator[bytes]:
        for offset in range(0, len(data), 1024 * 1024):
            yield data[offset : offset + 1024 * 1024]

    assert await storage.write(key, chunks(), content_type=content_type, max_bytes=len(data)) == len(data)
    return key


def test_read_url_is_a_v4_signed_get(gcs: Emulator) -> None:
    key = new_key()
    url = gcs.storage.read_url(key)
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    assert f"{parts.scheme}://{parts.netloc}" == gcs.endpoint  # HERALD_GCS_ENDPOINT, as for uploads
    assert parts.path == f"/{BUCKET}/{key}"
    assert query["X-Goog-Algorithm"] == "GOOG4-RSA-SHA256"
    assert query["X-Goog-Expires"] == "900"  # 15 minutes by default
    assert query["X-Goog-SignedHeaders"] == "host"  # a platform's plain GET sends no other header
    assert query["X-Goog-Credential"].startswith("herald-uploads@herald-test.iam.gserviceaccount.com/")

    verify_v4(url, gcs.public_key, method="GET", headers={})
    # Bound to GET, the object and the expiry: it is no upload URL, and an upload URL is no read URL.
    upload = gcs.storage.upload_url(key, content_type="image/png", size_bytes=3)
    for method, headers, altered in (
        ("PUT", {}, url),
        ("PUT", {"Content-Type": "image/png"}, url),
        ("GET", {}, url.replace(f"/{key}?", f"/{key}x?")),
        ("GET", {}, url.replace("X-Goog-Expires=900", "X-Goog-Expires=3600")),
        ("GET", {"Content-Type": "image/png"}, upload),
    ):
        with pytest.raises(InvalidSignature):
            verify_v4(altered, gcs.public_key, method=method, headers=headers)

    short = gcs.storage.read_url(key, expires_in=60)
    assert dict(parse_qsl(urlsplit(short).query))["X-Goog-Expires"] == "60"
    verify_v4(short, gcs.public_key, method="GET", headers={})
    with pytest.raises(ValueError, match="at most"):
        gcs.storage.read_url(key, expires_in=MAX_URL_LIFETIME + 1)


async def test_read_url_fetches_the_bytes_from_the_emulator(gcs: Emulator) -> None:
    """The emulator serves the signed URL's path (without checking the signature; see above)."""
    data = os.urandom(2 * 1024 * 1024 + 5)
    key = await _store(gcs.storage, data, "video/mp4")
    async with httpx.AsyncClient(timeout=60) as client:
        response = await client.get(gcs.storage.read_url(key))
    assert response.status_code == 200, response.text
    assert sha(response.content) == sha(data)
    assert response.headers["content-type"] == "video/mp4"


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (0, None),
        (0, 0),  # zero-length
        (12345, 12345),  # zero-length, mid-object
        (0, 100),  # the first bytes
        (1024 * 1024 - 10, 1024 * 1024 + 10),  # across a chunk boundary
        (RANGE_BYTES - 3, RANGE_BYTES + 3),  # across two ranged downloads
        (100, RANGE_BYTES + 2 * 1024 * 1024 + 7),  # many chunks and both downloads
        (RANGE_BYTES, None),  # the second download only
        (RANGE_BYTES + 1000, 10**12),  # end past the object: clamped
        (RANGE_BYTES + 2_000_000, None),  # at the end: nothing
        (RANGE_BYTES * 3, None),  # past the end: nothing
    ],
)
async def test_read_range_is_the_exact_slice(
    gcs: Emulator, gcs_ranged: tuple[str, bytes], start: int, end: int | None
) -> None:
    key, data = gcs_ranged
    chunk_size = 1024 * 1024
    chunks = [c async for c in gcs.storage.read(key, chunk_size=chunk_size, start=start, end=end)]
    assert b"".join(chunks) == data[start:end]
    assert all(0 < len(c) <= chunk_size for c in chunks)


@pytest.fixture(scope="module")
def gcs_ranged(gcs: Emulator) -> tuple[str, bytes]:
    data = os.urandom(RANGE_BYTES + 2_000_000)  # two ranged downloads when read whole
    return asyncio.run(_store(gcs.storage, data)), data


async def test_read_range_arguments(gcs: Emulator, gcs_ranged: tuple[str, bytes]) -> None:
    key, data = gcs_ranged
    for kwargs in ({"start": -1}, {"start": 5, "end": 4}, {"chunk_size": 0}):
        with pytest.raises(ValueError):
            gcs.storage.read(key, **kwargs)  # refused when called, before any request
    small = [c async for c in gcs.storage.read(key, chunk_size=3, start=3, end=11)]
    assert small == [data[3:6], data[6:9], data[9:11]]
    with pytest.raises(FileNotFoundError):  # absent, even for an empty range
        [c async for c in gcs.storage.read("org_test/never", start=0, end=0)]


def test_gcs_requires_a_bucket(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="HERALD_GCS_BUCKET"):
        object_storage(CoreSettings(data_dir=tmp_path, storage_backend="gcs", gcs_endpoint="http://127.0.0.1:9"))


# -- listing and the orphaned-bytes sweep


async def _write(storage: GcsStorage, key: str, body: bytes = b"some bytes") -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield body

    await storage.write(key, chunks(), content_type="image/png", max_bytes=len(body))


def _bucket(gcs: Emulator, name: str) -> GcsStorage:
    """A storage on a bucket of its own: the sweep lists a whole bucket."""
    storage = GcsStorage(gcs.settings.model_copy(update={"gcs_bucket": name}))
    storage.client.create_bucket(name)
    return storage


async def test_list_objects_and_delete_listed(gcs: Emulator) -> None:
    storage = await asyncio.to_thread(_bucket, gcs, "herald-listing")
    assert [x async for x in storage.list_objects()] == []
    for key, body in (("org_a/med_1", b"12345"), ("org_a/med_2", b"x"), ("org_b/med_3", b"y")):
        await _write(storage, key, body)
    listed = {x.key: x async for x in storage.list_objects()}
    assert set(listed) == {"org_a/med_1", "org_a/med_2", "org_b/med_3"}
    one = listed["org_a/med_1"]
    assert (one.size_bytes, one.name, one.partial) == (5, "org_a/med_1", False)
    assert abs((one.modified - utcnow()).total_seconds()) < 60 and int(one.version) > 0
    assert {x.key async for x in storage.list_objects("org_a/")} == {"org_a/med_1", "org_a/med_2"}
    assert await storage.delete_listed(one) is True
    assert await storage.stat("org_a/med_1") is None
    assert await storage.delete_listed(one) is False  # already gone
    # (delete_listed sends ifGenerationMatch so that GCS keeps a newer generation; the emulator
    # ignores that precondition, so it is not exercised here.)


async def _gcs_sweep(url: str, storage: GcsStorage) -> tuple[int, dict[str, bool]]:
    engine = create_engine(CoreSettings(database_url=url))
    try:
        boot = await admin.bootstrap(
            engine, email="g@example.com", password="a long password", org="gcs", credits_=0, plan="active"
        )
        org, now = boot["org_id"], utcnow()
        for media_id, status, key in (
            ("med_confirmed", "confirmed", f"{org}/med_confirmed"),
            ("med_pending", "pending", f"{org}/med_pending"),
            ("med_other", "confirmed", f"{org}/med_elsewhere"),
        ):
            await _insert_media(engine, org, media_id, status, now - timedelta(days=1), key)
        old = ["med_confirmed", "med_pending", "med_elsewhere", "med_orphan_old"]
        for name in old:
            await _write(storage, f"{org}/{name}")
        await _write(storage, "backups/db.dump")
        # The clock of the sweep: what is written after `boundary` is within the URL lifetime plus
        # the grace period; what was written before is older.
        await asyncio.sleep(0.05)
        boundary = utcnow()
        await asyncio.sleep(0.05)
        await _write(storage, f"{org}/med_orphan_recent")
        sweep_now = boundary + timedelta(seconds=UPLOAD_URL_LIFETIME) + ORPHAN_GRACE
        removed = await remove_orphaned_objects(engine, storage, sweep_now)
        keys = [*(f"{org}/{name}" for name in (*old, "med_orphan_recent")), "backups/db.dump"]
        present = {key.rpartition("/")[2]: await storage.stat(key) is not None for key in keys}
        return removed, present
    finally:
        await engine.dispose()


def test_orphaned_blobs_are_swept_and_nothing_else(gcs: Emulator, backend: str, tmp_path: Path) -> None:
    storage = _bucket(gcs, f"herald-sweep-{backend}")
    with database(backend, tmp_path) as url:
        removed, present = asyncio.run(_gcs_sweep(url, storage))
    assert present == {
        "med_confirmed": True,
        "med_pending": True,
        "med_elsewhere": True,  # referenced by storage_key, whatever the record's id
        "med_orphan_old": False,
        "med_orphan_recent": True,
        "db.dump": True,  # not a media key: not ours to remove
    }
    assert removed == 1
