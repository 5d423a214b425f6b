"""`yz serve`'s page for anyone, in Debian's chromium: hostile names stay text, a whole game by
keyboard alone, a whole game on a phone-sized screen by touch, an axe-core accessibility scan
(axe's script from the axe-playwright-python package, no CDN), and the API docs offline.

Moves are chosen by the library's own `Game` replayed from the page's state, as in
test_web_browser.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from browser_support import CHROMIUM, shot

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="needs Debian's chromium (apt-get install chromium)")

HOSTILE = '<img src=x onerror="window.__pwned=1">'
GENERALA_ONE_ROLL = "extends: generala\nrolls: 1\n"
PHONE = {"width": 390, "height": 844}


def hostile_rules() -> str:
    from yz.rules import load_rules

    markup = (HOSTILE, "<script>window.__pwned=3</script>")  # a name has at most 60 characters
    boxes = "".join(f"  - {{key: {c.key}, name: '{markup[i % 2]}{c.key}'}}\n"
                    for i, c in enumerate(load_rules("generala").categories))
    return (f"name: '<b>hostile</b>'\ndescription: '{HOSTILE}'\n{GENERALA_ONE_ROLL}"
            f"categories:\n{boxes}")


def watch(page) -> dict:
    """Record page errors, dialogs (an injected alert) and CSP violations."""
    seen = {"errors": [], "dialogs": [], "console": []}
    page.on("pageerror", lambda exc: seen["errors"].append(str(exc)))
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("console", lambda m: seen["console"].append(m.text) if m.type == "error" else None)
    return seen


def open_page(context, server: str):
    page = context.new_page()
    seen = watch(page)
    page.goto(server + "/")
    page.wait_for_selector("body[data-ready='1']")
    return page, seen


def paste_and_play(page, yaml: str) -> None:
    page.select_option("#variant", "__paste__")
    page.fill("#yaml", yaml)
    page.click("#new-game")
    page.wait_for_selector("#dice .die, #error:not([hidden])", timeout=180_000)
    assert page.is_hidden("#error"), page.inner_text("#error")


def moves_made(page) -> int:
    return page.evaluate("window.yz.game.state.moves.length")


def best_option(page, solution):
    from yz.solver.coach import Game

    game = Game.from_state(solution, page.evaluate("window.yz.game.state"))
    return game, (None if game.over else game.options()[0])


def no_overflow(page) -> None:
    width, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"the page is {width} px wide in a {inner} px window"


# ---------------------------------------------------------------- names with markup


def test_names_with_markup_are_shown_as_text_and_never_run(server, browser, tmp_path):
    first = browser.new_context(viewport={"width": 1200, "height": 900})
    page, seen = open_page(first, server)
    paste_and_play(page, hostile_rules())
    names = page.eval_on_selector_all("#card tr[data-box] td:first-child",
                                      "cells => cells.map(c => c.textContent)")
    assert names[0] == f"{HOSTILE}ones" and names[1].startswith("<script>"), names
    assert page.query_selector("#card img, #card script, #card b") is None
    assert page.inner_text("#variant-name") == "<b>hostile</b>"
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) tbody tr")
    page.click("#card tr.can")  # a score: the log names the box
    page.wait_for_function("() => window.yz.game.state.moves.length === 1")
    page.reload()
    page.wait_for_selector("#dice .die")
    shot(page, tmp_path, "serve-hostile-names.png")
    assert page.evaluate("window.__pwned") is None
    assert not seen["dialogs"] and not seen["errors"], seen

    # Another person, plain rules with the same scoring: the shared strategy brings numbers
    # only; every name shown is this person's own.
    second = browser.new_context(viewport={"width": 1200, "height": 900})
    other, seen2 = open_page(second, server)
    paste_and_play(other, f"name: plain\n{GENERALA_ONE_ROLL}")
    text = other.inner_text("body")
    assert "<" not in text.replace("≤", "") and "onerror" not in text
    assert "Generala" in other.inner_text("#card")
    other.reload()
    other.wait_for_selector("#dice .die")
    assert other.evaluate("window.__pwned") is None
    assert not seen2["dialogs"] and not seen2["errors"], seen2


# ---------------------------------------------------------------- a game by keyboard alone


def tab_to(page, selector: str, most: int = 120) -> None:
    """Press Tab until the focused element matches `selector` (keyboard only)."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focus_is_visible(page) -> bool:
    return page.evaluate("""() => {
        const s = getComputedStyle(document.activeElement);
        return s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2; }""")


