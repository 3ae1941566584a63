"""A thing told to stay in the state a duty must end: "the pitches stayed occupied", "the furnace was left running".

Why its own module: a duty set off by an occasion often changes a thing's state ("must be evacuated", "must be
shut off", "must be closed", "must be switched on"). People telling such a breach rarely deny the duty's verb;
they say the thing stayed as it was: "the riverside pitches stayed occupied", "the range stayed open", "the
furnace was left running", "the humidifier stayed off". So the reading is a verb of staying (stay, remain, keep,
be left) with a state word of going on (open, running, occupied, on, in service) or of being stopped (off, closed,
idle), and the duty's kind: a duty that stops, shuts or empties a thing is broken by a going state kept, a duty
that switches a thing on or starts it by a stopped state kept. A state the duty itself brings about ("stayed
closed" for "must be closed") is the duty done.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from abilities.scu_guard.nlp import key, word_key

# verbs of staying in a state: "stayed open", "remained occupied", "kept running", "was left on"
_STAY = frozenset({"stay", "remain", "keep", "leave"})
# their told forms, for a verb the tagger takes for an auxiliary and leaves unlemmatised ("pitches stayed occupied")
_STAY_FORMS = {"stayed": "stay", "stays": "stay", "remained": "remain", "remains": "remain", "kept": "keep",
               "keeps": "keep", "left": "leave"}
# states of a thing going on, and of a thing stopped
_GOING = frozenset({"open", "running", "occupied", "on", "operating", "operational", "active", "lit", "live",
                    "going", "working", "unlocked", "in service", "in use", "in operation"})
_STOPPED = frozenset({"off", "closed", "shut", "idle", "dark", "dormant", "offline", "stopped", "switched off"})
# duties that stop, shut, empty or secure a thing; duties that switch it on or start it
_STOP_DUTY = frozenset(word_key(w) for w in
                       "close stop halt suspend cancel evacuate shut pause lock secure vacate empty clear".split())
_STOP_PARTICLES = frozenset({"off", "down"})
_START_DUTY = frozenset(word_key(w) for w in "start begin activate light".split())
_START_PARTICLES = frozenset({"on"})


def _state_word(t: Any) -> str | None:
    """The state a complement names ("open", "running", "in service"), if it is one of the two kinds."""
    word = t.lower_
    if t.dep_ == "prep":
        # "in service", "in use"; a place is no state ("stayed on the pitch", "stayed off the road")
        objs = [c for c in t.children if c.dep_ == "pobj"]
        word = f"{word} {objs[0].lower_}" if objs else word
    return word if word in _GOING or word in _STOPPED else None


def kept_states(tokens: Iterable[Any]) -> list[tuple[Any, Any, str]]:
    """(verb of staying, the clause's head, "going" or "stopped") for each staying in a state the tokens tell:
    "stayed open", "was left running", "kept running", "remained in service". The parser may hang "stayed" on
    the state word as an auxiliary ("the pitches stayed occupied"); then the state word is the clause's head."""
    out: list[tuple[Any, Any, str]] = []
    for t in tokens:
        lemma = t.lemma_.lower() if t.lemma_.lower() in _STAY else _STAY_FORMS.get(t.lower_)
        if lemma is None:
            continue
        if lemma == "leave" and not any(c.dep_ in ("auxpass", "dobj") for c in t.children):
            continue  # "left" as going away ("the sailing left at 11:00")
        head = t.head if t.dep_ in ("aux", "auxpass") else t
        parts = [head] if head is not t else []
        parts += [c for c in t.children if c.dep_ in ("acomp", "xcomp", "prt", "oprd", "advmod", "prep", "ccomp")]
        for p in parts:
            if lemma in ("keep", "leave") and p.dep_ == "xcomp" and p.tag_ == "VBG" and p.lower_ not in _STOPPED:
                out.append((t, head, "going"))  # "kept firing", "was left idling": the doing went on
                break
            state = _state_word(p)
            if state is not None:
                out.append((t, head, "going" if state in _GOING else "stopped"))
                break
    return out


def duty_kind(consequence: set[str] | frozenset[str]) -> str | None:
    """"stop" for a duty that stops, shuts, empties or secures a thing, "start" for one that switches it on or
    starts it; None when it is neither, or both (then which thing each part speaks of is not read)."""
    stop = bool(consequence & (_STOP_DUTY | _STOP_PARTICLES))
    start = bool(consequence & (_START_DUTY | _START_PARTICLES))
    if stop == start:
        return None
    return "stop" if stop else "start"


def breaks(consequence: set[str] | frozenset[str], state: str) -> bool:
    """Does keeping a thing in ``state`` break a duty whose words are ``consequence``?"""
    kind = duty_kind(consequence)
    return (kind == "stop" and state == "going") or (kind == "start" and state == "stopped")


def holder_keys(verb: Any, head: Any) -> set[str]:
    """Keys of the thing said to stay in the state: the subject of the clause, or the object of an active
    "kept X running" / "left X on"."""
    out: set[str] = set()
    for w in {verb, head}:
        for c in w.children:
            if c.dep_ in ("nsubj", "nsubjpass", "dobj"):
                out |= {key(x) for x in c.subtree}
    return out
