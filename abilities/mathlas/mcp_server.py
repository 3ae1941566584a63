"""mathlas as an MCP server over stdio, built on the official ``mcp`` SDK (low-level Server).

Exposes the twelve tools with the JSON schemas of their pydantic argument models; every call
goes through ``tools.call_tool`` (the same code as the ability and the CLI). Tool failures and
bad arguments come back as ``is_error`` results naming the field, so the client can self-correct.
Run: ``python -m abilities.mathlas.mcp_server`` (or ``metis mathlas mcp``).
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types
from pydantic import ValidationError

from abilities.mathlas.tools import TOOLS, call_tool, input_schema

SERVER_NAME = "mathlas"


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[types.Tool(name=name, description=desc, input_schema=input_schema(name))
                                        for name, (_, _, desc) in TOOLS.items()])


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


async def _call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    name, args = params.name, params.arguments or {}
    if name not in TOOLS:
        return _error(f"unknown tool {name!r}; known tools: {', '.join(TOOLS)}")
    try:
        result = await anyio.to_thread.run_sync(call_tool, name, args)
    except ValidationError as exc:
        msgs = [f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()[:5]]
        return _error(f"invalid arguments for {name}: " + "; ".join(msgs))
    except (ValueError, ArithmeticError) as exc:
        return _error(f"{name} failed: {str(exc)[:300]}")
    return types.CallToolResult(content=[types.TextContent(text=json.dumps(result, sort_keys=True))],
                                structured_content=result)


def build_server() -> Any:
    """The SDK server object with the mathlas handlers."""
    from mcp.server.lowlevel import Server

    return Server(SERVER_NAME, version="1.0.0",
                  instructions="No-LLM math tools: identify constants/sequences, search results, verify claims.",
                  on_list_tools=_list_tools, on_call_tool=_call_tool)


def serve_stdio() -> None:
    """Serve the twelve tools over stdin/stdout until the client closes the stream."""
    from mcp.server.stdio import stdio_server

    server = build_server()

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)


if __name__ == "__main__":
    serve_stdio()
