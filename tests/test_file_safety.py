"""Files the user protects stay protected, through every command that writes.

Built from real files: a read-only workbook, result file or folder is refused
with exit 2 before anything is solved (the permission bits decide, so this
holds when the tests run as root too); a symbolic link is written through to
its target and stays a link; a writer killed with SIGKILL in the middle of a
write leaves the original intact and its stale temporary file is removed by
the next write; and every output option follows one folder rule (the folder
must exist; a folder output is created, but its parent must exist).
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from suspension_sim import files
from suspension_sim.cli import main
from suspension_sim.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
CORNER = ROOT / "validation" / "corner_closed_form"
SWEEPS = (
    "version: 1\nsweeps:\n  roll:\n    motion: roll\n    start: -1\n    stop: 1\n    steps: 3\n"
)
"""A three-step roll sweep (deg), found as sweeps.yaml next to the workbook."""


@pytest.fixture()
def car(tmp_path: Path) -> Path:
    """A copy of the example car with a short sweeps.yaml beside it."""
    path = tmp_path / "car.xlsx"
    shutil.copy(EXAMPLE, path)
    (tmp_path / "sweeps.yaml").write_text(SWEEPS, encoding="utf-8")
    return path


def _temps(*folders: Path) -> list[str]:
    return [p.name for f in folders for p in f.iterdir() if files.TEMP_TAG in p.name]


def _file(path: Path, data: bytes = b"keep me\n", mode: int = 0o444) -> Path:
    path.write_bytes(data)
    path.chmod(mode)
    return path


# -- read-only files are never replaced ---------------------------------------------------
WRITERS: dict[str, tuple[str, str]] = {
    # name: (command line, {dir} = the car's folder; the file it would write there)
    "sweep --into-workbook": ("sweep {dir}/car.xlsx roll --into-workbook", "car.xlsx"),
    "new --force": ("new {dir}/car.xlsx --force", "car.xlsx"),
    "solve --out": ("solve {dir}/car.xlsx --out {dir}/p.csv", "p.csv"),
    "solve --out --force": ("solve {dir}/car.xlsx --out {dir}/p.xlsx --force", "p.xlsx"),
    "sweep --out": ("sweep {dir}/car.xlsx roll --out {dir}/r.csv", "r.csv"),
    "sweep --plot": ("sweep {dir}/car.xlsx roll --plot {dir}/plots", "plots/camber.png"),
    "view --screenshot": ("view {dir}/car.xlsx --screenshot {dir}/v.png", "v.png"),
    "view --animate": ("view {dir}/car.xlsx --sweep roll --animate {dir}/a.gif", "a.gif"),
    "validate --out": ("validate {dir}/car.xlsx {export} --out {dir}/rep", "rep/report.md"),
}


def _argv(template: str, folder: Path) -> list[str]:
    """`template` split into arguments, with {dir} and {export} filled in."""
    export = CORNER / "export.csv"
    return [part.format(dir=folder, export=export) for part in template.split()]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_read_only_file_is_refused_before_solving(
    writer: str, car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template, relative = WRITERS[writer]
    target = car.parent / relative
    target.parent.mkdir(exist_ok=True)
    if target != car:
        _file(target)
    else:
        car.chmod(0o444)
    before = target.read_bytes()
    code = main(_argv(template, car.parent))
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""  # nothing was solved (solve and sweep print after solving)
    assert str(target) in err and "read-only (mode 0444)" in err
    assert target.read_bytes() == before and target.stat().st_mode & 0o777 == 0o444
    assert _temps(car.parent, target.parent) == []


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_nothing_is_written_into_a_read_only_folder(
    writer: str, car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    template, relative = WRITERS[writer]
    folder = car.parent
    if "/" in relative:  # the output is a folder of its own: protect that folder
        folder = car.parent / relative.split("/")[0]
        folder.mkdir()
    listing = sorted(p.name for p in folder.iterdir())
    folder.chmod(0o555)
    try:
        code = main(_argv(template, car.parent))
    finally:
        folder.chmod(0o755)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    assert f"folder {folder} is read-only (mode 0555)" in err
    assert sorted(p.name for p in folder.iterdir()) == listing


def test_a_writable_file_is_replaced(car: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The control: the same files with their write bit are replaced (with --force, the
    one rule for every existing output)."""
    old = _file(car.with_name("p.csv"), mode=0o640)
    assert main(["solve", str(car), "--out", str(old)]) == 2  # exists: refused without --force
    assert old.read_bytes() == b"keep me\n"
    assert main(["solve", str(car), "--out", str(old), "--force"]) == 0
    assert pd.read_csv(old, index_col=0).shape[1] == 4
    assert old.stat().st_mode & 0o777 == 0o640  # the replaced file keeps its mode
    assert main(["sweep", str(car), "roll", "--into-workbook"]) == 0
    assert "Results roll" in openpyxl.load_workbook(car, read_only=True).sheetnames
    capsys.readouterr()


