"""Claims generated from a constraint's wording and its typed form, each labelled contradiction or not.

Why generated: the labelled sets are a few hundred cases; the pair model needs many pairs that
differ only in what decides the label (a denial, a number on the other side of the bound, a swapped
order, another agent, another member), so that it learns the relation and not the topic. Every
rewrite is a plain string operation on the constraint text, seeded, so the pairs are the same on
every run.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from abilities.scu_guard import measure
from abilities.scu_guard.forms import Form

IRREGULAR_PAST = {
    "be": "was", "go": "went", "run": "ran", "take": "took", "give": "gave", "leave": "left", "drive": "drove",
    "ride": "rode", "keep": "kept", "hold": "held", "sell": "sold", "send": "sent", "make": "made", "fly": "flew",
    "eat": "ate", "buy": "bought", "bring": "brought", "do": "did", "have": "had", "get": "got", "put": "put",
    "set": "set", "cut": "cut", "let": "let", "shut": "shut", "begin": "began", "write": "wrote", "speak": "spoke",
    "stand": "stood", "sit": "sat", "wear": "wore", "swim": "swam", "meet": "met", "feed": "fed", "lead": "led",
    "hide": "hid", "teach": "taught", "sleep": "slept", "build": "built", "spend": "spent", "pay": "paid",
    "say": "said", "tell": "told", "find": "found", "catch": "caught", "throw": "threw", "grow": "grew",
    "draw": "drew", "know": "knew", "break": "broke", "choose": "chose", "freeze": "froze", "steal": "stole",
    "lay": "laid", "bid": "bid", "hit": "hit", "quit": "quit", "spread": "spread", "shed": "shed", "light": "lit", "mix": "mixed", "enter": "entered", "open": "opened", "visit": "visited",
    "store": "stored", "use": "used", "share": "shared", "exceed": "exceeded", "dive": "dived", "bear": "bore",
    "carry": "carried", "apply": "applied", "ship": "shipped", "stop": "stopped", "plan": "planned",
    "admit": "admitted", "transfer": "transferred", "refer": "referred", "fit": "fitted", "sit in": "sat in",
    "wind": "wound", "dig": "dug", "hang": "hung", "shoot": "shot", "strike": "struck", "bind": "bound",
}
MODAL_BE = re.compile(r"\b(?:must|shall|should|has to|have to|need to|needs to) (?:always )?be\b", re.I)
MODAL_NOT_BE = re.compile(r"\b(?:must|shall|may|should|can) (?:not|never) be\b|\bcannot be\b|\bmust never be\b", re.I)
MODAL_VERB = re.compile(r"\b(?:must|shall|should|has to|have to|needs? to) (?:always )?(?P<v>[a-z]+)\b", re.I)
MODAL_NOT_VERB = re.compile(r"\b(?:must|shall|may|should|can|do|does) (?:not|never) (?P<v>[a-z]+)\b|\bcannot (?P<v2>[a-z]+)\b|"
                            r"\bnever (?P<v3>[a-z]+)\b", re.I)
ONLY = re.compile(r"^\s*Only (?P<agent>.+?) (?P<modal>may|can|must|are allowed to|is allowed to) (?P<rest>.+)$", re.I)
DIRECTION = re.compile(r"\b(?:below|under|above|over|at least|at most|no more than|not more than|no less than|not less than|up to|"
                       r"a maximum of|a minimum of|no later than|no fewer than|not exceed|exceed|more than|less than|"
                       r"fewer than|within)\s+", re.I)
OTHER_AGENTS = ["a trainee", "a visitor", "an intern", "the cleaner", "a volunteer", "a contractor", "a temp worker",
                "an apprentice", "a driver", "the receptionist", "a student", "an unlicensed helper"]
NAMES = ["Maria", "Tom", "Aiko", "Dev", "Lena", "Omar", "Kofi", "Ines", "Raj", "Zoe"]
OK_TAILS = ["on Tuesday.", "this week.", "as planned.", "during the night shift.", "yesterday.", "in the morning."]
NEUTRAL = ["were listed in the weekly report", "were discussed at the morning briefing", "were checked by the auditor",
           "were mentioned in the handover notes", "were photographed for the records"]
TAIL_NEUTRAL = ["was announced on Tuesday", "was on the agenda this week", "was reviewed by the manager",
                "went ahead as planned", "was described in the newsletter"]
NEG_STARTERS = ["The {s} log was reviewed {t}", "A new {s} rota was posted {t}", "The team discussed the {s} {t}"]


def past(verb: str) -> str:
    """A verb's simple past (a small table of irregular verbs, then the regular spelling rules)."""
    v = verb.lower()
    if v in IRREGULAR_PAST:
        return IRREGULAR_PAST[v]
    if v.endswith("e"):
        return v + "d"
    if v.endswith("y") and len(v) > 2 and v[-2] not in "aeiou":
        return v[:-1] + "ied"
    if re.fullmatch(r"[^aeiou]*[aeiou][bdgmnpt]", v) and len(v) <= 4:
        return v + v[-1] + "ed"
    return v + "ed"


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[0].upper() + text[1:] + "." if text else text


