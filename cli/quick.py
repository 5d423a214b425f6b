"""A repeated `yz solve` answered from a memo, before the heavy imports.

A cached `yz solve` spends most of its half second importing pydantic, numpy and typer and
building the rule models; the answer itself is three numbers in the cache. So after a solve
with the SD, the command writes what it printed to a memo in the cache folder
(`<name>-<key>.answer.json`, sealed like yz's other metadata, listed and cleared with them).
The next `yz solve` with plain options (`--variant/-v`, `--json`, `--quiet/-q`) looks for the
memo with the standard library alone (and `yz.solver.sealed`, which needs no more) and
answers from it only if nothing it rests on changed:

- the code: the size and modification time of every file of yz's packages (built-in rule
  sets and examples included);
- the rules: the bytes of every rule file the loader read for it (`extends` included);
- the solved strategy: its metadata, the very file the memo was written beside (its own
  SHA-256), and every block of its value table, checked against that metadata's checksums
  as a full load checks them (`sealed.table_intact`: the metadata says where the data
  starts, so no table header is read; a table cached before it said so falls through).

Anything else (another option, no memo, a changed or missing file, a damaged table) falls
through to the full command, which reports and repairs as it always has.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import time
from importlib.util import find_spec
from pathlib import Path

from yz.solver import sealed

MEMO_FORMAT = 1
ANSWER_PART = ".answer.json"
DEFAULT_VARIANT = "official-free-joker"  # `yz solve`'s default (checked by a test)
# Folders of yz's packages: (package, subfolder); `find_spec` of a package's subpackage would
# import the package itself, so kernels is found as a folder of yz.solver.
CODE_FOLDERS = (("yz.cli", ""), ("yz.rules", ""), ("yz.solver", ""), ("yz.solver", "kernels"),
                ("yz.variants", ""), ("yz.examples", ""))
MAX_MEMO_BYTES = 1 << 16


# ---------------------------------------------------------------- shared with the full command


def solution_text(name: str, expected_score: float, sd: float | None, states: int,
                  how: str) -> str:
    """What `yz solve` prints (`how`: "solved in ...", "from the cache in ...")."""
    spread = f"\n  standard deviation of the final score {sd:.4f}" if sd is not None else ""
    return (f"{name}: expected score {expected_score:.4f}{spread}\n"
            f"  {states:,} reachable turn-start states, {how}")


def solution_json(name: str, expected_score: float, sd: float | None, states: int,
                  seconds: float, cached: bool) -> dict:
    """What `yz solve --json` prints."""
    return {"variant": name, "expected_score": expected_score, "sd": sd, "states": states,
            "seconds": seconds, "cached": cached}


def cache_root() -> Path:
    """The cache folder, as `yz.solver.cache.cache_dir` finds it (without its checks, which
    the full command makes: a memo is only ever read from a folder it could use)."""
    if os.environ.get("YZ_CACHE_DIR"):
        return Path(os.environ["YZ_CACHE_DIR"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("yz", appauthor=False))


# ---------------------------------------------------------------- writing the memo


def remember(spec: str, sources: list[tuple[str, str]], meta_file: Path, name: str,
             expected_score: float, sd: float, states: int) -> None:
    """Write the memo of a `yz solve` of `spec` that printed these figures, from the strategy
    whose metadata is `meta_file`; `sources` are the (absolute path, SHA-256) of the rule files
    the loader read. Quietly nothing when the memo cannot be written: it is only a shortcut."""
    with contextlib.suppress(OSError, ValueError):
        identity = spec_identity(spec)
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
        if identity is None or not isinstance(meta, dict) or "sha256" not in meta:
            return
        # "format" and "solver_version" are the strategy's, so that `yz cache list` judges
        # the memo as it judges the strategy's other files.
        memo = sealed.seal({
            "format": meta.get("format"), "solver_version": meta.get("solver_version"),
            "memo_format": MEMO_FORMAT, "code": code_stamp(), "variant": name, "spec": spec,
            "identity": identity, "sources": [list(s) for s in sources],
            "meta_file": meta_file.name, "meta_sha256": meta["sha256"],
            "expected_score": expected_score, "sd": sd, "states": states})
        path = memo_path(meta_file.parent, spec, identity)
        if path.exists() and path.read_bytes() == json.dumps(memo).encode():
            return
        sealed.write_bytes(path, json.dumps(memo).encode())


# ---------------------------------------------------------------- answering from it


def answer(args: list[str]) -> int | None:
    """The exit code of `yz <args>` answered from a memo, or None: run the full command."""
    parsed = _plain_solve(args)
    if parsed is None:
        return None
    spec, as_json = parsed
    start = time.perf_counter()
    try:
        found = _checked_memo(spec)
    except (OSError, ValueError, KeyError, TypeError, SyntaxError, MemoryError):
        return None
    if found is None:
        return None
    seconds = time.perf_counter() - start
    name, score, sd, states = found["variant"], found["expected_score"], found["sd"], \
        found["states"]
    if as_json:
        text = json.dumps(solution_json(name, score, sd, states, seconds, True), indent=2)
    else:
        text = solution_text(name, score, sd, states, f"from the cache in {seconds:.2f} s")
    return _emit(text + "\n")


def _plain_solve(args: list[str]) -> tuple[str, bool] | None:
    """(spec, as_json) for `solve` with only --variant/-v, --json and --quiet/-q; else None."""
    if not args or args[0] != "solve":
        return None
    spec, as_json, rest = DEFAULT_VARIANT, False, list(args[1:])
    while rest:
        arg = rest.pop(0)
        if arg in ("--json",):
            as_json = True
        elif arg in ("--quiet", "-q"):
            pass
        elif arg in ("--variant", "-v") and rest and not rest[0].startswith("-"):
            spec = rest.pop(0)
        elif arg.startswith("--variant=") and len(arg) > len("--variant="):
            spec = arg[len("--variant="):]
        else:
            return None
    return (spec, as_json) if spec.strip() else None


def _checked_memo(spec: str) -> dict | None:
    identity = spec_identity(spec)
    if identity is None:
        return None
    path = memo_path(cache_root(), spec, identity)
    if not path.is_file() or path.stat().st_size > MAX_MEMO_BYTES:
        return None
    memo = _read_sealed(path)
    if memo is None or memo.get("memo_format") != MEMO_FORMAT or \
            memo.get("identity") != identity or memo.get("spec") != spec or \
            memo.get("code") != code_stamp():
        return None
    for source, digest in memo["sources"]:
        with open(source, "rb") as fh:
            if _sha(fh.read(1_000_001)) != digest:
                return None
    meta_file = path.with_name(memo["meta_file"])
    if meta_file.parent != path.parent or meta_file.stat().st_size > 1 << 20:
        return None
    meta = _read_sealed(meta_file)
    if meta is None or meta["sha256"] != memo["meta_sha256"]:
        return None
    values_file = meta_file.with_name(meta_file.name[: -len(".json")] + ".values.npy")
    if meta.get("file_bytes") != meta.get("data_offset", -1) + 8 * int(meta["size"]) or \
            not sealed.table_intact(values_file, meta):
        return None
    return memo


def _read_sealed(path: Path) -> dict | None:
    try:
        return sealed.read_sealed(path)
    except sealed.CorruptCache:
        return None


def _emit(text: str) -> int:
    """Write the answer as the full command does: 141 quietly when the reader of the pipe has
    gone, 2 with one line when the output cannot be written."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_output()
        return 141
    except OSError as exc:
        _drop_output()
        with contextlib.suppress(OSError):
            sys.stderr.write(f"error: could not write the output: {exc.strerror or exc}.\n")
        return 2
    return 0


