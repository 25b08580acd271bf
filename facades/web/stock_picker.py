"""The stock picker (issue 16; docs/dashboard.md, "The stock picker", docs/stock.md): the form's
choices read, a search's results with their previews' origins, the provider switches, the
organization's balance, the picker's alerts and the outcome of a sourcing. No handlers: the
library page (media_pages.py) and the compose page (compose_pages.py) show it with one template
(templates/stock_picker.html); the media page's forms (stock_picker_pages.py) and compose's
(compose_stock.py) show it again after a refusal."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from herald.credits.v1 import credits_pb2
from herald.stock.v1 import stock_pb2
from sanic import Request

from facades.errors import ApiError
from facades.web.pages import notice
from facades.web.session import Viewer

RESULTS_SHOWN = 24
PREVIEW_WIDTH = 240  # the previews' width on the page, in CSS pixels
SEARCH = "/herald.stock.v1.StockService/SearchStock"
SOURCE = "/herald.stock.v1.StockService/SourceMedia"
LIST_PROVIDERS = "/herald.stock.v1.StockService/ListStockProviders"
SET_PROVIDERS = "/herald.stock.v1.StockService/SetStockProviders"
PROVIDERS = {"stock_a": "stock_a (Pexels)", "stock_b": "stock_b (Unsplash)"}
PRESETS = {
    "square": "Square, 1:1",
    "portrait": "Portrait, 4:5",
    "landscape": "Landscape, 1.91:1",
    "story": "Story, 9:16",
}
# The codes SourceMedia lists a photo that failed under (docs/stock.md, Sourcing).
FAILURE_CODES = frozenset(
    {
        "NOT_FOUND",
        "FOREIGN_HOST",
        "TOO_LARGE",
        "NOT_AN_IMAGE",
        "FETCH_FAILED",
        "TIMEOUT",
        "PROVIDER_ERROR",
        "RATE_LIMITED",
        "STORAGE_FAILED",
    }
)
# What the picker's searches and sourcing can answer that a human can act on: shown on the page,
# with the error's own status. Anything else is a failure page (pages.page_errors).
PICKER_ERRORS = {
    "VALIDATION_ERROR": "Check the form",
    "UNKNOWN_PROVIDER": "Unknown photo provider",
    "UNKNOWN_PRESET": "Unknown preset",
    "STOCK_NOT_CONFIGURED": "This photo provider is not available here",
    "PRESET_DESTINATION": "This preset cannot be posted there",
    "INSUFFICIENT_CREDITS": "Not enough credits for these photos; nothing was fetched or charged",
    "RATE_LIMITED": "The photo provider asks Herald to slow down",
    "PROVIDER_ERROR": "The photo provider did not answer properly",
    "SOURCE_FAILED": "None of the photos could be delivered; nothing was charged",
    "SUBSCRIPTION_REQUIRED": "The organization needs a plan",
}
_HOST_NAME = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def preview_origin(url: str) -> str | None:
    """The origin to allow in the page's img-src for a result's preview, or None when the preview
    is not shown: https on a plain host name, or plain http only on the loopback (the embedded
    demo provider), the rule the core fetches photos by (core/stock/fetch.py)."""
    if len(url) > 2048:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname or ""
    if parts.username is not None or parts.password is not None or not _HOST_NAME.fullmatch(host):
        return None
    if parts.scheme == "https" or (parts.scheme == "http" and _loopback(host)):
        return f"{parts.scheme}://{host}" + (f":{port}" if port else "")
    return None


def _https(url: str) -> str:
    return url if url.startswith("https://") else ""


def _result(result: stock_pb2.StockResult, origin: str | None) -> dict[str, Any]:
    credit = None
    if result.HasField("attribution"):
        a = result.attribution
        credit = {
            "photographer": a.photographer,
            "photographer_url": _https(a.photographer_url),
            "source": a.source,
            "source_url": _https(a.source_url),
        }
    ratio = result.height / result.width if result.width > 0 and result.height > 0 else 1.0
    return {
        "source_ref": result.source_ref,
        "preview_url": result.preview_url if origin else "",
        "alt_text": result.alt_text or "A stock photo",
        "width": result.width,
        "height": result.height,
        "preview_height": max(1, min(round(PREVIEW_WIDTH * ratio), 3 * PREVIEW_WIDTH)),
        "attribution": credit,
    }


def _failure(error: ApiError) -> dict[str, Any]:
    valid_for = error.metadata.get("valid_for", "") if error.code == "PRESET_DESTINATION" else ""
    return {
        "code": error.code,
        "heading": PICKER_ERRORS.get(error.code, "That did not work"),
        "message": error.message[:1].upper() + error.message[1:],
        "valid_for": [v for v in valid_for.split(",") if v],
        "retry_after": error.retry_after,
    }


def picker_choices(values: Any, prefix: str = "") -> dict[str, str]:  # request.args or request.form
    """The picker's choices as a form or the page's query sends them: query, provider, preset
    (named with `prefix`: compose's results carry the search they show as `searched_…`),
    destination (the defaults where they are missing)."""

    def value(name: str, limit: int) -> str:
        found = values.get(name) if values is not None else None
        return (found if isinstance(found, str) else "").strip()[:limit]

    return {
        "query": value(f"{prefix}q", 200) or value(f"{prefix}query", 200),
        "provider": value(f"{prefix}provider", 40) or "stock_a",
        "preset": value(f"{prefix}preset", 40) or "square",
        "destination": value("destination", 40),
    }


def kept_search(picker: dict[str, str]) -> dict[str, str]:
    """The search the library's next page keeps (none without a query)."""
    if not picker["query"]:
        return {}
    return {"q": picker["query"], "provider": picker["provider"], "preset": picker["preset"]}


def _count(request: Request, name: str) -> int:
    value = request.args.get(name, "")
    return int(value) if value.isdigit() and len(value) <= 3 else 0


def sourced_notices(request: Request) -> tuple[str | None, str | None]:
    """The outcome of a sourcing, from the redirect's query: numbers and known codes only, so
    nothing a link carries is echoed."""
    if request.args.get("notice") != "sourced":
        return notice(request), None
    delivered, failed = _count(request, "count"), _count(request, "failed")
    flash = (
        f"{delivered} photo{'s' if delivered != 1 else ''} added to the library, ready for a post."
        if delivered
        else notice(request)
    )
    if not failed:
        return flash, None
    codes = sorted({c for c in request.args.get("reasons", "").split(",") if c in FAILURE_CODES})
    partial = (
        f"{failed} photo{'s' if failed != 1 else ''} could not be delivered and "
        f"{'were' if failed != 1 else 'was'} not charged" + (f" ({', '.join(codes)})." if codes else ".")
    )
    return flash, partial


@dataclass(slots=True)
class PickerSection:
    """The picker as a page shows it: `context` for its template (stock_picker.html), the
    previews' `image_origins` for the page's img-src, and the search's refusal when the page
    had no alert of its own (`refused`: the page answers with its status)."""

    context: dict[str, Any]
    image_origins: set[str] = field(default_factory=set)
    refused: ApiError | None = None


async def _context(request: Request, picker: dict[str, str], **shown: Any) -> dict[str, Any]:
    """What the picker's template shows: its fields' choices, and `shown` (results, alert,
    balance, switches) over the empty ones."""
    empty = {"results": [], "checked": frozenset(), "failure": None, "balance": None, "switches": []}
    return {
        "picker": picker,
        "providers": PROVIDERS,
        "presets": PRESETS,
        "destinations": (await request.app.ctx.contract.get()).catalog.connectors,
        **empty,
        **shown,
    }


async def idle_section(request: Request, picker: dict[str, str]) -> PickerSection:
    """The picker before any search (compose's, which asks the core nothing until a search):
    its fields, no results, no balance."""
    return PickerSection(await _context(request, picker))


async def picker_section(
    request: Request,
    viewer: Viewer,
    picker: dict[str, str],
    *,
    failure: ApiError | None = None,
    checked: frozenset[str] = frozenset(),
) -> PickerSection:
    """The picker with its search's results when it has a query; `failure`, when given, is its
    alert (a sourcing or a provider switch refused), else the search's own refusal is."""
    core = request.app.ctx.core
    results: list[dict[str, Any]] = []
    origins: set[str] = set()
    refused = None
    if picker["query"]:
        try:
            found = await core.call(
                core.method(SEARCH),
                stock_pb2.SearchStockRequest(
                    query=picker["query"], preset=picker["preset"], provider=picker["provider"], count=RESULTS_SHOWN
                ),
                authorization=viewer.authorization,
            )
        except ApiError as error:
            if error.code not in PICKER_ERRORS:
                raise
            if failure is None:
                failure = refused = error
        else:
            for result in found.response.results:
                origin = preview_origin(result.preview_url)
                if origin:
                    origins.add(origin)
                results.append(_result(result, origin))

    switches = await core.call(
        core.method(LIST_PROVIDERS), stock_pb2.ListStockProvidersRequest(), authorization=viewer.authorization
    )
    account = await core.call(
        core.credits.GetCreditAccount,
        credits_pb2.GetCreditAccountRequest(recent_entries=0),
        authorization=viewer.authorization,
    )
    context = await _context(
        request,
        picker,
        results=results,
        checked=checked,
        failure=_failure(failure) if failure else None,
        balance=account.response.balance,
        switches=[
            {
                "key": p.provider,
                "name": PROVIDERS.get(p.provider, p.provider),
                "configured": p.configured,
                "enabled": p.enabled,
            }
            for p in switches.response.providers
        ],
    )
    return PickerSection(context, origins, refused)


async def source_picked(request: Request, viewer: Viewer, refs: list[str], picker: dict[str, Any]) -> Any:
    """Sources the picked photos as the picker searched them (SourceMedia: billed per image
    delivered); the core's answer (its `media_ids`), or the ApiError it refused with."""
    core = request.app.ctx.core
    result = await core.call(
        core.method(SOURCE),
        stock_pb2.SourceMediaRequest(
            source_refs=refs,
            preset=picker["preset"],
            destination=picker["destination"],
            provider=picker["provider"],
            query=picker["query"],
        ),
        authorization=viewer.authorization,
    )
    return result.response
