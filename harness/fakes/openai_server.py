"""A local server speaking the OpenAI chat-completions API (`POST /v1/chat/completions`), as
vLLM, llama.cpp's server, Ollama and hosted services do, for Herald's `openai` generation backend
(core/generate/openai_backend.py) to be tested over HTTP with the official client.

It drafts by echoing: for each destination named in the request (`- profile 'slug': …`), one
draft whose single part is the brief. Markers in the brief switch its behaviour:
`[slow:S]` answers after S seconds, `[hang]` never answers in time, `[429-once]` answers
429 with Retry-After the first time it sees that brief, `[malformed]` answers text that is not
JSON, `[toolong]` repeats the brief ten times. Every request is recorded."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeChatServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.arrived = threading.Event()
        self._seen_429: set[str] = set()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
                status, headers, payload = server.answer(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    for key, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout, a killed worker)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        with self._lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
        self.arrived.set()
        if path != "/v1/chat/completions":
            return 404, {}, {"error": {"message": "not found", "type": "invalid_request_error"}}
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        arguments = json.loads(user.split("Arguments: ", 1)[1])
        brief = arguments.get("brief") or arguments.get("text") or ""
        if m := re.search(r"\[slow:(\d+(?:\.\d+)?)\]", brief):
            time.sleep(float(m.group(1)))
        if "[hang]" in brief:
            time.sleep(30)
        if "[429-once]" in brief:
            with self._lock:
                first = brief not in self._seen_429
                self._seen_429.add(brief)
            if first:
                error = {
                    "error": {
                        "message": "Rate limit reached",
                        "type": "rate_limit_error",
                        "code": "rate_limit_exceeded",
                    }
                }
                return 429, {"Retry-After": "1"}, error
        profiles = re.findall(r"^- profile '([^']+)'", user, re.MULTILINE)
        text = brief * 10 if "[toolong]" in brief else brief
        answer = {"drafts": [{"profile": p, "variant": 1, "parts": [text]} for p in profiles], "hashtags": ["#fake"]}
        content = "this is not JSON" if "[malformed]" in brief else json.dumps(answer)
        return (
            200,
            {},
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            },
        )
