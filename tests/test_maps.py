"""Kinematic maps (`suspension_sim.maps`, `suspension-sim maps`).

Truths: single solves through the public API (``model.solve`` with a wheel-travel
target, `pose_metrics`), a parallelogram double wishbone whose motion is known in
closed form (the upright translates: camber, toe, caster, KPI constant; the wheel
centre on a circle of the arm length), and the files read back.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from suspension_sim import cli
from suspension_sim.api import Model
from suspension_sim.description import Body, Car, Damper, Options, Point, Wheel
from suspension_sim.errors import InputError
from suspension_sim.maps import FIELDS, Lookup, Maps, Native, compute_maps
from suspension_sim.maps.fields import FIELD_NAMES
from suspension_sim.maps.grid import cell_centres
from suspension_sim.metrics import pose_metrics
from suspension_sim.solve.targets import wheel_travel
from tests._cars import four_corner_car

ARM = 300.0
"""Length of both arms (and the tie rod) of the parallelogram corner, mm (in y)."""

PARALLEL_POINTS: dict[str, tuple[float, float, float]] = {
    "LCA_F": (100.0, 200.0, 150.0),
    "LCA_R": (-100.0, 200.0, 150.0),
    "LBJ": (0.0, 200.0 + ARM, 150.0),
    "UCA_F": (100.0, 200.0, 350.0),
    "UCA_R": (-100.0, 200.0, 350.0),
    "UBJ": (0.0, 200.0 + ARM, 350.0),
    "TIE_I": (80.0, 200.0, 250.0),
    "TIE_O": (80.0, 200.0 + ARM, 250.0),
    "WC": (0.0, 550.0, 250.0),
    "WA": (0.0, 600.0, 250.0),
    "DMP_C": (0.0, 150.0, 450.0),
    "DMP_M": (0.0, 400.0, 150.0),
}
"""Horizontal, parallel, equal-length arms and tie rod, pivots along x: a parallelogram
in every front view, so the upright translates (toe-link corner, no rack)."""


def parallelogram_car(min_length: float | None = None, max_length: float | None = None) -> Car:
    bodies = {
        "Chassis": ("LCA_F", "LCA_R", "UCA_F", "UCA_R", "TIE_I", "DMP_C"),
        "LCA": ("LCA_F", "LCA_R", "LBJ", "DMP_M"),
        "UCA": ("UCA_F", "UCA_R", "UBJ"),
        "Upright": ("UBJ", "LBJ", "TIE_O", "WC", "WA"),
        "TieRod": ("TIE_I", "TIE_O"),
        "Damper": ("DMP_C", "DMP_M"),
    }
    return Car(
        name="parallelogram",
        options=Options(),
        points=tuple(Point(n, xyz) for n, xyz in PARALLEL_POINTS.items()),
        bodies=tuple(Body(n, p) for n, p in bodies.items()),
        wheels=(Wheel("RL", "Upright", "WC", "WA", 250.0, 200.0, "LBJ", "UBJ"),),
        dampers=(Damper("Damper", "DMP_C", "DMP_M", min_length, max_length),),
    )


@pytest.fixture(scope="module")
def car_model() -> Model:
    return Model(four_corner_car())


@pytest.fixture(scope="module")
def car_maps(car_model: Model) -> Maps:
    return compute_maps(car_model, travel=(-20.0, 20.0, 5), rack=(-10.0, 10.0, 5))


def truth(model: Model, wheel: str, damper: str, t: float, r: float) -> dict[str, float]:
    """The map quantities of one state from one targeted solve and `pose_metrics`."""
    pose = model.solve(targets={damper: wheel_travel(wheel, t)}, rack=r)
    row = pose_metrics(pose, "iso")
    design = pose_metrics(model.solve(), "iso", rates=False)
    out = {
        "camber": row[f"camber_{wheel}_deg"],
        "toe": row[f"toe_{wheel}_deg"],
        "steer": row[f"steer_{wheel}_deg"],
        "track_change": row[f"half_track_{wheel}_mm"] - design[f"half_track_{wheel}_mm"],
        "caster": row[f"caster_{wheel}_deg"],
        "kpi": row[f"kpi_{wheel}_deg"],
        "scrub_radius": row[f"scrub_radius_{wheel}_mm"],
        "trail": row[f"mechanical_trail_{wheel}_mm"],
        "motion_ratio": row[f"motion_ratio_{wheel}"],
        "stroke": pose.shocks[damper],
    }
    for axis in "xyz":
        out[f"wheel_centre_{axis}"] = row[f"wheel_centre_{wheel}_{axis}_mm"]
        out[f"contact_point_{axis}"] = row[f"contact_point_{wheel}_{axis}_mm"]
    assert abs(row[f"wheel_travel_{wheel}_mm"] - t) < 1e-9
    return out


# -- the grid equals single solves ----------------------------------------------------
@pytest.mark.parametrize(
    ("wheel", "i", "j"), [("FL", 0, 4), ("FL", 3, 1), ("FR", 4, 2), ("RL", 1, 0)]
)
def test_nodes_equal_single_solves(
    car_model: Model, car_maps: Maps, wheel: str, i: int, j: int
) -> None:
    m = car_maps[wheel]
    r = 0.0 if m.rack is None else float(m.rack[j])
    expected = truth(car_model, wheel, m.corner.damper, float(m.travel[i]), r)
    idx = (i,) if m.rack is None else (i, j)
    assert m.reason[idx] == ""
    for name in FIELD_NAMES:
        assert m.values[name][idx] == pytest.approx(expected[name], abs=1e-9), name


def test_layout_of_the_test_car(car_maps: Maps) -> None:
    assert set(car_maps.corners) == {"FL", "FR", "RL", "RR"}
    assert car_maps["FL"].rack is not None and car_maps["FL"].shape == (5, 5)
    assert car_maps["RL"].rack is None and car_maps["RL"].shape == (5,)  # not steered
    # design node: travel 0, rack 0 -> no track change, no steer, stroke 0
    fl = car_maps["FL"]
    assert fl.values["track_change"][2, 2] == pytest.approx(0.0, abs=1e-9)
    assert fl.values["steer"][2, 2] == pytest.approx(0.0, abs=1e-9)
    assert fl.values["stroke"][2, 2] == pytest.approx(0.0, abs=1e-9)
    # mirror-symmetric car: the right corner reports the left's numbers (iso signs),
    # with the rack mirrored (rack +Y on the left is rack -Y seen from the right)
    fr = car_maps["FR"]
    for name in ("camber", "toe", "track_change", "caster", "kpi", "motion_ratio"):
        np.testing.assert_allclose(fr.values[name], fl.values[name][:, ::-1], atol=1e-8)


def test_coupled_corners_are_solved_apart() -> None:
    """A solid axle: each wheel's stroke moves the other wheel, so each corner is its own
    batch, with the other damper at its design stroke (as the sweep `bump WHEEL`)."""
    import suspension_sim
    from suspension_sim.maps.solve import batch_groups, corner_layout

    root = Path(__file__).resolve().parents[1]
    model = suspension_sim.load(root / "workbooks" / "solid_axle_rear.xlsx")
    layout = corner_layout(model)
    assert ("RL", "RR") in layout.coupled
    assert [len(g) for g in batch_groups(layout, layout.corners)] == [1, 1]
    maps = compute_maps(model, travel=(-20.0, 20.0, 3), accuracy=False)
    for wheel in ("RL", "RR"):
        m = maps[wheel]
        exp = truth(model, wheel, m.corner.damper, 20.0, 0.0)
        for name in ("camber", "toe", "track_change", "stroke", "wheel_centre_y"):
            assert m.values[name][2] == pytest.approx(exp[name], abs=1e-9), (wheel, name)


# -- lookup --------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["linear", "cubic", "auto"])
def test_lookup_is_exact_at_nodes(car_maps: Maps, method: str) -> None:
    m = car_maps["FL"]
    assert m.rack is not None
    t, r = np.meshgrid(m.travel, m.rack, indexing="ij")
    got = Lookup(car_maps, "FL", method=method).compute(t, r)
    assert got.valid.all()
    for name in FIELD_NAMES:
        assert np.array_equal(got[name], m.values[name]), name


def test_lookup_accuracy_holds_at_cell_centres(car_model: Model, car_maps: Maps) -> None:
    """Independent truths at a few cell centres are within the error the map reports."""
    for wheel in ("FL", "RL"):
        m = car_maps[wheel]
        tc, rc = cell_centres(m)
        assert m.accuracy["camber"]["cells"] == len(tc)
        picks = [0, len(tc) // 2, len(tc) - 1]
        for method in ("linear", "cubic"):
            lk = Lookup(car_maps, wheel, method=method)
            for k in picks:
                got = lk.compute(tc[k], rc[k])
                exp = truth(car_model, wheel, m.corner.damper, float(tc[k]), float(rc[k]))
                for name in FIELD_NAMES:
                    bound = m.accuracy[name][method]["max"]
                    assert abs(float(got[name]) - exp[name]) <= bound + 1e-9, (wheel, name)
    # bilinear is a real approximation here, so the reported error is not zero
    assert car_maps["FL"].accuracy["camber"]["linear"]["max"] > 1e-6


def test_lookup_never_extrapolates(car_maps: Maps) -> None:
    lk = Lookup(car_maps, "FL")
    with pytest.raises(InputError) as err:
        lk.compute(25.0, 0.0)
    assert err.value.where == "travel" and "outside the map" in err.value.message
    with pytest.raises(InputError) as err:
        lk.compute(0.0, [0.0, -10.5])
    assert err.value.where == "steer"
    nan = Lookup(car_maps, "FL", outside="nan").compute([0.0, 25.0], [0.0, 0.0])
    assert nan.valid.tolist() == [True, False]
    assert nan.reason[1] == "outside the map" and math.isnan(nan["camber"][1])
    # the edge itself is inside
    assert Lookup(car_maps, "FL").compute(20.0, 10.0).valid


def test_native_and_lookup_share_one_call(car_model: Model, car_maps: Maps) -> None:
    m = car_maps["FL"]
    assert m.rack is not None
    native = Native(car_model, "FL").compute(m.travel[[1, 3]], m.rack[[0, 4]])
    lookup = Lookup(car_maps, "FL").compute(m.travel[[1, 3]], m.rack[[0, 4]])
    assert native.valid.all() and lookup.valid.all()
    for name in FIELD_NAMES:
        np.testing.assert_allclose(native[name], lookup[name], rtol=0, atol=1e-9, err_msg=name)
    one = Native(car_model, "RL").compute(10.0, 7.0)  # the rack does not steer RL: ignored
    assert one["camber"].shape == () and bool(one.valid)
    for name in FIELD_NAMES:
        assert float(one[name]) == pytest.approx(car_maps["RL"].values[name][3], abs=1e-9)


# -- a hand-checkable corner -----------------------------------------------------------
def test_parallelogram_corner_closed_form() -> None:
    maps = compute_maps(Model(parallelogram_car()), travel=(-60.0, 60.0, 7))
    m = maps["RL"]
    t = m.travel
    assert m.rack is None and m.reachable.all()
    for name in ("camber", "toe", "caster", "kpi", "trail", "wheel_centre_x", "contact_point_x"):
        np.testing.assert_allclose(m.values[name], 0.0, atol=1e-9, err_msg=name)
    # the upright translates along a circle of radius ARM about the pivot axes
    dy = np.sqrt(ARM**2 - t**2) - ARM
    np.testing.assert_allclose(m.values["track_change"], dy, atol=1e-9)
    np.testing.assert_allclose(m.values["wheel_centre_y"], 550.0 + dy, atol=1e-9)
    np.testing.assert_allclose(m.values["wheel_centre_z"], 250.0 + t, atol=1e-9)
    np.testing.assert_allclose(m.values["contact_point_z"], t, atol=1e-9)  # r = 250 mm
    np.testing.assert_allclose(m.values["scrub_radius"], 50.0, atol=1e-9)  # WC.y - LBJ.y
    # damper from (y 150, z 450) to a point 200 mm out on the lower arm
    th = np.arcsin(t / ARM)
    p = np.stack([50.0 + 200.0 * np.cos(th), -300.0 + 200.0 * np.sin(th)])
    length = np.linalg.norm(p, axis=0)
    dp = np.stack([-200.0 * np.sin(th), 200.0 * np.cos(th)])
    ratio = -(p * dp).sum(axis=0) / length / (ARM * np.cos(th))
    np.testing.assert_allclose(m.values["motion_ratio"], ratio, atol=1e-9)
    np.testing.assert_allclose(m.values["stroke"], length[3] - length, atol=1e-9)


def test_unreachable_nodes_are_nan_with_a_reason(tmp_path: Path) -> None:
    # damper lengths allow only part of the travel range: the ends are out of reach
    design = float(np.linalg.norm(np.subtract(PARALLEL_POINTS["DMP_M"], PARALLEL_POINTS["DMP_C"])))
    model = Model(parallelogram_car(min_length=design - 10.0, max_length=design + 10.0))
    maps = compute_maps(model, travel=(-40.0, 40.0, 9))
    m = maps["RL"]
    reach = m.reachable
    assert reach[4] and not reach[0] and not reach[-1]
    assert "stroke limit" in m.reason[0] and "Damper" in m.reason[0]
    for name in FIELD_NAMES:
        assert np.isnan(m.values[name][~reach]).all()
        assert np.isfinite(m.values[name][reach]).all()
    # the reached nodes are the state a targeted single solve gives
    ok = np.flatnonzero(reach)
    i = int(ok[0])
    exp = truth(model, "RL", "Damper", float(m.travel[i]), 0.0)
    assert m.values["camber"][i] == pytest.approx(exp["camber"], abs=1e-9)
    assert abs(m.values["stroke"][i]) <= 10.0 + 1e-9
    # a query in a cell next to an unreachable node is NaN with that reason
    got = Lookup(maps, "RL").compute(0.5 * (m.travel[i - 1] + m.travel[i]))
    assert not got.valid and "stroke limit" in str(got.reason)
    # NaN and the reasons survive a CSV round trip
    maps.write(tmp_path / "m", ("csv",))
    back = Maps.read(tmp_path / "m")["RL"]
    assert (back.reason == m.reason).all()
    for name in FIELD_NAMES:
        assert np.array_equal(back.values[name], m.values[name], equal_nan=True), name


def test_travel_past_the_linkage_is_nan_not_a_crash() -> None:
    """The arms are 300 mm long: 340 mm of droop cannot be assembled. The node is NaN with
    the solver's reason; the design node beside it is still solved."""
    maps = compute_maps(Model(parallelogram_car()), travel=(-340.0, 0.0, 2), accuracy=False)
    m = maps["RL"]
    assert m.reason[0].startswith("not solved") and np.isnan(m.values["camber"][0])
    assert m.reason[1] == "" and m.values["track_change"][1] == pytest.approx(0.0, abs=1e-9)


