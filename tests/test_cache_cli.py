"""`yz cache` and the limits of counts and sizes, through the CLI runner.

The cache folder may be one the user shares with other files: yz lists and deletes only the
files it writes (its own name pattern), and everything it prints is valid JSON.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from typer.testing import CliRunner
from yz.cli.main import app
from yz.rules import compile_rules, load_rules
from yz.solver import Model, cache
from yz.solver.sealed import seal

runner = CliRunner()


def yz(*args: str):
    return runner.invoke(app, list(args))


@pytest.fixture
def solved_no_bonus(isolated_cache):
    solution = Model(load_rules("no-bonus")).solve()
    assert not solution.cached and cache.meta_path(solution.tables).exists()
    return solution


def test_clear_leaves_every_file_yz_did_not_write(isolated_cache, solved_no_bonus):
    foreign = ["notes.txt", "settings.json", "data.npz", "data.npy", ".tmp-other",
               "results.values.npy"]
    for name in foreign:
        (isolated_cache / name).write_text("the user's own file")
    listing = json.loads(yz("cache", "list", "--json").stdout)
    listed = {os.path.basename(e["path"]) for e in listing["entries"]}
    assert not listed & set(foreign)
    result = yz("cache", "clear", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["removed"] == 2
    assert sorted(p.name for p in isolated_cache.iterdir()) == sorted(foreign)


def test_leftovers_of_a_killed_solve_are_listed_and_cleared(isolated_cache, solved_no_bonus):
    leftover = isolated_cache / ".tmp-yz-abc123.npy"
    leftover.write_bytes(b"\0" * 100)
    old = time.time() - 3600
    os.utime(leftover, (old, old))
    fresh = isolated_cache / ".tmp-yz-def456.npy"  # a solve in progress: kept
    fresh.write_bytes(b"\0")
    text = yz("cache", "list").stdout
    assert ".tmp-yz-abc123.npy" in text and "temporary" in text and "--stale" in text
    removed = json.loads(yz("cache", "clear", "--stale", "--json").stdout)["files"]
    assert removed == [".tmp-yz-abc123.npy"]
    assert fresh.exists() and cache.meta_path(solved_no_bonus.tables).exists()


def test_stale_formats_are_marked_and_cleared_by_variant(isolated_cache, solved_no_bonus):
    old = isolated_cache / f"gist-{'0' * 20}.npz"  # a format-1 table
    old.write_bytes(b"PK\x03\x04 a format-1 zip")
    rows = json.loads(yz("cache", "list", "--json").stdout)["entries"]
    status = {os.path.basename(e["path"]): e["status"] for e in rows}
    assert status[old.name] == "stale"
    assert all(e["bytes"] > 0 for e in rows)
    assert "MB" in yz("cache", "list").stdout  # sizes shown
    assert json.loads(yz("cache", "clear", "gist", "--json").stdout)["files"] == [old.name]
    assert cache.meta_path(solved_no_bonus.tables).exists()  # another variant's files stay


def test_list_json_is_valid_with_damaged_and_odd_files(isolated_cache, solved_no_bonus):
    t = solved_no_bonus.tables
    meta = cache.meta_path(t)
    data = json.loads(meta.read_text())
    data["expected_score"] = float("nan")
    meta.write_text(json.dumps(seal(data)))  # sealed, but not a number
    cache.figures_path(t, "optimal").write_text("{not json")
    out = yz("cache", "list", "--json").stdout
    rows = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert {e["status"] for e in rows["entries"]} >= {"damaged"}
    assert all(e["expected_score"] is None for e in rows["entries"])


@pytest.mark.parametrize("inside", [False, True], ids=["file", "below-a-file"])
def test_cache_dir_that_is_a_file_is_a_clear_error(tmp_path, monkeypatch, inside):
    a_file = tmp_path / "cache-is-a-file"
    a_file.write_text("x")
    monkeypatch.setenv("YZ_CACHE_DIR", str(a_file / "sub" if inside else a_file))
    for args in (["cache", "list"], ["solve", "--variant", "no-bonus", "--quiet"]):
        result = yz(*args)
        assert result.exit_code == 2, result.output
        assert result.stderr.startswith("error: the cache folder") and "is a file" in \
            result.stderr
    assert a_file.read_text() == "x"


def test_metadata_altered_under_its_checksum_is_recomputed(isolated_cache, solved_no_bonus):
    meta = cache.meta_path(solved_no_bonus.tables)
    meta.write_text(meta.read_text().replace('"states": 8191', '"states": 9999'))
    result = yz("solve", "--variant", "no-bonus", "--json")
    assert result.exit_code == 0 and "damaged" in result.stderr
    assert json.loads(result.stdout)["cached"] is False


# ---------------------------------------------------------------- absurd numbers


@pytest.mark.parametrize("args, message", [
    (["--bonus-points", "-100", "--filled", "yahtzee=50"], "--bonus-points"),
    (["--bonus-points", "30", "--filled", "yahtzee=50"], "not a multiple of the 100"),
    (["--bonus-points", "100", "--filled", "yahtzee=0"], "--bonus-points"),
    (["--bonus-points", "100"], "--bonus-points"),
    (["--target", "100000000", "--filled", "chance=20"], "--target"),
    (["--target", "0"], "--target"),
    (["--rolls-left", "9", "--dice", "11111"], "--rolls-left"),
], ids=["negative", "not-a-multiple", "yahtzee-zero", "yahtzee-open", "huge-target",
        "zero-target", "rolls-left"])
def test_advise_refuses_absurd_numbers_before_solving(isolated_cache, args, message):
    result = yz("advise", "--variant", "official-free-joker", *args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr
    assert "Traceback" not in result.output
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())  # nothing solved


def test_bonus_points_count_in_the_final_score(isolated_cache):
    args = ("advise", "--variant", "no-bonus", "--filled", "chance=20", "--json")
    plain = json.loads(yz(*args).stdout)
    result = yz("advise", "--variant", "official-free-joker", "--filled",
                "yahtzee=50,chance=20,fours=12", "--bonus-points", "200", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["banked"] == 282 and plain["banked"] == 20


@pytest.mark.parametrize("args, message", [
    (["simulate", "--games", "10000000000000"], "--games"),
    (["simulate", "--games", "0"], "--games"),
    (["target", "--max-target", "999999"], "--max-target"),
    (["target", "--variant", "no-bonus", "--targets", "200,400", "--max-target", "300"],
     "--targets"),
], ids=["games-huge", "games-zero", "max-target", "targets-beyond"])
def test_count_options_are_checked_up_front(isolated_cache, args, message):
    result = yz(*args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {message}"), result.stderr
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())


def test_target_table_too_big_for_memory_is_refused_before_solving(isolated_cache, monkeypatch):
    from yz.solver import budget

    monkeypatch.setattr(budget, "machine_memory", lambda: 1 << 20)
    result = yz("target", "--variant", "no-bonus", "--max-target", "300")
    assert result.exit_code == 2 and "GiB" in result.stderr, result.output
    assert result.stderr.startswith("error: --max-target: the target table"), result.stderr
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())
    # The table's height came from --targets alone: the refusal names that option.
    result = yz("target", "--variant", "no-bonus", "--targets", "250,300")
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: --targets: the target table of no-bonus up to 300"), \
        result.stderr
    assert not isolated_cache.exists() or not any(isolated_cache.iterdir())
    t = compile_rules(load_rules("no-bonus"))
    assert not cache.meta_path(t).exists()


def test_clear_of_a_variant_with_no_files_says_which_there_are(isolated_cache, solved_no_bonus):
    result = yz("cache", "clear", "no-bonsu")
    assert result.exit_code == 2 and "no files of 'no-bonsu'" in result.stderr
    assert "no-bonus" in result.stderr
    assert cache.meta_path(solved_no_bonus.tables).exists()


def test_other_versions_kernels_are_listed_and_cleared_file_by_file(tmp_path, monkeypatch,
                                                                     isolated_cache):
    """`yz cache clear --kernels` removes the folders older versions of yz compiled into,
    and only those: not this version's, not one written to in the last hour, not one that
    holds a file numba and yz do not write, nothing outside a `yz-kernels-<hash>` folder."""
    from yz.solver.kernel_cache import KERNEL_CACHE_DIR

    root = tmp_path / "kernels"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(root))
    numba_files = ["layer._value_batches-257.py311.nbi", "layer._value_batches-257.py311.1.nbc"]

    def folder(name: str, files: list[str], age: float = 7200.0):
        then = time.time() - age
        for f in files:
            path = root / name / f
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"\0" * 1000)
            os.utime(path, (then, then))
        os.utime(root / name, (then, then))
        return root / name

    mine = folder(KERNEL_CACHE_DIR.name, [*numba_files, "compiled-values-0123456789ab"])
    old = folder("yz-kernels-0123456789abcdef", [
        *numba_files, "compiled-saved-targets", "keeps.best_subkeep-70.py311.nbi.tmp.3f2a91",
        "kernels_" + "a" * 40 + "/final._relax-73.py311.2.nbc"])
    busy = folder("yz-kernels-1111111111111111", numba_files, age=60.0)
    mixed = folder("yz-kernels-2222222222222222", [*numba_files, "notes.txt"])
    deep = folder("yz-kernels-3333333333333333",
                  [*numba_files, "kernels_" + "b" * 40 + "/results.csv"])
    elsewhere = folder("another-project", numba_files)
    # Links are never followed: to a folder of kernels, to a file, inside a folder.
    (root / "yz-kernels-4444444444444444").symlink_to(elsewhere, target_is_directory=True)
    linked = folder("yz-kernels-5555555555555555", numba_files)
    (linked / "layer.x-1.py311.nbi").symlink_to(mixed / "notes.txt")
    kept = {p: sorted(q.relative_to(p) for q in p.rglob("*"))
            for p in (mine, busy, mixed, deep, elsewhere, linked)}

    listing = json.loads(yz("cache", "list", "--json").stdout)["kernel_folders"]
    assert {(os.path.basename(k["path"]), k["current"], k["in_use"]) for k in listing} == {
        ("yz-kernels-0123456789abcdef", False, False),
        ("yz-kernels-1111111111111111", False, True), (KERNEL_CACHE_DIR.name, True, False)}
    text = yz("cache", "list").stdout
    assert f"compiled kernels in {root}: this version's 0.0 MB; 2 folder(s) of other " \
           "versions" in text and "'yz cache clear --kernels' removes 1 of them" in text

    refused = yz("cache", "clear", "--kernels", "gist")
    assert refused.exit_code == 2 and "--kernels goes alone" in refused.stderr and old.exists()
    result = yz("cache", "clear", "--kernels", "--json")
    assert result.exit_code == 0
    cleared = json.loads(result.stdout)
    assert [os.path.basename(k["path"]) for k in cleared["kernel_folders"]] == [
        "yz-kernels-0123456789abcdef"] and cleared["removed"] == 1
    assert not old.exists()
    assert {p: sorted(q.relative_to(p) for q in p.rglob("*")) for p in kept} == kept
    assert (root / "yz-kernels-4444444444444444").is_symlink() and (mixed / "notes.txt").exists()
    again = yz("cache", "clear", "--kernels")
    assert again.stdout.startswith("removed 0 folder(s) of other versions' compiled kernels")


@pytest.mark.parametrize("swapped", ["folder", "sub-folder"])
def test_a_kernel_folder_swapped_for_a_link_during_the_removal_is_not_followed(
        tmp_path, monkeypatch, swapped):
    """Just before `yz cache clear --kernels` removes a stale folder's first file, the folder
    (or its `kernels_<sha1>` sub-folder) is replaced by a link to a folder of files with the
    same names: the removal goes on in the folders it checked, never through the link, so
    the files the link points to stay."""
    from yz.solver import kernel_cache

    root = tmp_path / "kernels"
    sub = "kernels_" + "c" * 40
    names = ["layer._value_batches-257.py311.nbi", f"{sub}/final._relax-73.py311.2.nbc"]
    stale, victim, moved = root / "yz-kernels-6666666666666666", tmp_path / "victim", \
        tmp_path / "moved"
    for folder in (stale, victim):
        for name in names:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(b"\0" * 10)
    then = time.time() - 7200
    for path in (stale / names[0], stale / names[1], stale / sub, stale):
        os.utime(path, (then, then))
    real_unlink = os.unlink

    def swap_then_unlink(*args, **kwargs):
        if not moved.exists():
            there = stale if swapped == "folder" else stale / sub
            there.rename(moved)
            there.symlink_to(victim if swapped == "folder" else victim / sub,
                             target_is_directory=True)
        return real_unlink(*args, **kwargs)

    monkeypatch.setattr(os, "unlink", swap_then_unlink)
    assert [f.path for f in kernel_cache.clear_stale_kernels(root)] == [stale]
    monkeypatch.undo()
    assert sorted(str(p.relative_to(victim)) for p in victim.rglob("*") if p.is_file()) == \
        sorted(names)  # the link's target: untouched
    assert not [p for p in moved.rglob("*") if p.is_file()]  # what was checked: removed


def test_a_platform_without_folder_handles_removes_by_path(tmp_path, monkeypatch):
    """Where files cannot be removed through an open folder, a stale kernel folder is still
    removed (by path), sub-folder and all, and a folder holding anything else stays."""
    from yz.solver import kernel_cache

    monkeypatch.setattr(kernel_cache, "_THROUGH_FOLDERS", False)
    root = tmp_path / "kernels"
    stale, mixed = root / "yz-kernels-7777777777777777", root / "yz-kernels-8888888888888888"
    sub = "kernels_" + "d" * 40
    for folder, names in ((stale, ["a.f-1.py311.nbi", f"{sub}/b.g-2.py311.1.nbc"]),
                          (mixed, ["a.f-1.py311.nbi", "notes.txt"])):
        for name in names:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(b"\0")
        then = time.time() - 7200
        for path in (*folder.rglob("*"), folder):
            os.utime(path, (then, then))
    assert [f.path for f in kernel_cache.clear_stale_kernels(root)] == [stale]
    assert not stale.exists() and (mixed / "notes.txt").exists()
