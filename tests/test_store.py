"""Advice from a layered solve's folder, read row by row (`solver.store`): the same answer as the
whole-layer read and the one-process solve on many random positions with their banks, only the
blocks a position reads are checked (once per process), and every folder that is not a
finished store of the rules is refused with the reason, an older yz's folder brought up to date
once. The game is a small one with saved rolls, its store built here with small chunks and
small checksum blocks, so that a position's successors span several of each."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_layered import VARIANTS  # a small game with saved rolls, and others
from yz.rules import InputError, rules_from_text
from yz.solver import Model, layered, sealed
from yz.solver.advice import advise
from yz.solver.dp import Solution
from yz.solver.layered import MANIFEST, StoreError, chunk_path, read_store, solve_layered
from yz.solver.report import Reporter

HANG_GUARD = 120  # seconds; only catches a hang
SMALL_CHUNKS = 100  # states per chunk: several chunks in most layers
SMALL_BLOCKS = 256  # bytes per checksum block: several blocks in most chunk files


class Notes(Reporter):
    def __init__(self):
        self.notes = []

    def note(self, message):
        self.notes.append(message)


def model_of(name: str = "carried", report: Reporter | None = None) -> Model:
    kw = {"report": report} if report is not None else {}
    return Model(rules_from_text(VARIANTS[name]), use_cache=False, threads=1, **kw)


def build(folder: Path, name: str = "carried", with_sd: bool = False) -> Path:
    solve_layered(model_of(name).problem, folder, with_sd, chunk_states=SMALL_CHUNKS)
    return folder


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(layered, "STORE_BLOCK_BYTES", SMALL_BLOCKS)


@pytest.fixture
def store(tmp_path, small_blocks) -> Path:
    return build(tmp_path / "store")


def random_position(model: Model, rng: random.Random):
    """A position some game reaches (boxes filled with scores they can hold, a bank its
    layer allows), the dice showing and the re-rolls left."""
    t = model.tables
    while True:
        n = rng.randrange(t.n_categories)
        filled = {}
        for c in rng.sample(range(t.n_categories), n):
            filled[t.rules.categories[c].key] = int(rng.choice(np.unique(t.BOX_SCORES[c])))
        try:
            pos = model.position(filled, saved_rolls=rng.randrange(t.banks_in_layer(n)))
        except InputError:  # (an upper total these scores cannot make, and such)
            continue
        dice = tuple(sorted(rng.randint(1, t.n_faces) for _ in range(t.n_dice)))
        left = rng.randint(0, t.rolls - 1 + pos.saved_rolls)
        return pos, dice, left


def moves(advice) -> list:
    return [(a.label(), a.value) for a in advice.actions]


@pytest.mark.parametrize("with_sd", [False, True])
def test_the_store_answers_as_the_whole_layer_read_and_the_solve(tmp_path, small_blocks,
                                                                 with_sd):
    folder = build(tmp_path / "s", with_sd=with_sd)
    model, reference = model_of(), model_of()
    whole = Solution(model.problem, read_store(model, folder, moments=False)[0], 0.0, 0)
    rng = random.Random(41)
    for _ in range(80):
        pos, dice, left = random_position(model, rng)
        got = model.advise(pos, dice, left, store=folder)
        assert moves(got) == moves(advise(whole, pos, dice, left))
        assert moves(got) == moves(reference.advise(pos, dice, left))
        assert got.position_value == reference.advise(pos).position_value
    assert model.store_solution(folder).expected_score == reference.solve().expected_score


def test_every_value_read_row_by_row_is_the_whole_read(store):
    model = model_of()
    values = model.store_solution(store).values
    assert np.array_equal(values[np.arange(model.layout.size)], read_store(model, store)[0])
    assert values[model.layout.start] == read_store(model, store)[0][model.layout.start]
    every = np.arange(model.layout.size).reshape(-1, 4)[::-1]  # any shape, any order
    assert np.array_equal(values[every], read_store(model, store)[0][every])


def test_a_position_checks_only_the_blocks_it_reads_once_per_process(store, monkeypatch):
    hashed = []
    real = sealed.sha256
    monkeypatch.setattr(sealed, "sha256", lambda data: hashed.append(len(data)) or real(data))
    manifest = json.loads((store / MANIFEST).read_text())
    every = sum(len(r["sums"]) // 64 for r in manifest["blocks"].values())
    model = model_of()

    def blocks() -> int:  # (the manifest's own seal is hashed too: it is larger)
        return sum(n <= SMALL_BLOCKS for n in hashed)

    model.advise("fours=8,pair=10", (1, 2, 5, 6), saved_rolls=2, store=store)
    first = blocks()
    assert 0 < first < every / 3  # a position reads a few of the store's blocks
    model.advise("fours=8,pair=10", (3, 3, 5, 6), saved_rolls=2, store=store)
    assert blocks() == first  # the same rows: nothing hashed again
    model_of().advise("fours=8,pair=10", (1, 1, 1, 1), saved_rolls=2, store=store)
    assert blocks() == first  # a new model, the same process: the blocks stay checked


def test_positions_of_a_game_share_the_opened_store(store):
    model = model_of()
    first = model.store_solution(store)
    model.advise("fours=8", (1, 2, 3, 4), store=store)
    model.advise("fives=10,chance=20", (1, 2, 3, 4), saved_rolls=4, store=store)
    assert model.store_solution(store) is first
    assert len(first.memo) == 2  # the advisor's turn tables, kept with the values


# ---------------------------------------------------------------- refusals


def reseal(folder: Path, change) -> None:
    manifest = json.loads((folder / MANIFEST).read_text())
    change(manifest)
    (folder / MANIFEST).write_text(json.dumps(sealed.seal(manifest)))


def refusal(folder, model=None) -> str:
    with pytest.raises(StoreError) as err:
        (model or model_of()).advise("fours=8", (1, 2, 3, 4), store=folder)
    message = str(err.value)
    assert "--" not in message  # a library error: no command line's flags
    return message


def test_what_is_not_a_finished_store_of_the_rules_is_refused_with_the_reason(tmp_path,
                                                                              small_blocks):
    assert "give the folder of a finished layered solve" in refusal(" ")
    assert "holds no solve of yz" in refusal(tmp_path / "none")
    (tmp_path / "file").write_text("x")
    assert "is a file, not a folder" in refusal(tmp_path / "file")
    folder = build(tmp_path / "s")
    assert "holds a solve of other rules ('layered-test'), not of layered-test" in \
        refusal(folder, model_of("plain"))
    assert "other rules" in refusal(folder, model_of("capped"))
    reseal(folder, lambda m: m["done"].pop("2/1"))
    assert "holds an unfinished solve (layer 2, chunk 1 not solved yet); resume the " \
           "layered solve into it" in refusal(folder)
    reseal(folder, lambda m: m.update(solver_version=-1))
    assert "written by another version of yz" in refusal(folder)
    reseal(folder, lambda m: m.update(solver_version=layered.SOLVER_VERSION, format=7))
    assert "written by another version of yz" in refusal(folder)
    reseal(folder, lambda m: m.update(format=2))
    (folder / MANIFEST).write_text((folder / MANIFEST).read_text().replace('"done"', '"dune"'))
    assert "checksum mismatch (the metadata was altered" in refusal(folder)


def test_a_store_stopped_before_its_end_is_refused_as_unfinished(tmp_path, small_blocks):
    model = model_of()

    def stop(done, total):
        if done > total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solve_layered(model.problem, tmp_path / "s", chunk_states=SMALL_CHUNKS, progress=stop)
    assert "holds an unfinished solve" in refusal(tmp_path / "s")


def test_an_index_that_does_not_fit_the_rules_is_refused(store):
    def shift(m):
        m["index"][3][0][0] += 1
    reseal(store, shift)
    assert "lists chunks that do not fit these rules" in refusal(store)


def damage(path: Path, *at: int) -> None:
    """Flip bytes of a file, as a bad disk would (a new file in its place: the process's
    record of checked blocks is for the old one)."""
    data = bytearray(path.read_bytes())
    for i in at:
        data[i] ^= 0x10
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(bytes(data))
    os.replace(tmp, path)


def test_a_damaged_block_is_named_and_the_blocks_around_it_still_read(store):
    flat = json.loads((store / MANIFEST).read_text())["index"][2][0]
    lo = flat[0]
    before = model_of().store_solution(store).values[lo]
    path = chunk_path(store, 2, 0)
    size = path.stat().st_size
    assert size > 3 * SMALL_BLOCKS
    damage(path, size - 5)  # a value in the chunk's last block
    fresh = model_of().store_solution(store).values
    assert fresh[lo] == before  # a row in an intact block of the damaged file
    last_block = (size - 1) // SMALL_BLOCKS
    with pytest.raises(StoreError) as err:  # every row of the chunk
        fresh[np.concatenate([np.arange(a, b) for a, b in zip(flat[::2], flat[1::2],
                                                                 strict=True)])]
    message = str(err.value)
    assert f"{path}: block {last_block} (bytes {last_block * SMALL_BLOCKS:,} to " in message
    assert "fails its checksum" in message and "resume the layered solve into" in message
    (store / "layer-02" / "chunk-00000.npy").write_bytes(b"short")
    with pytest.raises(StoreError, match=r"5 bytes, not the .* it was written with"):
        model_of().store_solution(store).values[lo]


def test_a_damaged_chunk_is_solved_again_by_the_next_run(store):
    damage(chunk_path(store, 1, 0), -3)
    again = solve_layered(model_of().problem, store, chunk_states=SMALL_CHUNKS)
    assert again.solved_chunks == 1
    model = model_of()
    assert np.array_equal(model.store_solution(store).values[np.arange(model.layout.size)],
                          read_store(model, store)[0])


def downgrade(folder: Path) -> None:
    """The folder as a yz before the block checksums wrote it (format 1)."""
    def old(m):
        for key in ("index", "blocks", "block_bytes"):
            del m[key]
        m["format"] = 1
    reseal(folder, old)


def test_a_folder_of_an_older_yz_is_checked_once_and_brought_up_to_date(store):
    downgrade(store)
    notes = Notes()
    model = model_of(report=notes)
    got = model.advise("fours=8,pair=10", (1, 2, 5, 6), saved_rolls=2, store=store)
    assert moves(got) == moves(model_of().advise("fours=8,pair=10", (1, 2, 5, 6),
                                                 saved_rolls=2))
    assert len(notes.notes) == 1 and "was written by an older yz: checking its" in \
        notes.notes[0], notes.notes
    manifest = json.loads((store / MANIFEST).read_text())
    assert manifest["format"] == layered.STORE_FORMAT
    assert set(manifest["blocks"]) == set(manifest["done"])
    quiet = Notes()
    model_of(report=quiet).advise("fives=10", (1, 2, 5, 6), store=store)
    assert quiet.notes == []  # once


def test_an_older_folder_with_a_damaged_chunk_is_refused_naming_it(store):
    downgrade(store)
    damage(chunk_path(store, 4, 0), -2)
    with pytest.raises(StoreError, match=r"chunk-00000.npy: checksum mismatch"):
        model_of().advise("fours=8", (1, 2, 3, 4), store=store)


def test_an_older_folder_that_cannot_be_written_is_read_all_the_same(store, monkeypatch):
    downgrade(store)
    before = (store / MANIFEST).read_text()

    def read_only(folder, manifest):
        raise PermissionError(13, "Permission denied", str(folder / MANIFEST))

    monkeypatch.setattr(layered, "_write_manifest", read_only)
    for _ in range(2):  # (checked whole each time: nothing could be recorded)
        notes = Notes()
        got = model_of(report=notes).advise("fours=8", (1, 2, 3, 4), store=store)
        assert moves(got) == moves(model_of().advise("fours=8", (1, 2, 3, 4)))
        assert any("could not record the block checksums" in n for n in notes.notes), notes
    assert (store / MANIFEST).read_text() == before


def test_an_older_unfinished_folder_is_resumed_and_brought_up_to_date(tmp_path, small_blocks):
    folder = build(tmp_path / "s")
    downgrade(folder)
    reseal(folder, lambda m: m["done"].pop("1/0"))
    again = solve_layered(model_of().problem, folder, chunk_states=SMALL_CHUNKS)
    assert again.solved_chunks == 1
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["format"] == layered.STORE_FORMAT
    assert set(manifest["blocks"]) == set(manifest["done"])
    model_of().advise("fours=8", (1, 2, 3, 4), store=folder)


def test_a_target_or_an_opponent_is_not_played_from_a_store(store):
    with pytest.raises(InputError, match="store: a target is played from its own tables"):
        model_of().advise(target=50, store=store)


# ---------------------------------------------------------------- the command


def test_yz_advise_from_a_store(tmp_path, store):
    game = tmp_path / "game.yaml"
    game.write_text(VARIANTS["carried"])
    cmd = [sys.executable, "-m", "yz.cli.main", "advise", "-v", str(game), "--store",
           str(store), "--filled", "fours=8,yatzy=0", "--saved-rolls", "3", "-d", "6,6,6,2",
           "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_GUARD,
                         cwd=Path.home())
    assert out.returncode == 0, out.stderr
    want = model_of().advise("fours=8,yatzy=0", (2, 6, 6, 6), saved_rolls=3)
    got = json.loads(out.stdout)
    assert got["best"]["value"] == want.best.value
    assert [a["label"] for a in got["alternatives"]] == [a.label() for a in want.actions[1:6]]
    for path in (store / "layer-03").iterdir():  # the layer the position reads: every block
        damage(path, *range(SMALL_BLOCKS - 1, path.stat().st_size, SMALL_BLOCKS))
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=HANG_GUARD)
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith("error: --store: ") and "fails its checksum" in out.stderr
    assert out.stderr.count("\n") == 1, out.stderr


# ---------------------------------------------------------------- a real game, slowly


@pytest.mark.slow
def test_a_thousand_positions_of_yatzy_with_saved_rolls(tmp_path):
    """`yatzy-saved-rolls` (17 million stored values, about a minute of two cores): 1,000
    random positions, each with its bank, answered from the store as from the whole table."""
    model = Model("yatzy-saved-rolls", use_cache=False, max_seconds=None)
    model.solve_layered(tmp_path / "ys")
    whole = Solution(model.problem, read_store(model, tmp_path / "ys", moments=False)[0], 0.0,
                     0)
    reader = Model("yatzy-saved-rolls", use_cache=False)
    rng = random.Random(1000)
    for _ in range(1000):
        pos, dice, left = random_position(reader, rng)
        got = reader.advise(pos, dice, left, store=tmp_path / "ys")
        assert moves(got) == moves(advise(whole, pos, dice, left))
