"""yz in a person's hands: Ctrl-C, output that cannot be written, long work refused before it
starts, target tables sized to the question and healed when damaged, a cache folder shared
with the user's own files."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_terminal import default_sigint
from yz.rules import WorkTooLong
from yz.solver import Model, cache

HANG_GUARD = 60  # seconds: only a hang trips it; the times themselves are in bench/ and notes


def yz_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "yz.cli.entry", *args]


def run(*args: str, cache_dir: Path, **kwargs) -> subprocess.CompletedProcess:
    env = dict(os.environ, YZ_CACHE_DIR=str(cache_dir))
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("timeout", 600)
    return subprocess.run(yz_cmd(*args), stderr=subprocess.PIPE, text=True, env=env, **kwargs)


# ---------------------------------------------------------------- a long solve

def big_game(folder: Path) -> Path:
    """6 dice of 10 faces, 5 rolls, 20 boxes and an upper bonus: over two hours' solve on this
    machine, yet its tables build in a second or two (the test waits for the solve itself)."""
    lines = ["name: big-six", "dice: 6", "faces: 10", "rolls: 5",
             "upper_bonus: {threshold: 20, amount: 50}", "categories:"]
    lines += [f"  - {{key: f{f}, pattern: {{kind: face, face: {f}}}, score: face_total}}"
              for f in range(1, 11)]
    lines += [f"  - {{key: k{c}, pattern: {{kind: of_a_kind, count: {c}}}, score: sum_all}}"
              for c in range(2, 7)]
    lines += [f"  - {{key: chance{i}, pattern: any, score: sum_all}}" for i in range(5)]
    path = folder / "big-six.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_long_solve_is_refused_before_it_starts_then_stops_at_ctrl_c(tmp_path):
    rules = big_game(tmp_path)
    cache_dir = tmp_path / "cache"
    refused = run("solve", "--variant", str(rules), "--json", cache_dir=cache_dir)
    assert refused.returncode == 2, refused.stderr
    error = refused.stderr.strip().splitlines()[-1]
    assert error.startswith("error: solving big-six would take about ")
    assert "--yes" in error and "Traceback" not in refused.stderr
    told = json.loads(refused.stdout)  # with --json, the estimate for a script to read
    assert told["refused"] == "solving big-six" and told["budget_seconds"] == 600
    assert told["estimate_seconds"] > 600

    env = dict(os.environ, YZ_CACHE_DIR=str(cache_dir))
    proc = subprocess.Popen(yz_cmd("solve", "--variant", str(rules), "--yes"),
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_sigint, start_new_session=True)
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.extend(iter(lambda: proc.stderr.read(1), "")),
                              daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 300
        while "solving big-six will take about" not in "".join(said):  # before the work
            assert time.monotonic() < deadline and proc.poll() is None, "".join(said)
            time.sleep(0.05)
        time.sleep(2)  # well inside the kernels
        seen = len(said)
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        code = proc.wait(timeout=HANG_GUARD)
        stopped = time.monotonic() - sent
    finally:
        if proc.poll() is None:  # a failed check must not leave a solve running for hours
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    reader.join(timeout=HANG_GUARD)
    rest = "".join(said[seen:])
    assert code == 130, "".join(said)
    assert stopped < HANG_GUARD
    assert "interrupted" in rest and "Traceback" not in rest
    leftovers = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
    assert not leftovers.stdout.strip()
    assert not cache_dir.exists() or not any(cache_dir.iterdir())  # no partial files


def test_the_budget_is_the_models():
    model = Model("official-free-joker", use_cache=False, max_seconds=1e-3)
    with pytest.raises(WorkTooLong, match="solving official-free-joker would take about") as info:
        model.solve()
    assert "max_seconds" in str(info.value) and "--" not in str(info.value)  # no CLI flags
    assert Model("no-bonus", use_cache=False, max_seconds=None).solve().expected_score > 0


def test_a_strategys_exact_moments_are_checked_against_the_budget_first():
    """The exact mean and SD of a fixed strategy are a pass of their own (`moments_seconds`):
    over the budget they are refused before it starts, after the solve they need."""
    model = Model("no-bonus", use_cache=False)
    model.solve()
    small = Model("no-bonus", use_cache=False, max_seconds=model.budget.moments_seconds() / 2)
    with pytest.raises(WorkTooLong, match="the exact SD of greedy play of no-bonus would take"):
        small.moments("greedy")
    assert model.moments("greedy").expected_score > 0


def test_a_busy_machine_stretches_the_estimate_the_guard_checks(monkeypatch):
    """A quiet machine's estimate under the guard starts; the same work with other work
    taking the cores is refused, the estimate stretched by the cores left and saying so."""
    import os

    from yz.solver.budget import free_cores

    monkeypatch.setattr(os, "getloadavg", lambda: (0.5, 0.5, 0.5))  # quiet
    quiet = Model("official-free-joker", use_cache=False)
    seconds = quiet.budget.values_seconds()
    threads = quiet.problem.threads
    guard = seconds * 1.5
    Model("official-free-joker", use_cache=False, max_seconds=guard).budget.check_time(
        "solving", seconds)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0 + 4 * threads,) * 3)  # 4x the work
    assert free_cores(threads) == pytest.approx(threads / 5)
    busy = Model("official-free-joker", use_cache=False, max_seconds=guard)
    with pytest.raises(WorkTooLong, match="cores other work leaves free") as info:
        busy.budget.check_time("solving", seconds)
    assert info.value.seconds == pytest.approx(5 * seconds)
    # Work timed here just now is this machine's as it is: not stretched again.
    busy.budget.check_time("playing", seconds, "from games timed here", here_now=True)


# ---------------------------------------------------------------- Ctrl-C everywhere


def no_process_left(group: int) -> bool:
    """Whether every process of a process group ends (a helper too; multiprocessing's resource
    tracker ends a moment after the command), within the hang guard."""
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_ctrl_c_stops_target_play_in_the_middle_of_a_layer(isolated_cache):
    """Target play returns to Python between parts of a layer, as the DP does, so Ctrl-C is
    handled there: exit 130, `interrupted`, no noise, no table written."""
    from test_terminal import run_in_pty

    run = run_in_pty(["target", "-v", "official-free-joker", "--max-target", "400",
                      "--targets", "350", "--yes"], 100, timeout=HANG_GUARD + 240,
                     interrupt_when="target play, official-free-joker", interrupt_after=3)
    assert run.code == 130, run
    assert run.text.rstrip().endswith("interrupted"), run
    assert "Traceback" not in run.text and "Exception ignored" not in run.text, run
    assert not list(isolated_cache.glob("*targets*")), list(isolated_cache.iterdir())
    assert no_process_left(run.pid)


def test_ctrl_c_stops_the_warm_up_leaving_nothing_half_written(tmp_path):
    """Compiling happens in processes of their own, which the command kills on Ctrl-C: it
    stops at once (a numba compile cannot be interrupted, a process can), and no file numba
    had begun to write is left behind."""
    from test_terminal import run_in_pty

    kernels = tmp_path / "kernels"
    run = run_in_pty(["warmup"], 100, timeout=HANG_GUARD + 60,
                     interrupt_when="compiling the solver's kernels", interrupt_after=5,
                     env={"NUMBA_CACHE_DIR": str(kernels)})
    assert run.code == 130, run
    assert run.text.rstrip().endswith("interrupted"), run
    assert "Traceback" not in run.text and "Exception ignored" not in run.text, run
    assert no_process_left(run.pid)
    assert not [p for p in kernels.rglob("*") if ".tmp." in p.name], list(kernels.rglob("*"))


# ---------------------------------------------------------------- a long simulation


def test_far_too_many_games_are_refused_at_once(tmp_path):
    """Even the least a run can take (every turn played, none of its choices computed) is
    over the budget: refused before anything is solved or played, in every output mode."""
    for args in ((), ("--json",)):
        res = run("simulate", "--games", "1000000000000", "--no-exact", *args,
                  cache_dir=tmp_path, timeout=HANG_GUARD)
        assert res.returncode == 2, res.stderr
        error = res.stderr.strip().splitlines()[-1]
        assert error.startswith("error: playing 1,000,000,000,000 games of "
                                "official-free-joker would take at least "), error
        assert "--yes" in error and "Traceback" not in res.stderr
        if args:
            told = json.loads(res.stdout)
            assert told["refused"] == "playing 1,000,000,000,000 games of official-free-joker"
            assert told["estimate_seconds"] > told["budget_seconds"] == 600
    assert not tmp_path.exists() or not any(tmp_path.iterdir())  # nothing solved


def test_a_long_simulation_is_timed_then_refused_before_its_games(monkeypatch):
    """A run the floor lets through is estimated from games timed on the spot (throwaway
    samples), and refused before any of its own games when that is over the budget."""
    from yz.solver import budget
    from yz.solver import simulate as sim

    monkeypatch.setattr(budget, "PLAY_SECONDS_PER_GAME_TURN", 0.0)  # past the floor
    played = []
    real = sim.simulate
    monkeypatch.setattr(sim, "simulate", lambda solution, games, *a, **k: (
        played.append(games), real(solution, games, *a, **k))[1])
    model = Model("no-bonus", max_seconds=1.0)
    with pytest.raises(WorkTooLong, match=r"playing 1,000,000 games of no-bonus would take "
                       r"about .* \(estimated from [\d,]+ games timed here just now\)"):
        model.simulate(1_000_000)
    assert played and max(played) <= sim.SIM_CHUNK_GAMES  # samples only


def test_a_long_simulation_says_its_estimate_before_its_games(monkeypatch):
    from yz.solver import budget
    from yz.solver.report import Reporter

    class Recorder(Reporter):
        def __init__(self):
            self.said = []

        def note(self, message):
            self.said.append(("note", message))

        @contextlib.contextmanager
        def stage(self, label, unit):
            self.said.append(("stage", label))
            yield lambda done, total: None

    monkeypatch.setattr(budget, "QUIET_SECONDS", 0.0)  # every run measured, and
    monkeypatch.setattr(budget, "ANNOUNCE_WORK_SECONDS", 0.0)  # announced
    recorder = Recorder()
    Model("no-bonus", report=recorder).simulate(4000, seed=1)
    notes = [i for i, (kind, text) in enumerate(recorder.said) if kind == "note" and
             text.startswith("playing 4,000 games of no-bonus will take about ")]
    playing = recorder.said.index(("stage", "playing 4,000 games"))
    assert notes and notes[0] < playing, recorder.said
    assert "(estimated from 1,000 games timed here just now)" in recorder.said[notes[0]][1]


# ---------------------------------------------------------------- standard output

def test_a_full_disk_is_one_error_line(tmp_path):
    with open("/dev/full", "w") as full:
        for args in (("rules", "schema"), ("variants",), ("variants", "--json")):
            res = run(*args, cache_dir=tmp_path, stdout=full)
            assert res.returncode == 2, res.stderr
            assert res.stderr.strip() == ("error: could not write the output: No space left "
                                          "on device."), res.stderr


def test_no_standard_output_is_one_error_line(tmp_path):
    """`yz variants >&-`: standard output closed before yz starts (a full command, and a
    plain solve that the remembered answer would print)."""
    env = dict(os.environ, YZ_CACHE_DIR=str(tmp_path))
    for args in (("variants",), ("solve", "-v", "no-bonus")):
        res = subprocess.run(["sh", "-c", 'exec "$@" >&-', "sh", *yz_cmd(*args)],
                             capture_output=False, stderr=subprocess.PIPE, text=True, env=env,
                             timeout=HANG_GUARD)
        assert res.returncode == 2, res.stderr
        assert res.stderr == "error: could not write the output: standard output is closed.\n"


def test_a_closed_pipe_ends_quietly(tmp_path):
    env = dict(os.environ, YZ_CACHE_DIR=str(tmp_path))
    # The reader has gone before yz writes: `yz rules schema | true`.
    proc = subprocess.Popen(yz_cmd("rules", "schema"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=HANG_GUARD) == 141
    assert err == ""


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_pipe_closed_midway_ends_quietly(tmp_path, unbuffered):
    """The reader goes after the first bytes of an output bigger than the pipe holds
    (`yz rules table maxi-yatzy | head -c 5`, 106 KB): exit 141, quietly, also with Python
    unbuffered (PYTHONUNBUFFERED=1, usual in containers), where Python dropped the rest of a
    partial write without an error and yz ended 0."""
    env = dict(os.environ, YZ_CACHE_DIR=str(tmp_path), PYTHONUNBUFFERED=unbuffered)
    proc = subprocess.Popen(yz_cmd("rules", "table", "maxi-yatzy"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, bufsize=0)
    assert len(proc.stdout.read(5)) == 5
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=HANG_GUARD) == 141, err
    assert err == ""


# ---------------------------------------------------------------- target tables

def target_files(t) -> list[str]:
    stem = cache.cache_stem(t)
    return sorted(p.name[len(stem.name) + 1:] for p in stem.parent.glob(f"{stem.name}.targets-*"))


def test_target_tables_are_sized_to_the_question_and_grow_as_one(isolated_cache):
    res = run("target", "--variant", "no-bonus", "--targets", "100,150", "--json",
              cache_dir=isolated_cache)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["max_target"] == 150
    model = Model("no-bonus")
    assert target_files(model.tables) == ["targets-150.json", "targets-150.npy"]
    # Above the game's highest possible score every chance is 0: the table stops there.
    top = model.tables.highest_score
    table = model.targets(5000)
    assert table.max_target == top and table.p_reach(top + 1) == 0.0
    assert target_files(model.tables) == [f"targets-{top}.json", f"targets-{top}.npy"]
    advice = Model("no-bonus").advise(dice=(1, 1, 2, 3, 6), rolls_left=2, target=120)
    assert 0 < advice.best.value < 1
    assert target_files(model.tables) == [f"targets-{top}.json", f"targets-{top}.npy"]


def test_a_damaged_target_table_is_noted_and_recomputed(isolated_cache):
    from yz.solver.report import Reporter

    class Notes(Reporter):
        def __init__(self):
            self.notes = []

        def note(self, message):
            self.notes.append(message)

    fresh = Model("no-bonus").targets(120)
    expected = fresh.p_reach(100)
    path = cache.array_path(fresh.solution.tables, "targets-120")
    data = bytearray(path.read_bytes())
    data[-4] ^= 0x40  # a bit of the last row (the start state's row is the first)
    path.write_bytes(bytes(data))
    notes = Notes()
    model = Model("no-bonus", report=notes)
    table = model.targets(120)
    assert table.cached
    last = model.layout.size - 1
    table.row(last)  # the damaged block: noted, recomputed, answered
    assert any("damaged" in n for n in notes.notes), notes.notes
    assert table.p_reach(100) == pytest.approx(expected, abs=0)
    again = Model("no-bonus").targets(120)
    np.testing.assert_array_equal(again.row(last), np.asarray(fresh.W)[last])


# ---------------------------------------------------------------- the cache folder

def test_clear_keeps_files_named_like_yz_but_not_written_by_it(isolated_cache):
    Model("no-bonus").solve()
    stem = cache.cache_stem(Model("no-bonus").tables)
    backup = stem.with_name(stem.name + ".backup.npy")
    backup.write_bytes(b"\x93NUMPY the user's backup")
    lookalike = stem.with_name(stem.name + ".notes.json")
    lookalike.write_text("my notes, not JSON")
    young = isolated_cache / ".tmp-yz-writing"
    young.write_bytes(b"half a table")
    listed = json.loads(run("cache", "list", "--json", cache_dir=isolated_cache).stdout)
    status = {Path(e["path"]).name: e["status"] for e in listed["entries"]}
    assert backup.name not in status and lookalike.name not in status
    assert status[young.name] == "writing"
    cleared = run("cache", "clear", "--stale", "--json", cache_dir=isolated_cache)
    assert cleared.returncode == 0, cleared.stderr
    run("cache", "clear", "--json", cache_dir=isolated_cache)
    assert backup.exists() and lookalike.exists() and young.exists()


# ---------------------------------------------------------------- small things a person trips on

def test_variants_lists_the_shipped_examples(tmp_path):
    rows = json.loads(run("variants", "--json", cache_dir=tmp_path).stdout)
    names = {r["variant"] for r in rows}
    assert {"official-free-joker", "example:yacht", "example:house-rules"} <= names


def test_an_empty_variant_name_is_named_as_such(tmp_path):
    res = run("solve", "--variant", "", cache_dir=tmp_path)
    assert res.returncode == 2
    assert res.stderr.strip() == ("error: variant: the name is empty; give a built-in rule "
                                  "set's name, example:NAME or the path of a YAML rule file.")


def test_the_progress_counts_the_states_the_summary_names():
    import contextlib

    from yz.solver.report import Reporter

    seen = []

    class Counting(Reporter):
        @contextlib.contextmanager
        def stage(self, label, unit):
            yield lambda done, total: seen.append((unit, done, total))

    solution = Model("no-bonus", use_cache=False, report=Counting()).solve()
    states = [(done, total) for unit, done, total in seen if unit == "states"]
    assert states[-1] == (solution.states, solution.states)


def test_a_killed_sweep_leaves_no_workers(tmp_path):
    """SIGKILL to `yz sweep --workers 2`: its worker processes end with it."""
    sweep = tmp_path / "slow.sweep.yaml"
    sweep.write_text("base: yatzy\naxes:\n  upper_bonus.threshold: [40, 50, 60, 63, 70, 80]\n")
    env = dict(os.environ, YZ_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.Popen(yz_cmd("sweep", str(sweep), "--workers", "2", "--quiet",
                                   "--what", "mean"), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)

    def children() -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
        return [int(p) for p in out.stdout.split()]

    deadline = time.monotonic() + 120
    while len(children()) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "no workers started"
        time.sleep(0.2)
    workers = children()
    time.sleep(3)  # inside their solves
    proc.kill()
    proc.wait(timeout=HANG_GUARD)
    deadline = time.monotonic() + HANG_GUARD
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if Path(f"/proc/{p}").exists()
                 and "Z" not in Path(f"/proc/{p}/stat").read_text().split()[2]]
    assert not alive, f"workers {alive} outlived their sweep"


def test_removing_every_box_is_told_at_the_users_line(tmp_path):
    path = tmp_path / "no-boxes.yaml"
    path.write_text("name: no-boxes\nextends: official-free-joker\nremove_categories: [ones, "
                    "twos, threes, fours, fives, sixes, three_of_a_kind, four_of_a_kind, "
                    "full_house, small_straight, large_straight, chance, yahtzee]\n")
    res = run("rules", "validate", str(path), cache_dir=tmp_path)
    assert res.returncode == 2
    assert f"{path}:3:1: categories: a rule set needs at least one box" in res.stderr


@pytest.mark.parametrize("what", ["pmf-optimal", "optimal", "moments-greedy"])
def test_damaged_cached_figures_are_noted_and_recomputed(isolated_cache, what):
    from yz.solver.report import Reporter

    class Notes(Reporter):
        def __init__(self):
            self.notes = []

        def note(self, message):
            self.notes.append(message)

    def compute(model):
        if what == "pmf-optimal":
            return model.distribution().probabilities.tolist()
        if what == "optimal":
            return model.figures().as_dict()["box_mean"]
        return model.moments("greedy").sd

    expected = compute(Model("no-bonus"))
    path = cache.figures_path(Model("no-bonus").tables, what)
    text = path.read_text()
    path.write_text(text.replace("0", "1", 1))  # one character altered: the seal breaks
    notes = Notes()
    assert compute(Model("no-bonus", report=notes)) == expected
    assert sum("damaged" in n for n in notes.notes) == 1, notes.notes
    quiet = Notes()
    compute(Model("no-bonus", report=quiet))  # the recomputed file replaced the bad one
    assert not quiet.notes


def test_a_problem_in_an_added_box_names_the_box(tmp_path):
    path = tmp_path / "one-bad.yaml"
    path.write_text("name: one-bad\nextends: official-free-joker\ncategories:\n  - key: extra\n"
                    "    pattern: {kind: face, face: 9}\n    score: face_total\n")
    res = run("rules", "validate", str(path), cache_dir=tmp_path)
    assert res.returncode == 2
    assert (f"{path}:5:27: categories[13].pattern.face: face 9 does not exist on a 6-sided die "
            "(1..6) (box 'extra')") in res.stderr


def test_play_from_the_cache_says_no_solving(isolated_cache):
    Model("no-bonus").solve()
    res = run("play", "--variant", "no-bonus", "--seed", "1", cache_dir=isolated_cache,
              input="quit\n")
    assert res.returncode == 0, res.stderr
    assert "solving" not in res.stderr and "yz play: no-bonus" in res.stdout


def test_cache_list_reports_a_truncated_table(isolated_cache):
    solution = Model("no-bonus").solve()
    path = cache.values_path(solution.tables)
    listed = json.loads(run("cache", "list", "--json", cache_dir=isolated_cache).stdout)
    assert {e["status"] for e in listed["entries"]} == {"ok"}
    path.write_bytes(path.read_bytes()[:-8])  # the last value cut off
    listed = json.loads(run("cache", "list", "--json", cache_dir=isolated_cache).stdout)
    status = {Path(e["path"]).name: e["status"] for e in listed["entries"]}
    assert status[path.name] == "damaged"


def test_target_gains_are_percentage_points(isolated_cache):
    res = run("target", "--variant", "no-bonus", "--targets", "100", cache_dir=isolated_cache)
    assert res.returncode == 0, res.stderr
    assert "gain (percentage points)" in res.stdout and "pts" not in res.stdout


def test_advice_in_a_game_too_long_to_solve_names_both_ways_on(tmp_path):
    rules = big_game(tmp_path)
    refused = run("advise", "--variant", str(rules), "-d", "1,2,3,4,5,6",
                  cache_dir=tmp_path / "cache")
    assert refused.returncode == 2, refused.stderr
    error = refused.stderr.strip().splitlines()[-1]
    assert error.startswith("error: solving big-six would take about ")
    assert "--yes to go ahead, or with --store FOLDER" in error
