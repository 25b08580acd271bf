"""Webhook endpoints through /v1 (issue 17, first slice): register, list, change, delete, rotate
the secret, the event catalogue; every field validated, other organizations' ids unknown, the
secret shown on registration and rotation only and stored sealed."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from core.db.models import webhooks
from tests.messages import names

RECEIVER = "https://hooks.example.com/herald"


async def create(http, org, **body):
    return await http.post("/v1/webhooks", json={"url": RECEIVER, "events": ["*"], **body}, headers=org.auth)


def parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


async def test_an_endpoint_is_registered_read_changed_and_deleted(http, orgs, engine) -> None:
    org = await orgs()
    made = await create(http, org, events=["post.published", "post.failed"], description="ops")
    assert made.status_code == 201, made.text
    body = made.json()
    assert body["id"].startswith("whk_") and body["url"] == RECEIVER
    assert body["events"] == ["post.failed", "post.published"]  # sorted
    assert (body["description"], body["enabled"], body["disabled_reason"]) == ("ops", True, "")
    assert body["secret"].startswith("whsec_") and len(base64.b64decode(body["secret"][6:])) == 32
    read = (await http.get(f"/v1/webhooks/{body['id']}", headers=org.auth)).json()
    assert "secret" not in read and read == {k: v for k, v in body.items() if k != "secret"}
    async with engine.connect() as conn:  # stored sealed: the secret's text is nowhere in the row
        row = (await conn.execute(select(webhooks).where(webhooks.c.id == body["id"]))).one()
    assert body["secret"][6:] not in " ".join(str(v) for v in row) and row.secret_sealed.startswith("v1.")

    changed = await http.patch(
        f"/v1/webhooks/{body['id']}",
        json={"url": RECEIVER + "/v2", "events": ["media.confirmed"], "enabled": False},
        headers=org.auth,
    )
    assert changed.status_code == 200, changed.text
    assert (changed.json()["url"], changed.json()["events"], changed.json()["enabled"]) == (
        RECEIVER + "/v2",
        ["media.confirmed"],
        False,
    )
    assert changed.json()["description"] == "ops"  # not sent: kept
    gone = await http.delete(f"/v1/webhooks/{body['id']}", headers=org.auth)
    assert (gone.status_code, gone.json()["id"], gone.json()["url"]) == (200, body["id"], RECEIVER + "/v2")
    missing = await http.get(f"/v1/webhooks/{body['id']}", headers=org.auth)
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")


async def test_the_list_is_newest_first_paged_and_without_secrets(http, orgs) -> None:
    org = await orgs()
    ids = [(await create(http, org, description=f"n{i}")).json()["id"] for i in range(5)]
    first = (await http.get("/v1/webhooks", params={"page_size": 3}, headers=org.auth)).json()
    rest = (await http.get("/v1/webhooks", params={"page_token": first["next_page_token"]}, headers=org.auth)).json()
    assert [w["id"] for w in first["webhooks"] + rest["webhooks"]] == ids[::-1]
    assert "next_page_token" not in rest
    assert not any("secret" in w for w in first["webhooks"] + rest["webhooks"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "/relative"}, "url"),
        ({"url": "ftp://example.com/x"}, "url"),
        ({"url": "https://user:pw@example.com/x"}, "url"),
        ({"url": "https://example.com/" + "a" * 2000}, "url"),
        ({"url": "https://exa mple.com/x"}, "url"),
        ({"url": "https:///nohost"}, "url"),
        ({"url": "https://example.com:99999/x"}, "url"),
        ({"events": []}, "events"),
        ({"events": ["post.exploded"]}, "events"),
        ({"events": ["*", "post.created"]}, "events"),
        ({"events": "post.created"}, "events"),
        ({"description": "d" * 501}, "description"),
        ({"secret": "whsec_mine"}, "secret"),
    ],
)
async def test_bad_input_is_refused_naming_the_field_and_nothing_is_made(http, orgs, body, field) -> None:
    org = await orgs()
    refused = await create(http, org, **body)
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), refused.text
    assert names(refused.json(), field)
    assert (await http.get("/v1/webhooks", headers=org.auth)).json()["webhooks"] == []


async def test_an_update_is_validated_like_a_registration(http, orgs) -> None:
    org = await orgs()
    made = (await create(http, org)).json()
    for body in ({"url": "javascript:alert(1)"}, {"events": []}, {"id": "whk_x"}, {"secret": "whsec_x"}):
        refused = await http.patch(f"/v1/webhooks/{made['id']}", json=body, headers=org.auth)
        assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR"), (body, refused.text)
    kept = (await http.get(f"/v1/webhooks/{made['id']}", headers=org.auth)).json()
    assert (kept["url"], kept["events"]) == (RECEIVER, ["*"])


async def test_twenty_endpoints_at_most(http, orgs) -> None:
    org = await orgs()
    for i in range(20):
        assert (await create(http, org, description=str(i))).status_code == 201
    refused = await create(http, org)
    assert (refused.status_code, refused.json()["code"]) == (400, "VALIDATION_ERROR")
    assert names(refused.json(), "20")  # the limit (docs/webhooks.md)
    assert len((await http.get("/v1/webhooks", params={"page_size": 100}, headers=org.auth)).json()["webhooks"]) == 20


async def test_another_organizations_endpoint_is_not_found_on_every_route(http, orgs) -> None:
    mine, theirs = await orgs(), await orgs()
    made = (await create(http, theirs)).json()
    path = f"/v1/webhooks/{made['id']}"
    answers = [
        await http.get(path, headers=mine.auth),
        await http.patch(path, json={"enabled": False}, headers=mine.auth),
        await http.delete(path, headers=mine.auth),
        await http.post(f"{path}/rotate-secret", headers=mine.auth),
    ]
    assert [(a.status_code, a.json()["code"]) for a in answers] == [(404, "NOT_FOUND")] * 4
    assert (await http.get("/v1/webhooks", headers=mine.auth)).json()["webhooks"] == []
    still = (await http.get(path, headers=theirs.auth)).json()
    assert still["enabled"] is True


async def test_rotation_answers_a_new_secret_and_keeps_the_old_one_for_a_day(http, orgs, engine) -> None:
    org = await orgs()
    made = (await create(http, org)).json()
    before = datetime.now(UTC)
    rotated = await http.post(f"/v1/webhooks/{made['id']}/rotate-secret", headers=org.auth)
    assert rotated.status_code == 200, rotated.text
    secret = rotated.json()["secret"]
    assert secret.startswith("whsec_") and secret != made["secret"]
    until = parse(rotated.json()["previous_valid_until"])
    assert before + timedelta(hours=24) - timedelta(seconds=5) <= until <= datetime.now(UTC) + timedelta(hours=24)
    async with engine.connect() as conn:
        row = (await conn.execute(select(webhooks).where(webhooks.c.id == made["id"]))).one()
    assert row.previous_secret_sealed.startswith("v1.") and row.previous_secret_sealed != row.secret_sealed
    assert "secret" not in (await http.get(f"/v1/webhooks/{made['id']}", headers=org.auth)).json()


async def test_the_event_catalogue_lists_every_type_with_its_description(http, orgs) -> None:
    org = await orgs()
    answer = await http.get("/v1/webhook-events", headers=org.auth)
    assert answer.status_code == 200, answer.text
    types = {e["type"]: e["description"] for e in answer.json()["event_types"]}
    for expected in (
        "post.created",
        "post.published",
        "post.failed",
        "post.canceled",
        "media.confirmed",
        "webhook.test",
    ):
        assert types.get(expected), expected
    made = await create(http, org, events=sorted(types))
    assert made.status_code == 201 and made.json()["events"] == sorted(types)
