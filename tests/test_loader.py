"""Loading rule sets: built-ins, `extends`, round trips, and every kind of bad input."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from yz.rules import (
    RulesError,
    builtin_names,
    compile_rules,
    load_rules,
    rules_from_text,
)
from yz.rules.models import RuleSet

BUILTINS = [
    "crag", "generala", "gist", "maxi-yatzy", "maxi-yatzy-no-saved-rolls", "no-bonus",
    "no-upper-bonus", "no-yahtzee-bonus", "official-forced-joker", "official-free-joker",
    "yatzy", "yatzy-in-order", "yatzy-saved-rolls",
]
BIG = ("maxi-yatzy", "maxi-yatzy-no-saved-rolls", "yatzy-saved-rolls")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "house-rules.yaml"


def test_the_builtins_are_shipped_and_the_big_one_can_be_left_out():
    assert builtin_names() == BUILTINS
    assert builtin_names(big=False) == [n for n in BUILTINS if n not in BIG]


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_loads_compiles_and_round_trips(name):
    rules = load_rules(name)
    assert rules.name == name
    assert rules.description and rules.source
    again = RuleSet.model_validate(yaml.safe_load(yaml.safe_dump(rules.model_dump(mode="json"))))
    assert again == rules
    t = compile_rules(rules)
    rolls = math.comb(rules.dice + rules.faces - 1, rules.dice)  # 252 for 5 dice, 462 for 6
    assert t.n_distinct_rolls == rolls and t.SCORE.shape == (rolls, len(rules.categories))
    assert compile_rules(again).digest == t.digest


@pytest.mark.parametrize("name", BUILTINS)
def test_category_keys_are_stable_snake_case(name):
    keys = load_rules(name).keys
    assert {"ones", "twos", "threes", "fours", "fives", "sixes"} <= set(keys)
    assert "chance" in keys or name in ("crag", "generala")  # Crag and Generala have none
    assert all(k == k.lower() and " " not in k for k in keys)


def test_expected_keys_per_variant():
    assert "yahtzee" in load_rules("official-free-joker").keys
    assert {"pair", "two_pairs", "yahtzee"} <= set(load_rules("gist").keys)
    assert {"one_pair", "two_pairs", "yatzy"} <= set(load_rules("yatzy").keys)


def test_extends_changes_only_what_it_names():
    base = load_rules("official-free-joker")
    forced = load_rules("official-forced-joker")
    assert forced.joker.mode == "forced"
    assert forced.joker.full_value == base.joker.full_value
    assert forced.categories == base.categories
    assert forced.upper_bonus == base.upper_bonus
    no_upper = load_rules("no-upper-bonus")
    assert no_upper.upper_bonus is None and no_upper.yahtzee_bonus == base.yahtzee_bonus


def test_house_rules_example_needs_no_code():
    rules = load_rules(str(EXAMPLE))
    assert rules.name == "house-70-50"
    assert rules.upper_bonus.threshold == 70 and rules.upper_bonus.amount == 50
    t = compile_rules(rules)
    fh = rules.index_of("full_house")
    assert t.SCORE[t.roll_index((4, 4, 4, 4, 4)), fh] == 25
    assert t.SCORE[t.roll_index((4, 4, 4, 4, 2)), fh] == 0
    base = compile_rules(load_rules("official-free-joker"))
    assert base.SCORE[base.roll_index((4, 4, 4, 4, 4)), fh] == 0


def test_extends_relative_path_and_remove_categories(tmp_path):
    (tmp_path / "base.yaml").write_text("extends: official-free-joker\nname: base\n")
    child = tmp_path / "child.yaml"
    child.write_text("extends: base.yaml\nremove_categories: [chance, yahtzee]\n"
                     "yahtzee_bonus: null\njoker: {mode: none}\n")
    rules = load_rules(str(child))
    assert rules.name == "child"
    assert "chance" not in rules.keys and len(rules.keys) == 11


def test_new_category_is_appended(tmp_path):
    f = tmp_path / "plus.yaml"
    f.write_text("extends: official-free-joker\ncategories:\n"
                 "  - {key: pair, name: Pair, section: lower, pattern: {kind: of_a_kind, count: 2},"
                 " score: sum_matched}\n")
    assert load_rules(str(f)).keys[-1] == "pair"


def test_loading_never_runs_code(tmp_path):
    marker = tmp_path / "ran"
    f = tmp_path / "evil.yaml"
    f.write_text(f'name: !!python/object/apply:os.system ["touch {marker}"]\ncategories: []\n')
    with pytest.raises(RulesError, match="plain data"):
        load_rules(str(f))
    assert not marker.exists()


BAD = {
    "syntax": ("name: x\ncategories: [\n", r"syntax\.yaml:\d+:\d+: invalid YAML"),
    "unknown_key": ("extends: official-free-joker\ncolour: red\n",
                    r"unknown_key\.yaml:2:1: colour: unknown field"),
    "misspelled": ("extends: official-free-joker\nupper_bonus: {threshold: 70, amout: 5}\n",
                   r"upper_bonus\.amout: unknown field .*did you mean 'amount'"),
    "wrong_type": ("extends: official-free-joker\ndice: five\n",
                   r"wrong_type\.yaml:2:1: dice: Input should be a valid integer"),
    "duplicate_category": (
        "name: d\ncategories:\n"
        "  - {key: chance, name: C, section: lower, pattern: any, score: sum_all}\n"
        "  - {key: chance, name: C2, section: lower, pattern: any, score: sum_all}\n",
        r"duplicate_category\.yaml:4:\d+: categories\[1\]\.key: duplicate category key 'chance'"),
    "duplicate_in_extends": (
        "extends: official-free-joker\ncategories:\n"
        "  - {key: c2, name: C, section: lower, pattern: any, score: sum_all}\n"
        "  - {key: c2, name: C, section: lower, pattern: any, score: sum_all}\n",
        r"categories\[1\]\.key: 'c2' appears twice"),
    "unknown_category": ("extends: official-free-joker\njoker: {full_value: [full_hose]}\n",
                         r"joker\.full_value\[0\]: unknown category 'full_hose'.*full_house"),
    "zero_dice": ("extends: official-free-joker\ndice: 0\n",
                  r"dice: Input should be greater than or equal to 1"),
    "many_faces": ("extends: official-free-joker\nfaces: 1000\n",
                   r"faces: Input should be less than or equal to 10"),
    "face_beyond_die": ("extends: official-free-joker\nfaces: 4\n",
                        r"categories\[4\]\.pattern\.face: face 5 does not exist"),
    "duplicate_yaml_key": ("name: a\nname: b\ncategories: []\n",
                           r"duplicate_yaml_key\.yaml:2:1: name: the key 'name' appears twice"),
    "bad_kind": ("extends: official-free-joker\ncategories:\n  - key: full_house\n"
                 "    pattern: {kind: pairs}\n", r"pattern: .*'pairs'.*kinds: face, of_a_kind"),
    "wrong_pattern_field": (
        "extends: official-free-joker\ncategories:\n  - key: full_house\n"
        "    pattern: {kind: groups, sizes: [3, 2], count: 3}\n",
        r"pattern\.count: unknown field \(allowed here: kind, sizes, exact, distinct\)"),
    # `name` defaults to the key now, so the missing field is the score
    "missing_field": ("name: m\ncategories:\n  - {key: ones, section: upper, "
                      "pattern: {kind: face, face: 1}}\n",
                      r"missing_field\.yaml:3:\d+: categories\[0\]\.score: this field is required"),
    "not_a_mapping": ("- 1\n- 2\n", r"must be a mapping"),
    "empty": ("", r"the file is empty"),
    "remove_without_extends": ("name: r\nremove_categories: [chance]\ncategories: []\n",
                               r"only a file with `extends`"),
    "face_total_misuse": (
        "name: f\ncategories:\n  - {key: c, name: C, section: lower, pattern: any, "
        "score: face_total}\n", r"categories\[0\]\.score: face_total needs a `face` pattern"),
    "state_space": ("extends: maxi-yatzy\nrolls: 5\n",
                    r"largest layer of the solver's state table .* over the limit"),
    "no_yahtzee_box": ("extends: official-free-joker\nremove_categories: [yahtzee]\n",
                       r"yahtzee_category: the Yahtzee bonus and Joker need a Yahtzee box"),
    "unknown_parent": ("extends: oficial-free-joker\n",
                       r"no such built-in variant or file.*Did you mean 'official-free-joker'"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_rule_files_give_pointed_errors(tmp_path, case):
    text, pattern = BAD[case]
    f = tmp_path / f"{case}.yaml"
    f.write_text(text)
    with pytest.raises(RulesError, match=pattern):
        load_rules(str(f))


def test_all_problems_are_reported_at_once(tmp_path):
    f = tmp_path / "many.yaml"
    f.write_text("extends: official-free-joker\ncolour: red\ndice: five\nrolls: 0\n")
    with pytest.raises(RulesError, match="3 problems") as info:
        load_rules(str(f))
    assert "colour" in str(info.value) and "dice" in str(info.value)


def test_extends_cycle(tmp_path):
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n")
    with pytest.raises(RulesError, match=r"cycle .*a\.yaml -> .*b\.yaml -> .*a\.yaml"):
        load_rules(str(tmp_path / "a.yaml"))


def test_missing_file_and_unknown_name():
    with pytest.raises(RulesError, match="no such file"):
        load_rules("nowhere/rules.yaml")
    with pytest.raises(RulesError, match=r"[Dd]id you mean .yatzy."):
        load_rules("yatzee")


def test_rules_from_text():
    rules = rules_from_text("name: tiny\ndice: 2\nfaces: 3\ncategories:\n"
                            "  - {key: chance, name: Chance, section: lower, pattern: any, "
                            "score: sum_all}\n")
    assert rules.dice == 2 and compile_rules(rules).n_distinct_rolls == 6


@pytest.mark.parametrize("text, pattern", [
    ("extends: official-free-joker\ncategories: null\nremove_categories: [ones]\n",
     r"no list of categories"),
    ("extends: official-free-joker\ncategories: [{key: [a]}]\n",
     r"categories\[13\]\.key: Input should be a valid string"),
    ("extends: official-free-joker\ncategories:\n  - key: ones\n"
     "    pattern: {kind: face, face: 2, min_cnt: 1}\n",
     r"pattern\.min_cnt: unknown field \(allowed here: kind, face, min_count\); did you mean"),
    ("extends: official-free-joker\ncategories:\n  - key: ones\n    pattern: {kind: face}\n",
     r"categories\[0\]\.pattern\.face: this field is required"),
    ("name: x\ncategories: null\n", r"categories: should be a list"),
    ("extends: official-free-joker\nrolls: true\n", r"rolls: Input should be a valid integer"),
    ("extends: official-free-joker\nupper_bonus: {threshold: 63.5}\n",
     r"upper_bonus\.threshold: Input should be a valid integer"),
    ("extends: official-free-joker\ndice: 8\nfaces: 10\nupper_bonus: {threshold: 500}\n",
     r"over the solver's limit"),
])
def test_more_bad_rule_files(tmp_path, text, pattern):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(RulesError, match=pattern):
        load_rules(str(f))


def test_cycle_through_another_spelling_of_the_path(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "cyc.yaml").write_text("extends: ../rules/cyc.yaml\n")
    with pytest.raises(RulesError, match="cycle"):
        load_rules(str(tmp_path / "rules" / "cyc.yaml"))


def test_extends_a_folder(tmp_path):
    (tmp_path / "adir").mkdir()
    (tmp_path / "d.yaml").write_text("extends: adir\n")
    with pytest.raises(RulesError, match=r"is a folder.*named by `extends` in"):
        load_rules(str(tmp_path / "d.yaml"))


# ---------------------------------------------------------------- errors in the user's own file


def load_text(tmp_path, text: str, name: str = "user.yaml"):
    f = tmp_path / name
    f.write_text(text)
    return load_rules(str(f))


def problems_of(tmp_path, text: str) -> list[str]:
    with pytest.raises(RulesError) as info:
        load_text(tmp_path, text)
    return str(info.value).splitlines()[1:]


def test_a_user_field_that_breaks_inherited_boxes_is_located_in_the_users_file(tmp_path):
    lines = problems_of(tmp_path, "extends: official-free-joker\n# one die\ndice: 1\n")
    assert len(lines) == 5
    for line in lines:
        assert line.strip().startswith(f"{tmp_path / 'user.yaml'}:3:1: categories["), line
        assert "because of dice here; the box comes from variants/official-free-joker" in line


def test_many_unknown_fields_in_an_extending_file_are_blamed_on_it(tmp_path):
    """Forty unknown keys beside `extends`: the error names the user's file at its first
    unknown key, never the built-in it extends (which has none), in the library and in `yz
    rules validate`."""
    text = "extends: official-free-joker\n# pasted by mistake\n" + "".join(
        f"junk_{i}: {i}\n" for i in range(40))
    with pytest.raises(RulesError) as info:
        load_text(tmp_path, text)
    message = str(info.value)
    assert message.startswith(f"{tmp_path / 'user.yaml'}:3:1: (top level): 40 unknown fields")
    assert "'junk_0', 'junk_1', 'junk_2'" in message and "variants/" not in message
    run = subprocess.run([sys.executable, "-m", "yz.cli.entry", "rules", "validate",
                          str(tmp_path / "user.yaml")], capture_output=True, text=True,
                         timeout=60)  # a hang guard only
    assert run.returncode == 2
    assert run.stderr.startswith(f"error: {tmp_path / 'user.yaml'}:3:1: (top level): 40 "
                                 "unknown fields"), run.stderr


def test_a_misspelled_key_in_an_extending_file_is_not_a_new_box(tmp_path):
    with pytest.raises(RulesError, match=r"user\.yaml:3:\d+: categories\[0\]\.key: "
                                         r"'full_hose' .*did you mean full_house\?"):
        load_text(tmp_path, "extends: official-free-joker\ncategories:\n  - key: full_hose\n"
                            "    pattern: {kind: groups, sizes: [3, 2], distinct: false}\n")


def test_a_misspelled_key_is_listed_with_the_files_other_problems(tmp_path):
    """Every problem of the file at once: the misspelt box key beside an unknown field and
    another misspelt key (pasted text the same)."""
    text = ("extends: official-free-joker\nupper_bonus:\n  treshold: 70\ncategories:\n"
            "  - key: full_hose\n    score: 30\n  - {key: chanse, score: sum_all}\n")
    lines = problems_of(tmp_path, text)
    assert len(lines) == 3, lines
    assert re.match(r"\S+user\.yaml:5:\d+: categories\[0\]\.key: 'full_hose' .*did you mean "
                    r"full_house\?", lines[0].strip()), lines
    assert "categories[1].key: 'chanse'" in lines[1] and "did you mean chance?" in lines[1]
    assert "upper_bonus.treshold: unknown field" in lines[2] and "'threshold'" in lines[2]
    with pytest.raises(RulesError, match="4 problems in the rule set") as pasted:
        rules_from_text(text, "pasted")  # (and it has no name, which a file takes from its own)
    assert "'full_hose'" in str(pasted.value) and "name: this field is required" in \
        str(pasted.value)
    # A box named by the misspelt key is not also said to name an unknown box.
    with pytest.raises(RulesError) as named:
        load_text(tmp_path, "extends: generala\ncategories:\n"
                            "  - {key: generalaa, name: G2, pattern: all_same}\n"
                            "  - {key: double, name: D, pattern: all_same, score: 100, "
                            "only_after: generalaa}\n")
    assert "did you mean generala?" in str(named.value)
    assert "unknown category" not in str(named.value) and "problems" not in str(named.value)


def test_a_new_box_close_to_an_inherited_key_is_still_a_new_box(tmp_path):
    rules = load_text(tmp_path, "extends: official-free-joker\ncategories:\n"
                                "  - {key: fives_2, pattern: {kind: face, face: 5}, "
                                "score: face_total}\n")
    assert rules.keys[-1] == "fives_2" and rules.categories[-1].section == "upper"


def test_fixed_score_shorthand_without_points_names_points(tmp_path):
    lines = problems_of(tmp_path, "name: s\ncategories:\n  - {key: c, pattern: any, "
                                  "score: fixed}\n")
    assert lines == [f"  {tmp_path / 'user.yaml'}:3:28: categories[0].score.points: this field "
                     "is required"]


def test_pattern_without_kind_names_the_kinds(tmp_path):
    lines = problems_of(tmp_path, "extends: official-free-joker\ncategories:\n"
                                  "  - {key: yahtzee, pattern: {distinct: false}}\n")
    assert len(lines) == 1 and "discriminator" not in lines[0]
    assert "categories[11].pattern: no `kind` given (kinds: face, of_a_kind, groups" in lines[0]


@pytest.mark.parametrize("mode", ["none", "free", "forced"])
def test_joker_shorthand_keeps_the_inherited_full_value_boxes(tmp_path, mode):
    rules = load_text(tmp_path, f"extends: official-free-joker\njoker: {mode}\n")
    assert rules.joker.mode == mode
    assert rules.joker.full_value == ("full_house", "small_straight", "large_straight")
    alone = rules_from_text("name: j\njoker: forced\ncategories:\n"
                            "  - {key: yahtzee, pattern: all_same, score: 50}\n")
    assert alone.joker.mode == "forced"


def test_no_echo_of_item_errors_as_a_too_short_list(tmp_path):
    lines = problems_of(tmp_path, "name: x\ncategories:\n  - {key: ones}\n")
    assert lines and not any("at least 1 item" in line for line in lines)
    assert [line.split(": ")[1] for line in lines] == ["categories[0].pattern",
                                                     "categories[0].score"]


def test_cross_field_problems_are_listed_with_field_errors(tmp_path):
    lines = problems_of(tmp_path, "name: x\ncategories:\n"
                                  "  - {key: ones, pattern: {kind: face, face: 9}, "
                                  "score: face_total}\n"
                                  "  - {key: c, pattern: any, score: {kind: bogus}}\n")
    assert len(lines) == 2
    assert "categories[1].score: Input tag 'bogus'" in lines[0]
    assert "categories[0].pattern.face: face 9 does not exist on a 6-sided die" in lines[1]


def test_cross_field_problems_of_a_broken_field_are_not_guessed(tmp_path):
    lines = problems_of(tmp_path, "extends: official-free-joker\ndice: 0\n")
    assert len(lines) == 1 and "dice: Input should be greater than or equal to 1" in lines[0]


# ---------------------------------------------------------------- less friction


def test_name_and_section_default_from_key_and_pattern():
    rules = rules_from_text("name: d\ncategories:\n"
                            "  - {key: full_house, pattern: {kind: groups, sizes: [3, 2]}, "
                            "score: 25}\n"
                            "  - {key: three_of_a_kind, pattern: {kind: of_a_kind, count: 3}, "
                            "score: sum_all}\n"
                            "  - {key: sixes, pattern: {kind: face, face: 6}, score: face_total}\n")
    assert [c.name for c in rules.categories] == ["Full House", "Three of a Kind", "Sixes"]
    assert [c.section for c in rules.categories] == ["lower", "lower", "upper"]
    assert rules.categories[0].score.kind == "fixed" and rules.categories[0].score.points == 25


def test_example_prefix_loads_a_shipped_example_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_rules("example:house-rules") == load_rules(str(EXAMPLE))
    with pytest.raises(RulesError, match=r"no such example.*example:house-rules.*Did you mean"):
        load_rules("example:house-rule")


def test_extends_may_name_an_example(tmp_path):
    rules = load_text(tmp_path, "extends: example:house-rules\nupper_bonus: {amount: 40}\n")
    assert rules.upper_bonus.threshold == 70 and rules.upper_bonus.amount == 40


@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_texts_name_real_documents_not_internal_file_numbers(name):
    rules = load_rules(name)
    text = f"{rules.description} {rules.source}"
    assert not re.search(r"\bseed\b", text, re.IGNORECASE), text
    assert any(doc in rules.source for doc in ("Verhoeff", "Yatzy kata", "encyclopedia", "KTH"))