def test_a_whole_game_by_keyboard_alone(server, browser, tmp_path):
    from yz.rules import load_rules
    from yz.solver import Model

    page, seen = open_page(browser.new_context(viewport={"width": 1200, "height": 900}), server)
    tab_to(page, "#variant")
    assert focus_is_visible(page)
    page.keyboard.type("no-bonus")  # a focused list selects the option typed
    assert page.evaluate("document.querySelector('#variant').value") == "no-bonus"
    tab_to(page, "#seed")
    page.keyboard.type("11")
    tab_to(page, "#new-game")
    page.keyboard.press("Enter")
    page.wait_for_selector("#dice .die", timeout=180_000)
    solution = Model(load_rules("no-bonus")).solve()

    decisions = 0
    while True:
        game, best = best_option(page, solution)
        if best is None:
            break
        decisions += 1
        before = moves_made(page)
        if decisions == 2:  # H shows the hint; U takes a decision back; then on as before
            page.keyboard.press("h")
            page.wait_for_selector("#hints:not([hidden]) tbody tr")
            page.keyboard.press("u")
            page.wait_for_function(f"() => window.yz.game.state.moves.length === {before - 1}")
            continue
        if best.kind == "keep":
            hold_by_keyboard(page, list(best.keep), by_tab=decisions % 3 == 0)
            page.keyboard.press("r")
        else:
            tab_to(page, f"#card tr[data-box='{best.box.key}'] button.box")
            assert focus_is_visible(page)
            page.keyboard.press("Enter" if decisions % 2 else " ")
        page.wait_for_function(f"() => window.yz.game.state.moves.length === {before + 1}")
    page.wait_for_selector("#review:not([hidden])")
    assert focused(page) == "#review"  # the game is over: the keyboard goes to the review
    assert int(page.inner_text("#final-total")) == game.banked
    assert page.evaluate("window.yz.game.log.every(d => d.was_best)")
    shot(page, tmp_path, "serve-keyboard-over.png")
    assert not seen["errors"], seen


def dice_to_toggle(page, keep: list[int]) -> tuple[list[int], list[int]]:
    """(the dice shown, the indices whose held state must change to hold exactly `keep`)."""
    dice = page.evaluate("window.yz.game.dice")
    held = page.evaluate("window.yz.held")
    want, toggle = list(keep), []
    for i, value in enumerate(dice):
        hold = value in want
        if hold:
            want.remove(value)
        if held[i] != hold:
            toggle.append(i)
    return dice, toggle


def hold_by_keyboard(page, keep: list[int], by_tab: bool) -> None:
    """Hold exactly the dice of `keep`: keys 1-8, or Tab to each die and Space."""
    dice, toggle = dice_to_toggle(page, keep)
    for i in toggle:
        if by_tab:
            tab_to(page, f"#dice .die[data-index='{i}']")
            assert focus_is_visible(page)
            page.keyboard.press(" ")
        else:
            page.keyboard.press(str(i + 1))
    held = page.evaluate("window.yz.held")
    assert sorted(d for d, h in zip(dice, held, strict=True) if h) == sorted(keep)


# ---------------------------------------------------------------- a phone


