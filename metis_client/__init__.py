"""metis_client: a Python client for Metis (ToolBus calls over WebSocket, events over SSE).

    from metis_client import Client
    async with Client.from_env() as c:
        act = await c.start("crl_math", {"goal": "simplify", "expression": "(x^2-1)/(x-1)"})
        async for ev in act.events():
            ...
        view = await act.result()

It needs only ``websockets`` and ``httpx``. See docs/client.md.
"""

from metis_client.client import Action, Client, Subscription
from metis_client.config import DEFAULT_URL, find_token, split_url
from metis_client.errors import CallTimeout, ConnectionLost, MetisError
from metis_client.sse import TERMINAL_EVENTS, TERMINAL_STATUSES, Event, SSEParser
from metis_client.sync import SyncAction, SyncClient

__all__ = [
    "DEFAULT_URL", "TERMINAL_EVENTS", "TERMINAL_STATUSES", "Action", "CallTimeout", "Client", "ConnectionLost",
    "Event", "MetisError", "SSEParser", "Subscription", "SyncAction", "SyncClient", "find_token", "split_url",
]
