"""The layered solve (`solver.layered`): the same bits as the one-process solve, here and on a
Dask cluster with a worker killed mid-layer; resumed after a kill; damaged chunks solved again;
a folder that is not its own left untouched. (Advice read from its folder: test_store.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from yz.rules import InputError, rules_from_text
from yz.solver import Model
from yz.solver.dp import solve_values
from yz.solver.kernels.outcomes import EVENT_UPPER_BONUS
from yz.solver.layered import (
    MANIFEST,
    StoreError,
    chunk_path,
    read_store,
    share_left,
    solve_layered,
)

HANG_GUARD = 120  # seconds; only catches a hang

GAME = """\
name: layered-test
dice: 4
faces: 6
rolls: {rolls}
{saved}
upper_bonus: {{threshold: 30, amount: 25}}
categories:
  - {{key: fours, section: upper, pattern: {{kind: face, face: 4}}, score: face_total}}
  - {{key: fives, section: upper, pattern: {{kind: face, face: 5}}, score: face_total}}
  - {{key: sixes, section: upper, pattern: {{kind: face, face: 6}}, score: face_total}}
  - {{key: pair, pattern: {{kind: of_a_kind, count: 2}}, score: sum_matched}}
  - {{key: kind3, pattern: {{kind: of_a_kind, count: 3}}, score: sum_all,
      first_roll_bonus: 5}}
  - {{key: chance, pattern: any, score: sum_all}}
  - {{key: yatzy, pattern: all_same, score: {{kind: fixed, points: 40}}}}
