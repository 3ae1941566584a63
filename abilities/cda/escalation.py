"""CUP -> CDA escalation policy (spec §9): which signals fire, when to escalate, what to reserve."""

from __future__ import annotations

from dataclasses import dataclass

SIGNALS = ("contradictions", "high_doubt", "low_confidence_band", "policy_risk", "critical_decision")
RESERVE_FRACTION = 0.2
RESERVE_MIN_S = 20.0


@dataclass(frozen=True)
class Escalation:
    escalate: bool
    fired: tuple[str, ...]
    reason: str
    reserve_s: float | None


def reserve_for(parent_wall_s: float | None) -> float | None:
    """Wall time an escalated cda must have: max(20% of the parent's wall, 20 s)."""
    if parent_wall_s is None:
        return None
    return max(RESERVE_FRACTION * parent_wall_s, RESERVE_MIN_S)


def decide(signals: dict[str, bool], risk_class: str, parent_wall_s: float | None) -> Escalation:
    """Escalate when any 2 of the 5 signals fire, or at once for ``risk_class: hard``."""
    fired = tuple(s for s in SIGNALS if signals.get(s))
    if risk_class == "hard":
        return Escalation(True, fired, "risk_class_hard", reserve_for(parent_wall_s))
    if len(fired) >= 2:
        return Escalation(True, fired, "two_or_more_signals", reserve_for(parent_wall_s))
    return Escalation(False, fired, "below_threshold", None)


def can_proceed(esc: Escalation, wall_left_s: float | None) -> bool:
    """An escalated run proceeds only if the reservation still fits in what is left."""
    if not esc.escalate or esc.reserve_s is None or wall_left_s is None:
        return True
    return wall_left_s >= esc.reserve_s


#: A next test spawns a sub-action (spec §4 escalation) only when it is worth its budget: it must be
#: expected to discriminate (information gain in bits) and the action's wall budget must leave room.
SUB_MIN_POWER = 0.05
SUB_MIN_WALL_S = 10.0
SUB_PER_ABILITY = 1


def worth_spawning(power: float, wall_s: float | None) -> tuple[bool, str]:
    """Decided from the test's power and the action's *budget* (never the clock), so a replayed run
    decides the same way."""
    if power < SUB_MIN_POWER:
        return False, f"expected discriminative power {power} below {SUB_MIN_POWER} bits"
    if wall_s is not None and wall_s < SUB_MIN_WALL_S:
        return False, f"wall budget {wall_s} s below {SUB_MIN_WALL_S} s"
    return True, "worth its budget"
