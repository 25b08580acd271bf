"""The local object storage: the real `herald storage` process accepting HMAC-signed upload URLs,
and `LocalStorage` (core side) issuing them and reading, writing and deleting objects."""

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
from core.storage.base import ObjectTooLarge
from core.storage.local import InvalidKey, LocalStorage
from tests.harness import ROOT, free_port, stack_env, wait_for_http


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
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
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


def test_configured_signing_key_is_used(tmp_path: Path) -> None:
    settings = CoreSettings(data_dir=tmp_path, storage_signing_key="s3cret-from-the-environment")
    assert signing.signing_key(settings) == b"s3cret-from-the-environment"
    assert not (tmp_path / signing.KEY_FILE).exists()
    assert "s3cret" not in repr(settings) and "s3cret" not in str(settings.model_dump())
    with pytest.raises(ValueError, match="at least 16"):
        signing.signing_key(CoreSettings(data_dir=tmp_path, storage_signing_key="short"))


def _race_for_key(path: str, barrier: multiprocessing.synchronize.Barrier, results) -> None:  # noqa: ANN001
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
