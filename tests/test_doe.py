"""Design of experiments: the study file, the sampled designs, and a run on a local
multi-process Dask cluster checked against the same designs typed into workbooks."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd
import pytest

import suspension_sim as ss
from suspension_sim.cli import main
from suspension_sim.errors import InputError
from suspension_sim.explore.design_space import Variable, apply_offsets, check_variables, read_study
from suspension_sim.explore.doe import (
    chunk_size,
    motion_specs,
    run_design,
    run_doe,
    sample_offsets,
)
from suspension_sim.sweeps import run_sweep, standard_sweep

ROOT = Path(__file__).resolve().parents[1]
CAR = ROOT / "workbooks" / "fsae_car.xlsx"

STUDY = """\
version: 1
variables:
  - {point: FL_UCA_F, axis: z, range: [-4, 4], symmetric: true}
  - {point: FL_TIE_I, axis: y, range: [-2, 2], symmetric: true}
motions:
  - {motion: heave, start: -10, stop: 10, steps: 3}
samples: 3
seed: 7
"""


@pytest.fixture(scope="module")
def model() -> ss.Model:
    return ss.load(CAR)


def write(tmp_path: Path, text: str, name: str = "study.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the study file ---------------------------------------------------------------------------
def test_study_file_read(tmp_path: Path) -> None:
    study = read_study(write(tmp_path, STUDY))
    assert [v.name for v in study.variables] == ["FL_UCA_F.z", "FL_TIE_I.y"]
    assert study.variables[0].twin == "FR_UCA_F"
    assert (study.samples, study.method, study.seed) == (3, "sobol", 7)
    assert study.motions[0].name == "heave" and study.motions[0].steps == 3


@pytest.mark.parametrize(
    ("old", "new", "line", "words"),
    [
        ("axis: z, range: [-4, 4]", "axis: w, range: [-4, 4]", 3, "axis 'w'"),
        ("range: [-2, 2]", "range: [2, -2]", 4, "low < high"),
        ("range: [-2, 2]", "range: [-2, 2000]", 4, "500 mm"),
        ("samples: 3", "samples: 0", 7, "samples"),
        ("samples: 3", "samples: 3\nmethod: halton", 8, "halton"),
        ("seed: 7", "seeds: 7", 8, "unknown key 'seeds'"),
        ("{point: FL_TIE_I,", "{point: TIE_I,", 4, "not a left-side name"),
    ],
)
def test_study_errors_name_the_line(
    tmp_path: Path, old: str, new: str, line: int, words: str
) -> None:
    path = write(tmp_path, STUDY.replace(old, new))
    with pytest.raises(InputError) as err:
        read_study(path)
    assert err.value.where == f"{path}:{line}"
    assert words in err.value.message


def test_unknown_point_named_with_suggestion(tmp_path: Path, model: ss.Model) -> None:
    path = write(tmp_path, STUDY.replace("FL_UCA_F", "FL_UCA_FX"))
    study = read_study(path)
    with pytest.raises(InputError) as err:
        check_variables(model.car, study.variables)
    assert err.value.where == f"{path}:3"
    assert "FL_UCA_FX" in err.value.message and "mean 'FL_UCA_F'" in err.value.message


def test_coordinate_driven_twice_is_refused(tmp_path: Path, model: ss.Model) -> None:
    text = STUDY.replace("FL_TIE_I, axis: y", "FR_UCA_F, axis: z").replace(
        "range: [-2, 2], symmetric: true", "range: [-2, 2]"
    )
    study = read_study(write(tmp_path, text))
    with pytest.raises(InputError, match="moved by two variables"):
        check_variables(model.car, study.variables)


# -- designs ------------------------------------------------------------------------------------
def test_offsets_move_the_point_and_its_mirror(model: ss.Model) -> None:
    vs = [Variable("FL_TIE_I", "y", -2, 2, "FR_TIE_I"), Variable("FL_UCA_F", "x", -1, 1)]
    car = apply_offsets(model.car, vs, [1.5, -0.25])
    before, after = model.car.point_map(), car.point_map()
    np.testing.assert_array_equal(after["FL_TIE_I"] - before["FL_TIE_I"], [0, 1.5, 0])
    np.testing.assert_array_equal(after["FR_TIE_I"] - before["FR_TIE_I"], [0, -1.5, 0])
    np.testing.assert_array_equal(after["FL_UCA_F"] - before["FL_UCA_F"], [-0.25, 0, 0])
    np.testing.assert_array_equal(after["FR_UCA_F"], before["FR_UCA_F"])  # not symmetric
    moved = {"FL_TIE_I", "FR_TIE_I", "FL_UCA_F"}
    assert all(np.array_equal(after[n], before[n]) for n in before if n not in moved)


@pytest.mark.parametrize("method", ["sobol", "lhs"])
def test_samples_fill_the_ranges_reproducibly(tmp_path: Path, method: str) -> None:
    text = STUDY.replace("samples: 3", f"samples: 64\nmethod: {method}")
    study = read_study(write(tmp_path, text))
    a, b = sample_offsets(study), sample_offsets(study)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (64, 2)
    assert (a >= study.lows).all() and (a < study.highs).all()
    # Space filling, checked by counting: every one of the 64 equal strata of each range
    # holds exactly one design (Latin hypercube by construction; a scrambled Sobol set of
    # 2^6 points has the same one-dimensional balance).
    strata = np.floor((a - study.lows) / (study.highs - study.lows) * 64).astype(int)
    for k in range(2):
        assert sorted(strata[:, k]) == list(range(64))


def test_degenerate_design_is_a_row_with_its_reason(model: ss.Model) -> None:
    """The upper wishbone's front pivot moved onto its rear pivot: no hinge axis."""
    delta = model.car.point("FL_UCA_R") - model.car.point("FL_UCA_F")
    vs = [Variable("FL_UCA_F", a, -500, 500) for a in "xyz"]
    specs = motion_specs(model, None, read_study_motions())
    rows = run_design(model.car, vs, list(delta), specs, None)
    assert len(rows) == 1
    assert rows[0]["status"] == "invalid design"
    assert "FL_UCA_F" in rows[0]["reason"] or "FL_UCA" in rows[0]["reason"]


