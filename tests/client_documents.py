"""A real HTTP(S) server on loopback serving Client ID Metadata Documents for OAuth tests: each
path answers as the test set it (a document, a status, headers, a delay, a body too large)."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness.oauth_flow import REDIRECT_URI


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        pass  # a reader that stopped early (too large, too slow) is what these tests make


@dataclass
class Answer:
    """What one path answers: `body` (bytes, or a JSON-able value), after `delay` seconds."""

    body: object = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Cache-Control": "no-store"})
    content_type: str = "application/json"
    delay: float = 0.0
    # Sent without Content-Length, in chunks (so only the reader's own count can stop it).
    chunked: bool = False


class DocumentServer:
    """Serves `answers[path]`; records every path requested (`hits`)."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.answers: dict[str, Answer] = {}
        self.hits: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                server.hits.append(self.path)
                answer = server.answers.get(self.path, Answer(status=404, body={"error": "not found"}))
                if answer.delay:
                    time.sleep(answer.delay)
                body = answer.body if isinstance(answer.body, bytes) else json.dumps(answer.body).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", answer.content_type)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    if answer.chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for start in range(0, len(body), 1024):
                            piece = body[start : start + 1024]
                            self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.write(b"0\r\n\r\n")
                    else:
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the reader stopped early (too large, too slow): what the tests want

            def log_message(self, *args: object) -> None:
                pass

        self.server = _Server(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls is not None else "http"
        self.origin = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, name: str = "") -> str:
        """A fresh document URL (each test its own, so no core's cache answers for another)."""
        return f"{self.origin}/clients/{name or uuid.uuid4().hex}.json"

    def serve(self, url: str, answer: Answer) -> str:
        self.answers[url.removeprefix(self.origin)] = answer
        return url

    def publish(self, url: str, *, redirect_uris: tuple[str, ...] = (REDIRECT_URI,), **metadata: object) -> str:
        """Serves a valid document at `url` (its client_id is `url`), overridden by `metadata`."""
        document = {
            "client_id": url,
            "client_name": "Document Agent",
            "redirect_uris": list(redirect_uris),
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            **metadata,
        }
        return self.serve(url, Answer({k: v for k, v in document.items() if v is not None}))

    def hits_of(self, url: str) -> int:
        return self.hits.count(url.removeprefix(self.origin))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def loopback_certificate(directory: Path) -> tuple[Path, ssl.SSLContext]:
    """A throwaway certificate authority and a certificate it signed for 127.0.0.1: returns the
    authority's PEM (for a client's SSL_CERT_FILE) and a server TLS context with the certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Herald test authority")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    leaf = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    authority = directory / "authority.pem"
    authority.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    chain = directory / "server.pem"
    chain.write_bytes(
        leaf.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain)
    return authority, context
