"""Standard Webhooks signing (core/webhooks/signing.py), checked with the `standardwebhooks`
package a receiver would use, not with Herald's own code."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from core.webhooks.service import new_secret
from core.webhooks.signing import event_body, signed_headers

pytestmark = pytest.mark.one_backend  # no database in here

DATA = {"id": "pst_1", "status": "published", "content": 'Grüße 👋 "quoted"\n', "platform_url": "https://x.com/a/1"}


def test_a_receiver_verifies_a_delivery_and_reads_the_event() -> None:
    now = datetime.now(UTC)  # receivers refuse timestamps over 5 minutes old
    secret = new_secret()
    body = event_body("post.published", now, DATA)
    headers = signed_headers([secret], "evt_1", now, body)
    event = Webhook(secret).verify(body, headers)
    assert event == {
        "type": "post.published",
        "timestamp": now.isoformat(timespec="milliseconds")[:23] + "Z",
        "data": DATA,
    }
    assert headers["webhook-id"] == "evt_1" and headers["webhook-timestamp"] == str(int(now.timestamp()))


def test_during_a_rotation_both_secrets_verify_and_no_other() -> None:
    now = datetime.now(UTC)
    new, old, stranger = new_secret(), new_secret(), new_secret()
    body = event_body("post.failed", now, DATA)
    headers = signed_headers([new, old], "evt_2", now, body)
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert Webhook(new).verify(body, headers)["type"] == Webhook(old).verify(body, headers)["type"] == "post.failed"
    with pytest.raises(WebhookVerificationError):
        Webhook(stranger).verify(body, headers)


@pytest.mark.parametrize("change", ["body", "id", "timestamp", "old"])
def test_a_changed_or_stale_delivery_does_not_verify(change: str) -> None:
    now = datetime.now(UTC)
    secret = new_secret()
    sent_at = now - timedelta(minutes=10) if change == "old" else now
    body = event_body("media.confirmed", sent_at, {"media_id": "med_1"})
    headers = signed_headers([secret], "evt_3", sent_at, body)
    if change == "body":
        body = json.dumps({**json.loads(body), "data": {"media_id": "med_2"}}).encode()
    elif change == "id":
        headers["webhook-id"] = "evt_4"
    elif change == "timestamp":
        headers["webhook-timestamp"] = str(int(now.timestamp()) + 1)
    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(body, headers)
