"""Settings, validated: the service's (``Settings``) and the CLI client's (``ClientSettings``).

Defaults, then ``METIS_*`` environment variables, then explicit overrides (flags or tests). A bad
value is a ``pydantic.ValidationError`` naming the field; the CLI turns it into one clear line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from metis_client.config import DEFAULT_URL, split_url
from metis_client.errors import MetisError

_ENV = SettingsConfigDict(env_prefix="METIS_", extra="ignore", case_sensitive=False)


class Settings(BaseSettings):
    model_config = _ENV

    host: str = Field("127.0.0.1", min_length=1)
    port: int = Field(8787, ge=0, le=65535)
    data_dir: Path = Path(".metis")
    tokens_file: Path | None = None
    max_concurrent: int = Field(4, ge=1)
    warm_workers: int = Field(4, ge=0)
    max_workers: int = Field(16, ge=1)
    max_message_bytes: int = Field(1024 * 1024, ge=1024)
    max_batch: int = Field(100, ge=1)
    rate_per_s: float = Field(500.0, gt=0)
    rate_burst: float = Field(1000.0, gt=0)
    tenant_start_rate_per_s: float | None = Field(None, gt=0)  # actions.start per tenant across replicas; None: no limit
    tenant_start_burst: float = Field(20.0, gt=0)
    heartbeat_s: float = Field(15.0, gt=0)
    send_timeout_s: float = Field(10.0, gt=0)
    subscriber_buffer: int = Field(4096, ge=1)
    tree_head_interval_s: float = Field(5.0, gt=0)
    max_wall_s: float = Field(3600.0, gt=0)
    retry_attempts: int = Field(3, ge=1)  # runs of an action whose worker or server died, then failed
    retry_backoff_s: float = Field(0.5, ge=0)  # before the 2nd run; doubles per attempt (max 30 s)
    wu_event_aliases: bool = False  # cda §13: legacy wu_* event names on request (?aliases=wu)
    database_url: str | None = None  # PostgreSQL mode (METIS_DATABASE_URL); None: the embedded SQLite log
    keys_dir: Path | None = None  # signing/server keys outside the data dir (METIS_KEYS_DIR)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        """Defaults, then METIS_* environment variables, then the overrides that are not None."""
        return cls(**{k: v for k, v in overrides.items() if v is not None})


class ClientSettings(BaseSettings):
    """What the CLI's client commands need: where the server is and how long to wait."""

    model_config = _ENV

    url: str = DEFAULT_URL
    token: str | None = None
    data_dir: Path = Path(".metis")
    timeout: float = Field(30.0, gt=0, description="seconds to wait for one call")
    reconnect_timeout: float = Field(15.0, ge=0, description="seconds to keep trying after losing the server")

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        try:
            split_url(value)
        except MetisError as exc:
            raise ValueError(exc.message) from None
        return value

    @classmethod
    def from_env(cls, **overrides: Any) -> ClientSettings:
        return cls(**{k: v for k, v in overrides.items() if v is not None})


def explain(exc: ValidationError, flags: dict[str, str] | None = None) -> str:
    """One line per bad setting, naming the environment variable (and the flag, if any)."""
    lines = []
    for err in exc.errors():
        name = str(err["loc"][0]) if err["loc"] else "settings"
        where = f"METIS_{name.upper()}"
        if flags and name in flags:
            where = f"{flags[name]} / {where}"
        value = err.get("input")
        shown = f" (got {value!r})" if isinstance(value, str | int | float) else ""
        lines.append(f"{where}: {err['msg']}{shown}")
    return "; ".join(lines)