# -- files -----------------------------------------------------------------------------
def test_files_round_trip_with_units(car_maps: Maps, tmp_path: Path) -> None:
    out = tmp_path / "maps"
    written = car_maps.write(out, ("csv", "parquet"))
    assert {p.name for p in written} >= {"map_FL.csv", "map_FL.parquet", "maps.json"}
    header = (out / "map_FL.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[:3] == ["travel [mm]", "rack [mm]", "camber [deg]"]
    assert "motion_ratio [-]" in header and header[-1] == "reason"
    desc = json.loads((out / "maps.json").read_text(encoding="utf-8"))
    assert desc["convention"] == "iso" and desc["software"]["version"]
    assert desc["units"]["camber"] == "deg" and desc["units"]["track_change"] == "mm"
    fl = desc["corners"]["FL"]
    assert fl["axes"]["rack"] == {
        "min": -10.0,
        "max": 10.0,
        "n": 5,
        "unit": "mm",
        "sign": fl["axes"]["rack"]["sign"],
    }
    assert desc["corners"]["RL"]["axes"]["rack"] is None
    assert set(fl["accuracy"]) == set(FIELD_NAMES)
    assert fl["accuracy"]["camber"]["unit"] == "deg"
    for fmt in ("parquet", "csv"):
        if fmt == "csv":
            for p in out.glob("*.parquet"):
                p.unlink()
        back = Maps.read(out)
        for wheel, m in car_maps.corners.items():
            b = back[wheel]
            assert np.array_equal(b.travel, m.travel)
            for name in FIELD_NAMES:
                assert np.array_equal(b.values[name], m.values[name], equal_nan=True), name
            assert (b.reason == m.reason).all()
        lk = Lookup(out, "FL")
        assert float(lk.compute(20.0, -10.0)["toe"]) == car_maps["FL"].values["toe"][4, 0]


def test_write_refuses_to_overwrite(car_maps: Maps, tmp_path: Path) -> None:
    out = tmp_path / "maps"
    car_maps.write(out, ("csv",))
    before = (out / "map_FL.csv").read_bytes()
    (out / "maps.json").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError) as err:
        car_maps.write(out, ("csv",))
    assert "exists" in err.value.message
    assert (out / "maps.json").read_text(encoding="utf-8") == "mine"  # nothing replaced
    assert (out / "map_FL.csv").read_bytes() == before
    car_maps.write(out, ("csv",), force=True)
    assert json.loads((out / "maps.json").read_text(encoding="utf-8"))["car"]
    with pytest.raises(InputError) as err:
        car_maps.write(tmp_path / "missing" / "maps", ("csv",))
    assert "does not exist" in err.value.message
    with pytest.raises(InputError) as err:
        car_maps.write(tmp_path / "other", ("xls",))
    assert err.value.where == "formats"


