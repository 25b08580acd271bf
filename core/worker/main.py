"""`herald worker`: the publisher, the lease job queue (generation runs) and housekeeping. Any
number of them share one database."""

from __future__ import annotations

import asyncio
import logging
import signal

from core.db.engine import create_engine
from core.generate.service import GenerateJobs, backends
from core.jobs.runner import JobRunner
from core.publisher.publisher import Publisher
from core.settings import CoreSettings
from core.storage.factory import object_storage
from core.worker.maintenance import run_housekeeping

log = logging.getLogger(__name__)


async def run_worker(settings: CoreSettings) -> None:
    engine = create_engine(settings, pool_size=max(2, min(settings.publish_batch_size, 20)))
    try:
        publisher = Publisher(settings, engine)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        generation = backends(settings)
        jobs = JobRunner(settings, engine, [GenerateJobs(settings, engine, generation)], publisher.worker_id)
        log.info("worker %s publishing (mode=%s), running jobs", publisher.worker_id, settings.publish_mode)
        try:
            await asyncio.gather(
                publisher.run(stop),
                jobs.run(stop),
                run_housekeeping(engine, object_storage(settings), stop, settings.housekeeping_seconds),
            )
        finally:
            for backend in generation.values():
                if hasattr(backend, "close"):
                    await backend.close()
    finally:
        await engine.dispose()
