"""A test-only WRITER of OptimumK result files (.O2Res, format "2.3.0"), from the layout
docs/optimumk_files.md describes ("Results (.O2Res)"); no OptimumK file is copied.

* `result_bytes`: the whole file: type flag 0x81, strings version, GUID, name, a 4-byte
  colour and a byte; the vehicle (0xA1, strings version, GUID, name); the copies of the
  setup and suspensions, each after a byte 1 (header and body from
  tests/_optimumk_binary.py, a definition file without its SHA-1); zeros to byte 20000;
  the counts (channels, steps, file size, data offset); for a force result the force
  counts at byte 20100 (elements, steps, offset of their names, offset of their values);
  zeros to byte 22000; the channel table (name, unit code, type code 14, int64 offset of
  the channel's data from the file's start); the doubles; for a force result the force
  elements' names and float32 [elements][steps][9];
* `channels_from_export`: the channels of an OptimumK-layout Excel result export
  (validation/optimumk_slvs/export*.xlsx: ``Quantity [Side] [Axle] (unit)`` headers,
  ``Step [n]`` rows) as result channels: name without the unit, unit code, SI values.

Every number SI (m, rad, N, N m); blank cells are NaN.
"""

from __future__ import annotations

import importlib.util
import math
import re
import struct
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np

BLOCK = 20000
FORCE_BLOCK = 20100
TABLE = 22000
PRESENT = b"\x01"
"""The byte before each embedded copy."""
DOUBLE = 14
Channel = tuple[str, int, Sequence[float]]
"""(name, unit code, SI values per step)."""
GUID = "0f8fad5b-d9cb-469f-a165-70867728950e"
VEHICLE_GUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"

# Excel unit -> (unit code, factor to SI)
UNIT_OF: dict[str | None, tuple[int, float]] = {
    "mm": (12, 1e-3),
    "deg": (3, math.pi / 180.0),
    "deg/mm": (33, math.pi / 180.0 * 1000.0),
    "deg/deg": (18, 1.0),
    "-": (18, 1.0),
    "%": (18, 1.0),
    "N": (9, 1.0),
    "N m": (27, 1.0),
}
INFERRED_32 = ("Motion Ratio Steering", "Motion Ratio Roll", "Motion Ratio Pitch")
"""Quantities OptimumK stores with unit code 32 (rad/m, inferred)."""
_UNIT_RE = re.compile(r"^(?P<name>.*?)\s*\((?P<unit>[^()]*)\)\s*$")


def string(text: str) -> bytes:
    """A .NET BinaryWriter string: 7-bit length, then UTF-8."""
    raw = text.encode("utf-8")
    n, out = len(raw), bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out) + raw


def int32(v: int) -> bytes:
    return struct.pack("<i", v)


def int64(v: int) -> bytes:
    return struct.pack("<q", v)


def head(name: str, *, version: str = "2.3.0", vehicle: str = "Test Vehicle") -> bytes:
    """The result's opening bytes up to its first embedded copy."""
    out = bytes([0x81]) + string(version) + string(GUID) + string(name)
    out += bytes([0x20, 0x40, 0x80, 0xFF]) + b"\x01"  # a colour, a byte
    out += bytes([0xA1]) + string("2.0.1") + string(VEHICLE_GUID) + string(vehicle)
    return out


def table_and_data(
    channels: Sequence[Channel], data_offset: int, *, absolute: bool = True
) -> tuple[bytes, bytes]:
    """(channel table, data) with every record's offset relative to the data (or from
    the file's start with `absolute`)."""
    n = len(channels[0][2])
    table = bytearray()
    data = bytearray()
    for i, (name, unit, values) in enumerate(channels):
        assert len(values) == n, name
        rel = 8 * n * i
        table += (
            string(name)
            + int32(unit)
            + int32(DOUBLE)
            + int64(rel + (data_offset if absolute else 0))
        )
        data += np.asarray(values, dtype="<f8").tobytes()
    return bytes(table), bytes(data)


def force_block(elements: Sequence[tuple[str, np.ndarray]]) -> bytes:
    """Force elements: the names, then float32 [elements][steps][9]."""
    if not elements:
        return b""
    names = b"".join(string(n) for n, _ in elements)
    block = np.stack([np.asarray(v, dtype=float) for _, v in elements]).astype("<f4")
    assert block.ndim == 3 and block.shape[2] == 9
    return names + block.tobytes()


def result_bytes(
    name: str,
    copies: Sequence[bytes],
    channels: Sequence[Channel],
    *,
    force_elements: Sequence[tuple[str, np.ndarray]] = (),
    version: str = "2.3.0",
    absolute: bool = True,
    gap: int = 0,
) -> bytes:
    """A whole .O2Res: `copies` are the embedded setup and suspension copies in order
    (definition-file bytes without their SHA-1); `gap` zero bytes between the channel
    table and the data."""
    start = head(name, version=version) + b"".join(PRESENT + c for c in copies)
    assert len(start) <= BLOCK, "the copies do not fit before byte 20000"
    n_steps = len(channels[0][2])
    probe, _ = table_and_data(channels, 0)
    data_offset = TABLE + len(probe) + gap
    table, data = table_and_data(channels, data_offset, absolute=absolute)
    forces = force_block(force_elements)
    size = data_offset + len(data) + len(forces)
    counts = int32(len(channels)) + int32(n_steps) + int32(size) + int32(data_offset)
    out = start + bytes(BLOCK - len(start)) + counts
    if force_elements:  # their counts at 20100: elements, steps, names at, values at
        names_at = data_offset + len(data)
        values_at = size - 36 * n_steps * len(force_elements)
        out += bytes(FORCE_BLOCK - len(out))
        out += int32(len(force_elements)) + int32(n_steps) + int32(names_at) + int32(values_at)
    out += bytes(TABLE - len(out)) + table + bytes(gap) + data + forces
    assert len(out) == size
    return out


