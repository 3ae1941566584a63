"""Round 12: counts a claim states in quantity words, by listing people, or as a bound of its own."""
from abilities.scu_guard.counts import read_counts
from tests.scu_guard_support import logged_reason


def _counts(text: str) -> list[tuple[str, float]]:
    return [(text[c.start:c.end], c.counts[-1][1]) for c in read_counts(text)]




def test_multiples_of_hundred() -> None:
    assert _counts("Two hundred bathers were in the pool.") == [("Two hundred bathers", 200.0)]
    assert _counts("A hundred and twenty guests came.") == [("A hundred and twenty guests", 120.0)]


def test_rough_numbers_give_no_count() -> None:
    for text in ("Several climbers were on it.", "A handful of volunteers helped.", "A few guests came.",
                 "A couple of hundred fans waited.", "Hundreds of fans waited."):
        assert _counts(text) == [], text


def test_all_but_n_of_m() -> None:
    assert _counts("All but one of the five pumps were running.") == [("five pumps", 4.0)]


def test_groups_of_people_listed_are_added() -> None:
    assert ("Two pairs of flyers and a trio of catchers", 7.0) in _counts(
        "Two pairs of flyers and a trio of catchers were on the rig.")
    got = _counts("She came to the fitting with her dad, both her brothers and a couple of cousins.")
    assert ("both her brothers and a couple of cousins", 4.0) in got


def test_a_list_with_an_unsure_member_is_not_added() -> None:
    got = _counts("Ten string players, the conductor and an assistant were in the room.")
    assert all(n != 12.0 for _, n in got)


def test_a_bound_the_claim_states_breaks_a_lower_limit() -> None:
    rule = "No more than 4 riders may be on the chairlift at the same time."
    assert logged_reason(rule, "During the jam the chairlift never had fewer than five riders on it.") \
        == "constraint_contradiction"


def test_a_bound_at_the_limit_stays_ok() -> None:
    rule = "No more than 4 riders may be on the chairlift at the same time."
    assert logged_reason(rule, "During the jam the chairlift never had fewer than four riders on it.") == "ok"


def test_a_floating_all_keeps_the_count_in_its_clause() -> None:
    rule = "No more than 20 jars may be packed into a single crate."
    assert logged_reason(rule, "Two dozen jars went to the farm shop on Friday, all packed together in one crate.") \
        == "constraint_contradiction"
    assert logged_reason(rule, "A score of jars went to the farm shop on Friday, all packed together in one crate.") == "ok"


def test_a_place_the_tagger_calls_an_adjective() -> None:
    rule = "No more than 24 pipes may be off the windchest at any one time."
    assert logged_reason(rule, "On Wednesday three dozen pipes were off the windchest at the same time.") \
        == "constraint_contradiction"
    assert logged_reason(rule, "On Wednesday two dozen pipes were off the windchest at the same time.") == "ok"


def test_a_list_of_people_is_not_the_rule_noun() -> None:
    rule = "No more than 20 pupils may be in the studio at one time."
    assert logged_reason(rule, "Twenty pupils and three teachers were in the studio at one time.") == "ok"


def test_people_of_another_noun_are_only_suspected() -> None:
    rule = "No more than 4 visitors may be in the recording booth at one time."
    assert logged_reason(rule, "Five visitors were in the recording booth.") == "constraint_contradiction"
    assert logged_reason(rule, "Five engineers were in the recording booth.") == "suspected_contradiction"
    assert logged_reason(rule, "Four engineers were in the recording booth.") == "ok"


STEWARDS = "At least one qualified steward must be on the terrace for every 50 spectators."
PUPILS = "Pottery classes may have at most 6 pupils per teacher."


def test_a_ratio_minimum_broken_by_two_counts_at_one_moment() -> None:
    assert logged_reason(STEWARDS, "With two hundred spectators on the terrace at 15:00, three stewards were on duty.") \
        == "constraint_contradiction"
    assert logged_reason(STEWARDS, "With two hundred spectators on the terrace at 15:00, four stewards were on duty.") \
        == "ok"


def test_a_ratio_maximum_broken_by_the_total() -> None:
    assert logged_reason(PUPILS, "Twenty pupils and three teachers were in the studio on Monday.") \
        == "constraint_contradiction"
    assert logged_reason(PUPILS, "Eighteen pupils and three teachers were in the studio on Monday.") == "ok"


def test_a_time_is_no_ratio_base() -> None:
    from abilities.scu_guard.ratios import ratio_base
    assert ratio_base(STEWARDS) == ("spectator", 50.0)
    assert ratio_base("The hut may sleep no more than 40 guests per night.") is None


def test_kind_words_inside_a_count_phrase() -> None:
    assert ("A pair of single sculls", 2.0) in _counts("A pair of single sculls went out.")
    assert _counts("Two first-aid kits were in the van.") == [("Two first-aid kits", 2.0)]
    assert _counts("Each crate held a dozen 500 g punnets.") == []
    assert ("a score of day-trippers", 20.0) in _counts("The tour took a score of day-trippers up the tower.")
