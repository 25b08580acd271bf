"""A Bluesky thread and first comment live, against a real PDS (harness/fakes/pds.py: `@atproto/pds`,
which validates every record against the lexicon): each reply record names its root and parent
by strong refs, the cids Herald kept are the records' own, and `reconcile` finds a record with
its cid. Skipped where the PDS is not installed (scripts/ensure_pds.sh; `make test` runs it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.connectors.base import Account
from core.connectors.bluesky import BlueskyConnector
from harness.fakes.pds import LivePDS, pds_missing
from tests.core.connectors.factories import post, reply_post
from tests.core.connectors.live_fakes import Runner

pytestmark = pytest.mark.skipif(pds_missing() is not None, reason=pds_missing() or "")


@pytest.fixture(scope="module")
def pds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LivePDS]:
    with LivePDS(tmp_path_factory.mktemp("pds")) as server:
        yield server


async def test_a_thread_and_its_first_comment_are_reply_records_with_strong_refs(pds: LivePDS) -> None:
    alice = pds.create_account("alice.test")
    account = Account("acme-bsky", handle=alice.handle, platform_user_id=alice.did, instance_url=pds.url)
    async with Runner(BlueskyConnector(), alice.access_jwt) as run:
        main = await run.deliver(post("bluesky", "the main post", delivery_key="dk_main", account=account))
        chain = [main]
        for n in range(3):
            chain.append(
                await run.deliver(reply_post(chain[-1], main, "bluesky", f"part {n + 1}", f"dk_{n}", account=account))
            )
        comment = reply_post(chain[-1], main, "bluesky", "the first comment", "dk_comment", account=account)
        chain.append(await run.deliver(comment, comment=True))
        records = [pds.get_record(alice.did, d.platform_post_id.rsplit("/", 1)[-1]) for d in chain]
        assert [(r["uri"], r["cid"]) for r in records] == [(d.platform_post_id, d.cid) for d in chain]
        assert "reply" not in records[0]["value"]
        for before, record in zip(chain, records[1:], strict=False):
            assert record["value"]["reply"] == {
                "root": {"uri": main.platform_post_id, "cid": main.cid},
                "parent": {"uri": before.platform_post_id, "cid": before.cid},
            }
        assert records[-1]["value"]["text"] == "the first comment"
        # An attempt after a lost answer finds the record by its key, with its cid.
        assert "create_sent_at" in run.state["dk_1"]
        again = await run.deliver(reply_post(chain[1], main, "bluesky", "part 2", "dk_1", account=account))
        assert again == chain[2]
        assert [r["method"] for r in run.requests["dk_1"]] == ["GET"]
    assert len(pds.list_records(alice.did)) == 5
