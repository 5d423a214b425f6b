"""A whole game of Maxi Yatzy (or VARIANT) in a real terminal (a pseudo-terminal) from its
store: a hint, a coach warning, an undo and the review, a twin `Game` over the store's values
following every move; and how fast each move is judged (from the typed answer to the line that
judges it):

    .venv/bin/python bench/bench_store_play_terminal.py maxi-store [SEED] [VARIANT]

The transcript is written to store-play-terminal.txt in the current folder."""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_store_play import PROMPT, Terminal, answer_for
from yz.solver import Model
from yz.solver.coach import Game

STORE = sys.argv[1]
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 5
VARIANT = sys.argv[3] if len(sys.argv) > 3 else "maxi-yatzy"
THRESHOLD = 2.0
model = Model(VARIANT)
twin = Game(model.store_solution(STORE), SEED)
t0 = time.perf_counter()
term = Terminal(["play", "--variant", VARIANT, "--store", STORE, "--seed", str(SEED),
                 "--coach-threshold", f"{THRESHOLD:g}"], {})
waits = []
try:
    avg = term.expect(r"optimal play averages ([\d.]+) \(values read from (.+?)\)\.")
    print("start", avg[0], f"{time.perf_counter() - t0:.2f} s to the first prompt")
    hinted = warned = undone = False
    n = 0
    while not twin.over:
        shown = term.expect(PROMPT)
        assert shown[1] == " ".join(map(str, twin.dice)), term.text[-2000:]
        options = twin.options()
        n += 1
        if not hinted and n > 3:
            term.send("hint")
            term.expect(r"expected final  loss    move\n")
            first = term.expect(r" *([\d.]+) +([\d.]+)  (.+?)\n")
            assert first[1] == f"{twin.banked + options[0].value:.2f}", (first[0], options[0])
            assert first[3].startswith(options[0].label())
            print("hint:", first[0].strip())
            hinted = True
            continue
        worst = options[-1]
        if not warned and options[0].value - worst.value > THRESHOLD:
            term.send(answer_for(worst))
            loss = options[0].value - worst.value
            w = term.expect(rf"coach: .+ costs {loss:.2f} points of expected final score, "
                            rf"more than your coach threshold of {THRESHOLD:g} points; the "
                            r"best is .+\.")
            print("warning:", w[0])
            term.expect(r"play it anyway\? \[y/N\]> ")
            term.send("n")
            warned = True
            continue
        pick = options[1] if n % 5 == 0 and len(options) > 1 and \
            options[0].value - options[1].value <= THRESHOLD else options[0]
        sent = time.perf_counter()
        term.send(answer_for(pick))
        decision = twin.play({"score": pick.box.key} if pick.kind == "score"
                             else {"keep": list(pick.keep)})
        term.expect("best move" if decision.was_best else
                    rf"not the best: .+ cost {decision.loss:.2f} points\.")
        waits.append(time.perf_counter() - sent)
        if not undone and n >= 12 and not twin.over:
            term.expect(PROMPT)
            term.send("undo")
            u = term.expect(r"took back the last decision: turn (\d+)\.")
            print("undo:", u[0])
            twin.undo()
            undone = True
    assert hinted and warned and undone
    total = term.expect(r"total (\d+) \(optimal play averages ([\d.]+)\)")
    assert int(total[1]) == twin.banked
    term.expect(rf"your decisions cost {twin.lost():.2f} ")
    term.expect(rf"decisions: {len(twin.log)}, {sum(d.was_best for d in twin.log)} of them best")
    print("review ok: total", total[1], "lost", f"{twin.lost():.2f}")
    assert term.close() == 0
finally:
    if term.proc.poll() is None:
        term.close()
Path("store-play-terminal.txt").write_text(term.text)
assert "Traceback" not in term.text
print(f"moves {len(waits)}: answer after a move median {statistics.median(waits)*1000:.0f} ms, "
      f"max {max(waits)*1000:.0f} ms; whole game {time.perf_counter() - t0:.1f} s")
