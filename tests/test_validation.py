"""Validation against OptimumK-layout exports (docs/validation.md).

The bundled references (validation/<case>/export.csv, made independently:
closed-form geometry, and SolveSpace with its own metric code) must pass
under both drives; a hardpoint moved by 2 mm must fail and the report must
name the channels and the corner that moved; malformed exports must give an
error naming the column.
"""

from __future__ import annotations

import codecs
import csv
import io
import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.validation import (
    ChannelMap,
    load_channel_map,
    parse_header,
    read_export,
)

ROOT = Path(__file__).resolve().parent.parent
CASES = {
    "corner_closed_form": (
        ROOT / "validation" / "corner_closed_form" / "corner.xlsx",
        ROOT / "validation" / "corner_closed_form" / "export.csv",
    ),
    "fsae_car_slvs": (
        ROOT / "workbooks" / "fsae_car.xlsx",
        ROOT / "validation" / "fsae_car_slvs" / "export.csv",
    ),
}
CORNER_WB, CORNER_EXPORT = CASES["corner_closed_form"]
CAR_WB, CAR_EXPORT = CASES["fsae_car_slvs"]


def _need(*paths: Path) -> None:
    for p in paths:
        # The references are committed; a missing one is a failure, not a skip.
        assert p.exists(), f"{p.relative_to(ROOT)} is missing (make it with its make_reference.py)"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _rows(path: Path) -> list[list[str]]:
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    return [list(r) for r in csv.reader(lines)]


