"""The code the confined interpreter starts with (passed to ``python -c``; stdlib only).

It runs after confinement is complete, in a fresh interpreter that shares nothing with the
trusted runner. It loads the candidate's source, then answers calls of one function: each request
line on fd 0 is ``{"args": [...], "kwargs": {...}}``, each reply line on fd 3 is ``{"value": v}`` or
``{"error": "Type: message"}``. The candidate can write anything to fd 3 too; the trusted side
treats every reply as data (a value to check or score), never as a verdict. Printing goes to fd 1,
which is only kept, capped, for diagnostics.
"""

import builtins
import json
import os
import random
import sys

REPLY_FD = 3
MAX_REPLY = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20


def reply(obj):
    try:
        data = json.dumps(obj, allow_nan=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:
        data = json.dumps({"error": f"{type(exc).__name__}: the return value is not JSON data ({exc})"[:400]})
    if len(data) > MAX_REPLY:
        data = json.dumps({"error": f"ValueError: the return value is larger than {MAX_REPLY} bytes of JSON"})
    view = memoryview((data + "\n").encode("utf-8", "replace"))
    while view:
        view = view[os.write(REPLY_FD, view):]


def failure(exc):
    return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}


def main():
    requests = os.fdopen(0, "rb")
    job = json.loads(requests.readline())
    random.seed(job["seed"])
    namespace = {"__name__": "candidate", "__builtins__": builtins}
    try:
        exec(compile(job["source"], "candidate.py", "exec"), namespace)
        fn = namespace.get(job["entry"])
        if not callable(fn):
            raise NameError(f"the program must define a function named {job['entry']}")
    except BaseException as exc:  # the candidate's own failure is its answer
        reply(failure(exc))
        return
    reply({"loaded": True})
    for line in requests:
        try:
            call = json.loads(line)
            reply({"value": fn(*call["args"], **call.get("kwargs", {}))})
        except BaseException as exc:
            reply(failure(exc))


main()
