"""How dashboard pages are built (docs/dashboard.md, "How a page is built"): every route's handler
is a module-level function of a page module, with a docstring, listed in that module's ROUTES;
the shared paging helper; and a list page refusing its input shows its alert once."""

from __future__ import annotations

import importlib
import inspect
import re

import httpx
import pytest

from facades.app import create_app
from facades.settings import FacadeSettings
from facades.web import dashboard
from facades.web.pages import pager
from tests.facades.test_dashboard_csrf import PASSWORD, form_token

ALERT = re.compile(r'role="alert"')


def _dashboard_routes() -> list[tuple[str, str, object]]:
    """(method, path, handler) of every route the app serves from facades/web, read from its
    router, so a page added later is checked the day it is added."""
    app = create_app(FacadeSettings(), name="dashboard_route_listing")
    routes = []
    for route in app.router.routes:
        handler = inspect.unwrap(route.handler)
        if handler.__module__.startswith("facades.web."):
            routes.extend((method, "/" + route.path.lstrip("/"), handler) for method in route.methods)
    return routes


ROUTES = _dashboard_routes()


def test_every_page_handler_is_a_documented_module_level_function() -> None:
    routes = ROUTES
    assert len(routes) >= 30  # the sign-in pages, the signed-in pages, the connect callback
    for method, path, handler in routes:
        where = f"{method} {path}: {handler.__module__}.{handler.__qualname__}"
        # A closure inside a blueprint factory has "<locals>" in its qualified name.
        assert handler.__qualname__ == handler.__name__, where
        assert inspect.iscoroutinefunction(handler), where
        assert (handler.__doc__ or "").strip(), f"{where} has no docstring"
        module = importlib.import_module(handler.__module__)
        assert getattr(module, handler.__name__) is not None, where


def test_every_route_is_in_its_page_module_routes_table() -> None:
    listed = {
        (route.method, route.path): inspect.unwrap(route.handler)
        for routes in dashboard.PAGE_FAMILIES.values()
        for route in routes
    }
    served = {(method, path): handler for method, path, handler in ROUTES}
    assert served == listed
    for routes in dashboard.PAGE_FAMILIES.values():
        modules = {inspect.unwrap(route.handler).__module__ for route in routes}
        assert len(modules) == 1, modules  # one family, one module


def test_pager_links_to_the_first_and_next_pages_keeping_the_filters() -> None:
    assert pager("/dashboard/credits", "", "") == {"first_page": False, "next_link": None}
    assert pager("/dashboard/credits", "", "t2") == {"first_page": False, "next_link": "/dashboard/credits?page=t2"}
    assert pager("/dashboard/posts", "t2", "t3", status="failed", profile="") == {
        "first_page": True,
        "next_link": "/dashboard/posts?status=failed&page=t3",
    }
    # The core's token and the filters are query values: encoded, never spliced in raw.
    assert (
        pager("/dashboard/media", "", "a&b=c", q="red fox")["next_link"] == "/dashboard/media?q=red+fox&page=a%26b%3Dc"
    )
    # The last page has no next link, whatever the filters.
    assert pager("/dashboard/posts", "t3", "", status="failed") == {"first_page": True, "next_link": None}


@pytest.mark.one_backend
@pytest.mark.parametrize("path", ["/dashboard/posts", "/dashboard/credits", "/dashboard/profiles", "/dashboard/media"])
async def test_a_list_page_refusing_its_page_token_says_so_once(stack, orgs, path: str) -> None:
    org = await orgs()
    async with httpx.AsyncClient(base_url=stack.base_url, timeout=30) as http:
        token = form_token(await http.get("/login"))
        signed_in = await http.post("/login", data={"csrf_token": token, "email": org.email, "password": PASSWORD})
        assert signed_in.status_code == 303
        page = await http.get(path, params={"page": "not-a-page-token"})
    assert page.status_code == 400
    assert page.headers["content-type"].startswith("text/html")
    alerts = ALERT.findall(page.text)
    assert len(alerts) == 1, f"{len(alerts)} alerts on {path}"
