"""OptimumK's own result exports, read with no map, and the optimumk preset's definitions.

The export files are built here with openpyxl and the csv module from the
documented facts of OptimumK's layout (docs/validation.md, "OptimumK result
exports"): v2.x names ``Quantity [Side] [Axle] (unit)``, the older
``Quantity [Front Left] (unit)``, ``Motion [Heave|Roll|Pitch|Steering]``, a title
block, the table view's statistic rows before ``Step [0]``; .xlsx and .csv in
UTF-8, UTF-8 with BOM, UTF-16 tab-separated (Excel's "Unicode text") and
semicolon-separated with decimal commas. No third-party file is used.

The channel values come from our own model in the optimumk preset, so a
correct reader and drive give zero difference: those are plumbing tests (header
parsing, registry lookup, perturbation detection), no evidence of agreement. The
definitions themselves are checked against hand geometry (closed forms) below, and
agreement with independent numbers against the SolveSpace references (the
``..._reference_...`` tests here and in test_optimumk_validate.py).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from _cars import four_corner_car
from _metric_cars import TYRE_RADIUS, fixed_wheel_car
from scipy.spatial.transform import Rotation

from suspension_sim import Model
from suspension_sim.cli import main
from suspension_sim.metrics import pose_metrics, wheel
from suspension_sim.solve.solver import Pose, SolveInfo
from suspension_sim.solve.state import State
from suspension_sim.sweeps.motions import ground_targets
from suspension_sim.validation import load_channel_map, read_export, validate, write_report

RATIO = 0.2  # mm of rack per steering-wheel degree
SIDE_AXLE = {"FL": ("Left", "Front"), "FR": ("Right", "Front")}
SIDE_AXLE |= {"RL": ("Left", "Rear"), "RR": ("Right", "Rear")}
CORNER = {w: f"{a} {s}" for w, (s, a) in SIDE_AXLE.items()}
# (OptimumK quantity, unit, our column with {w})
CHANNELS = (
    ("Camber Angle", "deg", "camber_{w}_deg"),
    ("Toe Angle", "deg", "toe_wheel_plane_{w}_deg"),
    ("Steer Angle", "deg", "steer_{w}_deg"),
    ("King Pin Inclination", "deg", "kpi_{w}_deg"),
    ("Scrub Radius", "mm", "scrub_vehicle_{w}_mm"),
    ("Mechanical Trail", "mm", "trail_vehicle_{w}_mm"),
    ("Wheel Center Y", "mm", "wheel_centre_{w}_y_mm"),
    ("Contact Patch Z", "mm", "contact_patch_{w}_z_mm"),
    ("CoilOver Length", "mm", "damper_length_{w}_Damper_mm"),
    ("Push/Pull Length", "mm", "pushrod_length_{w}_mm"),
    ("Motion Ratio Heave", "-", "motion_ratio_heave_{w}"),
)
# heave mm (+ up), roll deg (+ left up), pitch deg (+ nose down), steering-wheel deg
# (+ = rack toward +Y): OptimumK's signs (docs/conventions.md)
MOTION = np.array(
    [
        [0.0, 0.0, 0.0, 0.0],
        [12.0, 0.0, 0.0, 0.0],
        [-12.0, 0.8, 0.0, 0.0],
        [0.0, 0.0, 0.6, 25.0],
        [5.0, -0.5, -0.3, -30.0],
    ]
)
STATS = ("Maximum Value", "Minimum Value", "Average Value", "Std Deviation Value")


@pytest.fixture(scope="module")
def model() -> Model:
    car = four_corner_car()
    assert car.rack is not None
    return Model(
        dataclasses.replace(car, rack=dataclasses.replace(car.rack, ratio_mm_per_deg=RATIO))
    )


EXAMPLE = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


@pytest.fixture(scope="module")
def car() -> Model:
    """The example car (its roll and pitch centres are finite: OptimumK's motion style
    rolls and pitches about them)."""
    import suspension_sim

    return suspension_sim.load(EXAMPLE)


@pytest.fixture(scope="module")
def table(car: Model) -> dict[str, list[float]]:
    """{OptimumK v2 header: values}: the example car through MOTION in OptimumK's motion
    style, every channel OptimumK's definitions give (suspension_sim.optimumk.channels)."""
    return optimumk_table(car, MOTION)


