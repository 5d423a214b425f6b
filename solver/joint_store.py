"""A folder holding every joint layer of a two-player solve, to play `minimax` from.

`MinimaxPlay` ranks a mover's moves by 1 - V of the joint states they lead to, which needs the
joint layers of the whole game: in memory for small games (`Model.minimax(keep=True)`), or,
for a game like Crag whose layers are tens of GB in all, in a folder written as the solve goes
(`Model.minimax_store`). Each layer's table of minimax values is one `.npy` file with a sealed
sidecar holding a SHA-256 per block of it (`sealed.save_table`); a position reads a few
entries of two layers, memory-mapped, and only the blocks it reads are checked
(`sealed.CheckedFile`). The sealed manifest names the rule set (its digest) and the solver
version, and says when every layer is in: anything else (another game, an unfinished solve,
a damaged block) is refused with the reason. Only files the manifest names, written or about
to be, are ever removed.
"""

from __future__ import annotations

import struct
from pathlib import Path

from yz.rules import InputError

STORE_FORMAT = 1
STORE_BLOCK = 1 << 18  # bytes of a layer's table checked by one SHA-256 (a position reads few)
# Checksums a layer's sidecar holds at most: a bigger layer gets bigger blocks (doubled), so
# the sidecar stays far under the sealed files' limit (about 70 bytes a checksum).
MOST_BLOCKS = 8192
MANIFEST = "joint-store.json"


def _layer_name(km: int, ko: int) -> str:
    return f"joint-{km}-{ko}"


def writable_folder(folder: Path, param: str) -> None:
    """Make `folder` (and its parents) and check that yz can write there, before any work:
    InputError, named by `param`, if not. What a killed writer left there goes
    (`sealed.remove_stale_temporaries`). (The two-player solve's folders: this store, and
    `minimax.Checkpoint`.)"""
    from .sealed import TEMP_PREFIX, remove_stale_temporaries

    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f"{TEMP_PREFIX}probe"
        probe.write_bytes(b"")
        probe.unlink()
        remove_stale_temporaries(folder)
    except OSError as exc:
        raise InputError(f"{param}: {folder} is not a folder yz can write to "
                         f"({type(exc).__name__}: {exc}); give another.", param=param) from None


def read_manifest(path: Path, identity: dict, param: str, holds: str,
                  damaged: str) -> dict | None:
    """The sealed manifest at `path` (None when there is none), refused (InputError named by
    `param`) when it is damaged (`damaged`: what to do then) or when its fields differ from
    `identity` (`holds`: what the folder then holds)."""
    from .sealed import CorruptCache, read_sealed

    if not path.exists():
        return None
    try:
        found = read_sealed(path)
    except CorruptCache as exc:
        raise InputError(f"{param}: {exc}; {damaged}", param=param) from None
    if {k: found.get(k) for k in identity} != identity:
        raise InputError(f"{param}: {path.parent} holds {holds} of another two-player solve "
                         "(another rule set, or another version of yz); give another folder.",
                         param=param)
    return found


