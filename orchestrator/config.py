"""Service settings: one dataclass, filled by the CLI (flags) or by tests."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8787
    data_dir: Path = Path(".metis")
    tokens_file: Path | None = None
    max_concurrent: int = 4
    warm_workers: int = 4
    max_workers: int = 16
    max_message_bytes: int = 1024 * 1024
    max_batch: int = 100
    rate_per_s: float = 500.0
    rate_burst: float = 1000.0
    heartbeat_s: float = 15.0
    send_timeout_s: float = 10.0
    subscriber_buffer: int = 4096
    tree_head_interval_s: float = 5.0
    max_wall_s: float = 3600.0
    wu_event_aliases: bool = False  # cda §13: legacy wu_* event names on request (?aliases=wu)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then METIS_* environment variables, then explicit overrides."""
        s = cls()
        for name in cls.__dataclass_fields__:
            env = os.environ.get("METIS_" + name.upper())
            if env is not None:
                current = getattr(s, name)
                if isinstance(current, bool):
                    setattr(s, name, env.strip().lower() in ("1", "true", "yes", "on"))
                else:
                    setattr(s, name, (type(current) if current is not None else Path)(env))
        for key, value in overrides.items():
            if value is not None:
                setattr(s, key, value)
        s.data_dir = Path(s.data_dir)
        return s
