"""``metis``: serve, call, run, follow, receipts verify, mathlas."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8787"


def _token(args: argparse.Namespace, role: str = "partner") -> str:
    if args.token:
        return args.token
    if os.environ.get("METIS_TOKEN"):
        return os.environ["METIS_TOKEN"]
    path = Path(args.data_dir) / "tokens.json"
    if path.exists():
        for token, spec in json.loads(path.read_text()).items():
            if role in spec.get("roles", []):
                return token
    sys.exit(f"metis: no token: pass --token, set METIS_TOKEN, or run next to {path}")


def _ws_url(url: str) -> str:
    return url.replace("http://", "ws://").replace("https://", "wss://").rstrip("/") + "/toolbus"


def _load_json(text: str) -> Any:
    path = Path(text)
    if not text.lstrip().startswith(("{", "[")) and path.exists():
        text = path.read_text()
    try:
        return json.loads(text)
    except ValueError as exc:
        sys.exit(f"metis: not JSON: {exc}")


class Client:
    """A minimal ToolBus client for the CLI: one reader task routes responses and notifications."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.pending: dict[int, asyncio.Future[Any]] = {}
        self.notifications: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if isinstance(msg, dict) and "method" in msg and "id" not in msg:
                await self.notifications.put(msg)
            elif isinstance(msg, dict) and msg.get("id") in self.pending:
                self.pending.pop(msg["id"]).set_result(msg)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.next_id += 1
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.ws.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}))
        msg = await fut
        if "error" in msg:
            raise RuntimeError(json.dumps(msg["error"]))
        return msg["result"]


async def _connect(args: argparse.Namespace, role: str = "partner") -> Any:
    import websockets

    return await websockets.connect(_ws_url(args.url), additional_headers={"Authorization": f"Bearer {_token(args, role)}"},
                                    max_size=64 * 1024 * 1024)


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from orchestrator.app import create_app
    from orchestrator.auth import TokenStore
    from orchestrator.config import Settings
    from orchestrator.logconfig import configure_logging

    configure_logging(args.log_level)
    settings = Settings.from_env(host=args.host, port=args.port, data_dir=Path(args.data_dir) if args.data_dir else None,
                                 tokens_file=Path(args.tokens) if args.tokens else None,
                                 max_concurrent=args.concurrency, warm_workers=args.workers,
                                 wu_event_aliases=args.wu_event_aliases, database_url=args.database,
                                 keys_dir=Path(args.keys_dir) if args.keys_dir else None)
    if not settings.tokens_file:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        _, path = TokenStore.create_default(settings.data_dir)
        print(f"metis: tokens in {path.resolve()}", flush=True)
    print(f"metis: serving on http://{settings.host}:{settings.port} (data in {settings.data_dir.resolve()})", flush=True)
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="warning",
                ws_max_size=16 * 1024 * 1024, timeout_graceful_shutdown=5, lifespan="on")
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    async def go() -> int:
        async with await _connect(args, args.role) as ws:
            try:
                result = await Client(ws).call(args.method, _load_json(args.params) if args.params else {})
            except RuntimeError as exc:
                print(str(exc), file=sys.stderr)
                return 1
            print(json.dumps(result, indent=2))
            return 0

    return asyncio.run(go())


def cmd_run(args: argparse.Namespace) -> int:
    async def go() -> int:
        async with await _connect(args) as ws:
            client = Client(ws)
            params: dict[str, Any] = {"ability": args.ability, "inputs": _load_json(args.inputs)}
            if args.budgets:
                params["budgets"] = _load_json(args.budgets)
            if args.purpose:
                params["seed"] = {"purpose": args.purpose}
            try:
                started = await client.call("actions.start", params)
            except RuntimeError as exc:
                print(str(exc), file=sys.stderr)
                return 2
            aid = started["action_id"]
            print(json.dumps({"started": started}), flush=True)
            await client.call("events.subscribe", {"topic": started["topic"]})
            ended = {"action_completed", "action_partial", "action_failed"}
            while True:
                note = await client.notifications.get()
                params_ = note.get("params", {})
                if note.get("method") != "event":
                    continue
                if args.follow:
                    d = params_["data"]
                    kind = f" ({d['kind']})" if d.get("kind") else ""
                    print(f"#{params_['id']} {params_['event']}{kind} {json.dumps(d['payload'])[:300]}", flush=True)
                if params_["event"] in ended and params_["data"]["action_id"] == aid:
                    break
            view = await client.call("actions.get", {"action_id": aid})
            print(json.dumps(view, indent=2))
            return 0 if view["status"] == "completed" else 1

    return asyncio.run(go())


