"""The command line never shows a traceback.

Real processes and real pipes: a closed output pipe (``| head -1``) exits 141
quietly, Ctrl-C in the middle of a sweep exits 130 with one line and leaves no
partial or temporary file, and an unexpected internal error prints one line
naming the command, the input and where to report it (exit 4), with the
traceback only under ``--debug``. The exit codes are the ones README lists.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import textwrap
import time
from pathlib import Path

import pytest

import suspension_sim.api
import suspension_sim.workbook
from suspension_sim.cli import main
from suspension_sim.errors import EXIT_CODES, run_reporting_errors

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
ENV.pop("CI", None)  # the progress bar draws on a terminal only outside CI
ENV.pop("SUSPENSION_SIM_DEBUG", None)
CLI = [sys.executable, "-m", "suspension_sim"]


def _no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


# -- closed output pipe -------------------------------------------------------------------
def test_a_closed_output_pipe_exits_141_without_a_traceback() -> None:
    """``suspension-sim check car.xlsx | head -1``: the reader is gone before we write."""
    proc = subprocess.Popen(
        [*CLI, "check", str(EXAMPLE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # nobody reads: every write to stdout fails with EPIPE
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert stderr == ""
    # through a shell, the way a user types it: head gets the first line
    shell = f"{' '.join(CLI)} check {EXAMPLE} | head -1"
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.stdout.startswith("Car 'fsae_car'") and done.stdout.count("\n") == 1
    assert done.returncode in (0, 141)  # 0 if everything fit in the pipe before head left
    _no_traceback(done.stderr)


# -- Ctrl-C -------------------------------------------------------------------------------
LONG_SWEEP = "version: 1\nsweeps:\n  long:\n    motion: heave\n    start: -20\n    stop: 20\n"


def test_ctrl_c_in_a_sweep_exits_130_and_leaves_no_partial_output(tmp_path: Path) -> None:
    """SIGINT once the progress bar shows solved steps: no results file, no temp file."""
    car = shutil.copy(EXAMPLE, tmp_path / "car.xlsx")
    (tmp_path / "sweeps.yaml").write_text(LONG_SWEEP + "    steps: 2000\n", encoding="utf-8")
    out = tmp_path / "results.csv"
    master, terminal = pty.openpty()  # stderr on a terminal: the progress bar draws
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # 120 wide
    proc = subprocess.Popen(
        [*CLI, "sweep", str(car), "long", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=terminal,
        env=ENV,
        cwd=ROOT,
    )
    os.close(terminal)
    shown = b""
    deadline = time.monotonic() + 240
    try:
        while not re.search(rb"long:.*\b[1-9]\d*/2000", shown):
            assert time.monotonic() < deadline, shown[-500:]
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    shown += os.read(master, 4096)
                except OSError:  # the process closed the terminal (it ended)
                    break
            assert proc.poll() is None, shown[-2000:]
        proc.send_signal(signal.SIGINT)
        # Read the terminal until the process ends: a progress bar still drawing
        # while nobody reads fills the terminal's buffer and blocks its writes (the
        # run would then wait on this test, not on the interrupt).
        deadline = time.monotonic() + 120
        while True:
            ready, _, _ = select.select([master], [], [], 0.2)
            chunk = b""
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # the process closed the terminal (it ended)
                    chunk = b""
            shown += chunk
            if not chunk and proc.poll() is not None:
                break
            assert time.monotonic() < deadline, shown[-2000:]
        code = proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = shown.decode(errors="replace")
    assert code == 130, text[-2000:]
    assert text.rstrip().endswith("interrupted")
    _no_traceback(text)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["car.xlsx", "sweeps.yaml"]


# -- internal errors ----------------------------------------------------------------------
def _broken_read_car(*args: object, **kwargs: object) -> None:
    raise RuntimeError("simulated bug in the reader")


# `check` reads the car through `suspension_sim.load` (a cached car never reaches the
# workbook reader), so the simulated bug is put there.


@pytest.mark.parametrize("debug", [[], ["--debug"]], ids=["plain", "--debug"])
def test_an_internal_error_is_one_line_naming_command_and_input(
    debug: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SUSPENSION_SIM_DEBUG", raising=False)
    monkeypatch.setattr(suspension_sim.api, "load", _broken_read_car)
    assert main([*debug, "check", str(EXAMPLE)]) == 4
    out, err = capsys.readouterr()
    assert out == ""
    last = err.rstrip("\n").splitlines()[-1]
    assert last.startswith(f"error: internal error in 'suspension-sim check' on {EXAMPLE}: ")
    assert "RuntimeError: simulated bug in the reader" in last
    assert "please report this with the workbook and this message" in last
    if debug:
        assert err.startswith("Traceback") and "_broken_read_car" in err
    else:
        assert err.count("\n") == 1 and "--debug" in last


def test_debug_is_accepted_after_the_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SUSPENSION_SIM_DEBUG", raising=False)
    monkeypatch.setattr(suspension_sim.api, "load", _broken_read_car)
    assert main(["check", str(EXAMPLE), "--debug"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_an_internal_error_in_a_real_process() -> None:
    """As a user sees it: stderr of a real process, one line, exit 4; SUSPENSION_SIM_DEBUG=1
    adds the traceback."""
    code = textwrap.dedent(
        """
        import sys
        import suspension_sim.api
        from suspension_sim.cli import main
        def broken(*args, **kwargs):
            raise KeyError("internal")
        suspension_sim.api.load = broken
        sys.exit(main(sys.argv[1:]))
        """
    )
    for env, traceback in ((ENV, False), ({**ENV, "SUSPENSION_SIM_DEBUG": "1"}, True)):
        done = subprocess.run(
            [sys.executable, "-c", code, "check", str(EXAMPLE)],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
            check=False,
        )
        assert done.returncode == 4
        assert ("Traceback" in done.stderr) == traceback
        if not traceback:
            assert done.stderr.count("\n") == 1
        assert "internal error in 'suspension-sim check'" in done.stderr


def test_user_errors_keep_their_codes(capsys: pytest.CaptureFixture[str]) -> None:
    """A missing workbook is the user's (2), not an internal error (4)."""
    assert main(["check", "no_such_car.xlsx"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "internal error" not in err


def test_scripts_report_internal_errors_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SUSPENSION_SIM_DEBUG", raising=False)
    monkeypatch.setattr(sys, "argv", ["scripts/roll_sweep.py", "car.xlsx"])

    def broken() -> int:
        raise ZeroDivisionError("division by zero")

    assert run_reporting_errors(broken) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error in 'roll_sweep.py car.xlsx'" in err
    assert "ZeroDivisionError: division by zero" in err


# -- documentation ------------------------------------------------------------------------
def test_readme_lists_every_exit_code() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    listed = {int(code) for code in re.findall(r"^- `(\d+)`", section, flags=re.MULTILINE)}
    assert listed == set(EXIT_CODES)
