"""Plain-text rendering of events, progress and boundary summaries (for terminals and logs).

Pure functions: the CLI uses them, and so can a notebook (``print(render.document(summary))``)."""

from __future__ import annotations

import json
import textwrap
from typing import Any

from metis_client.sse import Event

LABELS = {
    "action_started": "started",
    "action_progress": "progress",
    "action_checkpoint": "checkpoint",
    "action_notice": "notice",
    "action_waiting_user": "waiting for input",
    "action_linked": "linked",
    "action_completed": "completed",
    "action_partial": "partial",
    "action_failed": "failed",
}
MARKS = {"completed": "✔", "partial": "◐", "failed": "✘", "cancelled": "✘"}


def clip(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def inline(payload: dict[str, Any]) -> str:
    """``key=value`` pairs, the way a log line shows a payload."""
    parts = []
    for key, value in payload.items():
        if isinstance(value, dict | list) and len(json.dumps(value)) > 60:
            n = len(value)
            value = f"[{n} items]" if isinstance(value, list) else f"{{{n} fields}}"
            parts.append(f"{key}={value}")
        else:
            parts.append(f"{key}={scalar(value)}")
    return " ".join(parts)


def progress_bar(fraction: float, width: int = 24) -> str:
    """``[#########···············]  37%``"""
    fraction = min(1.0, max(0.0, float(fraction)))
    filled = round(fraction * width)
    return "[" + "#" * filled + "·" * (width - filled) + f"] {fraction * 100:3.0f}%"


def event_line(ev: Event, width: int = 100, main_action: str | None = None) -> str:
    """One readable line per event; a question is never cut (its request_id must show)."""
    p = ev.payload
    who = "" if ev.action_id in (None, main_action) else f"[{ev.action_id}] "  # a follower names every action
    head = f"#{ev.id} {who}{LABELS.get(ev.event, ev.event)}"
    if ev.event == "action_progress":
        if "fraction" in p:
            body = progress_bar(p["fraction"], 16) + (f" {p['message']}" if p.get("message") else "")
        else:
            body = inline(p)
    elif ev.event == "action_waiting_user":
        rest = {k: v for k, v in p.items() if k not in ("request_id", "kind", "question", "prompt", "reason")}
        question = p.get("question") or p.get("prompt") or p.get("reason") or ""
        lines = [f"{head} ({p.get('kind', 'question')}): {question}".rstrip(": ")]
        if rest:
            lines.append("    " + clip(inline(rest), max(20, width - 4)))
        lines.append(f"    request_id: {p.get('request_id')}")
        return "\n".join(lines)
    elif ev.event in ("action_completed", "action_partial", "action_failed"):
        status = p.get("status", LABELS[ev.event])
        head = f"#{ev.id} {who}{MARKS.get(status, '')} {status}".replace("  ", " ")
        err = p.get("error") or {}
        body = f"{err.get('reason', '')}: {err.get('message', '')}".strip(": ") if err else ""
    elif ev.event == "action_started":
        body = f"{ev.data.get('ability', '')} seed {p.get('seed_fingerprint', '')}".strip()
    else:
        body = inline(p)
    if ev.kind:
        head += f" {ev.kind}"
    return clip(f"{head}  {body}" if body else head, width)


def _label(key: str) -> str:
    return key.replace("_", " ").strip().capitalize()


def document(value: Any, width: int = 100, indent: int = 0) -> str:
    """A JSON value as an indented text document: headings for keys, bullets for lists, long
    strings wrapped. Meant for boundary summaries, which are written for people."""
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                if isinstance(item, list) and all(not isinstance(x, dict | list) for x in item) \
                        and len(", ".join(map(scalar, item))) <= width - len(pad) - len(key) - 2:
                    out.append(f"{pad}{_label(key)}: {', '.join(map(scalar, item))}")
                else:
                    out.append(f"{pad}{_label(key)}:")
                    out.append(document(item, width, indent + 1))
            else:
                text = scalar(item) if item not in ({}, []) else "(none)"
                out.append(_wrap(f"{_label(key)}: {text}", width, pad))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                first, *rest = document(item, width, indent + 1).split("\n") or [""]
                out.append(f"{pad}- {first.lstrip()}")
                out.extend(rest)
            elif isinstance(item, list):
                out.append(f"{pad}-")
                out.append(document(item, width, indent + 1))
            else:
                out.append(_wrap(f"- {scalar(item)}", width, pad))
    else:
        out.append(_wrap(scalar(value), width, pad))
    return "\n".join(line for line in out if line != "")


def _wrap(text: str, width: int, pad: str) -> str:
    return textwrap.fill(text, width=max(40, width), initial_indent=pad, subsequent_indent=pad + "    ",
                         break_long_words=False, break_on_hyphens=False)


def duration(view: dict[str, Any]) -> str:
    wall = (view.get("usage") or {}).get("wall_s")
    return f" in {wall:.2f} s" if isinstance(wall, int | float) and wall else ""


def summary_artifact_id(view: dict[str, Any], summary: dict[str, Any] | None) -> str | None:
    """The summary document an action names (boundary summary first, then its outputs)."""
    for source in (summary or {}, view.get("outputs") or {}):
        value = source.get("summary_artifact_id")
        if isinstance(value, str):
            return value
    return None


def result_text(view: dict[str, Any], summary: dict[str, Any] | None, width: int = 100,
                doc: Any = None) -> str:
    """The end of a run: a headline, the boundary summary (or the outputs) and the summary document
    (an artifact's content) as text, the error."""
    status = view.get("status", "?")
    lines = [f"{MARKS.get(status, '•')} {view.get('ability', '')} {view.get('action_id', '')} {status}{duration(view)}"]
    err = view.get("error")
    if err:
        lines.append(_wrap(f"Error: {err.get('reason', '')}: {err.get('message', '')}".rstrip(": "), width, "  "))
    body = summary if summary else view.get("outputs")
    if body:
        lines.append("")
        lines.append("Summary:" if summary else "Outputs:")
        lines.append(document(body, width, 1))
    if doc not in (None, {}, []):
        lines.append("")
        lines.append("Summary document:")
        lines.append(document(doc, width, 1))
    return "\n".join(lines)