def _write_rows(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return path


# -- the bundled references pass ----------------------------------------------------------
@pytest.mark.parametrize("drive", ["motion", "dampers"])
@pytest.mark.parametrize(
    "case",
    [
        "corner_closed_form",
        pytest.param("fsae_car_slvs", marks=pytest.mark.slow),  # the whole car, with charts
    ],
)
def test_bundled_reference_passes(
    case: str, drive: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    workbook, export = CASES[case]
    _need(workbook, export)
    before = workbook.read_bytes()
    out = tmp_path / "report"  # created (its parent must exist)
    plots = [] if (case, drive) == ("fsae_car_slvs", "motion") else ["--no-plots"]
    code, stdout, _ = _run(
        capsys, "validate", str(workbook), str(export), "--drive", drive, "--out", str(out), *plots
    )
    assert code == 0, stdout
    assert stdout.startswith("PASS")
    text = (out / "report.md").read_text()
    assert "**Result: PASS.**" in text
    assert "**FAIL**" not in text
    assert (out / "comparison.csv").exists()
    if not plots:
        import imageio.v3 as iio

        img = iio.imread(out / "plots" / "camber_angle.png")
        assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 100
        assert len(np.unique(img.reshape(-1, img.shape[-1]), axis=0)) > 10  # not blank
        assert "![Camber Angle](plots/camber_angle.png)" in text
    assert workbook.read_bytes() == before  # the workbook is never written


def test_reference_agreement_is_far_below_tolerance() -> None:
    """The independent references agree with the model to well under 1e-5 deg / mm."""
    import suspension_sim
    from suspension_sim.validation import validate

    _need(CORNER_WB, CORNER_EXPORT)
    result = validate(suspension_sim.load(str(CORNER_WB)), read_export(CORNER_EXPORT))
    assert result.passed
    assert len(result.compared) == 11
    assert max(c.max_abs for c in result.compared) < 1e-5


def test_report_charts_plot_the_compared_values() -> None:
    """Each chart's lines hold exactly the export's and our values, and their difference."""
    import matplotlib.pyplot as plt

    import suspension_sim
    from suspension_sim.validation import validate
    from suspension_sim.validation.report import comparison_figures

    _need(CORNER_WB, CORNER_EXPORT)
    result = validate(suspension_sim.load(str(CORNER_WB)), read_export(CORNER_EXPORT))
    figures = comparison_figures(result)
    try:
        titles = [t for t, _, _ in figures]
        assert titles[0] == "Motion"
        by_title = {t: fig for t, _, fig in figures}
        for c in result.channels:
            fig = by_title[c.quantity]
            lines = [ln for ax in fig.axes for ln in ax.get_lines()]
            ys = [np.asarray(ln.get_ydata(), dtype=float) for ln in lines]
            for values in (c.theirs, c.ours, c.diff):
                want = np.asarray(values, dtype=float)
                assert any(y.shape == want.shape and np.allclose(y, want) for y in ys), c.channel
    finally:
        for _, _, fig in figures:
            plt.close(fig)


# -- a moved hardpoint fails, and the report says where --------------------------------------
def _move_point(workbook: Path, out: Path, point: str, dz_mm: float) -> Path:
    """Copy the workbook and move one hard point by dz_mm along model z (openpyxl)."""
    from suspension_sim.units import length_factor
    from suspension_sim.workbook import read_car

    car = read_car(workbook)
    p = next(p for p in car.points if p.name == point)
    assert p.source is not None
    axis_map = np.array(car.options.axis_map)
    k = int(np.flatnonzero(axis_map[2])[0])  # workbook axis that is model z
    sign = float(axis_map[2, k])
    shutil.copy(workbook, out)
    wb = openpyxl.load_workbook(out)
    ws = next(w for w in wb.worksheets if w.title == p.source.sheet)
    name_cell = ws[p.source.cell]
    cell = ws.cell(name_cell.row, name_cell.column + 1 + k)
    cell.value = float(cell.value) + sign * dz_mm / length_factor(car.options.length_unit)
    wb.save(out)
    moved = next(q for q in read_car(out).points if q.name == point)
    assert np.allclose(np.subtract(moved.xyz, p.xyz), [0.0, 0.0, dz_mm], atol=1e-9)
    return out


def _tie_rod_outer(workbook: Path, wheel: str) -> str:
    """The point where the wheel's carrier meets the link that runs to the rack."""
    from suspension_sim.workbook import read_car

    car = read_car(workbook)
    w = next(w for w in car.wheels if w.name == wheel)
    assert car.rack is not None
    rack_points = set(car.body(car.rack.body).points)
    for body in car.bodies:
        pts = set(body.points)
        if len(pts) == 2 and pts & rack_points:
            shared = pts & set(car.body(w.body).points)
            if shared:
                return shared.pop()
    raise AssertionError("no tie rod found")


def test_moved_hardpoint_fails_and_names_the_corner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _need(CAR_WB, CAR_EXPORT)
    point = _tie_rod_outer(CAR_WB, "FL")
    moved = _move_point(CAR_WB, tmp_path / "moved.xlsx", point, 2.0)
    out = tmp_path / "report"
    code, stdout, _ = _run(
        capsys, "validate", str(moved), str(CAR_EXPORT), "--out", str(out), "--no-plots"
    )
    assert code == 1
    assert stdout.startswith("FAIL")
    assert "Toe Angle Front Left" in stdout
    text = (out / "report.md").read_text()
    assert "**Result: FAIL.**" in text
    failing = [line for line in text.splitlines() if line.startswith("|") and "**FAIL**" in line]
    assert any(line.startswith("| Toe Angle | Front Left |") for line in failing)
    # only the front-left corner moved: nothing else may fail
    assert all("| Front Left |" in line for line in failing), failing
    assert "- **Toe Angle Front Left**" in text
    assert "Out of tolerance by corner/axle: Front Left:" in text


def test_moved_hardpoint_on_the_corner_reference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Also under the damper drive: moving the upper ball joint changes camber there."""
    _need(CORNER_WB, CORNER_EXPORT)
    moved = _move_point(CORNER_WB, tmp_path / "moved.xlsx", "UBJ", 2.0)
    out = tmp_path / "r"
    code, _, _ = _run(
        capsys,
        "validate",
        str(moved),
        str(CORNER_EXPORT),
        "--drive",
        "dampers",
        "--out",
        str(out),
        "--no-plots",
    )
    assert code == 1
    text = (out / "report.md").read_text()
    assert "- **Camber Angle Front Left**" in text
    assert "- **Kingpin Angle Front Left**" in text


# -- malformed exports ------------------------------------------------------------------------
def _corner_rows() -> list[list[str]]:
    _need(CORNER_WB, CORNER_EXPORT)
    return _rows(CORNER_EXPORT)


def _replace_header(rows: list[list[str]], old: str, new: str) -> list[list[str]]:
    head = rows[0]
    head[head.index(old)] = new
    return rows


def test_missing_damper_channel_names_the_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _corner_rows()
    col = rows[0].index("Damper Length Front Left [mm]")
    bad = _write_rows(tmp_path / "x.csv", [r[:col] + r[col + 1 :] for r in rows])
    code, _, err = _run(
        capsys, "validate", str(CORNER_WB), str(bad), "--drive", "dampers", "--out", str(tmp_path)
    )
    assert code == 2
    assert "missing channel 'Damper Length Front Left [mm]'" in err
    assert not (tmp_path / "report.md").exists()


def test_missing_motion_channels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _corner_rows()
    drop = {rows[0].index(h) for h in ("Heave [mm]", "Roll [deg]", "Rack Travel [mm]")}
    bad = _write_rows(
        tmp_path / "x.csv", [[v for i, v in enumerate(r) if i not in drop] for r in rows]
    )
    code, _, err = _run(capsys, "validate", str(CORNER_WB), str(bad), "--out", str(tmp_path))
    assert code == 2
    assert "missing motion channels" in err and "'Heave [mm]'" in err


def test_unknown_unit_names_the_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _replace_header(
        _corner_rows(), "Camber Angle Front Left [deg]", "Camber Angle Front Left [grad]"
    )
    col = rows[0].index("Camber Angle Front Left [grad]") + 1
    bad = _write_rows(tmp_path / "x.csv", rows)
    code, _, err = _run(capsys, "validate", str(CORNER_WB), str(bad), "--out", str(tmp_path))
    assert code == 2
    assert f"x.csv: line 1, column {col}: column 'Camber Angle Front Left [grad]'" in err
    assert "unknown unit 'grad'" in err
    assert "fix: use one of deg, rad" in err


def test_wrong_corner_name_names_the_column(tmp_path: Path) -> None:
    rows = _replace_header(
        _corner_rows(), "Toe Angle Front Left [deg]", "Toe Angle Front Centre [deg]"
    )
    with pytest.raises(InputError) as info:
        read_export(_write_rows(tmp_path / "x.csv", rows))
    text = info.value.render()
    assert "column 'Toe Angle Front Centre [deg]'" in text
    assert "'front centre' is not a corner or axle name" in text
    assert "Front Left, Front Right, Rear Left, Rear Right" in text


def test_corner_name_on_a_motion_channel_and_wrong_unit_kind(tmp_path: Path) -> None:
    rows = _replace_header(_corner_rows(), "Heave [mm]", "Heave Front Left [mm]")
    with pytest.raises(InputError, match="'Heave' needs no corner or axle"):
        read_export(_write_rows(tmp_path / "a.csv", rows))
    rows = _replace_header(
        _corner_rows(), "Damper Length Front Left [mm]", "Damper Length Front Left [deg]"
    )
    with pytest.raises(InputError, match="unknown unit 'deg' for a length channel"):
        read_export(_write_rows(tmp_path / "b.csv", rows))


def test_non_numeric_cell_names_the_cell(tmp_path: Path) -> None:
    rows = _corner_rows()
    col = rows[0].index("Camber Angle Front Left [deg]")
    rows[3][col] = "n/a"
    with pytest.raises(InputError) as info:
        read_export(_write_rows(tmp_path / "x.csv", rows))
    assert info.value.where == f"x.csv: line 4, column {col + 1}"


@pytest.mark.parametrize("drive", ["motion", "dampers"])
def test_blank_drive_cell_names_its_line(
    drive: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A blank cell in a drive column is named by its own line of the file, counting the
    comment lines above the header, the header itself and a blank row inside the table."""
    rows = _corner_rows()
    header = "Heave [mm]" if drive == "motion" else "Damper Length Front Left [mm]"
    col = rows[0].index(header)
    rows[5][col] = ""  # the 5th step
    rows[8][col] = ""
    lines = ["# a comment line", "# another"]
    lines += [",".join(r) for r in rows[:3]] + [""] + [",".join(r) for r in rows[3:]]
    bad = tmp_path / "x.csv"
    bad.write_text("\n".join(lines) + "\n")
    # the line (1-based) of the first blank cell, found independently in the text
    line = next(
        n
        for n, text in enumerate(bad.read_text().splitlines(), start=1)
        if text and not text.startswith("#") and text.split(",")[col] == ""
    )
    assert line == 2 + 1 + 5 + 1  # comments, header, 5 steps, the blank row
    code, _, err = _run(
        capsys, "validate", str(CORNER_WB), str(bad), "--drive", drive, "--out", str(tmp_path)
    )
    assert code == 2
    assert f"x.csv: line {line}, column {col + 1}: column {header!r} has no value at step 5" in err
    assert "(2 blank cells)" in err
    assert not (tmp_path / "report.md").exists()


# -- units, layouts and maps ---------------------------------------------------------------------
def test_units_are_converted_and_xlsx_with_title_and_units_row(tmp_path: Path) -> None:
    """Metres and radians in an .xlsx with a title row and a separate units row."""
    import suspension_sim
    from suspension_sim.validation import validate

    rows = _corner_rows()
    head = rows[0]
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Results"
    ws.append(["OptimumK-style results (title row)"])
    names, units, factors = [], [], []
    for h in head:
        name, _, unit = h.partition(" [")
        unit = unit.rstrip("]")
        if unit == "mm" and "Damper" in name:
            unit, f = "m", 1e-3
        elif unit == "deg" and "Camber" in name:
            unit, f = "rad", np.pi / 180
        else:
            f = 1.0
        names.append(name)
        units.append(f"[{unit}]" if unit else "")
        factors.append(f)
    ws.append(names)
    ws.append(units)
    for r in rows[1:]:
        ws.append([float(v) * f for v, f in zip(r, factors, strict=True)])
    ws.append([])
    ws.append(["exported for a test (a note below the table)"])
    path = tmp_path / "results.xlsx"
    wb.save(path)
    export = read_export(path)
    camber = export.find("Camber Angle Front Left")
    damper = export.find("Damper Length Front Left")
    assert camber is not None and damper is not None
    assert camber.header.unit == "rad"
    assert export.n_steps == len(rows) - 1
    assert (
        camber.where
        == "results.xlsx: Results!"
        + "ABCDEFGHIJKLMNO"[names.index("Camber Angle Front Left")]
        + "2"
    )
    want = _rows(CORNER_EXPORT)
    idx = want[0].index("Camber Angle Front Left [deg]")
    assert np.allclose(camber.values, [float(r[idx]) for r in want[1:]], atol=1e-12)
    result = validate(suspension_sim.load(str(CORNER_WB)), export, drive="dampers")
    assert result.passed, result.summary()


def test_header_grammar_variants() -> None:
    cmap = ChannelMap()
    for text in (
        "Camber Angle Front Left [deg]",
        "front_left camber angle (rad)",
        "Camber Angle FL [°]",
        "Left Front Camber [deg]",
        "CAMBER-ANGLE.FRONT LEFT WHEEL",
    ):
        h = parse_header(text, "here", cmap)
        assert h is not None and h.channel == "Camber Angle Front Left", text
    assert parse_header("Front Track [in]", "here", cmap).channel == "Track Front"
    assert parse_header("Toe Angle RR", "here", cmap).channel == "Toe Angle Rear Right"
    # another quantity that starts with a known one is not ours (listed as not compared)
    assert parse_header("Camber Gain Front Left [deg/mm]", "here", cmap) is None
    assert parse_header("Roll Centre Lateral Front [mm]", "here", cmap) is None
    assert parse_header("Rack Force [N]", "here", cmap) is None


def test_docs_show_the_default_map() -> None:
    """docs/validation.md carries the default map exactly as the code has it."""
    from suspension_sim.validation import DEFAULT_QUANTITIES
    from suspension_sim.validation.channels import default_map_markdown as old_path
    from suspension_sim.validation.mapfiles import default_map_markdown

    table = default_map_markdown()
    assert old_path is default_map_markdown  # the documented old import still works
    assert table in (ROOT / "docs" / "validation.md").read_text()
    assert len(table.splitlines()) == 2 + len(DEFAULT_QUANTITIES)


def test_sign_flip_is_diagnosed_and_fixed_by_a_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An export with toe-in positive fails with a sign hint; a map with sign -1 fixes it."""
    rows = _corner_rows()
    col = rows[0].index("Toe Angle Front Left [deg]")
    for r in rows[1:]:
        r[col] = repr(-float(r[col]))
    export = _write_rows(tmp_path / "toe_in.csv", rows)
    out = tmp_path / "r1"
    code, _, _ = _run(
        capsys, "validate", str(CORNER_WB), str(export), "--out", str(out), "--no-plots"
    )
    assert code == 1
    assert "ours = -theirs at every step" in (out / "report.md").read_text()
    mapfile = tmp_path / "map.yaml"
    mapfile.write_text("channels:\n  Toe Angle: {sign: -1}\n")
    code, stdout, _ = _run(
        capsys,
        "validate",
        str(CORNER_WB),
        str(export),
        "--map",
        str(mapfile),
        "--out",
        str(tmp_path / "r2"),
        "--no-plots",
    )
    assert code == 0, stdout


def test_csv_map_renames_and_ignores(tmp_path: Path) -> None:
    import suspension_sim
    from suspension_sim.validation import validate

    rows = _replace_header(_corner_rows(), "Camber Angle Front Left [deg]", "Sturz VL [deg]")
    rows = _replace_header(rows, "Steer Angle Front Left [deg]", "Lenkwinkel VL [deg]")
    export = _write_rows(tmp_path / "x.csv", rows)
    mapfile = tmp_path / "map.csv"
    mapfile.write_text(
        "channel,metric,sign,scale\n"
        "Sturz VL,camber_FL_deg,,\n"
        "Lenkwinkel VL,steer_FL_deg,1,1\n"
        "Spindle Length,ignore,,\n"
    )
    cmap = load_channel_map(mapfile)
    exp = read_export(export, cmap)
    channels = {c.channel for c in exp.outputs()}
    assert "Sturz VL" in channels and "Lenkwinkel VL" in channels
    assert "Spindle Length Front Left" not in channels
    assert any("Spindle Length" in t for t in exp.ignored)
    result = validate(suspension_sim.load(str(CORNER_WB)), exp, channel_map=cmap)
    assert result.passed, result.summary()
    keys = {c.key for c in result.channels}
    assert {"camber_FL_deg", "steer_FL_deg"} <= keys


def test_bad_map_files(tmp_path: Path) -> None:
    bad = tmp_path / "m.csv"
    bad.write_text("channel,metric,sign\nToe Angle,,2\n")
    with pytest.raises(InputError, match="sign must be 1 or -1") as info:
        load_channel_map(bad)
    assert info.value.where == f"{bad}: line 2"
    bad.write_text("channel,metric\nSturz VL,\n")
    with pytest.raises(InputError, match="needs a metric"):
        load_channel_map(bad)
    y = tmp_path / "m.yaml"
    y.write_text("channels:\n  Toe Angle: {sgn: -1}\n")
    with pytest.raises(InputError, match="unknown key"):
        load_channel_map(y)


def test_report_never_overwrites_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _need(CORNER_WB, CORNER_EXPORT)
    export = tmp_path / "comparison.csv"  # the export sits where comparison.csv would go
    shutil.copy(CORNER_EXPORT, export)
    code, _, err = _run(capsys, "validate", str(CORNER_WB), str(export), "--out", str(tmp_path))
    assert code == 2
    assert "would overwrite" in err
    target = tmp_path / "file"
    target.write_text("x")
    code, _, err = _run(
        capsys, "validate", str(CORNER_WB), str(CORNER_EXPORT), "--out", str(target)
    )
    assert code == 2 and "is a file" in err


def test_xlsx_export_split_over_sheets(tmp_path: Path) -> None:
    """Motion on one sheet, channels on another (both with the step column)."""
    rows = _corner_rows()
    head = rows[0]
    motion = [i for i, h in enumerate(head) if h.split(" [")[0] in ("Step", "Heave", "Roll")]
    motion.append(head.index("Rack Travel [mm]"))
    rest = [0] + [i for i in range(len(head)) if i not in motion]
    wb = openpyxl.Workbook()
    first = wb.active
    first.title = "Motion"
    second = wb.create_sheet("Outputs")
    for r, row in enumerate(rows):
        conv = row if r == 0 else [float(v) for v in row]
        first.append([conv[i] for i in motion])
        second.append([conv[i] for i in rest])
    path = tmp_path / "split.xlsx"
    wb.save(path)
    export = read_export(path)
    assert set(export.motion()) == {"heave", "roll", "rack"}
    assert len(export.outputs()) == 11
    assert export.find("Toe Angle Front Left").where == "split.xlsx: Outputs!C1"
    second.append([999.0] * len(rest))  # one step more on the second sheet
    wb.save(path)
    with pytest.raises(InputError, match="this sheet has 41 steps, the first has 40"):
        read_export(path)


def test_solvespace_reference_points_match_the_model() -> None:
    """Before any rounding, refkit's SolveSpace car (tyres on the ground) and ours agree
    to 1e-9 mm at every point."""
    import sys

    import slvs  # noqa: F401  (a test dependency: pip install -e .[test])

    _need(CAR_WB)
    import suspension_sim
    from suspension_sim.solve.state import State
    from suspension_sim.sweeps.motions import ground_targets

    sys.path.insert(0, str(ROOT / "validation"))
    try:
        import refkit
    finally:
        sys.path.pop(0)
    car = refkit.read_workbook(CAR_WB)
    slv = refkit.SlvsCar(car)
    model = suspension_sim.load(str(CAR_WB))
    targets = ground_targets(model)
    start = pose = None
    for heave, roll, pitch, swa in [(-15.0, 0.0, 0.0, 0.0), (0.0, 1.2, 0.6, 70.0)]:
        rack = swa * car.rack_ratio_mm_per_deg
        ref = slv.solve(refkit.ChassisPose(heave, roll, pitch), rack=rack, start=start)
        start = ref
        pose = State(rack=rack, chassis=(0, 0, heave, roll, pitch, 0), targets=targets).solve(
            model, guess=pose
        )
        for name, xyz in pose.points.iterrows():
            assert np.allclose(xyz.to_numpy(float), ref[name], atol=1e-9, rtol=0), name


# -- encodings and separators ------------------------------------------------------------
def _export_bytes(sep: str, encoding: str, bom: bytes = b"", decimal: str = ".") -> bytes:
    """The corner reference export re-written as Excel saves text in other locales:
    `sep` between cells, `decimal` in numbers, a degree sign in one unit."""
    rows = _corner_rows()
    rows = _replace_header(rows, "Camber Angle Front Left [deg]", "Camber Angle Front Left [°]")
    out = io.StringIO()
    writer = csv.writer(out, delimiter=sep, lineterminator="\r\n")
    writer.writerow(["Résultats – export"])  # a title row above the header
    for i, row in enumerate(rows):
        writer.writerow([c.replace(".", decimal) for c in row] if i else row)
    return bom + out.getvalue().encode(encoding)


@pytest.mark.parametrize(
    ("name", "sep", "encoding", "bom", "decimal"),
    [
        # Excel "Unicode text": UTF-16 LE with a byte-order mark, tab separated
        ("unicode.txt", "\t", "utf-16-le", codecs.BOM_UTF16_LE, "."),
        ("unicode_de.txt", "\t", "utf-16-le", codecs.BOM_UTF16_LE, ","),
        ("be.csv", ",", "utf-16-be", codecs.BOM_UTF16_BE, "."),
        ("no_mark.tsv", "\t", "utf-16-le", b"", "."),
        # Excel "CSV UTF-8": a UTF-8 byte-order mark; a European locale uses ';' and ','
        ("utf8.csv", ",", "utf-8", codecs.BOM_UTF8, "."),
        ("utf8_de.csv", ";", "utf-8", codecs.BOM_UTF8, ","),
        # Excel "CSV" on Windows: Windows-1252, no mark
        ("ansi.csv", ";", "cp1252", b"", ","),
        ("ansi.txt", "\t", "cp1252", b"", "."),
    ],
)
def test_export_in_other_encodings(
    tmp_path: Path, name: str, sep: str, encoding: str, bom: bytes, decimal: str
) -> None:
    reference = read_export(CORNER_EXPORT)
    path = tmp_path / name
    path.write_bytes(_export_bytes(sep, encoding, bom, decimal))
    export = read_export(path)
    assert [c.channel for c in export.columns] == [c.channel for c in reference.columns]
    assert export.find("Camber Angle Front Left").header.text.endswith("[°]")  # type: ignore[union-attr]
    for got, want in zip(export.columns, reference.columns, strict=True):
        np.testing.assert_array_equal(got.values, want.values)
    np.testing.assert_array_equal(export.steps, reference.steps)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (codecs.BOM_UTF16_LE + "Heave [mm]".encode("utf-16-le") + b"\x00\xdc", "UTF-16 LE"),
        (codecs.BOM_UTF8 + b"Heave [mm]\n\xff\xfe1\n", "not valid UTF-8 text"),
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" * 20, "NUL bytes: it is not a text file"),
        (b"Heave [mm]\n1\x81\n2\x8d\n", "neither UTF-8 nor Windows-1252"),
    ],
)
def test_undecodable_export_names_the_encoding(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "export.csv"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        read_export(path)
    assert message in info.value.message
    assert info.value.where == str(path)


def test_a_missing_motion_channel_is_named_with_what_was_assumed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Roll dropped from a table export that rolls: the run says roll was taken as 0 (the
    terminal, the report's notes) and the failing summary names the channel first, so
    the failing camber and toe channels are explained (issue 24)."""
    rows = _corner_rows()
    col = rows[0].index("Roll [deg]")
    bad = _write_rows(tmp_path / "x.csv", [r[:col] + r[col + 1 :] for r in rows])
    code, out, _ = _run(
        capsys, "validate", str(CORNER_WB), str(bad), "--out", str(tmp_path / "r"), "--no-plots"
    )
    assert code == 1
    assert out.startswith("FAIL: motion channel(s) missing from the export, assumed 0 at every "
                          "step: 'Roll [deg]'")  # fmt: skip
    assert "note: the export has no 'Roll [deg]' channel: roll assumed 0 deg at every step" in out
    text = (tmp_path / "r" / "report.md").read_text()
    assert "- the export has no 'Roll [deg]' channel: roll assumed 0 deg" in text
    # this export never had pitch: the passing run says so too, and nothing of roll
    code, out, _ = _run(
        capsys,
        "validate",
        str(CORNER_WB),
        str(CORNER_EXPORT),
        "--out",
        str(tmp_path / "ok"),
        "--no-plots",
    )
    assert code == 0 and "'Roll [deg]'" not in out
    assert "note: the export has no 'Pitch [deg]' channel: pitch assumed 0 deg" in out
