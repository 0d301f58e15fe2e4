"""Issue 24's small items, each as a user meets it: ``--version``, the loads colours
(one rule, red tension and blue compression, for ``--chart`` and ``--view``), the
replay map's "did you mean" for a damper, and the README's install commands.

Truths: the version in ``suspension_sim/version.py`` and pyproject's dynamic version;
the README's rule ("red tension, blue compression"); the signs of member forces
from the load table; the corner a user wrote in the map file.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from suspension_sim import cli
from suspension_sim.version import __version__

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


# -- --version ----------------------------------------------------------------------------
def test_version_prints_the_package_version_and_exits_0() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "suspension_sim", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"suspension-sim {__version__}\n"
    assert proc.stderr == ""
    # the number pyproject installs (dynamic version read from version.py)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "suspension_sim.version.__version__"
    }
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_version_imports_nothing_heavy() -> None:
    """`--version` answers before any command module: no numpy, pandas or matplotlib."""
    code = (
        "import sys\n"
        "from suspension_sim.cli import main\n"
        "code = main(['--version'])\n"
        "heavy = sorted(m for m in ('numpy', 'pandas', 'matplotlib', 'scipy', 'pyvista') "
        "if m in sys.modules)\n"
        "print(code, heavy)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"suspension-sim {__version__}", "0 []"]


@pytest.mark.parametrize(
    "argv", [["--version"], ["-V"], ["--debug", "--version"]], ids=["long", "short", "debug"]
)
def test_version_spellings(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == f"suspension-sim {__version__}\n"


def test_version_is_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["--help"])
    assert exit_info.value.code == 0
    assert "--version" in capsys.readouterr().out


def test_a_command_named_version_is_still_a_bad_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Only the option asks for the version; a typo of a command is still exit 2."""
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["version"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'version'" in capsys.readouterr().err


# -- loads colours: one rule for --chart and --view ------------------------------------------
def readme_colour_rule() -> tuple[str, str]:
    """(tension colour, compression colour) as the README states them for `loads`."""
    found = re.search(r"\((\w+) tension, (\w+) compression\)", README)
    assert found, "the README's loads row states the colours"
    return found.group(1), found.group(2)


def is_colour(rgb: tuple[float, ...] | np.ndarray, word: str) -> bool:
    """A strong red or blue (0..1 RGB)."""
    r, _, b = (float(v) for v in rgb[:3])
    return {"red": r - b > 0.4, "blue": b - r > 0.4}[word]


@pytest.fixture(scope="module")
def cornering():  # type: ignore[no-untyped-def]
    """The four-corner test car at design under the standard cornering case (280 kg):
    (result, pose, member -> axial force N)."""
    from _cars import four_corner_car

    from suspension_sim import Model
    from suspension_sim.loads import car_cases, solve_loads

    model = Model(four_corner_car())
    pose = model.solve()
    result = solve_loads(pose, car_cases(model, 280.0))
    m = result.members()
    m = m[m["case"] == "cornering"]
    forces = dict(zip(m["member"].astype(str), m["axial_N"].astype(float), strict=True))
    return result, pose, forces


def test_readme_rule_is_red_tension_blue_compression() -> None:
    assert readme_colour_rule() == ("red", "blue")
    from suspension_sim.loads import colours

    assert readme_colour_rule() == (colours.TENSION_WORD, colours.COMPRESSION_WORD)


def test_chart_bars_follow_the_readme_rule_in_data_and_pixels(cornering) -> None:  # type: ignore[no-untyped-def]
    """Every tension bar of ``loads --chart`` is red, every compression bar blue: in the
    bars' face colours and in the pixels of the drawn chart."""
    from suspension_sim.loads.charts import member_force_figure

    result, _, forces = cornering
    tension_word, compression_word = readme_colour_rule()
    fig = member_force_figure(result, "cornering")
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == len(forces)
    signs = {+1: 0, -1: 0}
    for bar in bars:
        width = bar.get_width()
        word = tension_word if width > 0 else compression_word
        assert is_colour(bar.get_facecolor(), word), (width, bar.get_facecolor())
        signs[1 if width > 0 else -1] += 1
    assert signs[1] > 0 and signs[-1] > 0  # both kinds drawn
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float) / 255.0
    height = img.shape[0]
    for word, bar in (
        (tension_word, max(bars, key=lambda b: b.get_width())),
        (compression_word, min(bars, key=lambda b: b.get_width())),
    ):
        x, y = bar.get_x() + 0.5 * bar.get_width(), bar.get_y() + 0.5 * bar.get_height()
        col, row = ax.transData.transform((x, y))
        pixel = img[round(height - row), round(col)]
        assert is_colour(pixel, word), (word, pixel)


def test_view_and_chart_use_one_definition(rendering: None, cornering) -> None:  # type: ignore[no-untyped-def]
    """The 3-D view's colour scale ends in exactly the chart's tension and compression
    colours, and a tension member is drawn in the tension colour's hue."""
    from suspension_sim.loads.colours import force_colour
    from suspension_sim.viz.loads_view import build_member_scene

    result, pose, forces = cornering
    tension_word, compression_word = readme_colour_rule()
    scene = build_member_scene(
        result, "cornering", pose, size=(200, 150), tyres=False, off_screen=True
    )
    try:
        lut = scene.actors["members"].mapper.lookup_table
        top = np.array(lut.map_value(scene.limit, opacity=False))
        bottom = np.array(lut.map_value(-scene.limit, opacity=False))
        np.testing.assert_allclose(top, force_colour(+1.0), atol=1.5 / 255)
        np.testing.assert_allclose(bottom, force_colour(-1.0), atol=1.5 / 255)
        assert is_colour(top, tension_word) and is_colour(bottom, compression_word)
        for name, value in forces.items():
            colour = np.array(lut.map_value(value, opacity=False))
            if abs(value) > 0.3 * scene.limit:
                word = tension_word if value > 0 else compression_word
                r, b = colour[0], colour[2]
                assert (r > b) if word == "red" else (b > r), (name, value, colour)
    finally:
        scene.plotter.close()


