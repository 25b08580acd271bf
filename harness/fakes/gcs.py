"""A small Google Cloud Storage server that honours object generations, on loopback.

gcp-storage-emulator (tests/core/test_storage_gcs.py) ignores `generation` on reads, so it cannot
show that Herald reads only the generation confirm checked (core/storage/gcs.py). This speaks the
few calls Herald makes, in the shapes of the JSON API and of V4 signed URLs
(https://cloud.google.com/storage/docs/json_api/v1/objects):

- `PUT /{bucket}/{name}?X-Goog-…` (a signed upload URL): a new generation of the object;
- `POST /upload/storage/v1/b/{bucket}/o?uploadType=multipart` (objects.insert, how the library
  uploads a small object in one request: `put`, e.g. a thumbnail): a new generation too;
- `GET /{bucket}/{name}?[generation=]X-Goog-…` (a signed read URL): that generation's bytes;
- `GET /storage/v1/b/{bucket}/o/{name}[?generation=]`: the object's metadata (objects.get);
- `GET /download/storage/v1/b/{bucket}/o/{name}?alt=media[&generation=]`, with `Range`: its bytes;
- `GET /storage/v1/b/{bucket}/o[?prefix=]`: the live objects (objects.list, one page);
- `DELETE /storage/v1/b/{bucket}/o/{name}[?generation=|ifGenerationMatch=]` (objects.delete).

A generation that does not exist is a 404, as on GCS. With `versioning` (a bucket with Object
Versioning) a replaced generation stays readable by its number; without it, a PUT drops the
generation it replaces, as GCS does. Signatures are not checked (the tests check them offline).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

RANGE_RE = re.compile(r"^bytes=(\d+)-(\d*)$")


@dataclass
class Version:
    generation: int
    data: bytes
    content_type: str
    created: datetime


class FakeGcs:
    def __init__(self, bucket: str, *, versioning: bool = True) -> None:
        self.bucket = bucket
        self.versioning = versioning
        self.objects: dict[str, list[Version]] = {}  # name: its generations, oldest first (last: live)
        self.reads: list[tuple[str, int | None]] = []  # (name, generation asked for) of each byte read
        self._lock = threading.Lock()
        self._generation = int(time.time() * 1_000_000)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._answer(*fake.get(self.path, self.headers.get("Range")))

            def do_PUT(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self._answer(*fake.put(self.path, body, self.headers.get("Content-Type", "")))

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                self._answer(*fake.insert(self.path, body, self.headers.get("Content-Type", "")))

            def do_DELETE(self) -> None:
                self._answer(*fake.delete(self.path))

            def _answer(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- what the handler calls

    def _find(self, name: str, generation: str | None) -> Version | None:
        versions = self.objects.get(name, [])
        if generation is None:
            return versions[-1] if versions else None
        return next((v for v in versions if str(v.generation) == generation), None)

    def get(self, path: str, range_header: str | None) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        generation = query.get("generation")
        api = f"/storage/v1/b/{self.bucket}/o"
        with self._lock:
            if parts.path == api:
                prefix = query.get("prefix", "")
                items = [self._metadata(n, v[-1]) for n, v in sorted(self.objects.items()) if n.startswith(prefix)]
                return _json(200, {"kind": "storage#objects", "items": items})
            if parts.path.startswith(f"{api}/"):
                name = unquote(parts.path[len(api) + 1 :])
                found = self._find(name, generation)
                return _json(200, self._metadata(name, found)) if found else _not_found()
            download = f"/download{api}/"
            if parts.path.startswith(download) and query.get("alt") == "media":
                name = unquote(parts.path[len(download) :])
            elif parts.path.startswith(f"/{self.bucket}/") and "X-Goog-Signature" in query:
                name = unquote(parts.path[len(self.bucket) + 2 :])
            else:
                return _not_found()
            found = self._find(name, generation)
            if found is None:
                return _not_found()
            self.reads.append((name, int(generation) if generation else None))
        return _media(found, range_header)

    def put(self, path: str, body: bytes, content_type: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        if not parts.path.startswith(f"/{self.bucket}/") or "X-Goog-Signature" not in parts.query:
            return _not_found()
        name = unquote(parts.path[len(self.bucket) + 2 :])
        version = self._store(name, body, content_type)
        return 200, {"ETag": f'"{version.generation}"'}, b""

    def insert(self, path: str, body: bytes, content_type: str) -> tuple[int, dict[str, str], bytes]:
        """objects.insert with uploadType=multipart: a multipart/related body of the object's JSON
        metadata (its name and type) and its bytes."""
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if parts.path != f"/upload/storage/v1/b/{self.bucket}/o" or query.get("uploadType") != "multipart":
            return _not_found()
        boundary = re.search(r'boundary="?([^";]+)"?', content_type)
        if boundary is None:
            return _json(400, {"error": {"code": 400, "message": "not multipart/related"}})
        sections = body.split(b"--" + boundary[1].encode())
        meta_head, _, meta_body = sections[1].partition(b"\r\n\r\n")
        media_head, _, data = sections[2].partition(b"\r\n\r\n")
        metadata = json.loads(meta_body)
        name = metadata.get("name") or query.get("name", "")
        media_type = re.search(rb"(?im)^content-type:\s*(\S+)", media_head)
        kind = metadata.get("contentType") or (media_type[1].decode() if media_type else "application/octet-stream")
        version = self._store(name, data.removesuffix(b"\r\n"), kind)
        return _json(200, self._metadata(name, version))

    def _store(self, name: str, data: bytes, content_type: str) -> Version:
        with self._lock:
            self._generation += 1
            version = Version(self._generation, data, content_type, datetime.now(UTC))
            kept = self.objects.get(name, []) if self.versioning else []
            self.objects[name] = [*kept, version]
        return version

    def delete(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        api = f"/storage/v1/b/{self.bucket}/o/"
        if not parts.path.startswith(api):
            return _not_found()
        name = unquote(parts.path[len(api) :])
        with self._lock:
            versions = self.objects.get(name, [])
            target = self._find(name, query.get("generation"))
            if target is None:
                return _not_found()
            if (match := query.get("ifGenerationMatch")) and str(target.generation) != match:
                return _json(412, {"error": {"code": 412, "message": "conditionNotMet"}})
            versions.remove(target)
            if not versions:
                del self.objects[name]
        return 204, {}, b""

    # -- what tests call

    def generations(self, name: str) -> list[int]:
        with self._lock:
            return [v.generation for v in self.objects.get(name, [])]

    def _metadata(self, name: str, version: Version) -> dict[str, Any]:
        stamp = version.created.isoformat().replace("+00:00", "Z")
        return {
            "kind": "storage#object",
            "id": f"{self.bucket}/{name}/{version.generation}",
            "name": name,
            "bucket": self.bucket,
            "generation": str(version.generation),
            "metageneration": "1",
            "contentType": version.content_type,
            "size": str(len(version.data)),
            "timeCreated": stamp,
            "updated": stamp,
        }


def _json(status: int, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(body).encode()


def _not_found() -> tuple[int, dict[str, str], bytes]:
    return _json(404, {"error": {"code": 404, "message": "No such object."}})


def _media(version: Version, range_header: str | None) -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": version.content_type, "x-goog-generation": str(version.generation)}
    size = len(version.data)
    m = RANGE_RE.match(range_header or "")
    if m is None:
        return 200, headers, version.data
    start, end = int(m[1]), min(int(m[2]) if m[2] else size - 1, size - 1)
    if start >= size:
        return 416, {**headers, "Content-Range": f"bytes */{size}"}, b""
    return 206, {**headers, "Content-Range": f"bytes {start}-{end}/{size}"}, version.data[start : end + 1]
