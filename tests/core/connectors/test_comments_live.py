"""First comments live, over HTTP, against the fake YouTube and LinkedIn (harness/fakes/platforms):
the comment each fake made on the post Herald published, the refusals it answers like the
platform, and what an answer lost in flight leaves to `reconcile`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.connectors.base import Account, Delivery, DeliveryError, ErrorClass
from core.connectors.linkedin import LinkedInConnector
from core.connectors.youtube import YouTubeConnector
from core.settings import CoreSettings
from core.storage.local import LocalStorage
from harness.fakes.platforms.linkedin import SCOPES as LINKEDIN_SCOPES
from harness.fakes.platforms.linkedin import FakeLinkedIn
from harness.fakes.platforms.youtube import SCOPES as YOUTUBE_SCOPES
from harness.fakes.platforms.youtube import FakeYouTube
from tests.core.connectors.factories import post, reply_post, video
from tests.core.connectors.live_fakes import Runner

# --- YouTube ---------------------------------------------------------------------------------


def uploaded_video(tmp_path: Path) -> tuple[LocalStorage, bytes]:
    storage = LocalStorage(CoreSettings(data_dir=tmp_path))
    data = os.urandom(3000)
    path = storage.path("org/med_9")
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return storage, data


def youtube(fake: FakeYouTube, scopes: tuple[str, ...] = YOUTUBE_SCOPES) -> tuple[Account, str]:
    channel = fake.channel("@heraldfake")
    token = fake.grant_access(channel.id, scopes, lifetime=fake.access_token_lifetime)
    return Account("acme-yt", handle=channel.custom_url, platform_user_id=channel.id), token


async def test_youtube_comments_on_the_uploaded_video(tmp_path: Path) -> None:
    storage, data = uploaded_video(tmp_path)
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        overrides = {"www.googleapis.com": fake.base_url}
        async with Runner(YouTubeConnector(), token, overrides, storage=storage) as run:
            upload = post("youtube", "the video", media=(video(size_bytes=len(data)),), title="Launch", account=account)
            main = await run.deliver(upload)
            comment = reply_post(main, main, "youtube", "Chapters:\n0:00 intro", "dk_comment", account=account)
            delivery = await run.deliver(comment, comment=True)
            (made,) = fake.comments_on(main.platform_post_id)
            assert (made.id, made.text, made.author_channel_id) == (
                delivery.platform_post_id,
                comment.content,
                account.platform_user_id,
            )
            assert delivery.url == f"https://www.youtube.com/watch?v={main.platform_post_id}&lc={made.id}"
            gone = Delivery("nosuchvideo", "")
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(gone, gone, "youtube", "hi", "dk_gone", account=account), comment=True)
            assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 404)
            assert "videoId parameter could not be found" in str(caught.value)


async def test_youtube_refuses_a_comment_without_force_ssl(tmp_path: Path) -> None:
    storage, data = uploaded_video(tmp_path)
    with FakeYouTube() as fake:
        account, token = youtube(fake, YOUTUBE_SCOPES[:2])
        async with Runner(YouTubeConnector(), token, {"www.googleapis.com": fake.base_url}, storage=storage) as run:
            main = await run.deliver(post("youtube", "v", media=(video(size_bytes=len(data)),), account=account))
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(main, main, "youtube", "hi", "dk_c", account=account), comment=True)
    assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 403)
    assert not fake.comment_threads


async def test_a_youtube_comment_whose_answer_was_lost_is_found_not_sent_again(tmp_path: Path) -> None:
    storage, data = uploaded_video(tmp_path)
    with FakeYouTube() as fake:
        account, token = youtube(fake)
        overrides = {"www.googleapis.com": fake.base_url}
        async with Runner(YouTubeConnector(), token, overrides, storage=storage, timeout=0.5) as run:
            main = await run.deliver(post("youtube", "v", media=(video(size_bytes=len(data)),), account=account))
            fake.hang_after_receive("POST", r"/youtube/v3/commentThreads", seconds=3)
            comment = reply_post(main, main, "youtube", "first!", "dk_comment", account=account)
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(comment, comment=True)
            assert caught.value.error_class is ErrorClass.UNCERTAIN
            found = await run.deliver(comment, comment=True)
        (made,) = fake.comments_on(main.platform_post_id)
        assert found.platform_post_id == made.id
        assert [r["method"] for r in run.requests["dk_comment"]] == ["GET"]


# --- LinkedIn --------------------------------------------------------------------------------


def linkedin(fake: FakeLinkedIn) -> tuple[Account, str]:
    member = fake.member("Herald Fake")
    token = fake.grant_access(member.sub, LINKEDIN_SCOPES, lifetime=3600)
    return Account("acme-li", handle=member.name, platform_user_id=member.sub), token


async def test_linkedin_comments_on_the_post_as_its_author() -> None:
    with FakeLinkedIn() as fake:
        account, token = linkedin(fake)
        overrides = {"api.linkedin.com": fake.base_url, "www.linkedin.com": fake.base_url}
        async with Runner(LinkedInConnector(), token, overrides) as run:
            main = await run.deliver(post("linkedin", "News (today)", delivery_key="dk_main", account=account))
            comment = reply_post(main, main, "linkedin", "Details: https://example.com (more)", "dk_c", account=account)
            delivery = await run.deliver(comment, comment=True)
            (made,) = fake.comments_on(main.platform_post_id)
            assert made.text == comment.content  # a comment is no "little text": nothing escaped, nothing cut
            assert (made.actor, delivery.platform_post_id) == (f"urn:li:person:{account.platform_user_id}", made.urn)
            assert delivery.url.startswith(f"https://www.linkedin.com/feed/update/{main.platform_post_id}/?commentUrn=")
            gone = Delivery("urn:li:share:1", "")
            with pytest.raises(DeliveryError) as caught:
                await run.deliver(reply_post(gone, gone, "linkedin", "hi", "dk_gone", account=account), comment=True)
            assert (caught.value.error_class, caught.value.status) == (ErrorClass.PERMANENT, 404)
            # LinkedIn lists comments only with r_member_social, which Herald is not granted.
            listed = await run.client.get(
                f"https://api.linkedin.com/rest/socialActions/{main.platform_post_id}/comments",
                headers={
                    "Authorization": f"Bearer {token}",
                    "LinkedIn-Version": "202607",
                    "X-Restli-Protocol-Version": "2.0.0",
                },
            )
            assert listed.status_code == 403


async def test_a_linkedin_comment_whose_answer_was_lost_needs_a_human() -> None:
    with FakeLinkedIn() as fake:
        account, token = linkedin(fake)
        overrides = {"api.linkedin.com": fake.base_url, "www.linkedin.com": fake.base_url}
        async with Runner(LinkedInConnector(), token, overrides, timeout=0.5) as run:
            main = await run.deliver(post("linkedin", "News", delivery_key="dk_main", account=account))
            fake.hang_after_receive("POST", r"/rest/socialActions/.+/comments", seconds=3)
            comment = reply_post(main, main, "linkedin", "more", "dk_c", account=account)
            for _ in range(2):  # the lost answer, then the attempt that cannot tell
                with pytest.raises(DeliveryError) as caught:
                    await run.deliver(comment, comment=True)
                assert caught.value.error_class is ErrorClass.UNCERTAIN
        assert len(fake.comments_on(main.platform_post_id)) == 1
