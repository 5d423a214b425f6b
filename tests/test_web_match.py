"""`yz serve`'s two-player game in Debian's chromium: whole matches by mouse, by keyboard and by
touch on a phone (390x844), both cards side by side, the live chances of winning, the bot's
moves shown one by one.

The moves are chosen by a `Match` of this process replayed from the page's state (the mirror),
whose chances test_match.py checks against figures computed independently; here the page must
show the same. The tiny rules of test_match.py keep a whole match to seconds.
"""

from __future__ import annotations

import functools
import itertools
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from browser_support import CHROMIUM, shot
from test_match import TINY
from test_web_browser_access import (
    PHONE,
    dice_to_toggle,
    focus_is_visible,
    focused,
    no_overflow,
    open_page,
    small_tap_targets,
    tab_to,
)

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="needs Debian's chromium (apt-get install chromium)")

PAUSE = 60  # ms between two bot moves shown (the page's own pause is 900)


def start(page, opponent: str, seed: int, first: bool = False, tap: bool = False) -> None:
    page.select_option("#variant", "__paste__")
    page.fill("#yaml", TINY)
    page.fill("#seed", str(seed))
    page.select_option("#opponent", opponent)
    if first:
        page.tap("#opponent-first") if tap else page.check("#opponent-first")
    page.evaluate(f"window.yz.botPause = {PAUSE}")
    page.tap("#new-game") if tap else page.click("#new-game")
    page.wait_for_selector("#dice .die, #error:not([hidden])", timeout=120_000)
    assert page.is_hidden("#error"), page.inner_text("#error")


def wait_for_person(page) -> None:
    page.wait_for_function("() => window.yz.game && !window.yz.busy && !window.yz.playingBots "
                           "&& (window.yz.game.match.over || !window.yz.game.match.bot_to_move)",
                           timeout=60_000)


@functools.cache
def tiny_model():
    """One model of the tiny rules for every mirror: what it solves is remembered."""
    from yz.rules import rules_from_text
    from yz.solver import Model

    return Model(rules_from_text(TINY), use_cache=False)


def mirror(page):
    from yz.solver.match import Match

    return Match.from_state(tiny_model(), page.evaluate("window.yz.game.state"))


def pct(p) -> str:
    return "?" if p is None else f"{100 * p:.1f}%"


def check_chances(page, match) -> None:
    """The chances on the page are the mirror's."""
    shown = page.eval_on_selector_all("#chances b[data-chance]", "bs => bs.map(b => b.textContent)")
    assert shown == [pct(c) for c in match.chances()], (shown, match.chances())


def check_bots_one_by_one(page) -> None:
    """Every bot move was drawn on its own, after a pause: one more move each time."""
    steps = page.evaluate("window.yz.botSteps")
    assert steps
    for a, b in itertools.pairwise(steps):
        assert b["at"] - a["at"] >= PAUSE * 0.8, steps
        assert b["moves"] > a["moves"], steps
    moves = [s["moves"] for s in steps]
    assert len(set(moves)) == len(moves), steps