def read_study_motions() -> tuple:
    from suspension_sim.explore.design_space import MotionRequest

    return (MotionRequest("heave", -10, 10, 3),)


# -- a run on a local multi-process Dask cluster -------------------------------------------------
def edited_workbook(tmp_path: Path, moves: dict[str, tuple[int, float]], name: str) -> Path:
    """A copy of the example workbook with Hard Points cells edited as a user would."""
    path = tmp_path / name
    shutil.copy(CAR, path)
    book = openpyxl.load_workbook(path)
    sheet = book["Hard Points"]
    for row in sheet.iter_rows(min_row=2):
        if row[0].value in moves:
            col, delta = moves[row[0].value]
            row[col].value = float(row[col].value) + delta
    book.save(path)
    return path


def test_doe_on_a_local_cluster_matches_edited_workbooks(tmp_path: Path, model: ss.Model) -> None:
    study = read_study(write(tmp_path, STUDY))
    out = tmp_path / "results.parquet"
    seen: list[tuple[int, int]] = []
    summary = run_doe(
        model.car,
        study,
        out,
        workbook=str(CAR),
        workers=2,
        chunk=1,
        progress=lambda d, n: seen.append((d, n)),
    )
    assert summary.workers == 2 and summary.designs == 3 and summary.designs_ok == 3
    assert seen[-1] == (3, 3)
    table = pd.read_parquet(out)
    assert list(table["design"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2]  # design order
    assert list(table["step"]) == [0, 1, 2] * 3
    assert (table["status"] == "ok").all()
    offsets = sample_offsets(study)
    for d in range(3):
        rows = table[table["design"] == d]
        dz, dy = offsets[d]
        np.testing.assert_array_equal(rows["FL_UCA_F.z"], dz)
        # The same design typed into a workbook (x y z are columns B C D of Hard Points):
        # FL and FR moved alike in z, mirrored in y.
        path = edited_workbook(
            tmp_path,
            {"FL_UCA_F": (3, dz), "FR_UCA_F": (3, dz), "FL_TIE_I": (2, dy), "FR_TIE_I": (2, -dy)},
            f"design{d}.xlsx",
        )
        typed = ss.load(path, use_cache=False)
        expect = run_sweep(typed, standard_sweep(typed, "heave", -10, 10, 3), keep_poses=False)
        for column in ("camber_FL_deg", "toe_FR_deg", "kpi_FL_deg", "roll_centre_height_front_mm"):
            if column in expect.table:
                np.testing.assert_allclose(rows[column], expect.table[column], atol=1e-9)


def test_the_cluster_table_is_the_single_process_table(
    tmp_path: Path, model: ss.Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same study on a local 2-worker Dask cluster (chunks finishing in any order,
    written a few rows at a time) and in this process, one chunk after the other, all
    rows at once: the same Parquet table (every key and text column exactly, every
    number to 1e-9: a worker may solve on the compiled engine and this process on
    numpy, which agree to the solver's tolerance)."""
    import pyarrow.parquet as pq

    from suspension_sim.explore import doe

    text = STUDY.replace("samples: 3", "samples: 5").replace(
        "{motion: heave, start: -10, stop: 10, steps: 3}", "{motion: roll, steps: 3}"
    )
    study = read_study(write(tmp_path, text))
    tables = []
    groups = []
    for workers in (0, 2):
        out = tmp_path / f"w{workers}.parquet"
        monkeypatch.setattr(doe, "ROW_GROUP_ROWS", 10 if workers else 10**6)
        summary = run_doe(model.car, study, out, workbook=str(CAR), workers=workers, chunk=2)
        assert summary.workers == workers and summary.designs == 5
        tables.append(pd.read_parquet(out))
        groups.append(pq.ParquetFile(out).num_row_groups)
    assert groups[0] == 1 and groups[1] > 1
    pd.testing.assert_frame_equal(tables[0], tables[1], check_exact=False, rtol=1e-9, atol=1e-9)
    assert list(tables[0]["design"].unique()) == [0, 1, 2, 3, 4]


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = write(tmp_path, STUDY.replace("FL_UCA_F", "FL_NOPE"))
    out = tmp_path / "r.parquet"
    assert main(["doe", str(CAR), str(study), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{study}:3" in err and "Traceback" not in err
    assert main(["doe", str(CAR), str(study), "--out", str(tmp_path / "r.csv")]) == 2
    assert "--out" in capsys.readouterr().err
    args = ["doe", str(CAR), str(study), "--out", str(out), "--workers", "-1"]
    assert main(args) == 2
    assert "--workers" in capsys.readouterr().err
    assert not out.exists()


def test_the_bundled_study_fits_the_example_car(model: ss.Model) -> None:
    """workbooks/study.yaml (docs/exploration.md's example) reads and names the car's points."""
    study = read_study(ROOT / "workbooks" / "study.yaml")
    check_variables(model.car, study.variables)
    assert study.samples == 64 and [m.name for m in study.motions] == ["heave", "roll", "steer"]
    assert len(motion_specs(model, str(CAR), study.motions)) == 3


def test_chunk_size_keeps_sixteen_tasks_between_16_and_32_designs() -> None:
    """Small studies keep 16 designs a task, larger ones grow them to keep 16 tasks, up
    to 32 designs a task (the Dask overhead per design falls with the task's size, and
    the fast path checks and measures a task's designs together)."""
    sizes = [chunk_size(n) for n in (1, 64, 200, 256, 300, 511, 1024, 10**6)]
    assert sizes == [16, 16, 16, 16, 18, 31, 32, 32]


def test_a_failed_cluster_run_is_closed_and_keeps_its_error(
    tmp_path: Path, model: ss.Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run whose cluster fails (here its first task) closes the client and the local
    cluster it opened, raises that failure (not an error of the closing, which is
    logged), and writes no file."""
    from suspension_sim.explore import doe

    closed: list[str] = []

    class Part:
        def __init__(self, name: str) -> None:
            self.name = name

        def close(self) -> None:
            closed.append(self.name)
            raise OSError(f"{self.name} already gone")

    class Client(Part):
        def submit(self, *args: object, **kwargs: object) -> object:
            raise RuntimeError("worker died")

    def connect(scheduler: str | None, workers: int | None) -> doe._Dask:
        return doe._Dask(Client("client"), Part("cluster"), 2)

    monkeypatch.setattr(doe, "_connect", connect)
    study = read_study(write(tmp_path, STUDY))
    out = tmp_path / "out.parquet"
    with pytest.raises(RuntimeError, match="worker died"):
        run_doe(model.car, study, out, workbook=str(CAR), workers=2)
    assert closed == ["client", "cluster"]
    assert not out.exists()
