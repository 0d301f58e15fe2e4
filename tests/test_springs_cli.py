"""`suspension-sim springs` end to end on the example car, checked against solved poses.

The truths are independent of `suspension_sim.loads.springs`: motion ratios from
finite differences of poses solved at strokes +- h (wheel-centre travel measured
from the points), contact patches computed from the solved wheel centre, spin
axis and tyre radius, and the weight m g.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from suspension_sim import Model, load
from suspension_sim.cli import main

WORKBOOK = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
DAMPERS = ("FL_Damper", "FR_Damper", "RL_Damper", "RR_Damper")
RATES = {"FL_Damper": 35.0, "FR_Damper": 35.0, "RL_Damper": 40.0, "RR_Damper": 40.0}
G = 9.80665


def spring_args(preload: float) -> list[str]:
    out: list[str] = []
    for damper, rate in RATES.items():
        out += ["--spring", f"{damper}={rate:g},{preload:g}"]
    return out


def run_table(argv: list[str], out: Path) -> pd.DataFrame:
    """Run the command on the example car with --out; its long table, indexed (table,
    item, quantity)."""
    return run_table_of(WORKBOOK, argv, out)


def run_table_of(workbook: Path, argv: list[str], out: Path) -> pd.DataFrame:
    """`run_table` on any workbook."""
    assert main(["springs", str(workbook), *argv, "--out", str(out)]) == 0
    return pd.read_csv(out).set_index(["table", "item", "quantity"]).sort_index()


@pytest.fixture(scope="module")
def model():  # type: ignore[no-untyped-def]
    return load(WORKBOOK)


@pytest.fixture(scope="module")
def unloaded(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """Springs without preload, wheel rates at design."""
    return run_table(spring_args(0.0), tmp_path_factory.mktemp("springs") / "rates.csv")


@pytest.fixture(scope="module")
def standing(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    """Springs with 250 N preload, ride height of 280 kg with 47 % on the front."""
    argv = [*spring_args(250.0), "--mass", "280", "--front-weight", "0.47"]
    return run_table(argv, tmp_path_factory.mktemp("springs") / "ride.csv")


def travel(model, damper: str, wheel_centre: str, strokes: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Wheel-centre height (mm) at each stroke of one damper, the others at 0."""
    return np.array(
        [
            model.solve(shocks={damper: float(s)}, tolerance=1e-10).points.loc[wheel_centre, "z"]
            for s in strokes
        ]
    )


@pytest.mark.parametrize("wheel", ["FL", "RR"])
def test_wheel_rate_is_k_mr_squared_from_solved_poses(
    model, unloaded: pd.DataFrame, wheel: str
) -> None:  # type: ignore[no-untyped-def]
    damper = f"{wheel}_Damper"
    h = 0.5
    z = travel(model, damper, f"{wheel}_WC", np.array([-h, h]))
    mr = 2 * h / (z[1] - z[0])  # stroke per wheel travel
    rows = unloaded.loc[("wheel_rates", wheel)]["value"]
    assert rows["MR"] == pytest.approx(mr, rel=1e-6)
    assert rows["F"] == 0.0 and rows["F dMR/dz"] == 0.0  # no preload: no force at design
    assert rows["k MR^2"] == pytest.approx(RATES[damper] * mr**2, rel=2e-6)
    assert rows["wheel rate"] == pytest.approx(RATES[damper] * mr**2, rel=2e-6)


