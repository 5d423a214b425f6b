"""numba's disk cache never runs stale kernel code, whichever kernel file changes.

numba checks only the source file a cached function is defined in, so a DP driver cached in
`layer.py` would keep calling an old `keep_average` after `keeps.py` changed. yz caches its
kernels in a folder named by a hash of every kernel source (`solver.kernels.jit`), the same
folder wherever yz is installed. This test runs copies of the package that share one numba
cache folder: a second copy at another path compiles nothing, and an edit in one kernel file
reaches a kernel of another file (the DP driver, compiled in `layer.py` from `keeps.py`'s
functions).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import json, yz.solver
from yz.rules import load_rules
from yz.solver import Model
assert yz.solver.__file__.startswith({copy!r}), yz.solver.__file__
plain = Model(load_rules("no-bonus"), use_cache=False).solve()
print(json.dumps([plain.expected_score]))
"""


def _run(copy: Path, numba_cache: Path) -> list[float]:
    env = dict(os.environ, PYTHONPATH=str(copy), NUMBA_CACHE_DIR=str(numba_cache),
               YZ_CACHE_DIR=str(copy / "yz-cache"))
    out = subprocess.run([sys.executable, "-c", PROBE.format(copy=str(copy))], env=env,
                         capture_output=True, text=True, timeout=600, cwd=copy)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _install(where: Path) -> Path:
    """A copy of yz's packages under `where` (a folder for PYTHONPATH), as an installation at
    another path is."""
    for folder, name in (("yahtzee_rules", "rules"), ("solver", "solver"),
                         ("variants", "variants")):
        shutil.copytree(ROOT / folder, where / "yz" / name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return where


def _compiled_files(numba_cache: Path) -> dict[str, int]:
    """numba's cache files and their modification times (nanoseconds)."""
    return {str(p.relative_to(numba_cache)): p.stat().st_mtime_ns
            for p in numba_cache.rglob("*.nb*")}


def _seed(numba_cache: Path) -> None:
    """The kernels this installation compiled (the test session's warm-up), copied into a
    cache of the test's own: the copies of yz then find them, as a second virtual environment
    finds what the first compiled. (A kernel missing from it is compiled by the first copy.)"""
    from yz.solver.kernel_cache import KERNEL_CACHE_DIR

    if KERNEL_CACHE_DIR.is_dir():
        shutil.copytree(KERNEL_CACHE_DIR, numba_cache / KERNEL_CACHE_DIR.name)


def test_a_second_installation_reuses_the_kernels(tmp_path):
    """yz at two other paths (other virtual environments) compiles nothing, finding what this
    installation compiled where the compile markers say."""
    numba_cache = tmp_path / "numba"
    _seed(numba_cache)
    first = _install(tmp_path / "first")
    before = _run(first, numba_cache)
    compiled = _compiled_files(numba_cache)
    assert compiled and len(list(numba_cache.glob("yz-kernels-*"))) == 1
    second = _install(tmp_path / "elsewhere" / "second")
    assert _run(second, numba_cache) == before
    assert _compiled_files(numba_cache) == compiled  # nothing compiled, nothing rewritten


def test_an_edit_in_any_kernel_file_names_a_new_folder(tmp_path):
    """The cache folder's name changes with a one-character edit of any kernel file (and with
    a kernel file added), and not with a copy elsewhere: what keeps a kernel compiled in one
    file from running another file's old code (checked end to end, a cold compile, by the
    slow test below)."""
    from yz.solver.kernel_cache import KERNEL_DIR, kernel_sources_hash

    copy = tmp_path / "kernels"
    shutil.copytree(KERNEL_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    here = kernel_sources_hash(copy)
    assert here == kernel_sources_hash()
    names = sorted(p.name for p in copy.glob("*.py"))
    assert {"keeps.py", "layer.py", "jit.py", "rule.py", "state.py"} <= set(names)
    seen = {here}
    for name in names:
        path = copy / name
        source = path.read_text()
        path.write_text(source + " ")
        seen.add(kernel_sources_hash(copy))
        path.write_text(source)
    assert len(seen) == len(names) + 1 and kernel_sources_hash(copy) == here
    (copy / "new.py").write_text("")
    assert kernel_sources_hash(copy) not in seen


@pytest.mark.slow  # (a cold compile of the solve's kernels, 15-25 s)
def test_an_edit_reaches_every_caller(tmp_path):
    """An edit in one kernel file starts a new folder and reaches a kernel of another file (the
    DP driver, compiled in `layer.py` from `keeps.py`'s functions)."""
    numba_cache = tmp_path / "numba"
    _seed(numba_cache)
    second = _install(tmp_path / "second")
    before = _run(second, numba_cache)
    keeps = second / "yz" / "solver" / "kernels" / "keeps.py"
    source = keeps.read_text()
    assert "    inv = 1.0 / n_faces\n" in source
    keeps.write_text(source.replace("    inv = 1.0 / n_faces\n", "    inv = 0.5 / n_faces\n"))
    after = _run(second, numba_cache)
    # Every re-roll's average now halves (229.64 drops to about 130): the value must move,
    # not come from the code cached before the edit.
    assert after[0] < before[0] - 50, (before, after)
    assert len(list(numba_cache.glob("yz-kernels-*"))) == 2
