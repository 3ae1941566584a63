"""Where the server is and which token to use: URLs and the environment (``Client.from_env``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from metis_client.errors import CONFIG_ERROR, MetisError

DEFAULT_URL = "http://127.0.0.1:8787"


def split_url(url: str) -> tuple[str, str]:
    """``(ws://host:port/toolbus, http://host:port)`` from any of ``http(s)://host:port``,
    ``ws(s)://host:port`` or either with ``/toolbus``."""
    parts = urlsplit(url.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme)
    if scheme is None or not parts.netloc:
        raise MetisError(CONFIG_ERROR, f"not a Metis URL: {url!r} (expected http://HOST:PORT or ws://HOST:PORT)")
    path = parts.path.rstrip("/")
    if path.endswith("/toolbus"):
        path = path[: -len("/toolbus")]
    http_scheme = "https" if scheme == "wss" else "http"
    return (urlunsplit((scheme, parts.netloc, path + "/toolbus", "", "")),
            urlunsplit((http_scheme, parts.netloc, path, "", "")))


def token_from_file(path: Path, role: str) -> str | None:
    """The first token of ``role`` in a tokens file ``{token: {tenant, roles}}``."""
    try:
        tokens = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise MetisError(CONFIG_ERROR, f"cannot read tokens file {path}: {exc}") from None
    if not isinstance(tokens, dict):
        raise MetisError(CONFIG_ERROR, f"tokens file {path} is not a JSON object")
    for token, spec in tokens.items():
        if isinstance(spec, dict) and role in spec.get("roles", []):
            return str(token)
    return None


def find_token(role: str = "partner", data_dir: str | os.PathLike[str] | None = None) -> str:
    """``METIS_TOKEN``, else a ``role`` token from ``<data dir>/tokens.json`` (``METIS_DATA_DIR``,
    default ``.metis``): the file ``metis serve`` writes on first start."""
    if os.environ.get("METIS_TOKEN"):
        return os.environ["METIS_TOKEN"]
    path = Path(data_dir or os.environ.get("METIS_DATA_DIR") or ".metis") / "tokens.json"
    token = token_from_file(path, role)
    if token is None:
        raise MetisError(CONFIG_ERROR, f"no token: set METIS_TOKEN, pass token=..., or run next to {path} "
                                       f"(with a {role!r} token in it)")
    return token
