"""The ``sandbox`` ability: run a deterministic code check in the confined runner."""
