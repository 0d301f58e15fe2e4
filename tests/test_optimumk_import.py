"""`suspension-sim import-optimumk`: OptimumK suspension/vehicle exports -> our workbook.

The OptimumK files are built here with openpyxl in the layout of docs/optimumk.md
(title block, User Options, Double A-Arm / Push Pull point blocks with Left and
Right X/Y/Z, Wheels, Attachment, Rack Pinion; a vehicle setup with the
Reference Distance). The geometry is our own example car (fsae_car, left side),
written in OptimumK's names, so the truths are the file's own numbers: the
points (moved by the Reference Distance at the rear), and the static camber, toe
and half track as OptimumK defines them (docs/conventions.md, preset optimumk).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openpyxl
import pytest

import suspension_sim
from suspension_sim import cli
from suspension_sim.metrics.core import pose_metrics
from suspension_sim.workbook import read_car
from suspension_sim.workbook.examples import load_source

FSAE = load_source("fsae_car").point_map()

FRONT_NAMES = {
    "CHAS_LowFor": "FL_LCA_F",
    "CHAS_LowAft": "FL_LCA_R",
    "CHAS_UppFor": "FL_UCA_F",
    "CHAS_UppAft": "FL_UCA_R",
    "UPRI_LowPnt": "FL_LBJ",
    "UPRI_UppPnt": "FL_UBJ",
    "CHAS_TiePnt": "FL_TIE_I",
    "UPRI_TiePnt": "FL_TIE_O",
}
FRONT_PP = {
    "NSMA_PPAttPnt_L": "FL_PR_O",
    "CHAS_AttPnt_L": "FL_DMP_C",
    "CHAS_RocAxi_L": "FL_RKR_P1",
    "CHAS_RocPiv_L": "FL_RKR_P2",
    "ROCK_RodPnt_L": "FL_PR_I",
    "ROCK_CoiPnt_L": "FL_DMP_R",
}
REFERENCE_DISTANCE = 1530.0  # the rear file's origin is at the rear axle

FRONT_WHEEL = {
    "Half Track": 600.0,
    "Static Camber": -1.0,
    "Static Toe": 0.1,
    "Tire Diameter": 520.0,
}
REAR_WHEEL = {
    "Half Track": 590.0,
    "Static Camber": -1.5,
    "Static Toe": -0.25,
    "Tire Diameter": 520.0,
}

Row = list[Any]


def corner_points(axle: str) -> tuple[dict[str, tuple[float, float, float]], dict[str, Any]]:
    """(Double A-Arm, Push Pull) left points in mm, model frame, this axle's own origin."""
    prefix, dx = ("FL", 0.0) if axle == "front" else ("RL", REFERENCE_DISTANCE)

    def pt(ours: str) -> tuple[float, float, float]:
        x, y, z = FSAE[prefix + ours[2:]]
        return (float(x) + dx, float(y), float(z))

    return (
        {k: pt(v) for k, v in FRONT_NAMES.items()},
        {k: pt(v) for k, v in FRONT_PP.items()},
    )