def _scale(amount: measure.Amount, factor: float) -> str:
    """The amount's text with its number multiplied (a number written out becomes digits)."""
    m = re.search(r"\d+(?:[.,]\d+)?", amount.text)
    if m is None:
        n = measure._number(amount.text.split()[0] if " " in amount.text else amount.text)
        return amount.text if n is None else f"{_fmt(n * factor)} {amount.text.split(' ', 1)[-1]}"
    n = float(m.group(0).replace(",", ""))
    return amount.text[: m.start()] + _fmt(n * factor) + amount.text[m.end():]


def _fmt(x: float) -> str:
    return str(int(round(x))) if abs(x - round(x)) < 1e-9 or x >= 10 else f"{x:.1f}"


def affirm(text: str) -> str | None:
    """The rule's action stated as done ("X must not be stored" -> "X was stored")."""
    for rx in (MODAL_NOT_BE, MODAL_BE):
        m = rx.search(text)
        if m:
            head = text[: m.start()].split()
            rep = "were" if head and head[-1].lower().endswith("s") and not head[-1].lower().endswith("ss") else "was"
            return _sentence(text[: m.start()] + rep + text[m.end():])
    m = MODAL_NOT_VERB.search(text) or MODAL_VERB.search(text)
    if m:
        v = m.group("v") if "v" in m.groupdict() and m.group("v") else (m.groupdict().get("v2") or m.groupdict().get("v3"))
        if v and v.lower() not in ("be", "not", "never"):
            return _sentence(text[: m.start()] + past(v) + text[m.end():])
    return None


def deny(text: str) -> str | None:
    """The rule's action stated as not done ("X must be logged" -> "X was not logged")."""
    a = affirm(text)
    if a is None:
        return None
    if MODAL_BE.search(text) or MODAL_NOT_BE.search(text):
        return re.sub(r"\b(was|were)\b", r"\1 not", a, count=1)
    m = MODAL_NOT_VERB.search(text) or MODAL_VERB.search(text)
    if m:
        v = m.group("v") if m.group("v") else (m.groupdict().get("v2") or m.groupdict().get("v3"))
        return _sentence(text[: m.start()] + "did not " + v + text[m.end():])
    return None


def hard_negatives(text: str, rng: random.Random) -> Iterator[tuple[str, int, str]]:
    """Claims that share the rule's words but keep it: its subject doing something else, the thing it
    governs mentioned for another reason, and (for a prohibition) nobody doing the forbidden act."""
    m = MODAL_NOT_VERB.search(text) or MODAL_VERB.search(text) or MODAL_NOT_BE.search(text) or MODAL_BE.search(text)
    if m is None or m.start() == 0:
        return
    subject = text[: m.start()].strip()
    rest = text[m.end():].strip().rstrip(".")
    yield _sentence(f"{subject} {rng.choice(NEUTRAL)}"), 0, "subject_elsewhere"
    tail = re.sub(r"^(?:[\w-]+\s+)?(?:(?:in|on|at|to|from|into|with|without|by|for|of|the|a|an|any)\b\s*)*", "", rest,
                  flags=re.I)
    if tail and tail != rest and len(tail.split()) <= 6:
        yield _sentence(f"The {tail} {rng.choice(TAIL_NEUTRAL)}"), 0, "object_elsewhere"
    v = (m.groupdict().get("v") or m.groupdict().get("v2") or m.groupdict().get("v3") or "")
    if v and m.re is MODAL_NOT_VERB and v.lower() not in ("be", "not", "never"):
        yield _sentence(f"No one {past(v)} {rest}"), 0, "nobody"