@pytest.mark.slow  # (the default run keeps a whole two-player match on a phone by touch,
# test_web_match, and every tap target's size on a touch screen)
def test_a_whole_game_on_a_phone_by_touch(server, browser, tmp_path):
    from yz.rules import load_rules
    from yz.solver import Model

    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True,
                                  device_scale_factor=2)
    page, seen = open_page(context, server)
    no_overflow(page)
    page.select_option("#variant", "no-bonus")
    page.fill("#seed", "4")
    page.tap("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    solution = Model(load_rules("no-bonus")).solve()
    tapped: set[int] = set()
    scrolled_card = False
    while True:
        game, best = best_option(page, solution)
        if best is None:
            break
        no_overflow(page)
        before = moves_made(page)
        if best.kind == "keep":
            if len(tapped) < 5:  # tap every die once, in and out, so each is known to work
                i = len(tapped)
                page.tap(f"#dice .die[data-index='{i}']")
                page.tap(f"#dice .die[data-index='{i}']")
                tapped.add(i)
            tap_dice(page, list(best.keep))
            page.tap("#roll")
        else:
            row = f"#card tr[data-box='{best.box.key}']"
            page.locator(row).scroll_into_view_if_needed()
            if not scrolled_card:  # the dice stay in sight while the card is scrolled
                scrolled_card = True
                top, bottom = page.evaluate(
                    "(() => { const r = document.querySelector('.game > .bar')"
                    ".getBoundingClientRect(); return [r.top, r.bottom]; })()")
                assert top >= -1 and bottom <= PHONE["height"] / 2, (top, bottom)
                shot(page, tmp_path, "serve-phone-card.png", full_page=False)
            page.tap(f"{row} button.box")
        page.wait_for_function(f"() => window.yz.game.state.moves.length === {before + 1}")
    assert tapped == set(range(5)) and scrolled_card
    page.wait_for_selector("#review:not([hidden])")
    no_overflow(page)
    assert int(page.inner_text("#final-total")) == game.banked
    shot(page, tmp_path, "serve-phone-over.png")
    assert not seen["errors"], seen


def tap_dice(page, keep: list[int]) -> None:
    for i in dice_to_toggle(page, keep)[1]:
        page.tap(f"#dice .die[data-index='{i}']")


TAPPABLE = "button, input, select, textarea, label, a[href]"
FINGER = 44  # px each way: the least a tap target may be (WCAG 2.5.5, Apple's guidelines)


def small_tap_targets(page) -> list[tuple[str, float, float]]:
    """Every control on show that a finger can tap and whose hit area is less than FINGER
    px wide or high: its own box, or its label's when the label holds it (a checkbox is
    tapped by its label). Labels hidden for screen readers only are not tapped."""
    small = []
    for control in page.query_selector_all(TAPPABLE):
        if not control.is_visible() or control.evaluate("c => !!c.closest('.visually-hidden')"):
            continue
        box = control.bounding_box()
        label = control.evaluate_handle("c => c.closest('label') || c").as_element()
        hit = max(box, label.bounding_box(), key=lambda b: min(b["width"], b["height"]))
        if hit["width"] < FINGER or hit["height"] < FINGER:
            what = control.evaluate("c => c.outerHTML.slice(0, 80)")
            small.append((what, round(hit["width"]), round(hit["height"])))
    return small


def test_every_tap_target_is_44_px_on_a_touch_screen(server, browser):
    """On a phone (touch, 390x844) every button, field, label and link a finger taps is at
    least 44 px each way: the setup, the pasted rules, a game with typed-in dice, the hint's
    options, the coach's warning."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page, seen = open_page(context, server)
    assert page.evaluate("matchMedia('(any-pointer: coarse)').matches")
    checked = {"intro": small_tap_targets(page)}
    page.select_option("#variant", "__paste__")
    checked["paste"] = small_tap_targets(page)
    page.select_option("#variant", "no-bonus")
    page.check("#own-dice")
    page.fill("#threshold", "1")
    page.tap("#new-game")
    page.wait_for_selector("#own-input", state="visible", timeout=180_000)
    checked["own dice"] = small_tap_targets(page)
    page.fill("#own-input", "13466")
    page.tap("#own-enter")
    page.wait_for_function("() => window.yz.game.phase === 'keep'")
    checked["dice"] = small_tap_targets(page)
    page.tap("#hint")
    page.wait_for_selector("#hints:not([hidden]) tr.more button")
    checked["hint"] = small_tap_targets(page)
    assert page.locator("#hints button.option").count() >= 10
    page.tap("#dice .die >> nth=0")  # hold the 1 only: costly, the coach steps in
    page.tap("#roll")
    page.wait_for_selector("#warning:not([hidden])")
    checked["warning"] = small_tap_targets(page)
    assert not any(checked.values()), checked
    assert not seen["errors"], seen


# ---------------------------------------------------------------- focus after every action


def focused(page) -> str:
    """What has the keyboard's focus, as a selector-like name."""
    return page.evaluate("""() => {
        const e = document.activeElement;
        if (e.matches('#dice .die')) return `die ${e.dataset.index}`;
        if (e.matches('#card button.box')) return `box ${e.closest('tr').dataset.box}`;
        if (e.matches('#hints button.option')) return 'option';
        return e.id ? `#${e.id}` : e.tagName.toLowerCase(); }""")


def first_open_box(page) -> str:
    return "box " + page.eval_on_selector("#card tr.can", "tr => tr.dataset.box")


def wait_moves(page, n: int) -> None:
    page.wait_for_function(f"() => window.yz.game.state.moves.length === {n}")


def test_focus_moves_to_the_next_control_after_every_action(server, browser):
    """The keyboard never drops to the page's body: after a roll, the first die (after the
    last roll, the first box to score); after a score, Roll; after an undo, Undo while there
    is more to take back, then Roll; with one's own dice, the field to type them in."""
    page, seen = open_page(browser.new_context(viewport={"width": 1280, "height": 800}),
                           server)
    page.select_option("#variant", "no-bonus")
    page.fill("#seed", "12")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    assert focused(page) == "die 0"
    page.keyboard.press("r")  # re-roll all
    wait_moves(page, 1)
    assert focused(page) == "die 0"
    page.click("#roll")  # the last roll: a box is next
    wait_moves(page, 2)
    assert focused(page) == first_open_box(page)
    page.keyboard.press("Enter")  # score the focused box
    wait_moves(page, 3)
    assert focused(page) == "#roll"
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) tbody tr")
    assert focused(page) == "option"
    page.keyboard.press("u")
    wait_moves(page, 2)
    assert focused(page) == "#undo"  # more to take back: undo again with Enter
    page.keyboard.press("Enter")
    wait_moves(page, 1)
    assert focused(page) == "#undo"
    page.keyboard.press("Enter")
    wait_moves(page, 0)
    assert focused(page) == "#roll"  # nothing left to take back

    page.check("#own-dice")
    page.click("#new-game")
    page.wait_for_selector("#own-input", state="visible")
    assert focused(page) == "#own-input"
    page.keyboard.type("13466")
    page.keyboard.press("Enter")
    wait_moves(page, 1)
    assert focused(page) == "die 0"
    page.keyboard.press("r")
    wait_moves(page, 2)
    assert focused(page) == "#own-input"  # the re-rolled dice, typed in
    page.keyboard.type("66666")
    page.keyboard.press("Enter")
    wait_moves(page, 3)
    page.click("#card tr[data-box='yahtzee'] button.box")
    wait_moves(page, 4)
    assert focused(page) == "#own-input"
    assert not seen["errors"], seen


