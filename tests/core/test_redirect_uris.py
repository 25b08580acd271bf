"""The redirect URI rules (core/oauth/clients.py, docs/oauth.md "Redirect URIs"): what registration
accepts, and which requested URI matches a registered one. A loopback URI matches on any port
(RFC 8252 7.3) and nothing else may differ; every other URI matches only as the same string.
Every URI whose authority is more than a host and a port is refused, whichever side it is on."""

from __future__ import annotations

import pytest

from core.oauth.clients import check_redirect_uri, redirect_uri_matches
from core.oauth.errors import InvalidRedirectUri

pytestmark = pytest.mark.one_backend  # no database in here

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")

# Requested URIs that must never match http://{host}/callback, with {host} one of LOOPBACK.
REFUSED_FOR_LOOPBACK = (
    # userinfo, in every position, raw or escaped
    "http://{host}:80@evil.example/callback",
    "http://{host}@evil.example/callback",
    "http://{host}:@evil.example/callback",
    "http://user@{host}/callback",
    "http://user:pw@{host}/callback",
    "http://:@{host}/callback",
    "http://@{host}/callback",
    "http://evil.example@{host}/callback",
    "http://evil.example:80@{host}/callback",
    "http://{host}%40evil.example/callback",
    "http://{host}:80%40evil.example/callback",
    "http://evil.example%40{host}/callback",
    # backslashes (browsers read them as slashes, urllib does not)
    "http://{host}\\@evil.example/callback",
    "http://evil.example\\@{host}/callback",
    "http://{host}\\callback",
    "http://{host}/callback\\..\\evil",
    # other hosts that start or end like a loopback one
    "http://{host}.evil.example/callback",
    "http://{host}./callback",
    "http://evil.example/callback",
    "http://evil.{host}/callback",
    # IPv6 zone ids, escaped or not
    "http://[::1%25lo]/callback",
    "http://[::1%lo]:80/callback",
    "http://[fe80::1%25{host}]/callback",
    # the path and the query exactly as registered: no decoding, nothing added
    "http://{host}/%63allback",
    "http://{host}/callback/",
    "http://{host}/callback/..",
    "http://{host}/callback%2F..%2Fevil",
    "http://{host}/Callback",
    "http://{host}/callback?next=https://evil.example",
    "http://{host}/callback?",
    "http://{host}:5000",
    # fragments, scheme, shape
    "http://{host}/callback#evil",
    "http://{host}/callback#",
    "https://{host}/callback",
    "HTTP://{host}/callback",
    "http:/{host}/callback",
    "http:{host}/callback",
    "//{host}/callback",
    "{host}/callback",
    "javascript://{host}/callback",
    # ports: malformed, out of range, empty, repeated
    "http://{host}:/callback",
    "http://{host}:65536/callback",
    "http://{host}:+80/callback",
    "http://{host}:8 0/callback",
    "http://{host}:80:80/callback",
    "http://{host}:0x50/callback",
    # spaces and control characters anywhere (urllib drops some of them silently)
    "http://{host}/callback ",
    " http://{host}/callback",
    "http://{host}\t/callback",
    "http://{host}/call\nback",
    "http://{host}\r\n.evil.example/callback",
    "http://{host}/callback\x00",
    "http://{host}/callback\x7f",
    "http://{host}\u3000/callback",
)

# Requested URIs that match http://{host}/callback: the port alone may differ.
MATCHING_LOOPBACK = (
    "http://{host}/callback",
    "http://{host}:51234/callback",
    "http://{host}:80/callback",  # the default port, spelled out
    "http://{host}:1/callback",
)


def _cases(templates: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(host, template.format(host=host)) for host in LOOPBACK for template in templates]


@pytest.mark.parametrize(("host", "requested"), _cases(REFUSED_FOR_LOOPBACK))
def test_loopback_redirect_uris_refused(host: str, requested: str) -> None:
    assert not redirect_uri_matches(f"http://{host}/callback", requested)
    assert not redirect_uri_matches(f"http://{host}/callback", requested.replace("/callback", "/"))


@pytest.mark.parametrize(("host", "requested"), _cases(MATCHING_LOOPBACK))
def test_loopback_redirect_uris_matching_on_any_port(host: str, requested: str) -> None:
    assert redirect_uri_matches(f"http://{host}/callback", requested)
    assert redirect_uri_matches(f"http://{host}:43210/callback?client=1", requested.replace("k", "k?client=1", 1))


