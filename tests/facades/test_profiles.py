"""GET /v1/profiles: shape, tag filter, pagination and organization isolation."""

from __future__ import annotations

import re

TIMESTAMP_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


async def test_lists_profiles_in_slug_order_with_their_tags(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "zeta-li", "linkedin", ("Work",))
    await orgs.profile(org, "alpha-x", "x", ("launch", "eu"))
    response = await http.get("/v1/profiles", headers=org.auth)
    assert response.status_code == 200
    body = response.json()
    assert [p["slug"] for p in body["profiles"]] == ["alpha-x", "zeta-li"]
    alpha = body["profiles"][0]
    assert alpha["connector"] == "x"
    assert alpha["tags"] == ["eu", "launch"]
    assert alpha["display_name"] == "alpha-x"
    assert alpha["id"].startswith("prf_")
    assert TIMESTAMP_MS.match(alpha["created_at"])
    assert body["profiles"][1]["tags"] == ["work"]
    assert "next_page_token" not in body


async def test_tag_filter(http, orgs) -> None:
    org = await orgs()
    await orgs.profile(org, "a", "x", ("launch",))
    await orgs.profile(org, "b", "bluesky", ("launch", "eu"))
    await orgs.profile(org, "c", "mastodon", ("eu",))
    launch = (await http.get("/v1/profiles", params={"tag": "launch"}, headers=org.auth)).json()
    assert [p["slug"] for p in launch["profiles"]] == ["a", "b"]
    # Tags are case-insensitive and each profile still shows all of its tags.
    eu = (await http.get("/v1/profiles", params={"tag": "EU"}, headers=org.auth)).json()
    assert [(p["slug"], p["tags"]) for p in eu["profiles"]] == [("b", ["eu", "launch"]), ("c", ["eu"])]
    none = (await http.get("/v1/profiles", params={"tag": "unused"}, headers=org.auth)).json()
    assert none["profiles"] == []


async def test_malformed_tag_is_a_validation_error(http, orgs) -> None:
    org = await orgs()
    response = await http.get("/v1/profiles", params={"tag": "no spaces!"}, headers=org.auth)
    assert response.status_code == 400
    assert response.json()["code"] == "VALIDATION_ERROR"


async def test_pagination_walks_every_profile_once(http, orgs) -> None:
    org = await orgs()
    slugs = [f"p{i:02d}" for i in range(7)]
    for slug in slugs:
        await orgs.profile(org, slug)
    seen, token, pages = [], None, 0
    while True:
        params = {"page_size": "3", **({"page_token": token} if token else {})}
        body = (await http.get("/v1/profiles", params=params, headers=org.auth)).json()
        seen += [p["slug"] for p in body["profiles"]]
        pages += 1
        token = body.get("next_page_token")
        if not token:
            break
    assert seen == slugs
    assert pages == 3


async def test_bad_paging_parameters_are_validation_errors(http, orgs) -> None:
    org = await orgs()
    for params in (
        {"page_size": "501"},
        {"page_size": "-1"},
        {"page_size": "1e3"},
        {"page_size": "99999999999"},
        {"page_token": "not-a-token"},
        {"page_token": "eyJ4IjogMX0"},
    ):
        response = await http.get("/v1/profiles", params=params, headers=org.auth)
        assert response.status_code == 400, params
        assert response.json()["code"] == "VALIDATION_ERROR", params


async def test_get_one_profile_and_not_found(http, orgs) -> None:
    org = await orgs()
    created = await orgs.profile(org, "acme-bsky", "bluesky", ("b",))
    response = await http.get("/v1/profiles/acme-bsky", headers=org.auth)
    assert response.status_code == 200
    assert response.json() == created
    for slug in ("nope", "x" * 5000, "%00", "%C3%BC", "UPPER"):
        missing = await http.get(f"/v1/profiles/{slug}", headers=org.auth)
        assert missing.status_code == 404, slug
        assert missing.json()["code"] == "NOT_FOUND"


async def test_an_organization_never_sees_another_organizations_profiles(http, orgs) -> None:
    a, b = await orgs(), await orgs()
    await orgs.profile(a, "shared-slug", "x", ("team",))
    await orgs.profile(a, "only-a", "x", ("team",))
    await orgs.profile(b, "shared-slug", "threads", ("team",))
    seen_by_b = (await http.get("/v1/profiles", headers=b.auth)).json()["profiles"]
    assert [(p["slug"], p["connector"]) for p in seen_by_b] == [("shared-slug", "threads")]
    tagged = (await http.get("/v1/profiles", params={"tag": "team"}, headers=b.auth)).json()["profiles"]
    assert [p["connector"] for p in tagged] == ["threads"]
    assert (await http.get("/v1/profiles/only-a", headers=b.auth)).status_code == 404
    # A page token minted for A gives B nothing of A's.
    token = (await http.get("/v1/profiles", params={"page_size": "1"}, headers=a.auth)).json()["next_page_token"]
    page = (await http.get("/v1/profiles", params={"page_token": token}, headers=b.auth)).json()["profiles"]
    assert all(p["connector"] == "threads" for p in page)


async def test_unknown_v1_route_and_method(http, orgs) -> None:
    org = await orgs()
    missing = await http.get("/v1/nothing-here", headers=org.auth)
    assert missing.status_code == 404
    assert missing.json()["code"] == "NOT_FOUND"
    wrong = await http.delete("/v1/profiles", headers=org.auth)
    assert wrong.status_code == 405
    assert wrong.json()["code"] == "METHOD_NOT_ALLOWED"