def _strip_direction(text: str) -> str:
    return DIRECTION.sub("", text)


def variants(form: Form, rng: random.Random) -> Iterator[tuple[str, int, str]]:
    """(claim, 1 if it contradicts the constraint else 0, variant name)."""
    text = form.text
    deny_rule = form.modality == "must_not"
    q = form.quantity
    amounts = measure.find_amounts(text)
    if q is not None and amounts and not form.trigger and any(ch.isdigit() for ch in amounts[0].text):
        a = next((x for x in amounts if x.dim == q.dimension), amounts[0])
        base = affirm(_strip_direction(text).replace(" not ", " ").replace(" never ", " ")) or None
        if base and a.text in base:
            hi_bad = q.high is not None and q.low is None
            lo_bad = q.low is not None and q.high is None
            if hi_bad or lo_bad:
                bad, good = (1.5, 0.5) if hi_bad else (0.5, 1.5)
                for f, lab, name in ((bad, 1, "number_out"), (good, 0, "number_in"), (1.0, 0, "number_equal")):
                    yield base.replace(a.text, _scale(a, f), 1), lab, name
    elif form.order is not None:
        m = re.search(r"\b(before|after|until)\b", text, re.I)
        if m:
            left, right = text[: m.start()].strip(), text[m.end():].strip().rstrip(".")
            done = affirm(left + ".")
            if done:
                done = done.rstrip(".")
                word = m.group(1).lower()
                swap = {"before": "after", "after": "before", "until": "before"}[word]
                keep = "after" if word == "until" else word
                yield _sentence(f"{done} {keep} {right}"), 0, "order_kept"
                yield _sentence(f"{done} {swap} {right}"), 1, "order_swapped"
                yield _sentence(f"{done}, and only later {right}") if word == "after" else \
                    _sentence(f"{right} came first; afterwards {done[0].lower() + done[1:]}"), 1, "order_told"
    if form.modality == "only" and form.agents:
        m = ONLY.match(text)
        if m:
            rest = m.group("rest").rstrip(".")
            verb, _, obj = rest.partition(" ")
            did = past(verb) + (" " + obj if obj else "")
            agent = m.group("agent")
            yield _sentence(f"{agent[0].upper() + agent[1:]} {did}"), 0, "agent_same"
            yield _sentence(f"{rng.choice(OTHER_AGENTS)} {did}"), 1, "agent_other"
            yield _sentence(f"{rng.choice(NAMES)}, one of the {re.sub(r'^(?:the|a|an) ', '', agent, flags=re.I)}, {did}"), 0, "agent_named"
            if form.agent_qualifiers:
                bare = agent.split()[-1]
                yield _sentence(f"An un{form.agent_qualifiers[0]}ed {bare.rstrip('s')} {did}"), 1, "agent_unqualified"
    if form.exclusion and len(form.exclusion) == 2:
        a_, b_ = (" ".join(m) for m in form.exclusion)
        yield _sentence(f"The {a_} and the {b_} were stored together in one room"), 1, "members_together"
        yield _sentence(f"The {a_} and the {b_} were kept in separate rooms"), 0, "members_apart"
    if form.modality in ("must", "must_not") and not form.order and not form.agents and not form.window:
        a = affirm(text)
        d = deny(text)
        if a:
            yield a, int(deny_rule), "affirm"
        if d:
            yield d, int(not deny_rule), "deny"
        if a and not deny_rule:
            yield a.rstrip(".") + " " + rng.choice(OK_TAILS), 0, "paraphrase"
            yield _sentence(re.sub(r"\b(?:must|shall)\b", "is optional and may", text, count=1)
                            .replace("may be", "be")), 1, "optional"
    yield from hard_negatives(text, rng)
    subj = " ".join(form.subject[:2]) or "site"
    yield _sentence(rng.choice(NEG_STARTERS).format(s=subj, t=rng.choice(OK_TAILS).rstrip("."))), 0, "topic_only"
