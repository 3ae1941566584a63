"""SSE responses that end like finished ones when the server shuts down.

sse-starlette notices uvicorn's exit signal and cancels the response's tasks, which leaves the HTTP
response incomplete: the client sees a cut connection and uvicorn logs "ASGI callable returned without
completing response". Here the exit signal instead ends the stream's source (``on_exit``), so the
generator returns, the final empty body is sent, and the client sees a normal end and reconnects.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from sse_starlette.sse import EventSourceResponse

GRACE_S = 2.0  # then cut, as before: a stream whose source does not end must not hold the shutdown


class DrainingEventSource(EventSourceResponse):
    on_exit: Callable[[], None] | None = None

    async def _listen_for_exit_signal_with_grace(self) -> None:
        await self._listen_for_exit_signal()
        if self.on_exit is not None:
            self.on_exit()
        for _ in range(int(GRACE_S / 0.05)):
            if not self.active:
                return
            await asyncio.sleep(0.05)
