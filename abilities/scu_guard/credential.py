"""A doer the claim's own words rule out for a reserved act: a beginner or one who lacks the credential, or a
stand-in while the reserved holder was away.

Why its own module: a rule that reserves an act for a qualified person ("Only certified shotfirers may detonate
explosives") is broken by a doer the claim describes as not holding the qualification, also where the claim gives
no name, so no roster can be asked: "a trainee miner", "the night-shift trainee" (WordNet puts the noun under
"beginner"), "a non-certified cleaner", "an apprentice without a certificate" (the rule's own credential word,
denied). And a claim that says the rule's holder was away while the act was done ("while the duty technician
was on break", "while Ms. Haldane was on leave") says the doer was someone else: a doer the claim calls by
another role ("the guest presenter"), or anyone other than a holder the rule names by name. A doer described by
the rule's own role noun, or said to hold it, is never ruled out here.
"""

from __future__ import annotations

import re
from typing import Any

from abilities.scu_guard import denials, roles, wordnet
from abilities.scu_guard.forms import Form
from abilities.scu_guard.nlp import key, light_keys, parse
from abilities.scu_guard.reserved import alternatives

# a state of being elsewhere, told right after the holder: "was away", "was off sick", "was on her meal break",
# "was on leave", "was at the fair", "took a break"
_AWAY_RE = re.compile(r"^(?:was|were|is|are|had\s+been|has\s+been)\s+(?:away|absent|elsewhere|off\b|out\s+(?:of|on|at)\b|"
                      r"(?:stuck|held\s+up|delayed|tied\s+up)\b|"
                      r"on\s+(?:\w+\s+){0,2}(?:break|leave|holiday|vacation)\b|at\s+(?:the|a|an|another|her|his|their)\b)"
                      r"|^(?:took|had|was\s+taking)\s+(?:a|her|his|their)\s+(?:\w+\s+)?break\b", re.I)
# a subordinate clause that sets the holder's absence beside the act
_BESIDE = frozenset(("while", "whilst", "as", "since", "because", "when", "with"))
# words that put the beginner's state in the past or say the credential is had ("a former apprentice")
_PAST_RE = re.compile(r"\b(?:former|formerly|ex-|no longer|once|qualified|fully)\b", re.I)
_PRONOUNS = frozenset("who that which it they he she we i you someone somebody one".split())


def _own_nouns(tok: Any) -> list[Any]:
    """The doer's head noun with its left modifiers and the head of a role in apposition to it."""
    out = [t for t in tok.subtree if t.i == tok.i or t.i < tok.i and t.dep_ in ("compound", "amod", "nmod")
           and t.head.i == tok.i]
    for c in tok.children:
        if c.dep_ == "appos" and c.pos_ == "NOUN":
            out += [t for t in c.subtree if t.i <= c.i and (t.i == c.i or t.dep_ in ("compound", "amod", "nmod"))]
    return [t for t in out if t.pos_ in ("NOUN", "ADJ") or t.i == tok.i]


def _rule_words(form: Form) -> set[str]:
    """Keys of the rule's doer, its qualifiers and its credential."""
    return set(form.agents) | set(form.agent_qualifiers) | set().union(*alternatives(form)) | set(
        roles.credential_keys(form.text, tuple(form.agents)))


def lacks(form: Form, claim_text: str, doer_text: str) -> set[str] | None:
    """Keys of what the doer's own phrase says the person is, where it rules the person out for the rule's
    credential: a beginner by WordNet ("trainee", "apprentice") that is not the rule's own doer, or a denial of
    the rule's credential word ("non-certified", "without a certificate"); None otherwise."""
    if not form.agents or not wordnet.available():
        return None
    tok = roles.doer_token(parse(claim_text), doer_text)
    reserved = _rule_words(form)
    denied = denials.names_credential(denials.lacked_keys(doer_text), reserved)
    if tok is None or not (tok.pos_ == "NOUN" or tok.pos_ == "PROPN" and (denied or any(
            c.dep_ == "appos" and c.pos_ == "NOUN" for c in tok.children))):
        return None  # a common noun, or a name with a role in apposition ("Liam Byrne, a trainee whose ...")
    own = _own_nouns(tok)
    novice = [t for t in own if t.pos_ == "NOUN" and key(t) not in reserved
              and wordnet.is_a(t.lemma_.lower(), "beginner") is True]
    if not (novice or denied) or _PAST_RE.search(doer_text) or roles.describes(form, doer_text) is True:
        return None
    return set(light_keys(doer_text)) | {"lacking"}


def _holder(form: Form, tok: Any) -> bool:
    """Is the token the rule's holder: its reserved noun, or a name the rule itself gives ("the master smith,
    Ilse Varga")?"""
    if tok.pos_ == "NOUN":
        return key(tok) in form.agents
    return tok.pos_ == "PROPN" and re.search(rf"\b{re.escape(tok.text)}\b", form.text) is not None


def _away_holder(form: Form, doc: Any, sent: Any) -> Any | None:
    """The rule's holder, said in the sentence to be elsewhere in a clause set beside another ("while the nurse
    was off sick")."""
    for t in sent:
        if not _holder(form, t):
            continue
        v = t.head
        if t.dep_ == "pobj" and v.lower_ == "with" and v.i < t.i:  # "With the commissaire stuck in traffic, ..."
            if _AWAY_RE.search("was " + doc[t.i + 1: max(w.i for w in v.subtree) + 1].text):
                return t
            continue
        if t.dep_ != "nsubj":
            continue
        mark = next((c.lower_ for c in v.children if c.dep_ == "mark" and c.lower_ in _BESIDE), None)
        if mark is None:
            continue
        after = ("was " if mark == "with" else "") + doc[t.i + 1: max(w.i for w in v.subtree) + 1].text
        if _AWAY_RE.search(after):
            return t
    return None


def stand_in(form: Form, claim_text: str, doer_text: str) -> set[str] | None:
    """Keys saying the doer stood in for the rule's holder, where the claim's sentence says the holder was away
    and the doer is another: called by another role that the role reader rules out ("the guest presenter" while
    "the duty technician was on break"), or anyone but a holder the rule names by name; None otherwise."""
    if not form.agents or not re.search(r"\b(?:while|whilst|as|since|because|when|with)\b", claim_text, re.I):
        return None
    doc = parse(claim_text)
    tok = roles.doer_token(doc, doer_text)
    if tok is None or tok.lower_ in _PRONOUNS or tok.pos_ not in ("NOUN", "PROPN"):
        return None
    holder = _away_holder(form, doc, tok.sent)
    if holder is None or holder.i in {w.i for w in tok.subtree}:
        return None
    words = {key(w) for w in tok.subtree}
    if words & set(form.agents) or roles.describes(form, doer_text) is True:
        return None  # the doer is called by the rule's own role noun: maybe a second holder
    if holder.pos_ == "PROPN":
        if holder.text.lower() in doer_text:
            return None
        return {"stand", "in", "for", holder.text.lower()}
    descs = [" ".join(t.text for t in _own_nouns(tok))] if tok.pos_ == "NOUN" else []
    descs += roles.claim_descriptions(claim_text, doer_text)[1]
    if descs and roles.settle(form, descs) is False:
        return {"stand", "in", "for", key(holder)}
    return None
