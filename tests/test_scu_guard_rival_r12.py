"""Round 12: an amount that breaks one rule but keeps a rival rule of the same dimension, whose own words its
clause names better, is no sure reading of the first rule."""
from abilities.scu_guard.forms import understand
from abilities.scu_guard.typed import judge_claim

PAY = "Invoices must be paid within 30 days of delivery."
SERVICE = "Trucks must be serviced at least every 90 days."
REST = "Dough must rest for at least 12 hours before it is baked."
SELL = "Loaves must be sold within 6 hours after they leave the oven."


def _found(rules: list[str], claim: str) -> dict[str, bool]:
    forms = [f for f in (understand(r) for r in rules) if f is not None]
    return {x.constraint: x.sure for x in judge_claim(claim, forms)}


def test_rival_rule_takes_the_amount() -> None:
    # 45 days is the truck's service interval, which keeps its rule; the invoice rule is not what it measures
    found = _found([PAY, SERVICE], "The truck was serviced 45 days after its last service, and its invoice was paid then.")
    assert PAY not in found and SERVICE not in found


def test_own_rule_still_breaks() -> None:
    assert _found([PAY, SERVICE], "The supplier's invoice was paid 45 days after the delivery.") == {PAY: True}


def test_own_words_keep_the_break_beside_a_rival() -> None:
    claim = "The dough rested for 3 hours before it was baked."
    assert _found([REST, SELL], claim) == {REST: True}