@pytest.mark.parametrize(
    ("registered", "requested", "matches"),
    [
        ("http://localhost/callback", "http://LOCALHOST:5000/callback", True),  # hosts compare lowercased
        ("http://localhost/callback", "http://LocalHost/callback", True),
        ("http://localhost/callback", "http://localhost./callback", False),  # a trailing dot is another host
        ("http://localhost/callback", "http://127.0.0.1/callback", False),  # loopback hosts are not each other
        ("http://127.0.0.1/callback", "http://[::1]/callback", False),
        ("http://[::1]/callback", "http://[0:0:0:0:0:0:0:1]/callback", False),
        ("http://127.0.0.1/callback", "http://127.1/callback", False),
        ("http://127.0.0.1/callback", "http://2130706433/callback", False),
        ("http://127.0.0.1/callback", "http://0x7f.0.0.1/callback", False),
        ("http://127.0.0.1/callback", "http://127.0.0.1:0080/callback", True),  # port 80 either way
        ("http://127.0.0.1:8080/callback", "http://127.0.0.1:9090/callback", True),
        # Anything else: the same string or nothing.
        ("https://agent.example/cb", "https://agent.example/cb", True),
        ("https://agent.example/cb", "https://agent.example:443/cb", False),
        ("https://agent.example:8443/cb", "https://agent.example:8444/cb", False),
        ("https://agent.example/cb", "https://AGENT.example/cb", False),
        ("https://agent.example/cb", "https://agent.example./cb", False),
        ("https://agent.example/cb", "https://agent.example/cb?x=1", False),
        ("https://agent.example/cb", "https://agent.example/cb/", False),
        ("https://agent.example/cb", "https://agent.example@evil.example/cb", False),
        ("https://agent.example/cb", "https://evil.example\\@agent.example/cb", False),
        ("https://agent.example/cb", "http://agent.example/cb", False),
        ("https://agent.example/cb?a=1", "https://agent.example/cb?a=1", True),
        # A registered URI that breaks the rules (a row kept from before them) matches nothing,
        # not even itself.
        ("http://127.0.0.1:80@evil.example/callback", "http://127.0.0.1:80@evil.example/callback", False),
        ("https://user@agent.example/cb", "https://user@agent.example/cb", False),
        ("http://agent.example/cb", "http://agent.example/cb", False),
    ],
)
def test_redirect_uri_matching(registered: str, requested: str, matches: bool) -> None:
    assert redirect_uri_matches(registered, requested) is matches


@pytest.mark.parametrize(
    "uri",
    [
        "https://agent.example/cb",
        "https://agent.example:8443/oauth/cb?app=1",
        "https://sub_domain.agent.example/cb",
        "https://127.0.0.1/cb",
        "https://[2001:db8::1]/cb",
        "http://127.0.0.1/cb",
        "http://127.0.0.1:8765/cb",
        "http://[::1]:9/cb",
        "http://localhost:3000/callback",
        "http://LOCALHOST/callback",
        "http://localhost/caf%C3%A9",
        "http://localhost/cb@elsewhere",  # an @ in the path is part of the path
    ],
)
def test_registration_accepts(uri: str) -> None:
    check_redirect_uri(uri)


@pytest.mark.parametrize(
    "uri",
    [
        template.format(host=host)
        for host in LOOPBACK
        for template in REFUSED_FOR_LOOPBACK
        # These are well-formed URIs: refused only as a request for another registered one.
        if not template.startswith(("http://{host}/", "http://{host}:5000", "https://{host}/", "http://evil.{host}/"))
        and template != "http://evil.example/callback"
    ]
    + [
        "http://{host}/callback ".format(host="127.0.0.1"),
        "http://{host}/callback#evil".format(host="localhost"),
        "http://agent.example/cb",  # http off loopback
        "http://127.0.0.1.nip.io/cb",
        "http://localhost./cb",
        "https://agent.example/cb#frag",
        "https://user:pw@agent.example/cb",
        "https://agent.example%2Fevil.example/cb",
        "https://bücher.example/cb",  # hosts in ASCII (IDNA) only
        "https://[evil.example]/cb",
        "https:///cb",
        "https://:443/cb",
        "com.example.app:/cb",
        "https://agent.example/" + "a" * 2000,
    ],
)
def test_registration_refuses(uri: str) -> None:
    with pytest.raises(InvalidRedirectUri) as error:
        check_redirect_uri(uri)
    assert error.value.reason == "invalid_redirect_uri"
