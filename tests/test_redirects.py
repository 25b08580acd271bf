"""The one rule for where a browser may be sent back to (contract/redirects.py): sign-in's `next`
and a connection's `return_to`. Over HTTP: tests/facades/test_connections.py."""

from __future__ import annotations

import pytest

from contract.redirects import MAX_TARGET, app_url, local_path


@pytest.mark.parametrize(
    "target",
    ["/", "/dashboard", "/dashboard/profiles?notice=x#top", "/%2F%2Fhost", "/a/../b", "/" + "a" * (MAX_TARGET - 1)],
)
def test_paths_of_this_site(target: str) -> None:
    assert local_path(target) == target
    assert app_url(target) is None


@pytest.mark.parametrize(
    "target",
    [
        None,
        "",
        "//host",
        "///host",
        "/\\host",
        "/a\\b",
        "/\t/host",
        "/\n/host",
        "/\r/host",
        "/\x0b/host",
        "/\x7f",
        "/\x85/host",  # a C1 control character
        "/\u200b/host",  # invisible
        "/\u3000/host",  # a space
        "/a b",
        "\t/host",
        " /x",
        "host",
        "%2F%2Fhost",
        "https://host/",
        "/" + "a" * MAX_TARGET,
    ],
)
def test_not_a_path_of_this_site(target: str | None) -> None:
    assert local_path(target) is None


@pytest.mark.parametrize(
    "target",
    ["https://app.example/", "https://app.example:8443/done?x=1#y", "http://127.0.0.1:9/back", "HTTPS://App.Example/x"],
)
def test_application_urls(target: str) -> None:
    assert app_url(target) == target
    assert local_path(target) is None


@pytest.mark.parametrize(
    "target",
    [
        None,
        "",
        "javascript:alert(1)",
        "data:text/html,x",
        "ftp://app.example/",
        "https:app.example",
        "https:/app.example",
        "https:/\\app.example",
        "https:\\\\app.example",
        "https:///app.example",
        "https://",
        "https://user@app.example/",
        "https://user:pw@app.example/",
        "https://evil.example\\@app.example/",
        "https://app.example:port/",
        "https://app.example/a\tb",
        "https://app.example/\n",
        "https://app.example/" + "a" * MAX_TARGET,
    ],
)
def test_not_an_application_url(target: str | None) -> None:
    assert app_url(target) is None
