"""The compiled kernels as users get them (`suspension_sim.solve.warmup`, `engine`).

Compiles are exercised with a cheap stand-in step (a file written into the staging
folder) so that the locking, publishing and manifest checks run for real in several
processes; the loading tests copy the run's real compiled kernels (tests/conftest.py)
into a private folder and damage it. Nothing here compiles a kernel.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from suspension_sim import cache, cli
from suspension_sim.solve import warmup

ROOT = Path(__file__).resolve().parents[1]

FAKE_COMPILE = """
import os, sys, time
from pathlib import Path
from suspension_sim import cache
from suspension_sim.solve import warmup

go, record = Path(sys.argv[1]), Path(sys.argv[2])

def fake() -> None:
    with open(record / "compiled", "a") as f:
        f.write(f"{os.getpid()}\\n")
    time.sleep(0.3)
    staging = cache.private_code_dir("numba-x")  # the compile names its staging folder
    (staging / "solve_fake").mkdir()
    (staging / "solve_fake" / "kernel.fake.nbc").write_bytes(b"machine code")

end = time.monotonic() + 300  # the test touches `go`; never poll forever
while not go.exists() and time.monotonic() < end:
    time.sleep(0.005)
try:
    code = warmup.run_compile(
        wait=sys.argv[3] == "wait", say=print, steps=lambda: [warmup.Step("fake", fake, 1.0)]
    )
finally:
    with open(record / "ended", "a") as f:
        f.write(f"{os.getpid()}\\n")
sys.exit(code)
"""


def _env(folder: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        cache.ENV_VAR: str(folder),
        warmup.BACKGROUND_ENV: "1",
        "PYTHONPATH": str(ROOT),
        **extra,
    }


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


def _wait_for(predicate: object, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.02)


def test_several_processes_starting_together_compile_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four processes (two that wait for the lock, two that leave when it is held) ask
    for the same fresh cache at once: one compiles, every one ends with the kernels on
    disk, and the manifest lists the published file with its hash."""
    folder, record = tmp_path / "cache", tmp_path / "record"
    record.mkdir()
    script = tmp_path / "fake_compile.py"
    script.write_text(FAKE_COMPILE)
    go = tmp_path / "go"
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, str(script), str(go), str(record), mode],
                env=_env(folder),
                stdout=subprocess.PIPE,
                text=True,
            )
            for mode in ("wait", "nowait", "wait", "nowait")
        ]
    finally:
        go.touch()  # children poll for it: never leave them waiting
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outs
    assert len(_lines(record / "compiled")) == 1
    monkeypatch.setenv(cache.ENV_VAR, str(folder))
    assert warmup.on_disk() and warmup.verified()
    code = warmup.code_folder()
    assert code is not None
    assert (code / "solve_fake" / "kernel.fake.nbc").read_bytes() == b"machine code"
    assert not list(folder.glob("*staging*"))  # the staging folder is gone
    # A later compile finds them there and does nothing.
    assert warmup.run_compile(wait=True, say=lambda _: None, steps=list) == 0
    assert len(_lines(record / "compiled")) == 1


SPAWNER = """
import sys
from suspension_sim.solve import warmup
script, go, record = sys.argv[1:4]
warmup._child_command = lambda background: [sys.executable, script, go, record, "nowait"]
print(warmup.start_background())
"""