def suspension_rows(
    axle: str,
    *,
    length: tuple[str, str] = ("millimeter", "mm"),
    axes: Sequence[Row] = (),
    to_file: Any = None,
    drop_block: str | None = None,
    extra: Sequence[Row] = (),
) -> list[Row]:
    """An OptimumK suspension sheet. to_file maps model mm (x, y, z) to the file's numbers;
    the Right column is the mirror (x, -y, z) of the Left one."""
    conv = to_file or (lambda p: p)
    arm, pp = corner_points(axle)
    wheel = FRONT_WHEEL if axle == "front" else REAR_WHEEL
    scale = 25.4 if length[1] == "in" else 1.0

    def point_row(name: str, p: tuple[float, float, float]) -> Row:
        left = conv(p)
        right = conv((p[0], -p[1], p[2]))
        return [None, name, *left, None, *right]

    def wheel_row(label: str, value: float) -> Row:
        return [None, label, value, None, None, None, value]

    blocks: dict[str, list[Row]] = {
        "Double A-Arm": [
            ["Double A-Arm", "Point Name", "Left", None, None, None, "Right"],
            [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
            *(point_row(n, p) for n, p in arm.items()),
        ],
        "Push Pull": [
            ["Push Pull", "Point Name", "Left", None, None, None, "Right"],
            [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
            *(point_row(n, p) for n, p in pp.items()),
        ],
        "Wheels": [
            ["Wheels", "Point Name", "Left", None, None, None, "Right"],
            wheel_row("Half Track", wheel["Half Track"] / scale),
            wheel_row("Longitudinal Offset", 0.0),
            wheel_row("Lateral Offset", 0.0),
            wheel_row("Vertical Offset", 0.0),
            wheel_row("Static Camber", wheel["Static Camber"]),
            wheel_row("Static Toe", wheel["Static Toe"]),
            wheel_row("Rim Diameter", 330.0 / scale),
            wheel_row("Tire Diameter", wheel["Tire Diameter"] / scale),
            wheel_row("Tire Width", 178.0 / scale),
        ],
        "Attachment": [
            ["Attachment", "Element", None, "Attached To"],
            [
                None,
                "Push Pull",
                "NSMA_PPAttPnt",
                "Double A-Arm",
                "LowerAArm" if axle == "front" else "UpperAArm",
            ],
        ],
    }
    if axle == "front":
        blocks["Rack Pinion"] = [["Rack Pinion", "Steering Ratio", 90.0 / scale]]
    else:
        blocks["Double A-Arm"].append([None, "Tierod Attachment", "Chassis"])
    rows: list[Row] = [
        [None, "Name:", f"Test car - {axle.title()}"],
        [None, "Type:", "Suspension", "Created by:", "test_optimumk_import"],
        [],
        ["User Options", "Length", *length],
        [None, "Angle", "degree", "deg"],
        *axes,
    ]
    for title, block in blocks.items():
        if title != drop_block:
            rows += [[], *block]
    for row in extra:
        rows.append(row)
    return rows


def setup_rows(reference_distance: float = REFERENCE_DISTANCE) -> list[Row]:
    return [
        [None, "Name:", "Test car"],
        [None, "Type:", "Vehicle Setup"],
        [],
        ["User Options", "Length", "millimeter", "mm"],
        [None, "Angle", "degree", "deg"],
        [],
        ["Setup", "Front Suspension", "Test car - Front"],
        [None, "Rear Suspension", "Test car - Rear"],
        [None, "Reference Distance", reference_distance],
        [None, "Brake Bias", 65.0],
        [None, "Center of Gravity Height", 280.0],
    ]


def write_xlsx(path: Path, sheets: dict[str, list[Row]]) -> Path:
    wb = openpyxl.Workbook()
    first = True
    for title, rows in sheets.items():
        ws = wb.active if first else wb.create_sheet()
        assert ws is not None
        ws.title = title
        first = False
        for row in rows:
            ws.append(list(row))
    wb.save(path)
    return path


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def optimumk_half_track(metrics: dict[str, float], wheel: str, radius: float, side: float) -> float:
    """OptimumK's half track from our solved pose: its contact patch C + r unit(s x X),
    taken pointing down (docs/conventions.md), with s rebuilt from the pose's camber and
    wheel-plane toe (optimumk signs) and C its wheel centre."""
    camber = math.radians(metrics[f"camber_{wheel}_deg"])
    toe = math.radians(metrics[f"toe_wheel_plane_{wheel}_deg"])
    sx, sz = -math.sin(toe), -math.sin(camber)
    sy = side * math.sqrt(1 - sx * sx - sz * sz)
    uy = side * sz / math.hypot(sy, sz)  # unit(s x X) = (0, s_z, -s_y)/|.|, made to point down
    return side * (metrics[f"wheel_centre_{wheel}_y_mm"] + radius * uy)


def optimumk_axis(camber_deg: float, toe_deg: float, side: float) -> tuple[float, float, float]:
    """OptimumK's design spin axis from its static camber and toe (docs/optimumk.md):
    unit(-tan toe, side, -tan camber)."""
    v = (-math.tan(math.radians(toe_deg)), side, -math.tan(math.radians(camber_deg)))
    n = math.sqrt(sum(c * c for c in v))
    return (v[0] / n, v[1] / n, v[2] / n)


def reported(camber_deg: float, toe_deg: float, side: float) -> tuple[float, float]:
    """(camber, toe) OptimumK reports at design for a file's static camber and toe, deg:
    -asin(s.z) and -asin(s.x) of `optimumk_axis`."""
    s = optimumk_axis(camber_deg, toe_deg, side)
    return -math.degrees(math.asin(s[2])), -math.degrees(math.asin(s[0]))


# -- the tests -----------------------------------------------------------------------------------
def test_front_and_rear_with_vehicle_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": suspension_rows("front")})
    rear = write_xlsx(tmp_path / "rear.xlsx", {"Rear": suspension_rows("rear")})
    vehicle = write_xlsx(tmp_path / "vehicle.xlsx", {"Vehicle Setup": setup_rows()})
    out = tmp_path / "car.xlsx"
    argv = ["import-optimumk", str(front), "--rear", str(rear), "--vehicle", str(vehicle)]
    code, stdout, err = run_cli([*argv, "--out", str(out)], capsys)
    assert code == 0, err
    # this setup has no Drive Bias and no Front Mass Distribution rows: each is said,
    # with the option that sets it, never taken silently
    warned = [line for line in err.splitlines() if line.startswith("warning")]
    assert len(warned) == 2, err
    assert "no Drive Bias: rear drive share 1 (our default)" in err
    assert "no Front Mass Distribution" in err and "'Front mass share'" in err
    assert "Vehicle Setup" in warned[0]
    assert "wrote" in stdout

    code, stdout, err = run_cli(["check", str(out)], capsys)
    assert code == 0, err
    car = read_car(out)
    assert car.warnings == ()

    # OptimumK's names are kept; the rear origin moves back by the Reference Distance.
    points = car.point_map()
    for axle, corner in (("front", "FL"), ("rear", "RL")):
        dx = 0.0 if axle == "front" else -REFERENCE_DISTANCE
        arm, pp = corner_points(axle)
        for name, p in {**arm, **pp}.items():
            base = name.removesuffix("_L")
            left = points[f"{corner}_{base}"]
            right = points[f"{corner[0]}R_{base}"]
            assert left.tolist() == pytest.approx([p[0] + dx, p[1], p[2]], abs=1e-9)
            assert right.tolist() == pytest.approx([p[0] + dx, -p[1], p[2]], abs=1e-9)
    assert car.options.cg_height_mm == 280.0 and car.options.front_brake_share == 0.65
    assert car.rack is not None and car.rack.end_points == ("FL_CHAS_TiePnt", "FR_CHAS_TiePnt")
    assert car.rack.ratio_mm_per_deg == pytest.approx(90.0 / 360.0, abs=1e-12)
    assert car.body("FL_LowerAArm").points[-1] == "FL_NSMA_PPAttPnt"  # pushrod on the LCA
    assert car.body("RL_UpperAArm").points[-1] == "RL_NSMA_PPAttPnt"  # pullrod on the UCA
    assert "RL_CHAS_TiePnt" in car.body("Chassis").points  # rear toe link on the chassis
    assert {d.body: (d.chassis_point, d.moving_point) for d in car.dampers}["FL_Coilover"] == (
        "FL_CHAS_AttPnt",
        "FL_ROCK_CoiPnt",
    )

    model = suspension_sim.load(out, use_cache=False)
    pose = model.solve()
    assert pose.converged
    ok = pose_metrics(pose, "optimumk", rates=False)
    iso = pose_metrics(pose, "iso", rates=False)
    for wheel, spec in (
        ("FL", FRONT_WHEEL),
        ("FR", FRONT_WHEEL),
        ("RL", REAR_WHEEL),
        ("RR", REAR_WHEEL),
    ):
        side = 1.0 if wheel[1] == "L" else -1.0
        # OptimumK's own design camber and toe (its spin axis from the slopes): within
        # 2e-6 deg of the file's values here, not equal.
        camber, toe = reported(spec["Static Camber"], spec["Static Toe"], side)
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(camber, abs=1e-9)
        assert iso[f"camber_{wheel}_deg"] == pytest.approx(camber, abs=1e-9)
        # OptimumK's toe is the wheel-plane angle, + = toe-out; iso flips the sign.
        assert ok[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(toe, abs=1e-9)
        assert iso[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(-toe, abs=1e-9)
        radius = spec["Tire Diameter"] / 2
        half = optimumk_half_track(ok, wheel, radius, side)
        assert half == pytest.approx(spec["Half Track"], abs=1e-6)
        # Our half_track is from the lowest point of the tyre circle, C - r unit(Z - (Z.s)s):
        # closed form from the same s, it differs from OptimumK's by micrometres.
        _sx, sy, sz = optimumk_axis(spec["Static Camber"], spec["Static Toe"], side)
        lowest_y = ok[f"wheel_centre_{wheel}_y_mm"] + radius * sz * sy / math.sqrt(1 - sz * sz)
        assert ok[f"half_track_{wheel}_mm"] == pytest.approx(side * lowest_y, abs=1e-6)
        assert abs(ok[f"half_track_{wheel}_mm"] - spec["Half Track"]) < 1e-3
        # The contact patch is on the ground, under the wheel centre in x (OptimumK's).
        x0 = 0.0 if wheel[0] == "F" else -REFERENCE_DISTANCE
        assert ok[f"wheel_centre_{wheel}_x_mm"] == pytest.approx(x0, abs=1e-9)


def test_inches_and_a_reflected_axis_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file in inches whose lateral axis points right (a left-handed frame): the Left
    column holds negative Y. Its coordinate system '+X -Y +Z' (model = M @ file)."""

    def to_file(p: tuple[float, float, float]) -> list[float]:
        return [p[0] / 25.4, -p[1] / 25.4, p[2] / 25.4]

    rows = suspension_rows(
        "front",
        length=("inch", "in"),
        axes=[[None, "Coordinate System", "+X -Y +Z"]],
        to_file=to_file,
    )
    front = write_xlsx(tmp_path / "front_in.xlsx", {"Front": rows})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 0, err
    assert run_cli(["check", str(out)], capsys)[0] == 0
    car = read_car(out)
    assert car.options.length_unit == "in"
    arm, _pp = corner_points("front")
    for name, p in arm.items():
        assert car.point(f"FL_{name}").tolist() == pytest.approx(list(p), abs=1e-9)
        assert car.point(f"FR_{name}").tolist() == pytest.approx([p[0], -p[1], p[2]], abs=1e-9)
    assert car.rack is not None and car.rack.ratio_mm_per_deg == pytest.approx(0.25, abs=1e-12)
    pose = suspension_sim.load(out, use_cache=False).solve()
    ok = pose_metrics(pose, "optimumk", rates=False)
    for wheel, side in (("FL", 1.0), ("FR", -1.0)):
        camber, toe = reported(-1.0, 0.1, side)
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(camber, abs=1e-9)
        assert ok[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(toe, abs=1e-9)
        assert optimumk_half_track(ok, wheel, 260.0, side) == pytest.approx(600.0, abs=1e-6)

    # Without the coordinate system the Left column lands on the right: a clear error.
    plain = suspension_rows("front", length=("inch", "in"), to_file=to_file)
    bad = write_xlsx(tmp_path / "no_axes.xlsx", {"Front": plain})
    code, _, err = run_cli(["import-optimumk", str(bad), "--out", str(tmp_path / "b.xlsx")], capsys)
    assert code == 2 and "Traceback" not in err
    assert "no_axes.xlsx: Front!B" in err and "--axes" in err
    # ... which --axes fixes.
    argv = ["import-optimumk", str(bad), "--axes", "+X -Y +Z", "--out", str(tmp_path / "c.xlsx")]
    assert run_cli(argv, capsys)[0] == 0
    assert read_car(tmp_path / "c.xlsx").point("FL_UPRI_LowPnt")[1] > 0


def test_vehicle_workbook_with_its_sheets_and_a_matrix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One file: Vehicle Setup + Front/Rear Suspension sheets; the coordinate system as
    a 3x3 matrix (identity) in C:E; the Reference Distance from the setup sheet."""
    matrix = [
        [None, "Coordinate System", 1, 0, 0],
        [None, None, 0, 1, 0],
        [None, None, 0, 0, 1],
    ]
    path = write_xlsx(
        tmp_path / "vehicle.xlsx",
        {
            "Vehicle Setup": setup_rows(1000.0),
            "Front Suspension": suspension_rows("front", axes=matrix),
            "Rear Suspension": suspension_rows("rear"),
        },
    )
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(path), "--out", str(out)], capsys)
    assert code == 0, err
    car = read_car(out)
    rear_arm, _ = corner_points("rear")
    expected = rear_arm["UPRI_LowPnt"]
    assert car.point("RL_UPRI_LowPnt").tolist() == pytest.approx(
        [expected[0] - 1000.0, expected[1], expected[2]], abs=1e-9
    )
    assert car.name == "Test car"


def test_unsupported_element_is_an_error_naming_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = suspension_rows("front", extra=[[], ["Mac Pherson", "Point Name", "Left"]])
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": rows})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 2 and "Traceback" not in err
    assert f"front.xlsx: Front!A{len(rows)}" in err and "'Mac Pherson'" in err
    assert "cannot be imported" in err and not out.exists()


def test_anti_roll_bar_is_an_error_or_left_out_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ubar = [
        [],
        ["U-Bar", "Point Name", "Left", None, None, None, "Right"],
        [None, None, "X", "Y", "Z", None, "X", "Y", "Z"],
        [None, "NSMA_UBarAttPnt_L", 0.0, 170.0, 590.0, None, 0.0, -170.0, 590.0],
        [None, "UBAR_AttPnt_L", -200.0, 170.0, 590.0, None, -200.0, -170.0, 590.0],
        [None, "CHAS_PivPnt_L", -200.0, 170.0, 630.0, None, -200.0, -170.0, 630.0],
    ]
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": suspension_rows("front", extra=ubar)})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    assert "front.xlsx: Front!A" in err and "'U-Bar' cannot be imported yet" in err
    assert "--skip-anti-roll-bars" in err  # the hint, in the option's spelling
    argv = ["import-optimumk", str(front), "--skip-anti-roll-bars", "--out", str(out)]
    code, _, err = run_cli(argv, capsys)
    assert code == 0
    assert "warning:" in err and "'U-Bar' not imported" in err and "UBAR_AttPnt_L" in err
    assert run_cli(["check", str(out)], capsys)[0] == 0
    assert not any("UBAR" in p.name for p in read_car(out).points)


@pytest.mark.parametrize("block", ["Wheels", "Push Pull", "Attachment"])
def test_missing_block_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], block: str
) -> None:
    front = write_xlsx(tmp_path / "f.xlsx", {"Front": suspension_rows("front", drop_block=block)})
    code, _, err = run_cli(
        ["import-optimumk", str(front), "--out", str(tmp_path / "c.xlsx")], capsys
    )
    assert code == 2 and "Traceback" not in err
    assert f"no '{block}' block" in err and "f.xlsx: Front" in err


