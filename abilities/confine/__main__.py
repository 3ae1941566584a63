"""``python -m abilities.confine``: can this host run untrusted code? Prints the jail or the refusal.

Exit status 0 when a candidate was confined and answered, 1 when the sandbox is unavailable here
(the reason names the step that failed: user namespaces, mounts, libseccomp...).
"""

from __future__ import annotations

import json
import sys

from abilities.confine.session import ConfinementUnavailable, Limits, Session

PROBE = "import os\ndef probe():\n    return {'pid': os.getpid(), 'uid': os.getuid(), 'root': sorted(os.listdir('/'))}\n"


def main() -> int:
    try:
        with Session(PROBE, "probe", Limits(cpu_s=2, wall_s=20)) as box:
            seen = box.call()
            isolation = box.isolation
    except ConfinementUnavailable as exc:
        print(json.dumps({"ok": False, "error": str(exc)}, indent=1))
        return 1
    print(json.dumps({"ok": True, "isolation": isolation, "inside": seen}, indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
