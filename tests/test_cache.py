"""The model cache: a hit skips the reader, and no cache problem changes a result.

Each test builds the real situation on disk (a read-only folder, a file
where the folder should be, a folder removed mid-run, damaged, swapped or
foreign entries, a code change, ten processes at once) and compares the
solved pose with one from a cache-free load, to 1e-12 mm.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import suspension_sim
from suspension_sim import cache
from suspension_sim.cache import CacheWarning
from suspension_sim.description import Body, Car, Damper, Options, Point, Rack, Source, Wheel
from suspension_sim.files import TEMP_TAG
from suspension_sim.workbook import reader
from suspension_sim.workbook.car_json import car_from_json, car_to_json

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted((ROOT / "workbooks").glob("*.xlsx"))
FSAE = ROOT / "workbooks" / "fsae_car.xlsx"
OTHER = ROOT / "workbooks" / "five_link_rear.xlsx"
INPUTS: dict[str, Any] = {
    "shocks": [10.0, 10.0, 5.0, 5.0],
    "rack": 5.0,
    "chassis": (0, 0, -10, 1.0, 0.5, 0),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder of this test's own; the once-per-process warning re-armed."""
    path = tmp_path / "cache"
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(path))
    monkeypatch.setattr(cache, "warned_this_process", False)
    return path


@pytest.fixture
def workbook(tmp_path: Path) -> Path:
    """A private copy of the example car."""
    return Path(shutil.copy(FSAE, tmp_path / FSAE.name))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every workbook path `read_car` is called with during the test."""
    calls: list[Path] = []
    real = reader.read_car

    def counting(path: str | os.PathLike[str]) -> Car:
        calls.append(Path(path))
        return real(path)

    monkeypatch.setattr(reader, "read_car", counting)
    return calls


@pytest.fixture(scope="module")
def truth() -> np.ndarray:
    """The example car's solved points (mm) with no cache involved."""
    return solved(suspension_sim.load(FSAE, use_cache=False))


def solved(model: suspension_sim.Model) -> np.ndarray:
    """Solved point coordinates (mm) at INPUTS."""
    return model.solve(**INPUTS).points.to_numpy()


def load_checked(workbook: Path, truth: np.ndarray) -> tuple[suspension_sim.Model, list[str]]:
    """Load with the cache, check the pose against `truth`; the cache warnings given."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = suspension_sim.load(workbook)
    np.testing.assert_allclose(solved(model), truth, rtol=0, atol=1e-9)  # solver accuracy
    assert model.car == suspension_sim.load(workbook, use_cache=False).car
    assert model.car.source_path == str(workbook)
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) <= 1  # once per process at most
    return model, messages


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("car-*.entry"))


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if TEMP_TAG in p.name]


# -- hits and misses ----------------------------------------------------------------------
def test_second_load_is_a_hit(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    first, warned = load_checked(workbook, truth)
    assert reads == [workbook, workbook] and not warned  # the load, then the check's own read
    (entry,) = entries(folder)
    second, warned = load_checked(workbook, truth)
    assert reads == [workbook, workbook, workbook]  # only load_checked's cache-free read
    assert not warned and entries(folder) == [entry]
    assert [p.source for p in second.car.points] == [p.source for p in first.car.points]


def test_a_hit_does_not_import_the_reader(folder: Path, workbook: Path) -> None:
    """In a fresh process, a hit reads the entry file and never imports openpyxl."""
    code = textwrap.dedent(
        f"""
        import sys, suspension_sim
        model = suspension_sim.load({str(workbook)!r})
        print(sorted(m for m in ("openpyxl", "suspension_sim.workbook.reader") if m in sys.modules))
        """
    )

    def run() -> str:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
        )
        assert proc.returncode == 0 and not proc.stderr, proc.stderr
        return proc.stdout.strip()

    assert run() == "['openpyxl', 'suspension_sim.workbook.reader']"  # cold: read
    (entry,) = entries(folder)
    written = entry.read_bytes()
    assert run() == "[]"  # warm: the entry was used, the reader never imported
    assert entry.read_bytes() == written


def test_the_same_bytes_under_another_name_are_another_entry(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    """The file name gives the car its default name and its sources' file: part of the key."""
    twin = Path(shutil.copy(workbook, workbook.with_name("twin.xlsx")))
    load_checked(workbook, truth)
    model, _ = load_checked(twin, truth)
    assert len(entries(folder)) == 2
    assert {p.source.file for p in model.car.points if p.source} == {"twin.xlsx"}


