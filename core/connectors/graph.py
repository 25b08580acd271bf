"""Meta's Graph container flow, shared by Threads and Instagram (docs/platforms.md, "Threads" and
"Instagram")."""

from __future__ import annotations

from abc import abstractmethod
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from core.connectors.base import (
    Connector,
    Delivery,
    DeliveryError,
    ErrorClass,
    OutgoingMedia,
    OutgoingPost,
    PlatformAPI,
    PlatformRequest,
    PlatformResponse,
    SandboxIds,
)
from core.connectors.common import (
    dig,
    graph_classify,
    ok,
    poll,
    remember_upload,
    required,
    same_text,
    sent_at,
    uploaded,
)

FINISHED, PUBLISHED, EXPIRED, ERROR = "FINISHED", "PUBLISHED", "EXPIRED", "ERROR"
# How long before the publish request the account's posts are searched from.
LOOKUP_MARGIN = timedelta(minutes=2)
CHILDREN = "containers"  # state: our media id -> its carousel item container


class GraphConnector(Connector):
    """A post is a container the platform fills by fetching our media from `media.url`: one per
    item and a CAROUSEL container holding them when there are several. Once its status is
    FINISHED, publishing it (the one request that creates the post) answers the post id.

    Containers are saved as they are made, so a later attempt polls or publishes the same one. An
    attempt that may have published asks the saved container: PUBLISHED means the post is out (it
    is found in the account's recent posts by its text); FINISHED means publishing again is safe;
    ERROR or EXPIRED means it is made again. A container that expires while polled (after 24 h)
    is made again too."""

    api: ClassVar[str]  # the Graph host and version
    web_host: ClassVar[str]  # the platform's public web host (a post's URL when its permalink is unknown)
    create_edge: ClassVar[str]  # POST /{user}/<edge> makes a container; GET lists the posts
    publish_edge: ClassVar[str]
    status_field: ClassVar[str]  # the container's status field
    message_field: ClassVar[str]  # where the container says why it failed
    text_field: ClassVar[str]  # the post's text as the platform lists it
    retryable: ClassVar[frozenset[tuple[int, int]]] = frozenset()  # (code, subcode) that clear with time
    # Meta suggests polling containers once a minute for up to five minutes; images are usually
    # ready at once, so this polls more often over the same five minutes.
    poll_seconds = 10.0
    poll_limit = 30

    @abstractmethod
    def container_form(self, post: OutgoingPost) -> dict[str, str]:
        """The post's container (without `children`); refuses a post the platform cannot take."""

    @abstractmethod
    def item_form(self, media: OutgoingMedia) -> dict[str, str]:
        """A carousel item's container (without `is_carousel_item`)."""

    @abstractmethod
    def fallback_url(self, post: OutgoingPost, post_id: str) -> str:
        """The URL of a published post whose permalink could not be read."""

    async def deliver(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        form = self.container_form(post)
        container = await self._finished_container(post, form, api)
        user = post.account.platform_user_id
        request = PlatformRequest(
            "POST", f"{self.api}/{user}/{self.publish_edge}", form={"creation_id": container}, creates_post=True
        )
        post_id = required(await api.send(request), "id")
        return Delivery(post_id, await self._permalink(post, post_id, api))

    async def reconcile(self, post: OutgoingPost, api: PlatformAPI) -> Delivery | None:
        container = api.state.get("container")
        if not isinstance(container, str):
            return None  # nothing can have been published without a container
        status = required(await read_lookup(api, self._status_request(container)), self.status_field)
        if status == PUBLISHED:
            return await self._find(post, api)
        if status in (ERROR, EXPIRED):
            await api.save(container=None, **{CHILDREN: None})  # made again by the next delivery
        return None  # FINISHED (or still IN_PROGRESS): not published, publishing is safe

    def classify(self, status: int, body: Any) -> ErrorClass:
        # 190 is a dead token, 4/17/32/613 throttling, `retryable` the platform's own pairs.
        return graph_classify(status, body, self.retryable)

    def sandbox_answer(self, request: PlatformRequest, ids: SandboxIds) -> PlatformResponse:
        if request.creates_post:
            return ok({"id": ids.post})
        if request.method == "POST":
            return ok({"id": ids.new()})
        path, _, query = request.url.partition("?")
        object_id = path.rsplit("/", 1)[-1]
        if query == "fields=permalink":
            # The sandbox's post has no page on the platform: its permalink is Herald's page of it.
            return ok({"id": object_id, "permalink": ids.page})
        if query == f"fields={self._status_fields}":
            return ok({self.status_field: FINISHED, "id": object_id})
        return ok({"data": [], "paging": {}})

    @property
    def _status_fields(self) -> str:
        return f"{self.status_field},{self.message_field}"

    def _status_request(self, container: str) -> PlatformRequest:
        return PlatformRequest("GET", f"{self.api}/{container}?fields={self._status_fields}")

    async def _finished_container(self, post: OutgoingPost, form: dict[str, str], api: PlatformAPI) -> str:
        """The post's container once FINISHED; one that expired is made again, once."""
        for _ in range(2):
            container = await self._container(post, form, api)
            if container is not None and await self._ready(api, container, "the post's container"):
                return container
            await api.save(container=None, **{CHILDREN: None})
        raise DeliveryError(ErrorClass.RETRYABLE, f"{self.key} let the post's container expire twice")

    async def _container(self, post: OutgoingPost, form: dict[str, str], api: PlatformAPI) -> str | None:
        """The saved container, or a new one (after its carousel items); None if an item expired."""
        saved = api.state.get("container")
        if isinstance(saved, str):
            return saved
        if len(post.media) > 1:
            children = []
            for media in post.media:
                child = await self._item(post, media, api)
                if child is None:
                    return None
                children.append(child)
            form = {**form, "children": ",".join(children)}
        container = required(await api.send(self._create(post, form)), "id")
        await api.save(container=container)
        return container

    async def _item(self, post: OutgoingPost, media: OutgoingMedia, api: PlatformAPI) -> str | None:
        child = uploaded(api, media.media_id, CHILDREN)
        if child is None:
            form = {**self.item_form(media), "is_carousel_item": "true"}
            child = required(await api.send(self._create(post, form)), "id")
            await remember_upload(api, media.media_id, child, CHILDREN)
        # A video item is processed before the carousel may name it; images are ready at once.
        if media.kind == "video" and not await self._ready(api, child, f"the container of {media.media_id}"):
            return None
        return child

    def _create(self, post: OutgoingPost, form: dict[str, str]) -> PlatformRequest:
        return PlatformRequest("POST", f"{self.api}/{post.account.platform_user_id}/{self.create_edge}", form=form)

    async def _ready(self, api: PlatformAPI, container: str, what: str) -> bool:
        """Polls the container until FINISHED (True) or EXPIRED (False); ERROR fails for good."""
        response = await poll(
            self,
            api,
            self._status_request(container),
            done=lambda r: self._status(r) in (FINISHED, PUBLISHED, EXPIRED),
            failed=self._failure,
            what=f"{self.key}'s processing of {what}",
        )
        return self._status(response) != EXPIRED

    def _status(self, response: PlatformResponse) -> str | None:
        value = dig(response.body, self.status_field)
        return value if isinstance(value, str) else None

    def _failure(self, response: PlatformResponse) -> str | None:
        if self._status(response) != ERROR:
            return None
        return str(dig(response.body, self.message_field) or "the container failed")

    async def _permalink(self, post: OutgoingPost, post_id: str, api: PlatformAPI) -> str:
        request = PlatformRequest("GET", f"{self.api}/{post_id}?fields=permalink")
        try:
            link = dig((await api.send(request, expect=(200,))).body, "permalink")
        except DeliveryError:
            link = None  # the post is out: a link we cannot read fails nothing
        return link if isinstance(link, str) and link.startswith("https://") else self.fallback_url(post, post_id)

    async def _find(self, post: OutgoingPost, api: PlatformAPI) -> Delivery:
        """The published post among the account's posts since just before the publish request."""
        since = int(((sent_at(api) or datetime.now(UTC)) - LOOKUP_MARGIN).timestamp())
        fields = f"id,{self.text_field},timestamp,permalink"
        url = f"{self.api}/{post.account.platform_user_id}/{self.create_edge}?fields={fields}&since={since}"
        response = await read_lookup(api, PlatformRequest("GET", url))
        for item in dig(response.body, "data") or []:
            post_id = dig(item, "id")
            text = dig(item, self.text_field)
            if isinstance(post_id, str | int) and same_text(text if isinstance(text, str) else "", post.content):
                link = dig(item, "permalink")
                found = link if isinstance(link, str) and link.startswith("https://") else None
                return Delivery(str(post_id), found or self.fallback_url(post, str(post_id)))
        raise DeliveryError(
            ErrorClass.UNCERTAIN, f"{self.key} published the container but the post is not among the account's posts"
        )


async def read_lookup(api: PlatformAPI, request: PlatformRequest) -> PlatformResponse:
    """A lookup's answer; a refusal (say, a container gone after 24 h) cannot tell, so it is uncertain."""
    try:
        return await api.send(request, expect=(200,))
    except DeliveryError as error:
        if error.error_class is ErrorClass.PERMANENT:
            raise DeliveryError(
                ErrorClass.UNCERTAIN, f"cannot tell whether the post is out: {error}", status=error.status
            ) from None
        raise
