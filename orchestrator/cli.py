"""``metis``: serve, call, run, follow, input, receipts verify|checkpoint, mathlas.

Client commands use ``metis_client``. No user mistake ends in a traceback; exit codes:
0 done (the action completed), 1 the action did not complete (or the server refused the call for
another reason), 2 usage or input error, 3 cannot reach the server (or lost it), 130 interrupted,
141 the output pipe was closed (``| head``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any, NoReturn

from metis_client import Client, ConnectionLost, Event, MetisError
from metis_client import errors as codes
from metis_client.config import token_from_file
from metis_client.render import result_text, summary_artifact_id
from metis_client.sse import TERMINAL_STATUSES
from metis_client.terminal import Output, read_line

EXIT_OK, EXIT_NOT_COMPLETED, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_INTERRUPTED, EXIT_PIPE = 0, 1, 2, 3, 130, 141
USAGE_CODES = {codes.CONFIG_ERROR, codes.PARSE_ERROR, codes.INVALID_REQUEST, codes.METHOD_NOT_FOUND,
               codes.INVALID_PARAMS, codes.UNAUTHENTICATED, codes.FORBIDDEN, codes.NOT_FOUND}
SERVE_FLAGS = {"host": "--host", "port": "--port", "data_dir": "--data-dir", "tokens_file": "--tokens",
               "max_concurrent": "--concurrency", "warm_workers": "--workers"}
CLIENT_FLAGS = {"url": "--url", "token": "--token", "data_dir": "--data-dir"}


STARTED: list[tuple[str, str]] = []  # (action_id, topic) started by this process: named if interrupted


class UsageError(Exception):
    """A mistake in the command line or its inputs: exit 2 with this message."""


def fail(message: str) -> NoReturn:
    raise UsageError(message)


def exit_code(err: MetisError) -> int:
    if err.code in (codes.CONNECTION_ERROR, codes.TIMEOUT):
        return EXIT_UNREACHABLE
    return EXIT_USAGE if err.code in USAGE_CODES else EXIT_NOT_COMPLETED


def explain_error(err: MetisError) -> str:
    """The server's error in words, with the validation errors it names."""
    known = err.code not in (codes.CONNECTION_ERROR, codes.TIMEOUT, codes.CONFIG_ERROR)
    text = f"{err.message} ({err.code})" if known else err.message
    errors = err.data.get("errors") if isinstance(err.data, dict) else None
    if isinstance(errors, list):
        for e in errors[:10]:
            if isinstance(e, dict):
                loc = ".".join(str(p) for p in e.get("loc", [])) or "params"
                text += f"\n  {loc}: {e.get('msg')}"
    elif err.data not in (None, {}):
        text += " " + json.dumps(err.data, ensure_ascii=False)[:300]
    return text


# -- inputs -----------------------------------------------------------------------------------


def load_json_arg(text: str, what: str) -> Any:
    """JSON given inline, as ``@file.json``, or ``-`` (stdin); every failure names what was wrong."""
    source = "the argument"
    if text == "-":
        data, source = sys.stdin.read(), "stdin"
    elif text.startswith("@") or (not text.lstrip().startswith(("{", "[", '"')) and text.endswith(".json")):
        path = Path(text[1:] if text.startswith("@") else text)
        source = str(path)
        try:
            data = path.read_text()
        except FileNotFoundError:
            fail(f"{what}: no such file: {path}")
        except IsADirectoryError:
            fail(f"{what}: {path} is a directory, not a JSON file")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"{what}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
    else:
        data = text
    try:
        return json.loads(data)
    except ValueError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        fail(f"{what} is not valid JSON ({source}): {detail}")