def test_first_runs_start_one_background_compile_and_say_so(tmp_path: Path) -> None:
    """Several first runs at once each may start a background compile (a separate
    process); the kernels get compiled exactly once, each starter says so in one line,
    and once they are on disk nothing more is started."""
    folder, record = tmp_path / "cache", tmp_path / "record"
    record.mkdir()
    script = tmp_path / "fake_compile.py"
    script.write_text(FAKE_COMPILE)
    spawner = tmp_path / "spawner.py"
    spawner.write_text(SPAWNER)
    go = tmp_path / "go"
    cmd = [sys.executable, str(spawner), str(script), str(go), str(record)]
    try:
        runs = [
            subprocess.Popen(cmd, env=_env(folder), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(3)
        ]
        results = [(p.communicate(timeout=60), p.returncode) for p in runs]
        started = 0
        for (out, err), code in results:
            assert code == 0, err
            if out.split() == [b"True"]:
                started += 1
                lines = err.decode().splitlines()
                assert (
                    len(lines) == 1
                    and "compiling the fast solver kernels in the background" in (lines[0])
                )
            else:
                assert out.split() == [b"False"] and not err
        assert started >= 1
    finally:
        go.touch()  # the spawned compiles poll for it: never leave them waiting
    _wait_for(lambda: len(_lines(record / "ended")) == started)
    assert len(_lines(record / "compiled")) == 1
    again = subprocess.run(cmd, env=_env(folder), capture_output=True, text=True, timeout=60)
    assert again.stdout.split() == ["False"] and not again.stderr


def test_a_failed_background_compile_is_said_once_and_not_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setenv(warmup.BACKGROUND_ENV, "1")

    def broken() -> None:
        raise RuntimeError("LLVM ran out of memory")

    said: list[str] = []
    assert warmup.run_compile(True, said.append, lambda: [warmup.Step("x", broken, 1.0)]) == 1
    assert said[-1] == "FAIL RuntimeError: LLVM ran out of memory"
    assert warmup.failure() is not None and not warmup.on_disk()
    monkeypatch.setattr(warmup, "_said", set())
    assert not warmup.start_background()  # said, not retried
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "LLVM ran out of memory" in err and "warm-up" in err
    monkeypatch.setattr(warmup, "_said", set())
    assert not warmup.start_background()
    assert capsys.readouterr().err == ""  # said once, not at every run


LOOP = """
import json, sys
import numpy as np
from suspension_sim.api import Model
from suspension_sim.solve import engine, warmup
from suspension_sim.workbook.examples import load_source

warmup._child_command = lambda background: [sys.executable, "-c", "open(%r, 'a').write('x')"]
engine.LOAD_AFTER_S = float(sys.argv[1])
model = Model(load_source("fsae_car"))
n = len(model.damper_names)
pose = model.solve()
used = ["numba" in sys.modules or engine._READY]
points = [pose.points.to_numpy(float).tolist()]
for i in range(1, 6):
    pose = model.solve(shocks=[3.0 * i] * n, rack=1.5 * i, guess=pose)
    used.append(engine._READY)
    points.append(pose.points.to_numpy(float).tolist())
k = sys.modules.get("suspension_sim.solve.kernel")
compiled = 0 if k is None else sum(  # compiled here, not loaded from the disk cache
    sum(f.stats.cache_misses.values()) for f in (k.solve_single, k.solve_sequence)
)
print(json.dumps({"used": used, "points": points, "compiled": compiled}))
"""


def _loop(folder: Path, spawned: Path, load_after: str) -> tuple[dict[str, object], str]:
    code = LOOP.replace("%r", repr(str(spawned)))
    proc = subprocess.run(
        [sys.executable, "-c", code, load_after],
        env=_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    import json

    return json.loads(proc.stdout), proc.stderr


@pytest.fixture
def compiled_copy(tmp_path: Path, cache_folder: Path) -> Path:
    """A private cache folder holding a copy of the run's compiled kernels."""
    code = warmup.code_folder()
    assert code is not None
    assert warmup.why_not_on_disk() is None  # put there by tests/conftest.py
    folder = tmp_path / "cache"
    target = folder / code.name
    target.mkdir(parents=True, mode=0o700)
    folder.chmod(0o700)
    assert warmup.copy_compiled(code, target)
    return folder


def test_a_fresh_process_loads_the_kernel_at_its_second_solve(
    compiled_copy: Path, tmp_path: Path
) -> None:
    """Kernels on disk: the first pose is solved without numba (never waits for a
    load), the second on by the compiled kernel, loaded then; the poses equal the
    numpy path's (a process that never loads) to 1e-9 mm; no compile is started."""
    spawned = tmp_path / "spawned"
    fast, err = _loop(compiled_copy, spawned, "0")
    slow, _ = _loop(compiled_copy, spawned, "1e9")
    assert fast["used"] == [False, True, True, True, True, True]
    assert fast["compiled"] == 0  # loaded, never compiled in the foreground
    assert slow["used"] == [False] * 6
    diff = np.abs(np.array(fast["points"]) - np.array(slow["points"])).max()
    assert diff < 1e-9
    assert not spawned.exists() and err == ""


def _damage(folder: Path, how: str) -> None:
    code = warmup.code_folder()
    assert code is not None
    data = warmup.read_manifest(folder / code.name)
    assert data is not None
    single = next(rel for rel in data["files"] if "solve_single" in rel and rel.endswith(".nbc"))
    path = folder / code.name / single
    if how == "half-written":
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif how == "corrupt":
        blob = bytearray(path.read_bytes())
        blob[len(blob) // 2] ^= 0xFF
        path.write_bytes(bytes(blob))
    elif how == "missing":
        path.unlink()
    else:  # numba's own index: not hashed, so numba reads it and fails
        path.with_name(
            path.name.split(".py")[0] + f".py{sys.version_info[0]}{sys.version_info[1]}.nbi"
        ).write_bytes(b"\x80\x04garbage")


@pytest.mark.parametrize("how", ["half-written", "corrupt", "missing", "bad index"])
def test_a_damaged_cache_falls_back_to_numpy_and_is_compiled_again(
    compiled_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setenv(cache.ENV_VAR, str(compiled_copy))
    _damage(compiled_copy, how)
    spawned = tmp_path / "spawned"
    out, err = _loop(compiled_copy, spawned, "0")
    assert out["used"] == [False] * 6  # numpy throughout, never a foreground compile
    assert out["compiled"] == 0
    _wait_for(spawned.exists)  # the stand-in compile runs detached: it may not have yet
    assert spawned.read_text() == "x"  # one background compile started
    assert err.count("\n") <= 2 and "in the background" in err
    assert not warmup.on_disk()  # the damaged compile is not trusted again


def test_the_first_pose_never_waits_for_a_compile(tmp_path: Path) -> None:
    """No kernels on disk: the first pose is solved without importing numba, the
    second starts the background compile and stays on numpy."""
    spawned = tmp_path / "spawned"
    out, err = _loop(tmp_path / "cache", spawned, "0")
    assert out["used"] == [False] * 6
    _wait_for(spawned.exists)
    assert spawned.read_text() == "x"
    assert "compiling the fast solver kernels in the background" in err


def test_the_help_lists_every_command_without_importing_them() -> None:
    """`--help` names every command with its module's own help text, importing none of
    the command modules (each is imported only when it is the command run)."""
    import argparse

    code = (
        "import sys\n"
        "from suspension_sim import cli\n"
        "try:\n    cli.main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('suspension_sim.commands.')))\n"
        "print('pandas' in sys.modules, 'numpy' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=_env(Path("")), capture_output=True, text=True
    )
    lines = proc.stdout.strip().splitlines()
    assert lines[-2:] == ["[]", "False False"]
    full = cli.build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in sub._choices_actions}
    assert helps == cli.COMMANDS


def test_the_second_compile_process_moves_the_bar_as_it_finishes_steps() -> None:
    """``LANE weight label`` (a step the second process finished) adds its weight at
    once: 2 + 2 of 10 here, while this process's first step (6) still runs."""
    import io

    out = io.StringIO()
    lines = ["PLAN 3 10", "STEP 6 solvers", "LANE 2 batch metrics kernel", "LANE 2 loads kernel"]
    assert warmup._follow(io.StringIO("\n".join(lines) + "\n"), True, out) == 0
    assert " 40%" in out.getvalue().splitlines()[-1].split("\r")[-1]


def test_the_progress_of_a_foreground_compile() -> None:
    """`suspension-sim warm-up` shows the compile process's lines as a bar weighted by
    each step's share, names a step that failed, and waits for a running compile."""
    import io

    out = io.StringIO()
    lines = [
        "PLAN 2 4",
        "STEP 3 solve kernel: solve_sequence",
        "STEP 1 loads kernel",
        "DONE compiled",
    ]
    assert warmup._follow(io.StringIO("\n".join(lines) + "\n"), True, out) == 0
    text = out.getvalue()
    assert "compiling kernels" in text and "100%" in text and "loads kernel" in text
    out = io.StringIO()
    lines = ["WAIT", "PLAN 1 1", "STEP 1 x", "FAIL RuntimeError: no memory", "Traceback ..."]
    assert warmup._follow(io.StringIO("\n".join(lines) + "\n"), False, out) == 1
    text = out.getvalue()
    assert "waiting for the compile already running" in text
    assert "compile failed: RuntimeError: no memory" in text and "Traceback ..." in text


HELPER = """
import time
from suspension_sim import cache
time.sleep(0.5)
folder = cache.private_code_dir("numba-x") / "loads_fake"  # the parent's staging folder
folder.mkdir()
(folder / "blocks_kernel.fake.nbi").write_bytes(b"helper")
"""


def test_a_foreground_compile_runs_the_loads_kernel_beside_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On two cores the loads kernel compiles in a second process (here a stand-in that
    takes longer than the rest); the steps after it wait for it, and both processes'
    work is published."""
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    script = tmp_path / "helper.py"
    script.write_text(HELPER)
    monkeypatch.setattr(warmup, "_child_command", lambda background: [sys.executable, str(script)])
    monkeypatch.setattr(warmup, "_child_env", lambda: _env(tmp_path / "cache"))

    def staging() -> Path:
        folder = cache.private_code_dir("numba-x")
        assert folder is not None and "staging" in folder.name
        return folder

    def solve() -> None:
        (staging() / "solve_fake").mkdir()
        (staging() / "solve_fake" / "kernel.fake.nbc").write_bytes(b"solve")

    def loads() -> None:  # only without a second core
        (staging() / "loads_fake").mkdir()
        (staging() / "loads_fake" / "blocks_kernel.fake.nbi").write_bytes(b"here")

    def check() -> None:
        assert (staging() / "loads_fake" / "blocks_kernel.fake.nbi").exists()

    steps = [
        warmup.Step("solve", solve, 1.0),
        warmup.Step(warmup.LOADS_STEP, loads, 1.0),
        warmup.Step("check", check, 0.1),
    ]
    said: list[str] = []
    assert warmup.run_compile(True, said.append, lambda: steps, parallel=True) == 0, said
    code = warmup.code_folder()
    assert code is not None and warmup.verified()
    made = (code / "loads_fake" / "blocks_kernel.fake.nbi").read_bytes()
    assert made == (b"helper" if (os.cpu_count() or 1) >= 2 else b"here")
    assert (code / "solve_fake" / "kernel.fake.nbc").read_bytes() == b"solve"


def test_commands_that_solve_start_the_background_compile(
    make_workbook: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first run after an install: a command that solves asks for the background
    compile before it starts (a no-op once the kernels are on disk); `new` and
    `warm-up` (which compiles in the foreground itself) do not."""
    asked: list[str] = []

    def start() -> bool:
        asked.append("x")
        return False

    monkeypatch.setattr(warmup, "start_background", start)
    path = make_workbook()  # type: ignore[operator]
    assert cli.main(["check", str(path)]) == 0
    assert asked == ["x"]
    assert cli.main(["new", str(path.with_name("new.xlsx"))]) == 0
    monkeypatch.setattr(warmup, "warm_up", lambda progress: 0)
    assert cli.main(["warm-up", "--quiet"]) == 0
    assert asked == ["x"]
    capsys.readouterr()


LOADS = """
import json, sys
import numpy as np
from suspension_sim.api import Model
from suspension_sim.loads.cases import LoadCase, WheelLoad
from suspension_sim.loads.result import solve_loads
from suspension_sim.solve import warmup
from suspension_sim.workbook.examples import load_source

warmup._child_command = lambda background: [sys.executable, "-c", "open(%r, 'a').write('x')"]
model = Model(load_source("fsae_car"))
pose = model.solve()
case = LoadCase("z", {"FL": WheelLoad((300.0, -200.0, 1000.0))})
res = solve_loads(pose, case)
forces = [
    np.nan_to_num(t.select_dtypes("number").to_numpy(float)).ravel().tolist()
    for t in (res.table, res.inputs)
]
loaded = "suspension_sim.loads.blocks_kernel" in sys.modules
print(json.dumps({"loaded": loaded, "forces": forces}))
"""


def _loads(folder: Path, spawned: Path) -> tuple[dict[str, object], str]:
    code = LOADS.replace("%r", repr(str(spawned)))
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(folder),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr  # never a traceback from damaged code
    import json

    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("how", ["corrupt", "bad index"])
def test_a_damaged_loads_kernel_falls_back_to_numpy(
    compiled_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Every compiled file of the loads kernel with one byte flipped (caught by the
    manifest's sha256), or its index garbage (not hashed: numba itself fails to read
    it): the loads are computed on the numpy path, equal to the compiled kernel's on
    the intact cache to 1e-6 N; the damaged compile is forgotten and one background
    compile started."""
    spawned = tmp_path / "spawned"
    intact, err = _loads(compiled_copy, spawned)
    assert intact["loaded"] is True and err == "" and not spawned.exists()
    monkeypatch.setenv(cache.ENV_VAR, str(compiled_copy))
    code = warmup.code_folder()
    assert code is not None
    compiled = sorted(code.glob("loads_*/*.nbc"))
    assert compiled
    for path in compiled if how == "corrupt" else []:
        blob = bytearray(path.read_bytes())
        blob[len(blob) // 2] ^= 0xFF
        path.write_bytes(bytes(blob))
    if how == "bad index":
        next(code.glob("loads_*/blocks_kernel.solve_group-*.nbi")).write_bytes(b"\x80\x04junk")
    out, err = _loads(compiled_copy, spawned)
    assert out["loaded"] is False
    _wait_for(spawned.exists)  # the stand-in compile runs detached: it may not have yet
    assert spawned.read_text() == "x"  # one background compile started
    assert "in the background" in err and err.count("\n") <= 2
    assert not warmup.on_disk()
    for got, want in zip(out["forces"], intact["forces"], strict=True):  # type: ignore[call-overload]
        assert len(got) == len(want) > 0
        assert np.abs(np.array(got) - np.array(want)).max() < 1e-6


WAITER = """
import sys
from suspension_sim.solve import warmup
print(warmup.wait_for_compile(), flush=True)
"""


def test_a_process_waiting_for_a_running_compile_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While another process holds the compile lock, a process that needs the kernels
    (compile_kernel, a long batch) says so in one line naming the log, then waits; it
    goes on once the lock is free."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(cache.ENV_VAR, str(folder))
    where = warmup.code_folder()
    assert where is not None
    base = cache.private_code_dir(where.name)
    assert base is not None
    lock = warmup.Lock(base / warmup.LOCK_NAME)
    assert lock.acquire(wait=False)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", WAITER],
            env=_env(folder),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stderr is not None
        line = proc.stderr.readline()  # said before it waits (the lock is still held)
    finally:
        lock.release()
    out, rest = proc.communicate(timeout=60)
    assert "waiting for the kernel compile running in another process" in line
    assert str(base / warmup.LOG_NAME) in line and rest == ""
    assert out.split() == ["False"]  # the holder published nothing


def test_a_compile_that_cannot_take_the_lock_does_not_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setattr(warmup.Lock, "acquire", lambda self, wait: False)
    ran: list[str] = []
    said: list[str] = []
    steps = [warmup.Step("x", lambda: ran.append("x"), 1.0)]
    assert warmup.run_compile(True, said.append, lambda: steps) == 1
    assert said[0] == "WAIT" and said[-1].startswith("FAIL cannot lock")
    assert ran == [] and not warmup.on_disk()


def test_copying_a_compile_refuses_names_outside_and_folders_others_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`copy_compiled` takes pickled index files only from a folder private to this
    user, and writes only inside the target: a manifest naming ``../`` or an absolute
    path, or a source folder writable by others, copies nothing of it."""
    import json

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))

    def fake() -> None:
        staging = cache.private_code_dir("numba-x")
        assert staging is not None
        (staging / "solve_fake").mkdir()
        (staging / "solve_fake" / "kernel.fake.nbc").write_bytes(b"machine code")

    assert warmup.run_compile(True, lambda _: None, lambda: [warmup.Step("f", fake, 1.0)]) == 0
    src = warmup.code_folder()
    assert src is not None
    good = tmp_path / "good"
    assert warmup.copy_compiled(src, good)
    assert (good / "solve_fake" / "kernel.fake.nbc").read_bytes() == b"machine code"
    manifest = warmup.manifest_path(src)
    original = json.loads(manifest.read_text())
    outside = tmp_path / "outside.nbc"  # what src/../../outside.nbc names
    outside.write_bytes(b"machine code")
    digest = original["files"]["solve_fake/kernel.fake.nbc"][1]
    for rel in ("../../outside.nbc", str(outside), "solve_fake/../../../outside.nbc"):
        manifest.write_text(json.dumps({**original, "files": {rel: [12, digest]}}))
        dst = tmp_path / "d" / "e" / "dst"  # dst/../../outside.nbc is d/outside.nbc
        assert not warmup.copy_compiled(src, dst), rel
        assert not (tmp_path / "d" / "outside.nbc").exists()
        assert not warmup.manifest_path(dst).exists()
    manifest.write_text(json.dumps(original))
    (src / "solve_fake").chmod(0o777)  # others could have planted a file there
    try:
        assert not warmup.copy_compiled(src, tmp_path / "dst")
        assert not (tmp_path / "dst" / "solve_fake").exists()
    finally:
        (src / "solve_fake").chmod(0o700)
    src.chmod(0o775)
    try:
        assert not warmup.copy_compiled(src, tmp_path / "dst")
    finally:
        src.chmod(0o700)
    assert warmup.copy_compiled(src, tmp_path / "dst")


def test_publishing_drops_the_stale_manifest_first_and_moves_an_intruder_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stale manifest is gone before any folder is swapped (never beside new files);
    a folder that reappears at the target between moving the old one aside and moving
    the new one in (a process compiling without the lock) is moved aside too."""
    import json

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    code = warmup.code_folder()
    assert code is not None
    base = cache.private_code_dir(code.name)
    assert base is not None
    (base / "solve_fake").mkdir()
    (base / "solve_fake" / "old.nbc").write_bytes(b"old")
    stale = {**warmup._identity(), "format": warmup.MANIFEST_FORMAT - 1, "files": {}}
    warmup.manifest_path(base).write_text(json.dumps(stale))
    publish = warmup._publish
    seen: list[bool] = []

    def watched(staging: Path, folder: Path) -> dict[str, list[object]]:
        seen.append(warmup.manifest_path(folder).exists())
        return publish(staging, folder)

    monkeypatch.setattr(warmup, "_publish", watched)
    real = os.replace
    intruded: list[Path] = []

    def replace(src: object, dst: object) -> None:
        target = Path(str(dst))
        if target.name == "solve_fake" and not intruded:  # the intruder comes first
            target.mkdir()
            (target / "intruder.nbc").write_bytes(b"planted")
            intruded.append(target)
        real(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", replace)

    def fake() -> None:
        staging = cache.private_code_dir("numba-x")
        assert staging is not None
        (staging / "solve_fake").mkdir()
        (staging / "solve_fake" / "kernel.fake.nbc").write_bytes(b"new")

    said: list[str] = []
    assert warmup.run_compile(True, said.append, lambda: [warmup.Step("f", fake, 1.0)]) == 0, said
    assert seen == [False] and intruded
    assert sorted(p.name for p in (base / "solve_fake").iterdir()) == ["kernel.fake.nbc"]
    assert not list(base.glob(".old-*")) and warmup.verified()


def test_forget_drops_only_the_manifest_it_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that found a compile damaged forgets it, but not a new one another
    process published since it looked."""
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))

    def fake() -> None:
        staging = cache.private_code_dir("numba-x")
        assert staging is not None
        (staging / "solve_fake").mkdir()
        (staging / "solve_fake" / "kernel.fake.nbc").write_bytes(b"machine code")

    assert warmup.run_compile(True, lambda _: None, lambda: [warmup.Step("f", fake, 1.0)]) == 0
    code = warmup.code_folder()
    assert code is not None
    (code / "solve_fake" / "kernel.fake.nbc").write_bytes(b"machine c0de")  # damaged
    assert warmup.on_disk() and not warmup.verified()
    manifest = warmup.manifest_path(code)
    republished = manifest.read_bytes().replace(b'"files"', b'"files" ', 1)  # a new compile
    manifest.write_bytes(republished)
    assert not warmup.forget() and manifest.read_bytes() == republished
    assert not warmup.verified()
    assert warmup.forget() and not manifest.exists()