"""
VARIANTS = {
    "plain": GAME.format(rolls=3, saved=""),
    "carried": GAME.format(rolls=3, saved="saved_rolls: {}"),
    "capped": GAME.format(rolls=2, saved="saved_rolls: {cap: 3, start: 1}"),
    "spent": GAME.format(rolls=3, saved="saved_rolls: {carry_unused: false, start: 2}"),
    # Carried, and no first roll with a bonus of its own: the forward pass shares a (mask,
    # flag, total)'s choices between its banks.
    "carried-no-first": GAME.format(rolls=3, saved="saved_rolls: {}").replace(
        ",\n      first_roll_bonus: 5}", "}"),
}
SMALL_CHUNKS = 100  # states per chunk (at least a batch): several chunks in most layers


def model_of(name: str) -> Model:
    return Model(rules_from_text(VARIANTS[name]), use_cache=False, threads=2)


def one_process(name: str, with_sd: bool):
    model = model_of(name)
    values, sd = solve_values(model.problem, with_sd)
    m2 = None
    if with_sd:
        from yz.solver.dp import backward

        m2 = np.zeros(model.layout.size)
        backward(model.problem, np.array(values), store=None, m2=m2)
    return values, m2, sd


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("with_sd", [False, True])
def test_the_same_bits_as_the_one_process_solve(tmp_path, name, with_sd):
    values, m2, sd = one_process(name, with_sd)
    model = model_of(name)
    solution = solve_layered(model.problem, tmp_path / "store", with_sd, chunk_states=SMALL_CHUNKS)
    assert solution.solved_chunks > model.tables.n_categories  # more than one chunk a layer
    got, got_m2 = read_store(model, tmp_path / "store")
    assert np.array_equal(got, values)
    assert solution.expected_score == values[model.layout.start]
    if with_sd:
        assert np.array_equal(got_m2, m2)
        assert solution.sd == sd
    else:
        assert got_m2 is None and solution.sd is None


def test_a_second_run_finds_everything_finished(tmp_path):
    model = model_of("carried")
    first = solve_layered(model.problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    again = solve_layered(model_of("carried").problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    assert again.solved_chunks == 0 and again.resumed_chunks == first.solved_chunks
    assert again.expected_score == first.expected_score


def test_a_damaged_chunk_is_solved_again(tmp_path):
    model = model_of("carried")
    first = solve_layered(model.problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    victims = [chunk_path(tmp_path / "s", 0, 0), chunk_path(tmp_path / "s", 3, 1)]
    for path in victims:
        data = bytearray(path.read_bytes())
        data[-3] ^= 0xFF
        path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="checksum mismatch"):
        read_store(model, tmp_path / "s")
    again = solve_layered(model_of("carried").problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    assert again.expected_score == first.expected_score
    # Those two chunks again, and nothing else (a chunk's bits do not depend on the run).
    assert again.solved_chunks == 2
    assert np.array_equal(read_store(model, tmp_path / "s")[0],
                          solve_values(model_of("carried").problem)[0])


def test_a_killed_run_resumes_where_it_stopped(tmp_path):
    store = tmp_path / "store"
    game = tmp_path / "game.yaml"
    game.write_text(VARIANTS["carried"])
    # The run kills itself (SIGKILL: no clean-up of any kind) halfway, as a power cut would.
    script = (
        "import os, signal\nfrom yz.rules import load_rules\nfrom yz.solver import Model\n"
        "from yz.solver.layered import solve_layered\n"
        f"m = Model(load_rules({str(game)!r}), use_cache=False, threads=1)\n"
        "def cut(done, total):\n"
        "    if done > total // 2:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        f"solve_layered(m.problem, {str(store)!r}, chunk_states=60, progress=cut)\n")
    run = subprocess.run([sys.executable, "-c", script], timeout=HANG_GUARD)
    assert run.returncode == -signal.SIGKILL
    left = json.loads((store / MANIFEST).read_text())
    assert "expected_score" not in left and len(left["done"]) > 1
    model = model_of("carried")
    # Resumed with the default chunk size (one chunk a layer here): the run goes on with the
    # chunks it began with, which the folder's manifest lists.
    assert 0 < share_left(model.problem, store, with_sd=False) < 0.5  # the estimate is scaled
    assert share_left(model.problem, store, with_sd=True) == 1.0  # (another solve: from scratch)
    # What a writer killed mid-file leaves (renamed into place only when whole) goes when the
    # folder is opened again, once nobody has written to it for a while; nothing else does.
    stale, fresh = store / ".tmp-yz-killed.npy", store / ".tmp-yz-writing.npy"
    for path in (stale, fresh, store / "notes.txt"):
        path.write_bytes(b"x" * 100)
    os.utime(stale, (1e9, 1e9))
    resumed = solve_layered(model.problem, store)
    assert not stale.exists() and fresh.exists() and (store / "notes.txt").exists()
    fresh.unlink()
    assert share_left(model.problem, store, with_sd=False) == 0.0
    assert resumed.resumed_chunks == len(left["done"]) and resumed.solved_chunks > 0
    assert json.loads((store / MANIFEST).read_text())["chunks"] == left["chunks"]
    assert resumed.resumed_chunks + resumed.solved_chunks > model.tables.n_categories
    assert np.array_equal(read_store(model, store)[0], solve_values(model_of("carried").problem)[0])


def test_a_folder_that_is_not_a_solve_is_left_alone(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not empty and holds no solve of yz"):
        solve_layered(model_of("plain").problem, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_a_folder_it_would_refuse_is_refused_before_the_time_estimate(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    model = Model("yatzy-saved-rolls", use_cache=False, max_seconds=1.0)  # (WorkTooLong)
    with pytest.raises(StoreError, match="not empty and holds no solve of yz"):
        model.solve_layered(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.txt"]


def test_another_games_folder_is_refused(tmp_path):
    solve_layered(model_of("plain").problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*")}
    with pytest.raises(StoreError, match="holds a solve of 'layered-test' with other rules"):
        solve_layered(model_of("carried").problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    with pytest.raises(StoreError, match="other rules, solver version or options"):
        solve_layered(model_of("plain").problem, tmp_path / "s", with_sd=True,
                      chunk_states=SMALL_CHUNKS)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "s").rglob("*")} == before


def test_the_store_is_read_back_whatever_chunks_it_was_solved_in(tmp_path):
    solve_layered(model_of("carried").problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    fresh = model_of("carried")  # never told the chunk size
    assert np.array_equal(read_store(fresh, tmp_path / "s")[0],
                          solve_values(model_of("carried").problem)[0])


def test_an_unfinished_damaged_or_foreign_store_is_not_read(tmp_path):
    model = model_of("plain")
    with pytest.raises(StoreError, match="holds no solve of yz"):
        read_store(model, tmp_path / "none")
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        read_store(model, tmp_path / "file")
    with pytest.raises(StoreError, match="give the folder"):
        read_store(model, "")
    solve_layered(model.problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    manifest = json.loads((tmp_path / "s" / MANIFEST).read_text())
    del manifest["done"]["0/0"]
    from yz.solver.sealed import seal

    (tmp_path / "s" / MANIFEST).write_text(json.dumps(seal(manifest)))
    with pytest.raises(StoreError, match=r"unfinished solve .*resume the layered solve"):
        read_store(model, tmp_path / "s")
    with pytest.raises(StoreError, match="other rules"):
        read_store(model_of("carried"), tmp_path / "s")
    (tmp_path / "s" / MANIFEST).write_text("{}")
    with pytest.raises(StoreError, match="checksum mismatch"):
        read_store(model, tmp_path / "s")
    with pytest.raises(StoreError, match="checksum mismatch"):
        solve_layered(model.problem, tmp_path / "s", chunk_states=SMALL_CHUNKS)
    (tmp_path / "f").write_text("x")
    with pytest.raises(StoreError, match="is a file, not a folder"):
        solve_layered(model.problem, tmp_path / "f", chunk_states=SMALL_CHUNKS)
    assert (tmp_path / "f").read_text() == "x"


@pytest.mark.parametrize("workers", [0, -1, True, 1.5])
def test_workers_must_be_a_count(tmp_path, workers):
    from yz.rules import InputError

    with pytest.raises(InputError, match=r"workers: .* is not a positive whole number"):
        solve_layered(model_of("plain").problem, tmp_path / "s", workers=workers)
    assert not (tmp_path / "s").exists()


# ---------------------------------------------------------------- Dask


@pytest.mark.parametrize("with_sd", [False, True])
def test_a_local_dask_cluster_gives_the_same_bits_with_a_worker_killed(tmp_path, cluster,
                                                                       with_sd):
    values, m2, _sd = one_process("carried", with_sd)
    model = model_of("carried")
    killed = []

    def kill_a_worker_once(done: int, total: int) -> None:
        # Mid-run, with chunks in flight on both workers: kill one (its nanny restarts it;
        # the scheduler gives its chunks to a worker again).
        if not killed and done > total // 3:
            pids = cluster.run(os.getpid)
            victim = sorted(pids.values())[0]
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    solution = solve_layered(model.problem, tmp_path / "s", with_sd, scheduler=cluster,
                             chunk_states=SMALL_CHUNKS, progress=kill_a_worker_once)
    assert killed
    got, got_m2 = read_store(model, tmp_path / "s")
    assert np.array_equal(got, values)
    if with_sd:
        assert np.array_equal(got_m2, m2)
    assert solution.expected_score == values[model.layout.start]


# (On Dask: slow; its bits are checked by the local-cluster test above, its command in
# test_minimax's `--workers 2`.)
@pytest.mark.parametrize("workers", [[], pytest.param(["--workers", "2"], marks=pytest.mark.slow)])
def test_the_command_solves_into_a_folder_and_resumes(tmp_path, workers):
    game = tmp_path / "game.yaml"
    game.write_text(VARIANTS["carried"])
    run = [sys.executable, "-m", "yz.cli.entry", "solve", "-v", str(game), "--store",
           str(tmp_path / "s"), "--json", *workers]
    env = {**os.environ, "YZ_CACHE_DIR": str(tmp_path / "cache")}
    first = json.loads(subprocess.run(run, capture_output=True, text=True, check=True, env=env,
                                      cwd=tmp_path, timeout=HANG_GUARD).stdout)
    again = json.loads(subprocess.run(run, capture_output=True, text=True, check=True, env=env,
                                      cwd=tmp_path, timeout=HANG_GUARD).stdout)
    exact = solve_values(model_of("carried").problem)[0][model_of("carried").layout.start]
    assert first["expected_score"] == again["expected_score"] == exact
    assert first["chunks_solved"] > 0 and again["chunks_solved"] == 0
    assert again["chunks_found_finished"] == first["chunks_solved"]
    assert first["sd"] == again["sd"] and first["sd"] > 0
    assert not Path(tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())
    if workers:
        return
    # The per-box figures from the folder: computed once and kept there, then read.
    figures = json.loads(subprocess.run(
        [*run, "--figures"], capture_output=True, text=True, check=True, env=env, cwd=tmp_path,
        timeout=HANG_GUARD).stdout)["figures"]
    model = model_of("carried")
    assert list(figures["box_mean"]) == list(model.tables.rules.keys)
    assert figures == model.store_figures(tmp_path / "s").to_dict() | {
        "seconds": figures["seconds"]}
    bonus = model.tables.upper_bonus * figures["p_upper_bonus"]
    assert sum(figures["box_mean"].values()) + bonus == pytest.approx(exact, abs=1e-9)
    from yz.cli.render import box_figures_text  # (the text the command prints after them)

    text = box_figures_text(model.tables, model.store_figures(tmp_path / "s"))
    assert "zero %" in text and "upper bonus made in" in text
    assert (tmp_path / "s" / "figures.json").is_file()


@pytest.mark.parametrize("args, message", [
    (["--scheduler", "tcp://127.0.0.1:1"], "--scheduler and --workers solve into a folder"),
    (["--store", "S", "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"],
     "give one of --scheduler and --workers"),
])
def test_options_that_do_not_go_together(tmp_path, args, message):
    out = subprocess.run([sys.executable, "-m", "yz.cli.entry", "solve", "-v", "yatzy", *args],
                         capture_output=True, text=True, cwd=tmp_path, timeout=HANG_GUARD)
    assert out.returncode == 2 and message in out.stderr
    assert not (tmp_path / "S").exists()


def test_a_position_brings_its_own_saved_rolls():
    model = model_of("carried")
    pos = model.position("fours=8", saved_rolls=2)
    assert model.advise(pos).position_value == model.advise("fours=8",
                                                            saved_rolls=2).position_value
    with pytest.raises(InputError, match="a Position holds its own saved rolls"):
        model.advise(pos, saved_rolls=1)
    from dataclasses import replace

    with pytest.raises(InputError, match="at most 2"):
        model.advise(replace(pos, saved_rolls=50))
    with pytest.raises(InputError, match="not a whole number"):
        model.advise(replace(pos, saved_rolls=-1))


def test_a_resumed_stage_counts_its_time_left_from_where_it_began(monkeypatch, capsys):
    """A stage's first count is where a resumed solve begins (the layered and two-player
    solves give it before any work): the time left comes from the work done since, not from
    what an earlier run did."""
    from yz.cli import report

    clock = [100.0]
    monkeypatch.setattr(report.time, "perf_counter", lambda: clock[0])
    reporter = report.TerminalReporter(bars=False)
    with reporter.stage("solving x", "states") as step:
        step(900, 1000)  # found done
        clock[0] += 60.0
        step(920, 1000)  # 20 states in a minute: 80 more take 4 minutes
    assert "note: solving x: about 4 min left (Ctrl-C stops)" in capsys.readouterr().err


def test_a_stage_that_runs_past_the_time_it_said_says_so_again(monkeypatch, capsys):
    """The time left is said once, and said again only when the stage runs past it (the
    per-state cost of a two-player solve's later layers is not its first ones'): a promise
    kept is not repeated."""
    from yz.cli import report

    clock = [0.0]
    monkeypatch.setattr(report.time, "perf_counter", lambda: clock[0])
    reporter = report.TerminalReporter(bars=False)
    with reporter.stage("solving x", "states") as step:
        step(0, 1000)
        clock[0] += 60.0
        step(100, 1000)  # a minute for 100: 9 more minutes
        clock[0] += 540.0
        step(140, 1000)  # due at 10 min: at 10, not past it
        clock[0] += 60.0
        step(150, 1000)  # 11 min: past the 10 said; 850 more at the 50 done since (10 min)
        clock[0] += 60.0
        step(160, 1000)  # in 170 minutes: said nothing more
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["note: solving x: about 9 min left (Ctrl-C stops)",
                     "note: solving x: slower than said; now about 170 min left"]


@pytest.mark.parametrize("name", ["plain", "carried", "spent", "carried-no-first"])
def test_the_figures_from_a_store_are_the_forward_pass_over_the_whole_table(tmp_path, name):
    """`Model.store_figures` streams the forward pass a block of moves at a time, with a layer
    of values read from the folder at a time: each box's mean and zero rate and the bonus
    rates are the whole-table forward pass's (to rounding: the sums run in another order),
    with blocks of 7 states, so every layer's moves come in several blocks."""
    from yz.solver.forward import walk

    model = model_of(name)
    model.problem.__dict__["outcome_block"] = 7  # (cached properties: blocks of 7 states)
    model.problem.__dict__["merged_block"] = 7
    solve_layered(model.problem, tmp_path / "store", True, chunk_states=SMALL_CHUNKS)
    got = model.store_figures(tmp_path / "store")
    values, _, sd = one_process(name, True)
    whole = walk(model_of(name).solve(), np.array(values))
    keys = model.tables.rules.keys
    assert got.expected_score == values[model.layout.start] and got.sd == sd
    for c, key in enumerate(keys):
        assert got.box_mean[key] == pytest.approx(whole.box_mean[c], abs=1e-12, rel=0), key
        assert got.box_zero_rate[key] == pytest.approx(whole.box_zero_rate[c], abs=1e-12,
                                                       rel=0), key
    assert got.p_upper_bonus == pytest.approx(whole.events[EVENT_UPPER_BONUS], abs=1e-12)
    # The boxes' means add up to the game's value less the bonuses won.
    bonus = 25 * got.p_upper_bonus
    assert sum(got.box_mean.values()) + bonus == pytest.approx(got.expected_score, abs=1e-9)
    assert 0 < got.p_upper_bonus < 1 and all(0 <= z <= 1 for z in got.box_zero_rate.values())
    # A folder that is not a finished store of these rules: refused, with the reason.
    with pytest.raises(StoreError, match="holds no solve of yz"):
        model.store_figures(tmp_path)


