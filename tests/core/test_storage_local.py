"""The local object storage: the real `herald storage` process accepting HMAC-signed upload URLs and
serving signed read URLs, and `LocalStorage` (core side) issuing them and reading (whole or byte
ranges), writing and deleting objects."""

from __future__ import annotations

import asyncio
import hashlib
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest

from core.settings import CoreSettings
from core.storage import signing
from core.storage.base import MAX_URL_LIFETIME, ObjectTooLarge
from core.storage.downloads import READ_CHUNK
from core.storage.local import InvalidKey, LocalStorage
from harness.stack import ROOT, free_port, stack_env, stop_processes, wait_for_http


@dataclass
class Server:
    url: str
    port: int
    data_dir: Path
    proc: subprocess.Popen
    storage: LocalStorage


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("storage")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = stack_env("sqlite+aiosqlite:///unused.db", workdir, HERALD_STORAGE_PUBLIC_URL=url)
    log = open(workdir / "storage.log", "ab")  # noqa: SIM115 - owned by the process
    proc = subprocess.Popen(
        [sys.executable, "-m", "core", "storage", "--listen", f"127.0.0.1:{port}"],
        env=env,
        stdout=log,
        stderr=log,
        cwd=ROOT,
    )
    try:
        wait_for_http(f"{url}/healthz", proc)
        data_dir = workdir / "data"
        storage = LocalStorage(CoreSettings(data_dir=data_dir, storage_public_url=url))
        yield Server(url, port, data_dir, proc, storage)
    finally:
        stop_processes([proc])
        log.close()
        print((workdir / "storage.log").read_text(errors="replace")[-3000:])


_counter = iter(range(10**9))


def new_key() -> str:
    return f"org_test/med_{os.getpid()}_{next(_counter)}"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def read_all(storage: LocalStorage, key: str, chunk_size: int = 64 * 1024) -> bytes:
    return b"".join([chunk async for chunk in storage.read(key, chunk_size=chunk_size)])


async def put(url: str, body: bytes, content_type: str | None = "image/png") -> httpx.Response:
    headers = {"Content-Type": content_type} if content_type is not None else {}
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.put(url, content=body, headers=headers)


def leftovers(server: Server, key: str) -> list[str]:
    directory = server.storage.path(key).parent
    return sorted(p.name for p in directory.glob("*.part*")) if directory.exists() else []


async def eventually(predicate: Callable[[], object], seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.02)):
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return bool(predicate())


def with_query(url: str, **changes: str | None) -> str:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    for name, value in changes.items():
        if value is None:
            query.pop(name, None)
        else:
            query[name] = value
    return urlunsplit(parts._replace(query=urlencode(query)))