BATCH = """
from suspension_sim.metrics import batch
batch._batch_kernel()  # imports the kernel module; numba reads an index at a first call
"""


@pytest.mark.parametrize("how", ["bad index", "corrupt"])
def test_a_damaged_batch_metrics_kernel_is_never_read(
    compiled_copy: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The batch-metrics kernel's index unreadable, or one of its compiled files not
    the one the manifest lists: its indexes are emptied or dropped when the module is
    loaded, so numba compiles it afresh instead of raising at the first call."""
    monkeypatch.setenv(cache.ENV_VAR, str(compiled_copy))
    code = warmup.code_folder()
    assert code is not None
    indexes = sorted(code.glob("metrics_*/batch_kernel.*.nbi"))
    assert len(indexes) >= 2
    if how == "bad index":
        indexes[0].write_bytes(b"\x80\x04garbage")
    else:
        nbc = next(code.glob("metrics_*/batch_kernel.*.nbc"))
        nbc.write_bytes(nbc.read_bytes()[:-1] + b"\x00")
    before = [p.read_bytes() for p in indexes]
    proc = subprocess.run(
        [sys.executable, "-c", BATCH],
        env=_env(compiled_copy),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    if how == "bad index":  # only the unreadable one emptied (numba rewrites it)
        after = [p.read_bytes() for p in indexes]
        assert after[0] != before[0] and after[1:] == before[1:] and warmup.verified()
    else:
        kept = [p for p in indexes if p.exists()]
        assert kept == [] and not warmup.on_disk()  # forgotten, numba's indexes dropped


def test_an_intact_batch_metrics_kernel_is_kept(
    compiled_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cache.ENV_VAR, str(compiled_copy))
    code = warmup.code_folder()
    assert code is not None
    before = sorted(code.glob("metrics_*/batch_kernel.*.nbi"))
    proc = subprocess.run(
        [sys.executable, "-c", BATCH], env=_env(compiled_copy), capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(code.glob("metrics_*/batch_kernel.*.nbi")) == before and warmup.verified()


def test_the_solve_group_is_published_before_the_other_kernels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the solve kernel's steps are done, its files and its own manifest are in the
    code folder (the solvers are used from then on) while the other kernels still
    compile; the whole compile's manifest follows at the end, and a damaged file of the
    group is never loaded (its manifest is the one forgotten)."""
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))

    def staging() -> Path:
        folder = cache.private_code_dir("numba-x")
        assert folder is not None and "staging" in folder.name
        return folder

    def solve() -> None:
        (staging() / "solve_fake").mkdir()
        (staging() / "solve_fake" / "kernel.fake.nbc").write_bytes(b"solve")
        (staging() / "solve_fake" / "kernel.fake.nbi").write_bytes(b"index")

    seen: dict[str, object] = {}

    def metrics() -> None:  # the solvers are usable already, the rest is not
        code = warmup.code_folder()
        assert code is not None
        seen["solve"] = warmup.on_disk(warmup.SOLVE) and warmup.verified(warmup.SOLVE)
        seen["all"] = warmup.on_disk()
        seen["copied"] = (code / "solve_fake" / "kernel.fake.nbc").read_bytes()
        (staging() / "metrics_fake").mkdir()
        (staging() / "metrics_fake" / "batch_kernel.fake.nbc").write_bytes(b"metrics")

    steps = [
        warmup.Step("solve kernel: fake", solve, 1.0),
        warmup.Step(warmup.METRICS_STEP, metrics, 1.0),
    ]
    said: list[str] = []
    assert warmup.run_compile(True, said.append, lambda: steps) == 0, said
    assert seen == {"solve": True, "all": False, "copied": b"solve"}
    assert said.index("GROUP solve") < said.index("STEP 1 batch metrics kernel")
    code = warmup.code_folder()
    assert code is not None and warmup.verified() and warmup.verified(warmup.SOLVE)
    group = warmup.read_manifest(code, warmup.SOLVE)
    assert group is not None
    assert group["files"] == {
        "solve_fake/kernel.fake.nbc": [5, __import__("hashlib").sha256(b"solve").hexdigest()],
        "solve_fake/kernel.fake.nbi": [None, None],
    }
    assert (code / "metrics_fake" / "batch_kernel.fake.nbc").read_bytes() == b"metrics"
    # A compile cut short after the group: the group alone serves; damaged, it is forgotten.
    warmup.manifest_path(code).unlink()
    assert warmup.on_disk(warmup.SOLVE) and not warmup.on_disk()
    (code / "solve_fake" / "kernel.fake.nbc").write_bytes(b"s0lve")
    assert warmup.on_disk(warmup.SOLVE) and not warmup.verified(warmup.SOLVE)
    assert warmup.forget() and not warmup.on_disk(warmup.SOLVE)


