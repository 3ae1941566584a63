"""The spec's LOCKED_CONSTRAINTS prompt (step 2: re-inject and echo), built byte-for-byte stably."""

from __future__ import annotations

import json
from typing import Any

REFUSAL = "not in context"


def build_prompt(question: str, evidence_chunks: list[dict[str, str]], lock: dict[str, Any]) -> str:
    """The prompt a client's model answers; it must echo the locked constraints verbatim."""
    ctx = "\n\n".join(f"[{c['id']}] {c['text']}" for c in evidence_chunks)
    return f"""
LOCKED_CONSTRAINTS (hash={lock["hash"]}):
{json.dumps(lock["constraints"], ensure_ascii=False, indent=2)}

POLICY:
- Use only EVIDENCE facts; if insufficient, reply exactly: {REFUSAL}
- Output JSON ONLY with fields:
  claim: string
  citations: [id,...]
  constraints_echo: [string,...]  # must match LOCKED_CONSTRAINTS verbatim

Question: {question}

EVIDENCE:
{ctx}
""".strip()
