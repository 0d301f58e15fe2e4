"""`suspension-sim solve` end to end on a real workbook, and the model cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cars import four_corner_car

import suspension_sim
from suspension_sim import Model
from suspension_sim.cli import main
from suspension_sim.workbook.writer import write_car


@pytest.fixture(scope="module")
def workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("wb") / "four.xlsx"
    write_car(four_corner_car(), path)
    return path


def test_solve_writes_points_that_match_the_api(workbook: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "points.csv"
    code = main(
        [
            "solve",
            str(workbook),
            "--shocks",
            "10",
            "5",
            "0",
            "-5",
            "--rack",
            "3",
            "--chassis",
            "0",
            "0",
            "-10",
            "1",
            "0.5",
            "0",
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert "converged with engine" in text and "largest residual" in text
    table = pd.read_csv(out, index_col=0)
    pose = Model(four_corner_car()).solve(
        shocks=[10, 5, 0, -5], rack=3, chassis=(0, 0, -10, 1, 0.5, 0)
    )
    assert np.allclose(
        table[["x_mm", "y_mm", "z_mm"]].to_numpy(), pose.points.to_numpy(), atol=1e-9
    )
    assert table["residual_mm"].max() < 1e-9


def test_solve_by_name_and_other_formats(workbook: Path, tmp_path: Path) -> None:
    xlsx = tmp_path / "p.xlsx"
    assert main(["solve", str(workbook), "--shocks", "FL_Damper=4", "--out", str(xlsx)]) == 0
    assert pd.read_excel(xlsx, index_col=0).shape[1] == 4
    # An existing .xlsx is not replaced without --force; the workbook itself never.
    assert main(["solve", str(workbook), "--out", str(xlsx)]) == 2
    assert main(["solve", str(workbook), "--out", str(xlsx), "--force"]) == 0
    assert main(["solve", str(workbook), "--out", str(workbook), "--force"]) == 2
    pq = tmp_path / "p.parquet"
    assert main(["solve", str(workbook), "--out", str(pq)]) == 0
    assert pd.read_parquet(pq).shape[0] == 64


def test_unreachable_input_exits_non_zero_naming_the_joint(
    workbook: Path, tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    # 49 mm of stroke is inside the damper limits but the rocker stops short.
    code = main(["solve", str(workbook), "--shocks", "0", "0", "0", "0", "--rack", "200"])
    text = capsys.readouterr()
    assert code == 3
    assert "NOT converged" in text.out
    assert "left open by" in text.out and "rack = 200 mm" in text.out
    assert "Traceback" not in text.err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--shocks", "1", "2"], ["--shocks", "2 stroke value(s)"]),
        (["--shocks", "a", "b", "c", "d"], ["--shocks", "not a number"]),
        (["--shocks", "1", "X=2"], ["--shocks", "mixes"]),
        (["--out", "p.txt"], ["--out", ".csv, .xlsx or .parquet"]),
    ],
)
def test_bad_options_are_named(workbook: Path, argv: list[str], words: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["solve", str(workbook), *argv]) == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err
    assert "Traceback" not in err


def test_missing_workbook(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["solve", str(tmp_path / "nope.xlsx")]) == 2
    assert "nope.xlsx" in capsys.readouterr().err


def test_unchanged_workbook_loads_from_the_cache(
    workbook: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suspension_sim.workbook import reader

    cache = tmp_path / "cache"
    monkeypatch.setenv("SUSPENSION_SIM_CACHE_DIR", str(cache))
    reads: list[Path] = []
    real_read_car = reader.read_car

    def counting_read_car(path: Path) -> object:
        reads.append(Path(path))
        return real_read_car(path)

    monkeypatch.setattr(reader, "read_car", counting_read_car)
    first = suspension_sim.load(workbook)
    assert reads == [workbook] and len(list(cache.glob("car-*.entry"))) == 1
    second = suspension_sim.load(workbook)
    assert reads == [workbook]  # a cache hit: the workbook was not read again
    assert second is not first and second.car == first.car
    assert [p.source for p in second.car.points] == [p.source for p in first.car.points]
    assert np.array_equal(
        second.solve(shocks=[3, 3, 3, 3]).params, first.solve(shocks=[3, 3, 3, 3]).params
    )
    # A changed workbook is a different cache entry.
    copy = tmp_path / "changed.xlsx"
    car = four_corner_car()
    import dataclasses

    write_car(dataclasses.replace(car, name="changed"), copy)
    assert suspension_sim.load(copy).car.name == "changed"
    assert reads == [workbook, copy] and len(list(cache.glob("car-*.entry"))) == 2


def test_output_edge_cases(workbook: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "adir.csv"
    folder.mkdir()
    assert main(["solve", str(workbook), "--out", str(folder)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert main(["solve", str(workbook), "--shocks", "FL_Damper=1", "fl_damper=2"]) == 2
    assert "given twice" in capsys.readouterr().err
    # A pose that did not close is not written as if it were a result.
    broken = tmp_path / "broken.csv"
    assert main(["solve", str(workbook), "--rack", "200", "--out", str(broken)]) == 3
    assert not broken.exists() and "not written" in capsys.readouterr().out
    # Results get the usual file mode, not mkstemp's private 0600.
    ok = tmp_path / "ok.csv"
    assert main(["solve", str(workbook), "--out", str(ok)]) == 0
    assert ok.stat().st_mode & 0o044 == 0o044