def test_the_store_figures_pass_goes_on_where_it_stopped_and_keeps_its_figures(tmp_path,
                                                                                monkeypatch):
    """A figures' pass stopped after a few layers goes on from the last layer it kept, to the
    same figures to the bit as a pass that ran through; once done its figures are kept in the
    folder (the next call computes nothing) and its progress files are gone. A damaged kept
    table is not used: the pass starts over, to the same figures."""
    from yz.solver import forward, layered, sealed

    model = model_of("carried")
    model.problem.__dict__["outcome_block"] = 7
    model.problem.__dict__["merged_block"] = 7
    folder = tmp_path / "store"
    solve_layered(model.problem, folder, True, chunk_states=SMALL_CHUNKS)
    before = set(os.listdir(folder))
    _, _, whole = layered.store_figures(model.problem, folder)
    (folder / layered.FIGURES).unlink()
    stop_at = int(model.layout.LAYER_PTR[5])
    # Checksums of every byte: the kept file is over a metadata file's usual bound, as a big
    # layer's (Maxi Yatzy's middle layers: 1.2 GB tables in blocks of 64 KiB) would be.
    monkeypatch.setattr(layered, "STORE_BLOCK_BYTES", 1)

    def stop(done: int, total: int) -> None:
        if done >= stop_at:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        layered.store_figures(model.problem, folder, stop, keep_seconds=0)
    assert (folder / layered.FIGURES_PROGRESS).stat().st_size > sealed.MAX_SEALED_BYTES
    kept = sealed.read_sealed(folder / layered.FIGURES_PROGRESS, layered.MANIFEST_BYTES)
    assert 3 <= kept["layer"] <= 5
    assert 0 < layered.figures_share_left(model.problem, folder) < 1
    started = []
    real = forward.streamed_figures
    monkeypatch.setattr(forward, "streamed_figures",
                        lambda *a, **kw: started.append(kw["start"]) or real(*a, **kw))
    _, _, resumed = layered.store_figures(model.problem, folder)
    assert started[-1] is not None and started[-1].layer == kept["layer"]
    for name in ("box_mean", "box_zero_rate", "events"):
        assert (getattr(resumed, name) == getattr(whole, name)).all(), name
    assert set(os.listdir(folder)) == before | {layered.FIGURES}  # (no progress left)
    assert layered.figures_share_left(model.problem, folder) == 0
    # Kept: the next call reads them, and computes nothing; it removes what a pass stopped
    # before tidying up left (its own files only).
    (folder / "figures-reach-03.npy").write_bytes(b"left")
    (folder / "figures-reach-03.npy.txt").write_bytes(b"not yz's")
    _, _, again = layered.store_figures(model.problem, folder)
    assert len(started) == 1 and (again.box_mean == whole.box_mean).all()
    assert set(os.listdir(folder)) == before | {layered.FIGURES, "figures-reach-03.npy.txt"}
    (folder / "figures-reach-03.npy.txt").unlink()
    # A damaged table of a stopped pass: not used, the pass starts over.
    (folder / layered.FIGURES).unlink()
    with pytest.raises(KeyboardInterrupt):
        layered.store_figures(model.problem, folder, stop, keep_seconds=0)
    table = next(folder.glob("figures-reach-*.npy"))
    raw = bytearray(table.read_bytes())
    raw[-1] ^= 1
    table.write_bytes(bytes(raw))
    _, _, over = layered.store_figures(model.problem, folder)
    assert started[-1] is None and (over.box_mean == whole.box_mean).all()
