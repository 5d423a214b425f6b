"""`yz serve`'s page in a real browser: Debian's chromium driven by Playwright.

The server runs in a background thread on a free port with the test's own (empty) cache, so
the page first shows the solve's progress. A whole seeded game is played by clicking dice,
Roll and boxes; the moves are chosen by the library's own `Game` replayed from the page's
state. Set YZ_SCREENSHOT_DIR to keep the screenshots (the README's comes from here).
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from browser_support import CHROMIUM, press, shot

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="needs Debian's chromium (apt-get install chromium)")


def moves_made(page) -> int:
    return page.evaluate("window.yz.game.state.moves.length")


def click_move(page, game, option) -> None:
    """Play an option by clicking: hold exactly the kept dice and Roll, or click the box."""
    n = moves_made(page)
    press(page, option)
    page.wait_for_function(f"() => window.yz.game.state.moves.length === {n + 1}")


def test_play_a_whole_seeded_game_in_the_browser(server, browser, tmp_path):
    from yz.rules import load_rules
    from yz.solver import Model
    from yz.solver.advice import advise
    from yz.solver.coach import Game

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")

    assert page.is_visible("#intro") and page.is_hidden("#game")
    # A rule file with a bad field, opened on the page: the error is shown there.
    page.select_option("#variant", "__paste__")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\nextends: no-bonus\ndice: 0\n")
    page.set_input_files("#yaml-file", str(broken))
    page.wait_for_function("() => document.querySelector('#yaml').value.startsWith('name: broken')")
    page.click("#new-game")
    page.wait_for_selector("#error:not([hidden])")
    assert "dice" in page.inner_text("#error")

    page.select_option("#variant", "no-bonus")
    page.fill("#seed", "5")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)  # a fresh cache: solved first
    solution = Model(load_rules("no-bonus")).solve()

    n = 0
    while True:
        state = page.evaluate("window.yz.game.state")
        game = Game.from_state(solution, state)
        if game.over:
            break
        options = game.options()
        n += 1
        if n in (1, 9):
            # The hint on the page is the advisor's answer for the same position.
            page.click("#hint")
            page.wait_for_selector("#hints:not([hidden]) tbody tr")
            first = page.query_selector_all("#hints tbody tr")[0]
            cells = [c.inner_text() for c in first.query_selector_all("td")]
            advice = advise(solution, game.position, game.dice, game.rolls_left, game.banked)
            assert cells[1] == f"{game.banked + advice.best.value:.2f}"
            assert cells[2] == "0.00"
            if advice.best.kind == "keep":
                assert cells[0].startswith(advice.best.label())
            if n == 9:
                shot(page, tmp_path, "serve.png")
        if n == 3:
            # The coach stops a costly move; the player confirms it.
            page.fill("#threshold", "0.5")
            worst = options[-1]
            before = moves_made(page)
            if worst.kind == "score":
                page.click(f"#card tr[data-box='{worst.box.key}']")
            else:
                for die in page.query_selector_all("#dice .die[data-held='1']"):
                    die.click()
                page.click("#roll")
            page.wait_for_selector("#warning:not([hidden])")
            assert "Coach:" in page.inner_text("#warning")
            assert "more than your coach threshold of 0.5 points" in page.inner_text("#warning")
            assert moves_made(page) == before
            page.click("#warn-play")
            page.wait_for_function(f"() => window.yz.game.state.moves.length === {before + 1}")
            page.fill("#threshold", "")
            continue
        pick = options[min(2, len(options) - 1)] if n % 5 == 0 else options[0]
        click_move(page, game, pick)
        if n == 2:
            assert "feedback" in page.get_attribute("#feedback", "class")

    page.wait_for_selector("#review:not([hidden])")
    cells = page.eval_on_selector_all(
        "#card tr.filled td.score", "cells => cells.map(c => Number(c.textContent))")
    bonus = page.eval_on_selector_all(
        "#card tr.sum td.score", "cells => cells.map(c => Number(c.textContent))")
    total = int(page.inner_text("#card tr[data-box='total'] td.score"))
    assert len(cells) == 13
    assert total == sum(cells) + sum(bonus) == game.banked
    assert int(page.inner_text("#final-total")) == total
    assert f"P(score ≤ {total})" in page.inner_text("#rank")
    review = page.inner_text("#review")
    assert f"{game.lost():.2f}" in review and "worst decisions" in review
    luck = game.review()["luck"]
    assert f"the dice {'took' if luck < 0 else 'gave'} {abs(luck):.2f} (luck)" in review
    log_rows = page.query_selector_all("#log tbody tr")
    assert len(log_rows) == len(game.log)
    path = shot(page, tmp_path, "serve-review.png")
    assert path.stat().st_size > 10_000

    # A reload brings the game back (it lives in the tab); a second tab has a game of its own.
    page.reload()
    page.wait_for_selector("#review:not([hidden])")
    assert int(page.inner_text("#final-total")) == total
    other = context.new_page()
    other.goto(server + "/")
    other.wait_for_selector("body[data-ready='1']")
    assert other.is_hidden("#game")
    other.select_option("#variant", "no-bonus")
    other.fill("#seed", "6")
    other.click("#new-game")
    other.wait_for_selector("#dice .die")
    assert other.evaluate("window.yz.game.state.moves.length") == 0
    assert page.evaluate("window.yz.game.phase") == "over"
    assert not errors, errors


def test_own_dice_and_the_coach_in_the_browser(server, browser):
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#variant", "no-bonus")
    page.check("#own-dice")
    page.fill("#threshold", "1")
    page.click("#new-game")
    page.wait_for_selector("#own-input", state="visible", timeout=180_000)
    page.fill("#own-input", "13466")
    page.click("#own-enter")
    page.wait_for_function("() => window.yz.game.phase === 'keep'")
    assert page.evaluate("window.yz.game.dice") == [1, 3, 4, 6, 6]
    page.click("#dice .die >> nth=0")  # hold the 1 only: costly, the coach steps in
    page.click("#roll")
    page.wait_for_selector("#warning:not([hidden])")
    page.click("#warn-change")
    assert page.evaluate("window.yz.game.state.moves.length") == 1
    page.click("#dice .die >> nth=0")
    page.click("#dice .die >> nth=3")
    page.click("#dice .die >> nth=4")
    page.click("#roll")
    page.wait_for_function("() => window.yz.game.phase === 'dice'")
    assert "was the best move" in page.inner_text("#feedback")
    page.fill("#own-input", "666")  # only the re-rolled dice
    page.press("#own-input", "Enter")
    page.wait_for_function("() => window.yz.game.dice && window.yz.game.dice.length === 5")
    assert page.evaluate("window.yz.game.dice") == [6, 6, 6, 6, 6]
    page.click("#card tr[data-box='yahtzee']")
    page.wait_for_function("() => window.yz.game.turn === 2")
    assert page.inner_text("#card tr[data-box='total'] td.score") == "50"
    page.click("#undo")
    page.wait_for_function("() => window.yz.game.turn === 1")
    assert page.inner_text("#card tr[data-box='total'] td.score") == "0"
    assert not errors, errors


from test_play import BANKED  # noqa: E402 (the coach's tests' game with saved rolls)


@pytest.mark.parametrize("fits", [True, False], ids=["with-distribution", "without"])
def test_a_game_with_saved_rolls_in_the_browser(server, browser, tmp_path, monkeypatch, fits):
    """A pasted rule set with saved rolls: the page shows the bank a turn started with and
    scoring before the last roll saves the rolls left; the review ranks the total in the
    exact distribution, or (a server with too little memory for it: these games' moves are
    many) says why there is none."""
    from yz.rules import rules_from_text
    from yz.solver import Model
    from yz.solver.coach import Game
    from yz.web import rulesets

    if not fits:
        monkeypatch.setattr(rulesets, "MAX_DISTRIBUTION_MEMORY", 1000)
    page = browser.new_page(viewport={"width": 1300, "height": 950})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    why = page.eval_on_selector("#variant option[value='yatzy-saved-rolls']",
                                "o => o.disabled ? o.title : ''")
    assert "saved rolls" not in why  # (refused only where its solve takes too long)
    page.select_option("#variant", "__paste__")
    page.fill("#yaml", BANKED)
    page.fill("#seed", "7")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    solution = Model(rules_from_text(BANKED), use_cache=False).solve()
    saw_bank = False
    while True:
        game = Game.from_state(solution, page.evaluate("window.yz.game.state"))
        if game.over:
            break
        shown = page.inner_text("#rolls")
        assert f"started with {game.saved_rolls} saved roll" in shown, shown
        assert f"{game.rolls_left} re-roll" in shown or game.rolls_left == 0
        if game.saved_rolls and not saw_bank:
            saw_bank = True
            page.click("#hint")
            page.wait_for_selector("#hints:not([hidden]) tbody tr")
            shot(page, tmp_path, "serve-saved-rolls.png")
        click_move(page, game, game.options()[0])
    assert saw_bank  # some turn began with saved rolls
    page.wait_for_selector("#review:not([hidden])")
    assert int(page.inner_text("#final-total")) == game.banked
    if fits:
        assert f"P(score ≤ {game.banked})" in page.inner_text("#rank")
        assert page.is_visible("#chart") and page.is_hidden("#chart-note")
        assert "exact distribution, optimal play" in page.inner_text("#dist-title")
    else:
        assert page.is_visible("#chart-note") and page.is_hidden("#chart")
        assert "needs more memory than this server gives it" in page.inner_text("#chart-note")
        assert "not computed" in page.inner_text("#dist-title")
        assert page.inner_text("#rank").strip() == ""
    shot(page, tmp_path, f"serve-saved-rolls-review-{'with' if fits else 'without'}.png")
    assert not errors, errors


def test_the_rules_list_says_loading_and_new_game_waits_for_it(server, browser, monkeypatch):
    """Until the list of rule sets arrives (the server reads every built-in the first time),
    the list says so and New game does nothing, rather than asking for a rule set named '';
    when it arrives, an error shown before goes, and why a rule set is greyed out is written
    on the page (a tooltip never shows on a touch screen)."""
    import json
    import threading
    import urllib.request

    from yz.web.rulesets import RuleSets

    arrived = threading.Event()
    real_listing = RuleSets.listing

    def held_listing(self):
        arrived.wait(60)  # a hang guard: the test releases it
        return real_listing(self)

    monkeypatch.setattr(RuleSets, "listing", held_listing)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors, sent = [], []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: sent.append(r.url))
    page.goto(server + "/")
    try:
        assert page.inner_text("#variant").strip() == "loading rule sets…"
        assert page.is_disabled("#variant") and page.is_disabled("#new-game")
        page.fill("#seed", "3")
        page.press("#seed", "Enter")  # a form's implicit submit
        page.evaluate("document.querySelector('#setup').requestSubmit()")
        assert page.is_hidden("#error") and page.is_hidden("#game")
        assert not [url for url in sent if "/api/prepare" in url or "/api/new" in url], sent
        page.evaluate("showError('variant: a message from before the list')")
    finally:
        arrived.set()
    page.wait_for_selector("body[data-ready='1']")
    assert page.is_hidden("#error")
    assert page.is_enabled("#variant") and page.is_enabled("#new-game")
    assert page.evaluate("document.querySelector('#variant').value") == "official-free-joker"

    with urllib.request.urlopen(server + "/api/variants", timeout=60) as res:
        greyed = {r["variant"]: r["why"] for r in json.load(res) if not r["playable"]}
    assert "maxi-yatzy-no-saved-rolls" in greyed
    assert page.is_visible("#unplayable")
    notes = page.eval_on_selector_all("#unplayable li", "items => items.map(i => i.textContent)")
    assert sorted(notes) == sorted(greyed.values())
    for variant, why in greyed.items():
        option = f"#variant option[value='{variant}']"
        assert page.eval_on_selector(option, "o => o.disabled")
        assert page.get_attribute(option, "title") == why
        assert "too slow to solve here" in page.inner_text(option)

    page.fill("#seed", "3")
    page.select_option("#variant", "no-bonus")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    assert page.is_hidden("#unplayable") and page.is_hidden("#error")
    assert not errors, errors


def test_a_paste_over_the_limit_is_refused_naming_it(server, browser, tmp_path):
    """A paste of more than a rule set's 65,536 characters is kept whole and refused with the
    limit named, as the file picker refuses such a file: never cut short and played."""
    from yz.web.settings import MAX_YAML_CHARS

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors, sent = [], []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: sent.append(r.url))
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.select_option("#variant", "__paste__")
    assert page.get_attribute("#yaml", "maxlength") is None
    big = "name: big\nextends: no-bonus\n" + "#" * 70_000 + "\n"
    page.focus("#yaml")
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(big)  # as a paste: the browser's own editing applies
    assert page.evaluate("document.querySelector('#yaml').value.length") == len(big)
    shown = page.inner_text("#error")
    assert f"{len(big):,} characters" in shown and f"{MAX_YAML_CHARS:,} characters" in shown
    page.click("#new-game")
    assert f"{MAX_YAML_CHARS:,} characters" in page.inner_text("#error")
    assert page.is_hidden("#game")
    assert not [url for url in sent if "/api/" in url and "/api/variants" not in url], sent

    page.fill("#yaml", "name: small\nextends: no-bonus\n")  # short again: the refusal goes
    assert page.is_hidden("#error")
    big_file = tmp_path / "big.yaml"
    big_file.write_text(big)
    page.set_input_files("#yaml-file", str(big_file))
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == shown.replace("The pasted rules", "big.yaml")
    assert page.evaluate("document.querySelector('#yaml').value").startswith("name: small")
    huge_file = tmp_path / "huge.yaml"
    huge_file.write_text("#" * 300_000)
    page.set_input_files("#yaml-file", str(huge_file))
    page.wait_for_function("() => document.querySelector('#error').textContent"
                           ".startsWith('huge.yaml: 300,000 bytes, more than the 65,536')")
    assert page.evaluate("document.querySelector('#yaml').value").startswith("name: small")
    assert not errors, errors


def test_the_solve_status_waits_only_for_solves_ahead(server, browser):
    """The first solve of a rule set says it is starting, never 'waiting for 0 other rule
    sets'; behind others, how many."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    status = {"stage": "queued", "percent": 0, "eta_seconds": 12, "rules": {"variant": "gist"}}
    label = []
    for ahead in (0, 1, 2):  # (shown and read at once: the page's own polls may redraw it)
        label.append(page.evaluate("(s) => { showProgress(s); return document.querySelector("
                                   "'#progress .label').innerText; }", {**status, "ahead": ahead}))
    assert label[0].startswith("gist: starting the solve · 0%") and "waiting" not in label[0]
    assert "waiting for 1 other rule set to finish solving" in label[1]
    assert "waiting for 2 other rule sets to finish solving" in label[2]
