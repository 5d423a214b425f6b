"""Sweeps: the sweep file's errors, the table, resume from a checkpoint, local and Dask workers.

The game swept is tiny (3 dice, 7 boxes), so each point solves in milliseconds and the time
goes to starting workers; the figures are checked against single solves of the same rules.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import load_rules
from yz.rules.sweep_file import SweepError, load_sweep
from yz.solver import Model, study

pd = pytest.importorskip("pandas")

TINY = """\
name: tiny
dice: 3
rolls: 2
categories:
  - {key: ones, pattern: {kind: face, face: 1}, score: face_total}
  - {key: twos, pattern: {kind: face, face: 2}, score: face_total}
  - {key: threes, pattern: {kind: face, face: 3}, score: face_total}
  - {key: fours, pattern: {kind: face, face: 4}, score: face_total}
  - {key: pair, pattern: {kind: of_a_kind, count: 2}, score: sum_all}
  - {key: chance, pattern: any, score: sum_all}
  - {key: yahtzee, pattern: all_same, score: 30}
upper_bonus: {threshold: 15, amount: 20}
yahtzee_bonus: {amount: 50}
joker: free
"""

GRID = """\
base: tiny.yaml
axes:
  rolls: [2, 3]
  upper_bonus.threshold: [12, 18]