def test_a_new_compile_drops_the_old_group_manifest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A group manifest left by an earlier compile never names the files a new compile
    copies in: it is gone before the first step, and a compile that fails in the solve
    steps leaves no group manifest."""
    import json

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    code = warmup.code_folder()
    assert code is not None
    base = cache.private_code_dir(code.name)
    assert base is not None
    (base / "solve_fake").mkdir()
    (base / "solve_fake" / "kernel.fake.nbc").write_bytes(b"old")
    old = {**warmup._identity(), "files": {"solve_fake/kernel.fake.nbc": [3, None]}}
    warmup.manifest_path(base, warmup.SOLVE).write_text(json.dumps(old))
    assert warmup.on_disk(warmup.SOLVE)
    seen: list[bool] = []

    def broken() -> None:
        seen.append(warmup.manifest_path(base, warmup.SOLVE).exists())
        raise RuntimeError("no memory")

    steps = [warmup.Step("solve kernel: fake", broken, 1.0)]
    assert warmup.run_compile(True, lambda _: None, lambda: steps) == 1
    assert seen == [False] and not warmup.on_disk(warmup.SOLVE)


def test_a_lazy_kernel_is_compiled_on_its_first_use_under_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel entry point no command calls is not in the warm-up's steps; its first use
    compiles it once, holding the compile lock (numba writes into the code folder)."""
    from suspension_sim.solve import engine_compile

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    assert set(engine_compile.LAZY) == set(engine_compile._LAZY_CALLS)

    class Dispatcher:
        __name__ = "fake"

        def __init__(self) -> None:
            self.signatures: list[str] = []

    disp = Dispatcher()
    held: list[bool] = []

    def compile_fake() -> None:
        held.append(warmup._held)
        disp.signatures.append("(float64,)")

    monkeypatch.setitem(engine_compile._LAZY_CALLS, "fake", compile_fake)
    assert engine_compile.compile_on_first_use(disp) is disp
    assert engine_compile.compile_on_first_use(disp) is disp
    assert held == [True] and not warmup._held


