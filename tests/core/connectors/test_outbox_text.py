"""What a post's text becomes on Bluesky and LinkedIn, seen where a customer sees it: a post
created at /v1/posts, delivered by a real `herald worker` to the sandbox, and its outbox read at
GET /v1/posts/{id}/outbox (docs/live-publishing.md, "What Bluesky receives", "What LinkedIn
receives")."""

from __future__ import annotations

import asyncio
import time

import pytest

from harness.fakes.platforms.linkedin import read_little

pytestmark = pytest.mark.one_backend

LINK = "https://en.wikipedia.org/wiki/Rust_(programming_language)#History"
TEXT = f"Grüße 👨‍👩‍👧 #open-source ＃タグ release #v1.2, read {LINK} (#launch) *now* @team"


async def outbox_request(http, org, post_id: str) -> dict:
    """The request that created the post, once the worker delivered it."""
    deadline = time.monotonic() + 20
    while (post := (await http.get(f"/v1/posts/{post_id}", headers=org.auth)).json())["status"] != "published":
        assert time.monotonic() < deadline and post["status"] in ("queued", "publishing"), post
        await asyncio.sleep(0.05)
    (entry,) = (await http.get(f"/v1/posts/{post_id}/outbox", headers=org.auth)).json()["entries"]
    return entry["requests"][-1]


async def test_bluesky_facets_cover_whole_tags_and_full_width_signs(http, orgs, worker) -> None:
    org = await orgs(credits=5)
    await orgs.profile(org, "sky", "bluesky")
    (post,) = (await http.post("/v1/posts", json={"content": TEXT, "profiles": ["sky"]}, headers=org.auth)).json()[
        "posts"
    ]

    request = await outbox_request(http, org, post["id"])

    record = request["json"]["record"]
    assert record["text"] == TEXT
    data = TEXT.encode()
    facets = [
        (data[f["index"]["byteStart"] : f["index"]["byteEnd"]].decode(), f["features"][0]) for f in record["facets"]
    ]
    assert facets == [
        ("#open-source", {"$type": "app.bsky.richtext.facet#tag", "tag": "open-source"}),
        ("＃タグ", {"$type": "app.bsky.richtext.facet#tag", "tag": "タグ"}),
        ("#v1.2", {"$type": "app.bsky.richtext.facet#tag", "tag": "v1.2"}),
        (LINK, {"$type": "app.bsky.richtext.facet#link", "uri": LINK}),
    ]  # "(#launch)": a tag starts only at the start or after a space, as in the app


async def test_linkedin_hashtags_are_templates_and_links_come_out_whole(http, orgs, worker) -> None:
    org = await orgs(credits=5)
    await orgs.profile(org, "li", "linkedin")
    (post,) = (await http.post("/v1/posts", json={"content": TEXT, "profiles": ["li"]}, headers=org.auth)).json()[
        "posts"
    ]

    request = await outbox_request(http, org, post["id"])

    sent = request["json"]["commentary"]
    assert sent == (
        "Grüße 👨‍👩‍👧 {hashtag|\\#|open}-source {hashtag|＃|タグ} release {hashtag|\\#|v1}.2, read "
        "https://en.wikipedia.org/wiki/Rust\\_\\(programming\\_language\\)\\#History "
        "\\({hashtag|\\#|launch}\\) \\*now\\* \\@team"
    )
    # What LinkedIn shows of it: the text as written, the link whole, the hashtags linked.
    assert read_little(sent) == (TEXT, ["open", "タグ", "v1", "launch"])