class JointStore:
    """One folder of joint layers (see the module docstring) for the rule set whose tables'
    digest is `digest`: `writing` starts one (or finds it finished), `reading` opens a
    finished one."""

    def __init__(self, folder: str | Path, digest: str):
        from .dp import SOLVER_VERSION

        self.folder = Path(folder)
        self.identity = {"format": STORE_FORMAT, "solver_version": SOLVER_VERSION,
                         "digest": digest, "kind": "two-player layers"}
        self.layers: list[list[int]] = []
        self._tables: dict = {}

    @property
    def manifest_path(self) -> Path:
        return self.folder / MANIFEST

    def _manifest(self) -> dict | None:
        return read_manifest(self.manifest_path, self.identity, "store", "the joint layers",
                             "give another folder.")

    @classmethod
    def writing(cls, folder: str | Path, digest: str) -> JointStore:
        """A store to write into, its folder checked writable first; one already finished
        for this rule set is `finished` (nothing to solve). What an unfinished run of the same
        solve left is removed: the solve starts over."""
        store = cls(folder, digest)
        writable_folder(store.folder, "store")
        found = store._manifest()
        if found is not None and found.get("finished"):
            store.layers = found["layers"]
            return store
        if found is not None:
            store._remove(found)
        return store

    @property
    def finished(self) -> bool:
        found = self._manifest()
        return bool(found and found.get("finished"))

    def save(self, km: int, ko: int, values) -> None:
        """Joint layer (km, ko)'s table of minimax values (the mover's), with its sidecar; the
        manifest names both before they are written."""
        from .sealed import save_table, write_sealed

        name = _layer_name(km, ko)
        write_sealed(self.manifest_path, {**self.identity, "layers": self.layers,
                                          "pending": [name], "finished": False})
        block = STORE_BLOCK
        while values.nbytes > block * MOST_BLOCKS:
            block *= 2
        facts = save_table(self.folder / f"{name}.npy", values, block)
        write_sealed(self.folder / f"{name}.json", {**self.identity, "layer": [km, ko],
                                                    "entries": int(values.size), **facts})
        self.layers.append([km, ko])
        write_sealed(self.manifest_path, {**self.identity, "layers": self.layers,
                                          "finished": False})

    def finish(self, value: float) -> None:
        """Every layer is in: the store can be played from; `value`, the first player's."""
        from .sealed import write_sealed

        write_sealed(self.manifest_path, {**self.identity, "layers": self.layers,
                                          "finished": True, "value": value})

    def _remove(self, found: dict) -> None:
        names = [_layer_name(*layer) for layer in found.get("layers", [])]
        for name in [*names, *found.get("pending", [])]:
            if name.startswith("joint-") and "/" not in name:
                for suffix in (".npy", ".json"):
                    (self.folder / f"{name}{suffix}").unlink(missing_ok=True)
        self.manifest_path.unlink(missing_ok=True)

    @classmethod
    def reading(cls, folder: str | Path, digest: str) -> JointStore:
        """A finished store of this rule set, to play from; InputError with the reason for
        anything else."""
        store = cls(folder, digest)
        if not store.folder.is_dir():
            raise InputError(f"store: {store.folder} is not a folder.", param="store")
        found = store._manifest()
        if found is None:
            raise InputError(f"store: {store.folder} holds no two-player layers (no "
                             f"{MANIFEST}); solve into it first.", param="store")
        if not found.get("finished"):
            raise InputError(f"store: the two-player solve into {store.folder} did not finish; "
                             "run it again.", param="store")
        store.layers = found["layers"]
        return store

    def table(self, km: int, ko: int) -> CheckedEntries:
        """Joint layer (km, ko)'s values, read entry by entry, each block checked as it is
        first read; InputError when the layer is not in the store or is damaged."""
        from .sealed import CheckedFile, CorruptCache, read_sealed

        key = (km, ko)
        if key not in self._tables:
            if [km, ko] not in self.layers:
                raise InputError(f"store: {self.folder} has no joint layer {key}.",
                                 param="store")
            name = _layer_name(km, ko)
            try:
                facts = read_sealed(self.folder / f"{name}.json")
                if {k: facts.get(k) for k in self.identity} != self.identity or \
                        facts.get("layer") != [km, ko]:
                    raise CorruptCache(f"{name}.json describes another table")
                data = CheckedFile(self.folder / f"{name}.npy", list(facts["blocks"]),
                                   int(facts["block_bytes"]), int(facts["data_offset"]),
                                   int(facts["file_bytes"]))
            except (OSError, CorruptCache, ValueError, KeyError, TypeError) as exc:
                raise InputError(f"store: joint layer {key} in {self.folder} is damaged or "
                                 f"missing ({exc}).", param="store") from None
            self._tables[key] = CheckedEntries(data, int(facts["entries"]))
        return self._tables[key]


class CheckedEntries:
    """A stored table of float64 entries read one at a time (what `JointLayer.read` does),
    each entry's block checked against its SHA-256 the first time it is read."""

    def __init__(self, data, entries: int):
        self.data = data
        self.size = entries

    def __getitem__(self, k) -> float:
        from .sealed import CorruptCache

        k = int(k)
        if not 0 <= k < self.size:
            raise IndexError(k)
        try:
            self.data.check(8 * k, 8 * k + 8)
        except CorruptCache as exc:
            raise InputError(f"store: {exc}.", param="store") from None
        at = self.data.offset + 8 * k
        return struct.unpack("<d", self.data.buffer[at:at + 8])[0]
