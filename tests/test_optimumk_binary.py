"""OptimumK's binary definition files (.O2Sus, .O2Set; docs/optimumk_files.md) import to the
same car as the Excel exports of the same values.

The binary files are written by tests/_optimumk_binary.py from the documented layout, with
the car values the Excel test files take (tests/test_optimumk_import.py, `file_points` and
the wheels of a real export); the Excel files by tests/_optimumk_files.py. The truth of
each comparison is the other path, built from the same numbers in other units (mm and deg
in the sheets, m and rad in the binary files).
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest
from _optimumk_binary import (
    element,
    new_guid,
    setup_bytes,
    string_bytes,
    suspension_bytes,
    with_sha1,
)
from _optimumk_files import write_setup_export, write_suspension_export
from test_optimumk_import import (
    REAL_FRONT_WHEEL,
    REAL_REAR_WHEEL,
    REFERENCE_DISTANCE,
    file_points,
    run_cli,
)

from suspension_sim.description import Car
from suspension_sim.workbook import read_car
from suspension_sim.workbook.optimumk import read_optimumk as read_excel
from suspension_sim.workbook.optimumk_files.car import read_optimumk_files
from suspension_sim.workbook.optimumk_files.definitions import SuspensionDef, read_definition

FRONT_GUID = new_guid("front suspension")
REAR_GUID = new_guid("rear suspension")
SPRINGS_F = {"L": 21.2, "R": 21.2}
SPRINGS_R = {"L": 30.0, "R": 31.0}
SETUP_VALUES: dict[str, Any] = {
    "reference_distance": REFERENCE_DISTANCE,
    "cg_height": 280.9,
    "front_mass_pct": 47.0,
    "left_mass_pct": 50.0,
    "brake_bias_pct": 65.0,
    "drive_bias_pct": 0.0,
}


def wheels(axle: str) -> dict[str, dict[str, float]]:
    spec = REAL_FRONT_WHEEL if axle == "front" else REAL_REAR_WHEEL
    return {"L": dict(spec), "R": dict(spec)}


def front_bytes(**options: Any) -> bytes:
    options = {"guid": FRONT_GUID, "springs": SPRINGS_F, **options}
    return suspension_bytes("front", file_points("front"), wheels("front"), **options)


def rear_bytes(**options: Any) -> bytes:
    return suspension_bytes(
        "rear", file_points("rear"), wheels("rear"), guid=REAR_GUID, springs=SPRINGS_R, **options
    )


def project(tmp_path: Path) -> dict[str, Path]:
    """An OptimumK project tree: the setup two folders below the vehicle folder that holds
    Suspension/ and Setup/ (as a real project nests its setups)."""
    car = tmp_path / "Project" / "Test car"
    (car / "Suspension" / "Front").mkdir(parents=True)
    (car / "Setup" / "Both").mkdir(parents=True)
    paths = {
        "front": car / "Suspension" / "Front" / "Front end.O2Sus",
        "rear": car / "Suspension" / "Rear end.O2Sus",
        "setup": car / "Setup" / "Both" / "Test car.O2Set",
    }
    paths["front"].write_bytes(front_bytes())
    paths["rear"].write_bytes(rear_bytes())
    paths["setup"].write_bytes(setup_bytes(FRONT_GUID, REAR_GUID, **SETUP_VALUES))
    return paths


def excel_files(tmp_path: Path) -> dict[str, Path]:
    """The same car as Excel exports (no Reference Point: the binary layout has none)."""
    return {
        "front": write_suspension_export(
            tmp_path / "Front.xlsx",
            "front",
            file_points("front"),
            wheels("front"),
            springs=SPRINGS_F,
        ),
        "rear": write_suspension_export(
            tmp_path / "Rear.xlsx", "rear", file_points("rear"), wheels("rear"), springs=SPRINGS_R
        ),
        "setup": write_setup_export(tmp_path / "Setup.xlsx", **SETUP_VALUES),
    }


def assert_same(a: Any, b: Any, path: str = "car") -> None:
    """Equal field by field (the fields that take part in equality), floats to 1e-9."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            if f.compare:
                assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert a is not None and b is not None, path
        assert float(a) == pytest.approx(float(b), abs=1e-9, rel=0), path
    else:
        assert a == b, path


