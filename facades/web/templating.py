"""Jinja templates (autoescaped) and the headers every page carries."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from sanic import Request
from sanic.response import HTTPResponse, html

from facades.web.csrf import ensure_nonce_cookie, form_token

_ENV = Environment(loader=PackageLoader("facades.web", "templates"), autoescape=select_autoescape(default=True))

# No third-party anything; scripts only from our own origin; never framed (clickjacking on the
# consent page). form-action is left open: the consent form redirects to the client.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'none'"
)


def content_security_policy(
    image_origins: Iterable[str] = (), *, connect_self: bool = False, connect_origins: Iterable[str] = ()
) -> str:
    """The policy, with images also allowed from exactly these origins (the stock picker's
    previews: each `scheme://host[:port]`, checked by the page that shows them), and, for a page
    whose script calls the dashboard's own endpoints (compose), `connect-src 'self'`, plus
    exactly `connect_origins` (the media page's uploads: the storage's origin)."""
    extra = "".join(f" {origin}" for origin in sorted(set(image_origins)))
    policy = CONTENT_SECURITY_POLICY.replace("img-src 'self' data:", f"img-src 'self' data:{extra}")
    if not connect_self and not connect_origins:
        return policy
    reach = "".join(f" {origin}" for origin in sorted(set(connect_origins)))
    return policy.replace("; frame-ancestors", f"; connect-src 'self'{reach}; frame-ancestors")


def discovery_links(base_url: str) -> str:
    """RFC 8288 Link header advertising the public documents (the API catalog, the OpenAPI
    document, the OAuth metadata, llms.txt and auth.md; docs/api.md)."""
    targets = [
        ("/.well-known/api-catalog", "api-catalog"),
        ("/openapi.json", "service-desc"),
        ("/.well-known/oauth-protected-resource", "oauth-protected-resource"),
        ("/.well-known/oauth-authorization-server", "oauth-authorization-server"),
        ("/llms.txt", "describedby"),
        ("/auth.md", "help"),
    ]
    return ", ".join(f'<{base_url}{path}>; rel="{rel}"' for path, rel in targets)


def page_headers(
    base_url: str, image_origins: Iterable[str] = (), *, connect_self: bool = False, connect_origins: Iterable[str] = ()
) -> dict[str, str]:
    return {
        "Content-Security-Policy": content_security_policy(
            image_origins, connect_self=connect_self, connect_origins=connect_origins
        ),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "Link": discovery_links(base_url),
    }


def render(
    request: Request,
    template: str,
    *,
    status: int = 200,
    image_origins: Iterable[str] = (),
    connect_self: bool = False,
    connect_origins: Iterable[str] = (),
    **context: Any,
) -> HTTPResponse:
    settings = request.app.ctx.settings
    body = _ENV.get_template(template).render(csrf_token=form_token(request), base_url=settings.base_url, **context)
    headers = page_headers(settings.base_url, image_origins, connect_self=connect_self, connect_origins=connect_origins)
    response = html(body, status=status, headers=headers)
    ensure_nonce_cookie(request, response)
    return response
