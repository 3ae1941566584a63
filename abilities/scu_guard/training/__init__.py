"""Training of the pair model (needs the optional ``train`` extra: torch, onnx); never imported at run time."""