def test_kernels_complete_needs_the_whole_compile_not_the_solve_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`engine.kernels_complete` (the gate of the metrics and loads kernels) is false while
    only the solve group is on disk, true once the whole compile's manifest is, and
    stays true (answered from a flag)."""
    import json

    from suspension_sim.solve import engine

    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    monkeypatch.setattr(engine, "_COMPLETE", False)
    code = warmup.code_folder()
    assert code is not None
    base = cache.private_code_dir(code.name)
    assert base is not None
    (base / "solve_fake").mkdir()
    (base / "solve_fake" / "kernel.fake.nbc").write_bytes(b"solve")
    files = {"solve_fake/kernel.fake.nbc": [5, None]}
    warmup.manifest_path(base, warmup.SOLVE).write_text(
        json.dumps({**warmup._identity(), "files": files})
    )
    assert warmup.on_disk(warmup.SOLVE) and not engine.kernels_complete()
    warmup.manifest_path(base).write_text(json.dumps({**warmup._identity(), "files": files}))
    assert engine.kernels_complete()
    warmup.manifest_path(base).unlink()
    assert engine.kernels_complete()


def test_the_compile_process_gets_its_settings_unless_the_user_set_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The compile process runs with `COMPILE_ENV` (LLVM level 3), without the staging
    name of a compile this process may be running; a user's own NUMBA_OPT is kept."""
    monkeypatch.delenv("NUMBA_OPT", raising=False)
    monkeypatch.setenv(warmup.STAGING_ENV, "numba-x-staging-1")
    env = warmup._child_env()
    assert env["NUMBA_OPT"] == "3" and warmup.STAGING_ENV not in env
    assert str(ROOT) in env["PYTHONPATH"].split(os.pathsep)
    monkeypatch.setenv("NUMBA_OPT", "1")
    assert warmup._child_env()["NUMBA_OPT"] == "1"


