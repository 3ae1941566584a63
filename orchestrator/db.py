"""``metis db upgrade|status``, ``metis keys init`` and the ``--database``/``--keys-dir`` options.

The distributed mode keeps the receipt log in PostgreSQL and the keys every replica must share
(the server key behind seeds and stream tokens, the tree-head signing key) in one directory,
mounted read-only on every replica (a Kubernetes Secret). These commands prepare both; the CLI
module only registers them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ENV_DATABASE = "METIS_DATABASE_URL"
ENV_KEYS = "METIS_KEYS_DIR"


def database_option(parser: argparse.ArgumentParser, required_help: str = "") -> None:
    parser.add_argument("--database", default=os.environ.get(ENV_DATABASE) or None,
                        help=f"postgresql://user@host:5432/db (or {ENV_DATABASE}){required_help}")


def keys_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--keys-dir", default=os.environ.get(ENV_KEYS) or None,
                        help=f"directory with server.key and signing_key.pem shared by all replicas (or {ENV_KEYS}); "
                             "default: the data directory")


def _quiet_logs() -> None:
    """Log lines go to stderr, warnings only: stdout carries the command's JSON."""
    from orchestrator.logconfig import configure_logging

    configure_logging("warning")


def _need_database(args: argparse.Namespace) -> str:
    from receipts.store import is_postgres_url

    _quiet_logs()
    if not args.database:
        sys.exit(f"metis: no database: pass --database postgresql://... or set {ENV_DATABASE}")
    if not is_postgres_url(args.database):
        sys.exit("metis: --database must be a postgresql:// URL")
    return args.database


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    from receipts.postgres import upgrade
    from receipts.store import StorageUnavailable

    try:
        applied = upgrade(_need_database(args), wait_s=args.wait)
    except StorageUnavailable as exc:
        print(f"metis: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"applied": applied}))
    return 0


def cmd_db_status(args: argparse.Namespace) -> int:
    from receipts import migrations
    from receipts.postgres import CONNECTION_ERRORS, connect

    try:
        with connect(_need_database(args), app="metis-status") as conn:
            status = {"applied": migrations.applied_versions(conn), "pending": migrations.pending(conn)}
    except CONNECTION_ERRORS as exc:
        print(f"metis: database unavailable: {str(exc).strip()[:200]}", file=sys.stderr)
        return 2
    print(json.dumps(status))
    return 0 if not status["pending"] else 1


def cmd_keys_init(args: argparse.Namespace) -> int:
    """Create the shared keys once (existing ones are kept); prints what the directory holds."""
    from orchestrator.seeds import load_or_create_key
    from receipts.signing import TreeHeadSigner

    _quiet_logs()
    keys = Path(args.keys_dir or ".metis-keys")
    keys.mkdir(parents=True, exist_ok=True)
    os.chmod(keys, 0o700)
    load_or_create_key(keys)
    signer = TreeHeadSigner.load_or_create(keys)
    print(json.dumps({"keys_dir": str(keys), "files": sorted(p.name for p in keys.iterdir()),
                      "signing_key_id": signer.key_id}))
    return 0


def verify_database_command(args: argparse.Namespace) -> int:
    """``metis receipts verify --database URL``: the PostgreSQL log, offline (no server needed)."""
    from receipts.postgres import verify_database
    from receipts.store import StorageUnavailable

    try:
        report = verify_database(_need_database(args), Path(args.keys_dir) if args.keys_dir else None,
                                 args.from_seq or 1, args.to_seq)
    except StorageUnavailable as exc:
        print(f"metis: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.as_dict(), indent=2))
    return 0 if report.ok else 1


def add_commands(sub: argparse._SubParsersAction, verify: argparse.ArgumentParser,
                 serve: argparse.ArgumentParser | None = None) -> None:
    """Register ``db`` and ``keys``, and the ``--database``/``--keys-dir`` options of ``receipts
    verify`` (and of ``serve`` when given)."""
    d = sub.add_parser("db", help="PostgreSQL schema: upgrade, status")
    dsub = d.add_subparsers(dest="db_cmd", required=True)
    up = dsub.add_parser("upgrade", help="apply missing migrations (safe while replicas run or start)")
    database_option(up)
    up.add_argument("--wait", type=float, default=0.0, help="seconds to wait for the database to come up")
    up.set_defaults(fn=cmd_db_upgrade)
    st = dsub.add_parser("status", help="applied and pending migrations (exit 1 if some are pending)")
    database_option(st)
    st.set_defaults(fn=cmd_db_status)

    k = sub.add_parser("keys", help="the keys all replicas share")
    ksub = k.add_subparsers(dest="keys_cmd", required=True)
    ki = ksub.add_parser("init", help="create server.key and the tree-head signing key (kept if present)")
    keys_option(ki)
    ki.set_defaults(fn=cmd_keys_init)

    database_option(verify, " to verify the PostgreSQL log instead of --data-dir")
    keys_option(verify)
    default = verify.get_default("fn")

    def verify_either(args: argparse.Namespace) -> int:
        return verify_database_command(args) if args.database else default(args)

    verify.set_defaults(fn=verify_either)
    if serve is not None:
        database_option(serve, "; default: the embedded SQLite log in --data-dir")
        keys_option(serve)