def check_accessible(page) -> None:
    """axe-core finds nothing serious or critical on the page as it is."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    bad = [(v["id"], v["impact"], len(v["nodes"])) for v in found
           if v["impact"] in ("serious", "critical")]
    assert not bad, bad


def moves_made(page) -> int:
    return page.evaluate("window.yz.game.state.moves.length")


@pytest.mark.slow  # (the default run keeps the whole match on a phone by touch, the match's
# API with the chances of winning (test_web_match_api) and a solo game by mouse and keyboard)
def test_a_whole_match_by_mouse(server, browser, tmp_path):
    page, seen = open_page(browser.new_context(viewport={"width": 1400, "height": 1000}), server)
    start(page, "win", seed=3, first=True)
    n = 0
    while True:
        wait_for_person(page)
        match = mirror(page)
        if match.over:
            break
        check_chances(page, match)
        options, objective = match.options()
        assert objective == "win"
        pick = options[min(1, len(options) - 1)] if n % 4 == 3 else options[0]
        if n == 1:  # the hint ranks by the chance of winning
            page.click("#hint")
            page.wait_for_selector("#hints:not([hidden]) tbody tr")
            cells = [c.inner_text() for c in page.query_selector_all("#hints tbody tr td")[:3]]
            assert page.inner_text("#hints thead th.num") == "chance of winning"
            assert cells[1] == f"{100 * options[0].value:.2f}%" and cells[2] == "0.00"
        before = moves_made(page)
        if pick.kind == "score":
            page.click(f"#card tr[data-box='{pick.box.key}'] button.box")
        else:
            for i in dice_to_toggle(page, list(pick.keep))[1]:
                page.click(f"#dice .die[data-index='{i}']")
            page.click("#roll")
        page.wait_for_function(f"() => window.yz.game.state.moves.length > {before}")
        if n == 0:
            assert "chance of winning" in page.inner_text("#feedback")
        n += 1
        if n == 4:
            shot(page, tmp_path, "serve-match.png")
            wait_for_person(page)
            check_accessible(page)
    check_bots_one_by_one(page)
    page.wait_for_selector("#review:not([hidden])")
    totals = match.review()["totals"]
    assert page.inner_text("#final-total") == f"{totals[0]} – {totals[1]}"
    assert page.inner_text("#match-result").startswith(
        "You win" if totals[0] > totals[1] else "The win bot wins" if totals[1] > totals[0]
        else "A draw")
    assert len(page.query_selector_all("#log tbody tr")) == len(match.log) == n
    # Both cards side by side, every box filled, the totals the mirror's.
    row = page.eval_on_selector_all("#card tr[data-box='total'] td.score",
                                    "tds => tds.map(td => Number(td.textContent))")
    assert row == totals
    shot(page, tmp_path, "serve-match-over.png")
    assert not seen["errors"], seen


@pytest.mark.slow  # (the default run keeps the whole match by mouse and by touch, and a
# solo game by keyboard alone: test_web_browser_access)
def test_two_people_by_keyboard_alone(server, browser, tmp_path):
    page, seen = open_page(browser.new_context(viewport={"width": 1200, "height": 900}), server)
    tab_to(page, "#variant")
    page.keyboard.type("Paste")  # a focused list selects the option typed
    tab_to(page, "#yaml")
    page.keyboard.press("Control+A")
    page.keyboard.type(TINY)
    assert page.evaluate("document.querySelector('#yaml').value") == TINY
    page.keyboard.press("Shift+Tab")  # (back up to the setup, from the pasted rules)
    tab_to(page, "#seed")
    page.keyboard.type("8")
    tab_to(page, "#opponent")
    page.keyboard.type("a second")  # a focused list selects the option typed
    assert page.evaluate("document.querySelector('#opponent').value") == "person"
    tab_to(page, "#new-game")
    page.keyboard.press("Enter")
    page.wait_for_selector("#dice .die", timeout=120_000)
    decisions = 0
    while True:
        wait_for_person(page)
        match = mirror(page)
        if match.over:
            break
        check_chances(page, match)
        best = match.options()[0][0]
        before = moves_made(page)
        decisions += 1
        if decisions == 3:  # U takes the last decision back (the other person's)
            page.keyboard.press("u")
            page.wait_for_function(f"() => window.yz.game.state.moves.length === {before - 1}")
            continue
        if best.kind == "keep":
            for i in dice_to_toggle(page, list(best.keep))[1]:
                page.keyboard.press(str(i + 1))
            page.keyboard.press("r")
        else:
            tab_to(page, f"#card tr[data-box='{best.box.key}'] button.box")
            assert focus_is_visible(page)
            page.keyboard.press("Enter")
        page.wait_for_function(f"() => window.yz.game.state.moves.length === {before + 1}")
        if not page.evaluate("window.yz.game.match.over"):  # on to where the next move starts
            assert focused(page).startswith(("die", "box", "#roll")), focused(page)
    page.wait_for_selector("#review:not([hidden])")
    review = page.inner_text("#review")
    assert "Player 1's decisions" in review and "Player 2's decisions" in review
    assert all(d.was_best for d in match.log)
    shot(page, tmp_path, "serve-match-keyboard.png")
    assert not seen["errors"], seen


def test_a_whole_match_on_a_phone_by_touch(server, browser, tmp_path):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    page, seen = open_page(context, server)
    page.select_option("#opponent", "greedy")
    checked = {"setup": small_tap_targets(page)}
    start(page, "greedy", seed=5, first=True, tap=True)
    shots = 0
    while True:
        wait_for_person(page)
        no_overflow(page)
        match = mirror(page)
        if match.over:
            break
        check_chances(page, match)
        best = match.options()[0][0]
        before = moves_made(page)
        if best.kind == "keep":
            for i in dice_to_toggle(page, list(best.keep))[1]:
                page.tap(f"#dice .die[data-index='{i}']")
            checked.setdefault("dice", small_tap_targets(page))
            page.tap("#roll")
        else:
            row = f"#card tr[data-box='{best.box.key}']"
            page.locator(row).scroll_into_view_if_needed()
            checked.setdefault("card", small_tap_targets(page))
            if shots == 0:  # both cards under the dice bar, which stays in sight
                shots += 1
                top, bottom = page.evaluate(
                    "(() => { const r = document.querySelector('.game > .bar')"
                    ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
                assert top >= -1 and bottom <= PHONE["height"] / 2, (top, bottom)
                shot(page, tmp_path, "serve-match-phone.png", full_page=False)
            page.tap(f"{row} button.box")
        page.wait_for_function(f"() => window.yz.game.state.moves.length > {before}")
    check_bots_one_by_one(page)
    page.wait_for_selector("#review:not([hidden])")
    no_overflow(page)
    checked["review"] = small_tap_targets(page)
    assert not any(checked.values()), checked
    shot(page, tmp_path, "serve-match-phone-over.png")
    assert not seen["errors"], seen