SOLVE_HELPER = """
import time
from suspension_sim import cache
from suspension_sim.solve import warmup
time.sleep(0.5)
staging = cache.private_code_dir("numba-x")  # the parent's staging folder
(staging / "solve_fake").mkdir(exist_ok=True)
(staging / "solve_fake" / "points.fake.nbc").write_bytes(b"points")
warmup._marker(staging, "solve kernel: chassis_points").touch()
time.sleep(1.0)
(staging / "metrics_fake").mkdir(exist_ok=True)
(staging / "metrics_fake" / "batch_kernel.fake.nbc").write_bytes(b"metrics")
warmup._marker(staging, warmup.METRICS_STEP).touch()
"""


def test_the_solve_group_waits_for_the_second_process_solve_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With small solve steps compiled in a second process (`warmup.SECOND_LANE`), the
    solve group is published once that process has done them too (their file is in
    the group's manifest), before it has done its other steps; this process runs
    only solve steps, so the group is published after its last one."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("one core: no second compile process")
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "cache"))
    script = tmp_path / "helper.py"
    script.write_text(SOLVE_HELPER)
    monkeypatch.setattr(warmup, "_child_command", lambda background: [sys.executable, str(script)])
    monkeypatch.setattr(warmup, "_child_env", lambda: _env(tmp_path / "cache"))

    def sequence() -> None:
        folder = cache.private_code_dir("numba-x")
        assert folder is not None
        (folder / "solve_fake").mkdir(exist_ok=True)
        (folder / "solve_fake" / "sequence.fake.nbc").write_bytes(b"sequence")

    said: list[str] = []
    group: list[object] = []

    def check() -> None:  # after the second process has ended (it runs the steps before)
        code = warmup.code_folder()
        assert code is not None
        group.append(warmup.read_manifest(code, warmup.SOLVE))

    steps = [
        warmup.Step("solve kernel: solve_sequence", sequence, 1.0),
        warmup.Step("solve kernel: chassis_points", sequence, 1.0),  # runs in the helper
        warmup.Step(warmup.METRICS_STEP, sequence, 1.0),  # runs in the helper
        warmup.Step("check", check, 0.1),
    ]
    assert "solve kernel: chassis_points" in warmup.SECOND_LANE
    assert warmup.METRICS_STEP in warmup.SECOND_LANE
    assert warmup.run_compile(True, said.append, lambda: steps, parallel=True) == 0, said
    manifest = group[0]
    assert isinstance(manifest, dict)
    names = ["solve_fake/points.fake.nbc", "solve_fake/sequence.fake.nbc"]
    assert sorted(manifest["files"]) == names
    # the second process's steps are said as it finishes each (the bar moves), once each
    assert said.index("GROUP solve") < said.index("LANE 1 batch metrics kernel")
    lane = [line for line in said if line.startswith("LANE")]
    assert lane == ["LANE 1 solve kernel: chassis_points", "LANE 1 batch metrics kernel"]
    assert warmup.verified() and warmup.verified(warmup.SOLVE)
    code = warmup.code_folder()
    assert code is not None
    assert (code / "metrics_fake" / "batch_kernel.fake.nbc").read_bytes() == b"metrics"
