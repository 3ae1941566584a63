"""structlog configuration, in one place: JSON lines on stderr, context from contextvars.

Every line on the stream is one JSON object: Metis's own (structlog) and those of libraries that log
through the standard library (uvicorn's startup and error lines, asyncio, warnings), which go through
structlog's ``ProcessorFormatter``. Each line logged inside a trace carries ``trace_id``/``span_id``.
"""

from __future__ import annotations

import logging
import sys

import structlog

from orchestrator.tracing import add_trace_ids


def configure_logging(level: str = "info") -> None:
    numeric = getattr(logging, level.upper(), logging.INFO)
    stamp = structlog.processors.TimeStamper(fmt="iso", utc=True)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[structlog.contextvars.merge_contextvars, add_trace_ids,
                           structlog.stdlib.add_log_level, structlog.stdlib.add_logger_name, stamp],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                    structlog.processors.format_exc_info, structlog.processors.JSONRenderer()],
    ))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):  # no handlers of their own: through root
        lib = logging.getLogger(name)
        lib.handlers.clear()
        lib.propagate = True
    logging.captureWarnings(True)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            add_trace_ids,
            structlog.processors.add_log_level,
            stamp,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),  # one write per line: no interleaving
        cache_logger_on_first_use=True,
    )


def stray_output_as_json(source: str) -> None:
    """In a worker process: whatever reaches file descriptors 1 and 2 (an ability's prints, a
    traceback) is re-emitted line by line as JSON log lines (``event: <source>_output``) on the
    real stderr, so the server's stream stays JSON. Call after the protocol's own descriptor is dup'ed."""
    import json
    import os
    import threading
    from datetime import UTC, datetime

    real = os.dup(2)
    read_fd, write_fd = os.pipe()
    os.dup2(write_fd, 1)
    os.dup2(write_fd, 2)
    os.close(write_fd)
    pid = os.getpid()

    def pump() -> None:
        with os.fdopen(read_fd, "r", encoding="utf-8", errors="replace") as lines:
            for line in lines:
                stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
                os.write(real, (json.dumps({"event": f"{source}_output", "line": line.rstrip("\n"), "pid": pid,
                                            "level": "info", "timestamp": stamp}) + "\n").encode())

    threading.Thread(target=pump, name="stray-output", daemon=True).start()
