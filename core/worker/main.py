"""`herald worker`: the publisher, the lease job queue (generation runs, sourcing runs whose core
stopped, webhook deliveries, token refreshes, mail), the collection of posts' metrics
(core/analytics) and housekeeping. Any number of them share one database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from core.analytics.account_collector import AccountCollector
from core.analytics.account_platform_reads import AccountPlatformReads
from core.analytics.collector import MetricsCollector
from core.analytics.platform_reads import PlatformReads
from core.analytics.retention import run_metrics_retention
from core.db.engine import create_engine
from core.db.types import utcnow
from core.generate.service import GenerateJobs, backends
from core.jobs.runner import JobRunner
from core.mail.jobs import MailJobs
from core.notes.expiring import run_expiry_notices
from core.platform_accounts.refresh_jobs import TokenRefreshJobs, enqueue_expiring
from core.platform_accounts.token_refresh import TokenKeeper
from core.publisher.publisher import Publisher
from core.settings import CoreSettings
from core.stock.config import stock_service
from core.stock.run_jobs import SourcingJobs
from core.storage.factory import object_storage
from core.webhooks.delivery import WebhookDeliveries
from core.webhooks.fanout import fan_out
from core.worker.gauges import run_queue_gauges
from core.worker.maintenance import run_housekeeping
from core.worker.retention import run_retention

log = logging.getLogger(__name__)

# How often each worker looks for platform tokens to refresh ahead of expiry (live mode).
TOKEN_SWEEP_SECONDS = 60.0


async def run_worker(settings: CoreSettings) -> None:
    engine = create_engine(settings, pool_size=max(2, min(settings.publish_batch_size, 20)))
    try:
        publisher = Publisher(settings, engine)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        generation = backends(settings)
        deliveries = WebhookDeliveries(settings, engine)
        stock = stock_service(settings, object_storage(settings))
        handlers: list = [GenerateJobs(settings, engine, generation), deliveries, SourcingJobs(engine, stock)]
        loops = [
            run_housekeeping(engine, object_storage(settings), stop, settings.housekeeping_seconds),
            run_retention(engine, settings, stop),
            run_metrics_retention(engine, settings, stop),
            run_expiry_notices(engine, settings, stop, settings.housekeeping_seconds),
        ]
        # Posts' metrics: the sandbox's numbers, or in live mode the platforms' own (docs/analytics.md).
        platform = None
        if publisher.keeper is not None:
            platform = PlatformReads(settings, engine, publisher.keeper, publisher.endpoints, publisher.connectors)
        loops.append(MetricsCollector(settings, engine, publisher.worker_id, platform=platform).run(stop))
        # Followers: the sandbox's, or in live mode each profile's platform's (docs/analytics.md).
        followers = None
        if publisher.keeper is not None:
            followers = AccountPlatformReads(settings, publisher.keeper, publisher.endpoints, publisher.connectors)
        loops.append(AccountCollector(settings, engine, publisher.worker_id, platform=followers).run(stop))
        if settings.metrics_dir:  # exported: the queues are worth sampling
            loops.append(run_queue_gauges(engine, stop, settings.metrics_sample_seconds))
        if settings.smtp_server is not None:  # mail is on
            handlers.append(MailJobs(settings, engine))
        if publisher.keeper is not None:
            handlers.append(TokenRefreshJobs(publisher.keeper))
            loops.append(_sweep_tokens(engine, publisher.keeper, stop))
        jobs = JobRunner(
            settings, engine, handlers, publisher.worker_id, feeders=[lambda: fan_out(engine, settings, utcnow())]
        )
        publisher.on_outcome = jobs.nudge  # a publish outcome's event is fanned out at once
        log.info("worker %s publishing (mode=%s), running jobs", publisher.worker_id, settings.publish_mode)
        try:
            await asyncio.gather(publisher.run(stop), jobs.run(stop), *loops)
        finally:
            for backend in generation.values():
                if hasattr(backend, "close"):
                    await backend.close()
            await deliveries.close()
            await stock.client.aclose()
            if followers is not None:
                await followers.close()
    finally:
        await engine.dispose()


async def _sweep_tokens(engine, keeper: TokenKeeper, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            added = await enqueue_expiring(engine, keeper, utcnow())
            if added:
                log.info("queued %d token refreshes", added)
        except Exception:
            log.exception("token refresh sweep failed; trying again")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), TOKEN_SWEEP_SECONDS)
