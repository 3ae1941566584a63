"""Every worked example in docs/ (and the README) runs against a real server, so none can rot.

A fenced block is an example when its info string holds the word ``example``:

- ```` ```python example ````: a program, run with the repository's Python; it must exit 0.
- ```` ```sh example ````: shell lines, run with ``bash -euo pipefail``; they must exit 0.
- ```` ```json example ````: a ToolBus transcript. Lines starting ``→`` (or ``->``) are requests,
  sent in order; a string holding ``…`` (or ``...``) takes the value of the same key from an
  earlier answer (``"action_id":"act_…"``). Lines starting ``←`` (or ``<-``) are the answers:
  each ``"key": value`` in them without an ellipsis must be found in the real answer. An
  ``actions.input`` answers the open question of the last started action. Every started action
  must end ``completed`` (or what ``status=...`` in the info string names).
- ```` ```text example ```` (or ``events example``): event lines (``action_checkpoint kind=plan_delta ...``
  or ``action_checkpoint plan_delta ...``) that must occur, in this order, among the events of
  the actions the file's previous transcript started.

Programs run in a scratch directory holding ``.metis`` (the server's data directory, with a
``tokens.json``) and ``.venv`` (this repository's), with ``METIS_URL`` set: as in a checkout next
to a running ``./scripts/serve``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from metis_client import Client, MetisError
from tests.support import ROOT, MetisServer, token_for

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
ELLIPSIS = ("…", "...")
PAIR = re.compile(r'"(\w+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)')
DOCS = sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"])
# Worked-example sections whose blocks are not tagged yet (each should shrink to nothing).
PENDING = {"docs/abilities/crl_math.md"}


@dataclass
class Example:
    kind: str
    info: dict[str, str]
    code: str
    line: int


def examples(path: Path) -> list[Example]:
    text = path.read_text()
    out = []
    for m in FENCE.finditer(text):
        words = m.group(1).split()
        if "example" in words:
            info = dict(w.split("=", 1) for w in words if "=" in w)
            out.append(Example(words[0] if words[0] != "example" else "text", info, m.group(2),
                               text[: m.start()].count("\n") + 1))
    return out


FILES = [p for p in DOCS if examples(p)]


@pytest.fixture(scope="module")
def scratch(metis_server: MetisServer, tmp_path_factory) -> Path:
    """A directory that looks like a checkout next to a running server."""
    d = tmp_path_factory.mktemp("docs-examples")
    tokens = {token_for(r): {"tenant": "acme", "roles": [r]} for r in ("partner", "canvas", "reviewer", "approver")}
    path = metis_server.data_dir / "tokens.json"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # secrets: owner only, like the server's
    with os.fdopen(fd, "w") as fh:
        json.dump(tokens, fh)
    (d / ".metis").symlink_to(metis_server.data_dir)
    (d / ".venv").symlink_to(ROOT / ".venv")
    return d


def env_for(server: MetisServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("METIS_")}
    env.update({"METIS_URL": server.http_url, "PYTHONPATH": str(ROOT),
                "PATH": f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}"})
    return env


def found(value: Any, key: str, want: Any) -> bool:
    """``key: want`` somewhere in ``value``."""
    if isinstance(value, dict):
        return any((k == key and v == want) or found(v, key, want) for k, v in value.items())
    if isinstance(value, list):
        return any(found(v, key, want) for v in value)
    return False


def remember(state: dict[str, Any], value: Any) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, str | int | float | bool):
                state[k] = v
            remember(state, v)
    elif isinstance(value, list):
        for v in value:
            remember(state, v)


def messages(code: str) -> list[tuple[str, str]]:
    """``[(direction, text)]`` of a transcript; other lines end the current message."""
    out: list[tuple[str, str]] = []
    open_ = False
    for line in code.splitlines():
        stripped = line.strip()
        for mark, direction in (("→", ">"), ("->", ">"), ("←", "<"), ("<-", "<")):
            if stripped.startswith(mark):
                out.append((direction, stripped[len(mark):].strip()))
                open_ = True
                break
        else:
            if open_ and line.startswith((" ", "\t")) and stripped:
                out[-1] = (out[-1][0], out[-1][1] + " " + stripped)
            else:
                open_ = False  # a blank or unindented line ends the message
    return out


def fill(text: str, state: dict[str, Any]) -> Any:
    def sub(m: re.Match[str]) -> str:
        key, value = m.group(1), m.group(2)
        if any(e in value for e in ELLIPSIS) and key in state:
            return f'"{key}": {json.dumps(state[key])}'
        return m.group(0)

    return json.loads(PAIR.sub(sub, text))


def expected_pairs(text: str) -> list[tuple[str, Any]]:
    pairs = []
    for key, raw in PAIR.findall(text):
        if key in ("jsonrpc", "id") or any(e in raw for e in ELLIPSIS):
            continue
        pairs.append((key, json.loads(raw)))
    return pairs


async def run_transcript(server: MetisServer, ex: Example, started: list[dict[str, Any]]) -> None:
    state: dict[str, Any] = {}
    async with Client(server.http_url, token=server.token()) as c:
        answer: Any = None
        for direction, text in messages(ex.code):
            if direction == "<":
                if answer is not None:
                    for key, want in expected_pairs(text):
                        assert found(answer, key, want), f"line {ex.line}: {key}={want!r} not in {answer}"
                continue
            msg = fill(text, state)
            method, params = msg["method"], msg.get("params", {})
            if method == "actions.input" and started:
                params["request_id"] = await open_request(c, started[-1]["action_id"])
            try:
                result = await c.call(method, params, timeout=120)
                answer = {"result": result}
            except MetisError as exc:
                answer = {"error": {"code": exc.code, "message": exc.message, "data": exc.data}}
            remember(state, answer)
            if method == "actions.start" and "result" in answer:
                started.append(answer["result"])
        want = ex.info.get("status", "completed")
        for s in started:
            view = await c.action(s["action_id"], s["topic"]).result(timeout=180)
            assert view["status"] == want, f"line {ex.line}: {s['action_id']} ended {view['status']}: {view.get('error')}"


async def open_request(c: Client, action_id: str) -> str:
    for _ in range(600):
        view = await c.call("actions.get", {"action_id": action_id})
        if view.get("pending"):
            return view["pending"][0]["request_id"]
        assert view["status"] not in ("completed", "partial", "failed", "cancelled"), view
        await asyncio.sleep(0.1)
    raise AssertionError(f"{action_id} never asked a question")


async def event_names(server: MetisServer, started: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    out = []
    async with Client(server.http_url, token=server.token()) as c:
        for s in started:
            async for ev in c.action(s["action_id"], s["topic"]).events():
                if ev.action_id == s["action_id"]:
                    out.append((ev.event, ev.kind))
    return out


def listed_events(code: str) -> list[tuple[str, str | None]]:
    out = []
    for line in code.splitlines():
        words = line.split()
        if not words or not words[0].startswith("action_"):
            continue
        kind = None
        if len(words) > 1:
            m = re.match(r"kind=(\w+)", words[1])
            kind = m.group(1) if m else (words[1] if re.fullmatch(r"[a-z_]+", words[1]) else None)
        out.append((words[0], kind))
    return out


def is_subsequence(want: list, have: list) -> bool:
    it = iter(have)
    return all(any(w == h or (w[1] is None and w[0] == h[0]) for h in it) for w in want)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_worked_examples_run(path: Path, metis_server: MetisServer, scratch: Path):
    started: list[dict[str, Any]] = []
    for ex in examples(path):
        where = f"{path.name}:{ex.line}"
        if ex.kind in ("python", "sh", "bash"):
            cmd = [sys.executable, "-c", ex.code] if ex.kind == "python" else ["bash", "-euo", "pipefail", "-c", ex.code]
            r = subprocess.run(cmd, cwd=scratch, env=env_for(metis_server), capture_output=True, text=True, timeout=240)
            assert r.returncode == 0, f"{where} exited {r.returncode}\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
            assert "Traceback" not in r.stderr, f"{where}\n{r.stderr}"
        elif ex.kind == "json":
            started = []
            asyncio.run(run_transcript(metis_server, ex, started))
        elif ex.kind in ("text", "events"):
            want = listed_events(ex.code)
            assert want and started, f"{where}: an events example needs event lines and a transcript before it"
            have = asyncio.run(event_names(metis_server, started))
            assert is_subsequence(want, have), f"{where}: {want} not in order in {have}"
        else:
            raise AssertionError(f"{where}: unknown example kind {ex.kind!r}")


def test_the_mechanism_finds_and_checks_examples(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text('text\n```json example status=partial\n→ {"method": "a", "params": {"topic": "…"}}\n'
                   '← {"result": {"status": "queued", "topic": "…"}}\n```\n```python\nprint(1)\n```\n')
    (ex,) = examples(doc)
    assert (ex.kind, ex.info, ex.line) == ("json", {"status": "partial"}, 2)
    assert messages(ex.code)[0] == (">", '{"method": "a", "params": {"topic": "…"}}')
    assert fill(messages(ex.code)[0][1], {"topic": "t1"}) == {"method": "a", "params": {"topic": "t1"}}
    assert expected_pairs(messages(ex.code)[1][1]) == [("status", "queued")]
    assert listed_events("action_started\naction_checkpoint  kind=plan_delta {}\n…\naction_checkpoint boundary_summary {")[1:] \
        == [("action_checkpoint", "plan_delta"), ("action_checkpoint", "boundary_summary")]
    assert is_subsequence([("a", None), ("c", "k")], [("a", None), ("b", None), ("c", "k")])
    assert not is_subsequence([("c", "k"), ("a", None)], [("a", None), ("c", "k")])


def test_every_worked_example_section_is_tagged():
    untagged = set()
    for path in DOCS:
        text = path.read_text()
        for m in re.finditer(r"^#+ .*[Ww]orked example.*$", text, re.M):
            section = text[m.end():]
            nxt = re.search(r"^#+ ", section, re.M)
            if not examples_in(section[: nxt.start()] if nxt else section):
                untagged.add(str(path.relative_to(ROOT)))
    assert untagged <= PENDING, f"worked examples without an `example` block: {sorted(untagged - PENDING)}"


def examples_in(text: str) -> bool:
    return any("example" in m.group(1).split() for m in FENCE.finditer(text))