def json_object_arg(text: str | None, what: str) -> dict[str, Any] | None:
    if text is None:
        return None
    value = load_json_arg(text, what)
    if not isinstance(value, dict):
        fail(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


# -- client -----------------------------------------------------------------------------------


def client_settings(args: argparse.Namespace) -> Any:
    from pydantic import ValidationError

    from orchestrator.config import ClientSettings, explain

    try:
        return ClientSettings.from_env(url=args.url, token=args.token, data_dir=args.data_dir)
    except ValidationError as exc:
        fail(explain(exc, CLIENT_FLAGS))


def make_client(args: argparse.Namespace, role: str = "partner") -> tuple[Client, str]:
    """The client for ``args`` and where its token came from (for the refused-token message)."""
    s = client_settings(args)
    if args.token:
        token, source = args.token, "--token"
    elif s.token:
        token, source = s.token, "METIS_TOKEN"
    else:
        path = Path(s.data_dir) / "tokens.json"
        try:
            found = token_from_file(path, role)
        except MetisError as exc:
            fail(exc.message)
        if found is None:
            fail(f"no token: pass --token, set METIS_TOKEN, or run next to {path} (with a {role!r} token)")
        token, source = found, f"the {role} token of {path}"
    client = Client(s.url, token, timeout=s.timeout, reconnect_for=s.reconnect_timeout,
                    connect_timeout=min(10.0, s.timeout))
    return client, source


@contextlib.asynccontextmanager
async def connected(args: argparse.Namespace, role: str = "partner") -> Any:
    client, source = make_client(args, role)
    try:
        await client.connect()
    except MetisError as exc:
        if exc.code == codes.UNAUTHENTICATED:
            raise MetisError(exc.code, f"the server refused the token from {source}") from None
        raise
    try:
        yield client
    finally:
        with contextlib.suppress(Exception):
            await client.close()


def run_async(coro: Any) -> int:
    return asyncio.run(coro)


# -- serve ------------------------------------------------------------------------------------


def bind_socket(host: str, port: int) -> socket.socket:
    """Bind now, so a busy port fails at once with a clear message (not seconds after 'serving')."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} on {host} is already in use (another metis serve?): "
                 "choose another with --port or METIS_PORT")
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    return sock


def cmd_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from orchestrator.config import Settings, explain

    try:
        settings = Settings.from_env(
            host=args.host, port=args.port, data_dir=args.data_dir, tokens_file=args.tokens,
            max_concurrent=args.concurrency, warm_workers=args.workers, wu_event_aliases=args.wu_event_aliases,
            database_url=getattr(args, "database", None), keys_dir=getattr(args, "keys_dir", None))
    except ValidationError as exc:
        fail(explain(exc, SERVE_FLAGS))
    preflight(settings)
    sock = bind_socket(settings.host, settings.port)  # before the slow imports: a busy port fails at once
    port = sock.getsockname()[1]
    import uvicorn

    from orchestrator import tracing
    from orchestrator.app import create_app
    from orchestrator.auth import TokenStore
    from orchestrator.logconfig import configure_logging

    configure_logging(args.log_level)
    try:
        tracing.setup("metis")  # off unless OTEL_TRACES_EXPORTER / OTEL_EXPORTER_OTLP_ENDPOINT ask for it
    except ValueError as exc:
        fail(str(exc))
    if not settings.tokens_file:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        _, path = TokenStore.create_default(settings.data_dir)
        announce("tokens", f"metis: tokens in {path.resolve()}", path=str(path.resolve()))
    announce("serving", f"metis: serving on http://{settings.host}:{port} (data in {settings.data_dir.resolve()})",
             url=f"http://{settings.host}:{port}", data_dir=str(settings.data_dir.resolve()))
    config = uvicorn.Config(create_app(settings), host=settings.host, port=port, log_level="warning",
                            ws_max_size=16 * 1024 * 1024, ws_per_message_deflate=False,  # measured: +40% whoami
                            timeout_graceful_shutdown=5, lifespan="on", log_config=None)  # logs: logconfig
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        tracing.shutdown()  # export what is still buffered
    if not server.started:
        print("metis: the server did not start (see above)", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def announce(event: str, message: str, **fields: Any) -> None:
    """A start-up line for people and scripts: one JSON object on stdout (like every log line)."""
    from datetime import UTC, datetime

    stamp = datetime.now(UTC).isoformat().replace("+00:00", "Z")
    print(json.dumps({"event": event, "message": message, **fields, "level": "info", "timestamp": stamp}),
          flush=True)


def preflight(settings: Any) -> None:
    """What would otherwise fail inside the server's startup, with a traceback: a bad tokens file,
    a data directory another server holds."""
    from orchestrator.auth import TokenStore
    from orchestrator.datadir import DataDirInUse, DataDirLock

    if settings.tokens_file:
        try:
            TokenStore.load(settings.tokens_file)
        except FileNotFoundError:
            fail(f"--tokens: no such file: {settings.tokens_file}")
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            fail(f"--tokens: {settings.tokens_file} is not a valid tokens file ({exc}); expected "
                 '{"<token>": {"tenant": "acme", "roles": ["partner"]}}')
    if settings.data_dir.is_dir():
        lock = DataDirLock(settings.data_dir)
        try:
            lock.acquire()
        except DataDirInUse as exc:
            fail(str(exc))
        except OSError as exc:
            fail(f"--data-dir {settings.data_dir}: {exc.strerror or exc}")
        lock.release()


# -- call, input ------------------------------------------------------------------------------


def cmd_call(args: argparse.Namespace) -> int:
    params = json_object_arg(args.params, "params") or {}

    async def go() -> int:
        async with connected(args, args.role) as client:
            result = await client.call(args.method, params)
        print(json.dumps(result, indent=None if args.json else 2, ensure_ascii=False))
        return EXIT_OK

    return run_async(go())


def cmd_input(args: argparse.Namespace) -> int:
    value = load_json_arg(args.value, "VALUE_JSON")

    async def go() -> int:
        async with connected(args) as client:
            result = await client.action(args.action_id).answer(args.request_id, value)
        print(json.dumps(result))
        return EXIT_OK

    return run_async(go())


# -- run, follow ------------------------------------------------------------------------------


async def answer_in_place(action: Any, ev: Event, out: Output) -> None:
    """Ask the person at the terminal; send the answer with actions.input."""
    p = ev.payload
    rid = p.get("request_id")
    approval = p.get("kind") == "approval"
    while True:
        try:
            line = (await read_line("approve? [y/n] " if approval else "answer (JSON, or plain text) > ")).strip()
        except EOFError:
            out.note(f"metis: stdin closed; answer with: metis input {action.action_id} {rid} VALUE_JSON")
            return
        if not line:
            continue
        if approval:
            if line.lower() not in ("y", "yes", "n", "no"):
                continue
            value: Any = {"granted": line.lower() in ("y", "yes")}
        else:
            try:
                value = json.loads(line)
            except ValueError:
                value = line
        try:
            await action.answer(rid, value)
        except MetisError as exc:
            out.note(f"metis: answer refused: {explain_error(exc)}")
            if exc.code == codes.CONFLICT:
                return
            continue
        out.text(f"    answered {rid}")
        return


def waiting_hint(out: Output, ev: Event) -> None:
    rid = ev.payload.get("request_id")
    out.note(f"metis: {ev.action_id} waits for input; answer with: metis input {ev.action_id} {rid} VALUE_JSON")


async def follow_action(client: Client, action: Any, out: Output, show: bool, interactive: bool) -> dict[str, Any] | None:
    """Print the action's events until its end; answer questions. Returns its last boundary summary."""
    summary: dict[str, Any] | None = None
    prompts: list[asyncio.Task[None]] = []
    try:
        async for ev in action.events():
            out.event(ev, action.action_id, show)
            if ev.event == "action_checkpoint" and ev.kind == "boundary_summary" and ev.action_id == action.action_id:
                summary = ev.payload
            if ev.event == "action_waiting_user":
                if not show and not out.pretty:
                    out.record(ev.as_dict())
                if interactive:
                    prompts.append(asyncio.get_running_loop().create_task(answer_in_place(action, ev, out)))
                else:
                    waiting_hint(out, ev)
    finally:
        for task in prompts:
            task.cancel()
    return summary


def cmd_run(args: argparse.Namespace) -> int:
    inputs = json_object_arg(args.inputs, "--inputs") or {}
    budgets = json_object_arg(args.budgets, "--budgets")
    out = Output(json_mode=args.json)
    interactive = out.pretty and sys.stdin is not None and sys.stdin.isatty()

    async def go() -> int:
        async with connected(args) as client:
            action = await client.start(args.ability, inputs, topic=args.topic, budgets=budgets,
                                        seed_purpose=args.purpose, idempotency_key=args.idempotency_key)
            started = action.started or {}
            STARTED.append((action.action_id, action.topic))
            if out.pretty:
                out.text(f"started {action.action_id} ({args.ability}) on topic {action.topic}")
                out.note(f"canvas: {client.http_url}/canvas/?topic={action.topic}&token={action.stream_token}")
            else:
                out.record({"started": started})
            summary = await follow_action(client, action, out, args.follow, interactive)
            view = await action.get()
            doc = None
            art = summary_artifact_id(view, summary) if out.pretty else None
            if art:
                with contextlib.suppress(MetisError):
                    doc = (await client.artifact(art)).get("content")
        out.end_bar()
        if out.pretty:
            out.text(result_text(view, summary, out.width, doc))
        else:
            out.record({"result": view})
        return EXIT_OK if view["status"] == "completed" else EXIT_NOT_COMPLETED

    return run_async(go())


async def topic_actions(client: Client, topic: str) -> dict[str, str]:
    """Every action of the topic and its status (``actions.list``, all pages)."""
    statuses: dict[str, str] = {}
    params: dict[str, Any] = {"topic": topic, "limit": 500}
    while True:
        page = await client.call("actions.list", params)
        for view in page["actions"]:
            statuses[view["action_id"]] = view["status"]
        if not page.get("next"):
            return statuses
        params["after"] = page["next"]


def cmd_follow(args: argparse.Namespace) -> int:
    out = Output(json_mode=args.json)

    async def go() -> int:
        async with connected(args) as client:
            statuses = await topic_actions(client, args.topic) if args.until_done else {}
            seen_end: set[str] = set()
            stream = client.stream(args.topic, args.last_event_id)
            first = True
            async with contextlib.aclosing(stream):
                while True:
                    settled = bool(statuses) and all(s in TERMINAL_STATUSES for s in statuses.values())
                    try:
                        # once every known action has ended, a quiet second means the backlog is done
                        ev = await (asyncio.wait_for(anext(stream), 1.0) if args.until_done and settled
                                    else anext(stream))
                    except TimeoutError:
                        return EXIT_OK
                    if first and out.pretty:
                        out.note(f"following {args.topic} (resumed after {client.resumed_after})")
                        first = False
                    out.event(ev, None, True)
                    if ev.event == "action_waiting_user":
                        waiting_hint(out, ev)
                    if not args.until_done or ev.action_id is None:
                        continue
                    if ev.terminal:
                        statuses[ev.action_id] = ev.payload.get("status", "failed")
                        seen_end.add(ev.action_id)
                    elif statuses.get(ev.action_id) in (None, *TERMINAL_STATUSES) and ev.action_id not in seen_end:
                        statuses[ev.action_id] = "running"
                    if statuses and all(a in seen_end for a in statuses):
                        return EXIT_OK

    return run_async(go())


# -- receipts, mathlas ------------------------------------------------------------------------


def cmd_receipts(args: argparse.Namespace) -> int:
    if getattr(args, "database", None):
        from orchestrator.db import verify_database_command

        return verify_database_command(args)
    from receipts.log import DB_FILE
    from receipts.verify import verify_data_dir

    data_dir = Path(args.data_dir)
    if not (data_dir / DB_FILE).is_file():
        fail(f"--data-dir: no receipt log in {data_dir} (is it a Metis data directory?)")
    report = verify_data_dir(data_dir, args.from_seq or 1, args.to_seq)
    print(json.dumps(report.as_dict(), indent=2))
    return EXIT_OK if report.ok else EXIT_NOT_COMPLETED


def latest_tree_head(args: argparse.Namespace) -> dict[str, Any] | None:
    """The newest signed tree head of a data directory's SQLite log or of a PostgreSQL log."""
    if getattr(args, "database", None):
        from orchestrator.db import _need_database
        from receipts.postgres import connect

        with connect(_need_database(args), autocommit=True, app="metis-checkpoint") as conn:
            row = conn.execute("SELECT body FROM tree_heads ORDER BY tree_size DESC LIMIT 1").fetchone()
    else:
        import sqlite3

        from receipts.log import DB_FILE

        path = Path(args.data_dir) / DB_FILE
        if not path.is_file():
            fail(f"--data-dir: no receipt log in {args.data_dir} (is it a Metis data directory?)")
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT body FROM tree_heads ORDER BY tree_size DESC LIMIT 1").fetchone()
        finally:
            conn.close()
    return json.loads(row[0]) if row else None


def cmd_checkpoint(args: argparse.Namespace) -> int:
    """``metis receipts checkpoint``: the latest tree head as a C2SP signed checkpoint (or ``--vkey``)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from receipts.checkpoint import CheckpointError, checkpoint_for_head, default_origin, vkey_of
    from receipts.signing import PRIVATE_KEY_FILE

    key_path = Path(getattr(args, "keys_dir", None) or args.data_dir) / PRIVATE_KEY_FILE
    if not key_path.is_file():
        fail(f"no signing key at {key_path} (pass --data-dir or --keys-dir)")
    key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    if not isinstance(key, Ed25519PrivateKey):
        fail(f"{key_path} does not hold an Ed25519 private key")
    origin = args.origin or os.environ.get("METIS_LOG_ORIGIN") or default_origin(key.public_key())
    if args.vkey:
        print(vkey_of(origin, key.public_key()))
        return EXIT_OK
    sth = latest_tree_head(args)
    if sth is None:
        fail("no signed tree head yet (the server signs one every few seconds after a write)")
    try:
        sys.stdout.write(checkpoint_for_head(sth, key, origin))
    except CheckpointError as exc:
        fail(str(exc))
    return EXIT_OK


def cmd_mathlas(args: argparse.Namespace) -> int:
    from abilities.mathlas.cli import main as mathlas_main

    rest = list(args.rest)
    if not rest or rest[0] in ("-h", "--help", "help"):
        return mathlas_main(["--help"])
    return mathlas_main(rest)


# -- parser -----------------------------------------------------------------------------------

EPILOG = """exit codes: 0 done (the action completed), 1 the action did not complete or the server
refused the call, 2 usage or input error, 3 cannot reach the server, 130 interrupted.
environment: METIS_URL, METIS_TOKEN, METIS_DATA_DIR, METIS_TIMEOUT, METIS_RECONNECT_TIMEOUT
(client commands); METIS_HOST, METIS_PORT, ... (serve, see docs/operations.md)."""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="metis", description="Metis action orchestrator", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def client_opts(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--url", default=None, help="server URL (default METIS_URL, else http://127.0.0.1:8787)")
        sp.add_argument("--token", default=None, help="bearer token (else METIS_TOKEN, else <data-dir>/tokens.json)")
        sp.add_argument("--data-dir", default=None, help="where tokens.json is (default METIS_DATA_DIR, else .metis)")

    s = sub.add_parser("serve", help="run the service on the embedded default")
    s.add_argument("--host", default=None, help="default 127.0.0.1 (or METIS_HOST)")
    s.add_argument("--port", default=None, help="default 8787 (or METIS_PORT); 0 picks a free port")
    s.add_argument("--data-dir", default=None, help="default .metis (or METIS_DATA_DIR)")
    s.add_argument("--tokens", default=None, help="JSON file {token: {tenant, roles}}")
    s.add_argument("--concurrency", default=None, help="actions running at once (default 4)")
    s.add_argument("--workers", default=None, help="worker processes started up front (default 4); with "
                   "--database, 0 makes a replica that only serves (`metis worker` processes run the actions)")
    s.add_argument("--wu-event-aliases", action="store_true", default=None,
                   help="allow ?aliases=wu on streams: legacy wu_* event names (off by default)")
    s.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    s.set_defaults(fn=cmd_serve)

    c = sub.add_parser("call", help="call one ToolBus method and print the result")
    c.add_argument("method")
    c.add_argument("params", nargs="?", help="JSON params, @file.json, or - (stdin)")
    c.add_argument("--role", default="partner", help="which token of tokens.json to use")
    c.add_argument("--json", action="store_true", help="one compact JSON line")
    client_opts(c)
    c.set_defaults(fn=cmd_call)

    r = sub.add_parser("run", help="start an action and wait for its end (exit 0 only if it completed)")
    r.add_argument("ability")
    r.add_argument("--inputs", required=True, help="JSON object, @file.json, or - (stdin)")
    r.add_argument("--budgets", help='JSON, e.g. {"wall_s": 30}')
    r.add_argument("--purpose", help="seed purpose (same purpose + inputs => same outputs)")
    r.add_argument("--topic", help="topic to start the action on (default: its own id)")
    r.add_argument("--idempotency-key", help="start at most once per key")
    r.add_argument("--follow", action="store_true", help="print every event as it arrives")
    r.add_argument("--json", action="store_true", help="JSON lines even on a terminal")
    client_opts(r)
    r.set_defaults(fn=cmd_run)

    f = sub.add_parser("follow", help="print a topic's events (SSE), resuming after disconnects")
    f.add_argument("topic")
    f.add_argument("--last-event-id", type=int, default=None, help="start after this event id")
    f.add_argument("--until-done", action="store_true", help="exit once every action of the topic has ended")
    f.add_argument("--json", action="store_true", help="JSON lines even on a terminal")
    client_opts(f)
    f.set_defaults(fn=cmd_follow)

    i = sub.add_parser("input", help="answer a question an action asked (action_waiting_user)")
    i.add_argument("action_id", metavar="ACTION_ID")
    i.add_argument("request_id", metavar="REQUEST_ID")
    i.add_argument("value", metavar="VALUE_JSON", help="the answer: JSON, @file.json, or - (stdin)")
    client_opts(i)
    i.set_defaults(fn=cmd_input)

    rc = sub.add_parser("receipts", help="receipt log tools")
    rsub = rc.add_subparsers(dest="receipts_cmd", required=True)
    v = rsub.add_parser("verify", help="verify a data directory offline")
    v.add_argument("--data-dir", default=".metis")
    v.add_argument("--from-seq", type=int, default=None)
    v.add_argument("--to-seq", type=int, default=None)
    v.set_defaults(fn=cmd_receipts)

    ck = rsub.add_parser("checkpoint", help="print the latest tree head as a C2SP signed checkpoint (signed note)")
    ck.add_argument("--data-dir", default=".metis")
    ck.add_argument("--origin", default=None, help="the log's origin line (or METIS_LOG_ORIGIN); "
                                                    "default metis.receipts/<key id>")
    ck.add_argument("--vkey", action="store_true", help="print the verifier key (name+hash+key) instead")
    ck.set_defaults(fn=cmd_checkpoint)

    from orchestrator import db  # --database/--keys-dir (PostgreSQL mode)

    db.add_commands(sub, v, s)
    from orchestrator import worker_tier  # metis worker: the worker tier of a PostgreSQL deployment

    worker_tier.add_command(sub)
    db.database_option(ck, " to read the PostgreSQL log's tree heads instead of --data-dir")
    db.keys_option(ck)

    m = sub.add_parser("mathlas", help="mathlas tools: a number, a sequence, a query, or 'mcp' ('metis mathlas help')",
                       add_help=False)
    m.add_argument("rest", nargs=argparse.REMAINDER)
    m.set_defaults(fn=cmd_mathlas)
    return p


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the interpreter's final flush is silent."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv[:1] == ["mathlas"]:  # its own parser: argparse's REMAINDER would swallow --help
            return cmd_mathlas(argparse.Namespace(rest=argv[1:]))
        args = build_parser().parse_args(argv)
        return int(args.fn(args) or 0)
    except UsageError as exc:
        print(f"metis: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ConnectionLost as exc:
        print(f"metis: {exc.message}", file=sys.stderr)
        return EXIT_UNREACHABLE
    except MetisError as exc:
        print(f"metis: {explain_error(exc)}", file=sys.stderr)
        return exit_code(exc)
    except KeyboardInterrupt:
        with contextlib.suppress(Exception):
            print("\nmetis: interrupted", file=sys.stderr)
            for action_id, topic in STARTED:
                print(f"metis: {action_id} goes on on the server: follow it with `metis follow {topic} --until-done`, "
                      f"stop it with `metis call actions.cancel '{{\"action_id\": \"{action_id}\"}}'`", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_PIPE


if __name__ == "__main__":
    sys.exit(main())
