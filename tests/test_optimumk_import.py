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
    assert "wrote" in stdout and not err

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
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(spec["Static Camber"], abs=1e-6)
        assert iso[f"camber_{wheel}_deg"] == pytest.approx(spec["Static Camber"], abs=1e-6)
        # OptimumK's toe is the wheel-plane angle, + = toe-out; iso flips the sign.
        assert ok[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(spec["Static Toe"], abs=1e-6)
        assert iso[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(-spec["Static Toe"], abs=1e-6)
        radius = spec["Tire Diameter"] / 2
        half = optimumk_half_track(ok, wheel, radius, side)
        assert half == pytest.approx(spec["Half Track"], abs=1e-6)
        # Our half_track is from the lowest point of the tyre circle, C - r unit(Z - (Z.s)s):
        # closed form from the same s, it differs from OptimumK's by micrometres.
        camber, toe = math.radians(spec["Static Camber"]), math.radians(spec["Static Toe"])
        sx, sz = -math.sin(toe), -math.sin(camber)
        sy = side * math.sqrt(1 - sx * sx - sz * sz)
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
        assert ok[f"camber_{wheel}_deg"] == pytest.approx(-1.0, abs=1e-6)
        assert ok[f"toe_wheel_plane_{wheel}_deg"] == pytest.approx(0.1, abs=1e-6)
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

    force = [[None, "Force", "newton", "N"]]
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
    assert "User Options rows not read: Force" in err
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