def test_numbers_in_the_decisions_never_wrap(server, browser):
    """At 1280 px the decisions table's losses ("6.63") stay on one line beside long moves."""
    page, seen = open_page(browser.new_context(viewport={"width": 1280, "height": 800}),
                           server)
    page.select_option("#variant", "no-bonus")
    page.fill("#seed", "5")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    for n in range(1, 9):  # costly moves: each logged with its loss and the best move
        if page.evaluate("window.yz.game.phase") == "keep" and n % 3:
            page.click("#dice .die >> nth=0")
            page.click("#roll")
        else:
            page.click("#card tr.can >> nth=0")
        wait_moves(page, n)
    lines = page.eval_on_selector_all("#log td.num, #log td.dice-cell", """cells =>
        cells.map(c => { const r = document.createRange(); r.selectNodeContents(c);
                         return [c.textContent, new Set([...r.getClientRects()]
                                 .map(q => Math.round(q.top))).size]; })""")
    assert len(lines) >= 16 and any(text != "✓" for text, _ in lines), lines
    assert all(n == 1 for _, n in lines), lines
    assert not seen["errors"], seen


# ---------------------------------------------------------------- accessibility and docs


def test_axe_finds_no_serious_or_critical_violation(server, browser, tmp_path):
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    page, seen = open_page(browser.new_context(viewport={"width": 1200, "height": 900}), server)
    found = {"intro": axe.run(page)}
    page.select_option("#variant", "no-bonus")
    page.fill("#seed", "2")
    page.click("#new-game")
    page.wait_for_selector("#dice .die", timeout=180_000)
    page.click("#dice .die >> nth=0")
    page.click("#hint")
    page.wait_for_selector("#hints:not([hidden]) tbody tr")
    page.click("#hints tbody tr >> nth=0")
    page.wait_for_function("() => window.yz.game.state.moves.length === 1")
    found["game"] = axe.run(page)
    phone, _ = open_page(browser.new_context(viewport=PHONE), server)
    found["phone"] = axe.run(phone)
    bad = {where: [(v["id"], v["impact"], len(v["nodes"])) for v in result.response["violations"]
                   if v["impact"] in ("serious", "critical")]
           for where, result in found.items()}
    assert not any(bad.values()), bad
    assert not seen["errors"], seen
    for where, result in found.items():  # the rest, for the record (pytest -s)
        print(where, [(v["id"], v["impact"], len(v["nodes"]))
                      for v in result.response["violations"]])


