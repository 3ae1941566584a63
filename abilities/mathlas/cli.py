"""The mathlas CLI: one argument, auto-routed.

    mathlas 1.6449340668            -> identify_constant (pi**2/6)
    mathlas 1,1,2,3,5,8,13,21       -> identify_sequence (A000045)
    mathlas "fixed point of a contraction" -> search_existing_math + checklist of the top result
    mathlas tool NAME '{"json": "args"}'   -> any of the twelve tools, JSON out
    mathlas mcp                     -> the MCP server over stdio
Add ``--json`` for machine-readable output. Exit codes: 0 ok, 2 bad input.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from pydantic import ValidationError

from abilities.mathlas.tools import TOOLS, call_tool

USAGE = __doc__ or ""
INT_LIST = re.compile(r"^\s*-?\d+(\s*[,\s]\s*-?\d+)+\s*$")
NUMBERISH = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf|infinity)$", re.I)


def _route(text: str) -> tuple[str, dict[str, Any]]:
    if INT_LIST.match(text) and ("," in text or " " in text.strip()):
        return "identify_sequence", {"terms": [int(t) for t in re.split(r"[,\s]+", text.strip()) if t]}
    if NUMBERISH.match(text.strip()) or re.match(r"^[+-]?[\d.]+$", text.strip()):
        return "identify_constant", {"value": text.strip()}
    return "search_existing_math", {"query": text, "k": 5}


def _human(tool: str, r: dict[str, Any]) -> str:
    if tool == "identify_constant":
        if r["identified"]:
            c = r["candidates"][0]
            lines = [f"{r['query']} = {r['best']}",
                     f"  agrees to {c['digits_agreed']} of {r['supplied_digits']} digits; verified by an independent "
                     f"sympy re-evaluation at {c['verify']['dps']} digits over {c['verify']['holdout_digits']} held-out digits"]
            lines += [f"  also: {c2['expr']}" for c2 in r["candidates"][1:3]]
            return "\n".join(lines)
        return f"{r['query']}: unidentified ({r.get('unidentified_reason')})"
    if tool == "identify_sequence":
        if not r["matches"]:
            return f"no match: {r['note']}"
        return "\n".join([f"{m['a_number']}  {m['name']}  (offset {m['offset']})" for m in r["matches"]] + [r["note"]])
    if tool == "search_existing_math":
        lines = []
        for i, x in enumerate(r["results"], 1):
            lines.append(f"{i}. {x['name']} [{x['field']}]: {x['slogan']}")
        if r.get("checklist"):
            lines.append(f"\nChecklist for {r['checklist']['result']}:")
            lines += [f"  [{i['id']}] {i['condition']}" for i in r["checklist"]["checklist"]]
        return "\n".join(lines) or "no results"
    return json.dumps(r, indent=2, sort_keys=True)


def main(argv: list[str]) -> int:
    """Run the CLI on ``argv`` (without the program name); returns the exit code."""
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    if not args or args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if args else 2
    if args[0] == "mcp":
        from abilities.mathlas.mcp_server import serve_stdio

        serve_stdio()
        return 0
    if args[0] == "tool":
        if len(args) < 2 or args[1] not in TOOLS:
            sys.stderr.write(f"error: tool: unknown tool; known tools: {', '.join(TOOLS)}\n")
            return 2
        try:
            targs = json.loads(args[2]) if len(args) > 2 else {}
        except json.JSONDecodeError as exc:
            sys.stderr.write(f"error: args: not valid JSON ({exc})\n")
            return 2
        tool, as_json = args[1], True
    else:
        tool, targs = _route(" ".join(args))
    try:
        result = call_tool(tool, targs)
    except ValidationError as exc:
        for e in exc.errors()[:5]:
            loc = ".".join(str(p) for p in e["loc"]) or "input"
            sys.stderr.write(f"error: {loc}: {e['msg']}\n")
        return 2
    except (ValueError, ArithmeticError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if tool == "search_existing_math" and result["results"] and not as_json:
        from abilities.mathlas.scaffold import applicability_checklist

        result["checklist"] = applicability_checklist(result["results"][0]["id"], " ".join(args))
    sys.stdout.write((json.dumps({"tool": tool, "result": result}, indent=2, sort_keys=True) if as_json
                      else _human(tool, result)) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
