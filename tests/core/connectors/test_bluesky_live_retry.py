"""A Bluesky attempt that never reached the PDS dates nothing: live, against a real PDS
(harness/fakes/pds.py), the first attempt's connection is refused before createRecord is sent, the
next one writes the record under the key the first chose and with its own time
(docs/live-publishing.md, "What Bluesky receives"). Skipped where the PDS is not installed
(scripts/ensure_pds.sh; `make test` runs it)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from core.connectors.base import Account, DeliveryError, ErrorClass
from core.connectors.bluesky import BlueskyConnector
from harness.fakes.pds import LivePDS, pds_missing
from harness.stack import free_port
from tests.core.connectors.factories import post
from tests.core.connectors.live_fakes import Runner

pytestmark = pytest.mark.skipif(pds_missing() is not None, reason=pds_missing() or "")


@pytest.fixture(scope="module")
def pds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePDS]:
    with LivePDS(tmp_path_factory.mktemp("pds")) as server:
        yield server


def created_at(request: dict) -> datetime:
    return datetime.fromisoformat(request["json"]["record"]["createdAt"].replace("Z", "+00:00"))


async def test_an_attempt_that_could_not_connect_gives_the_record_its_key_not_its_time(pds: LivePDS) -> None:
    alice = pds.create_account("carol.test")
    account = Account("acme-bsky", handle=alice.handle, platform_user_id=alice.did, instance_url=pds.url)
    p = post("bluesky", "the first attempt never got through", delivery_key="dk_cut", account=account)
    nowhere = {"localhost": f"http://127.0.0.1:{free_port()}"}  # the PDS's host, sent where nothing listens
    async with Runner(BlueskyConnector(), alice.access_jwt, nowhere) as cut:
        with pytest.raises(DeliveryError) as caught:
            await cut.deliver(p)
    assert caught.value.error_class is ErrorClass.RETRYABLE
    state = cut.state["dk_cut"]
    assert "create_sent_at" not in state  # nothing was sent: no lookup is needed
    (refused,) = cut.requests["dk_cut"]
    await asyncio.sleep(1.5)  # the retry's backoff

    started = datetime.now(UTC)
    async with Runner(BlueskyConnector(), alice.access_jwt) as run:
        run.state["dk_cut"] = state
        delivery = await run.deliver(p)
    (sent,) = run.requests["dk_cut"]

    assert sent["json"]["rkey"] == refused["json"]["rkey"] == state["record_key"]
    assert created_at(sent) >= started - timedelta(milliseconds=1)
    assert created_at(refused) < started - timedelta(seconds=1)
    record = pds.get_record(alice.did, state["record_key"])
    assert (record["uri"], record["cid"]) == (delivery.platform_post_id, delivery.cid)
    assert record["value"] == sent["json"]["record"]
