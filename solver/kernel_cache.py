"""Where yz's compiled kernels are cached (`solver.kernels.jit` explains why), without
importing numba: `yz advise` asks whether they are compiled without paying for numba. Also the
folders other versions of yz (or of numba) compiled into, which `yz cache clear --kernels`
removes."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import stat
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


def kernel_sources_hash(folder: Path = KERNEL_DIR) -> str:
    """SHA-256 (first 16 hex digits) of every kernel module's source (those in `folder`), in
    name order, and of numba's version."""
    try:
        numba_version = version("numba")
    except PackageNotFoundError:  # numba imported from a source tree
        numba_version = "unknown"
    h = hashlib.sha256(f"numba-{numba_version}".encode())
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def kernel_cache_root() -> Path:
    """The folder that holds one sub-folder of compiled kernels per kernel-source hash."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"]).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("yz", appauthor=False)) / "kernels"


# YZ_DEBUG_KERNELS=1 compiles every kernel with numba's bounds checking (an index outside an
# array raises IndexError instead of reading a neighbour's memory), into a folder of its own.
DEBUG_KERNELS = os.environ.get("YZ_DEBUG_KERNELS", "") not in ("", "0")
KERNEL_CACHE_DIR = kernel_cache_root() / (
    f"yz-kernels-{kernel_sources_hash()}" + ("-boundscheck" if DEBUG_KERNELS else ""))


@functools.cache
def _families_hash() -> str:
    """SHA-256 (first 12 hex digits) of the part of `warmup.py` that runs each family's work
    (`tiny_problem` to `missing`): a family that compiles one more specialisation of unchanged
    kernels is not compiled yet; an edit elsewhere in the file (its time tables) changes
    nothing."""
    text = (Path(__file__).resolve().parent / "warmup.py").read_text(encoding="utf-8")
    start, end = text.find("\ndef tiny_problem("), text.find("\ndef missing(")
    if 0 <= start < end:
        text = text[start:end]
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _marker(mode: str) -> Path:
    return KERNEL_CACHE_DIR / f"compiled-{mode}-{_families_hash()}"


def compiled(mode: str) -> bool:
    """Whether the kernels of one kind of work (`solver.warmup.FAMILIES`) are compiled."""
    return _marker(mode).exists()


def mark_compiled(mode: str) -> None:
    try:
        KERNEL_CACHE_DIR.mkdir(parents=True, exist_ok=True)
        _marker(mode).touch()
    except OSError:
        pass  # a read-only cache: numba recompiles next time anyway


# ---------------------------------------------------------------- other versions' folders

# A folder of compiled kernels, named by the hash of the kernel sources compiled into it
# (`KERNEL_CACHE_DIR`), holds numba's index and data files (`layer._stages-212.py311.nbi`,
# `....py311.2.nbc`; `.tmp.<id>` left by an interrupted write; before yz named the folder
# itself, in a sub-folder `kernels_<sha1 of the source folder>`) and yz's compile markers.
KERNEL_FOLDER = re.compile(r"yz-kernels-[0-9a-f]{16}(-boundscheck)?")
KERNEL_FILE = re.compile(r".+-\d+\.py\d+(\.\d+)?\.nb[ic](\.tmp\.\w+)?"
                         r"|compiled-[a-z-]+(-[0-9a-f]{12})?")
KERNEL_SUBFOLDER = re.compile(r"kernels_[0-9a-f]{40}")
# A folder written to this recently may belong to another installation compiling now.
IN_USE_SECONDS = 3600


@dataclass(frozen=True)
class KernelFolder:
    """A folder of compiled kernels in the kernel cache that holds only what numba and yz
    write there."""

    path: Path
    size_bytes: int
    current: bool  # compiled from this installation's kernel sources
    in_use: bool  # written to within IN_USE_SECONDS


def kernel_folders(root: Path | None = None) -> list[KernelFolder]:
    """This installation's folder of compiled kernels and other versions' (by name order),
    each only if every file in it is one numba or yz writes there: a folder holding anything
    else is not listed, so never removed."""
    root = kernel_cache_root() if root is None else root
    try:
        paths = sorted(root.iterdir()) if root.is_dir() else []
    except OSError:  # (unreadable: nothing to list)
        return []
    mine = KERNEL_CACHE_DIR.name.removesuffix("-boundscheck")
    now, out = time.time(), []
    for path in paths:
        if path.is_symlink() or not path.is_dir() or not KERNEL_FOLDER.fullmatch(path.name):
            continue
        files = _own_files(path)
        if files is None:
            continue
        try:
            stats = [f.stat() for f in files]
            newest = max([path.stat().st_mtime, *(s.st_mtime for s in stats)])
        except OSError:  # a file replaced meanwhile: numba is writing there now
            stats, newest = [], now
        out.append(KernelFolder(path, sum(s.st_size for s in stats),
                                path.name.removesuffix("-boundscheck") == mine,
                                now - newest < IN_USE_SECONDS))
    return out


def _own_files(folder: Path) -> list[Path] | None:
    """The files of a kernel folder (and of its `kernels_<sha1>` sub-folders), or None when
    it holds anything numba and yz do not write there."""
    files = []
    try:
        for entry in folder.iterdir():
            if entry.is_symlink():
                return None
            if entry.is_dir() and KERNEL_SUBFOLDER.fullmatch(entry.name):
                inner = list(entry.iterdir())
                if not all(f.is_file() and not f.is_symlink() and KERNEL_FILE.fullmatch(f.name)
                           for f in inner):
                    return None
                files += inner
            elif entry.is_file() and KERNEL_FILE.fullmatch(entry.name):
                files.append(entry)
            else:
                return None
    except OSError:
        return None
    return files


def clear_stale_kernels(root: Path | None = None) -> list[KernelFolder]:
    """Remove the folders other versions of yz (or of numba: another installation sharing
    the folder recompiles when next used) compiled their kernels into (`kernel_folders`; not
    this installation's, none written to in the last hour): file by file, then the emptied
    folders, so nothing yz did not write is deleted. Returns those whose files were removed
    (a folder changed since it was listed stays as it is, or with what was added)."""
    return [folder for folder in kernel_folders(root)
            if not (folder.current or folder.in_use) and _remove_folder(folder.path)]


# Folders are opened without following a link in their place, where the platform removes files
# through an open folder (Linux, macOS).
_THROUGH_FOLDERS = (all(f in os.supports_dir_fd for f in (os.open, os.unlink, os.rmdir, os.stat))
                   and os.listdir in os.supports_fd and os.stat in os.supports_follow_symlinks)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _remove_folder(path: Path) -> bool:
    """Remove a kernel folder (`_own_files`) file by file, then its emptied sub-folders and
    itself. Each folder is opened once, without following a link, and its entries are checked
    and removed through that handle: a folder or sub-folder swapped for a link after the
    listing (to send the removal elsewhere) is refused, never followed. Whether anything went."""
    if not _THROUGH_FOLDERS:  # (elsewhere: by path, checked just before)
        return _remove_by_path(path)
    opened: list[int] = []
    gone = 0
    try:
        top = os.open(path, _FOLDER_FLAGS)
        opened.append(top)
        found = _own_entries(top)
        if found is None:
            return False
        inner = []  # (name, its handle, its files)
        for name in found[1]:
            fd = os.open(name, _FOLDER_FLAGS, dir_fd=top)
            opened.append(fd)
            names = _own_entries(fd)
            if names is None or names[1]:  # (no folder inside a sub-folder)
                return False
            inner.append((name, fd, names[0]))
        for name in found[0]:
            os.unlink(name, dir_fd=top)
            gone += 1
        for name, fd, names in inner:
            for file in names:
                os.unlink(file, dir_fd=fd)
                gone += 1
            os.rmdir(name, dir_fd=top)
        os.rmdir(path)  # (a link in its place now: not a folder, so refused)
    except OSError:
        pass  # (changed meanwhile: what was removed is counted, the rest stays)
    finally:
        for fd in opened:
            os.close(fd)
    return gone > 0


def _own_entries(folder: int) -> tuple[list[str], list[str]] | None:
    """The names of an open kernel folder's files and `kernels_<sha1>` sub-folders (links not
    followed), or None when it holds anything else."""
    files, folders = [], []
    for name in os.listdir(folder):
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        if stat.S_ISREG(mode) and KERNEL_FILE.fullmatch(name):
            files.append(name)
        elif stat.S_ISDIR(mode) and KERNEL_SUBFOLDER.fullmatch(name):
            folders.append(name)
        else:
            return None
    return files, folders


def _remove_by_path(path: Path) -> bool:
    """`_remove_folder` where files cannot be removed through an open folder: by path, each
    file checked just before (a link swapped in meanwhile is the one race left here)."""
    files = _own_files(path)
    if files is None:  # (changed since it was listed)
        return False
    gone = 0
    with contextlib.suppress(OSError):
        for file in files:
            file.unlink(missing_ok=True)
            gone += 1
        for sub in path.iterdir():
            sub.rmdir()  # (an emptied `kernels_<sha1>` sub-folder; anything else stays)
        path.rmdir()
    return gone > 0
