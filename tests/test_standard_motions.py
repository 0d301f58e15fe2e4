"""Standard motions: every car runs heave, roll, pitch, steer, bump, stroke and rack with no
sweep file, over default ranges, and yields every axle metric.

The car is the example car with its wheels renamed LF/RF/LR/RR (so the axle metrics come
from where the wheels are, not their names) and its FL and FR dampers renamed with spaces.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

from suspension_sim import load
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.sweeps import standard_sweep
from suspension_sim.sweeps.standard import parse_standard

ROOT = Path(__file__).resolve().parents[1]
STEPS = 13
AXLE_COLUMNS = (
    "roll_centre_height_front_mm",
    "roll_centre_height_rear_mm",
    "track_front_mm",
    "track_rear_mm",
    "anti_dive_LF_pct",
    "anti_dive_RF_pct",
    "anti_squat_LR_pct",
    "anti_lift_RR_pct",
    "wheelbase_left_mm",
)


def make_car(folder: Path, min_length: float | None = None, source: Path | None = None) -> Path:
    """The example car (or `source`) renamed: wheels LF/RF/LR/RR, dampers 'FL Damper' and
    'FR Damper' (Components and Damping); `min_length` replaces the FL damper's Min
    length (mm)."""
    path = folder / "car.xlsx"
    shutil.copyfile(source or ROOT / "workbooks" / "fsae_car.xlsx", path)
    wb = openpyxl.load_workbook(path)
    for r, name in enumerate(("LF", "RF", "LR", "RR"), start=2):
        wb["Wheels"][f"A{r}"] = name
    for sheet in ("Components", "Damping"):
        for row in wb[sheet].iter_rows():
            for cell in row:
                if cell.value in ("FL_Damper", "FR_Damper"):
                    cell.value = cell.value.replace("_", " ")
    if min_length is not None:
        assert wb["Damping"]["A2"].value == "FL Damper"
        assert wb["Damping"]["D1"].value == "Min length"
        wb["Damping"]["D2"] = min_length
    wb.save(path)
    return path


@pytest.fixture(scope="module")
def car(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_car(tmp_path_factory.mktemp("car"))


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# (motion, swept column, first value, last value): the defaults of docs/sweeps.md. The
# example's Steering ratio is 0.25 mm per deg and its rack declares no travel limits,
# so steer runs the steering wheel over +-90 deg; its dampers are 200 mm long at design
# with Min/Max 175/225 mm, so +-15 mm of stroke fits.
MOTIONS = [
    ("heave", "chassis_heave_mm", -30.0, 30.0),
    ("roll", "chassis_roll_deg", -2.0, 2.0),
    ("pitch", "chassis_pitch_deg", -1.5, 1.5),
    ("steer", "steering_wheel_angle_deg", -90.0, 90.0),
    ("bump:LF", "wheel_travel_LF_mm", -30.0, 30.0),
    ("stroke:FL Damper", "stroke_FL Damper_mm", -15.0, 15.0),
    ("rack", "rack_mm", -20.0, 20.0),
]


@pytest.mark.parametrize(("motion", "column", "first", "last"), MOTIONS)
def test_every_standard_motion_runs_without_a_sweep_file(
    car: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    motion: str,
    column: str,
    first: float,
    last: float,
) -> None:
    assert not (car.parent / "sweeps.yaml").exists()
    out = tmp_path / "table.csv"
    code, stdout, err = run_cli(["sweep", str(car), motion, "--out", str(out)], capsys)
    assert code == 0, err
    assert "standard motion" in stdout
    table = pd.read_csv(out)
    assert len(table) == STEPS
    # The swept column reaches its values: targets (bump) and held inputs are met.
    np.testing.assert_allclose(table[column], np.linspace(first, last, STEPS), atol=1e-6)
    for col in AXLE_COLUMNS:
        assert col in table.columns, col
        assert np.isfinite(table[col]).all(), col
    if motion == "steer":
        # rack = angle x ratio; its sign comes from the geometry, its size from the ratio
        np.testing.assert_allclose(np.abs(table["rack_mm"]), 0.25 * np.abs(table[column]))
        assert np.isfinite(table["ackermann_front_pct"].iloc[0])


@pytest.mark.parametrize("motion", ["heave", "roll", "pitch", "steer", "bump:RF"])
def test_a_new_template_with_its_own_names_runs_every_ground_motion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], motion: str
) -> None:
    """The loop a team starts with: `new`, rename the wheels, sweep with no sweep file."""
    template = tmp_path / "template.xlsx"
    assert main(["new", str(template)]) == 0
    car = make_car(tmp_path, source=template)
    out = tmp_path / "table.csv"
    code, _, err = run_cli(["sweep", str(car), motion, "--out", str(out)], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    assert len(table) == STEPS
    for col in AXLE_COLUMNS:
        assert np.isfinite(table[col]).all(), col


def test_ground_motions_keep_contacts_on_the_ground(car: Path) -> None:
    """Independent of the metrics code: the solved contact points sit at z = 0."""
    from suspension_sim.sweeps import run_sweep

    model = load(car)
    result = run_sweep(model, standard_sweep(model, "roll", steps=3))
    assert result.ok
    table = result.table
    np.testing.assert_allclose(table["chassis_roll_deg"], [-2.0, 0.0, 2.0])
    for w in ("LF", "RF", "LR", "RR"):
        np.testing.assert_allclose(table[f"contact_point_{w}_z_mm"], 0.0, atol=1e-6)


def test_range_options(car: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.csv"
    args = ["sweep", str(car), "heave", "--from", "-10", "--to", "5", "--steps", "4"]
    code, stdout, _ = run_cli([*args, "--out", str(out)], capsys)
    assert code == 0
    np.testing.assert_allclose(pd.read_csv(out)["chassis_heave_mm"], [-10, -5, 0, 5])
    assert "from -10 to +5 mm, 4 steps" in stdout


def test_stroke_default_stays_within_the_damper_lengths(tmp_path: Path) -> None:
    # Min length 190 mm on a damper 200 mm long at design: at most 10 mm of compression.
    model = load(make_car(tmp_path, min_length=190.0), use_cache=False)
    spec = standard_sweep(model, "stroke FL damper")
    assert spec.motion.of == "FL Damper"
    assert spec.motion.values[0] == -15.0
    assert spec.motion.values[-1] == pytest.approx(10.0, abs=1e-9)


def test_steer_units(car: Path) -> None:
    model = load(car)
    assert standard_sweep(model, "steer:mm").motion.values[-1] == 20.0
    assert standard_sweep(model, "steer:deg").motion.values[-1] == 90.0
    assert standard_sweep(model, "steer").motion.unit == "deg"


def test_named_sweep_takes_precedence(
    car: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "named"
    folder.mkdir()
    wb = folder / "car.xlsx"
    shutil.copyfile(car, wb)
    (folder / "sweeps.yaml").write_text(
        textwrap.dedent(
            """\
            sweeps:
              roll:
                motion: roll
                values: [0, 1]
              held:
                motion: stroke FL Damper
                values: [0, 4]
                fixed: {FR Damper: 2}
                targets:
                  RR_Damper: wheel_travel(RR, 5)
            """
        ),
        encoding="utf-8",
    )
    out = tmp_path / "roll.csv"
    code, stdout, _ = run_cli(["sweep", str(wb), "roll", "--out", str(out)], capsys)
    assert code == 0
    assert "takes precedence over the standard motion 'roll'" in stdout
    np.testing.assert_allclose(pd.read_csv(out)["chassis_roll_deg"], [0.0, 1.0])
    # --from/--to/--steps change a named sweep's range
    code, _, _ = run_cli(
        ["sweep", str(wb), "roll", "--to", "2", "--out", str(out), "--force"], capsys
    )
    assert code == 0
    np.testing.assert_allclose(pd.read_csv(out)["chassis_roll_deg"], [0.0, 2.0])
    # Names with spaces in a sweep file: the motion, a held stroke, a target's input
    code, _, err = run_cli(["sweep", str(wb), "held", "--out", str(out), "--force"], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    np.testing.assert_allclose(table["stroke_FL Damper_mm"], [0.0, 4.0], atol=1e-9)
    np.testing.assert_allclose(table["stroke_FR Damper_mm"], 2.0, atol=1e-9)
    np.testing.assert_allclose(table["wheel_travel_RR_mm"], 5.0, atol=1e-6)


@pytest.mark.parametrize(
    ("motion", "message"),
    [
        ("bump", "needs a name: bump:WHEEL"),
        ("bump:XX", "unknown wheel 'XX'"),
        ("stroke:FL Dampr", "Did you mean 'FL Damper'?"),
        ("steer:rad", "steer takes mm (rack) or deg"),
        ("heave:LF", "takes nothing after it"),
        ("wobble", "standard motions: heave, roll"),
    ],
)
def test_bad_names(
    car: Path, capsys: pytest.CaptureFixture[str], motion: str, message: str
) -> None:
    code, _, err = run_cli(["sweep", str(car), motion], capsys)
    assert code == 2
    assert message in err
    assert "sweep:" in err  # the error is placed at the SWEEP argument


def test_out_of_range_options_name_the_option(
    car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(["sweep", str(car), "roll", "--from", "-120"], capsys)
    assert code == 2
    assert "--from: start -120 deg is beyond the limit" in err
    code, _, err = run_cli(["sweep", str(car), "roll", "--steps", "0"], capsys)
    assert code == 2 and "--steps:" in err


def test_parse_standard() -> None:
    assert parse_standard("stroke:FL Damper") == parse_standard("stroke FL Damper")
    assert parse_standard("stroke:FL Damper").of == "FL Damper"  # type: ignore[union-attr]
    assert parse_standard("roll_at_steer") is None
    assert parse_standard("Heave").kind == "heave"  # type: ignore[union-attr]
    with pytest.raises(InputError):
        parse_standard("bump")
