"""JSON Schema export of the cda wire models (spec §2), kept beside the package.

``python -m abilities.cda.schema`` rewrites ``abilities/cda/schemas/*.json``; a test checks the
files match the models, so the published schema never drifts from the code.
"""

from __future__ import annotations

import json
from pathlib import Path

from abilities.cda.models import CDAInputs, CDAOutputs, DisplayPlan

DIR = Path(__file__).resolve().parent / "schemas"
MODELS = {"cda_inputs": CDAInputs, "cda_outputs": CDAOutputs, "display_plan": DisplayPlan}


def render() -> dict[str, str]:
    """File name -> canonical JSON text of each model's schema (validation mode for inputs)."""
    out = {}
    for name, model in MODELS.items():
        mode = "validation" if name == "cda_inputs" else "serialization"
        out[f"{name}.schema.json"] = json.dumps(model.model_json_schema(mode=mode), indent=1, sort_keys=True) + "\n"
    return out


def write() -> None:
    DIR.mkdir(exist_ok=True)
    for name, text in render().items():
        (DIR / name).write_text(text)


if __name__ == "__main__":
    write()
