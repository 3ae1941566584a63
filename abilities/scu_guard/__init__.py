"""scu_guard: the Symbolic Constraint Unlock guard (lock, echo, deterministic acceptance)."""
