"""Structured logging in the JSON shape Cloud Logging reads from stdout."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

_configured = False


class CloudLoggingFormatter(logging.Formatter):
    def __init__(self, project_id: str = "") -> None:
        super().__init__()
        self._project = project_id

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "severity": record.levelname if record.levelname != "WARNING" else "WARNING",
            "message": record.getMessage(),
            "logger": record.name,
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            fields = dict(fields)  # the record may be formatted again by another handler
            trace = fields.pop("trace", None)
            if trace and self._project:
                entry["logging.googleapis.com/trace"] = f"projects/{self._project}/traces/{trace}"
            entry.update(fields)
        if record.exc_info:
            entry["stack_trace"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def configure(project_id: str = "", level: int = logging.INFO) -> None:
    global _configured
    if _configured:
        return
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(CloudLoggingFormatter(project_id))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for noisy in ("urllib3", "google", "grpc", "sentence_transformers", "httpx", "werkzeug"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    _configured = True


def event(logger: logging.Logger, message: str, **fields: Any) -> None:
    """One structured line: ``fields`` become top-level JSON keys."""
    logger.info(message, extra={"fields": fields})


def trace_id(header: str | None) -> str | None:
    """The trace id from ``X-Cloud-Trace-Context: TRACE/SPAN;o=1``."""
    if not header:
        return None
    return header.split("/", 1)[0] or None
