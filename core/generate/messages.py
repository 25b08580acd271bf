"""A generation run as the core's messages carry it (herald.generate.v1.GenerateRun): the servicer
answers with it, and the run's webhook events render it through the contract's GenerateRun."""

from __future__ import annotations

from herald.generate.v1 import generate_pb2

from core.generate.outputs import measured
from core.generate.records import RunRecord
from core.rpc.convert import timestamp

_STATUS = {
    "queued": generate_pb2.RUN_STATUS_QUEUED,
    "running": generate_pb2.RUN_STATUS_RUNNING,
    "ready": generate_pb2.RUN_STATUS_READY,
    "failed": generate_pb2.RUN_STATUS_FAILED,
}


def run_message(run: RunRecord) -> generate_pb2.GenerateRun:
    message = generate_pb2.GenerateRun(
        id=run.id,
        tool=run.tool,
        status=_STATUS[run.status],
        backend=run.backend,
        cost=run.charged,
        create_time=timestamp(run.created_at),
        finish_time=timestamp(run.finished_at),
    )
    if run.output is not None:
        message.output.CopyFrom(
            generate_pb2.GenerateOutput(
                drafts=[
                    generate_pb2.Draft(
                        profile=d.profile,
                        connector=d.connector,
                        variant=d.variant,
                        parts=[_part(d.connector, text) for text in d.parts],
                        fits=d.fits,
                        problems=d.problems,
                    )
                    for d in run.output.drafts
                ],
                hashtags=run.output.hashtags,
                notes=run.output.notes,
            )
        )
    if run.error_code:
        message.error.CopyFrom(generate_pb2.RunError(code=run.error_code, message=run.error_message))
    return message


def _part(connector: str, text: str) -> generate_pb2.Part:
    length, limit, unit = measured(connector, text)
    return generate_pb2.Part(text=text, length=length, max_length=limit, unit=unit)
