"""`herald storage`: the embedded object store's HTTP server.

The signed-upload protocol (HMAC-signed expiring PUT URLs streaming to files under the data
directory) arrives with the media library (issue 4). Until then the process serves its health
endpoint so `herald serve` supervises the same set of processes production runs.
"""

from __future__ import annotations

from sanic import Request, Sanic
from sanic.response import HTTPResponse, json

from core.settings import CoreSettings


def create_storage_app(settings: CoreSettings) -> Sanic:
    app = Sanic("herald_storage", configure_logging=False)
    app.config.update({"MOTD": False, "ACCESS_LOG": False, "KEEP_ALIVE_TIMEOUT": 30})
    app.ctx.settings = settings

    @app.get("/healthz")
    async def healthz(request: Request) -> HTTPResponse:
        return json({"status": "ok"})

    return app


def run_storage(settings: CoreSettings, listen: str) -> None:
    host, _, port = listen.rpartition(":")
    create_storage_app(settings).run(host=host, port=int(port), single_process=True, motd=False, access_log=False)
