"""The CLI (``python -m abilities.mathlas``) and the MCP server (the official SDK's stdio client
against a real ``python -m abilities.mathlas.mcp_server`` subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "abilities.mathlas", *args], cwd=ROOT, env=ENV,
                          capture_output=True, text=True, timeout=120, check=False)


def test_cli_auto_routes_the_three_examples():
    const = cli("1.6449340668")
    assert const.returncode == 0 and const.stdout.startswith("1.6449340668 = pi**2/6")
    seq = cli("1,1,2,3,5,8,13,21")
    assert seq.returncode == 0 and seq.stdout.startswith("A000045")
    text = cli("fixed point of a contraction", "--json")
    out = json.loads(text.stdout)
    assert out["tool"] == "search_existing_math" and out["result"]["results"][0]["name"] == "Banach fixed-point theorem"


def test_cli_bad_input_names_the_field():
    few = cli("1,2,3")
    assert few.returncode == 2 and "terms" in few.stderr
    nan = cli("nan")
    assert nan.returncode == 2 and "value" in nan.stderr
    tool = cli("tool", "verify_numeric", json.dumps({"value": "1.5", "closed_form": "pi", "dps_verify": 10**6}))
    assert tool.returncode == 2 and "dps_verify" in tool.stderr
    unknown = cli("tool", "nope", "{}")
    assert unknown.returncode == 2 and "unknown tool" in unknown.stderr


async def test_mcp_server_over_stdio_with_the_sdk_client():
    params = StdioServerParameters(command=sys.executable, args=["-m", "abilities.mathlas.mcp_server"],
                                   cwd=str(ROOT), env={"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert len(tools) == 12
        by_name = {t.name: t for t in tools}
        assert by_name["identify_sequence"].input_schema["properties"]["terms"]["minItems"] == 4
        res = await session.call_tool("identify_constant", {"value": "1.6449340668"})
        assert not res.is_error and res.structured_content["best"] == "pi**2/6"
        seq = await session.call_tool("identify_sequence", {"terms": [1, 1, 2, 3, 5, 8, 13, 21]})
        assert json.loads(seq.content[0].text)["matches"][0]["a_number"] == "A000045"
        bad = await session.call_tool("identify_sequence", {"terms": [1, 2]})
        assert bad.is_error and "terms" in bad.content[0].text
        unknown = await session.call_tool("not_a_tool", {})
        assert unknown.is_error and "unknown tool" in unknown.content[0].text
