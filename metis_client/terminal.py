"""Terminal output for followers of a stream: readable lines with a progress bar kept at the
bottom on a terminal, JSON lines otherwise; and a line prompt that does not block the loop."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from typing import Any, TextIO

from metis_client.render import event_line, progress_bar
from metis_client.sse import Event


class Output:
    """Where a follower writes. ``pretty`` (a terminal and no --json): text and a live progress
    bar; otherwise one JSON object per line."""

    def __init__(self, json_mode: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.pretty = not json_mode and self.out.isatty()
        self._bar: str | None = None

    @property
    def width(self) -> int:
        return max(40, shutil.get_terminal_size((100, 24)).columns - 1) if self.pretty else 10_000

    def _clear_bar(self) -> None:
        if self._bar is not None:
            self.out.write("\r\x1b[2K")

    def _draw_bar(self) -> None:
        if self._bar is not None:
            self.out.write(self._bar[: self.width])
        self.out.flush()

    def text(self, line: str) -> None:
        """A line of text (pretty mode), kept above the progress bar."""
        self._clear_bar()
        self.out.write(line + "\n")
        self._draw_bar()

    def record(self, obj: dict[str, Any]) -> None:
        """One JSON line (machine mode)."""
        self.out.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")
        self.out.flush()

    def note(self, line: str) -> None:
        """A hint for people, on stderr in both modes."""
        if self.pretty:
            self._clear_bar()
            self.out.flush()
        self.err.write(line + "\n")
        self.err.flush()
        if self.pretty:
            self._draw_bar()

    def event(self, ev: Event, main_action: str | None, show: bool) -> None:
        """An event: a line (if ``show``) and, on a terminal, the progress bar."""
        if not self.pretty:
            if show:
                self.record(ev.as_dict())
            return
        if ev.event == "action_progress" and "fraction" in ev.payload and ev.action_id == main_action:
            msg = ev.payload.get("message") or ""
            self._clear_bar()
            self._bar = f"{progress_bar(ev.payload['fraction'])} {msg}".rstrip()
            self._draw_bar()
            if not show:
                return
        if ev.terminal and ev.action_id == main_action:
            self.end_bar()
        if show or ev.event == "action_waiting_user":
            self.text(event_line(ev, self.width, main_action))

    def end_bar(self) -> None:
        if self._bar is not None:
            self._clear_bar()
            self._bar = None
            self.out.flush()


async def read_line(prompt: str, out: TextIO | None = None) -> str:
    """Prompt and read one line from stdin without blocking the event loop (so events keep
    arriving, and Ctrl-C cancels it at once). EOF raises ``EOFError``."""
    out = out or sys.stdout
    out.write(prompt)
    out.flush()
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()
    readable = asyncio.Event()
    buf = b""
    loop.add_reader(fd, readable.set)
    try:
        while b"\n" not in buf:
            await readable.wait()
            readable.clear()
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError("stdin closed")
            buf += chunk
    finally:
        loop.remove_reader(fd)
    return buf.split(b"\n", 1)[0].decode(errors="replace")