def write_result(path: Path, *args: object, **kwargs: object) -> Path:
    """`result_bytes` written to `path`."""
    path.write_bytes(result_bytes(*args, **kwargs))  # type: ignore[arg-type]
    return path


# -- from an Excel export --------------------------------------------------------------------
def channels_from_export(path: Path) -> list[Channel]:
    """The channels of an OptimumK-layout Excel result export, as result channels (SI)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        rows = [list(r) for r in wb.worksheets[0].iter_rows(values_only=True)]
    finally:
        wb.close()
    header_row = next(i for i, r in enumerate(rows) if r and r[1] == "Motion [Heave] (mm)")
    steps = [r for r in rows[header_row + 1 :] if r and str(r[0] or "").startswith("Step [")]
    out: list[Channel] = []
    for c, text in enumerate(rows[header_row]):
        if not text:
            continue
        m = _UNIT_RE.match(text)
        name, unit = (m["name"], m["unit"]) if m else (text, None)
        if unit is None:  # the always-blank virtual kingpin channels: angles and lengths
            unit = "deg" if ("Inclination" in name or "Angle" in name) else "mm"
        code, factor = UNIT_OF[unit]
        if code == 33 and name.startswith(INFERRED_32):
            code = 32
        values = [math.nan if r[c] is None else float(r[c]) * factor for r in steps]
        out.append((name, code, values))
    return out


# -- the SolveSpace reference car's embedded copies ---------------------------------------------
REFERENCE = Path(__file__).resolve().parents[1] / "validation" / "optimumk_slvs"


def reference_module() -> ModuleType:
    """validation/optimumk_slvs/make_reference.py, loaded under its own name (it defines
    the reference car: OptimumK point names, Wheels block, setup; it never imports
    suspension_sim)."""
    name = "optimumk_slvs_make_reference"
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(REFERENCE.parent))  # refkit
    sys.path.insert(0, str(REFERENCE))  # okfiles
    try:
        spec = importlib.util.spec_from_file_location(name, REFERENCE / "make_reference.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look themselves up
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(REFERENCE))
        sys.path.remove(str(REFERENCE.parent))
    return module


def reference_copies(
    move: tuple[str, str, str, int, float] | None = None,
    setup: Mapping[str, float] | None = None,
    front_extra: Sequence[bytes] = (),
) -> list[bytes]:
    """The setup and the front and rear suspensions of the SolveSpace reference car as a
    result embeds them (header and body, no SHA-1), through tests/_optimumk_binary.py's
    writer from make_reference's own numbers (model frame; the rear file's X is the common
    X plus the Reference Distance). move: (axle "Front"/"Rear", point name, side "L"/"R",
    axis 0/1/2, mm) shifts one point of the copies (a result of another car); setup:
    values of make_reference.SETUP replaced (``{"Center of Gravity Height": 300.0}``);
    front_extra: element objects written into the front suspension after its Wheels."""
    from _optimumk_binary import header_bytes, new_guid, setup_body, suspension_body

    ref = reference_module()
    rd = float(ref.REFERENCE_DISTANCE)
    guids = {axle: new_guid(f"result copy {axle}") for axle in ("Front", "Rear")}
    copies = []
    values = {**ref.SETUP, **(setup or {})}
    copies.append(
        header_bytes("setup", "Reference setup", new_guid("result copy setup"))
        + setup_body(
            new_guid("setup's front"),
            new_guid("setup's rear"),
            reference_distance=rd,
            front_mass_pct=values["Front Mass Distribution"],
            left_mass_pct=values["Left Mass Distribution"],
            cg_height=values["Center of Gravity Height"],
            brake_bias_pct=values["Brake Bias"],
            drive_bias_pct=values["Drive Bias"],
        )
    )
    for axle, src, dx in (("Front", ref.FRONT, 0.0), ("Rear", ref.REAR, rd)):
        points = {n: {"L": [x + dx, y, z], "R": [x + dx, -y, z]} for n, (x, y, z) in src.items()}
        if move is not None and move[0] == axle:
            _, name, side, axis, mm = move
            points[name][side][axis] += mm
        wheels = {side: dict(ref.WHEELS[axle]) for side in ("L", "R")}
        body = suspension_body(
            axle.lower(),
            {n: {s: (p[0], p[1], p[2]) for s, p in by.items()} for n, by in points.items()},
            wheels,
            push_pull_on=ref.PUSH_PULL_ON[axle],
            rack_ratio=ref.RACK_MM_PER_REV if axle == "Front" else None,
            springs={s: ref.SPRING_N_PER_MM[axle] for s in ("L", "R")},
            extra_elements=front_extra if axle == "Front" else (),
        )
        copies.append(header_bytes("suspension", f"Reference {axle}", guids[axle]) + body)
    return copies


def force_case_bytes(csv_path: Path) -> bytes:
    """A whole .O2For (with its SHA-1) holding the keyframes of a force-keys CSV (wheel,
    percent, Fx, Fy, Fz, Mx, My, Mz; corner words), through tests/_optimumk_binary.py."""
    import csv

    from _optimumk_binary import force_bytes

    code = {"Front Left": "FL", "Front Right": "FR", "Rear Left": "RL", "Rear Right": "RR"}
    keys: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with csv_path.open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for comp in ("Fx", "Fy", "Fz", "Mx", "My", "Mz"):
                keys.setdefault((code[row["wheel"]], comp), []).append(
                    (float(row["percent"]), float(row[comp] or 0.0))
                )
    return force_bytes("Reference keyframes", keys=keys)