def test_warnings_of_the_car_survive_a_hit(
    folder: Path, make_workbook: Callable[..., Path], reads: list[Path]
) -> None:
    spare = {"B17": "SPARE", "C17": 1.0, "D17": 2.0, "E17": 3.0}
    edits = {f"Hard Points!{cell}": value for cell, value in spare.items()}
    path = make_workbook({**edits, "Index!C6": "'Hard Points'!B2:E17"})
    first = suspension_sim.load(path)
    second = suspension_sim.load(path)
    assert len(reads) == 1
    assert first.car.warnings and any("SPARE" in w for w in first.car.warnings)
    assert second.car.warnings == first.car.warnings


def test_use_cache_false_and_an_empty_variable_leave_no_trace(
    tmp_path: Path, workbook: Path, monkeypatch: pytest.MonkeyPatch, reads: list[Path]
) -> None:
    folder = tmp_path / "cache"
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(folder))
    suspension_sim.load(workbook, use_cache=False)
    assert not folder.exists()
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", "")
    suspension_sim.load(workbook)
    suspension_sim.load(workbook)
    assert len(reads) == 3 and not folder.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [workbook.name]


# -- an unusable folder ------------------------------------------------------------------
def test_read_only_folder(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    folder.mkdir()
    folder.chmod(0o500)
    try:
        _, warned = load_checked(workbook, truth)
        _, warned_again = load_checked(workbook, truth)
        if os.geteuid() != 0:  # root writes anyway; the result must be right either way
            assert warned and str(folder) in warned[0] and "caching is skipped" in warned[0]
            assert not warned_again and entries(folder) == []
    finally:
        folder.chmod(0o700)
    assert leftovers(folder) == []


def test_an_unwritable_folder_as_root_sees_it(
    folder: Path,
    workbook: Path,
    reads: list[Path],
    truth: np.ndarray,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file system that refuses writes (read-only mount, EACCES), simulated for root."""
    import errno

    from suspension_sim import files

    def refuse(path: object, data: bytes) -> Path:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(files, "write_bytes_atomically", refuse)
    monkeypatch.setattr(cache, "write_bytes_atomically", refuse, raising=False)
    folder.mkdir()
    _, warned = load_checked(workbook, truth)
    _, warned_again = load_checked(workbook, truth)
    assert len(warned) == 1 and str(folder) in warned[0] and "caching is skipped" in warned[0]
    assert not warned_again
    assert entries(folder) == [] and leftovers(folder) == []
    assert reads  # no entry, so the workbook was read


def test_a_tampered_entry_with_a_valid_hash_is_rebuilt(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    """An entry rewritten with its own checksum but a car the model refuses."""
    load_checked(workbook, truth)
    (entry,) = entries(folder)
    header, _, payload = entry.read_bytes().partition(b"\n")
    data = json.loads(payload)
    data["car"]["rack"]["body"] = "Nope"
    body = json.dumps(data).encode()
    meta = json.loads(header)
    meta["sha256"] = hashlib.sha256(body).hexdigest()
    entry.write_bytes(json.dumps(meta).encode() + b"\n" + body)
    _, warned = load_checked(workbook, truth)
    assert warned and "does not build a model" in warned[0]


def test_a_file_where_the_folder_should_be(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    folder.write_text("not a folder\n")
    _, warned = load_checked(workbook, truth)
    assert len(warned) == 1 and str(folder) in warned[0] and "caching is skipped" in warned[0]
    _, warned = load_checked(workbook, truth)
    assert warned == []  # one warning per process
    assert folder.read_text() == "not a folder\n"
    assert len(reads) == 4  # two loads, each read (plus the two cache-free reads)


def test_folder_removed_between_loads(
    folder: Path, workbook: Path, reads: list[Path], truth: np.ndarray
) -> None:
    load_checked(workbook, truth)
    shutil.rmtree(folder)
    _, warned = load_checked(workbook, truth)
    assert len(reads) == 4 and not warned  # a plain miss: the entry is written again
    assert len(entries(folder)) == 1


@pytest.mark.parametrize("replacement", ["nothing", "a file"])
def test_folder_deleted_mid_run(
    folder: Path,
    workbook: Path,
    monkeypatch: pytest.MonkeyPatch,
    truth: np.ndarray,
    replacement: str,
) -> None:
    """The folder disappears (or becomes a file) while the workbook is being read."""
    suspension_sim.load(OTHER)  # another workbook's entry
    assert folder.is_dir()
    real = reader.read_car
    deleted: list[bool] = []

    def read_and_delete(path: str | os.PathLike[str]) -> Car:
        car = real(path)
        if not deleted:  # once, during the cached load's read
            deleted.append(True)
            shutil.rmtree(folder)
            if replacement == "a file":
                folder.write_text("")
        return car

    monkeypatch.setattr(reader, "read_car", read_and_delete)
    _, warned = load_checked(workbook, truth)
    if replacement == "a file":
        assert len(warned) == 1 and "caching is skipped" in warned[0]
        assert folder.is_file()
    else:
        assert not warned and len(entries(folder)) == 1


# -- damaged entries -----------------------------------------------------------------------
def truncate(entry: Path, other: Path) -> None:
    data = entry.read_bytes()
    entry.write_bytes(data[: len(data) // 2])


def garbage(entry: Path, other: Path) -> None:
    entry.write_bytes(np.random.default_rng(0).bytes(5000))


def empty(entry: Path, other: Path) -> None:
    entry.write_bytes(b"")


def header_only(entry: Path, other: Path) -> None:
    entry.write_bytes(entry.read_bytes().partition(b"\n")[0])


def payload_edited(entry: Path, other: Path) -> None:
    """One coordinate changed by 5 mm, the header left as it was."""
    head, _, payload = entry.read_bytes().partition(b"\n")
    car = json.loads(payload)
    car["car"]["points"][0]["xyz"][0] += 5.0
    entry.write_bytes(head + b"\n" + json.dumps(car).encode())


def rehashed_foreign_format(entry: Path, other: Path) -> None:
    """A well-formed entry (right key and hash) whose payload is not a car of this code."""
    header = json.loads(entry.read_bytes().partition(b"\n")[0])
    payload = b'{"format": 99, "car": {}}'
    header["sha256"] = hashlib.sha256(payload).hexdigest()
    entry.write_bytes(json.dumps(header).encode() + b"\n" + payload)


def swapped(entry: Path, other: Path) -> None:
    """Another workbook's (valid) entry copied over this one's file name."""
    shutil.copy(other, entry)


def symlinked(entry: Path, other: Path) -> None:
    """A symbolic link to a valid entry of this very key: links are not followed."""
    target = entry.with_name("elsewhere")
    entry.rename(target)
    entry.symlink_to(target)


def a_folder(entry: Path, other: Path) -> None:
    entry.unlink()
    entry.mkdir()


DAMAGE = [
    truncate,
    garbage,
    empty,
    header_only,
    payload_edited,
    rehashed_foreign_format,
    swapped,
    symlinked,
    a_folder,
]


@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__)
def test_damaged_entry_is_rebuilt(
    folder: Path,
    workbook: Path,
    reads: list[Path],
    truth: np.ndarray,
    damage: Callable[[Path, Path], None],
) -> None:
    load_checked(workbook, truth)
    (entry,) = entries(folder)
    suspension_sim.load(OTHER)  # another workbook's entry
    (other,) = set(entries(folder)) - {entry}
    damage(entry, other)
    other_bytes = other.read_bytes()
    n = len(reads)
    _, warned = load_checked(workbook, truth)
    assert reads[n] == workbook  # a miss: the workbook was read
    assert len(warned) == 1 and str(folder) in warned[0] and "rebuilt" in warned[0]
    assert other.read_bytes() == other_bytes  # nothing written through a link or elsewhere
    if damage is symlinked:
        assert not entry.is_symlink()  # replaced by a regular entry
        assert entry.with_name("elsewhere").read_bytes().startswith(b'{"format"')
    if damage is not a_folder:
        n = len(reads)
        load_checked(workbook, truth)  # repaired: a hit
        assert reads[n:] == [workbook]  # only load_checked's cache-free read
    assert leftovers(folder) == []


# -- code changes and concurrency ----------------------------------------------------------
def test_a_code_change_invalidates_the_entry(
    folder: Path,
    workbook: Path,
    reads: list[Path],
    truth: np.ndarray,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    load_checked(workbook, truth)
    (built_by_this_code,) = entries(folder)
    with monkeypatch.context() as changed:
        changed.setattr(cache, "package_fingerprint", lambda: "0" * 64)
        n = len(reads)
        load_checked(workbook, truth)
        assert reads[n] == workbook and len(entries(folder)) == 2
        n = len(reads)
        load_checked(workbook, truth)
        assert reads[n:] == [workbook]  # the changed code's own entry is a hit
    n = len(reads)
    load_checked(workbook, truth)
    assert reads[n:] == [workbook] and built_by_this_code in entries(folder)


def test_fingerprint_covers_sources_and_data(tmp_path: Path) -> None:
    package = Path(cache.__file__).parent
    pycache = shutil.ignore_patterns("__pycache__")
    copy = Path(shutil.copytree(package, tmp_path / "suspension_sim", ignore=pycache))
    original = cache.folder_fingerprint(copy)
    assert len(original) == 64 and cache.package_fingerprint() is cache.package_fingerprint()
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "junk.pyc").write_bytes(b"compiled")
    (copy / ".editor.swp").write_bytes(b"hidden")
    assert cache.folder_fingerprint(copy) == original
    data = copy / "data" / "examples" / "fsae_car.toml"
    data.write_text(data.read_text() + "\n")
    assert cache.folder_fingerprint(copy) != original
    data.write_text(data.read_text()[:-1])
    assert cache.folder_fingerprint(copy) == original
    source = copy / "model" / "screws.py"
    source.write_text(source.read_text().replace("mm", "m", 1))
    assert cache.folder_fingerprint(copy) != original


def test_ten_processes_from_a_cold_cache(folder: Path, workbook: Path, truth: np.ndarray) -> None:
    code = textwrap.dedent(
        f"""
        import json, suspension_sim
        model = suspension_sim.load({str(workbook)!r})
        print(json.dumps(model.solve(**{INPUTS!r}).points.to_numpy().tolist()))
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(10)
    ]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (_, err) in zip(procs, results, strict=True):
        assert p.returncode == 0 and err == "", err
    outputs = {out.strip() for out, _ in results}
    assert len(outputs) == 1  # identical to the last bit
    # the same pose as a solve without the cache, to the solver's accuracy (the truth may
    # come from the compiled kernel where this worker has loaded it, the processes use
    # the numpy engine: both close every joint to 1e-10 mm)
    np.testing.assert_allclose(np.array(json.loads(outputs.pop())), truth, rtol=0, atol=1e-9)
    assert len(entries(folder)) == 1 and leftovers(folder) == []


def test_stale_temp_files_of_ours_are_removed(
    folder: Path, workbook: Path, truth: np.ndarray
) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folder.mkdir()
    stale = folder / f".car-0.entry{TEMP_TAG}{gone.pid}-abc.tmp"
    stale.write_bytes(b"half an entry")
    mine = folder / "notes.txt"
    mine.write_text("not ours")
    load_checked(workbook, truth)
    assert not stale.exists() and mine.exists()


# -- the entry store itself ----------------------------------------------------------------
def test_entry_store_round_trip_and_mismatches(folder: Path) -> None:
    cache.write_entry("car", "key-1", b"\x00payload\nwith newline")
    assert cache.read_entry("car", "key-1") == b"\x00payload\nwith newline"
    assert cache.read_entry("car", "key-2") is None  # a plain miss, no warning
    assert not cache.warned_this_process
    (path,) = folder.iterdir()
    # The same file under another kind's name: its header names "car", so it is refused.
    shutil.copy(path, folder / cache.entry_name("other", "key-1"))
    with pytest.warns(CacheWarning, match="caching is skipped"):
        assert cache.read_entry("other", "key-1") is None
    with pytest.raises(ValueError, match="kind"):
        cache.entry_name("../x", "key")


def test_old_entries_are_pruned(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    folder.mkdir()
    notes = folder / "notes.entry"  # not an entry name of ours: never removed
    notes.write_text("mine")
    for i in range(5):
        cache.write_entry("car", f"key-{i}", b"payload")
        path = folder / cache.entry_name("car", f"key-{i}")
        os.utime(path, (1000.0 + i, 1000.0 + i))  # written in this order
    kept = [i for i in range(5) if cache.read_entry("car", f"key-{i}") is not None]
    assert kept == [2, 3, 4]  # each write beyond three removed the oldest
    cache.write_entry("car", "key-5", b"payload")
    kept = [i for i in range(6) if cache.read_entry("car", f"key-{i}") is not None]
    assert kept == [3, 4, 5] and notes.read_text() == "mine"


# -- the car as JSON ----------------------------------------------------------------------
def sources(car: Car) -> list[Source | None]:
    """The source of every point, body, wheel, damper and the rack."""
    items: list[Point | Body | Wheel | Damper | Rack] = [
        *car.points,
        *car.bodies,
        *car.wheels,
        *car.dampers,
        *([car.rack] if car.rack else []),
    ]
    return [item.source for item in items]


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.name)
def test_car_json_round_trip_of_every_workbook(path: Path) -> None:
    car = reader.read_car(path)
    back = car_from_json(car_to_json(car))
    assert back == car and repr(back) == repr(car)
    assert sources(back) == sources(car) and all(sources(car))
    assert back.warnings == car.warnings and back.source_path == car.source_path


def test_car_json_is_exact_for_awkward_values() -> None:
    car = reader.read_car(FSAE)
    awkward = (0.1 + 0.2, 1e-300, -0.0, 5e-324, 123456789.123456789, math.inf)
    points = tuple(Point(f"P{i}", (v, -v, float(i))) for i, v in enumerate(awkward)) + car.points
    odd = dataclasses.replace(
        car,
        points=points,
        options=dataclasses.replace(Options(), wheelbase_mm=1530.0000000000002),
        warnings=("one", "two: ünïcode"),
    )
    back = car_from_json(car_to_json(odd))
    for a, b in zip(back.points, odd.points, strict=True):
        assert [x.hex() for x in a.xyz] == [x.hex() for x in b.xyz]
    assert back.options == odd.options and back.warnings == odd.warnings
    assert isinstance(back.options.axis_map, tuple) and isinstance(back.points[0].xyz, tuple)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"format": 2, "car": {}}',
        '{"format": 1, "car": {"name": "x"}}',
        "garbage",
        "[" * 100_000,
    ],
    ids=["empty", "list", "format", "fields", "garbage", "nested"],
)
def test_car_json_refuses_what_is_not_a_car(text: str) -> None:
    with pytest.raises(ValueError):
        car_from_json(text)


def test_car_json_checks_types() -> None:
    document = json.loads(car_to_json(reader.read_car(OTHER)))
    document["car"]["points"][0]["xyz"] = ["1", 2.0, 3.0]
    with pytest.raises(ValueError, match=r"points\[0\]\.xyz\[0\]"):
        car_from_json(json.dumps(document))