def optimumk_table(model: Model, motion: np.ndarray) -> dict[str, list[float]]:
    """The channels of `optimumk_channels` under their OptimumK headers (unit in round
    brackets, none for a plain ratio), plus a channel of OptimumK's we do not compute."""
    from suspension_sim.optimumk.channels import Scope, optimumk_channels, quantity, split_key
    from suspension_sim.optimumk.motion import optimumk_motion

    m = optimumk_motion(model, *(motion[:, i] for i in range(4)))
    assert not m.problems
    out = {
        "Motion [Heave] (mm)": list(motion[:, 0]),
        "Motion [Roll] (deg)": list(motion[:, 1]),
        "Motion [Pitch] (deg)": list(motion[:, 2]),
        "Motion [Steering] (deg)": list(motion[:, 3]),
    }
    for key, values in optimumk_channels(model, m.poses, motion=m).items():
        if key.startswith("Motion ["):
            continue
        name, side, axle = split_key(key)
        scope: Scope = (
            "corner" if side and axle else ("axle" if axle else ("side" if side else "car"))
        )
        unit = quantity(name, scope).unit
        out[key if unit == "-" else f"{key} ({unit})"] = [float(v) for v in values]
    for side, axle in SIDE_AXLE.values():  # listed as not computed, never an error
        out[f"Damper Velocity [{side}] [{axle}] (mm/s)"] = [0.0] * len(motion)
    return out


def older_names(header: str) -> str:
    """``Camber Angle [Left] [Front] (deg)`` -> ``Camber Angle [Front Left] (deg)``."""
    for side, axle in SIDE_AXLE.values():
        header = header.replace(f"[{side}] [{axle}]", f"[{axle} {side}]")
    return header


def write_xlsx(path: Path, table: dict[str, list[float]], *, title: bool = True) -> Path:
    """OptimumK's table view: title block, header, statistic rows, then Step [n] rows."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    if title:
        for row in (
            ["Name", "heave roll pitch steering"],
            ["Type", "Result"],
            ["Version", "2.3.0"],
            ["User Options"],
            ["Length", "mm"],
            ["Angle", "deg"],
            [],
        ):
            ws.append(row)
    ws.append(["", *table])
    data = np.array(list(table.values()))
    for label, values in zip(
        STATS, (data.max(1), data.min(1), data.mean(1), data.std(1)), strict=True
    ):
        ws.append([label, *values.tolist()])
    for i in range(data.shape[1]):
        ws.append([f"Step [{i}]", *data[:, i].tolist()])
    wb.save(path)
    return path


def write_csv(
    path: Path,
    table: dict[str, list[float]],
    *,
    encoding: str,
    delimiter: str,
    decimal_comma: bool = False,
    rename: bool = False,
) -> Path:
    """The same table as text (Excel's CSV UTF-8, Unicode text, or a European CSV)."""
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter, lineterminator="\r\n")
    heads = [older_names(h) if rename else h for h in table]
    writer.writerow(["Name", "csv export"])
    writer.writerow(["Version", "2.3.0"])
    writer.writerow([])
    writer.writerow(["", *heads])
    data = np.array(list(table.values()))

    def cell(v: float) -> str:
        text = repr(float(v))
        return text.replace(".", ",") if decimal_comma else text

    for label, values in (("Maximum Value", data.max(1)), ("Std Deviation Value", data.std(1))):
        writer.writerow([label, *map(cell, values)])
    for i in range(data.shape[1]):
        writer.writerow([f"Step [{i}]", *map(cell, data[:, i])])
    path.write_bytes(buf.getvalue().encode(encoding))
    return path


LAYOUTS = {
    "xlsx v2 names": lambda p, t: write_xlsx(p / "results.xlsx", t),
    "csv UTF-8, older names": lambda p, t: write_csv(
        p / "results.csv", t, encoding="utf-8", delimiter=",", rename=True
    ),
    "csv UTF-8 with BOM": lambda p, t: write_csv(
        p / "results.csv", t, encoding="utf-8-sig", delimiter=","
    ),
    "Unicode text (UTF-16, tab)": lambda p, t: write_csv(
        p / "results.txt", t, encoding="utf-16", delimiter="\t"
    ),
    "csv semicolon, decimal comma": lambda p, t: write_csv(
        p / "results.csv", t, encoding="utf-8", delimiter=";", decimal_comma=True
    ),
}