# -- replay map: "did you mean" stays at the same corner -------------------------------------
EXAMPLE = ROOT / "workbooks" / "replay_example"


def replay_with_map_line(
    tmp_path: Path, old: str, new: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, int]:
    """Run ``suspension-sim replay`` on the example car and log with the example map
    edited as a user would (`old` -> `new` on one line): (exit code, stderr, that line)."""
    lines = (EXAMPLE / "map.yaml").read_text(encoding="utf-8").splitlines()
    (number,) = [i for i, text in enumerate(lines, 1) if old in text]
    lines[number - 1] = lines[number - 1].replace(old, new)
    cmap = tmp_path / "map.yaml"
    cmap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "r.csv"
    argv = ["replay", str(ROOT / "workbooks" / "fsae_car.xlsx"), str(EXAMPLE / "log.csv")]
    code = cli.main([*argv, "--map", str(cmap), "--out", str(out)])
    assert not out.exists()
    return code, capsys.readouterr().err, number


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("LF_Damper", "FL_Damper"),  # was: Did you mean 'RL_Damper'? (the other side)
        ("Damper FL", "FL_Damper"),  # was: 'RR_Damper'
        ("RF_Damper", "FR_Damper"),  # was: 'RR_Damper'
        ("LR_Damper", "RL_Damper"),  # was: 'RR_Damper'
        ("Front Left Damper", "FL_Damper"),
        ("FL_Dampr", "FL_Damper"),  # the plain typo still works
    ],
)
def test_misnamed_damper_suggests_the_same_corner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], typed: str, meant: str
) -> None:
    old = f"{meant}:" if meant != "RL_Damper" else "RL_Damper:"
    code, err, line = replay_with_map_line(tmp_path, old, f"{typed}:", capsys)
    assert code == 2
    assert f"map.yaml:{line}: {typed!r} is not a damper of this workbook." in err
    assert f"Did you mean {meant!r}?" in err
    others = {"FL_Damper", "FR_Damper", "RL_Damper", "RR_Damper"} - {meant}
    assert not any(f"Did you mean {o!r}" in err for o in others)
    assert "Traceback" not in err


def test_misnamed_column_suggests_the_same_corner(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The log has 'Damper Pos FL' and 'Damper Pos RL'; a user writes the corner the
    other way round (the old answer was 'Damper Pos RL', the other side)."""
    code, err, line = replay_with_map_line(tmp_path, "Damper Pos FL", "Damper Pos LF", capsys)
    assert code == 2
    assert f"map.yaml:{line}" in err
    assert "the log has no column 'Damper Pos LF' (for FL_Damper)." in err
    assert "Did you mean 'Damper Pos FL'?" in err


def test_corner_words_and_codes() -> None:
    from suspension_sim.replay.channelmap import corner_of, suggest

    dampers = ["FL_Damper", "FR_Damper", "RL_Damper", "RR_Damper"]
    assert [corner_of(n) for n in dampers] == ["FL", "FR", "RL", "RR"]
    cases = {
        "LF_Damper": "FL",
        "DamperLF": "FL",
        "damper_rf": "FR",
        "Rear Right": "RR",
        "rear_lh": "RL",
        "FLDamper": "FL",
        "Heave_Damper": None,
        "FL_FR_link": None,  # two corners: none
    }
    assert {n: corner_of(n) for n in cases} == cases
    # a third damper at no corner is not guessed onto one side
    assert suggest("Heave_Damper", dampers) == ""
    # a column named without its corner: the damper's corner decides
    columns = ["Time", "Damper FL", "Damper FR", "Damper RL"]
    assert suggest("Damper", columns, corner="FR") == " Did you mean 'Damper FR'?"
    # nothing at that corner: no suggestion from another corner
    assert suggest("RR_Dampr", ["FL_Damper", "FR_Damper"]) == ""


# -- README: install in a virtual environment, still two commands -----------------------------
def setup_commands() -> list[str]:
    """The bash blocks of the README's "Set up and go" section, in order."""
    section = README.split("## Set up and go", 1)[1].split("\n## ", 1)[0]
    return [b.strip() for b in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_readme_install_makes_and_activates_a_venv_before_pip() -> None:
    """Debian 12's system Python refuses ``pip install`` outside a virtual environment
    (PEP 668): the first command makes one and activates it before pip runs."""
    install, tests = setup_commands()  # still two commands
    for command in (install, tests):
        assert "\n" not in command  # one line each, to copy and paste
    steps = [s.strip() for s in install.split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    assert steps[1] == ". .venv/bin/activate"
    pip = steps.index("python3 -m pip install -e .")
    assert pip == 2  # pip only inside the environment
    assert steps[-1].startswith("suspension-sim solve workbooks/fsae_car.xlsx")
    assert "--break-system-packages" not in README
    assert "python3-venv" in README  # Debian's package that gives venv its pip
    gitignore = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".venv/" in gitignore


def test_ci_runs_the_readme_test_command_unchanged() -> None:
    """.ci/run runs the README's test command (its pip only adds -q, quiet)."""
    _, tests = setup_commands()
    assert tests == 'python3 -m pip install -e ".[test]" && python3 -m pytest -q'
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    marker = next(i for i, line in enumerate(ci) if line.startswith("# README test command"))
    ran = ci[marker + 1].replace("pip install -q ", "pip install ")
    assert ran == tests