def test_force_term_is_preload_times_the_change_of_motion_ratio(model, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = run_table(spring_args(250.0), tmp_path / "rates.csv")
    z_m2, z_m1, z_0, z_p1, z_p2 = travel(model, "FL_Damper", "FL_WC", np.linspace(-2, 2, 5))

    def d2s_dz2(h: float, z_m: float, z_p: float) -> float:
        dz = (z_p - z_m) / (2 * h)  # dz/ds
        d2z = (z_p - 2 * z_0 + z_m) / h**2  # d2z/ds2
        return -d2z / dz**3  # d2s/dz2 of the inverse function

    # Central differences at h = 2 and 1 mm (errors O(h^2)), extrapolated (Richardson).
    dmr = (4 * d2s_dz2(1.0, z_m1, z_p1) - d2s_dz2(2.0, z_m2, z_p2)) / 3
    dz = (8 * (z_p1 - z_m1) - (z_p2 - z_m2)) / 12  # dz/ds, fourth order
    rows = table.loc[("wheel_rates", "FL")]["value"]
    assert rows["dMR/dz"] == pytest.approx(dmr, rel=1e-4)
    assert rows["F dMR/dz"] == pytest.approx(250.0 * dmr, rel=1e-4)
    assert rows["wheel rate"] == pytest.approx(35.0 / dz**2 + 250.0 * dmr, rel=1e-4)


def contact_heights(pose) -> np.ndarray:  # type: ignore[no-untyped-def]
    """World z of each wheel's lowest tyre point: centre + R * (the wheel plane's
    downward direction), from the solved points (rigid tyre, flat ground)."""
    out = []
    for w in pose.model.car.wheels:
        c = pose.points.loc[w.centre].to_numpy(dtype=float)
        s = pose.points.loc[w.axis_point].to_numpy(dtype=float) - c
        s /= np.linalg.norm(s)
        down = np.array([0.0, 0.0, -1.0])
        down -= (down @ s) * s
        out.append((c + w.tyre_radius * down / np.linalg.norm(down))[2])
    return np.array(out)


def pose_of(model, table: pd.DataFrame):  # type: ignore[no-untyped-def]
    ride = table.loc["ride_height"]["value"]
    strokes = {d: float(ride[(d, "stroke")]) for d in DAMPERS}
    chassis = (
        0.0,
        0.0,
        float(ride[("chassis", "heave")]),
        float(ride[("chassis", "roll")]),
        float(ride[("chassis", "pitch")]),
        0.0,
    )
    return model.solve(shocks=strokes, chassis=chassis, tolerance=1e-10), ride


def test_ride_height_from_the_mass_stands_on_the_ground(model, standing: pd.DataFrame) -> None:  # type: ignore[no-untyped-def]
    pose, ride = pose_of(model, standing)
    assert np.abs(contact_heights(pose)).max() < 1e-6
    weights = np.array([ride[(w, "corner weight")] for w in ("FL", "FR", "RL", "RR")])
    assert weights.sum() == pytest.approx(280 * G, rel=1e-9)
    assert (weights[0] + weights[1]) / weights.sum() == pytest.approx(0.47, abs=2e-3)
    assert ride[("chassis", "warp")] == pytest.approx(0.0, abs=1e-6)
    assert ride[("chassis", "roll")] == pytest.approx(0.0, abs=1e-6)  # symmetric car and load
    # The rear is heavier and softer (MR 0.86 against 1.08): the nose rises.
    assert ride[("chassis", "pitch")] < 0
    for d in DAMPERS:
        expected = 250.0 + RATES[d] * ride[(d, "stroke")]
        assert ride[(d, "spring force")] == pytest.approx(expected, rel=1e-12)


def test_ride_height_from_corner_weights(model, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    given = {"FL": 640.0, "FR": 640.0, "RL": 730.0, "RR": 730.0}
    argv = [*spring_args(250.0), "--corner-weights", *(f"{w}={v:g}" for w, v in given.items())]
    table = run_table(argv, tmp_path / "ride.csv")
    assert "Static ride height for the corner weights given (2740.0 N" in capsys.readouterr().out
    pose, ride = pose_of(model, table)
    for wheel, value in given.items():
        assert ride[(wheel, "corner weight")] == pytest.approx(value, rel=1e-12)
    assert ride[("chassis", "warp")] < 1e-6
    assert np.abs(contact_heights(pose)).max() < 1e-6


def test_the_terminal_shows_both_rate_terms_and_the_sources(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["springs", str(WORKBOOK), *spring_args(250.0)]) == 0
    out = capsys.readouterr().out
    assert "k MR^2 [N/mm]" in out and "F dMR/dz [N/mm]" in out
    assert "FL_Damper: k 35 N/mm, preload 250 N (--spring)" in out
    assert "Static ride height" not in out  # only with --mass or --corner-weights


def error_of(argv: list[str], capsys) -> str:  # type: ignore[no-untyped-def]
    assert main(["springs", str(WORKBOOK), *argv]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.err


def test_a_car_without_springs_names_the_dampers_and_the_ways_to_give_them(
    tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    from suspension_sim.workbook.writer import write_car
    from tests._cars import four_corner_car

    car = four_corner_car()
    assert all(d.spring_rate is None for d in car.dampers)
    path = tmp_path / "no_springs.xlsx"
    write_car(car, path)
    assert main(["springs", str(path), "--spring", "FL_Damper=35"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("error: --spring:") and "FR_Damper, RL_Damper, RR_Damper" in err
    assert "FL_Damper, FR" not in err  # FL_Damper has one
    assert "Spring rate column" in err and "Damping" in err


@pytest.mark.parametrize(
    ("spring", "words"),
    [
        ("fl_damper=35", ["no damper 'fl_damper'", "Did you mean 'FL_Damper'"]),
        ("FL_Dampr=35", ["no damper 'FL_Dampr'", "Did you mean 'FL_Damper'"]),
        ("FL_Damper=stiff", ["'stiff' is not a number"]),
        ("FL_Damper=35,lots", ["FL_Damper preload", "'lots' is not a number"]),
        ("FL_Damper=0", ["rate must be positive"]),
        ("FL_Damper=-5,100", ["rate must be positive"]),
        ("FL_Damper=nan", ["finite"]),
        ("FL_Damper", ["is not DAMPER=RATE[,PRELOAD]"]),
        ("FL_Damper=1,2,3", ["RATE or RATE,PRELOAD"]),
    ],
)
def test_bad_spring_options_name_the_option(spring: str, words: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    err = error_of([*spring_args(0.0), "--spring", spring], capsys)
    assert err.startswith("error: --spring:")
    for word in words:
        assert word in err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["--corner-weights", "600", "600", "700"], "--corner-weights"),
        (["--corner-weights", "FL=600", "FR=600", "RL=700", "rr=700"], "--corner-weights"),
        (["--corner-weights", "600", "600", "700", "-1"], "--corner-weights"),
        (["--mass", "0"], "--mass"),
        (["--mass", "280", "--front-weight", "1.2"], "--front-weight"),
        (["--mass", "280", "--cg-height", "-3"], "--cg-height"),
        (["--cg-height", "300"], "--cg-height"),
    ],
)
def test_bad_ride_height_options_name_the_option(argv: list[str], option: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert error_of([*spring_args(0.0), *argv], capsys).startswith(f"error: {option}")


def test_springs_too_soft_for_the_load_say_so(capsys) -> None:  # type: ignore[no-untyped-def]
    soft = [a.replace("=35,", "=3,").replace("=40,", "=3,") for a in spring_args(0.0)]
    err = error_of([*soft, "--mass", "280"], capsys)
    assert "springs cannot hold this load" in err and "--spring" in err


def test_out_never_replaces_the_workbook(capsys) -> None:  # type: ignore[no-untyped-def]
    before = hashlib.sha256(WORKBOOK.read_bytes()).hexdigest()
    err = error_of([*spring_args(0.0), "--out", str(WORKBOOK), "--force"], capsys)
    assert "--out" in err and "source workbook" in err
    assert hashlib.sha256(WORKBOOK.read_bytes()).hexdigest() == before


# -- a car with a third spring and an anti-roll bar ------------------------------------------
THIRD_RATE = 60.0
"""N/mm of the test car's front third spring ("Heave"), given with --spring and no preload."""


@pytest.fixture(scope="module")
def element_workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The four-corner test car with a front third spring and a rear U-bar (4e5 N mm/rad)."""
    from suspension_sim.workbook.writer import write_car
    from tests._element_cars import element_car

    path = tmp_path_factory.mktemp("elements") / "element_car.xlsx"
    write_car(element_car(), path)
    return path


def no_preload() -> list[str]:
    """Every spring of the element car without preload (the bar has none and no twist at
    design): every force is 0 at design, so each rate is sum k_e (de/dx)^2."""
    return [*spring_args(0.0), "--spring", f"Heave={THIRD_RATE:g},0"]


def bar_twist(pose, bar) -> float:  # type: ignore[no-untyped-def]
    """Twist of a U-bar (rad): arm 1's rotation minus arm 2's about the bar axis, from
    the arms' solved frames (the chassis at design)."""
    car = pose.model.car
    a = car.point(bar.axis_points[1]) - car.point(bar.axis_points[0])
    a /= np.linalg.norm(a)
    v0 = np.cross(a, [0.0, 0.0, 1.0])
    v0 /= np.linalg.norm(v0)
    angles = []
    for arm in bar.arms:
        v1 = pose.body_frames[arm][:3, :3] @ v0
        angles.append(np.arctan2(a @ np.cross(v0, v1), v0 @ v1))
    return float(angles[0] - angles[1])


def third_compression(pose) -> float:  # type: ignore[no-untyped-def]
    """Compression of the third spring (mm): design length minus length, from its ends."""
    (third,) = pose.model.car.third_springs
    ends = [pose.points.loc[p].to_numpy(dtype=float) for p in third.end_points]
    design = [pose.model.car.point(p) for p in third.end_points]
    return float(np.linalg.norm(design[1] - design[0]) - np.linalg.norm(ends[1] - ends[0]))


def test_roll_stiffness_and_bar_share_from_solved_poses(
    element_workbook: Path, tmp_path: Path
) -> None:
    model = load(element_workbook)
    (bar,) = model.car.anti_roll_bars
    roll = run_table_of(element_workbook, no_preload(), tmp_path / "roll.csv").loc[
        "roll_stiffness"
    ]["value"]
    h = 0.05
    for axle, (left, right) in (("front", ("FL", "FR")), ("rear", ("RL", "RR"))):
        phi, twist, third = [], [], []
        for sign in (-1.0, 1.0):  # antisymmetric strokes: the axle rolls, the other held
            pose = model.solve(
                shocks={f"{left}_Damper": -sign * h, f"{right}_Damper": sign * h},
                tolerance=1e-10,
            )
            zl, zr = (pose.points.loc[f"{w}_WC", "z"] for w in (left, right))
            yl, yr = (pose.points.loc[f"{w}_WC", "y"] for w in (left, right))
            phi.append((zr - zl) / abs(yl - yr))
            twist.append(bar_twist(pose, bar))
            third.append(third_compression(pose))
        dphi = phi[1] - phi[0]
        springs_nmm = 2 * RATES[f"{left}_Damper"] * (2 * h / dphi) ** 2  # N mm/rad
        bar_nmm = bar.rate * ((twist[1] - twist[0]) / dphi) ** 2
        third_nmm = THIRD_RATE * ((third[1] - third[0]) / dphi) ** 2
        total = springs_nmm + bar_nmm + third_nmm
        to_nm_per_deg = np.pi / 180 / 1000
        assert roll[(axle, "roll")] == pytest.approx(total * to_nm_per_deg, rel=1e-4)
        assert roll[(axle, "bar share")] == pytest.approx(bar_nmm / total, rel=1e-4, abs=1e-9)
    assert roll[("rear", "bar share")] > 0.3  # the bar does carry roll here
    front, rear = roll[("front", "roll")], roll[("rear", "roll")]
    assert roll[("car", "front share")] == pytest.approx(front / (front + rear), rel=1e-12)


def test_third_spring_and_bar_add_their_terms_to_the_wheel_rate(
    element_workbook: Path, tmp_path: Path
) -> None:
    model = load(element_workbook)
    (bar,) = model.car.anti_roll_bars
    table = run_table_of(element_workbook, no_preload(), tmp_path / "rates.csv")
    h = 0.05
    for wheel, column, measure, rate in (
        ("RL", "bars", lambda p: bar_twist(p, bar), bar.rate),
        ("FL", "third springs", third_compression, THIRD_RATE),
    ):
        # This damper's stroke alone (the other wheel and the rack held).
        poses = [model.solve(shocks={f"{wheel}_Damper": s}, tolerance=1e-10) for s in (-h, h)]
        dz = poses[1].points.loc[f"{wheel}_WC", "z"] - poses[0].points.loc[f"{wheel}_WC", "z"]
        de = (measure(poses[1]) - measure(poses[0])) / dz
        rows = table.loc[("wheel_rates", wheel)]["value"]
        assert rows[column] == pytest.approx(rate * de**2, rel=1e-4)
        assert rows[column] > 1.0  # the element does stiffen this wheel
        expected = rows["k MR^2"] + rows["bars"] + rows["third springs"]
        assert rows["wheel rate"] == pytest.approx(expected, rel=1e-12)
    assert table.loc[("wheel_rates", "FL")]["value"]["bars"] == pytest.approx(0.0, abs=1e-9)


def test_spring_refuses_an_anti_roll_bar(element_workbook: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["springs", str(element_workbook), *no_preload(), "--spring", "RearBar=5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --spring: 'RearBar' is an anti-roll bar")


def test_library_tables_speak_python_and_the_command_speaks_options(capsys) -> None:  # type: ignore[no-untyped-def]
    """The computation lives in loads.spring_tables: called from Python its errors name
    the parameters; through the command the same errors name the options."""
    from suspension_sim.errors import InputError
    from suspension_sim.loads.spring_tables import cg_position, resolve_springs
    from suspension_sim.loads.springs import Spring
    from tests._cars import four_corner_car

    strut_car = WORKBOOK.with_name("macpherson_front.xlsx")
    model = load(strut_car)
    with pytest.raises(InputError) as info:
        resolve_springs(model, {})
    assert info.value.where == "springs"
    assert "springs={'FL_Strut': Spring(RATE, PRELOAD)}" in (info.value.hint or "")
    springs = resolve_springs(model, {"FL_Strut": Spring(30.0, 100.0)})
    assert springs["FL_Strut"] == Spring(30.0, 100.0)
    with pytest.raises(InputError) as info:
        cg_position(model, 0.5, 300.0)  # one axle: no lever rule
    assert info.value.where == "mass_kg" and "corner_weights=" in (info.value.hint or "")
    # through the command: --mass and --corner-weights
    argv = ["springs", str(strut_car), "--spring", "FL_Strut=30", "--mass", "280"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --mass: a ride height from the mass needs a front and a rear")
    assert "give --corner-weights instead" in err
    # the lever rule: 0.47 of the way from the rear axle's wheel centres to the front's
    four = Model(four_corner_car())
    x, y, z = cg_position(four, 0.47, 250.0)
    centres = {w.name: four.car.point(w.centre) for w in four.car.wheels}
    front = 0.5 * (centres["FL"][0] + centres["FR"][0])
    rear = 0.5 * (centres["RL"][0] + centres["RR"][0])
    assert x == pytest.approx(rear + 0.47 * (front - rear), abs=1e-12)
    assert y == pytest.approx(0.0, abs=1e-9) and z == 250.0