def test_the_permission_bits_decide_even_for_root(tmp_path: Path) -> None:
    """os.access says yes to root for a 0444 file; the bits still protect it."""
    locked = _file(tmp_path / "locked.csv")
    assert files.why_not_writable(locked) == "is read-only (mode 0444); it is never replaced"
    with pytest.raises(files.NotWritableError), files.atomic_path(locked) as tmp:
        tmp.write_text("new")
    assert locked.read_bytes() == b"keep me\n" and _temps(tmp_path) == []
    with pytest.raises(InputError, match=r"locked\.csv is read-only"):
        files.check_writable(locked, where="--out")
    assert files.why_not_writable(tmp_path / "new.csv") is None


# -- symbolic links are written through ---------------------------------------------------
def test_every_writer_writes_through_a_link(car: Path, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = car.parent / "elsewhere"
    elsewhere.mkdir()

    def link(name: str, data: bytes = b"old\n") -> tuple[Path, Path]:
        target = elsewhere / name
        target.write_bytes(data)
        path = car.with_name(name)
        path.symlink_to(target)
        return path, target

    points, points_target = link("points.csv")
    assert main(["solve", str(car), "--out", str(points), "--force"]) == 0
    assert pd.read_csv(points_target, index_col=0).columns[0] == "x_mm"

    table, table_target = link("roll.xlsx")
    assert main(["sweep", str(car), "roll", "--out", str(table), "--force"]) == 0
    assert pd.read_excel(table_target, index_col=0)["chassis_roll_deg"].tolist() == [-1, 0, 1]

    new, new_target = link("template.xlsx")
    assert main(["new", str(new), "--force"]) == 0
    assert "Index" in openpyxl.load_workbook(new_target, read_only=True).sheetnames

    report = car.with_name("report")
    report.mkdir()
    md_target = elsewhere / "report.md"
    md_target.write_text("old\n")
    (report / "report.md").symlink_to(md_target)
    corner = shutil.copy(CORNER / "corner.xlsx", car.with_name("corner.xlsx"))
    export = str(CORNER / "export.csv")
    assert main(["validate", str(corner), export, "--out", str(report), "--no-plots"]) == 0
    assert md_target.read_text().startswith("#")

    for path, target in [(points, points_target), (table, table_target), (new, new_target)]:
        assert path.is_symlink() and path.resolve() == target.resolve()
    assert (report / "report.md").is_symlink()
    assert _temps(car.parent, elsewhere, report) == []
    capsys.readouterr()


def test_screenshot_and_chart_write_through_a_link(
    car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from suspension_sim.errors import SuspensionSimError
    from suspension_sim.viz import ensure_rendering

    plots = car.with_name("plots")
    plots.mkdir()
    chart = car.with_name("camber_elsewhere.png")
    chart.write_bytes(b"old")
    (plots / "camber.png").symlink_to(chart)
    assert main(["sweep", str(car), "roll", "--plot", str(plots)]) == 0
    assert chart.read_bytes().startswith(b"\x89PNG") and (plots / "camber.png").is_symlink()
    try:
        ensure_rendering()
    except SuspensionSimError as exc:
        if os.environ.get("CI"):  # CI must render: .ci/run installs Mesa's EGL
            raise
        pytest.skip(f"no off-screen rendering on this machine: {exc.render()}")
    shot = car.with_name("shot.png")
    shot_target = car.with_name("shot_target.png")
    shot_target.write_bytes(b"old")
    shot.symlink_to(shot_target)
    assert main(["view", str(car), "--screenshot", str(shot), "--size", "64", "48"]) == 0
    assert shot.is_symlink() and shot_target.read_bytes().startswith(b"\x89PNG")
    assert _temps(car.parent, plots) == []
    capsys.readouterr()


# -- interrupted writes -------------------------------------------------------------------
WRITER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from suspension_sim.files import atomic_path
    with atomic_path(sys.argv[1]) as tmp:
        tmp.write_bytes(b"half of the new cont")
        print(tmp, flush=True)
        time.sleep(600)
    """
)


def test_a_killed_writer_leaves_the_original_and_its_temp_is_cleaned(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    target.write_bytes(b"the original\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER_SCRIPT, str(target)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        assert writer.stdout is not None
        tmp = Path(writer.stdout.readline().strip())  # the writer is inside atomic_path
        assert tmp.parent == tmp_path and tmp.read_bytes() == b"half of the new cont"
    finally:
        writer.kill()  # SIGKILL: no clean-up runs
        writer.wait(timeout=30)
    assert writer.returncode == -9
    assert target.read_bytes() == b"the original\n"
    assert _temps(tmp_path) == [tmp.name]  # stale until the next write here
    files.write_text_atomically(tmp_path / "other.csv", "next run\n")
    assert _temps(tmp_path) == []
    assert target.read_bytes() == b"the original\n"


@pytest.mark.parametrize(
    "failure",
    [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()],
    ids=["disk full", "Ctrl-C"],
)
def test_a_failed_write_leaves_the_original_and_no_temp(
    failure: BaseException, tmp_path: Path
) -> None:
    target = tmp_path / "results.csv"
    target.write_bytes(b"the original\n")

    def write(tmp: Path) -> None:
        tmp.write_bytes(b"half")
        raise failure

    with pytest.raises(type(failure)):
        files.write_atomically(target, write)
    assert target.read_bytes() == b"the original\n"
    assert _temps(tmp_path) == []


def test_a_live_writers_temp_is_left_alone(tmp_path: Path) -> None:
    """Only temps of dead processes are removed: ours (alive) stays while writing."""
    with files.atomic_path(tmp_path / "a.csv") as tmp:
        tmp.write_text("x")
        files.write_text_atomically(tmp_path / "b.csv", "y")
        assert tmp.exists()
    assert (tmp_path / "a.csv").read_text() == "x" and _temps(tmp_path) == []


# -- one rule for output folders ----------------------------------------------------------
MISSING: dict[str, str] = {
    # name: command line ({dir}: the car's folder; no_such_folder does not exist)
    "solve --out": "solve {dir}/car.xlsx --out {dir}/no_such_folder/points.csv",
    "sweep --out": "sweep {dir}/car.xlsx roll --out {dir}/no_such_folder/r.csv",
    "sweep --plot": "sweep {dir}/car.xlsx roll --plot {dir}/no_such_folder/plots",
    "view --screenshot": "view {dir}/car.xlsx --screenshot {dir}/no_such_folder/v.png",
    "view --animate": "view {dir}/car.xlsx --sweep roll --animate {dir}/no_such_folder/a.gif",
    "validate --out": "validate {dir}/car.xlsx {export} --out {dir}/no_such_folder/report",
    "new": "new {dir}/no_such_folder/car.xlsx",
}


@pytest.mark.parametrize("command", sorted(MISSING))
def test_a_missing_output_folder_is_refused_by_every_command(
    command: str, car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = car.with_name("no_such_folder")
    code = main(_argv(MISSING[command], car.parent))
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == ""
    assert f"{missing} does not exist" in err
    option = command.split(" ", 1)[1] if " " in command else str(missing / "car.xlsx")
    assert err.startswith(f"error: {option}: ")
    assert "create" in err  # says what to do
    assert not missing.exists()


def test_a_folder_output_is_created_when_its_parent_exists(
    car: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plots = car.with_name("plots")
    assert main(["sweep", str(car), "roll", "--plot", str(plots)]) == 0
    assert (plots / "camber.png").read_bytes().startswith(b"\x89PNG")
    capsys.readouterr()


def test_same_file_follows_links_and_compares_missing_paths(tmp_path: Path) -> None:
    from suspension_sim.files import same_file

    book = tmp_path / "car.xlsx"
    book.write_bytes(b"x")
    link = tmp_path / "link.xlsx"
    link.symlink_to(book)
    other = tmp_path / "other.xlsx"
    other.write_bytes(b"x")  # same bytes, another file
    assert same_file(link, book) and same_file(tmp_path / "sub" / ".." / "car.xlsx", book)
    assert not same_file(other, book)
    assert not same_file(tmp_path / "new.xlsx", book)  # not written yet
