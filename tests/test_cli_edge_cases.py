"""Edge cases found in review: each is a clear error (or works), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from suspension_sim.cli import main

WORKBOOK = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"


def test_sweep_file_saved_by_notepad_in_cp1252_reads(tmp_path: Path) -> None:
    sweeps = tmp_path / "s.yaml"
    sweeps.write_bytes(
        b"sweeps:\n  h:\n    description: roll 2\xb0\n    motion: heave\n"
        b"    start: 0\n    stop: 1\n    steps: 3\n"
    )
    out = tmp_path / "h.csv"
    assert main(["sweep", str(WORKBOOK), "h", "--sweeps", str(sweeps), "--out", str(out)]) == 0
    assert out.exists()


def test_plot_folder_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    argv = ["sweep", str(WORKBOOK), "heave", "--out", str(tmp_path / "h.csv"), "--plot", str(afile)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and "is a file" in err and "Traceback" not in err


def test_sweep_file_that_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", str(WORKBOOK), "heave", "--sweeps", str(tmp_path), "--out", "x.csv"]
    assert main(argv) == 2
    assert "is a folder" in capsys.readouterr().err


def test_library_errors_name_parameters_and_the_cli_names_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The API says which argument is wrong; the command line says which option."""
    import suspension_sim
    from suspension_sim.errors import InputError
    from suspension_sim.outputs.tables import check_table_path

    workbook = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
    model = suspension_sim.load(workbook)
    with pytest.raises(InputError) as api_error:
        model.solve(shocks=[500.0, 0.0, 0.0, 0.0])
    assert api_error.value.where is not None and api_error.value.where.startswith("shocks (")
    with pytest.raises(InputError) as table_error:
        check_table_path(tmp_path)  # a folder, not a file
    assert table_error.value.where == "path"

    assert main(["solve", str(workbook), "--shocks", "500", "0", "0", "0"]) == 2
    assert "error: --shocks (" in capsys.readouterr().err
    assert main(["solve", str(workbook), "--out", str(tmp_path)]) == 2
    assert "error: --out:" in capsys.readouterr().err


def test_as_option_rewrites_only_a_leading_parameter_name() -> None:
    from suspension_sim.cli import as_option

    names = {"shocks": "--shocks", "path": "--out"}
    assert as_option("shocks (FL)", names) == "--shocks (FL)"
    assert as_option("path", names) == "--out"
    assert as_option("pathological.xlsx: Hard Points!B3", names) == (
        "pathological.xlsx: Hard Points!B3"
    )
    assert as_option("--rack", names) == "--rack"
    assert as_option(None, names) is None


def test_library_hints_use_python_spellings_and_the_cli_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`force=True` in the library's hint reads `--force` on the command line."""
    import pandas as pd

    from suspension_sim.errors import InputError
    from suspension_sim.outputs.tables import write_table

    existing = tmp_path / "results.xlsx"
    write_table(pd.DataFrame({"a": [1.0]}), existing)
    with pytest.raises(InputError) as api_error:
        write_table(pd.DataFrame({"a": [2.0]}), existing)
    assert "force=True" in (api_error.value.hint or "") and "--force" not in str(api_error.value)

    workbook = Path(__file__).resolve().parents[1] / "workbooks" / "fsae_car.xlsx"
    assert main(["solve", str(workbook), "--out", str(existing)]) == 2
    err = capsys.readouterr().err
    assert "--force" in err and "force=True" not in err
