"""validate on OptimumK's own result files (.O2Res, format "2.3.0").

The files are written here by tests/_optimumk_result_file.py from the layout in
docs/optimumk_files.md, with the embedded setup and suspension copies from
tests/_optimumk_binary.py. Their channels are those of the independent SolveSpace
reference (validation/optimumk_slvs/export.xlsx and export_forces.xlsx, made by
make_reference.py without suspension_sim) turned into SI with OptimumK's unit codes, and
their embedded car is make_reference's own car. So a result file must validate exactly as
its Excel export does: the same channels, the same values, the same verdict. A result of
another car (one point 1 mm off) must be said before any channel and must not pass.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from _optimumk_result_file import (
    FORCE_BLOCK,
    TABLE,
    Channel,
    channels_from_export,
    force_case_bytes,
    reference_copies,
    result_bytes,
    write_result,
)

import suspension_sim
from suspension_sim.api import Model
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.validation import Export, read_export, validate
from suspension_sim.validation.okheaders import parse_optimumk_header
from suspension_sim.validation.okresult import (
    FORCE_INPUT,
    CarCheck,
    check_car,
    result_export,
    validate_result,
)
from suspension_sim.validation.results import Validation
from suspension_sim.workbook.optimumk_files.results import read_result
from suspension_sim.workbook.optimumk_files.stream import (
    OptimumKFileError,
    TruncatedFileError,
    TypeFlagError,
    UnknownVersionError,
)

ROOT = Path(__file__).resolve().parents[1]
CASE = ROOT / "validation" / "optimumk_slvs"
CAR = CASE / "car.xlsx"
EXPORT = CASE / "export.xlsx"
FORCES = CASE / "export_forces.xlsx"
KEYS = CASE / "force_keys.csv"
CORNERS = ("Front Left", "Front Right", "Rear Left", "Rear Right")


@pytest.fixture(scope="module")
def model() -> Model:
    return suspension_sim.load(CAR)


@pytest.fixture(scope="module")
def copies() -> list[bytes]:
    return reference_copies()


@pytest.fixture(scope="module")
def channels() -> list[Channel]:
    return channels_from_export(EXPORT)


def _small(channels: list[Channel], steps: int = 5) -> list[Channel]:
    """The motion and the front-left camber and toe of the first `steps` steps."""
    keep = ("Motion [", "Camber Angle [Left] [Front]", "Toe Angle [Left] [Front]")
    return [(n, u, list(v)[:steps]) for n, u, v in channels if n.startswith(keep)]


def _key(text: str) -> str:
    """A header without its unit (the Excel path writes deg, the result path rad)."""
    ok = parse_optimumk_header(text)
    return ok.key if ok is not None else text


def _same_comparison(
    ours: Validation, excel: Validation, skip: frozenset[str] | set[str] = frozenset()
) -> None:
    """Every channel the Excel path compares is compared from the result file with the
    same values at the steps judged (theirs to 1e-9 relative, ours to 1e-4 of the
    tolerance: the motion read back from SI moves the car by rounding only), and vice
    versa."""
    a = {c.channel: c for c in ours.compared}
    b = {c.channel: c for c in excel.compared if c.channel not in skip}
    assert set(a) == set(b)
    for name, x in a.items():
        y = b[name]
        scale = np.maximum(1.0, np.abs(y.theirs))
        both = np.isfinite(y.theirs)
        assert np.array_equal(np.isfinite(x.theirs), both), name
        assert np.all(np.abs(x.theirs - y.theirs)[both] <= 1e-9 * scale[both]), name
        fin = both & np.isfinite(y.ours)  # the steps judged
        assert np.array_equal(both & np.isfinite(x.ours), fin), name
        assert np.all(np.abs(x.ours - y.ours)[fin] <= 1e-4 * y.tolerance), name
        assert math.isclose(x.tolerance, y.tolerance, rel_tol=1e-9), name
        assert x.passed == y.passed, name


# -- the reader -------------------------------------------------------------------------------
def test_reader_reads_every_part_of_the_layout(tmp_path: Path, copies: list[bytes]) -> None:
    steps = 3
    heave = [0.0, 0.001, 0.002]
    camber = [-0.0167, -0.0168, -0.0170]
    force = [10.0, -20.5, 30.25]
    points = np.arange(steps * 9, dtype=float).reshape(steps, 9) / 7.0
    path = write_result(
        tmp_path / "r.O2Res",
        "Setup - Heave",
        copies,
        [
            ("Motion [Heave]", 12, heave),
            ("Camber Angle [Left] [Front]", 3, camber),
            ("Lower A-Arm To Chassis (Fore) - Fx [Front Left] ", 9, force),
        ],
        force_elements=[("Ground To Chassis ", points), ("Tie Rod [Front Left]", -points)],
    )
    r = read_result(path)
    assert (r.version, r.name, r.vehicle.name) == ("2.3.0", "Setup - Heave", "Test Vehicle")
    assert r.setup.header.name == "Reference setup"
    assert r.setup.reference_distance.value == pytest.approx(1.53)
    assert r.front is not None and r.front.header.name == "Reference Front"
    assert r.rear is not None and r.rear.header.name == "Reference Rear"
    assert r.rear.rack_ratio is None and r.front.rack_ratio is not None
    assert r.n_steps == steps and r.file_size == path.stat().st_size
    names = [c.name for c in r.channels]
    assert names == [
        "Motion [Heave]",
        "Camber Angle [Left] [Front]",
        "Lower A-Arm To Chassis (Fore) - Fx [Front Left]",  # the trailing blank dropped
    ]
    assert [c.unit_code for c in r.channels] == [12, 3, 9]
    assert [c.unit for c in r.channels] == ["m", "rad", "N"]
    assert r.channels[0].record == TABLE
    assert r.channels[1].data == r.data_offset + 8 * steps
    assert np.array_equal(r.channels[1].values, camber)
    assert np.array_equal(r.channels[2].values, force)
    assert [e.name for e in r.force_elements] == ["Ground To Chassis ", "Tie Rod [Front Left]"]
    e = r.force_elements[1]
    f32 = (-points).astype(np.float32).astype(float)
    assert np.array_equal(e.point, f32[:, :3])
    assert np.array_equal(e.force, f32[:, 3:6])
    assert np.array_equal(e.moment, f32[:, 6:])
    assert r.is_force_result


def test_a_result_without_a_rear_suspension(tmp_path: Path) -> None:
    """A setup that names no rear suspension (all-zero GUID): one copy, rear None."""
    from _optimumk_binary import header_bytes, new_guid, setup_body

    front = reference_copies()[1]
    setup = header_bytes("setup", "Front only", new_guid("s")) + setup_body(new_guid("f"), None)
    r = read_result(
        write_result(tmp_path / "f.O2Res", "F", [setup, front], [("Motion [Heave]", 12, [0.0])])
    )
    assert r.front is not None and r.rear is None


# -- the SolveSpace reference as a result file ---------------------------------------------------
def test_the_solvespace_result_file_validates_as_its_excel_export(
    model: Model,
    copies: list[bytes],
    channels: list[Channel],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_result(tmp_path / "reference.O2Res", "Reference - combined", copies, channels)
    result = read_result(path)
    assert [c.unit_code for c in result.channels if "Motion Ratio Steering" in c.name] == [32, 32]
    check = check_car(model, result, CAR)
    assert not check.differs and check.compared == 64 and check.largest < 1e-5
    ours = validate_result(model, result, result_export(result), check)
    excel = validate(model, read_export(EXPORT))
    assert ours.passed and excel.passed, (ours.summary(), excel.summary())
    assert len(ours.compared) == len(excel.compared) == 464
    _same_comparison(ours, excel)
    # the motion read from the result is the export's (heave mm, angles deg, completion %)
    mine, theirs = ours.export.motion(), excel.export.motion()
    assert set(mine) == set(theirs) == {"heave", "roll", "pitch", "steering", "completion"}
    for key, col in theirs.items():
        assert np.allclose(mine[key].values, col.values, rtol=1e-12, atol=1e-12), key
    assert mine["completion"].values[-1] == pytest.approx(100.0)
    # unit code 32 (rad/m, inferred): the registry compares Motion Ratio Steering and Roll
    names = {c.channel for c in ours.compared}
    assert {"Motion Ratio Steering Front Left", "Motion Ratio Roll Rear Right"} <= names
    # what is not compared, and why, is the same too (headers without their units)
    assert sorted((_key(t), r) for t, r in ours.not_compared) == sorted(
        (_key(t), r) for t, r in excel.not_compared
    )
    # the command: the car check first, then PASS, exit 0
    out = tmp_path / "report"
    assert main(["validate", str(CAR), str(path), "--out", str(out), "--no-plots"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("car: the result's own car") and "64 points" in lines[0]
    assert lines[1].startswith("PASS: 464 channels over 57 steps")
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.index("the result's own car") < report.index("## Deviation per channel")


# -- a result of another car -------------------------------------------------------------------
def test_a_result_of_another_car_is_said_first_and_fails(
    model: Model,
    channels: list[Channel],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    moved = reference_copies(move=("Front", "UPRI_TiePnt", "L", 1, 1.0))  # 1 mm along Y
    path = write_result(tmp_path / "other.O2Res", "Other car", moved, _small(channels))
    out = tmp_path / "report"
    code = main(["validate", str(CAR), str(path), "--out", str(out), "--no-plots"])
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert code == 1
    assert lines[0].startswith("car: other.O2Res was computed on another car than car.xlsx")
    assert "FL_UPRI_TiePnt by 1.000 mm" in lines[0]
    assert "FL_UPRI_TiePnt" in lines[1] and "1.000 mm apart" in lines[1]
    assert "(-65.000, 525.000, 200.000)" in lines[1]  # the workbook's point
    assert "(-65.000, 526.000, 200.000)" in lines[1]  # the result's
    fail = next(i for i, line in enumerate(lines) if line.startswith("FAIL: "))
    assert fail > 1 and "computed on another car" in lines[fail]
    # the channels themselves match (they were computed on the workbook's car): said too
    assert "channels compared with that result are within tolerance" in lines[fail]
    report = (out / "report.md").read_text(encoding="utf-8")
    first_channel = report.index("Camber Angle")
    assert report.index("FL_UPRI_TiePnt") < report.index("**Result: FAIL.**") < first_channel
    assert "1.000 mm" in report[:first_channel]

    # accepted explicitly: compared, passes on the channels, the difference still leads
    out2 = tmp_path / "accepted"
    code = main(
        ["validate", str(CAR), str(path), "--out", str(out2), "--no-plots", "--accept-other-car"]
    )
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert "FL_UPRI_TiePnt by 1.000 mm" in lines[0]
    assert next(i for i, x in enumerate(lines) if x.startswith("PASS: ")) > 1
    report = (out2 / "report.md").read_text(encoding="utf-8")
    assert report.index("FL_UPRI_TiePnt") < report.index("**Result: PASS.**")
    assert "--accept-other-car" in report


def test_the_same_small_result_on_the_workbook_car_passes(
    model: Model, copies: list[bytes], channels: list, tmp_path: Path
) -> None:
    """The failure above comes from the car, not from the channels."""
    path = write_result(tmp_path / "same.O2Res", "Same car", copies, _small(channels))
    result = read_result(path)
    check = check_car(model, result, CAR)
    v = validate_result(model, result, result_export(result), check)
    assert not check.differs and v.passed and len(v.compared) == 2, v.summary()


@pytest.mark.parametrize(("mm", "differs"), [(0.0005, False), (0.002, True)])
def test_the_car_tolerance(model: Model, tmp_path: Path, mm: float, differs: bool) -> None:
    """A point is the same within 1e-3 mm (CAR_TOLERANCE_MM)."""
    copies = reference_copies(move=("Rear", "CHAS_LowFor", "R", 2, mm))
    path = write_result(tmp_path / "t.O2Res", "T", copies, [("Motion [Heave]", 12, [0.0])])
    check = check_car(model, read_result(path), CAR)
    assert check.differs is differs
    if differs:
        assert [m.name for m in check.moved] == ["RR_CHAS_LowFor"]
        assert check.moved[0].distance == pytest.approx(mm, abs=1e-9)


def test_a_setup_value_that_differs_is_named(model: Model, tmp_path: Path) -> None:
    copies = reference_copies(setup={"Center of Gravity Height": 300.0, "Brake Bias": 55.0})
    path = write_result(tmp_path / "s.O2Res", "S", copies, [("Motion [Heave]", 12, [0.0])])
    check = check_car(model, read_result(path), CAR)
    assert check.differs and not check.moved
    assert {v.label for v in check.values} == {"CG height", "front brake share"}
    cg = next(v for v in check.values if v.label == "CG height")
    assert (cg.ours, cg.theirs) == (pytest.approx(280.9), pytest.approx(300.0))
    assert "CG height, front brake share differ" in check.headline()


# -- bad files ---------------------------------------------------------------------------------
def _base(copies: list[bytes]) -> bytes:
    return result_bytes(
        "Bad",
        copies,
        [("Motion [Heave]", 12, [0.0, 0.001]), ("Camber Angle [Left] [Front]", 3, [0.0, 0.0])],
    )


def _u32_at(data: bytes, offset: int, value: int, size: int = 4) -> bytes:
    return data[:offset] + value.to_bytes(size, "little", signed=True) + data[offset + size :]


def _read(tmp_path: Path, data: bytes) -> None:
    p = tmp_path / "bad.O2Res"
    p.write_bytes(data)
    read_result(p)


def test_another_version_is_refused_by_name_and_offset(tmp_path: Path, copies: list[bytes]) -> None:
    data = result_bytes("V", copies, [("Motion [Heave]", 12, [0.0])], version="2.4.0")
    with pytest.raises(UnknownVersionError) as exc:
        _read(tmp_path, data)
    assert "'2.4.0'" in exc.value.message and exc.value.where == "bad.O2Res: byte 1"


def test_not_a_result(tmp_path: Path, copies: list[bytes]) -> None:
    with pytest.raises(TypeFlagError) as exc:
        _read(tmp_path, b"\x54" + _base(copies)[1:])
    assert "0x54" in exc.value.message and exc.value.where == "bad.O2Res: byte 0"


@pytest.mark.parametrize(
    ("cut", "where", "words"),
    [
        (-8, "byte 20008", "says it is"),  # the end of the data missing
        (15000, "byte 15000", "before its counts block"),
        (40, "byte", "truncated"),  # inside the header's strings
    ],
)
def test_truncation(tmp_path: Path, copies: list[bytes], cut: int, where: str, words: str) -> None:
    data = _base(copies)
    with pytest.raises(TruncatedFileError) as exc:
        _read(tmp_path, data[:cut])
    assert where in (exc.value.where or "") and words in exc.value.message


def _record(data: bytes, index: int) -> tuple[int, int]:
    """(start, end) of channel record `index` (names are short: one length byte)."""
    at = TABLE
    for _ in range(index):
        at += 1 + data[at] + 16
    return at, at + 1 + data[at] + 16


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("type", 15, "type code 15, expected 14"),
        ("offset", 12345, "data offset is 12345"),
        ("length", 120, ""),  # a name length that runs into the next record
    ],
)
def test_a_corrupted_channel_table(
    tmp_path: Path, copies: list[bytes], field: str, value: int, words: str
) -> None:
    data = _base(copies)
    start, end = _record(data, 1)
    if field == "type":
        data = _u32_at(data, end - 12, value)
        expected = f"byte {end - 12}"
    elif field == "offset":
        data = _u32_at(data, end - 8, value, 8)
        expected = f"byte {end - 8}"
    else:
        data = data[:start] + bytes([value]) + data[start + 1 :]
        expected = "byte "
    with pytest.raises(OptimumKFileError) as exc:
        _read(tmp_path, data)
    assert expected in (exc.value.where or "") and words in exc.value.message


@pytest.mark.parametrize(
    ("offset", "value", "words"),
    [
        (20000, 0, "no channel"),
        (20000, 1_000_000, "do not fit"),  # a channel count far beyond the file
        (20012, 10**8, "do not fit"),  # a data offset past the end
        (20004, -3, "no step"),
    ],
)
def test_bad_counts(
    tmp_path: Path, copies: list[bytes], offset: int, value: int, words: str
) -> None:
    with pytest.raises(OptimumKFileError) as exc:
        _read(tmp_path, _u32_at(_base(copies), offset, value))
    assert f"byte {offset}" in (exc.value.where or "") or words == "do not fit"
    assert words in exc.value.message


def test_force_counts_must_match_the_elements(tmp_path: Path, copies: list[bytes]) -> None:
    data = result_bytes(
        "F",
        copies,
        [("Motion [Heave]", 12, [0.0, 0.001])],
        force_elements=[("A", np.zeros((2, 9))), ("B", np.ones((2, 9)))],
    )
    _read(tmp_path, data)  # as written: fine
    with pytest.raises(OptimumKFileError) as exc:
        _read(tmp_path, _u32_at(data, FORCE_BLOCK, 3))
    assert "do not match" in exc.value.message and f"byte {FORCE_BLOCK}" in str(exc.value.where)
    short = _u32_at(data[:-4], 20008, len(data) - 4)  # the float32 block 4 bytes short
    with pytest.raises(OptimumKFileError) as exc:
        _read(tmp_path, short)
    assert "not force-element names followed by float32" in exc.value.message


def test_bad_files_exit_2_without_traceback(
    tmp_path: Path, copies: list[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    data = _base(copies)
    _, end = _record(data, 1)
    bad = tmp_path / "bad.O2Res"
    bad.write_bytes(_u32_at(data, end - 12, 99))
    code = main(["validate", str(CAR), str(bad), "--out", str(tmp_path / "r"), "--no-plots"])
    captured = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in captured.out + captured.err
    assert f"bad.O2Res: byte {end - 12}" in captured.err
    assert "type code 99" in captured.err
    bad.write_bytes(data[:-3])
    assert main(["validate", str(CAR), str(bad), "--out", str(tmp_path / "r")]) == 2
    captured = capsys.readouterr()
    assert "truncated" in captured.err and "Traceback" not in captured.out + captured.err


# -- units ---------------------------------------------------------------------------------------
def test_unit_codes_that_do_not_fit_or_are_unknown(tmp_path: Path, copies: list[bytes]) -> None:
    def export(chs: list) -> Export:
        return result_export(read_result(write_result(tmp_path / "u.O2Res", "U", copies, chs)))

    motion = ("Motion [Heave]", 12, [0.0])
    with pytest.raises(InputError) as exc:
        export([motion, ("Camber Angle [Left] [Front]", 12, [0.0])])  # a length code
    assert "Camber Angle" in exc.value.message and re.search(r"byte \d+", exc.value.where or "")
    e = export([motion, ("Camber Angle [Left] [Front]", 41, [0.0])])
    assert e.ignored == ("Camber Angle [Left] [Front] (unit code 41 not known: not read)",)
    with pytest.raises(InputError) as exc:
        export([("Motion [Heave]", 41, [0.0])])
    assert "unit code 41" in exc.value.message
    # no unit (18): a percentage stays %, a ratio stays plain; N/m (22) is not compared
    e = export(
        [
            motion,
            ("Anti-Dive Percentage [Left]", 18, [12.5]),
            ("Motion Ratio Heave [Left] [Front]", 18, [0.8]),
            ("Spring Stiffness [Left] [Front]", 22, [35000.0]),
        ]
    )
    cols = {c.header.name: c for c in e.columns}
    assert cols["Anti-Dive Percentage [Left]"].values[0] == 12.5
    assert cols["Motion Ratio Heave [Left] [Front]"].values[0] == 0.8
    assert "Spring Stiffness [Left] [Front] (N/m)" in e.ignored


# -- force results -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def force_result(copies: list[bytes], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """export_forces.xlsx as a force result: force names end in a blank (as OptimumK writes
    some), and one force element per contact patch (float32)."""
    chs = channels_from_export(FORCES)
    n = len(chs[0][2])
    elements = []
    for corner in CORNERS:
        v = np.zeros((n, 9))
        for k, comp in enumerate(("Fx", "Fy", "Fz", "Mx", "My", "Mz")):
            v[:, 3 + k] = next(c[2] for c in chs if c[0] == f"Contact Patch - {comp} [{corner}]")
        elements.append((f"Contact Patch [{corner}] ", v))
    chs = [(name + (" " if " - " in name else ""), u, v) for name, u, v in chs]
    path = tmp_path_factory.mktemp("forces") / "forces.O2Res"
    return write_result(path, "Reference - forces", copies, chs, force_elements=elements)


@pytest.fixture(scope="module")
def excel_forces(model: Model) -> Validation:
    return validate(model, read_export(FORCES), force_keyframes=KEYS)


def test_a_force_result_with_its_own_loads(
    model: Model, force_result: Path, excel_forces: Validation
) -> None:
    """No force case given: the result's own contact-patch loads are the case; they are
    then the input (listed, not compared) and every other force channel is compared as
    with the Excel export and the keyframes."""
    result = read_result(force_result)
    fz = result.channel("Contact Patch - Fz [Rear Left]")
    assert fz is not None
    element = next(e for e in result.force_elements if "Rear Left" in e.name)
    assert np.array_equal(element.force[:, 2], fz.values.astype(np.float32).astype(float))
    check = check_car(model, result, CAR)
    v = validate_result(model, result, result_export(result), check)
    assert v.passed and excel_forces.passed, v.summary()
    contact = {c.channel for c in excel_forces.compared if c.channel.startswith("Contact Patch")}
    assert len(contact) == 24
    _same_comparison(v, excel_forces, skip=contact)
    listed = {_key(t) for t, r in v.not_compared if r == FORCE_INPUT}
    assert len(listed) == 24 and "Contact Patch - Fz [Left] [Rear]" in listed
    assert max(c.max_abs for c in v.compared if c.unit == "N") < 0.01


def test_a_force_result_with_the_keyframes_or_its_O2For(
    model: Model, force_result: Path, excel_forces: Validation, tmp_path: Path
) -> None:
    """--force-keyframes or --force-case FILE.O2For (the same keyframes, OptimumK's file):
    every force channel compared as with the Excel export, the contact patches too."""
    result = read_result(force_result)
    check = CarCheck(force_result.name, CAR.name)
    export = result_export(result)
    keyed = validate_result(model, result, export, check, force_keyframes=str(KEYS))
    _same_comparison(keyed, excel_forces)
    o2for = tmp_path / "keys.O2For"
    o2for.write_bytes(force_case_bytes(KEYS))
    cased = validate_result(model, result, export, check, force_case=str(o2for))
    assert cased.passed, cased.summary()
    _same_comparison(cased, excel_forces)


def test_an_embedded_copy_of_another_version(tmp_path: Path) -> None:
    """The copies are read by the definition reader, which refuses a version it does not
    know (at the copy's version string)."""
    from _optimumk_binary import header_bytes, new_guid, setup_body

    setup = header_bytes("setup", "S", new_guid("s"), version="2.1.0") + setup_body(None, None)
    data = result_bytes("V", [setup], [("Motion [Heave]", 12, [0.0])])
    with pytest.raises(UnknownVersionError) as exc:
        _read(tmp_path, data)
    assert "'2.1.0'" in exc.value.message
    at = data.index(b"\x01\x61\x052.1.0") + 2  # after the presence byte and the flag
    assert exc.value.where == f"bad.O2Res: byte {at}"


def test_a_result_refuses_the_map_and_the_damper_drive(
    tmp_path: Path, copies: list[bytes], capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_result(tmp_path / "m.O2Res", "M", copies, [("Motion [Heave]", 12, [0.0])])
    out = str(tmp_path / "r")
    assert main(["validate", str(CAR), str(path), "--out", out, "--drive", "dampers"]) == 2
    err = capsys.readouterr().err
    assert "--drive" in err and "Motion channels" in err and "Traceback" not in err


def test_an_O2For_force_case_with_an_excel_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--force-case FILE.O2For holds OptimumK's own force-case file: the same keyframes as
    force_keys.csv, so the Excel force export passes as with --force-keyframes."""
    o2for = tmp_path / "keys.O2For"
    o2for.write_bytes(force_case_bytes(KEYS))
    out = tmp_path / "r"
    argv = ["validate", str(CAR), str(FORCES), "--out", str(out), "--no-plots"]
    assert main([*argv, "--force-case", str(o2for)]) == 0
    assert capsys.readouterr().out.startswith("PASS: 157 channels over 13 steps")


def test_random_corruption_reads_or_names_a_byte(tmp_path: Path, copies: list[bytes]) -> None:
    """Bytes changed anywhere (header and copies, counts, table and data) or the file cut
    short: either the file still reads (a changed number) or the error is an
    OptimumKFileError naming a byte; never another exception."""
    import random

    data = result_bytes(
        "F",
        copies,
        [("Motion [Heave]", 12, [0.0, 0.001]), ("Camber Angle [Left] [Front]", 3, [0.0, 0.0])],
        force_elements=[("A", np.zeros((2, 9)))],
    )
    rng = random.Random(22)
    regions = [(0, 7000), (20000, 20120), (TABLE, len(data))]
    p = tmp_path / "fuzz.O2Res"
    errors = 0
    for i in range(300):
        a, b = regions[i % 3]
        d = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            d[rng.randrange(a, b)] = rng.randrange(256)
        if rng.random() < 0.2:
            d = d[: rng.randrange(len(d))]
        p.write_bytes(bytes(d))
        try:
            read_result(p)
        except OptimumKFileError as exc:
            errors += 1
            assert re.search(r"fuzz\.O2Res: byte \d+", exc.where or ""), exc.render()
    assert 50 < errors < 300  # some changes are plain numbers; many are caught


def test_a_channel_given_twice(tmp_path: Path, copies: list[bytes]) -> None:
    """The same channel twice: with the same values the second is listed, with other values
    an error naming the second record (as for a column repeated in an export)."""
    motion = ("Motion [Heave]", 12, [0.0, 0.001])
    camber = ("Camber Angle [Left] [Front]", 3, [0.01, 0.02])

    def export(chs: list[Channel]) -> Export:
        return result_export(read_result(write_result(tmp_path / "d.O2Res", "D", copies, chs)))

    e = export([motion, camber, camber])
    assert len(e.columns) == 2 and "the same values as" in e.ignored[0]
    with pytest.raises(InputError) as exc:
        export([motion, camber, ("Camber Angle [Left] [Front]", 3, [0.01, 0.03])])
    assert "same channel" in exc.value.message
    first = read_result(tmp_path / "d.O2Res").channels[2].record
    assert f"byte {first}" in (exc.value.where or "")


def test_an_anti_roll_bar_in_the_copies_is_named_not_fatal(model: Model, tmp_path: Path) -> None:
    """The importer does not read OptimumK's bars (no kinematic constraint): the check
    leaves the bar out, names it, and still compares every point."""
    from _optimumk_binary import element

    copies = reference_copies(front_extra=[element("2.0", "U-Bar")])
    path = write_result(tmp_path / "b.O2Res", "B", copies, [("Motion [Heave]", 12, [0.0])])
    check = check_car(model, read_result(path), CAR)
    assert not check.differs and check.compared == 64
    assert any("'U-Bar'" in n and n.startswith("not checked") for n in check.notes)
    assert any("U-Bar" in line for line in check.lines())


def test_an_infinite_value_of_theirs_is_said_not_passed_over(
    model: Model, copies: list[bytes], channels: list, tmp_path: Path
) -> None:
    """A result file has no checksum: a camber that reads +inf at one step (a damaged
    number, or an infinite quantity) is not compared there, and the run says so, on the
    channel and among the warnings, instead of passing over it unseen."""
    small = _small(channels)
    edited = [
        (n, u, [v if i != 3 or not n.startswith("Camber") else math.inf for i, v in enumerate(vs)])
        for n, u, vs in small
    ]
    path = write_result(tmp_path / "inf.O2Res", "Inf", copies, edited)
    result = read_result(path)
    v = validate_result(model, result, result_export(result), check_car(model, result, CAR))
    camber = next(c for c in v.compared if c.column.header.text.startswith("Camber"))
    assert any("OptimumK gives +inf where ours is" in n and "step 3" in n for n in camber.notes)
    assert any("infinite value where ours is finite in 1 channel(s)" in w for w in v.warnings)


def _mirrored_copies() -> list[bytes]:
    """The reference car's copies as a project whose lateral axis points right: every
    point's Y negated (the right side's copy at +Y, the left's at -Y)."""
    from _optimumk_result_file import reference_module

    ref = reference_module()
    front, rear = ref.FRONT, ref.REAR
    try:
        ref.FRONT = {n: (x, -y, z) for n, (x, y, z) in front.items()}
        ref.REAR = {n: (x, -y, z) for n, (x, y, z) in rear.items()}
        return reference_copies()
    finally:
        ref.FRONT, ref.REAR = front, rear


def test_a_result_of_a_car_imported_with_axes_is_checked_with_the_same_axes(
    model: Model, channels: list[Channel], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A car whose files have lateral + to the right is imported with --axes '+X -Y +Z';
    validate reads its result's embedded copies with the same option and finds the
    workbook's car (every point within 1e-3 mm); without it the copies stop the run with
    the importer's message, whose hint (--axes) is an option validate has."""
    path = write_result(tmp_path / "m.O2Res", "Mirrored", _mirrored_copies(), _small(channels))
    result = read_result(path)
    same = check_car(model, result, CAR, axes="+X -Y +Z")
    assert not same.differs and same.compared > 40 and same.largest < 1e-9

    code = main(["validate", str(CAR), str(path), "--out", str(tmp_path / "r"), "--no-plots"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "m.O2Res: byte" in err and "not on the left (+Y)" in err and "--axes" in err
    args = ["validate", str(CAR), str(path), "--out", str(tmp_path / "r2"), "--no-plots"]
    code = main([*args, "--axes", "+X -Y +Z"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0].startswith("car: the result's own car")

    code = main(
        ["validate", str(CAR), str(EXPORT), "--out", str(tmp_path / "r3"), "--axes", "+X -Y +Z"]
    )
    err = capsys.readouterr().err
    assert code == 2 and "--axes" in err and ".O2Res" in err