def _drop_output() -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())


# ---------------------------------------------------------------- naming


def spec_identity(spec: str) -> str | None:
    """What `spec` names, as the rule loader decides it: a built-in, an example (both part of
    the code) or a file by its resolved path; None when it names nothing."""
    if spec == "-":  # standard input: nothing to remember
        return None
    if spec.startswith("example:"):
        return spec
    if not _looks_like_path(spec) and (_package_dir("yz.variants") / f"{spec}.yaml").is_file():
        return f"builtin:{spec}"
    path = Path(spec)
    return f"file:{path.resolve()}" if path.is_file() else None


def memo_path(root: Path, spec: str, identity: str) -> Path:
    """The memo of `spec`, named by what spec names: one per rule set, rewritten when the
    code changes (so an upgrade leaves no memos behind)."""
    key = _sha(f"memo-v{MEMO_FORMAT}:{identity}".encode())[:20]
    stem = "".join(c if c.isalnum() or c in "_.-" else "_" for c in Path(spec).stem)[:60]
    return root / f"{stem or 'rules'}-{key}{ANSWER_PART}"


def code_stamp() -> str:
    """A digest of the name, size and modification time of every file of yz's packages: any
    change to the code, a built-in or an example makes new memos."""
    parts = []
    for package, sub in CODE_FOLDERS:
        folder = _package_dir(package) / sub
        with os.scandir(folder) as found:
            for entry in sorted(found, key=lambda e: e.name):
                if entry.name.endswith((".py", ".yaml")) and entry.is_file():
                    info = entry.stat()
                    parts.append(f"{package}/{sub}/{entry.name}:{info.st_size}:{info.st_mtime_ns}")
    return _sha("\n".join(parts).encode())


def _package_dir(package: str) -> Path:
    """The folder of one of yz's packages, found without importing it."""
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise OSError(f"package {package} not found")
    return Path(next(iter(spec.submodule_search_locations)))


def _looks_like_path(spec: str) -> bool:
    """As `yz.rules.loader.looks_like_path` (checked by a test)."""
    return "/" in spec or "\\" in spec or spec.endswith((".yaml", ".yml"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