def test_rear_needs_the_reference_distance(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": suspension_rows("front")})
    rear = write_xlsx(tmp_path / "rear.xlsx", {"Rear": suspension_rows("rear")})
    argv = ["import-optimumk", str(front), "--rear", str(rear), "--out", str(tmp_path / "c.xlsx")]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "Reference Distance" in err and "--vehicle" in err
    code, _, err = run_cli([*argv[:-2], "--reference-distance", "1530", *argv[-2:]], capsys)
    assert code == 0, err


def test_out_never_replaces_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": suspension_rows("front")})
    before = front.read_bytes()
    argv = ["import-optimumk", str(front), "--out", str(front), "--force"]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "--out" in err and front.read_bytes() == before
    out = tmp_path / "car.xlsx"
    out.write_bytes(b"mine")
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 2 and "already exists" in err and out.read_bytes() == b"mine"


def test_a_lone_rear_suspension(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--axle rear: the wheels are RL/RR, on the rear axle, at the file's own origin."""
    from suspension_sim.description import wheel_layout

    rear = write_xlsx(tmp_path / "rear.xlsx", {"Rear": suspension_rows("rear")})
    out = tmp_path / "car.xlsx"
    argv = ["import-optimumk", str(rear), "--axle", "rear", "--out", str(out)]
    code, _, err = run_cli(argv, capsys)
    assert code == 0, err
    car = read_car(out)
    assert [w.name for w in car.wheels] == ["RL", "RR"]
    assert wheel_layout(car).axles == {"rear": ("RL", "RR")}
    assert car.rack is None
    arm, _ = corner_points("rear")
    assert car.point("RL_CHAS_LowFor").tolist() == pytest.approx(list(arm["CHAS_LowFor"]))


def test_a_rotated_file_needs_its_matrix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """X rearward and Y to the right (turned 180 deg about Z): without its coordinate
    system the fore pivot is behind the aft one, an error; with the 3x3 matrix it reads."""

    def to_file(p: tuple[float, float, float]) -> list[float]:
        return [-p[0], -p[1], p[2]]

    force = [[None, "Mass", "kilogram", "kg"]]
    plain = write_xlsx(
        tmp_path / "turned.xlsx", {"Front": suspension_rows("front", to_file=to_file, axes=force)}
    )
    code, _, err = run_cli(
        ["import-optimumk", str(plain), "--out", str(tmp_path / "a.xlsx")], capsys
    )
    assert code == 2 and "CHAS_LowFor" in err and "rearward" in err and "Traceback" not in err

    matrix = [
        *force,
        [None, "Coordinate System", -1, 0, 0],
        [None, None, 0, -1, 0],
        [None, None, 0, 0, 1],
    ]
    good = write_xlsx(
        tmp_path / "matrix.xlsx", {"Front": suspension_rows("front", to_file=to_file, axes=matrix)}
    )
    out = tmp_path / "b.xlsx"
    code, _, err = run_cli(["import-optimumk", str(good), "--out", str(out)], capsys)
    assert code == 0, err
    assert "User Options rows not read: Mass" in err
    arm, pp = corner_points("front")
    car = read_car(out)
    for name, p in {**arm, **pp}.items():
        base = name.removesuffix("_L")
        assert car.point(f"FL_{base}").tolist() == pytest.approx(list(p), abs=1e-9)
    assert run_cli(["check", str(out)], capsys)[0] == 0


def test_the_axle_comes_from_the_file_unless_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lone export is the axle its sheet name or title block says; a notes sheet beside
    it is ignored; a file that says neither is a clear error asking for --axle."""
    rows = suspension_rows("rear")  # title block: "Test car - Rear"
    rear = write_xlsx(tmp_path / "rear.xlsx", {"Sheet1": rows, "Notes": []})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(rear), "--out", str(out)], capsys)
    assert code == 0, err
    assert [w.name for w in read_car(out).wheels] == ["RL", "RR"]

    rows[0] = [None, "Name:", "Test car"]
    plain = write_xlsx(tmp_path / "plain.xlsx", {"Sheet1": rows})
    argv = ["import-optimumk", str(plain), "--out", str(tmp_path / "p.xlsx")]
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and "Traceback" not in err
    assert "front or the rear" in err and "--axle" in err
    code, _, err = run_cli([*argv, "--axle", "rear"], capsys)
    assert code == 0, err


def test_a_brake_bias_given_as_a_fraction_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup = setup_rows()
    setup[9] = [None, "Brake Bias", 0.65]
    front = write_xlsx(tmp_path / "front.xlsx", {"Front": suspension_rows("front")})
    rear = write_xlsx(tmp_path / "rear.xlsx", {"Rear": suspension_rows("rear")})
    vehicle = write_xlsx(tmp_path / "vehicle.xlsx", {"Setup": setup})
    argv = ["import-optimumk", str(front), "--rear", str(rear), "--vehicle", str(vehicle)]
    code, _, err = run_cli([*argv, "--out", str(tmp_path / "car.xlsx")], capsys)
    assert code == 2 and "Brake Bias 0.65" in err and "65" in err and "C10" in err


# -- an unmodified OptimumK v2 export (tests/_optimumk_files.py) -------------------------------
FRONT_VO, REAR_VO = 4.73168606, 4.27201516  # Vertical Offsets of a real export (docs)
REAL_FRONT_WHEEL = {
    "Half Track": 612.0,
    "Longitudinal Offset": 0.0,
    "Lateral Offset": 0.0,
    "Vertical Offset": FRONT_VO,
    "Static Camber": -0.96,
    "Static Toe": 0.5,
    "Rim Diameter": 254.0,
    "Tire Diameter": 411.0,
    "Tire Width": 180.0,
}
REAL_REAR_WHEEL = {
    **REAL_FRONT_WHEEL,
    "Half Track": 598.0,
    "Vertical Offset": REAR_VO,
    "Static Camber": -1.2,
    "Static Toe": -0.2,
}
REF_POINT = (REFERENCE_DISTANCE - 250.0, 200.0, 310.0)  # rear file coordinates


def file_points(axle: str) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Every point of one axle by side, file coordinates (= model axes, own origin)."""
    arm, pp = corner_points(axle)
    out = {}
    for name, p in {**arm, **pp}.items():
        out[name.removesuffix("_L")] = {"L": p, "R": (p[0], -p[1], p[2])}
    return out


def real_files(tmp_path: Path, **front_options: Any) -> tuple[Path, Path, Path]:
    from _optimumk_files import ReferencePoint, write_setup_export, write_suspension_export

    wheels_f = {"L": REAL_FRONT_WHEEL, "R": REAL_FRONT_WHEEL}
    wheels_r = {"L": REAL_REAR_WHEEL, "R": REAL_REAR_WHEEL}
    front = write_suspension_export(
        tmp_path / "Front.xlsx",
        "front",
        file_points("front"),
        wheels_f,
        springs={"L": 21.2, "R": 21.2},
        **front_options,
    )
    rear = write_suspension_export(
        tmp_path / "Rear.xlsx",
        "rear",
        file_points("rear"),
        wheels_r,
        springs={"L": 30.0, "R": 31.0},
        reference_point=ReferencePoint(
            "CHAS_RefPnt", {"L": REF_POINT, "R": (REF_POINT[0], -REF_POINT[1], REF_POINT[2])}
        ),
    )
    setup = write_setup_export(
        tmp_path / "Setup.xlsx",
        reference_distance=REFERENCE_DISTANCE,
        cg_height=280.9,
        front_mass_pct=47.0,
        left_mass_pct=50.0,
        brake_bias_pct=65.0,
        drive_bias_pct=0.0,
    )
    return front, rear, setup


def import_argv(front: Path, rear: Path, setup: Path, out: Path) -> list[str]:
    return [
        "import-optimumk",
        str(front),
        "--rear",
        str(rear),
        "--vehicle",
        str(setup),
        "--out",
        str(out),
    ]


def test_an_unmodified_export_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Title block in column A (Comments: in A4), merged cells, the _x000D_ matrix text,
    empty front Reference Point, rear Reference Point on the chassis, Stiffness, Vertical
    Offsets, rear-only Tierod Attachment, push rod on the UpperAArm (front) and LowerAArm
    (rear), a setup with mass distribution and drive bias."""
    front, rear, setup = real_files(tmp_path)
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(front, rear, setup, out), capsys)
    assert code == 0, err
    assert "Left Mass Distribution 50 % not imported" in err
    assert "N/mm" in err  # no stiffness unit stated: read in N/mm, said so
    assert run_cli(["check", str(out)], capsys)[0] == 0
    car = read_car(out)
    assert car.name == "Test car"

    # Points exactly as in the file (rear moved back by the Reference Distance only).
    points = car.point_map()
    for axle, corner in (("front", "F"), ("rear", "R")):
        dx = 0.0 if axle == "front" else -REFERENCE_DISTANCE
        for name, by_side in file_points(axle).items():
            for side, p in by_side.items():
                got = points[f"{corner}{side}_{name}"].tolist()
                assert got == pytest.approx([p[0] + dx, p[1], p[2]], abs=1e-9, rel=0)

    # The wheel as OptimumK builds it: CP = (lon, side half track, Vertical Offset),
    # C = CP - r side unit(s x X), s = unit(-tan toe, side, -tan camber).
    wheels = {w.name: w for w in car.wheels}
    for name, spec, vo, x0 in (
        ("FL", REAL_FRONT_WHEEL, FRONT_VO, 0.0),
        ("FR", REAL_FRONT_WHEEL, FRONT_VO, 0.0),
        ("RL", REAL_REAR_WHEEL, REAR_VO, -REFERENCE_DISTANCE),
        ("RR", REAL_REAR_WHEEL, REAR_VO, -REFERENCE_DISTANCE),
    ):
        sgn = 1.0 if name[1] == "L" else -1.0
        w = wheels[name]
        r = spec["Tire Diameter"] / 2
        assert w.tyre_radius == r and w.rim_diameter == spec["Rim Diameter"]
        c, a = points[w.centre], points[w.axis_point]
        s = (c - a) / abs(float(((c - a) ** 2).sum()) ** 0.5)  # outboard
        expected = optimumk_axis(spec["Static Camber"], spec["Static Toe"], sgn)
        assert s.tolist() == pytest.approx(list(expected), abs=1e-12)
        sy, sz = float(s[1]), float(s[2])
        down = sgn * sz / math.hypot(sy, sz), -sgn * sy / math.hypot(sy, sz)
        cp = (float(c[0]), float(c[1]) + r * down[0], float(c[2]) + r * down[1])
        assert cp == pytest.approx((x0, sgn * spec["Half Track"], vo), abs=1e-9, rel=0)
        assert down[1] < 0  # the contact patch is below the wheel centre

    # The solved design: OptimumK's own camber and toe (closed form from the docs).
    model = suspension_sim.load(out, use_cache=False)
    pose = model.solve()
    assert pose.converged
    ok = pose_metrics(pose, "optimumk", rates=False)
    for wheel in ("FL", "FR"):
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(-0.959963, abs=5e-7)
        assert ok[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(0.499930, abs=5e-7)
        cos_toe = math.cos(math.radians(0.5))
        closed = math.degrees(math.asin(cos_toe * math.sin(math.radians(-0.96))))
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(closed, abs=1e-7)

    # Stiffness -> Spring rate of each corner's coilover; the setup -> User Options.
    rates = {d.body: d.spring_rate for d in car.dampers}
    assert rates == {
        "FL_Coilover": 21.2,
        "FR_Coilover": 21.2,
        "RL_Coilover": 30.0,
        "RR_Coilover": 31.0,
    }
    o = car.options
    assert o.cg_height_mm == 280.9 and o.front_brake_share == 0.65
    assert o.rear_drive_share == 1.0 and o.front_mass_share == 0.47

    # Push rods, tie rods, the rear Reference Point on the chassis.
    assert "FL_NSMA_PPAttPnt" in car.body("FL_UpperAArm").points
    assert "RR_NSMA_PPAttPnt" in car.body("RR_LowerAArm").points
    chassis = car.body("Chassis").points
    assert "RL_CHAS_TiePnt" in chassis and "FL_CHAS_TiePnt" not in chassis
    assert "RL_CHAS_RefPnt" in chassis and "RR_CHAS_RefPnt" in chassis
    assert not any(p.startswith("F") and "Ref" in p for p in points)
    ref = points["RL_CHAS_RefPnt"].tolist()
    assert ref == pytest.approx([REF_POINT[0] - REFERENCE_DISTANCE, *REF_POINT[1:]], abs=1e-9)

    # The two new workbook fields survive the round trip through the written workbook.
    from suspension_sim.workbook.optimumk import read_optimumk

    direct = read_optimumk(front, rear=rear, vehicle=setup)
    assert car.wheels == direct.wheels and car.options == direct.options
    assert car.dampers == direct.dampers


def test_stiffness_units_preload_and_a_title_block_in_column_b(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stiffness unit in User Options (N/m) converts; the Stiffness header's Left/Right
    columns are followed; preloads in the Force unit (lbf) become N."""
    front, rear, setup = real_files(
        tmp_path,
        title_col=2,
        option_rows=[[None, "Stiffness", "newton/meter", "N/m"], [None, "Force", "pound", "lbf"]],
        coordinate_text="[[1 0 0]\r\n[0 1 0]\r\n[0 0 1]]",
    )
    # rewrite the front with a header row and N/m values
    from _optimumk_files import write_suspension_export

    write_suspension_export(
        front,
        "front",
        file_points("front"),
        {"L": REAL_FRONT_WHEEL, "R": REAL_FRONT_WHEEL},
        title_col=2,
        option_rows=[[None, "Stiffness", "N/m"], [None, "Force", "lbf"]],
        springs={"L": 21200.0, "R": 22000.0},
        preloads={"L": 100.0, "R": 50.0},
        stiffness_header=True,
    )
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(front, rear, setup, out), capsys)
    assert code == 0, err
    car = read_car(out)
    d = {d.body: d for d in car.dampers}
    assert d["FL_Coilover"].spring_rate == pytest.approx(21.2, abs=1e-12)
    assert d["FR_Coilover"].spring_rate == pytest.approx(22.0, abs=1e-12)
    assert d["FL_Coilover"].spring_preload == pytest.approx(444.82216152605, abs=1e-9)
    assert d["FR_Coilover"].spring_preload == pytest.approx(222.411080763025, abs=1e-9)
    assert d["RL_Coilover"].spring_preload is None


@pytest.mark.parametrize(
    ("text", "matrix"),
    [
        ("[[1,0,0]_x000D_\n [0,1,0]_x000D_\n [0,0,1]]", ((1, 0, 0), (0, 1, 0), (0, 0, 1))),
        ("[[1 0 0]_x000D_\n[0 -1 0]_x000D_\n[0 0 1]]", ((1, 0, 0), (0, -1, 0), (0, 0, 1))),
        ("[[-1, 0, 0]\r\n [0, -1, 0]\r\n [0, 0, 1]]", ((-1, 0, 0), (0, -1, 0), (0, 0, 1))),
    ],
)
def test_coordinate_system_text_as_excel_stores_it(
    text: str, matrix: tuple[tuple[int, ...], ...]
) -> None:
    from suspension_sim.workbook.optimumk.sheets import parse_matrix_text

    assert parse_matrix_text(text, "f.xlsx: S!C9") == matrix


def _malformed(tmp_path: Path, which: str) -> tuple[Path, str, str, Any]:
    """(file to break, sheet, cell, new value) for one malformed case."""
    from _optimumk_files import cell_of

    front, rear, setup = real_files(tmp_path)
    if which == "spring one side":
        sheet, ref = cell_of(rear, 31.0)
        return rear, sheet, ref, None
    if which == "unknown stiffness row":
        sheet, ref = cell_of(rear, "Spring")
        return rear, sheet, ref, "Bump Stop"
    if which == "spring on another element":
        sheet, ref = cell_of(
            rear, "Push Pull", 2
        )  # Stiffness row's element (after block, attachment)
        return rear, sheet, ref, "Direct Actuation"
    if which == "reference point attachment":
        sheet, ref = cell_of(rear, "Chassis")
        return rear, sheet, ref, "Tie Rod"
    if which == "reference point coordinate":
        sheet, ref = cell_of(rear, REF_POINT[2])
        return rear, sheet, ref, None
    if which == "matrix text":
        sheet, ref = cell_of(front, "[[1,0,0]_x000D_\n [0,1,0]_x000D_\n [0,0,1]]")
        return front, sheet, ref, "[[1,0,0] [0,1,0]]"
    if which == "setup row":
        sheet, ref = cell_of(setup, "Drive Bias")
        return setup, sheet, ref, "Aero Balance"
    if which == "mass as a fraction":
        sheet, ref = cell_of(setup, 47.0)
        return setup, sheet, ref, 0.47
    raise AssertionError(which)


@pytest.mark.parametrize(
    ("which", "message"),
    [
        ("spring one side", "gives one side only"),
        ("unknown stiffness row", "unknown Stiffness row 'Bump Stop'"),
        ("spring on another element", "'Direct Actuation' cannot be imported"),
        ("reference point attachment", "Reference Point attached to 'Tie Rod'"),
        ("reference point coordinate", "coordinate is blank"),
        ("matrix text", "cannot read the coordinate system"),
        ("setup row", "unknown Setup row 'Aero Balance'"),
        ("mass as a fraction", "Front Mass Distribution 0.47"),
    ],
)
def test_malformed_exports_name_the_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str, message: str
) -> None:
    from _optimumk_files import set_cell

    path, sheet, ref, value = _malformed(tmp_path, which)
    set_cell(path, sheet, ref, value)
    front, rear, setup = (tmp_path / n for n in ("Front.xlsx", "Rear.xlsx", "Setup.xlsx"))
    code, _, err = run_cli(import_argv(front, rear, setup, tmp_path / "car.xlsx"), capsys)
    assert code == 2 and "Traceback" not in err
    assert message in err
    assert f"{path.name}: {sheet}!{ref}" in err


