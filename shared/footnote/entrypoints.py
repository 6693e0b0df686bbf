"""What the three Cloud Functions do with their input: parse, call the core, report.

Retry semantics are deliberate: raising makes Eventarc / Pub/Sub deliver the
event again; returning acknowledges it.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
from typing import TYPE_CHECKING, Any

from footnote import logs
from footnote.errors import BadEvent
from footnote.wiring import container

if TYPE_CHECKING:  # functions-framework's types; not imported at cold start for them
    import flask
    import flask.typing
    from cloudevents.http import CloudEvent

log = logging.getLogger("footnote.functions")


def handle_note_event(cloud_event: CloudEvent) -> None:
    c = container()
    try:
        event = c.decode_note_event(cloud_event)
    except BadEvent as exc:
        # Nothing to retry: a malformed event stays malformed. Logged as an error.
        log.error("dropping undecodable Firestore event: %s", exc.message)
        return
    result = c.indexing.index_note(event.note_id)  # raises → the event is retried
    logs.event(
        log,
        f"index {event.note_id}: {result.outcome.value}",
        noteId=event.note_id,
        eventId=event.event_id,
        eventKind=event.kind,
        outcome=result.outcome.value,
        chunkCount=result.chunk_count,
        removed=result.removed,
        model=c.embedder.model_id,
        elapsedMs=result.elapsed_ms,
    )


def handle_reindex_message(cloud_event: CloudEvent) -> None:
    """The worker's Pub/Sub messages: re-index requests (the re-index topic) and
    account jobs (``{"job": ...}``, the accounts topic)."""
    from footnote.services.reindexing import parse_request

    c = container()
    data = cloud_event.get_data() if hasattr(cloud_event, "get_data") else cloud_event.data
    payload = _pubsub_json(data)
    if "job" in payload:
        handle_account_job(payload)
        return
    request = parse_request(payload)  # BadEvent propagates: dead-lettered, not lost
    result = c.reindexing.handle(request)
    logs.event(
        log,
        f"reindex {request.scope} page: {result.processed} notes",
        scope=request.scope,
        jobId=result.job_id,
        processed=result.processed,
        nextCursor=result.next_cursor,
        skipped=result.skipped,
    )


def handle_account_job(payload: dict[str, Any]) -> None:
    from footnote.services.accounts import DELETE_ACCOUNT, SWEEP_ACCOUNTS
    from footnote.services.exports import EXPORT_NOTES
    from footnote.services.imports import IMPORT_NOTES, SWEEP_JOBS, AccountClosing, parse_sweep
    from footnote.services.imports import parse_message as parse_import

    c = container()
    job, tenant, job_id = payload.get("job"), payload.get("tenantId"), payload.get("jobId")
    if job == IMPORT_NOTES:
        tenant_id, import_id = parse_import(payload)
        try:
            done = c.imports.run(tenant_id, import_id)  # raises → redelivered, resumes
        except AccountClosing:  # acknowledged: the account's deletion removes the rest
            logs.event(log, f"import {import_id}: dropped, its account is being deleted")
            return
        logs.event(
            log,
            f"import {import_id}: {done.status}",
            jobId=import_id,
            status=done.status,
            imported=done.imported,
            duplicates=done.duplicates,
            failed=done.failed,
        )
        return
    if job == EXPORT_NOTES:
        tenant_id, export_id = parse_import(payload)  # the same fields
        if c.accounts.is_deleting(tenant_id):  # acknowledged, not dead-lettered
            logs.event(log, f"export {export_id}: dropped, its account is being deleted")
            return
        exported = c.exports.run(tenant_id, export_id)  # raises → redelivered, written again
        logs.event(
            log, f"export {export_id}: {exported.status}", jobId=export_id, notes=exported.notes
        )
        return
    if job == SWEEP_JOBS:
        stalled_after = parse_sweep(payload)
        resumed = c.imports.resume_stalled(stalled_after)
        exports = c.exports.resume_stalled(stalled_after)
        logs.event(
            log,
            f"job sweep: {len(resumed)} stalled imports, {len(exports)} stalled exports resumed",
            resumed=list(resumed),
            exports=list(exports),
        )
        return
    if job == SWEEP_ACCOUNTS:
        after = payload.get("after")
        if after is not None and not isinstance(after, str):
            raise BadEvent("sweep message 'after' must be a tenant id")
        sweep = c.accounts.sweep(after)
        logs.event(
            log,
            f"orphan sweep: {sweep.checked} tenants checked, {len(sweep.begun)} deletions begun,"
            f" late files of {len(sweep.files)} deleted users removed",
            checked=sweep.checked,
            begun=len(sweep.begun),
            files=len(sweep.files),
            continued=sweep.continued,
        )
        return
    if job != DELETE_ACCOUNT or not isinstance(tenant, str) or not isinstance(job_id, str):
        raise BadEvent("account job message is not valid")  # dead-lettered, not lost
    run = c.accounts.run(tenant, job_id)  # raises → redelivered, resumes at its step
    logs.event(
        log,
        f"account deletion {job_id}: {'done' if run.done else 'continues'}",
        jobId=job_id,
        steps=list(run.steps),
        deleted=run.deleted,
        done=run.done,
        skipped=run.skipped,
    )


def _pubsub_json(data: Any) -> dict[str, Any]:
    try:
        encoded = data["message"]["data"]
        payload = json.loads(base64.b64decode(encoded, validate=True).decode("utf-8"))
    except (KeyError, TypeError, ValueError, binascii.Error, UnicodeDecodeError):
        raise BadEvent("Pub/Sub message is not base64 JSON") from None
    if not isinstance(payload, dict):
        raise BadEvent("re-index request must be a JSON object")
    return payload


def handle_http(request: flask.Request) -> flask.typing.ResponseReturnValue:
    return container().api.handle(request)