# -- reading ---------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_layout_reads_with_no_map(
    layout: str, table: dict[str, list[float]], tmp_path: Path
) -> None:
    export = read_export(LAYOUTS[layout](tmp_path, table))
    assert export.n_steps == len(MOTION)
    assert list(export.steps) == list(range(len(MOTION)))  # from the "Step [n]" labels
    # the statistic rows are not steps, and are said
    assert [s.split(" (")[0] for s in export.skipped] == (
        list(STATS) if layout.startswith("xlsx") else ["Maximum Value", "Std Deviation Value"]
    )
    assert set(export.motion()) == {"heave", "roll", "pitch", "steering"}
    np.testing.assert_allclose(export.motion()["steering"].values, MOTION[:, 3])
    camber = export.find("Camber Angle Front Right")
    assert camber is not None
    np.testing.assert_allclose(
        camber.values, table["Camber Angle [Right] [Front] (deg)"], rtol=1e-15
    )
    coil = export.find("CoilOver Length Rear Left")
    assert coil is not None and coil.header.label == "CoilOver Length"
    wb = export.find("Wheelbase Right")  # a side channel
    assert wb is not None and wb.header.name == "Wheelbase [Right]"
    rc = export.find("Roll Center Z Rear")  # an axle channel: OptimumK's roll centre
    assert rc is not None and rc.header.name == "Roll Center Z [Rear]"
    fv = export.find("Front View Instant Center Z Front Left")  # Front inside the name
    assert fv is not None and fv.header.label == "Front View Instant Center Z"
    # OptimumK channels we do not compute: each listed once, never an error
    assert sum("Damper Velocity" in t for t in export.ignored) == 4
    assert export.style == "optimumk"
    if layout.startswith("xlsx"):
        assert ("Version", "2.3.0") in export.title


@pytest.mark.parametrize(
    "options",
    [
        (["User Options"], ["Length", "m"]),
        (["User Options", "Length", "meter", "m"], ["", "Angle", "degree", "deg"]),  # one row
    ],
    ids=["rows", "one-row"],
)
def test_title_block_units_apply_to_headers_without_one(
    tmp_path: Path, options: tuple[list[str], ...]
) -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    for row in (["Name", "run"], ["Type", "Result"], *options, []):
        ws.append(row)
    ws.append(
        ["", "Motion [Heave]", "Wheel Center X [Left] [Front]", "Camber Angle [Left] [Front] (deg)"]
    )
    ws.append(["Step [0]", 0.01, 1.5, -1.0])
    path = tmp_path / "m.xlsx"
    wb.save(path)
    export = read_export(path)
    assert export.motion()["heave"].values[0] == pytest.approx(10.0)  # m -> mm
    x = export.find("Wheel Center X Front Left")
    assert x is not None and x.values[0] == pytest.approx(1500.0)
    cam = export.find("Camber Angle Front Left")
    assert cam is not None and cam.values[0] == pytest.approx(-1.0)  # its own unit


def test_a_title_word_that_names_a_channel_is_not_the_header(tmp_path: Path) -> None:
    """A title block "Name | Heave" must not be taken for the header row."""
    path = tmp_path / "t.csv"
    path.write_text(
        "Name,Heave\nType,Result\n\n,Motion [Heave] (mm),Camber Angle [Left] [Front] (deg)\n"
        "Step [0],0,-1.5\nStep [1],5,-1.6\n",
        encoding="utf-8",
    )
    export = read_export(path)
    assert export.n_steps == 2 and export.find("Camber Angle Front Left") is not None


# -- the motion comes from the export ------------------------------------------------------------
@pytest.mark.parametrize("layout", ["xlsx v2 names", "Unicode text (UTF-16, tab)"])
def test_our_own_export_validates_with_zero_difference(
    layout: str, car: Model, table: dict[str, list[float]], tmp_path: Path
) -> None:
    """Plumbing: `table` is our own optimumk_channels, so zero difference is by
    construction; this checks the layouts' parsing, the motion inputs and that every
    column is compared or listed (independent numbers: the SolveSpace tests below)."""
    export = read_export(LAYOUTS[layout](tmp_path, table))
    result = validate(car, export)
    assert result.passed, result.summary()
    assert not result.failed_steps
    # every motion channel drove the model, in OptimumK's signs and steering unit
    assert {c.split(" (")[0] for c in result.inputs} == {
        "Motion [Heave]",
        "Motion [Roll]",
        "Motion [Pitch]",
        "Motion [Steering]",
    }
    # every channel of the export is compared or listed with its reason
    compared = {c.column.header.text for c in result.compared}
    listed = {t for t, _ in result.not_compared}
    motions = {h for h in table if h.startswith("Motion [")}
    assert compared | listed | motions == set(table) and not compared & listed
    assert len(compared) >= 150
    for c in result.compared:
        assert c.max_abs < 1e-9, (c.channel, c.max_abs)


