"""`herald facade` / `herald-facade`: serves the HTTP facade."""

from __future__ import annotations

import argparse

from contract import logs
from facades.app import create_app
from facades.settings import FacadeSettings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="herald facade")
    parser.add_argument("--listen", help="host:port (default HERALD_FACADE_LISTEN)")
    args = parser.parse_args(argv)
    settings = FacadeSettings()
    logs.configure(settings.log_level, settings.log_format)
    host, _, port = (args.listen or settings.facade_listen).rpartition(":")
    app = create_app(settings)
    app.run(host=host, port=int(port), single_process=True, motd=False, access_log=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