# -- the command -----------------------------------------------------------------------
def _main(args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    from suspension_sim.commands.maps import HELP

    monkeypatch.setitem(cli.COMMANDS, "maps", HELP)  # until cli.py lists it
    return cli.main(["maps", *args])


@pytest.fixture(scope="module")
def parallel_workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from suspension_sim.workbook.writer import write_car

    path = tmp_path_factory.mktemp("maps_cli") / "parallel.xlsx"
    return write_car(parallelogram_car(), path)


@pytest.mark.parametrize(
    ("args", "option", "text"),
    [
        (["--travel", "10", "-10", "5"], "--travel", "below MAX"),
        (["--travel", "-10", "10", "1.5"], "--travel", "whole number"),
        (["--travel", "-10", "ten", "5"], "--travel", "numbers"),
        (["--rack", "-5", "5", "1"], "--rack", "whole number"),
        (["--format", "xls"], "--format", "unknown format"),
        (["--corners", "FL"], "--corners", "unknown corner 'FL'"),
        (["--travel", "-10", "10", "5", "--rack", "-5", "5", "3"], "--rack", "no steering rack"),
    ],
)
def test_bad_options_exit_2_naming_the_option(
    args: list[str],
    option: str,
    text: str,
    parallel_workbook: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = _main([str(parallel_workbook), "--out", str(tmp_path / "m"), *args], monkeypatch)
    err = capsys.readouterr().err
    assert code == 2
    assert option in err and text in err
    assert not (tmp_path / "m").exists()


def test_command_writes_and_prints_the_accuracy(
    parallel_workbook: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "m"
    args = [str(parallel_workbook), "--out", str(out), "--travel", "-30", "30", "7"]
    assert _main([*args, "--format", "csv"], monkeypatch) == 0
    text = capsys.readouterr().out
    assert "lookup accuracy at the cell centres" in text and "camber" in text
    assert (out / "map_RL.csv").exists() and not (out / "map_RL.parquet").exists()
    desc = json.loads((out / "maps.json").read_text(encoding="utf-8"))
    assert desc["workbook"] == "parallel.xlsx" and desc["corners"]["RL"]["nodes"] == 7
    before = (out / "map_RL.csv").read_bytes()
    assert _main([*args, "--format", "csv"], monkeypatch) == 2  # no --force: refused
    assert "--out" in capsys.readouterr().err
    assert (out / "map_RL.csv").read_bytes() == before
    assert _main([*args, "--format", "csv", "--force"], monkeypatch) == 0


def test_field_table_is_complete() -> None:
    assert [f.name for f in FIELDS] == list(FIELD_NAMES)
    assert {f.unit for f in FIELDS} == {"deg", "mm", "-"}