def cmd_follow(args: argparse.Namespace) -> int:
    import httpx

    headers = {"Authorization": f"Bearer {_token(args)}"}
    if args.last_event_id is not None:
        headers["Last-Event-ID"] = str(args.last_event_id)
    url = args.url.rstrip("/") + "/streams/" + args.topic
    try:
        with httpx.stream("GET", url, headers=headers, timeout=None) as resp:
            if resp.status_code != 200:
                print(resp.read().decode(), file=sys.stderr)
                return 1
            print(f"# resumed after {resp.headers.get('metis-resumed-after')}", flush=True)
            for line in resp.iter_lines():
                if line and not line.startswith(":"):
                    print(line, flush=True)
                elif not line:
                    print(flush=True)
    except KeyboardInterrupt:
        return 0
    return 0


def cmd_receipts(args: argparse.Namespace) -> int:
    from receipts.verify import verify_data_dir

    report = verify_data_dir(Path(args.data_dir), args.from_seq or 1, args.to_seq)
    print(json.dumps(report.as_dict(), indent=2))
    return 0 if report.ok else 1


def cmd_mathlas(args: argparse.Namespace) -> int:
    from abilities.mathlas.cli import main as mathlas_main

    return mathlas_main(args.rest)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="metis", description="Metis action orchestrator")
    sub = p.add_subparsers(dest="command", required=True)

    def client_opts(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--url", default=os.environ.get("METIS_URL", DEFAULT_URL))
        sp.add_argument("--token", default=None, help="bearer token (else METIS_TOKEN, else <data-dir>/tokens.json)")
        sp.add_argument("--data-dir", default=".metis")

    s = sub.add_parser("serve", help="run the service on the embedded default")
    s.add_argument("--host", default=None, help="default 127.0.0.1 (or METIS_HOST)")
    s.add_argument("--port", type=int, default=None, help="default 8787 (or METIS_PORT)")
    s.add_argument("--data-dir", default=None, help="default .metis (or METIS_DATA_DIR)")
    s.add_argument("--tokens", default=None, help="JSON file {token: {tenant, roles}}")
    s.add_argument("--concurrency", type=int, default=None, help="actions running at once (default 4)")
    s.add_argument("--workers", type=int, default=None, help="worker processes started up front (default 4)")
    s.add_argument("--wu-event-aliases", action="store_true", default=None,
                   help="allow ?aliases=wu on streams: legacy wu_* event names (off by default)")
    s.add_argument("--log-level", default="info")
    s.set_defaults(fn=cmd_serve)

    c = sub.add_parser("call", help="call one ToolBus method and print the result")
    c.add_argument("method")
    c.add_argument("params", nargs="?", help="JSON params (or a file)")
    c.add_argument("--role", default="partner", help="which token of tokens.json to use")
    client_opts(c)
    c.set_defaults(fn=cmd_call)

    r = sub.add_parser("run", help="start an action and wait for its end")
    r.add_argument("ability")
    r.add_argument("--inputs", required=True, help="JSON or a file")
    r.add_argument("--budgets", help='JSON, e.g. {"wall_s": 30}')
    r.add_argument("--purpose", help="seed purpose (same purpose + inputs => same outputs)")
    r.add_argument("--follow", action="store_true", help="print events live")
    client_opts(r)
    r.set_defaults(fn=cmd_run)

    f = sub.add_parser("follow", help="print a topic's SSE stream")
    f.add_argument("topic")
    f.add_argument("--last-event-id", type=int, default=None)
    client_opts(f)
    f.set_defaults(fn=cmd_follow)

    rc = sub.add_parser("receipts", help="receipt log tools")
    rsub = rc.add_subparsers(dest="receipts_cmd", required=True)
    v = rsub.add_parser("verify", help="verify a data directory offline")
    v.add_argument("--data-dir", default=".metis")
    v.add_argument("--from-seq", type=int, default=None)
    v.add_argument("--to-seq", type=int, default=None)
    v.set_defaults(fn=cmd_receipts)

    from orchestrator.db import add_commands  # db, keys; --database/--keys-dir (PostgreSQL mode)

    add_commands(sub, v, s)

    m = sub.add_parser("mathlas", help="mathlas tools: a number, a sequence, a query, or 'mcp'")
    m.add_argument("rest", nargs=argparse.REMAINDER)
    m.set_defaults(fn=cmd_mathlas)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.fn(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