def import_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], excel: list[str], binary: list[str]
) -> tuple[Car, Car]:
    outs = []
    for argv, out in ((excel, tmp_path / "excel.xlsx"), (binary, tmp_path / "binary.xlsx")):
        code, _, err = run_cli(["import-optimumk", *argv, "--out", str(out)], capsys)
        assert code == 0, err
        assert "Traceback" not in err
        outs.append(read_car(out))
    return outs[0], outs[1]


# -- the same car ---------------------------------------------------------------------------------
def test_a_setup_finds_its_suspensions_and_gives_the_excel_car(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bin_ = project(tmp_path)
    xl = excel_files(tmp_path)
    excel_car, binary_car = import_both(
        tmp_path,
        capsys,
        [str(xl["front"]), "--rear", str(xl["rear"]), "--vehicle", str(xl["setup"])],
        [str(bin_["setup"])],
    )
    assert_same(excel_car, binary_car)
    assert binary_car.name == "Test car"
    # Not trivially equal: both hold the file's own numbers (rear moved back by 1530 mm).
    rear_fore = file_points("rear")["CHAS_LowFor"]["R"]
    got = binary_car.point("RR_CHAS_LowFor").tolist()
    assert got == pytest.approx([rear_fore[0] - 1530.0, *rear_fore[1:]], abs=1e-9)
    assert {d.body: d.spring_rate for d in binary_car.dampers}["RR_Coilover"] == pytest.approx(31.0)
    o = binary_car.options
    assert (o.cg_height_mm, o.front_brake_share, o.rear_drive_share, o.front_mass_share) == (
        pytest.approx(280.9),
        pytest.approx(0.65),
        pytest.approx(1.0),
        pytest.approx(0.47),
    )
    # The same from Python, the suspensions given explicitly.
    direct = read_optimumk_files(bin_["front"], rear=bin_["rear"], setup=bin_["setup"])
    assert_same(direct, binary_car)


def test_a_lone_suspension_gives_the_excel_car(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bin_ = project(tmp_path)
    xl = excel_files(tmp_path)
    excel_car, binary_car = import_both(tmp_path, capsys, [str(xl["front"])], [str(bin_["front"])])
    assert_same(excel_car, binary_car)
    assert binary_car.rack is not None and binary_car.rack.ratio_mm_per_deg == pytest.approx(
        90.0 / 360.0
    )


def test_a_lone_rear_suspension_with_its_setup_takes_its_axle_from_the_guid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file whose names say no axle: the setup's rear GUID says it."""
    rear = tmp_path / "Back.O2Sus"
    rear.write_bytes(
        suspension_bytes(
            "rear",
            file_points("rear"),
            wheels("rear"),
            guid=REAR_GUID,
            name="Back",
            springs=SPRINGS_R,
        )
    )
    setup = tmp_path / "Setup.O2Set"
    setup.write_bytes(setup_bytes(None, REAR_GUID, **SETUP_VALUES))
    xl = excel_files(tmp_path)
    excel_car, binary_car = import_both(
        tmp_path,
        capsys,
        [str(xl["rear"]), "--vehicle", str(xl["setup"])],
        [str(rear), "--setup", str(setup)],
    )
    assert_same(excel_car, binary_car)
    assert {w.name for w in binary_car.wheels} == {"RL", "RR"}
    code, _, err = run_cli(
        ["import-optimumk", str(rear), "--out", str(tmp_path / "x.xlsx")], capsys
    )
    assert code == 2 and "Back.O2Sus" in err and "--axle" in err and "Traceback" not in err


def test_points_come_from_the_elements_and_name_their_byte(tmp_path: Path) -> None:
    """The leading point list (written 42 mm higher) is not used; each point's source is
    the file and the byte offset of its record in the Double A-Arm element."""
    data = front_bytes()
    path = tmp_path / "Front.O2Sus"
    path.write_bytes(data)
    sus = read_definition(path)
    assert isinstance(sus, SuspensionDef)
    lead = {p.name: p.xyz for p in sus.leading_points}
    assert len(lead) == 28
    assert lead["CHAS_LowFor_L"][2] == pytest.approx(sus.points["Double A-Arm"][0].xyz[2] + 0.042)
    car = read_optimumk_files(path, axle="front")
    p = next(q for q in car.points if q.name == "FL_CHAS_LowFor")
    truth = file_points("front")["CHAS_LowFor"]["L"]
    assert p.xyz == pytest.approx(truth, abs=1e-9)
    element_at = data.index(string_bytes("Double A-Arm"))
    record = data.index(b"\x01" + string_bytes("CHAS_LowFor_L"), element_at)
    assert str(p.source) == f"Front.O2Sus: byte {record} (Double A-Arm, CHAS_LowFor_L)"
    assert [m.type for m in sus.elements_met] == [
        "Double A-Arm",
        "Push Pull",
        "Wheels",
        "Rack Pinion",
        "Spring",
    ]


def test_elements_are_found_past_undecoded_bytes_and_types_not_read_are_said(
    tmp_path: Path,
) -> None:
    path = tmp_path / "Front.O2Sus"
    gap = b"\x00\x07\x03" + b"\x80" * 5
    path.write_bytes(front_bytes(gap=gap, extra_elements=[element("2.0", "Reference Point")]))
    car = read_optimumk_files(path, axle="front")
    plain = read_optimumk_files(_write(tmp_path / "Plain.O2Sus", front_bytes()), axle="front")
    assert_same(car, plain)
    said = [w for w in car.warnings if "'Reference Point' met, not read" in w]
    assert len(said) == 1 and said[0].startswith("Front.O2Sus: byte ")


def test_an_anti_roll_bar_is_refused_or_left_out_on_request(tmp_path: Path) -> None:
    path = _write(tmp_path / "Front.O2Sus", front_bytes(extra_elements=[element("2.0", "U-Bar")]))
    offset = path.read_bytes().index(string_bytes("2.0") + string_bytes("U-Bar"))
    with pytest.raises(Exception) as exc:
        read_optimumk_files(path, axle="front")
    assert f"Front.O2Sus: byte {offset}" in str(exc.value) and "U-Bar" in str(exc.value)
    car = read_optimumk_files(path, axle="front", skip_anti_roll_bars=True)
    assert any("'U-Bar' met, not read" in w for w in car.warnings)


def test_a_setup_whose_suspension_is_not_in_its_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = project(tmp_path)
    paths["rear"].unlink()
    code, _, err = run_cli(
        ["import-optimumk", str(paths["setup"]), "--out", str(tmp_path / "car.xlsx")], capsys
    )
    assert code == 2 and "Traceback" not in err
    assert REAR_GUID in err and "Test car.O2Set" in err
    assert str(tmp_path / "Project" / "Test car") in err  # where it looked: the project root


def test_a_rear_given_with_a_setup_that_names_another_rear_is_warned(tmp_path: Path) -> None:
    """A setup with `--rear` of a suspension that is not the setup's rear: the numbers
    are used as asked, and a warning says which GUIDs differ."""
    paths = project(tmp_path)
    other = tmp_path / "Other rear.O2Sus"
    other.write_bytes(
        suspension_bytes(
            "rear",
            file_points("rear"),
            wheels("rear"),
            guid=new_guid("another rear"),
            springs=SPRINGS_R,
        )
    )
    car = read_optimumk_files(paths["setup"], rear=other)
    said = [w for w in car.warnings if "the setup's rear suspension is" in w]
    assert len(said) == 1
    assert REAR_GUID in said[0] and new_guid("another rear") in said[0]
    assert "Other rear.O2Sus" in said[0]
    # its own rear given by hand: nothing to say
    own = read_optimumk_files(paths["setup"], rear=paths["rear"])
    assert not [w for w in own.warnings if "the setup's rear suspension is" in w]


def test_mixing_excel_and_binary_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = project(tmp_path)
    xl = excel_files(tmp_path)
    argv = [str(xl["front"]), "--rear", str(paths["rear"]), "--vehicle", str(xl["setup"])]
    code, _, err = run_cli(["import-optimumk", *argv, "--out", str(tmp_path / "c.xlsx")], capsys)
    assert code == 2 and "cannot be mixed" in err and "Traceback" not in err
    with pytest.raises(Exception, match="is an OptimumK project file") as exc:
        read_excel(xl["front"], rear=paths["rear"], vehicle=xl["setup"])
    assert "read_optimumk_files" in str(exc.value)


# -- bad files ------------------------------------------------------------------------------------
def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1 :]


def _bad_files() -> dict[str, tuple[str, bytes, str, int]]:
    """name -> (file name, bytes, message part, byte offset the error names)."""
    good = front_bytes()
    n = len(good)
    half_track = good.index(string_bytes("Wheels")) + 7 + 3 * 8  # left Half Track
    unknown = front_bytes(extra_elements=[element("2.0", "Mystery Link")])
    mystery = unknown.index(string_bytes("2.0") + string_bytes("Mystery Link"))
    wheels_at = good.index(string_bytes("Wheels")) + 7
    right = good.index(b"\x01\x08Forces_R") - 76  # the right side's nine doubles
    wheels_end = good.index(b"\x01\x09Moments_R") + 1 + 10 + 3 * 8 + 2
    garbage_right = (
        element("4.0", "Wheels")
        + good[wheels_at:right]
        + b"\x7f" * 72
        + good[right + 72 : wheels_end]
    )
    wheel_bad = front_bytes(wheels_element=garbage_right)
    right_at = wheel_bad.index(b"\x7f" * 72)
    setup = setup_bytes(FRONT_GUID, REAR_GUID)
    name_at = good.index(string_bytes("Test car - Front"))
    not_utf8 = with_sha1(good[: name_at + 1] + b"\xff" + good[name_at + 2 : -20])
    return {
        "corrupted byte": (
            "Front.O2Sus",
            _flip(good, half_track + 3),
            "damaged file: the SHA-1 in its last 20 bytes does not match the bytes before them,"
            " which read as a whole file: a value was changed",
            n - 20,
        ),
        "corrupted structure": (
            "Front.O2Sus",
            good[:2] + b"9" + good[3:],  # the version's first digit
            "damaged file: the SHA-1 in its last 20 bytes does not match the bytes before them,"
            " and they cannot be read here: format version '9.0.2'",
            1,
        ),
        "wrong checksum": (
            "Front.O2Sus",
            good[:-20] + bytes(20),
            "which read as a whole file: a value was changed after OptimumK saved it (nothing"
            " of it is used), or the checksum itself is damaged",
            n - 20,
        ),
        "another version": (
            "Front.O2Sus",
            front_bytes(version="2.1.0"),
            "format version '2.1.0' of this suspension is not one the reader knows",
            1,
        ),
        "unknown type flag": ("Front.O2Sus", front_bytes(flag=0x99), "unknown type flag 0x99", 0),
        "flag of another kind": (
            "Front.O2Sus",
            setup,
            "type flag 0x61 says a vehicle setup; a suspension was expected",
            0,
        ),
        "unknown element type": (
            "Front.O2Sus",
            unknown,
            "element type 'Mystery Link' (version 2.0) is not understood",
            mystery,
        ),
        "a name not in UTF-8": ("Front.O2Sus", not_utf8, "expected the name in UTF-8", name_at),
        "implausible right wheel": (
            "Front.O2Sus",
            wheel_bad,
            "the right wheel's values read here are not plausible",
            right_at,
        ),
    }


@pytest.mark.parametrize("case", list(_bad_files()))
def test_each_bad_file_has_its_own_error(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, data, message, offset = _bad_files()[case]
    path = _write(tmp_path / name, data)
    with pytest.raises(Exception) as exc:
        read_optimumk_files(path, axle="front")
    err = exc.value
    assert message in str(err)
    assert getattr(err, "where", None) == f"{name}: byte {offset}"
    code, _, text = run_cli(
        ["import-optimumk", str(path), "--out", str(tmp_path / "c.xlsx")], capsys
    )
    assert code == 2 and "Traceback" not in text and f"{name}: byte {offset}" in text


@pytest.mark.parametrize("cut", [0, 10, 60, 700, 2000, -60, -25, -3])
def test_a_truncated_file_says_so_and_where(
    cut: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = front_bytes()
    data = good[:cut]
    path = _write(tmp_path / "Front.O2Sus", data)
    with pytest.raises(Exception) as exc:
        read_optimumk_files(path, axle="front")
    err = exc.value
    assert "truncated" in str(err), str(err)
    where = getattr(err, "where", "")
    assert where.startswith("Front.O2Sus: byte ")
    offset = int(where.rsplit(" ", 1)[1])
    # The value that no longer fits starts at most a few bytes before the cut data's end.
    end = max(len(data) - 20, 0)
    assert offset <= end and (end - offset < 64 or len(data) < 20 + 64)
    code, _, text = run_cli(
        ["import-optimumk", str(path), "--out", str(tmp_path / "c.xlsx")], capsys
    )
    assert code == 2 and "Traceback" not in text and "truncated" in text


def test_a_truncated_header_and_a_missing_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "Front.O2Sus", with_sha1(b"\x54\x05"))
    with pytest.raises(Exception, match="truncated") as exc:
        read_optimumk_files(path, axle="front")
    assert getattr(exc.value, "where", "") == "Front.O2Sus: byte 2"
    with pytest.raises(Exception, match="not found"):
        read_optimumk_files(tmp_path / "Nope.O2Sus", axle="front")


# -- motions, force cases, simulations, optimumk-info ----------------------------------------------
def test_motion_and_force_case_read_back_what_was_written(tmp_path: Path) -> None:
    from _optimumk_binary import force_bytes, motion_bytes

    from suspension_sim.workbook.optimumk_files.definitions import ForceCaseDef, MotionDef

    heave = ((0.0, -0.0254), (50.0, 0.01), (100.0, 0.0254))
    steer = ((0.0, -math.radians(120)), (100.0, math.radians(120)))
    m = read_definition(_write(tmp_path / "Heave.O2Mot", motion_bytes(heave=heave, steering=steer)))
    assert isinstance(m, MotionDef)
    assert m.steps == 21 and m.dofs["heave"].keys == heave and m.dofs["steering"].keys == steer
    assert m.header.version == "2.0.1" and m.header.name == "Heave"
    fz = ((0.0, 0.0), (100.0, 1500.0))
    f = read_definition(
        _write(
            tmp_path / "Brake.O2For",
            force_bytes(keys={("RL", "Fz"): fz}, application="Contact Patch"),
        )
    )
    assert isinstance(f, ForceCaseDef)
    assert f.keys[("RL", "Fz")].keys == fz and f.keys[("FL", "Fz")].keys == (
        (0.0, 0.0),
        (100.0, 0.0),
    )
    assert f.application == "Contact Patch" and f.steps == 21


def test_header_dates_users_and_a_long_comment(tmp_path: Path) -> None:
    """A comment over 127 bytes takes a two-byte 7-bit length; dates are .NET ticks."""
    from _optimumk_binary import WHEN, header_bytes, setup_body

    comment = "ü" * 150  # 300 UTF-8 bytes
    data = with_sha1(
        header_bytes("setup", "Long", new_guid("long"), comment=comment, user="Zoë")
        + setup_body(FRONT_GUID, None)
    )
    d = read_definition(_write(tmp_path / "Long.O2Set", data))
    assert d.header.comment == comment and d.header.created_by == "Zoë"
    assert d.header.created == WHEN and d.header.modified == WHEN
    assert d.header.guid == new_guid("long")


def info(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code, out, err = run_cli(["optimumk-info", str(path)], capsys)
    assert "Traceback" not in err
    return code, out + err


def test_optimumk_info_lists_a_project_and_its_damaged_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from _optimumk_binary import force_bytes, motion_bytes, simulation_bytes

    paths = project(tmp_path)
    car = paths["front"].parents[2]
    (car / "Motion").mkdir()
    (car / "Forces").mkdir()
    (car / "Simulation").mkdir()
    heave = ((0.0, -0.0254), (100.0, 0.0254))
    _write(car / "Motion" / "Heave.O2Mot", motion_bytes("Heave", heave=heave))
    roll = motion_bytes("Roll", roll=((0.0, -0.02), (100.0, 0.02)))
    _write(car / "Motion" / "Roll.O2Mot", _flip(roll, len(roll) - 40))
    _write(
        car / "Forces" / "Brake.O2For",
        force_bytes("Brake", keys={("FL", "Fx"): ((0.0, 0.0), (100.0, -900.0))}),
    )
    setup_guid = read_definition(paths["setup"]).header.guid
    motion_guid = new_guid("motion Heave")
    _write(
        car / "Simulation" / "Heave run.O2Sim",
        simulation_bytes("Heave run", new_guid("vehicle"), setup_guid, motion_guid),
    )
    code, out = info(tmp_path / "Project", capsys)
    assert code == 2  # one file could not be read: listed, and said by the exit code
    blocks = {b.split(":", 1)[0]: b for b in out.split("\n\n")}
    setup = blocks[str(Path("Test car/Setup/Both/Test car.O2Set"))]
    assert "vehicle setup 'Test car', version 2.0.2" in setup
    assert (
        "front suspension: Test car - Front (suspension, Test car/Suspension/Front/Front end.O2Sus)"
        in setup
    )
    assert (
        "rear suspension: Test car - Rear (suspension, Test car/Suspension/Rear end.O2Sus)" in setup
    )
    assert "created 2024-03-01 12:30:15 UTC by tests" in setup
    assert "reference distance 1530 mm" in setup
    motion = blocks[str(Path("Test car/Motion/Heave.O2Mot"))]
    assert "21 steps" in motion and "heave: -25.4 .. 25.4 mm" in motion
    bad = blocks[str(Path("Test car/Motion/Roll.O2Mot"))]
    assert (
        "NOT READ" in bad and "damaged file" in bad and f"Roll.O2Mot: byte {len(roll) - 20}" in bad
    )
    force = blocks[str(Path("Test car/Forces/Brake.O2For"))]
    assert "applied at: Contact Patch" in force and "1 of 24" in force
    sim = blocks[str(Path("Test car/Simulation/Heave run.O2Sim"))]
    assert "version 2.0.3" in sim and "type: Single Iteration" in sim
    assert "setup: Test car (vehicle setup, Test car/Setup/Both/Test car.O2Set)" in sim
    assert "motion: Heave (motion, Test car/Motion/Heave.O2Mot)" in sim
    assert out.rstrip().endswith("7 files, 1 not read")

    # One file, or a subfolder: references resolved in the project folder above.
    code, out = info(paths["setup"], capsys)
    assert code == 0 and "front suspension: Test car - Front (suspension," in out
    (car / "Result").mkdir()
    from _optimumk_result_file import reference_copies, write_result

    heave = [-0.0254 + 0.00254 * i for i in range(21)]
    write_result(
        car / "Result" / "Run.O2Res",
        "Run",
        reference_copies(),
        [("Motion [Heave]", 12, heave), ("Camber Angle [Left] [Front]", 3, [0.0] * 21)],
    )
    code, out = info(car / "Setup", capsys)
    assert code == 0
    assert "rear suspension: Test car - Rear (suspension, Suspension/Rear end.O2Sus)" in out
    code, out = info(car / "Result", capsys)
    assert code == 0 and "Run.O2Res: result 'Run', version 2.3.0" in out
    # What the result was computed on (its embedded copies) and what it holds.
    assert "computed on: setup 'Reference setup'" in out
    assert "front suspension: 'Reference Front'" in out
    assert "rear suspension: 'Reference Rear'" in out
    assert "kinematic result: 21 steps, 2 channels" in out and "heave: -25.4 .. 25.4 mm" in out
    (car / "Result" / "Cut.O2Res").write_bytes((car / "Result" / "Run.O2Res").read_bytes()[:-40])
    code, out = info(car / "Result" / "Cut.O2Res", capsys)
    assert code == 2 and "NOT READ" in out


def test_undecoded_names_between_elements_are_said(tmp_path: Path) -> None:
    """Names in bytes between elements (a real rear suspension has 'Reference Point' and
    'Chassis' there) are said in a warning naming the byte range; the car is unchanged."""
    blob = (
        b"\x01\x00\x00\x00\x01"
        + string_bytes("Reference Point")
        + bytes(9)
        + string_bytes("Chassis")
    )
    data = front_bytes(extra_elements=[blob])
    path = _write(tmp_path / "Front.O2Sus", data)
    car = read_optimumk_files(path, axle="front")
    assert_same(
        car, read_optimumk_files(_write(tmp_path / "Plain.O2Sus", front_bytes()), axle="front")
    )
    # The undecoded run: the byte after the Wheels, the blob, the two bytes before the rack.
    start = data.index(blob) - 1
    said = [w for w in car.warnings if "not decoded" in w]
    assert said == [
        f"Front.O2Sus: bytes {start}..{start + len(blob) + 2}: not decoded; they hold the names"
        " 'Reference Point', 'Chassis' (nothing of the kinematics is read there)"
    ]


def test_optimumk_info_says_when_a_guid_is_in_two_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files with one GUID: the setup's reference and each file's block say so, and
    whether they are copies or differ (which import-optimumk refuses)."""
    paths = project(tmp_path)
    copy = paths["rear"].with_name("Rear copy.O2Sus")
    copy.write_bytes(paths["rear"].read_bytes())
    code, out = info(tmp_path / "Project", capsys)
    assert code == 0
    blocks = {b.split(":", 1)[0]: b for b in out.split("\n\n")}
    setup = blocks[str(Path("Test car/Setup/Both/Test car.O2Set"))]
    assert f"GUID {REAR_GUID} is in 2 files" in setup and "identical copies" in setup
    assert "identical copies" in blocks[str(Path("Test car/Suspension/Rear copy.O2Sus"))]
    assert "is in 2 files" not in blocks[str(Path("Test car/Suspension/Front/Front end.O2Sus"))]
    copy.write_bytes(
        suspension_bytes(
            "rear",
            file_points("rear"),
            wheels("rear"),
            guid=REAR_GUID,
            springs={"L": 99.0, "R": 9.0},
        )
    )
    code, out = info(tmp_path / "Project", capsys)
    assert "they differ, import-optimumk refuses it" in out


def test_a_flat_folder_and_a_guid_in_two_different_files(tmp_path: Path) -> None:
    """Without Suspension/ and Setup/ folders the setup's own folder is searched, and only
    it (not its subfolders: a file outside any project never starts a walk of, say, a home
    folder); a GUID in two files that differ is refused, naming both."""
    _write(tmp_path / "F.O2Sus", front_bytes())
    _write(tmp_path / "R.O2Sus", rear_bytes())
    setup = _write(tmp_path / "Car.O2Set", setup_bytes(FRONT_GUID, REAR_GUID, **SETUP_VALUES))
    car = read_optimumk_files(setup)
    assert {w.name for w in car.wheels} == {"FL", "FR", "RL", "RR"}
    (tmp_path / "old").mkdir()
    _write(tmp_path / "old" / "F old.O2Sus", front_bytes(springs={"L": 1.0, "R": 1.0}))
    assert read_optimumk_files(setup).wheels == car.wheels  # the subfolder is not searched
    _write(tmp_path / "F copy.O2Sus", front_bytes(springs={"L": 1.0, "R": 1.0}))
    with pytest.raises(Exception, match="several different files") as exc:
        read_optimumk_files(setup)
    assert "F.O2Sus" in str(exc.value) and "F copy.O2Sus" in str(exc.value)


def test_embedded_copies_end_after_their_spring_list() -> None:
    """As in a result file: front and rear copies (header and body, no SHA-1) back to
    back, each after a presence byte, then stray bytes and zeros: each copy ends just
    after the byte that follows its spring list."""
    from _optimumk_binary import header_bytes, suspension_body

    from suspension_sim.workbook.optimumk_files.definitions import (
        parse_suspension_body,
        read_header,
    )
    from suspension_sim.workbook.optimumk_files.stream import ByteReader

    copies = [
        header_bytes("suspension", f"Copy {axle}", new_guid(axle))
        + suspension_body(axle, file_points(axle), wheels(axle), springs=springs)
        for axle, springs in (("front", SPRINGS_F), ("rear", SPRINGS_R))
    ]
    stray = bytes.fromhex("00000000b4d44000000000") + string_bytes("2.0")
    data = b"\x01" + copies[0] + b"\x01" + copies[1] + stray + bytes(500)
    r = ByteReader(data, "result.O2Res", 1)
    ends = []
    for axle in ("front", "rear"):
        sus = parse_suspension_body(r, read_header(r, "suspension"))
        assert sus.header.name == f"Copy {axle}" and sus.end == r.pos
        ends.append(r.pos)
        r.pos += 1  # the next copy's presence byte
    assert ends == [1 + len(copies[0]), 2 + len(copies[0]) + len(copies[1])]


def test_check_sha1_and_a_missing_info_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from suspension_sim.workbook.optimumk_files.stream import DamagedFileError, check_sha1

    good = front_bytes()
    check_sha1(good, "F.O2Sus")
    with pytest.raises(DamagedFileError) as exc:
        check_sha1(_flip(good, 100), "F.O2Sus")
    assert exc.value.where == f"F.O2Sus: byte {len(good) - 20}"
    code, text = info(tmp_path / "nothing here", capsys)
    assert code == 2 and "not found" in text


@pytest.mark.parametrize(
    ("suffix", "what"), [(".O2Mot", "a motion"), (".O2Res", "a result"), (".O2For", "a force case")]
)
def test_import_refuses_a_file_that_is_not_a_car(
    suffix: str, what: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A motion, force case or result given to import-optimumk is named for what it is
    (exit 2, before any byte of it is read), not taken for a broken Excel export."""
    path = _write(tmp_path / f"Thing{suffix}", b"anything")
    code, _, err = run_cli(
        ["import-optimumk", str(path), "--out", str(tmp_path / "c.xlsx")], capsys
    )
    assert code == 2 and "Traceback" not in err
    assert f"Thing{suffix} is {what}, not a car" in err