def test_a_reference_point_without_its_attachment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from _optimumk_files import cell_of, set_cell

    front, rear, setup = real_files(tmp_path)
    sheet, ref = cell_of(rear, "Reference Point", 1)  # the Attachment row's element
    set_cell(rear, sheet, ref, None)
    for col in "CD":
        set_cell(rear, sheet, f"{col}{ref[1:]}", None)
    title_sheet, title_ref = cell_of(rear, "Reference Point", 0)
    code, _, err = run_cli(import_argv(front, rear, setup, tmp_path / "car.xlsx"), capsys)
    assert code == 2 and "not the body it is attached to" in err
    assert f"Rear.xlsx: {title_sheet}!{title_ref}" in err


def test_a_reference_point_on_another_body(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from _optimumk_files import cell_of, set_cell

    front, rear, setup = real_files(tmp_path)
    sheet, ref = cell_of(rear, "Chassis")  # the Reference Point's attachment
    set_cell(rear, sheet, ref, "Upright")
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(front, rear, setup, out), capsys)
    assert code == 0, err
    car = read_car(out)
    assert "RL_CHAS_RefPnt" in car.body("RL_Upright").points
    assert "RL_CHAS_RefPnt" not in car.body("Chassis").points


def test_user_options_and_title_labels_in_column_b(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``User Options`` written in column B (its labels in C, units in D), the title block
    in column B: read the same (inches here, so the units really come from that block)."""
    from _optimumk_files import suspension_sheet, write_sheets

    inch = {
        k: {s: (p[0] / 25.4, p[1] / 25.4, p[2] / 25.4) for s, p in v.items()}
        for k, v in file_points("front").items()
    }
    wheel = {
        k: (v / 25.4 if k not in ("Static Camber", "Static Toe") else v)
        for k, v in REAL_FRONT_WHEEL.items()
    }
    sheet = suspension_sheet(
        "front", inch, {"L": wheel, "R": wheel}, title_col=2, option_rows=[[None, "Mass"]]
    )
    start = next(i for i, r in enumerate(sheet.rows) if r and r[0] == "User Options")
    sheet.rows[start : start + 4] = [  # as many rows: the merged ranges stay in place
        [None, "User Options"],
        [None, None, "Length", "inch", "in"],
        [None, None, "Angle", "degree", "deg"],
        [None, None, "Coordinate System", "[[1 0 0]_x000D_\n[0 1 0]_x000D_\n[0 0 1]]"],
    ]
    front = write_sheets(tmp_path / "front.xlsx", {"Front Suspension": sheet})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 0, err
    car = read_car(out)
    assert car.options.length_unit == "in"
    for name, by_side in file_points("front").items():
        assert car.point(f"FR_{name}").tolist() == pytest.approx(list(by_side["R"]), abs=1e-9)
    assert [w.rim_diameter for w in car.wheels] == pytest.approx([254.0, 254.0], abs=1e-9)


# -- nothing dropped or invented: mutations of an OptimumK-layout export ------------------------
def row_of(path: Path, label: str, occurrence: int = 0) -> tuple[str, int]:
    """(sheet, row) of the n-th cell holding `label`."""
    from _optimumk_files import cell_of

    sheet, ref = cell_of(path, label, occurrence)
    return sheet, int(ref.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))


def _edit(path: Path, label: str, cells: dict[str, Any], occurrence: int = 0) -> str:
    """Write `cells` ({column letter or letter + row offset: value}) on the row of `label`
    (offset "+1": the row below); returns the sheet title."""
    from _optimumk_files import set_cells

    sheet, row = row_of(path, label, occurrence)
    edits = {}
    for key, value in cells.items():
        col, _, offset = key.partition("+")
        edits[f"{col}{row + int(offset or 0)}"] = value
    set_cells(path, sheet, edits)
    return sheet


ERRORS: dict[str, tuple[str, str, dict[str, Any], int, str, str]] = {
    # name: (file, label of the row, edits, occurrence, cell of the error (col, +offset), message)
    "vertical offset blank on the right": (
        "front",
        "Vertical Offset",
        {"G": None},
        0,
        "G",
        "Vertical Offset is given for the Left wheel (C",
    ),
    "longitudinal offset blank on the left": (
        "rear",
        "Longitudinal Offset",
        {"C": None},
        0,
        "C",
        "Longitudinal Offset is given for the Right wheel (G",
    ),
    "vertical offset blank on both sides": (
        "front",
        "Vertical Offset",
        {"C": None, "G": None},
        0,
        "C",
        "Vertical Offset is blank on both sides",
    ),
    "half track blank": (
        "front",
        "Half Track",
        {"C": None, "G": None},
        0,
        "C",
        "Half Track is blank on both sides",
    ),
    "rim diameter blank on the right": (
        "front",
        "Rim Diameter",
        {"G": None},
        0,
        "G",
        "Rim Diameter is given for the Left wheel",
    ),
    "half track repeated": (
        "front",
        "Tire Width",
        {"B+1": "Half Track", "C+1": 700.0, "G+1": 700.0},
        0,
        "B+1",
        "gives Half Track twice",
    ),
    "tyre diameter beside tire diameter": (
        "front",
        "Tire Width",
        {"B+1": "Tyre Diameter", "C+1": 420.0, "G+1": 420.0},
        0,
        "B+1",
        "gives Tire Diameter twice: 'Tire Diameter' at B",
    ),
    "numbers without a point name": (
        "rear",
        "CHAS_RefPnt",
        {"B": None},
        0,
        "C",
        "on a row with no point name",
    ),
    "length unit twice": (
        "front",
        "Coordinate System",
        {"B+1": "Length", "C+1": "inch", "D+1": "in"},
        0,
        "B+1",
        "gives the Length twice",
    ),
    "push pull attachment twice": (
        "front",
        "NSMA_PPAttPnt",
        {"B+1": "Push Pull", "C+1": "NSMA_PPAttPnt", "D+1": "Double A-Arm", "E+1": "LowerAArm"},
        0,
        "B+1",
        "the Push Pull attachment is given twice",
    ),
    "tie rod attachment twice": (
        "rear",
        "UPRI_TiePnt",
        {"B+1": "Tierod Attachment", "C+1": "LowerAArm"},
        0,
        "C+1",  # the second one read: the Attachment block's row comes later
        "the tie rod's attachment is given twice",
    ),
    "spring row twice": (
        "rear",
        "Spring",
        {"B+1": "Spring", "C+1": "Push Pull", "D+1": 50.0, "H+1": 50.0},
        0,
        "B+1",
        "gives the spring of the Push Pull twice",
    ),
    "steering ratio twice": (
        "front",
        "Steering Ratio",
        {"B+1": "Steering Ratio", "C+1": 100.0},
        0,
        "B+1",
        "the Steering Ratio is given twice",
    ),
    "reference distance twice": (
        "setup",
        "Drive Bias",
        {"B+1": "Reference Distance", "C+1": 1600.0},
        0,
        "B+1",
        "gives the Reference Distance twice",
    ),
    "brake bias blank": ("setup", "Brake Bias", {"C": None}, 0, "C", "the Brake Bias is blank"),
    "setup numbers without a label": (
        "setup",
        "Drive Bias",
        {"C+1": 12.0},
        0,
        "C+1",
        "on a row with no label",
    ),
}


@pytest.mark.parametrize("which", sorted(ERRORS))
def test_a_dropped_or_invented_value_is_an_error_at_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str
) -> None:
    """Each mutation of an unmodified export used to import with a value dropped, kept
    from the wrong row or read as 0; now the import stops at the cell."""
    files = dict(zip(("front", "rear", "setup"), real_files(tmp_path), strict=True))
    name, label, edits, occurrence, at, message = ERRORS[which]
    path = files[name]
    _, row = row_of(path, label, occurrence)
    sheet = _edit(path, label, edits, occurrence)
    col, _, offset = at.partition("+")
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(*files.values(), out), capsys)
    assert code == 2 and "Traceback" not in err and not out.exists()
    assert message in err
    assert f"{path.name}: {sheet}!{col}{row + int(offset or 0)}" in err


def test_the_title_block_name_given_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from _optimumk_files import suspension_sheet, write_sheets

    wheels = {"L": REAL_FRONT_WHEEL, "R": REAL_FRONT_WHEEL}
    sheet = suspension_sheet("front", file_points("front"), wheels)
    sheet.rows.append(["Name:", "Another car"])
    front = write_sheets(tmp_path / "front.xlsx", {"Front Suspension": sheet})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(["import-optimumk", str(front), "--out", str(out)], capsys)
    assert code == 2 and "gives 'Name:' twice" in err
    assert f"front.xlsx: Front Suspension!B{len(sheet.rows)}" in err


def _import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], files: tuple[Path, Path, Path]
) -> tuple[Any, list[str]]:
    """The car imported from (front, rear, setup) and the warning lines printed."""
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(*files, out), capsys)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    return read_car(out), warnings


def test_a_blank_steering_ratio_is_a_warning_at_its_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = real_files(tmp_path)
    front = files[0]
    _, row = row_of(front, "Steering Ratio")
    sheet = _edit(front, "Steering Ratio", {"C": None})
    car, warnings = _import(tmp_path, capsys, files)
    assert car.rack is not None and car.rack.ratio_mm_per_deg is None
    found = [w for w in warnings if "Steering Ratio is blank" in w]
    assert len(found) == 1 and f"Front.xlsx: {sheet}!C{row}" in found[0]
    assert "Motion [Steering]" in found[0]


def test_stray_numbers_beside_a_block_are_a_warning_at_their_cell(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A number right of the Right Z column, in the Wheels block's unread D column, beside
    a unit and beyond column BH: warned at the cell, the values read unchanged."""
    files = real_files(tmp_path)
    front, _, setup = files
    _, row = row_of(front, "CHAS_LowFor")
    _, wheel_row = row_of(front, "Vertical Offset")
    _, length_row = row_of(front, "Length")
    sheet = _edit(front, "CHAS_LowFor", {"J": 5.0, "BM": 3.0})
    _edit(front, "Vertical Offset", {"D": 9.0})
    _edit(front, "Length", {"E": 25.4})
    _, setup_row = row_of(setup, "Brake Bias")
    setup_sheet = _edit(setup, "Brake Bias", {"D": 70.0})
    car, warnings = _import(tmp_path, capsys, files)

    def one(text: str) -> str:
        found = [w for w in warnings if text in w]
        assert len(found) == 1, (text, warnings)
        return found[0]

    assert "the number 5 beside the 'Double A-Arm' block's columns is not read" in one(
        f"Front.xlsx: {sheet}!J{row}"
    )
    assert "beside the 'Wheels' block's columns" in one(f"Front.xlsx: {sheet}!D{wheel_row}")
    assert "beside 'Length'" in one(f"Front.xlsx: {sheet}!E{length_row}")
    assert "beyond column BH" in one(f"Front.xlsx: {sheet}!BM{row}")
    assert "the number 70 beside the 'Setup' block" in one(
        f"Setup.xlsx: {setup_sheet}!D{setup_row}"
    )
    # The values themselves are the file's (not the stray numbers).
    for side, y in (("L", 1.0), ("R", -1.0)):
        p = file_points("front")["CHAS_LowFor"][side]
        assert car.point(f"F{side}_CHAS_LowFor").tolist() == [p[0], y * abs(p[1]), p[2]]
    assert car.options.front_brake_share == 0.65


def test_left_out_rows_and_units_are_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No Rim Diameter row (no Toe Distance), no Vertical Offset row (0), no Length unit
    (mm), preloads without a Force unit (N): the car imports and each is said."""
    files = real_files(tmp_path, preloads={"L": 100.0, "R": 100.0})
    front = files[0]
    sheet = _edit(front, "Rim Diameter", {"B": None, "C": None, "G": None})
    _edit(front, "Vertical Offset", {"B": None, "C": None, "G": None})
    _edit(front, "Length", {"B": None, "C": None, "D": None})
    car, warnings = _import(tmp_path, capsys, files)
    text = "\n".join(warnings)
    wheels_at = f"Front.xlsx: {sheet}!A{row_of(front, 'Wheels')[1]}"
    assert f"{wheels_at}: the Wheels block has no Vertical Offset row: read as 0" in text
    assert f"{wheels_at}: the Wheels block has no Rim Diameter row" in text
    options_at = f"Front.xlsx: {sheet}!A{row_of(front, 'User Options')[1]}"
    assert f"{options_at}: the file states no Length unit (User Options); read in mm" in text
    assert f"{options_at}: the file states no Force unit" in text
    rims = {w.name: w.rim_diameter for w in car.wheels}
    assert rims == {"FL": None, "FR": None, "RL": 254.0, "RR": 254.0}
    # Vertical Offset 0: the front contact patches at z = 0 (C = CP - r u, u pointing down).
    points = car.point_map()
    for name, sgn in (("FL", 1.0), ("FR", -1.0)):
        s = optimumk_axis(-0.96, 0.5, sgn)
        u_z = -sgn * s[1] / math.hypot(s[1], s[2])  # side (0, s_z, -s_y)/|.|: down
        assert u_z < 0
        assert points[f"{name}_WheelCentre"][2] == pytest.approx(-205.5 * u_z, abs=1e-9)


def test_a_coordinate_matrix_row_with_a_fourth_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    matrix = [[None, "Coordinate System", 1, 0, 0, 7], [None, None, 0, 1, 0], [None, None, 0, 0, 1]]
    files = real_files(tmp_path, coordinate_text=None, option_rows=matrix)
    sheet, row = row_of(files[0], "Coordinate System")
    code, _, err = run_cli(import_argv(*files, tmp_path / "car.xlsx"), capsys)
    assert code == 2 and "holds 4 numbers, not 3" in err
    assert f"Front.xlsx: {sheet}!F{row}" in err


def test_reference_point_block_in_optimumks_own_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real OptimumK export (a public Formula Student project) writes the block with a
    header row on the title row, ``Reference Point | Reference Point Name | | Attachement |
    | X | Y | Z``, one point per row: empty, it is skipped; a point row under it is left
    out with a warning naming its cell (a measuring point moves no link)."""
    import openpyxl
    from _optimumk_files import cell_of, set_cells

    front, rear, setup = real_files(tmp_path)
    sheet, ref = cell_of(front, "Reference Point")
    row = int(ref[1:])
    book = openpyxl.load_workbook(front)
    for merged in [m for m in book[sheet].merged_cells.ranges if m.min_row <= row <= m.max_row]:
        book[sheet].unmerge_cells(str(merged))
    book.save(front)
    header = {"B": "Reference Point Name", "D": "Attachement", "F": "X", "G": "Y", "H": "Z"}
    set_cells(front, sheet, {f"{c}{row}": v for c, v in header.items()})
    out = tmp_path / "car.xlsx"
    code, _, err = run_cli(import_argv(front, rear, setup, out), capsys)
    assert code == 0, err
    assert "Reference Point Name" not in err
    baseline = read_car(out)

    point = {"B": "Datum", "D": "Chassis", "F": 1000, "G": 0, "H": 0}
    set_cells(front, sheet, {f"{c}{row + 1}": v for c, v in point.items()})
    out2 = tmp_path / "car2.xlsx"
    code, _, err = run_cli(import_argv(front, rear, setup, out2), capsys)
    assert code == 0, err
    assert f"{front.name}: {sheet}!B{row + 1}: Reference Point 'Datum' is not imported" in err
    assert read_car(out2).points == baseline.points