def test_a_channel_off_by_a_tenth_of_a_degree_fails_naming_it(
    car: Model, table: dict[str, list[float]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Plumbing (our own values, perturbed): the perturbation is detected and named."""
    bad = dict(table)
    key = "Toe Angle [Right] [Front] (deg)"
    bad[key] = list(bad[key])
    bad[key][3] += 0.1
    export = read_export(write_xlsx(tmp_path / "bad.xlsx", bad))
    result = validate(car, export)
    assert [c.channel for c in result.failed_channels] == ["Toe Angle Front Right"]
    assert result.failed_channels[0].max_abs == pytest.approx(0.1, abs=1e-9)
    assert result.failed_channels[0].at_step == 3
    report = write_report(result, tmp_path / "report", plots=False).read_text()
    assert "**Toe Angle Front Right**" in report
    assert "Skipped 4 statistic row(s)" in report
    assert report.count("`Damper Velocity`") == 1  # listed once, with its corners
    assert "`Damper Velocity` (Front Left, Front Right, Rear Left, Rear Right)" in report
    assert "**Not compared: not computed by suspension_sim** (4 channels)" in report


def test_cli_says_what_it_skipped_and_did_not_compare(
    car: Model,
    table: dict[str, list[float]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI path on the example workbook."""
    wb = EXAMPLE
    export = write_xlsx(tmp_path / "results.xlsx", table)
    code = main(["validate", str(wb), str(export), "--out", str(tmp_path / "r"), "--no-plots"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "skipped 4 statistic row(s): Maximum Value" in out
    result = validate(car, read_export(export))
    assert f"{len(result.not_compared)} column(s) not compared" in out
    report = (tmp_path / "r" / "report.md").read_text()
    inputs = report.split("Inputs taken from the export")[1].splitlines()[0]
    assert "`Motion [Steering] (deg)`" in inputs
    assert "OptimumK's motion style" in report


def test_a_mapped_channel_keeps_its_corner(model: Model, tmp_path: Path) -> None:
    """A channel we read only through a map is compared with that corner's column."""
    targets = ground_targets(model)
    rows = [
        pose_metrics(State(chassis=(0, 0, h, 0, 0, 0), targets=targets).solve(model), "optimumk")
        for h in (0.0, 10.0, -10.0)
    ]
    path = tmp_path / "bump.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["", "Motion [Heave] (mm)", "Bump Steer [Right] [Front] (deg/mm)"])
        for i, (h, r) in enumerate(zip((0.0, 10.0, -10.0), rows, strict=True)):
            w.writerow([f"Step [{i}]", h, repr(r["bump_steer_FR_deg_per_mm"])])
    mapfile = tmp_path / "map.yaml"
    mapfile.write_text("channels:\n  Bump Steer [Right] [Front]: {metric: bump_steer}\n")
    cmap = load_channel_map(mapfile)
    result = validate(model, read_export(path, cmap), channel_map=cmap)
    (c,) = result.compared
    assert c.key == "bump_steer_FR_deg_per_mm" and c.location == "Front Right"
    assert result.passed and c.max_abs < 1e-12


def test_a_lateral_axis_positive_right_is_turned_into_ours(
    car: Model, table: dict[str, list[float]], tmp_path: Path
) -> None:
    """One team's OptimumK file has Y positive to the right: its left wheels at -Y. A
    plumbing test (the values are ours; the SolveSpace one is in
    test_optimumk_validate.py): the Y coordinates, Motion [Steering] and the steer-sense
    channels written negated (docs/validation.md) are read back into our frame."""
    steer_sense = (
        "Steer Angle",
        "Steering Rack Displacement",
        "Steering Toe Angle Gain",
        "Steering Camber Angle Gain",
        "Motion Ratio Steering",
        "Motion [Steering]",
    )

    def negated(k: str) -> bool:
        return (k.endswith("] (mm)") and " Y [" in k) or k.startswith(steer_sense)

    mirrored = {k: ([-v for v in vals] if negated(k) else vals) for k, vals in table.items()}
    assert mirrored["Wheel Center Y [Left] [Front] (mm)"][0] < 0
    export = read_export(write_xlsx(tmp_path / "m.xlsx", mirrored))
    assert any("positive to the right" in note for note in export.reading)
    result = validate(car, export)
    assert result.passed, result.summary()
    assert "Contact Patch Y Rear Right" in {c.channel for c in result.compared}
    # MOTION rolls or pitches from step 2 on: only steps 0 and 1 are compared
    assert all(not c.valid[2:].any() for c in result.compared)


# -- the optimumk preset's definitions, by hand ---------------------------------------------------
def design_pose(model: Model) -> Pose:
    """The design condition of a rigidly fixed hub (nothing to solve)."""
    info = SolveInfo(True, "none", 0, 0, 0, 0.0, 1e-6, 0.0, 1.0, False)
    return Pose(model, np.zeros(model.n_params), {}, 0.0, (0.0,) * 6, info)  # type: ignore[arg-type]


def spin(tilt: float, turn: float, side: int) -> np.ndarray:
    """Outboard spin axis: the top tilted inboard by `tilt`, then turned by `turn` about +Z."""
    tilted = Rotation.from_euler("x", side * tilt, degrees=True)
    return (Rotation.from_euler("z", turn, degrees=True) * tilted).apply([0.0, side, 0.0])


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize(("tilt", "turn"), [(2.25, 0.3), (2.25, 5.0), (-1.0, -12.0)])
def test_wheel_plane_toe_is_cos_camber_times_the_top_view_toe(
    side: int, tilt: float, turn: float
) -> None:
    name = "FL" if side > 0 else "FR"
    model = Model(
        fixed_wheel_car(np.array([0.0, side * 600.0, 260.0]), spin(tilt, turn, side), name=name)
    )
    iso = pose_metrics(design_pose(model), "iso", rates=False)
    ok = pose_metrics(design_pose(model), "optimumk", rates=False)
    # Hand: the wheel plane's normal is s = (-sin(turn) cos(tilt), ...): the angle of the
    # plane to X is asin(|s.x|); the top view sees the full turn. toe-in > 0 in iso.
    top = -side * turn
    plane = -side * math.degrees(
        math.asin(math.sin(math.radians(turn)) * math.cos(math.radians(tilt)))
    )
    assert iso[f"toe_{name}_deg"] == pytest.approx(top, abs=1e-12)
    assert iso[f"toe_wheel_plane_{name}_deg"] == pytest.approx(plane, abs=1e-12)
    assert ok[f"toe_wheel_plane_{name}_deg"] == pytest.approx(-plane, abs=1e-12)  # + = toe-out
    # the closed form: sin(toe_wheel_plane) = cos(camber) sin(toe)
    cam = math.radians(iso[f"camber_chassis_{name}_deg"])
    assert math.sin(math.radians(iso[f"toe_wheel_plane_{name}_deg"])) == pytest.approx(
        math.cos(cam) * math.sin(math.radians(top)), abs=1e-15
    )
    if tilt == 2.25 and turn == 0.3:  # the real car of docs/conventions.md: a few thousandths
        assert abs(iso[f"toe_{name}_deg"] - iso[f"toe_wheel_plane_{name}_deg"]) < 1e-3


def test_contact_patch_by_hand() -> None:
    c = np.array([10.0, 600.0, 260.0])
    r = 230.0
    # A wheel turned by d with camber, h along its own heading: the patch is the lowest point.
    for tilt, d in ((3.0, 0.0), (3.0, 15.0), (-2.0, -20.0)):
        s = spin(tilt, d, 1)
        h = wheel.turned_heading(np.array([1.0, 0, 0]), np.array([0, 1.0, 0]), math.radians(d))
        np.testing.assert_allclose(
            wheel.contact_patch(c, s, r, h), wheel.contact_point(c, s, r), atol=1e-12
        )
    # Static toe, no steer: h is the vehicle X axis, so the patch is C + r (0, s_z, -s_y)/|.|
    # and stays in the plane x = C.x; the lowest point moves r s_x s_z / |d| along x.
    s = spin(2.25, 3.0, 1)
    patch = wheel.contact_patch(c, s, r, np.array([1.0, 0.0, 0.0]))
    hand = c + r * np.array([0.0, s[2], -s[1]]) / math.hypot(s[1], s[2])
    np.testing.assert_allclose(patch, hand, atol=1e-12)
    lowest = wheel.contact_point(c, s, r)
    assert lowest[0] - c[0] == pytest.approx(r * s[0] * s[2] / math.sqrt(1 - s[2] ** 2), abs=1e-12)
    assert 0.2 < abs(lowest[0] - patch[0]) < 1.0  # "a few tenths of a mm in x"


@pytest.mark.parametrize("side", [1, -1])
def test_scrub_and_trail_in_the_vehicle_views_by_hand(side: int) -> None:
    """Kingpin through a chosen ground point G; the wheel toed 3 deg, cambered 2 deg."""
    name = "FL" if side > 0 else "FR"
    c = np.array([0.0, side * 600.0, 260.0])
    s = spin(2.0, 3.0, side)
    u = np.array([0.0, s[2], -s[1]]) / math.hypot(s[1], s[2])  # s x (1, 0, 0), unit
    patch = c + TYRE_RADIUS * (u if u[2] < 0 else -u)  # taken pointing down
    g = np.array([25.0, side * 560.0, patch[2]])  # G: ahead of and inboard of the patch
    k = np.array([-0.1, -side * 0.15, 1.0]) / np.linalg.norm([-0.1, -0.15, 1.0])  # caster, KPI
    model = Model(fixed_wheel_car(c, s, kingpin=(g + 50.0 * k, g + 250.0 * k), name=name))
    m = pose_metrics(design_pose(model), "optimumk", rates=False)
    np.testing.assert_allclose([m[f"contact_patch_{name}_{a}_mm"] for a in "xyz"], patch, atol=1e-9)
    assert m[f"scrub_vehicle_{name}_mm"] == pytest.approx(side * (patch[1] - g[1]), abs=1e-9)
    assert m[f"trail_vehicle_{name}_mm"] == pytest.approx(g[0] - patch[0], abs=1e-9)
    assert m[f"scrub_vehicle_{name}_mm"] > 0 and m[f"trail_vehicle_{name}_mm"] > 0
    # the wheel-axes scrub differs once the wheel is toed
    assert abs(m[f"scrub_radius_{name}_mm"] - m[f"scrub_vehicle_{name}_mm"]) > 0.5


def test_steer_has_one_heading_sign_so_heave_steers_the_wheels_oppositely(model: Model) -> None:
    pose = State(chassis=(0, 0, -15.0, 0, 0, 0), targets=ground_targets(model)).solve(model)
    ok, iso = pose_metrics(pose, "optimumk"), pose_metrics(pose, "iso")
    assert abs(ok["steer_FL_deg"]) > 0.1  # the test corner has bump steer
    assert ok["steer_FR_deg"] == pytest.approx(-ok["steer_FL_deg"], abs=1e-9)
    design = pose_metrics(model.solve(), "optimumk")
    for w, side in (("FL", 1), ("FR", -1)):
        # steer = toe (+ out) minus the static toe, as a heading + = left: side * change
        change = ok[f"toe_wheel_plane_{w}_deg"] - design[f"toe_wheel_plane_{w}_deg"]
        assert ok[f"steer_{w}_deg"] == pytest.approx(side * change, abs=1e-12)
        # iso's steer is the change of the top-view toe: close, not equal (camber moves)
        assert iso[f"steer_{w}_deg"] == pytest.approx(ok[f"steer_{w}_deg"], abs=1e-3)


def test_motion_ratio_heave_is_heave_over_coilover_length(model: Model) -> None:
    targets = ground_targets(model)
    h = 0.05
    lengths = []
    for z in (h, -h):
        pose = State(chassis=(0, 0, z, 0, 0, 0), targets=targets).solve(model, tolerance=1e-12)
        lengths.append(pose_metrics(pose, rates=False)["damper_length_FL_Damper_mm"])
    at_design = pose_metrics(model.solve())["motion_ratio_heave_FL"]
    assert at_design == pytest.approx(2 * h / (lengths[0] - lengths[1]), rel=1e-6)
    assert at_design > 0  # the coilover extends as the chassis rises


def test_pushrod_length_is_the_rod_between_arm_and_rocker(model: Model) -> None:
    m = pose_metrics(model.solve(shocks=[5.0, 0.0, -3.0, 0.0]), rates=False)
    pr = {p.name: np.array(p.xyz) for p in model.car.points}
    for w in ("FL", "FR", "RL", "RR"):
        length = float(np.linalg.norm(pr[f"{w}_PR_O"] - pr[f"{w}_PR_I"]))
        assert m[f"pushrod_length_{w}_mm"] == pytest.approx(length, abs=1e-9)


def test_optimumk_roll_centre_from_the_instant_axes() -> None:
    """Planar arms (pivot axes along X): the instant axis is the arm-line crossing, so
    OptimumK's roll centre and ours are the textbook one. Skewed arms: the lines
    CP -> instant-axis pierce point, by hand, and not our force-based centre."""
    from _metric_cars import TYPICAL_ARMS, front_view_ic, wishbone_car

    m = pose_metrics(Model(wishbone_car(("FL", "FR"))).solve())
    cp_y, cp_z = m["contact_point_FL_y_mm"], m["contact_point_FL_z_mm"]
    ic_y, ic_z = front_view_ic(TYPICAL_ARMS)
    textbook = cp_z + (ic_z - cp_z) * (0.0 - cp_y) / (ic_y - cp_y)  # at the centreline
    assert m["roll_centre_axis_height_front_mm"] == pytest.approx(textbook, abs=1e-6)
    assert m["roll_centre_height_front_mm"] == pytest.approx(textbook, abs=1e-6)

    skewed = pose_metrics(Model(four_corner_car()).solve())
    (y1, z1), (y2, z2) = (
        (skewed[f"contact_point_{w}_y_mm"], skewed[f"contact_point_{w}_z_mm"]) for w in ("FL", "FR")
    )
    (a1, b1), (a2, b2) = (
        (skewed[f"fvic_axis_{w}_y_mm"], skewed[f"fvic_axis_{w}_z_mm"]) for w in ("FL", "FR")
    )
    t = np.linalg.solve([[a1 - y1, -(a2 - y2)], [b1 - z1, -(b2 - z2)]], [y2 - y1, z2 - z1])
    assert skewed["roll_centre_axis_height_front_mm"] == pytest.approx(
        z1 + t[0] * (b1 - z1), abs=1e-6
    )
    assert (
        abs(skewed["roll_centre_axis_height_front_mm"] - skewed["roll_centre_height_front_mm"])
        > 0.1
    )


def test_docs_show_every_optimumk_header_we_read() -> None:
    from suspension_sim.optimumk.channels import QUANTITIES
    from suspension_sim.validation.mapfiles import optimumk_channels_markdown

    root = Path(__file__).resolve().parents[1]
    table = optimumk_channels_markdown()
    assert table in (root / "docs" / "validation.md").read_text()
    assert len(table.splitlines()) == 2 + len(QUANTITIES)  # every quantity of the registry
    example = root / "validation" / "optimumk_layout"
    assert (example / "export.xlsx").exists() and (example / "report" / "report.md").exists()


def test_steering_toe_gain_and_ratio_per_steering_wheel_degree(model: Model) -> None:
    """Central differences of solved poses, tyres on the ground, OptimumK's steering sign."""
    targets = ground_targets(model)
    d = 0.05  # steering-wheel degrees
    rows = [
        pose_metrics(
            State(rack=s * RATIO, targets=targets).solve(model, tolerance=1e-12), "optimumk"
        )
        for s in (d, -d)
    ]
    at = pose_metrics(model.solve(), "optimumk")
    steer = []
    for w in ("FL", "FR"):
        # OptimumK: Steering Toe Angle Gain = -d toe / d SW
        gain = -(rows[0][f"toe_wheel_plane_{w}_deg"] - rows[1][f"toe_wheel_plane_{w}_deg"]) / (
            2 * d
        )
        assert at[f"steering_toe_gain_{w}_deg_per_deg"] == pytest.approx(gain, rel=1e-6)
        steer.append((rows[0][f"steer_{w}_deg"] - rows[1][f"steer_{w}_deg"]) / (2 * d))
    # OptimumK: Steering Ratio = 1 / mean(d steer / d SW)
    assert at["steering_ratio_front"] == pytest.approx(1.0 / np.mean(steer), rel=1e-6)
    assert math.isnan(at["steering_ratio_rear"])  # the rack does not steer the rear


def test_a_car_without_rack_takes_an_export_that_never_steers(tmp_path: Path) -> None:
    """OptimumK writes Motion [Steering] and the rack channel even when they stay at 0."""
    from _metric_cars import wishbone_car

    axle = Model(wishbone_car(("FL", "FR")))
    full = optimumk_table(axle, np.array([[0.0, 0, 0, 0], [10.0, 0, 0, 0], [-10.0, 0, 0, 0]]))
    table = {
        "Motion [Heave] (mm)": [0.0, 10.0, -10.0],
        "Motion [Steering] (deg)": [0.0] * 3,
        "Steering Rack Displacement [Front] (mm)": [0.0] * 3,
        "Camber Angle [Left] [Front] (deg)": full["Camber Angle [Left] [Front] (deg)"],
    }
    result = validate(axle, read_export(write_xlsx(tmp_path / "axle.xlsx", table)))
    assert result.passed, result.summary()
    assert [c.channel for c in result.compared] == ["Camber Angle Front Left"]
    assert result.not_compared == [
        ("Steering Rack Displacement [Front] (mm)", "no value for this car")
    ]


def test_a_channel_this_car_never_fills_is_listed_not_failed(tmp_path: Path) -> None:
    """Push/Pull Length on a car whose dampers act on the arms: no rod, not a failure;
    a channel blank in the export is listed as such, not failed."""
    from _metric_cars import wishbone_car

    axle = Model(wishbone_car(("FL", "FR")))
    assert math.isnan(pose_metrics(axle.solve(), rates=False)["pushrod_length_FL_mm"])
    full = optimumk_table(axle, np.array([[0.0, 0, 0, 0], [5.0, 0, 0, 0]]))
    table = {
        "Motion [Heave] (mm)": [0.0, 5.0],
        "Push/Pull Length [Left] [Front] (mm)": [300.0, 300.0],
        "Toe Angle [Left] [Front] (deg)": [math.nan, math.nan],
        "Camber Angle [Left] [Front] (deg)": full["Camber Angle [Left] [Front] (deg)"],
    }
    result = validate(axle, read_export(write_xlsx(tmp_path / "a.xlsx", table)))
    assert result.passed and [c.channel for c in result.compared] == ["Camber Angle Front Left"]
    assert sorted(result.not_compared) == [
        ("Push/Pull Length [Left] [Front] (mm)", "no value for this car"),
        ("Toe Angle [Left] [Front] (deg)", "blank in the export at every step"),
    ]


# -- independent references in OptimumK's own layouts -------------------------------------------
REFERENCES = Path(__file__).resolve().parents[1] / "validation"
MOTIONS = {
    "Heave [mm]": "Motion [Heave] (mm)",
    "Roll [deg]": "Motion [Roll] (deg)",
    "Pitch [deg]": "Motion [Pitch] (deg)",
    "Steering Wheel Angle [deg]": "Motion [Steering] (deg)",
    "Rack Travel [mm]": "Steering Rack Displacement (mm)",
}


def optimumk_header(name: str) -> str:
    """A reference column (``Camber Angle Front Left [deg]``) under OptimumK v2's name
    (``Camber Angle [Left] [Front] (deg)``); axle- and side-level names likewise."""
    import re

    if name in MOTIONS:
        return MOTIONS[name]
    m = re.fullmatch(r"(.+) (Front|Rear) (Left|Right) \[(.+)\]", name)
    if m:
        return f"{m[1]} [{m[3]}] [{m[2]}] ({m[4]})"
    m = re.fullmatch(r"(.+) (Front|Rear|Left|Right) \[(.+)\]", name)
    if m:
        return f"{m[1]} [{m[2]}] ({m[3]})"
    raise AssertionError(f"no OptimumK name for {name!r}")


def reference_table(case: str) -> dict[str, list[float]]:
    """The bundled reference of `case` (closed form or SolveSpace, validation/README.md)
    as {OptimumK v2 header: values}."""
    import pandas as pd

    frame = pd.read_csv(REFERENCES / case / "export.csv", comment="#").drop(columns="Step")
    return {optimumk_header(c): frame[c].astype(float).tolist() for c in frame.columns}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_an_independent_reference_validates_in_every_layout(layout: str, tmp_path: Path) -> None:
    """The closed-form corner (validation/corner_closed_form: not our solver) written in
    each OptimumK layout validates with no map; 0.1 deg on one channel fails, naming it."""
    import suspension_sim

    model = suspension_sim.load(REFERENCES / "corner_closed_form" / "corner.xlsx")
    table = reference_table("corner_closed_form")
    result = validate(model, read_export(LAYOUTS[layout](tmp_path, table), layout="table"))
    assert result.passed, result.summary()
    n_channels = len([h for h in table if not h.startswith(("Motion [", "Steering Rack"))])
    assert len(result.compared) >= n_channels  # every reference channel is compared
    bad = dict(table)
    key = "Camber Angle [Left] [Front] (deg)"
    bad[key] = [v + (0.1 if i == 7 else 0.0) for i, v in enumerate(bad[key])]
    (tmp_path / "bad").mkdir()
    failed = validate(model, read_export(LAYOUTS[layout](tmp_path / "bad", bad), layout="table"))
    assert [c.channel for c in failed.failed_channels] == ["Camber Angle Front Left"]
    assert failed.failed_channels[0].at_step == 7


@pytest.mark.slow
def test_the_solvespace_reference_of_the_whole_car_validates_in_v2_layout(tmp_path: Path) -> None:
    """The example car solved by SolveSpace (validation/fsae_car_slvs), OptimumK v2 names,
    title block and statistic rows, .xlsx: passes with no map."""
    import suspension_sim

    model = suspension_sim.load(Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx")
    table = reference_table("fsae_car_slvs")
    # The reference's steering-wheel angle is + = left turn (ISO 8855); OptimumK's is
    # + = rack toward +Y. On this car a rack moved toward +Y turns the wheels
    # (+ yaw = left) this way:
    turned = model.solve(rack=1.0)
    points = turned.points
    yaw = 0.0
    for w in model.car.wheels:
        before = model.car.point(w.axis_point) - model.car.point(w.centre)
        after = (points.loc[w.axis_point] - points.loc[w.centre]).to_numpy(float)
        yaw += float(np.cross(before, after)[2])
    sign = 1.0 if yaw > 0 else -1.0
    key = "Motion [Steering] (deg)"
    table[key] = [sign * v for v in table[key]]
    result = validate(model, read_export(write_xlsx(tmp_path / "r.xlsx", table), layout="table"))
    assert result.passed, result.summary()
    n_channels = len([h for h in table if not h.startswith("Motion [")])
    assert len(result.compared) >= n_channels