def test_api_docs_render_from_local_files(server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    seen = watch(page)
    outside = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(server) and
            not r.url.startswith("data:") else None)
    page.goto(server + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)
    text = page.inner_text(".swagger-ui")
    assert "/api/prepare" in text and "/api/move" in text
    shot(page, tmp_path, "serve-docs.png")
    assert not outside, outside
    assert not seen["errors"] and not any("Content Security Policy" in m
                                          for m in seen["console"]), seen


# ---------------------------------------------------------------- an honest first run


def test_the_first_run_shows_compiling_then_a_percentage_and_the_time_left(
        server, browser, tmp_path, monkeypatch):
    """A first solve, slowed down: a compile that takes 2 s, a solve that reports progress."""
    import threading
    import time

    import yz.solver.dp as dp
    import yz.solver.warmup as warmup

    real_values = dp.solve_values
    go_on = threading.Event()
    compiles = []

    def slow_compile(families, report=warmup.SILENT):
        if compiles:  # compiled once: nothing is missing any more
            return
        compiles.append(families)
        with report.stage("compiling the solver's kernels", "kernels"):
            time.sleep(2)

    def slow_solve(model, with_sd=False, step=None):
        for i in range(200):
            if go_on.is_set():
                break
            step(i, 400)
            time.sleep(0.05)
        return real_values(model, with_sd, step)

    monkeypatch.setattr(warmup, "missing", lambda families: list(families))
    monkeypatch.setattr(warmup, "ensure_compiled", slow_compile)
    monkeypatch.setattr(dp, "solve_values", slow_solve)
    page, seen = open_page(browser.new_context(viewport={"width": 1200, "height": 900}),
                           server)
    page.select_option("#variant", "gist")  # solved by no other test of this module
    page.click("#new-game")
    label = "#progress .label"
    page.wait_for_function("() => document.querySelector('#progress .label').textContent"
                           ".includes('compiling the solver (once per installation)')")
    page.wait_for_function(r"""() => /solving the rule set exactly · \d+% · about \d+ s left/
        .test(document.querySelector('#progress .label').textContent)""")
    shot(page, tmp_path, "serve-first-run.png", full_page=False)
    percent = int(page.get_attribute("#progress .bar", "aria-valuenow"))
    assert 0 < percent < 100, page.inner_text(label)
    go_on.set()
    shown = [percent]  # the percentages the page shows until the game starts: never back
    deadline = time.monotonic() + 180
    while not page.query_selector("#dice .die"):
        assert time.monotonic() < deadline, shown
        now = page.evaluate("() => document.querySelector('#progress .bar')"
                            "?.getAttribute('aria-valuenow')")
        if now is not None:
            shown.append(float(now))
        time.sleep(0.05)
    assert shown == sorted(shown), shown
    # One compile stage, first, for the solve and the distribution both.
    assert len(compiles) == 1 and "forward" in compiles[0], compiles
    assert page.is_hidden("#progress")
    assert not seen["errors"], seen
