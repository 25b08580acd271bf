"""The `local` backend: objects as files under `{data_dir}/objects/`, uploaded through the embedded
`herald storage` server with HMAC-signed, expiring PUT URLs and fetched through it with signed,
expiring GET URLs (`read_url`, served by core/storage/downloads.py)
(docs/decisions.md, "Upload URLs point at object storage").

Keys map to paths one to one (`org_x/med_y` → `objects/org_x/med_y`); a key is 1-512 characters of
[A-Za-z0-9_./-], made of non-empty segments that do not start with a dot, so it can never leave
the objects directory nor collide with the hidden files kept beside objects: `.{name}.*.part` (an
upload in progress) and `.{name}.type` (the stored Content-Type). Bytes are streamed to a temp file
in the object's directory, fsynced and renamed into place only when complete, so a partial upload
is never visible; memory stays bounded by one write buffer.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG
from typing import TypeVar
from urllib.parse import urlencode

from core.settings import CoreSettings
from core.storage import signing
from core.storage.base import (
    CHUNK_SIZE,
    READ_URL_LIFETIME,
    UPLOAD_URL_LIFETIME,
    ListedObject,
    ObjectTooLarge,
    StoredObject,
    check_lifetime,
    check_read_range,
    origin_of,
)
from core.storage.fileio import Writeback, write_all

KEY_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(?:/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*$")
MAX_KEY_LENGTH = 512
CONTENT_TYPE_RE = re.compile(r"^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$")
DEFAULT_CONTENT_TYPE = "application/octet-stream"
# Hidden files beside an object: an upload's temp file (tempfile.mkstemp: 8 random characters) and
# its type file, and the object's type file.
LEFTOVER_RE = re.compile(r"^\.(?P<object>.+)\.[a-z0-9_]{8}\.part(?:\.type)?$")
TYPE_FILE_RE = re.compile(r"^\.(?P<object>.+)\.type$")
WRITE_BUFFER = 4 * 1024 * 1024

T = TypeVar("T")


class InvalidKey(ValueError):
    pass


class ObjectExists(Exception):
    """An upload URL accepts one complete PUT: the object is already there."""


@dataclass(frozen=True, slots=True)
class OpenObject:
    """A complete object opened for reading (`LocalStorage.open_stored`): the descriptor reads the
    object as it was when opened, even if it is replaced or deleted meanwhile. The caller closes it."""

    fd: int
    size_bytes: int
    content_type: str


def check_key(key: str) -> str:
    if not (0 < len(key) <= MAX_KEY_LENGTH) or not KEY_RE.fullmatch(key):
        raise InvalidKey(f"invalid object key {key[:80]!r}: use segments of [A-Za-z0-9_.-] joined by '/'")
    return key


def check_content_type(content_type: str) -> str:
    if not CONTENT_TYPE_RE.fullmatch(content_type):
        raise ValueError("content type must be 1-255 printable ASCII characters")
    return content_type


async def in_thread(fn: Callable[..., T], *args: object, **kwargs: object) -> T:
    """Runs `fn` in a worker thread. When the caller is cancelled meanwhile (the client went away),
    waits for `fn` to return before letting the cancellation through, so cleanup never races it."""
    task = asyncio.ensure_future(asyncio.to_thread(fn, *args, **kwargs))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.wait([task])
        raise


class LocalStorage:
    def __init__(self, settings: CoreSettings) -> None:
        self.root = (settings.data_dir / "objects").resolve()
        self.public_url = settings.storage_public_url
        self._secret = signing.signing_key(settings)

    # -- paths

    def path(self, key: str) -> Path:
        return self.root.joinpath(*check_key(key).split("/"))

    @staticmethod
    def _type_path(path: Path) -> Path:
        return path.with_name(f".{path.name}.type")

    # -- ObjectStorage

    def upload_url(self, key: str, *, content_type: str, size_bytes: int, expires_in: int = UPLOAD_URL_LIFETIME) -> str:
        check_key(key)
        check_content_type(content_type)
        if size_bytes < 0:
            raise ValueError("size_bytes must not be negative")
        query = signing.signed_query(self._secret, key, content_type, size_bytes, expires_in)
        return f"{self.public_url}/upload/{key}?{urlencode(query)}"

    def upload_origin(self) -> str:
        return origin_of(self.public_url)

    def verify(
        self, key: str, *, size: str | None, content_type: str | None, expires: str | None, sig: str | None
    ) -> signing.Verdict:
        return signing.verify(self._secret, key, size=size, content_type=content_type, expires=expires, sig=sig)

    def read_url(self, key: str, *, expires_in: int = READ_URL_LIFETIME, generation: int | None = None) -> str:
        """(`generation` is None here: an object under an upload URL's key is never replaced, the
        storage server refusing any PUT once it is complete; see StoredObject.)"""
        check_key(key)
        query = signing.signed_read_query(self._secret, key, check_lifetime(expires_in))
        return f"{self.public_url}/objects/{key}?{urlencode(query)}"

    def verify_read(self, key: str, *, expires: str | None, sig: str | None) -> signing.Verdict:
        return signing.verify_read(self._secret, key, expires=expires, sig=sig)

    async def stat(self, key: str) -> StoredObject | None:
        return await asyncio.to_thread(self._stat, self.path(key), key)

    def _stat(self, path: Path, key: str) -> StoredObject | None:
        try:
            st = path.stat()  # runs in a thread
        except (FileNotFoundError, NotADirectoryError):
            return None
        if not S_ISREG(st.st_mode):
            return None
        return StoredObject(key, st.st_size, self._stored_type(path))

    def _stored_type(self, path: Path) -> str:
        try:
            return self._type_path(path).read_text().strip() or DEFAULT_CONTENT_TYPE
        except FileNotFoundError:
            return DEFAULT_CONTENT_TYPE

    def read(
        self,
        key: str,
        *,
        chunk_size: int = CHUNK_SIZE,
        start: int = 0,
        end: int | None = None,
        generation: int | None = None,
    ) -> AsyncIterator[bytes]:
        """Streams `[start, end)` of the object; raises FileNotFoundError when it is absent. The open
        file is the object as it was when reading started, even if it is replaced meanwhile.
        (`generation`: None here, as in `read_url`.)"""
        check_read_range(chunk_size, start, end)
        return self._read(self.path(key), chunk_size, start, end)

    async def _read(self, path: Path, chunk_size: int, start: int, end: int | None) -> AsyncIterator[bytes]:
        f = await asyncio.to_thread(open, path, "rb", buffering=0)
        try:
            position = start
            while end is None or position < end:
                want = chunk_size if end is None else min(chunk_size, end - position)
                chunk = await in_thread(os.pread, f.fileno(), want, position)
                if not chunk:
                    break
                position += len(chunk)
                yield chunk
        finally:
            f.close()

    def open_stored(self, key: str) -> OpenObject | None:
        """Opens the complete object under `key` (blocking: call it in a thread), or None when there
        is none. Only renamed-into-place objects are reachable: a key never names a hidden temp file."""
        path = self.path(key)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as error:
            if error.errno == errno.ELOOP:  # a symbolic link: never an object of ours
                return None
            raise
        try:
            st = os.fstat(fd)
            if S_ISREG(st.st_mode):
                return OpenObject(fd, st.st_size, self._stored_type(path))
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # a directory: a key prefix, not an object
        return None

    async def write(self, key: str, chunks: AsyncIterator[bytes], *, content_type: str, max_bytes: int) -> int:
        return await self.store(key, chunks, content_type=content_type, max_bytes=max_bytes, replace=True)

    async def store(
        self, key: str, chunks: AsyncIterator[bytes], *, content_type: str, max_bytes: int, replace: bool
    ) -> int:
        """Streams `chunks` into a temp file beside the object and renames it into place once
        complete. Past `max_bytes`: ObjectTooLarge. With replace=False an existing object is kept
        and ObjectExists raised. Whatever goes wrong (including cancellation), nothing is left.
        Chunks are gathered into WRITE_BUFFER batches, each written (one writev) in a worker thread
        while the next one is gathered: at most two batches are held."""
        async with self.staging(key, content_type=content_type, replace=replace) as fd:
            writeback = Writeback(fd)
            size, batch, batched = 0, [], 0
            writing: asyncio.Future[int] | None = None
            try:
                async for chunk in chunks:
                    size += len(chunk)
                    if size > max_bytes:
                        raise ObjectTooLarge(f"more than {max_bytes:,} bytes")
                    batch.append(chunk)
                    batched += len(chunk)
                    if batched >= WRITE_BUFFER:
                        if writing is not None:
                            await asyncio.shield(writing)
                        writing = asyncio.ensure_future(asyncio.to_thread(_write, fd, batch, writeback))
                        batch, batched = [], 0
                if writing is not None:
                    await asyncio.shield(writing)
                writing = None
                await in_thread(_write, fd, batch, writeback)
            finally:
                if writing is not None:  # never close the file under a running write
                    await asyncio.wait([writing])
                    if not writing.cancelled():
                        writing.exception()  # retrieved: the error in flight already propagates
        return size

    async def put(self, key: str, data: bytes, *, content_type: str) -> None:
        """`write` for bytes in memory, done in one worker-thread step (temp file, fsync, rename,
        directory fsync) instead of one per stage: a few ms less per object."""
        path = self.path(key)
        check_content_type(content_type)
        await in_thread(self._put, path, data, content_type)

    def _put(self, path: Path, data: bytes, content_type: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        type_tmp = f"{tmp}.type"
        try:
            write_all(fd, [data])
            self._finish(fd, type_tmp, content_type)
            self._commit(tmp, type_tmp, path, replace=True)
        finally:
            os.close(fd)
            for leftover in (tmp, type_tmp):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(leftover)

    @contextlib.asynccontextmanager
    async def staging(self, key: str, *, content_type: str, replace: bool) -> AsyncIterator[int]:
        """A hidden temp file beside the object's path, open for writing (yields its descriptor).
        When the block ends normally the file is fsynced and renamed into place (atomically: with
        replace=False an object that is already there wins and ObjectExists is raised); whatever
        goes wrong, the temp file is removed."""
        path = self.path(key)
        check_content_type(content_type)
        await asyncio.to_thread(path.parent.mkdir, parents=True, exist_ok=True)
        fd, tmp = await asyncio.to_thread(tempfile.mkstemp, dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        type_tmp = f"{tmp}.type"
        try:
            yield fd
            await in_thread(self._finish, fd, type_tmp, content_type)
            await in_thread(self._commit, tmp, type_tmp, path, replace)
        finally:
            os.close(fd)
            for leftover in (tmp, type_tmp):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(leftover)

    @staticmethod
    def _finish(fd: int, type_tmp: str, content_type: str) -> None:
        os.fsync(fd)
        Path(type_tmp).write_text(content_type)

    def _commit(self, tmp: str, type_tmp: str, path: Path, replace: bool) -> None:
        if replace:
            os.replace(type_tmp, self._type_path(path))
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # atomic: exactly one of two racing uploads wins
            except FileExistsError:
                raise ObjectExists(f"{path.name} is already stored") from None
            os.replace(type_tmp, self._type_path(path))
        _fsync_dir(path.parent)

    async def list_objects(self, prefix: str = "") -> AsyncIterator[ListedObject]:
        """Walks the objects directory (one directory per worker-thread step): objects, temp files
        of uploads (`.{name}.XXXXXXXX.part` and its `.type`) and `.{name}.type` files whose object
        is gone, the last three as `partial` entries under the key they were meant for."""
        if prefix:
            check_key(prefix.rstrip("/"))  # never a walk outside the objects directory
        top = self.root.joinpath(*prefix.split("/")[:-1]) if "/" in prefix else self.root
        walker = os.walk(top)
        while (step := await asyncio.to_thread(next, walker, None)) is not None:
            directory, _, names = step
            for listed in await asyncio.to_thread(self._list_dir, Path(directory), names):
                if listed.key.startswith(prefix):
                    yield listed

    def _list_dir(self, directory: Path, names: list[str]) -> list[ListedObject]:
        relative = directory.relative_to(self.root).as_posix()
        base = "" if relative == "." else f"{relative}/"
        present = set(names)
        found = []
        for name in names:
            if not name.startswith("."):
                key, partial = base + name, False
            elif (m := LEFTOVER_RE.match(name)) or ((m := TYPE_FILE_RE.match(name)) and m["object"] not in present):
                key, partial = base + m["object"], True
            else:
                continue  # the type file of a present object: listed (and deleted) with it
            try:
                st = (directory / name).lstat()
            except FileNotFoundError:
                continue
            if S_ISREG(st.st_mode) and KEY_RE.fullmatch(key):
                modified = datetime.fromtimestamp(st.st_mtime, UTC)
                found.append(ListedObject(key, st.st_size, modified, base + name, _version(st), partial))
        return found

    async def delete_listed(self, listed: ListedObject) -> bool:
        path = self.root.joinpath(*listed.name.split("/"))
        if ".." in listed.name.split("/") or not path.is_relative_to(self.root):
            raise InvalidKey(f"not a listed name: {listed.name[:80]!r}")

        def remove() -> bool:
            try:
                if _version(path.lstat()) != listed.version:
                    return False  # replaced since it was listed
                path.unlink()
            except (FileNotFoundError, NotADirectoryError):
                return False
            if not listed.partial:
                with contextlib.suppress(FileNotFoundError):
                    self._type_path(path).unlink()
            return True

        return await asyncio.to_thread(remove)

    async def exists(self, key: str) -> bool:
        return await self.stat(key) is not None

    async def delete(self, key: str) -> None:
        path = self.path(key)

        def remove() -> None:
            for p in (path, self._type_path(path)):
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    p.unlink()

        await asyncio.to_thread(remove)


def _version(st: os.stat_result) -> str:
    return f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}"


def _write(fd: int, chunks: list[bytes], writeback: Writeback) -> None:
    writeback.wrote(write_all(fd, chunks))


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