def raw_request(server: Server, head: str, body: bytes = b"", *, read_timeout: float = 10.0) -> bytes:
    """Sends a request head (and maybe part of a body) on a raw socket; returns what came back
    until the server closed the connection or stopped sending."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=read_timeout) as sock:
        sock.sendall(head.encode() + body)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return received


# -- PUT {upload_url}


async def test_put_lands_and_reads_back(server: Server) -> None:
    key, data = new_key(), os.urandom(3 * 1024 * 1024 + 7)
    url = server.storage.upload_url(key, content_type="video/mp4", size_bytes=len(data))
    assert url.startswith(f"{server.url}/upload/{key}?")
    assert await server.storage.stat(key) is None
    response = await put(url, data, "video/mp4")
    assert response.status_code == 200, response.text
    assert response.json() == {"key": key, "size_bytes": len(data)}
    stored = await server.storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (len(data), "video/mp4")
    assert sha(await read_all(server.storage, key)) == sha(data)
    assert leftovers(server, key) == []


async def test_chunked_streaming_put_lands(server: Server) -> None:
    key, data = new_key(), os.urandom(2 * 1024 * 1024)
    url = server.storage.upload_url(key, content_type="image/jpeg", size_bytes=len(data))

    async def body() -> AsyncIterator[bytes]:
        for offset in range(0, len(data), 100_000):
            yield data[offset : offset + 100_000]

    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.put(url, content=body(), headers={"Content-Type": "image/jpeg"})
    assert response.status_code == 200, response.text
    assert sha(await read_all(server.storage, key)) == sha(data)


async def test_second_put_is_refused_and_keeps_the_first(server: Server) -> None:
    key, first = new_key(), b"first" * 100
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=len(first))
    assert (await put(url, first)).status_code == 200
    response = await put(url, b"other" * 100)
    assert response.status_code == 409
    assert response.json()["code"] == "UPLOAD_ALREADY_COMPLETE"
    assert await read_all(server.storage, key) == first


async def test_two_racing_puts_one_wins_whole(server: Server) -> None:
    key = new_key()
    bodies = [os.urandom(1024 * 1024), os.urandom(1024 * 1024)]
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=len(bodies[0]))

    async def slowly(data: bytes) -> AsyncIterator[bytes]:
        for offset in range(0, len(data), 128 * 1024):
            yield data[offset : offset + 128 * 1024]
            await asyncio.sleep(0.02)

    async with httpx.AsyncClient(timeout=30) as client:
        responses = await asyncio.gather(
            *(client.put(url, content=slowly(b), headers={"Content-Type": "image/png"}) for b in bodies)
        )
    assert sorted(r.status_code for r in responses) == [200, 409]
    winner = bodies[[r.status_code for r in responses].index(200)]
    assert sha(await read_all(server.storage, key)) == sha(winner)
    assert leftovers(server, key) == []


@pytest.mark.parametrize("sent", ["image/jpeg", "image/png; charset=x", "IMAGE/PNG", "", None])
async def test_content_type_must_equal_the_signed_type(server: Server, sent: str | None) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=10)
    response = await put(url, b"0123456789", sent)
    assert response.status_code == 400
    assert response.json()["code"] == "CONTENT_TYPE_MISMATCH"
    assert "error" in response.json()
    assert await server.storage.stat(key) is None


def _tamper(url: str, what: str) -> str:
    query = dict(parse_qsl(urlsplit(url).query))
    sig = query["sig"]
    match what:
        case "key":
            return url.replace("/upload/org_test/", "/upload/org_evil/")
        case "size":
            return with_query(url, size=str(int(query["size"]) + 1))
        case "type":
            return with_query(url, type="image/gif")
        case "expires":
            return with_query(url, expires=str(int(query["expires"]) + 3600))
        case "sig":
            return with_query(url, sig=("A" if sig[0] != "A" else "B") + sig[1:])
        case "sig-extended":
            return with_query(url, sig=sig + "A")
        case "no-sig":
            return with_query(url, sig=None)
        case "no-expires":
            return with_query(url, expires=None)
        case "duplicate-size":
            return url + "&size=1"
        case "other-key":
            other = signing.sign(
                b"x" * 32, urlsplit(url).path.removeprefix("/upload/"), "image/png", 10, int(query["expires"])
            )
            return with_query(url, sig=other)
    raise AssertionError(what)


@pytest.mark.parametrize(
    "what",
    ["key", "size", "type", "expires", "sig", "sig-extended", "no-sig", "no-expires", "duplicate-size", "other-key"],
)
async def test_tampered_url_is_invalid(server: Server, what: str) -> None:
    key = new_key()
    url = _tamper(server.storage.upload_url(key, content_type="image/png", size_bytes=10), what)
    sent_type = "image/gif" if what == "type" else "image/png"
    response = await put(url, b"0123456789", sent_type)
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "UPLOAD_URL_INVALID"
    assert await server.storage.stat(key) is None
    assert await server.storage.stat(key.replace("org_test", "org_evil")) is None


async def test_expired_url(server: Server) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=10, expires_in=-1)
    response = await put(url, b"0123456789")
    assert response.status_code == 403
    assert response.json()["code"] == "UPLOAD_URL_EXPIRED"
    assert await server.storage.stat(key) is None
    # Expired and altered: the signature is checked first.
    response = await put(with_query(url, size="11"), b"0123456789")
    assert response.json()["code"] == "UPLOAD_URL_INVALID"


async def test_url_expires_after_its_lifetime(server: Server) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=3, expires_in=1)
    await asyncio.sleep(2.05)
    response = await put(url, b"abc")
    assert (response.status_code, response.json()["code"]) == (403, "UPLOAD_URL_EXPIRED")


async def test_larger_body_is_refused_and_nothing_kept(server: Server) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=1000)
    response = await put(url, b"x" * 1001)
    assert response.status_code == 413
    assert response.json()["code"] == "FILE_TOO_LARGE"
    assert await server.storage.stat(key) is None


async def test_larger_chunked_body_is_refused_midway_and_nothing_kept(server: Server) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=300_000)

    async def body() -> AsyncIterator[bytes]:
        for _ in range(4):
            yield b"y" * 100_000

    async with httpx.AsyncClient(timeout=30) as client:
        try:
            response = await client.put(url, content=body(), headers={"Content-Type": "image/png"})
            assert response.status_code == 413
            assert response.json()["code"] == "FILE_TOO_LARGE"
        except httpx.TransportError:
            pass  # the server may close the connection before the client finished sending
    assert await server.storage.stat(key) is None
    assert leftovers(server, key) == []


async def test_smaller_body_is_accepted(server: Server) -> None:
    key = new_key()
    url = server.storage.upload_url(key, content_type="image/png", size_bytes=1000)
    response = await put(url, b"z" * 600)
    assert response.status_code == 200
    stored = await server.storage.stat(key)
    assert stored is not None and stored.size_bytes == 600  # confirm reports FILE_SIZE_MISMATCH


async def test_interrupted_upload_leaves_nothing(server: Server) -> None:
    key = new_key()
    url = urlsplit(server.storage.upload_url(key, content_type="video/mp4", size_bytes=1_000_000))
    head = (
        f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: video/mp4\r\n"
        "Content-Length: 1000000\r\n\r\n"
    )
    # Fewer bytes than announced, then the client goes away.
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"p" * 300_000)
        assert await eventually(lambda: leftovers(server, key)), "the upload should be in a temp file"
        assert await server.storage.stat(key) is None
    assert await eventually(lambda: not leftovers(server, key))
    assert await server.storage.stat(key) is None
    # The URL is still usable for a complete upload afterwards.
    assert (await put(urlunsplit(url), b"q" * 1_000_000, "video/mp4")).status_code == 200


async def test_expect_continue_upload_lands(server: Server) -> None:
    """A client that waits for `100 Continue` (curl does for large files) is invited, then its body
    (moved from the socket to the file by splice) lands whole."""
    key, data = new_key(), os.urandom(5 * 1024 * 1024 + 11)
    url = urlsplit(server.storage.upload_url(key, content_type="video/mp4", size_bytes=len(data)))
    head = (
        f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\n"
        f"Content-Length: {len(data)}\r\nExpect: 100-continue\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head.encode())
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(data)
        answer = b""
        while b"}" not in answer:
            answer += sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
    assert sha(await read_all(server.storage, key)) == sha(data)
    assert leftovers(server, key) == []


async def test_connection_serves_pipelined_requests_after_an_upload(server: Server) -> None:
    """Exactly the announced body is taken from the socket: a request sent right behind it on the
    same connection (here in the same packet) is answered too."""
    keys = [new_key(), new_key()]
    bodies = [os.urandom(2 * 1024 * 1024 + 5), os.urandom(100)]
    payload = b""
    for key, body in zip(keys, bodies, strict=True):
        url = urlsplit(server.storage.upload_url(key, content_type="image/png", size_bytes=len(body)))
        payload += (
            f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\nContent-Type: image/png\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body
    payload += b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    answer = raw_request(server, "", payload)
    assert answer.count(b"HTTP/1.1 200") == 3, answer[:500]
    assert b'"status":"ok"' in answer
    for key, body in zip(keys, bodies, strict=True):
        assert sha(await read_all(server.storage, key)) == sha(body)


async def test_refused_large_body_is_not_read(server: Server) -> None:
    """A refusal with a huge announced body answers at once and closes: the server does not drain
    the body nor wait for it."""
    key = new_key()
    url = urlsplit(server.storage.upload_url(key, content_type="video/mp4", size_bytes=10))
    head = (
        f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\n"
        "Content-Length: 500000000\r\n\r\n"
    )
    started = time.monotonic()
    answer = raw_request(server, head)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"FILE_TOO_LARGE" in answer
    assert time.monotonic() - started < 5
    # Expect: 100-continue with a bad signature: refused without inviting the body.
    bad = with_query(urlunsplit(url), sig="A" * 43)
    head = (
        f"PUT {urlsplit(bad).path}?{urlsplit(bad).query} HTTP/1.1\r\nHost: x\r\nContent-Type: video/mp4\r\n"
        "Content-Length: 10\r\nExpect: 100-continue\r\n\r\n"
    )
    answer = raw_request(server, head)
    assert answer.startswith(b"HTTP/1.1 403"), answer[:200]
    assert b"100 Continue" not in answer


async def test_refused_small_body_keeps_the_connection(server: Server) -> None:
    """A refused small body is drained, so the same connection serves the next request."""
    key = new_key()
    url = urlsplit(server.storage.upload_url(key, content_type="image/png", size_bytes=10))

    def request(content_type: str) -> bytes:
        return (
            f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\nContent-Type: {content_type}\r\n"
            "Content-Length: 10\r\n\r\n0123456789"
        ).encode()

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        reader = sock.makefile("rb")
        for content_type, status in (("image/gif", b"400"), ("image/png", b"200")):
            sock.sendall(request(content_type))
            assert reader.readline().split()[1] == status
            length = 0
            while (line := reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            reader.read(length)
    assert await server.storage.stat(key) is not None


async def test_invalid_key_in_path_is_refused(server: Server) -> None:
    for path in ("/upload/.hidden", "/upload/a/.x.part", "/upload/a%20b"):
        response = await put(f"{server.url}{path}?size=1&type=a/b&expires=9999999999&sig=x", b"1", "a/b")
        assert response.status_code == 403, path
        assert response.json()["code"] == "UPLOAD_URL_INVALID"


async def test_other_requests_answer_json(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.url, timeout=10) as client:
        missing = await client.get("/nothing-here")
        wrong_method = await client.get("/upload/org_test/x")
        health = await client.get("/healthz")
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")
    assert (wrong_method.status_code, wrong_method.json()["code"]) == (405, "METHOD_NOT_ALLOWED")
    assert health.json() == {"status": "ok"}


async def test_key_under_an_existing_object_fails_cleanly(server: Server) -> None:
    """`a` stored, then `a/b`: the file system refuses; the answer is a JSON 500, nothing is left."""
    key = new_key()
    assert (await put(server.storage.upload_url(key, content_type="image/png", size_bytes=1), b"1")).status_code == 200
    response = await put(server.storage.upload_url(f"{key}/child", content_type="image/png", size_bytes=1), b"1")
    assert (response.status_code, response.json()["code"]) == (500, "INTERNAL")
    assert await server.storage.stat(f"{key}/child") is None


async def test_upload_memory_stays_bounded(server: Server) -> None:
    """256 MiB streamed through the storage process grows its peak RSS by far less than that."""
    size, block = 256 * 1024 * 1024, os.urandom(1024 * 1024)
    key = new_key()
    url = server.storage.upload_url(key, content_type="video/mp4", size_bytes=size)
    before = _hwm_kib(server.proc.pid)

    async def body() -> AsyncIterator[bytes]:
        for _ in range(size // len(block)):
            yield block

    headers = {"Content-Type": "video/mp4", "Content-Length": str(size)}
    async with httpx.AsyncClient(timeout=120) as client:
        response = await client.put(url, content=body(), headers=headers)
    assert response.status_code == 200, response.text
    grown_mib = (_hwm_kib(server.proc.pid) - before) / 1024
    print(f"storage peak RSS grew by {grown_mib:.1f} MiB for a 256 MiB upload")
    assert grown_mib < 48, f"storage peak RSS grew by {grown_mib:.0f} MiB"
    await server.storage.delete(key)


def _hwm_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


# -- read URLs (GET|HEAD /objects/{key})


async def store(server: Server, data: bytes, content_type: str = "image/png", key: str | None = None) -> str:
    """Stores `data` through the core side (the same files an upload leaves)."""
    key = key or new_key()

    async def chunks() -> AsyncIterator[bytes]:
        for offset in range(0, len(data), 1024 * 1024):
            yield data[offset : offset + 1024 * 1024]

    assert await server.storage.write(key, chunks(), content_type=content_type, max_bytes=len(data)) == len(data)
    return key


async def fetch(url: str, method: str = "GET", **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=60) as client:
        return await client.request(method, url, headers=headers)


async def test_read_url_serves_the_stored_bytes_and_type(server: Server) -> None:
    key, data = new_key(), os.urandom(3 * 1024 * 1024 + 17)  # several server reads
    upload = server.storage.upload_url(key, content_type="video/mp4", size_bytes=len(data))
    assert (await put(upload, data, "video/mp4")).status_code == 200
    url = server.storage.read_url(key)
    parts = urlsplit(url)
    assert url.startswith(f"{server.url}/objects/{key}?")
    query = dict(parse_qsl(parts.query))
    assert set(query) == {"expires", "sig"}
    assert abs(int(query["expires"]) - (time.time() + 900)) < 5  # 15 minutes by default
    response = await fetch(url)
    assert response.status_code == 200, response.text
    assert sha(response.content) == sha(data)
    assert response.headers["content-type"] == "video/mp4"
    assert response.headers["content-length"] == str(len(data))
    assert response.headers["accept-ranges"] == "bytes"
    assert "transfer-encoding" not in response.headers and "content-range" not in response.headers
    # The same URL serves again (platforms retry) until it expires.
    assert sha((await fetch(url)).content) == sha(data)


async def test_read_url_serves_what_write_stored_and_empty_objects(server: Server) -> None:
    key = await store(server, b"GIF89a" + bytes(range(256)) * 10, "image/gif")
    response = await fetch(server.storage.read_url(key, expires_in=60))
    assert (response.status_code, response.headers["content-type"]) == (200, "image/gif")
    assert response.content == b"GIF89a" + bytes(range(256)) * 10
    empty = await store(server, b"")
    response = await fetch(server.storage.read_url(empty))
    assert (response.status_code, response.content, response.headers["content-length"]) == (200, b"", "0")
    # An empty object has no byte to range over: a suffix range gets the (empty) whole, others 416.
    assert (await fetch(server.storage.read_url(empty), Range="bytes=-5")).status_code == 200
    assert (await fetch(server.storage.read_url(empty), Range="bytes=0-")).status_code == 416


RANGE_DATA_SIZE = 3 * READ_CHUNK + 1003


@pytest.fixture(scope="module")
def ranged(server: Server) -> tuple[str, bytes]:
    data = os.urandom(RANGE_DATA_SIZE)
    return asyncio.run(store(server, data, "video/webm")), data


@pytest.mark.parametrize(
    ("header", "start", "stop"),
    [
        ("bytes=0-99", 0, 100),  # the first bytes
        ("bytes=5-5", 5, 6),  # one byte
        (f"bytes={READ_CHUNK - 10}-{2 * READ_CHUNK + 10}", READ_CHUNK - 10, 2 * READ_CHUNK + 11),  # across reads
        ("bytes=-500", RANGE_DATA_SIZE - 500, RANGE_DATA_SIZE),  # suffix
        (f"bytes=-{RANGE_DATA_SIZE + 10}", 0, RANGE_DATA_SIZE),  # a suffix longer than the object: all of it
        ("bytes=700000-", 700000, RANGE_DATA_SIZE),  # open-ended
        ("bytes=0-", 0, RANGE_DATA_SIZE),
        (f"bytes={RANGE_DATA_SIZE - 3}-{RANGE_DATA_SIZE * 5}", RANGE_DATA_SIZE - 3, RANGE_DATA_SIZE),  # end clamped
        (f"bytes={RANGE_DATA_SIZE - 1}-", RANGE_DATA_SIZE - 1, RANGE_DATA_SIZE),  # the last byte
        ("Bytes = 10 - 19", 10, 20),  # unit case-insensitive, whitespace tolerated
        ("bytes=0-99999999999999999999999999", 0, RANGE_DATA_SIZE),  # a huge last position
    ],
)
async def test_read_url_ranges(server: Server, ranged: tuple[str, bytes], header: str, start: int, stop: int) -> None:
    key, data = ranged
    response = await fetch(server.storage.read_url(key), Range=header)
    assert response.status_code == 206, response.text
    assert response.content == data[start:stop]
    assert response.headers["content-range"] == f"bytes {start}-{stop - 1}/{len(data)}"
    assert response.headers["content-length"] == str(stop - start)
    assert response.headers["content-type"] == "video/webm"
    assert response.headers["accept-ranges"] == "bytes"


@pytest.mark.parametrize(
    "header",
    [
        f"bytes={RANGE_DATA_SIZE}-",
        f"bytes={RANGE_DATA_SIZE}-{RANGE_DATA_SIZE + 10}",
        "bytes=99999999999999999999999-",
        "bytes=-0",
    ],
)
async def test_read_url_unsatisfiable_range(server: Server, ranged: tuple[str, bytes], header: str) -> None:
    key, data = ranged
    response = await fetch(server.storage.read_url(key), Range=header)
    assert response.status_code == 416
    assert response.headers["content-range"] == f"bytes */{len(data)}"
    assert response.json()["code"] == "RANGE_NOT_SATISFIABLE"


@pytest.mark.parametrize(
    "header", ["bytes=0-1,5-6", "items=0-5", "bytes=9-3", "bytes=abc", "bytes=", "bytes=1", "bytes=--5", "bytes=+1-2"]
)
async def test_read_url_ignores_ranges_it_does_not_handle(
    server: Server, ranged: tuple[str, bytes], header: str
) -> None:
    """Several ranges, another unit or a malformed header: the whole object, as RFC 9110 allows."""
    key, data = ranged
    response = await fetch(server.storage.read_url(key), Range=header)
    assert response.status_code == 200
    assert sha(response.content) == sha(data)
    assert "content-range" not in response.headers


async def test_read_url_range_with_if_range_sends_everything(server: Server, ranged: tuple[str, bytes]) -> None:
    """No validator is ever issued, so none in If-Range can match: the whole object is sent."""
    key, data = ranged
    response = await fetch(server.storage.read_url(key), Range="bytes=0-9", **{"If-Range": '"abc"'})
    assert (response.status_code, len(response.content)) == (200, len(data))


async def test_read_url_head(server: Server, ranged: tuple[str, bytes]) -> None:
    key, data = ranged
    url = server.storage.read_url(key)
    response = await fetch(url, "HEAD")
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-length"] == str(len(data))
    assert response.headers["content-type"] == "video/webm"
    assert response.headers["accept-ranges"] == "bytes"
    response = await fetch(url, "HEAD", Range="bytes=-100")
    assert (response.status_code, response.content) == (206, b"")
    assert response.headers["content-range"] == f"bytes {len(data) - 100}-{len(data) - 1}/{len(data)}"
    assert response.headers["content-length"] == "100"
    response = await fetch(url, "HEAD", Range=f"bytes={len(data)}-")
    assert (response.status_code, response.headers["content-range"]) == (416, f"bytes */{len(data)}")
    assert (await fetch(with_query(url, sig="A" * 43), "HEAD")).status_code == 403
    assert (await fetch(server.storage.read_url(new_key()), "HEAD")).status_code == 404
    # The connection is still usable after HEAD answers (no body was owed).
    async with httpx.AsyncClient(timeout=10) as client:
        for method in ("HEAD", "GET", "HEAD"):
            assert (await client.request(method, url, headers={"Range": "bytes=0-9"})).status_code == 206
    # Other methods are refused.
    response = await fetch(url, "DELETE")
    assert (response.status_code, response.json()["code"]) == (405, "METHOD_NOT_ALLOWED")
    assert await server.storage.stat(key) is not None


def _tamper_read(url: str, what: str) -> str:
    query = dict(parse_qsl(urlsplit(url).query))
    sig = query["sig"]
    match what:
        case "key":
            return url.replace("/objects/org_test/", "/objects/org_evil/")
        case "expires":
            return with_query(url, expires=str(int(query["expires"]) + 3600))
        case "expires-not-canonical":
            return with_query(url, expires="0" + query["expires"])
        case "sig":
            return with_query(url, sig=("A" if sig[0] != "A" else "B") + sig[1:])
        case "sig-extended":
            return with_query(url, sig=sig + "A")
        case "no-sig":
            return with_query(url, sig=None)
        case "no-expires":
            return with_query(url, expires=None)
        case "duplicate-expires":
            return url + f"&expires={query['expires']}"
        case "other-secret":
            key = urlsplit(url).path.removeprefix("/objects/")
            return with_query(url, sig=signing.sign_read(b"x" * 32, key, int(query["expires"])))
    raise AssertionError(what)


@pytest.mark.parametrize(
    "what",
    [
        "key",
        "expires",
        "expires-not-canonical",
        "sig",
        "sig-extended",
        "no-sig",
        "no-expires",
        "duplicate-expires",
        "other-secret",
    ],
)
async def test_tampered_read_url_is_invalid(server: Server, what: str) -> None:
    key = await store(server, b"secret bytes")
    await store(server, b"evil bytes", key=key.replace("org_test", "org_evil"))
    response = await fetch(_tamper_read(server.storage.read_url(key), what))
    assert response.status_code == 403, response.text
    assert response.json()["code"] == "READ_URL_INVALID"
    assert b"secret" not in response.content and b"evil" not in response.content


async def test_upload_and_read_signatures_do_not_cross(server: Server) -> None:
    """An upload URL's signature is no read URL, and a read URL's signature no upload URL."""
    key = await store(server, b"already stored")
    upload = urlsplit(server.storage.upload_url(key, content_type="image/png", size_bytes=3))
    # The upload URL's query (size, type, expires, sig) on the read path, and its expiry and sig alone.
    for query in (upload.query, urlencode({k: v for k, v in parse_qsl(upload.query) if k in ("expires", "sig")})):
        response = await fetch(f"{server.url}/objects/{key}?{query}")
        assert (response.status_code, response.json()["code"]) == (403, "READ_URL_INVALID")
    # A read URL's expiry and signature on the upload path, with any size and type.
    fresh = new_key()
    read = dict(parse_qsl(urlsplit(server.storage.read_url(fresh)).query))
    for size, content_type in (("3", "image/png"), ("0", "application/octet-stream")):
        query = urlencode({"size": size, "type": content_type, **read})
        response = await put(f"{server.url}/upload/{fresh}?{query}", b"abc"[: int(size)], content_type)
        assert (response.status_code, response.json()["code"]) == (403, "UPLOAD_URL_INVALID")
    assert await server.storage.stat(fresh) is None


async def test_expired_read_url(server: Server) -> None:
    key = await store(server, b"some bytes")
    url = server.storage.read_url(key, expires_in=-1)
    response = await fetch(url)
    assert (response.status_code, response.json()["code"]) == (403, "READ_URL_EXPIRED")
    # Expired and altered: the signature is checked first.
    response = await fetch(with_query(url, expires=str(int(time.time()) - 5)))
    assert response.json()["code"] == "READ_URL_INVALID"
    # Decided before the disk: an expired URL of a missing object is expired, not missing.
    response = await fetch(server.storage.read_url(new_key(), expires_in=-1))
    assert (response.status_code, response.json()["code"]) == (403, "READ_URL_EXPIRED")
    # A URL works for its lifetime, then no more.
    url = server.storage.read_url(key, expires_in=1)
    assert (await fetch(url)).status_code == 200
    await asyncio.sleep(2.05)
    response = await fetch(url)
    assert (response.status_code, response.json()["code"]) == (403, "READ_URL_EXPIRED")
    with pytest.raises(ValueError, match="at most"):
        server.storage.read_url(key, expires_in=MAX_URL_LIFETIME + 1)


async def test_read_url_of_a_missing_object(server: Server) -> None:
    key = new_key()
    response = await fetch(server.storage.read_url(key))
    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")
    # Deleted after the URL was issued.
    key = await store(server, b"short-lived")
    url = server.storage.read_url(key)
    assert (await fetch(url)).status_code == 200
    await server.storage.delete(key)
    assert (await fetch(url)).status_code == 404
    # A key prefix (a directory) is no object.
    response = await fetch(server.storage.read_url("org_test"))
    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")


async def test_read_url_refuses_keys_that_are_not_object_keys(server: Server) -> None:
    # (Sent raw: an HTTP client would normalize `..` away.)
    for path in ("/objects/.hidden", "/objects/org_test/.med_x.abcdefgh.part", "/objects/a%20b", "/objects/a/../b"):
        answer = raw_request(
            server, f"GET {path}?expires=9999999999&sig=x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert answer.startswith(b"HTTP/1.1 403"), (path, answer[:200])
        assert b'"code":"READ_URL_INVALID"' in answer, path
    for key in (".hidden", "org_test/.med_x.abcdefgh.part", "a/../b", "a b"):
        with pytest.raises(InvalidKey):
            server.storage.read_url(key)


async def test_partial_upload_is_not_served(server: Server) -> None:
    key = new_key()
    url = urlsplit(server.storage.upload_url(key, content_type="video/mp4", size_bytes=1_000_000))
    head = (
        f"PUT {url.path}?{url.query} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: video/mp4\r\n"
        "Content-Length: 1000000\r\n\r\n"
    )
    read_url = server.storage.read_url(key)
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(head.encode() + b"p" * 600_000)
        assert await eventually(lambda: leftovers(server, key)), "the upload should be in a temp file"
        for method in ("GET", "HEAD"):
            response = await fetch(read_url, method)
            assert response.status_code == 404, method
        assert (await fetch(read_url)).json()["code"] == "NOT_FOUND"
        # The temp file's own name is no key: it can be neither signed nor fetched.
        temp = next(name for name in leftovers(server, key) if name.endswith(".part"))
        with pytest.raises(InvalidKey):
            server.storage.read_url(f"org_test/{temp}")
        response = await fetch(f"{server.url}/objects/org_test/{temp}?expires=9999999999&sig=x")
        assert (response.status_code, response.json()["code"]) == (403, "READ_URL_INVALID")
        sock.sendall(b"p" * 400_000)  # the rest: the object lands and is served
        assert await eventually(lambda: not leftovers(server, key))
    response = await fetch(read_url)
    assert (response.status_code, response.content) == (200, b"p" * 1_000_000)


async def test_download_memory_stays_bounded(server: Server) -> None:
    """A 256 MiB object read by a client that stops reading for a while, then reads everything:
    the storage process's RSS, sampled meanwhile, grows by far less than the object."""
    size = 256 * 1024 * 1024
    block = os.urandom(1024 * 1024)

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(size // len(block)):
            yield block

    key = new_key()
    await server.storage.write(key, chunks(), content_type="video/mp4", max_bytes=size)
    url = urlsplit(server.storage.read_url(key))
    before = _rss_kib(server.proc.pid)
    peak = before
    digest = hashlib.sha256()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 256 * 1024)
        sock.sendall(f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        for _ in range(15):  # a stalled reader: the server must wait, not read ahead into memory
            await asyncio.sleep(0.1)
            peak = max(peak, _rss_kib(server.proc.pid))
        received, head = 0, b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(65536)
        head, _, first = head.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
        assert f"content-length: {size}".encode() in head.lower()
        digest.update(first)
        received = len(first)
        while chunk := sock.recv(1024 * 1024):
            digest.update(chunk)
            received += len(chunk)
            if received % (16 * 1024 * 1024) < len(chunk):
                peak = max(peak, _rss_kib(server.proc.pid))
    assert received == size
    assert digest.hexdigest() == hashlib.sha256(block * (size // len(block))).hexdigest()
    grown_mib = (peak - before) / 1024
    print(f"storage RSS grew by {grown_mib:.1f} MiB while serving 256 MiB")
    assert grown_mib < 32, f"storage RSS grew by {grown_mib:.0f} MiB"
    await server.storage.delete(key)


async def test_client_leaving_mid_download_leaves_no_open_file(server: Server) -> None:
    key = await store(server, os.urandom(8 * 1024 * 1024), "video/mp4")
    url = urlsplit(server.storage.read_url(key))
    fds = _open_files(server.proc.pid)
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            sock.sendall(f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            await asyncio.sleep(0.1)  # the server is blocked on a full socket when the client goes
    assert await eventually(lambda: _open_files(server.proc.pid) <= fds), "a download left its file open"
    response = await fetch(server.storage.read_url(key), Range="bytes=0-3")
    assert response.status_code == 206


def _open_files(pid: int) -> int:
    """How many regular files under the objects directory the process holds open."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if "/objects/" in os.readlink(fd):
                count += 1
        except FileNotFoundError:
            pass
    return count


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


# -- LocalStorage on the core side


async def test_write_enforces_max_bytes(server: Server) -> None:
    storage = server.storage

    async def chunks(total: int, size: int = 70_000) -> AsyncIterator[bytes]:
        for offset in range(0, total, size):
            yield os.urandom(min(size, total - offset))

    key = new_key()
    assert await storage.write(key, chunks(2_000_000), content_type="image/gif", max_bytes=2_000_000) == 2_000_000
    stored = await storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (2_000_000, "image/gif")

    too_big = new_key()
    with pytest.raises(ObjectTooLarge):
        await storage.write(too_big, chunks(2_000_001), content_type="image/gif", max_bytes=2_000_000)
    assert await storage.stat(too_big) is None
    assert leftovers(server, too_big) == []

    # write() replaces (the legacy upload path stores under fresh keys; replacing is harmless).
    assert await storage.write(key, chunks(10), content_type="image/png", max_bytes=10) == 10
    stored = await storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (10, "image/png")


async def test_cancelled_write_leaves_nothing(server: Server) -> None:
    storage, key = server.storage, new_key()
    started = asyncio.Event()

    async def endless() -> AsyncIterator[bytes]:
        while True:
            yield b"e" * 512 * 1024
            started.set()
            await asyncio.sleep(0)

    task = asyncio.ensure_future(storage.write(key, endless(), content_type="image/png", max_bytes=10**12))
    await started.wait()
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await storage.stat(key) is None
    assert leftovers(server, key) == []


async def test_delete_and_absent(server: Server) -> None:
    storage, key = server.storage, new_key()
    url = storage.upload_url(key, content_type="image/png", size_bytes=3)
    assert (await put(url, b"abc")).status_code == 200
    await storage.delete(key)
    assert await storage.stat(key) is None
    await storage.delete(key)  # absent: not an error
    await storage.delete("org_test/never_there")
    with pytest.raises(FileNotFoundError):
        await read_all(storage, key)


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (0, None),
        (0, 0),  # zero-length
        (100, 100),  # zero-length, mid-object
        (65530, 65540),  # across a chunk boundary
        (1000, 200_000),  # across several
        (65536, 131072),  # exactly one chunk
        (299_000, None),  # to the end
        (299_000, 10**9),  # end past the object: clamped
        (300_007, None),  # at the end: nothing
        (400_000, 400_010),  # past the end: nothing
    ],
)
async def test_read_range_is_the_exact_slice(server: Server, start: int, end: int | None) -> None:
    data = os.urandom(300_007)
    key = await store(server, data)
    chunk_size = 64 * 1024
    chunks = [c async for c in server.storage.read(key, chunk_size=chunk_size, start=start, end=end)]
    assert b"".join(chunks) == data[start:end]
    assert all(0 < len(c) <= chunk_size for c in chunks)
    await server.storage.delete(key)


async def test_read_range_arguments(server: Server) -> None:
    key = await store(server, b"0123456789")
    for kwargs in ({"start": -1}, {"start": 5, "end": 4}, {"chunk_size": 0}):
        with pytest.raises(ValueError):
            server.storage.read(key, **kwargs)  # refused when called, before anything is read
    assert b"".join([c async for c in server.storage.read(key, start=3, end=7, chunk_size=3)]) == b"3456"
    with pytest.raises(FileNotFoundError):  # absent, even for an empty range
        await read_all_range(server.storage, new_key(), 0, 0)


async def read_all_range(storage: LocalStorage, key: str, start: int, end: int | None) -> bytes:
    return b"".join([chunk async for chunk in storage.read(key, start=start, end=end)])


@pytest.mark.parametrize(
    "key",
    ["", "../x", "a/../b", "/abs", "a//b", "a/", ".hidden", "a/.b", "a/..", ".", "a b", "a\\b", "ü", "a\nb", "x" * 513],
)
async def test_key_validation(server: Server, key: str) -> None:
    with pytest.raises(InvalidKey):
        server.storage.upload_url(key, content_type="image/png", size_bytes=1)
    with pytest.raises(InvalidKey):
        await server.storage.stat(key)


async def test_stat_of_a_prefix_is_none(server: Server) -> None:
    assert await server.storage.stat("org_test") is None


# -- signing


def test_signature_covers_every_field() -> None:
    secret, expires = b"k" * 32, int(time.time()) + 60
    sig = signing.sign(secret, "a/b", "image/png", 10, expires)

    def check(key: str = "a/b", size: str = "10", ctype: str = "image/png", exp: str = str(expires), s: str = sig):
        return signing.verify(secret, key, size=size, content_type=ctype, expires=exp, sig=s)

    assert check() is signing.Verdict.VALID
    for altered in (
        check(key="a/c"),
        check(size="11"),
        check(size="010"),
        check(size="-10"),
        check(ctype="image/jpeg"),
        check(exp=str(expires + 1)),
        check(s=sig[:-1]),
        check(s=sig + "="),
        check(s=""),
        check(s="é" * 43),
    ):
        assert altered is signing.Verdict.INVALID
    assert signing.verify(
        secret, "a/b", size="10", content_type="image/png", expires=str(expires), sig=sig, now=expires
    ) is (signing.Verdict.EXPIRED)
    assert signing.verify(b"j" * 32, "a/b", size="10", content_type="image/png", expires=str(expires), sig=sig) is (
        signing.Verdict.INVALID
    )


def test_read_signature_covers_key_and_expiry_and_is_not_an_upload_signature() -> None:
    secret, expires = b"k" * 32, int(time.time()) + 60
    sig = signing.sign_read(secret, "a/b", expires)

    def check(key: str = "a/b", exp: str | None = str(expires), s: str | None = sig, now: float | None = None):
        return signing.verify_read(secret, key, expires=exp, sig=s, now=now)

    assert check() is signing.Verdict.VALID
    for altered in (
        check(key="a/c"),
        check(exp=str(expires + 1)),
        check(exp="0" + str(expires)),
        check(exp=None),
        check(s=sig[:-1]),
        check(s=""),
        check(s=None),
        check(s="é" * 43),
    ):
        assert altered is signing.Verdict.INVALID
    assert check(now=expires) is signing.Verdict.EXPIRED
    assert signing.verify_read(b"j" * 32, "a/b", expires=str(expires), sig=sig) is signing.Verdict.INVALID
    # The two kinds never cross, whatever the other parameters.
    upload_sig = signing.sign(secret, "a/b", "image/png", 10, expires)
    assert check(s=upload_sig) is signing.Verdict.INVALID
    for size, content_type in (("10", "image/png"), ("0", ""), ("0", "GET")):
        assert (
            signing.verify(secret, "a/b", size=size, content_type=content_type, expires=str(expires), sig=sig)
            is signing.Verdict.INVALID
        )


def test_configured_signing_key_is_used(tmp_path: Path) -> None:
    settings = CoreSettings(data_dir=tmp_path, storage_signing_key="s3cret-from-the-environment")
    assert signing.signing_key(settings) == b"s3cret-from-the-environment"
    assert not (tmp_path / signing.KEY_FILE).exists()
    assert "s3cret" not in repr(settings) and "s3cret" not in str(settings.model_dump())
    with pytest.raises(ValueError, match="at least 16"):
        signing.signing_key(CoreSettings(data_dir=tmp_path, storage_signing_key="short"))


def _race_for_key(path: str, barrier: multiprocessing.synchronize.Barrier, results) -> None:
    barrier.wait()
    results.put(signing.load_or_create_key_file(Path(path)).hex())


def test_signing_key_file_race_agrees(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    for round_ in range(10):
        path = tmp_path / f"round{round_}" / signing.KEY_FILE
        workers = 6
        barrier, results = ctx.Barrier(workers), ctx.Queue()
        procs = [ctx.Process(target=_race_for_key, args=(str(path), barrier, results)) for _ in range(workers)]
        for p in procs:
            p.start()
        keys = {results.get(timeout=30) for _ in procs}
        for p in procs:
            p.join(timeout=30)
            assert p.exitcode == 0
        assert len(keys) == 1
        assert len(bytes.fromhex(keys.pop())) == 32
        assert path.stat().st_mode & 0o777 == 0o600
        assert [p.name for p in path.parent.iterdir()] == [signing.KEY_FILE]  # no temp file left


def test_signing_key_file_threads_agree(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / signing.KEY_FILE
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: signing.load_or_create_key_file(path), range(32)))
    assert len(keys) == 1


def test_core_and_storage_share_the_generated_key(server: Server) -> None:
    """The storage process created the key file at start; the core side reads the same one."""
    key_file = server.data_dir / signing.KEY_FILE
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert signing.load_or_create_key_file(key_file) == server.storage._secret


async def test_put_stores_bytes_in_one_step_and_replaces(tmp_path: Path) -> None:
    storage = LocalStorage(CoreSettings(data_dir=tmp_path))
    key = "org_put/med_one"
    await storage.put(key, b"first", content_type="image/jpeg")
    await storage.put(key, b"second version", content_type="image/png")
    stored = await storage.stat(key)
    assert stored is not None and (stored.size_bytes, stored.content_type) == (14, "image/png")
    assert b"".join([c async for c in storage.read(key)]) == b"second version"
    assert sorted(p.name for p in storage.path(key).parent.iterdir()) == [".med_one.type", "med_one"]


async def test_put_refuses_a_bad_key_or_type_and_leaves_nothing(tmp_path: Path) -> None:
    storage = LocalStorage(CoreSettings(data_dir=tmp_path))
    for key in ("../escape", "org_put/med_two\n"):  # a trailing newline too (not `$`'s leeway)
        with pytest.raises(InvalidKey):
            await storage.put(key, b"x", content_type="image/jpeg")
    with pytest.raises(ValueError):
        await storage.put("org_put/med_two", b"x", content_type="image/jpeg\n")
    with pytest.raises(ValueError):
        await storage.put("org_put/med_two", b"x", content_type="image/jpeg\r\nX-Evil: 1")
    assert await storage.stat("org_put/med_two") is None
