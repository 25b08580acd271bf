"""Reading each profile's followers from its platform (HERALD_PUBLISH_MODE=live; docs/analytics.md,
"Account metrics"): one call per profile through its connector's `account_metrics`, over the live
API (core/connectors/live.py) with the profile's token, refreshed once when the platform says it
is dead, as publishing does (what both live readers share: core/analytics/live_reads.py).
Profiles are read side by side, a few at a time.

Pacing, as the post reads pace (core/analytics/platform_reads.py): the live API reads
`Retry-After` and the platforms' rate headers on every answer. A 429 (or a retryable refusal
with a Retry-After) is a wait, not a failure: the profile's read is due again when the platform
said (the reset, or `Retry-After`; a minute when it said nothing), its failures as they were. A
read whose answer says the window is spent is not due again before the window ends (a day's
interval is longer than any platform's window; a shorter one is not).

Any other refusal (a scope not granted, a token that cannot be refreshed) fails that profile's
read only: it is tried again after the queue's growing wait (core/analytics/account_reads.py),
with the platform's words kept as its `last_error`."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.analytics.account_reads import AccountOutcome, DueAccount
from core.analytics.live_reads import LiveReader, side_by_side, wait_until
from core.connectors.base import DeliveryError

log = logging.getLogger(__name__)


class AccountPlatformReads(LiveReader):
    async def read(self, due: Sequence[DueAccount]) -> list[AccountOutcome]:
        """An outcome per claimed profile, in order."""

        async def one(account: DueAccount) -> AccountOutcome:
            try:
                return await self._one(account)
            except DeliveryError as error:
                return AccountOutcome(account, error=str(error) or type(error).__name__)
            except Exception as error:  # a bug: tried again later
                log.exception("reading the followers of profile %s failed", account.profile_id)
                return AccountOutcome(account, error=f"{type(error).__name__}: {error}")

        return await side_by_side(due, one)

    async def _one(self, due: DueAccount) -> AccountOutcome:
        connector = self.connectors.get(due.connector)
        if connector is None or not connector.reads_account_metrics:
            return AccountOutcome(due, error=f"{due.connector} does not read its followers live")
        if due.tokens is None:
            return AccountOutcome(due, error="the profile has no connected account")
        api = self.api(connector, self.keeper.token(due.tokens))
        try:
            reading = await connector.account_metrics(due.account, api)
        except DeliveryError as error:
            wait = wait_until(error, api)
            if wait is None:
                raise
            log.info("followers of profile %s: %s; read again at %s", due.profile_id, error, wait.isoformat())
            return AccountOutcome(due, wait_until=wait)
        return AccountOutcome(due, reading, wait_until=api.throttled_until)
