"""The dashboard: sign-up, sign-in, sign-out and the signed-in pages."""

from __future__ import annotations

from sanic import Blueprint


def dashboard_blueprint() -> Blueprint:
    return Blueprint("dashboard")
