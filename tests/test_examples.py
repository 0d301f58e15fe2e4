"""The example cars: checks on the TOML source data that need no solver.

Geometry (symmetry, track, wheelbase, contact points on the ground, kingpin
figures), structure (every body has two points, every point is used, a hand
mobility count per layout) and, when the workbook writer is available, that
each example survives a write/read round trip and that the committed
workbooks are up to date with their sources.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from suspension_sim.description import CHASSIS, Car, Wheel
from suspension_sim.errors import WorkbookError
from suspension_sim.workbook import examples
from suspension_sim.workbook.examples import EXAMPLES, load_source, load_toml

ROOT = Path(__file__).resolve().parents[1]
Y_UP = ((0, 0, 1), (1, 0, 0), (0, 1, 0))

REDUNDANT: dict[str, int] = {
    "fsae_car": 0,
    "fsae_car_arb": 0,
    "template": 0,
    "five_link_rear": 0,
    "macpherson_front": 1,  # two knuckle points on the strut axis
    "solid_axle_rear": 1,  # four parallel links fix only x, pitch and yaw
}
"""Consistent redundant equations of each layout at the design condition."""

SIDES = {"FL_": "FR_", "RL_": "RR_"}


@pytest.fixture(scope="module")
def cars() -> dict[str, Car]:
    return {name: load_source(name) for name in EXAMPLES}


@pytest.fixture(scope="module")
def fsae(cars: dict[str, Car]) -> Car:
    return cars["fsae_car"]


# -- helpers ------------------------------------------------------------------
def spin_axis(car: Car, w: Wheel) -> np.ndarray:
    """Unit spin axis pointing outboard (the axis point is inboard of the centre)."""
    s = car.point(w.centre) - car.point(w.axis_point)
    s /= np.linalg.norm(s)
    return s if s[1] * car.point(w.centre)[1] > 0 else -s


def contact_point(car: Car, w: Wheel) -> np.ndarray:
    """CP = C - r d/|d|, d = n - (n.s)s, n = +Z (docs/conventions.md), mm."""
    n = np.array([0.0, 0.0, 1.0])
    s = spin_axis(car, w)
    d = n - (n @ s) * s
    return car.point(w.centre) - w.tyre_radius * d / np.linalg.norm(d)


def camber_toe_deg(car: Car, w: Wheel) -> tuple[float, float]:
    s = spin_axis(car, w)
    return math.degrees(-math.asin(s[2])), math.degrees(math.atan2(s[0], abs(s[1])))


def wheel(car: Car, name: str) -> Wheel:
    return next(w for w in car.wheels if w.name == name)


def mirrored(name: str) -> str | None:
    for left, right in SIDES.items():
        if name.startswith(left):
            return right + name[len(left) :]
    return None


def mobility_count(car: Car) -> tuple[int, int, int]:
    """(unknowns with inputs locked, equations, inputs) by the modelling rules.

    Unknowns: revolute 1, universal 2, spherical 3, damper 2 (stroke locked),
    two-point link between moving bodies 5, free body 6, rack 0, fixed 0, T-bar
    lever 2 (a universal joint at its pivot, whatever its number of points).
    Equations: 3 per extra body on a point, counting only bodies other than
    the chassis (joints to the chassis are built into the body's parameters).
    """
    chassis = set(car.body(CHASSIS).points)
    dampers = {d.body for d in car.dampers}
    rack = car.rack.body if car.rack else None
    levers = {bar.arms[0] for bar in car.anti_roll_bars if bar.kind == "T-bar"}
    unknowns = 0
    for body in car.bodies:
        on_chassis = len(chassis & set(body.points))
        if body.name in (CHASSIS, rack):
            continue
        if body.name in dampers or body.name in levers:
            unknowns += 2
        elif on_chassis >= 3:
            unknowns += 0
        elif on_chassis == 2:
            unknowns += 1
        elif on_chassis == 1:
            unknowns += 2 if len(body.points) == 2 else 3
        else:
            unknowns += 5 if len(body.points) == 2 else 6
    equations = 0
    for p in car.points:
        owners = [b for b in car.bodies_of_point(p.name) if b != CHASSIS]
        equations += 3 * max(len(owners) - 1, 0)
    inputs = len(car.dampers) + (1 if car.rack else 0)
    return unknowns, equations, inputs


# -- every example ---------------------------------------------------------------
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_builds_a_valid_car(name: str, cars: dict[str, Car]) -> None:
    car = cars[name]
    assert car.name == name
    assert examples.source_path(name).is_file()
    examples.check_car(car)
    assert car.wheels and car.dampers


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_body_has_two_points_and_every_point_is_used(name: str, cars: dict[str, Car]) -> None:
    car = cars[name]
    assert all(len(b.points) >= 2 for b in car.bodies)
    used = {p for b in car.bodies for p in b.points}
    assert [p.name for p in car.points if p.name not in used] == []
    assert len({p.name for p in car.points}) == len(car.points)


@pytest.mark.parametrize("name", EXAMPLES)
def test_contact_points_sit_on_the_ground(name: str, cars: dict[str, Car]) -> None:
    car = cars[name]
    for w in car.wheels:
        cp = contact_point(car, w)
        assert abs(cp[2]) < 1e-9, w.name
        camber, _ = camber_toe_deg(car, w)
        centre_z = car.point(w.centre)[2]
        assert centre_z == pytest.approx(w.tyre_radius * math.cos(math.radians(camber)), abs=1e-9)
        assert np.linalg.norm(car.point(w.centre) - car.point(w.axis_point)) == pytest.approx(50.0)


@pytest.mark.parametrize("name", EXAMPLES)
def test_hand_mobility_count_equals_the_inputs(name: str, cars: dict[str, Car]) -> None:
    unknowns, equations, inputs = mobility_count(cars[name])
    independent = equations - REDUNDANT[name]
    assert unknowns + inputs - independent == inputs, (unknowns, equations)


@pytest.mark.parametrize("name", EXAMPLES)
def test_dampers_sit_inside_their_length_limits(name: str, cars: dict[str, Car]) -> None:
    car = cars[name]
    for d in car.dampers:
        design = float(np.linalg.norm(car.point(d.chassis_point) - car.point(d.moving_point)))
        assert d.min_length is not None and d.max_length is not None
        assert d.min_length < design < d.max_length
        assert d.chassis_point in car.body(CHASSIS).points


# -- the FSAE car ------------------------------------------------------------------
def test_fsae_car_is_exactly_mirror_symmetric(fsae: Car) -> None:
    pts = fsae.point_map()
    for name, xyz in pts.items():
        twin = mirrored(name)
        if twin is None:
            assert name.startswith(("FR_", "RR_")) or xyz[1] == 0.0, name
            continue
        x, y, z = xyz
        assert tuple(pts[twin]) == (x, -y, z), name
    bodies = {b.name: b.points for b in fsae.bodies}
    for name, points in bodies.items():
        twin = mirrored(name)
        if twin is not None:
            assert bodies[twin] == tuple(mirrored(p) or p for p in points)
    chassis = set(bodies[CHASSIS])
    assert {mirrored(p) for p in chassis if mirrored(p)} <= chassis
    assert [w.name for w in fsae.wheels] == ["FL", "FR", "RL", "RR"]
    assert [d.body for d in fsae.dampers] == ["FL_Damper", "FR_Damper", "RL_Damper", "RR_Damper"]
    assert fsae.rack is not None and fsae.rack.end_points == ("FL_TIE_I", "FR_TIE_I")
    assert pts["FL_TIE_I"][1] > 0


def test_fsae_track_and_wheelbase(fsae: Car) -> None:
    cp = {w.name: contact_point(fsae, w) for w in fsae.wheels}
    c = {w.name: fsae.point(w.centre) for w in fsae.wheels}
    assert cp["FL"][1] - cp["FR"][1] == pytest.approx(1200.0, abs=1e-9)
    assert cp["RL"][1] - cp["RR"][1] == pytest.approx(1180.0, abs=1e-9)
    assert cp["FL"][0] - cp["RL"][0] == pytest.approx(1530.0, abs=1e-9)
    assert c["FL"][1] - c["FR"][1] == pytest.approx(1200.0, abs=20.0)
    assert c["RL"][1] - c["RR"][1] == pytest.approx(1200.0, abs=40.0)
    assert c["FL"][0] - c["RL"][0] == pytest.approx(1530.0, abs=1.0)


def test_fsae_static_camber_and_toe(fsae: Car) -> None:
    expected = {"FL": (-1.0, -0.1), "FR": (-1.0, -0.1), "RL": (-1.5, 0.25), "RR": (-1.5, 0.25)}
    for name, (camber, toe) in expected.items():
        got = camber_toe_deg(fsae, wheel(fsae, name))
        assert got == pytest.approx((camber, toe), abs=1e-9), name


def test_fsae_kingpin_figures(fsae: Car) -> None:
    """Caster, KPI, scrub radius and trail by docs/conventions.md, at design."""
    for name, caster_deg, kpi_deg, scrub_mm, trail_mm in (
        ("FL", 5.0, 7.0, 35.5, 19.8),
        ("RL", 2.2, 4.5, 36.8, 10.1),
    ):
        w = wheel(fsae, name)
        assert w.kingpin_lower and w.kingpin_upper
        lo, up = fsae.point(w.kingpin_lower), fsae.point(w.kingpin_upper)
        k = (up - lo) / np.linalg.norm(up - lo)
        assert math.degrees(math.atan2(-k[0], k[2])) == pytest.approx(caster_deg, abs=0.1)
        assert math.degrees(math.atan2(-k[1], k[2])) == pytest.approx(kpi_deg, abs=0.1)
        ground = lo - lo[2] / k[2] * k
        cp = contact_point(fsae, w)
        assert cp[1] - ground[1] == pytest.approx(scrub_mm, abs=0.2)
        assert ground[0] - cp[0] == pytest.approx(trail_mm, abs=0.2)


def test_fsae_options(fsae: Car) -> None:
    o = fsae.options
    assert (o.length_unit, o.axis_map) == ("mm", ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
    assert (o.cg_height_mm, o.front_brake_share, o.rear_drive_share) == (280.0, 0.65, 1.0)
    assert o.drive_inboard and not o.front_brakes_inboard


def test_fsae_wishbone_axes_give_anti_dive_and_anti_squat(fsae: Car) -> None:
    """Front axes converge toward the rear, rear axes toward the front (side view)."""
    p = fsae.point_map()
    slope = {
        arm: (p[f"{arm}_F"][2] - p[f"{arm}_R"][2]) / (p[f"{arm}_F"][0] - p[f"{arm}_R"][0])
        for arm in ("FL_UCA", "FL_LCA", "RL_UCA", "RL_LCA")
    }
    assert slope["FL_UCA"] > 0 > slope["FL_LCA"]  # UCA falls, LCA rises toward the rear
    assert slope["RL_LCA"] > slope["RL_UCA"] > 0  # LCA rises faster toward the front


@pytest.mark.parametrize("corner", ["FL", "RL"])
def test_fsae_rocker_is_far_from_toggle(fsae: Car, corner: str) -> None:
    """Pushrod/pullrod and damper at 60-120 deg to their rocker arms at design."""
    p = fsae.point_map()
    axis = p[f"{corner}_RKR_P1"] - p[f"{corner}_RKR_P2"]
    axis /= np.linalg.norm(axis)
    pivot = p[f"{corner}_RKR_P2"]
    for eye, other in (
        (f"{corner}_PR_I", f"{corner}_PR_O"),
        (f"{corner}_DMP_R", f"{corner}_DMP_C"),
    ):
        arm = p[eye] - pivot
        arm -= (arm @ axis) * axis
        rod = p[other] - p[eye]
        cos = arm @ rod / np.linalg.norm(arm) / np.linalg.norm(rod)
        assert 60.0 <= math.degrees(math.acos(cos)) <= 120.0, eye


# -- the other layouts ----------------------------------------------------------------
def test_five_link_source_is_metres_in_a_y_up_frame(cars: dict[str, Car]) -> None:
    car = cars["five_link_rear"]
    assert car.options.length_unit == "m"
    assert car.options.axis_map == Y_UP
    # CAD (0.230, 0.130, -1.360) m -> model (-1360, 230, 130) mm
    assert tuple(car.point("RL_LF_I")) == (-1360.0, 230.0, 130.0)
    assert contact_point(car, wheel(car, "RL")) == pytest.approx([-1530.0, 590.0, 0.0], abs=1e-9)


def test_macpherson_strut_points_are_exactly_collinear(cars: dict[str, Car]) -> None:
    car = cars["macpherson_front"]
    top, low, mid = (car.point(n) for n in ("FL_STRUT_T", "FL_STRUT_B", "FL_STRUT_M"))
    assert np.all(np.cross(top - low, mid - low) == 0.0)
    assert set(car.body("FL_Strut").points) == {"FL_STRUT_T", "FL_STRUT_B", "FL_STRUT_M"}
    assert {"FL_STRUT_B", "FL_STRUT_M"} <= set(car.body("FL_Upright").points)


def test_solid_axle_links_are_parallel_equal_and_symmetric(cars: dict[str, Car]) -> None:
    car = cars["solid_axle_rear"]
    links = [b for b in car.bodies if b.name.endswith(("LowerLink", "UpperLink"))]
    assert len(links) == 4
    vectors = [car.point(b.points[1]) - car.point(b.points[0]) for b in links]
    for v in vectors:
        assert np.all(np.cross(v, vectors[0]) == 0.0)
        assert np.linalg.norm(v) == np.linalg.norm(vectors[0])
    assert [w.body for w in car.wheels] == ["Axle", "Axle"]
    assert tuple(car.point("RR_WC")) == (-1530.0, -590.0, 260.0)


# -- API, schema and generator ----------------------------------------------------------
def test_template_api(cars: dict[str, Car]) -> None:
    assert examples.template_car() == cars["template"]
    notes = examples.template_notes()
    assert notes and all(isinstance(n, str) and n for n in notes)
    assert examples.source_dir() == Path(examples.__file__).parents[1] / "data" / "examples"


def test_unknown_example_is_refused() -> None:
    with pytest.raises(KeyError):
        load_source("no_such_car")


MINI = """
name = "mini"
symmetry = "mirror left to right"
[options]
length_unit = "mm"
[points]
FL_A = [0.0, 100.0, 0.0]
FL_B = [10.0, 200.0, 0.0]
MID = [0.0, 0.0, 50.0]
FL_WC = "wheel"
FL_WA = "wheel"
[bodies]
Chassis = ["FL_A", "MID"]
FL_Arm = ["FL_A", "FL_B", "FL_WC", "FL_WA"]
[[wheels]]
name = "FL"
body = "FL_Arm"
centre = "FL_WC"
axis_point = "FL_WA"
tyre_radius = 200.0
tyre_width = 150.0
contact = [0.0, 500.0, 0.0]
camber_deg = -2.0
toe_deg = 0.5
[[dampers]]
body = "FL_Arm"
chassis_point = "FL_A"
moving_point = "FL_B"
min_length = 90.0
max_length = 110.0
"""


def test_mirror_rule_order_and_geometry(tmp_path: Path) -> None:
    path = tmp_path / "mini.toml"
    path.write_text(MINI)
    car = load_toml(path)
    names = [p.name for p in car.points]
    assert names == ["FL_A", "FL_B", "FR_A", "FR_B", "MID", "FL_WC", "FL_WA", "FR_WC", "FR_WA"]
    assert car.body(CHASSIS).points == ("FL_A", "FR_A", "MID")
    assert [b.name for b in car.bodies] == ["Chassis", "FL_Arm", "FR_Arm"]
    assert car.body("FR_Arm").points == ("FR_A", "FR_B", "FR_WC", "FR_WA")
    assert [w.name for w in car.wheels] == ["FL", "FR"]
    assert [d.body for d in car.dampers] == ["FL_Arm", "FR_Arm"]
    assert car.dampers[1].chassis_point == "FR_A"
    fl, fr = wheel(car, "FL"), wheel(car, "FR")
    assert contact_point(car, fr) == pytest.approx([0.0, -500.0, 0.0], abs=1e-9)
    assert camber_toe_deg(car, fr) == pytest.approx((-2.0, 0.5), abs=1e-9)
    assert camber_toe_deg(car, fl) == pytest.approx((-2.0, 0.5), abs=1e-9)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('length_unit = "mm"', 'length_unit = "furlong"', "unknown length unit"),
        ('length_unit = "mm"', "colour = 1", "unknown option"),
        ('FL_WA = "wheel"', 'FL_WA = "whee"', "placeholder"),
        ('Chassis = ["FL_A", "MID"]', 'Chassis = ["FL_A", "MID", "NOPE"]', "unknown points"),
        ("MID = [0.0, 0.0, 50.0]", "MID = [0.0, 0.0]", "expected [x, y, z]"),
        ("[[dampers]]", 'kingpin = ["FL_A", "NOPE"]\n[[dampers]]', "must be on a body"),
        (
            "[[dampers]]",
            '[steering]\nbody = "FL_Arm"\nend_points = ["FL_A", "FL_B"]\n[[dampers]]',
            "left (+y) end first",
        ),
    ],
)
def test_source_errors_name_the_item(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in MINI
    path = tmp_path / "bad.toml"
    path.write_text(MINI.replace(old, new))
    with pytest.raises(WorkbookError, match=re.escape(message)) as info:
        load_toml(path)
    assert str(path) in str(info.value)


# -- workbooks ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def workbook_io():
    from suspension_sim.workbook import read_car, write_car

    return write_car, read_car


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_round_trips_through_a_workbook(
    name: str, cars: dict[str, Car], workbook_io, tmp_path: Path
) -> None:
    write_car, read_car = workbook_io
    path = write_car(cars[name], tmp_path / f"{name}.xlsx", notes=examples.template_notes())
    again = read_car(path)
    assert again == cars[name]
    assert again.warnings == ()


@pytest.mark.parametrize("name", EXAMPLES)
def test_committed_workbook_matches_its_source(
    name: str, cars: dict[str, Car], workbook_io
) -> None:
    _, read_car = workbook_io
    path = ROOT / "workbooks" / f"{name}.xlsx"
    assert path.exists(), f"{path} missing: run scripts/make_example_workbooks.py"
    assert read_car(path) == cars[name], "stale: run scripts/make_example_workbooks.py --force"


def test_generator_script_writes_keeps_and_refuses_stale(
    workbook_io, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util
    import shutil

    spec = importlib.util.spec_from_file_location(
        "make_example_workbooks", ROOT / "scripts" / "make_example_workbooks.py"
    )
    assert spec and spec.loader
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--out", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.xlsx")) == sorted(EXAMPLES)
    assert script.notes_in(tmp_path / "template.xlsx") == examples.template_notes()
    capsys.readouterr()
    before = (tmp_path / "fsae_car.xlsx").read_bytes()
    assert script.main(["--out", str(tmp_path), "fsae_car"]) == 0
    assert "up to date" in capsys.readouterr().out
    assert (tmp_path / "fsae_car.xlsx").read_bytes() == before  # untouched
    shutil.copy(tmp_path / "template.xlsx", tmp_path / "fsae_car.xlsx")
    assert script.main(["--out", str(tmp_path), "fsae_car"]) == 1
    assert "stale" in capsys.readouterr().out
    assert script.main(["--out", str(tmp_path), "--force", "fsae_car"]) == 0
    _, read_car = workbook_io
    assert read_car(tmp_path / "fsae_car.xlsx") == load_source("fsae_car")