"""

FIGURES = ["expected_score", "sd", "p_upper_bonus", "yahtzee_bonus_mean", "states"]


def write(folder: Path, sweep: str, name: str = "grid.sweep.yaml") -> Path:
    (folder / "tiny.yaml").write_text(TINY)
    path = folder / name
    path.write_text(textwrap.dedent(sweep))
    return path


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def error_of(path: Path) -> str:
    with pytest.raises(SweepError) as info:
        load_sweep(path)
    return str(info.value)


# ---------------------------------------------------------------- the sweep file


def test_grid_is_the_product_of_the_axes_first_axis_slowest(tmp_path):
    sweep = load_sweep(write(tmp_path, GRID))
    assert sweep.axes == ("rolls", "upper_bonus.threshold")
    assert [p.values for p in sweep.points] == [
        {"rolls": 2, "upper_bonus.threshold": 12}, {"rolls": 2, "upper_bonus.threshold": 18},
        {"rolls": 3, "upper_bonus.threshold": 12}, {"rolls": 3, "upper_bonus.threshold": 18}]
    last = sweep.points[-1].rules
    assert (last.rolls, last.upper_bonus.threshold, last.upper_bonus.amount) == (3, 18, 20)
    assert sweep.what == "figures"


def test_range_category_field_and_section_shorthand(tmp_path):
    sweep = load_sweep(write(tmp_path, """\
        base: official-free-joker
        what: mean
        axes:
          upper_bonus.threshold: {from: 55, to: 75, step: 10}
          categories.full_house.score: [25, 40]
          joker.mode: forced
        """))
    assert [p.values["upper_bonus.threshold"] for p in sweep.points][::2] == [55, 65, 75]
    rules = sweep.points[1].rules
    assert rules.categories[rules.index_of("full_house")].score.points == 40
    assert rules.joker.mode == "forced" and sweep.what == "mean"


def test_named_points_take_the_base_value_of_an_axis_they_leave_out(tmp_path):
    sweep = load_sweep(write(tmp_path, """\
        base: tiny.yaml
        points:
          - {name: plain}
          - {name: house, rolls: 3, upper_bonus: null}
        """))
    assert [p.name for p in sweep.points] == ["plain", "house"]
    assert sweep.points[0].values == {"rolls": 2, "upper_bonus": {"threshold": 15,
                                                                  "amount": 20}}
    assert sweep.points[1].rules.upper_bonus is None and sweep.points[1].rules.rolls == 3


def test_a_misspelled_section_field_is_named_with_its_line_and_a_suggestion(tmp_path):
    path = write(tmp_path, """\
        base: tiny.yaml
        axes:
          rolls: [2, 3]
          upper_bonus.treshold: [12, 18]
        """)
    message = error_of(path)
    assert message.startswith(f"{path}:4:3: upper_bonus.treshold:")
    assert "did you mean 'threshold'?" in message


@pytest.mark.parametrize(("axis", "hint"), [("roll", "rolls"), ("categories.chanse.score",
                                                                 "chance"),
                                            ("categories.chance.scor", "score")])
def test_a_bad_axis_name_says_what_is_allowed(tmp_path, axis, hint):
    path = write(tmp_path, f"base: tiny.yaml\naxes:\n  {axis}: [1, 2]\n")
    message = error_of(path)
    assert message.startswith(f"{path}:3:3: {axis}:")
    assert f"did you mean '{hint}'?" in message


def test_invalid_points_are_listed_together_with_their_axis_values(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "solve_point", lambda *a, **k: pytest.fail("solved"))
    path = write(tmp_path, """\
        base: tiny.yaml
        axes:
          rolls: [2, 6]
          upper_bonus.threshold: [0, 12]
        """)
    message = error_of(path)
    assert message.startswith(f"{path}: 3 of 4 points are not valid rule sets")
    assert "point 1 (rolls=2, upper_bonus.threshold=0):" in message
    assert f"{path}:4:3: upper_bonus.threshold: Input should be greater than or equal to 1" \
        in message
    assert "point 4 (rolls=6, upper_bonus.threshold=12):" in message
    assert f"{path}:3:3: rolls: Input should be less than or equal to 5" in message
    assert "point 2 " not in message


def test_a_cross_field_problem_of_a_point_is_shown_at_the_axis(tmp_path):
    path = write(tmp_path, "base: tiny.yaml\naxes:\n  categories.pair.pattern.count: [2, 4]\n")
    message = error_of(path)
    assert "1 of 2 points" in message and "categories.pair.pattern.count=4" in message
    assert f"{path}:3:3: categories[4].pattern.count: count 4 is more than the 3 dice" in message


@pytest.mark.parametrize(("spec", "words"), [
    ("{from: 70, to: 60, step: 5}", "`to` (60) is below `from` (70)"),
    ("{from: 60, to: 70, step: 0}", "step must be positive"),
    ("{from: 60, to: 70.5}", "whole numbers"),
    ("{from: 60, step: 5}", "give both `from` and `to`"),
    ("{from: 60, to: 70, stride: 5}", "unknown: stride"),
    ("[]", "the list of values is empty"),
])
def test_a_bad_range_is_refused_at_its_line(tmp_path, spec, words):
    path = write(tmp_path, f"base: tiny.yaml\naxes:\n  upper_bonus.threshold: {spec}\n")
    message = error_of(path)
    assert message.startswith(f"{path}:3:3: upper_bonus.threshold:") and words in message


def test_bad_base_what_and_top_level_fields(tmp_path):
    path = write(tmp_path, "base: offical-free-joker\naxes: {rolls: [2]}\n")
    message = error_of(path)
    assert message.startswith(f"{path}:1:1: base: ") and "official-free-joker" in message
    path = write(tmp_path, "base: tiny.yaml\nwhat: medians\naxes: {rolls: [2]}\n")
    assert "what: 'medians' is not one of mean, figures, distribution" in error_of(path)
    path = write(tmp_path, "base: tiny.yaml\naxis: {rolls: [2]}\n")
    assert error_of(path).startswith(f"{path}:2:1: axis: unknown field") and \
        "did you mean 'axes'?" in error_of(path)
    path = write(tmp_path, "base: tiny.yaml\naxes: {rolls: [2]}\npoints: [{rolls: 3}]\n")
    assert "not both" in error_of(path)


# ---------------------------------------------------------------- running it


@pytest.fixture(scope="module")
def grid_table(tmp_path_factory):
    """The grid solved here, one point after another (the reference for the other runs)."""
    folder = tmp_path_factory.mktemp("grid")
    return study.run_sweep(load_sweep(write(folder, GRID)), threads=1)


def test_the_table_has_one_column_per_axis_and_the_exact_figures(grid_table, tmp_path):
    assert list(grid_table.columns) == ["rolls", "upper_bonus.threshold", *FIGURES, "seconds"]
    assert len(grid_table) == 4 and grid_table.attrs["solved"] == 4
    # The point rolls=2, threshold=15 is tiny.yaml itself: compare with a direct solve.
    (tmp_path / "t.yaml").write_text(TINY)
    solution = Model(load_rules(tmp_path / "t.yaml"), use_cache=False).solve()
    fig = Model(solution.tables, use_cache=False).figures()
    sweep = load_sweep(write(tmp_path, "base: tiny.yaml\naxes: {upper_bonus.threshold: [15]}\n"))
    row = study.run_sweep(sweep).iloc[0]
    assert row["expected_score"] == solution.expected_score and row["sd"] == fig.sd
    assert row["p_upper_bonus"] == fig.p_upper_bonus and row["states"] == solution.states
    # A higher threshold lowers the bonus rate; a third roll raises the mean.
    t = grid_table.set_index(["rolls", "upper_bonus.threshold"])
    assert t.loc[(2, 18), "p_upper_bonus"] < t.loc[(2, 12), "p_upper_bonus"]
    assert t.loc[(3, 12), "expected_score"] > t.loc[(2, 12), "expected_score"]


def test_mean_only_skips_the_figures_and_distribution_adds_percentiles(tmp_path, monkeypatch):
    sweep = load_sweep(write(tmp_path, "base: tiny.yaml\nwhat: mean\naxes: {rolls: [2, 3]}\n"))
    calls = []
    real = study.solve_point

    def spy(data, what, threads):
        calls.append(what)
        return real(data, what, threads)

    monkeypatch.setattr(study, "solve_point", spy)
    from yz.solver import exact

    monkeypatch.setattr(exact, "exact_figures", lambda *a, **k: pytest.fail("figures"))
    monkeypatch.setattr(exact, "exact_moments", lambda *a, **k: pytest.fail("moments"))
    table = study.run_sweep(sweep)
    assert list(table.columns) == ["rolls", "expected_score", "states", "seconds"]
    assert calls == ["mean", "mean"]
    monkeypatch.undo()
    sweep = load_sweep(write(tmp_path, "base: tiny.yaml\nwhat: distribution\n"
                                       "axes: {rolls: [2]}\n"))
    row = study.run_sweep(sweep).iloc[0]
    assert row["p5"] <= row["median"] <= row["p95"]
    assert abs(row["median"] - row["expected_score"]) < 2 * row["sd"]


def test_resume_after_an_interrupted_run_solves_only_the_missing_points(
        tmp_path, monkeypatch, grid_table):
    sweep = load_sweep(write(tmp_path, GRID))
    checkpoint = tmp_path / "out.csv.partial.jsonl"
    solved = []
    real = study.solve_point

    def counted(data, what, threads):
        solved.append((data["rolls"], data["upper_bonus"]["threshold"]))
        return real(data, what, threads)

    def interrupt_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(study, "solve_point", counted)
    with pytest.raises(KeyboardInterrupt):
        study.run_sweep(sweep, checkpoint=checkpoint, progress=interrupt_after_two)
    assert solved == [(2, 12), (2, 18)]
    assert len(checkpoint.read_text().splitlines()) == 2
    with checkpoint.open("a") as f:
        f.write('{"id": "cut short by a cra')  # a crash mid-line loses only that line
    solved.clear()
    table = study.run_sweep(sweep, checkpoint=checkpoint)
    assert solved == [(3, 12), (3, 18)]
    assert (table.attrs["solved"], table.attrs["resumed"]) == (2, 2)
    pd.testing.assert_frame_equal(table[FIGURES], grid_table[FIGURES])
    solved.clear()
    again = study.run_sweep(sweep, checkpoint=checkpoint)
    assert solved == [] and again.attrs["resumed"] == 4
    # The mean alone is read from the rows with the figures; the distribution is not there.
    mean = study.run_sweep(dataclasses.replace(sweep, what="mean"), checkpoint=checkpoint)
    assert solved == [] and list(mean["expected_score"]) == list(grid_table["expected_score"])
    study.run_sweep(dataclasses.replace(sweep, what="distribution"), checkpoint=checkpoint)
    assert len(solved) == 4


def test_local_worker_processes_give_the_same_table(tmp_path, grid_table):
    sweep = load_sweep(write(tmp_path, GRID))
    table = study.run_sweep(sweep, workers=2)
    pd.testing.assert_frame_equal(table.drop(columns="seconds"),
                                  grid_table.drop(columns="seconds"))


def _dies_first_locally(rule_data, what, threads):
    """In a spawned worker: kill the process the first time any point runs."""
    marker = Path(os.environ["YZ_TEST_KILL_MARKER"])
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return study.solve_point(rule_data, what, threads)


def test_a_killed_local_worker_is_replaced_and_loses_no_point(tmp_path, monkeypatch,
                                                              grid_table):
    marker = tmp_path / "killed-once"
    monkeypatch.setenv("YZ_TEST_KILL_MARKER", str(marker))
    monkeypatch.setattr(study, "solve_point", _dies_first_locally)
    table = study.run_sweep(load_sweep(write(tmp_path, GRID)), workers=2)
    assert marker.exists()
    pd.testing.assert_frame_equal(table.drop(columns="seconds"),
                                  grid_table.drop(columns="seconds"))


def _hangs_but_the_first(rule_data, what, threads):
    """In a spawned worker: every point but the first takes a minute (like a big game)."""
    if (rule_data["rolls"], rule_data["upper_bonus"]["threshold"]) != (2, 12):
        time.sleep(60)
    return study.solve_point(rule_data, what, threads)


def test_an_interrupted_local_run_stops_its_workers_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(study, "solve_point", _hangs_but_the_first)
    checkpoint = tmp_path / "c.jsonl"

    def interrupt(done, total):
        if done == 1:
            raise KeyboardInterrupt

    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        study.run_sweep(load_sweep(write(tmp_path, GRID)), workers=2, checkpoint=checkpoint,
                        progress=interrupt)
    assert time.perf_counter() - start < 30
    assert len(checkpoint.read_text().splitlines()) == 1


def test_a_base_axis_takes_a_whole_rule_set_per_value(tmp_path):
    (tmp_path / "four.yaml").write_text("extends: tiny.yaml\ndice: 4\n")
    sweep = load_sweep(write(tmp_path, """\
        what: mean
        axes:
          base: [tiny.yaml, four.yaml]
          rolls: [2, 3]
        """))
    assert [(p.values["base"], p.rules.dice, p.rules.rolls) for p in sweep.points] == [
        ("tiny.yaml", 3, 2), ("tiny.yaml", 3, 3), ("four.yaml", 4, 2), ("four.yaml", 4, 3)]
    table = study.run_sweep(sweep)
    assert list(table.columns)[:2] == ["base", "rolls"]
    solution = Model(load_rules(tmp_path / "four.yaml"), use_cache=False).solve()
    assert table["expected_score"][2] == solution.expected_score
    path = write(tmp_path, "axes:\n  base: [tiny.yaml, fuor.yaml]\n  rolls: [2]\n")
    assert error_of(path).startswith(f"{path}:2:21: base: fuor.yaml: no such file")
    path = write(tmp_path, "axes:\n  base: [tiny.yaml, no-bonus]\n  categories.pair.score: "
                           "[5]\n")
    assert "'pair' is not a box of the base rule set no-bonus" in error_of(path)


# ---------------------------------------------------------------- on a Dask cluster


def test_a_local_dask_cluster_gives_exactly_the_sequential_table(tmp_path, grid_table,
                                                                  cluster):
    sweep = load_sweep(write(tmp_path, GRID))
    table = study.run_sweep(sweep, scheduler=cluster)
    pd.testing.assert_frame_equal(table.drop(columns="seconds"),
                                  grid_table.drop(columns="seconds"), check_exact=True)


def _dies_once(marker, rule_data, what, threads):
    """A task that kills its own worker process the first time any point runs."""
    marker = Path(marker)
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return study._dask_task(rule_data, what, threads)


def test_a_killed_worker_loses_no_point(tmp_path, cluster, monkeypatch):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed-once"
    sweep = load_sweep(write(tmp_path, """\
        base: tiny.yaml
        axes:
          rolls: [2, 3]
          upper_bonus.threshold: [13, 14, 16]
        """))
    monkeypatch.setattr(study, "_dask_task", functools.partial(_dies_once, str(marker)))
    before = set(cluster.scheduler_info()["workers"])
    checkpoint = tmp_path / "t.partial.jsonl"
    table = study.run_sweep(sweep, scheduler=cluster, checkpoint=checkpoint)
    assert marker.exists()  # a worker did die
    assert len(table) == 6 and table["expected_score"].notna().all()
    assert len(checkpoint.read_text().splitlines()) == 6
    assert set(cluster.scheduler_info()["workers"]) != before  # the nanny started a new one
    sequential = study.run_sweep(sweep)
    pd.testing.assert_frame_equal(table.drop(columns="seconds"),
                                  sequential.drop(columns="seconds"))


# ---------------------------------------------------------------- the command


def test_the_command_writes_csv_with_the_axis_keys_as_columns(tmp_path, grid_table):
    path = write(tmp_path, GRID)
    out = tmp_path / "results.csv"
    plot = ["--plot", str(tmp_path / "grid.png")] if _has("matplotlib") else []
    result = CliRunner().invoke(app, ["sweep", str(path), "--out", str(out), "--workers", "1",
                                      "--quiet", *plot])
    assert result.exit_code == 0, result.output
    if plot:  # one panel per axis, a line per value of the other axis
        assert (tmp_path / "grid.png").read_bytes()[:4] == b"\x89PNG"
    assert "4 points from tiny.yaml (4 solved now, 0 from the checkpoint)" in result.stdout
    assert f"table written to {out}" in result.stdout
    table = pd.read_csv(out)
    assert list(table.columns) == ["rolls", "upper_bonus.threshold", *FIGURES, "seconds"]
    pd.testing.assert_frame_equal(table[FIGURES], grid_table[FIGURES])
    again = CliRunner().invoke(app, ["sweep", str(path), "--out", str(out), "--json"])
    data = json.loads(again.stdout)
    assert (data["solved"], data["resumed"], data["axes"]) == (
        0, 4, ["rolls", "upper_bonus.threshold"])
    assert data["rows"][0]["upper_bonus.threshold"] == 12
    mean = CliRunner().invoke(app, ["sweep", str(path), "--what", "mean", "--json"])
    assert list(json.loads(mean.stdout)["rows"][0]) == [
        "rolls", "upper_bonus.threshold", "expected_score", "states", "seconds"]


def test_the_command_writes_parquet_and_a_plot(tmp_path):
    pytest.importorskip("pyarrow")
    pytest.importorskip("matplotlib")
    path = write(tmp_path, "base: tiny.yaml\nwhat: distribution\naxes: {rolls: [2, 3]}\n")
    out, plot = tmp_path / "r.parquet", tmp_path / "r.png"
    result = CliRunner().invoke(app, ["sweep", str(path), "--out", str(out), "--plot",
                                      str(plot), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert list(pd.read_parquet(out).columns)[:4] == ["rolls", "expected_score", "sd",
                                                      "p_upper_bonus"]
    assert plot.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(("args", "words"), [
    (["--out", "r.txt"], "--out: "),
    (["--workers", "0"], "--workers: 0 is not a positive whole number"),
    (["--plot", "r.jpg"], "--plot: "),
    (["--what", "medians"], "--what: 'medians' is not one of mean, figures, distribution"),
    (["--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "give one of --workers and"),
])
def test_the_command_refuses_bad_options_before_any_work(tmp_path, args, words):
    path = write(tmp_path, GRID)
    result = CliRunner().invoke(app, ["sweep", str(path), *args])
    assert result.exit_code == 2 and words in result.stderr


def test_the_command_names_a_bad_axis_line_and_exits_2(tmp_path):
    path = write(tmp_path, "base: tiny.yaml\naxes:\n  upper_bonus.amout: [10]\n")
    result = CliRunner().invoke(app, ["sweep", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:3:3: upper_bonus.amout:")
    assert "did you mean 'amount'?" in result.stderr
