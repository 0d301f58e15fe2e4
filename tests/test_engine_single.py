"""`model.solve` through the block engine, the compiled kernel's session and disk cache.

* the engine path of `model.solve` ("auto") gives the same pose as scipy's trf
  + LM path ("trf") to 1e-9 mm on every example car, from design and warm,
  with the numpy engine and with the compiled kernel;
* its near-singular check, computed on demand, equals the check trf computes;
* the compiled point positions equal the numpy model's;
* sweeps driven by inputs (the engine path) never keep a pose on another
  assembly branch: through the steering toggle, a coarse step is either
  refused or equal to a fine continuation;
* numba's compiled code is cached only in a folder no one else can write, and
  a second process loads the kernel from it instead of compiling.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _cars import four_corner_car

import suspension_sim
from suspension_sim import cache
from suspension_sim.solve import engine
from suspension_sim.solve.continuation import move, pose_distance
from suspension_sim.solve.diagnostics import design_mobility
from suspension_sim.sweeps import MotionSpec, SweepSpec, run_sweep

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted((ROOT / "workbooks").glob("*.xlsx"))


def _states(model: suspension_sim.Model, n: int, seed: int) -> list[dict]:
    """Random states well inside the damper and rack travel (mm)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        state: dict = {"shocks": rng.uniform(-8.0, 8.0, len(model.damper_names)).tolist()}
        if model.topology.rack_param is not None:
            state["rack"] = float(rng.uniform(-8.0, 8.0))
        state["chassis"] = (0.0, 0.0, float(rng.uniform(-5, 5)), float(rng.uniform(-1, 1)), 0, 0)
        out.append(state)
    return out


def _same(a: suspension_sim.Pose, b: suspension_sim.Pose) -> float:
    return float(np.abs(a.points.to_numpy(float) - b.points.to_numpy(float)).max())


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_engine_solve_equals_trf(
    path: Path, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = suspension_sim.load(path)
    if compiled:
        engine.compile_kernel()
    else:  # the numpy engine even where the kernel is loaded in this worker
        monkeypatch.setattr(engine, "kernel_compiled", lambda: False)
    assert engine.plan(model).unknowns.size  # every example car has joints to close
    redundant = bool(design_mobility(model).redundant)  # least squares: trf by design
    previous = None
    for state in _states(model, 6, seed=3):
        for guess in (None, previous):
            fast = model.solve(**state, guess=guess)
            slow = model.solve(**state, guess=guess, method="trf")
            assert fast.converged and slow.converged
            assert fast.info.method == ("trf" if redundant else "engine")
            assert _same(fast, slow) < 1e-9
        previous = fast


def test_singular_ratio_on_demand_equals_the_trf_check() -> None:
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    for state in _states(model, 3, seed=5):
        fast = model.solve(**state)
        slow = model.solve(**state, method="trf")
        assert fast.info.method == "engine" and np.isnan(fast.info.ratio)
        assert fast.info.singular_ratio == pytest.approx(slow.info.singular_ratio, rel=1e-6)
        assert fast.info.near_singular == slow.info.near_singular is False


def test_compiled_points_equal_the_numpy_model() -> None:
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    engine.compile_kernel()
    rng = np.random.default_rng(0)
    Q = rng.normal(0.0, 0.05, (7, model.n_params))
    got = engine.chassis_points_compiled(model, Q)
    want = np.moveaxis(model.instance_positions(Q.T, derivatives=False)[0], 2, 0)
    assert np.abs(got - want).max() < 1e-9


def test_input_sweeps_through_a_toggle_keep_one_branch() -> None:
    """Rack steps (no targets: the engine path) to just short of the steering arm's
    toggle (between 66.45 and 66.52 mm of rack on the test car with the chassis
    and strokes held) and back in one 10 mm step. Every pose a sweep keeps is the
    pose a fine continuation from the previous kept pose reaches (the same branch);
    with halvings the whole motion is solved."""
    model = suspension_sim.Model(four_corner_car())
    spec = SweepSpec("toggle", MotionSpec("rack", (20.0, 40.0, 60.0, 64.0, 66.0, 66.45, 56.5)))
    states = [step.state for step in spec.build(model)]
    engine.compile_kernel()
    for halvings in (0, 5):
        result = run_sweep(model, spec, max_step_mm=20.0, halvings=halvings)
        assert all(p.info.method == "engine" for p in result.poses[:3])
        previous = model.solve()
        for k, pose in zip(result.steps, result.poses, strict=True):
            fine = move(previous, states[k], max_step_mm=0.5)
            assert pose_distance(pose, fine) < 1e-6, (halvings, k)
            previous = pose
        if halvings:
            assert result.ok and result.steps == list(range(len(states)))
        else:
            assert all(p.kind in ("branch jump", "unreachable") for p in result.problems)


def test_private_code_dir_refuses_folders_others_can_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "warned_this_process", False)
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "c"))
    good = cache.private_code_dir("numba-test")
    assert good is not None and good.is_dir() and (good.stat().st_mode & 0o777) == 0o700

    (tmp_path / "c" / "numba-open").mkdir()
    os.chmod(tmp_path / "c" / "numba-open", 0o777)
    with pytest.warns(cache.CacheWarning, match="writable by other users"):
        assert cache.private_code_dir("numba-open") is None

    monkeypatch.setattr(cache, "warned_this_process", False)
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "c" / "numba-link").symlink_to(tmp_path / "elsewhere")
    with pytest.warns(cache.CacheWarning, match="symbolic link"):
        assert cache.private_code_dir("numba-link") is None

    monkeypatch.setattr(cache, "warned_this_process", False)
    (tmp_path / "c" / "numba-file").write_text("not a folder")
    with pytest.warns(cache.CacheWarning):
        assert cache.private_code_dir("numba-file") is None

    monkeypatch.setenv(cache.ENV_VAR, "")
    assert cache.private_code_dir("numba-test") is None  # caching turned off


def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path: Path) -> None:
    """A process whose cache folder holds the compiled kernel loads it (cache hits, no
    compile); a folder other users can write is never loaded from (decided on import).
    The run's kernels were compiled once by conftest (tests/test_warmup.py checks that a
    fresh folder is compiled exactly once); a copy of them stands in for a user's cache."""
    shared = Path(os.environ[cache.ENV_VAR])
    mine = tmp_path / "cache"
    shutil.copytree(shared, mine, ignore=shutil.ignore_patterns("*.lock"))
    code = (
        "from suspension_sim.solve import engine, kernel\n"
        "engine.compile_kernel()\n"
        "hits = sum(kernel.solve_sequence.stats.cache_hits.values())\n"
        "misses = sum(kernel.solve_sequence.stats.cache_misses.values())\n"
        "print(kernel.CACHED, hits > 0, misses)\n"
    )
    env = {**os.environ, cache.ENV_VAR: str(mine), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["True", "True", "0"]  # loaded, not compiled
    os.chmod(mine, 0o777)  # a cache folder others can write: no code from it
    third = subprocess.run(
        [sys.executable, "-c", "from suspension_sim.solve import kernel; print(kernel.CACHED)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert third.stdout.split() == ["False"] and "writable by other users" in third.stderr


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_target_solves_by_the_engine_equal_trf(path: Path) -> None:
    """Targets (tyres on the ground while the chassis heaves, rolls and pitches; a wheel
    travel): the compiled engine's Newton on the targeted inputs gives trf's pose to
    1e-9 mm, and meets every target."""
    from suspension_sim.solve.targets import wheel_travel
    from suspension_sim.sweeps.motions import ground_targets

    model = suspension_sim.load(path)
    engine.compile_kernel()
    redundant = bool(design_mobility(model).redundant)
    ground = ground_targets(model)
    wheel = model.car.wheels[0]
    damper = model.damper_names[0]
    cases = [
        {"chassis": (0, 0, -8.0, 0.0, 0.0, 0), "targets": ground},
        {"chassis": (0, 0, 5.0, 1.2, -0.6, 0), "targets": ground},
        {"targets": {damper: wheel_travel(wheel.name, 12.0)}},
    ]
    previous = model.solve()
    for case in cases:
        fast = model.solve(**case, guess=previous)
        slow = model.solve(**case, guess=previous, method="trf")
        assert fast.converged and slow.converged
        assert fast.info.method == ("trf" if redundant else "engine")
        assert _same(fast, slow) < 1e-9
        assert fast.shocks == pytest.approx(slow.shocks, abs=1e-9)
        previous = fast


@pytest.mark.parametrize("path", WORKBOOKS, ids=lambda p: p.stem)
def test_compiled_tangents_equal_the_numpy_reference(path: Path) -> None:
    """Points, PoE slopes and input tangents dq/du from the kernel equal the model's
    numpy evaluation and the batched least squares of `metrics.batch` to 1e-9."""
    from suspension_sim.metrics.batch import input_tangents

    model = suspension_sim.load(path)
    engine.compile_kernel()
    batch = model.solve_batch(
        **{k: v for k, v in _batch(model, _states(model, 5, seed=7)).items()}, method="numpy"
    )
    Q = batch.params.T
    P, dP, T = engine.tangents_compiled(model, Q)
    _r, data, P0, dP0 = model.evaluate_state(Q, engine.plan(model).layout)
    T0 = input_tangents(model, data)
    assert np.abs(P - P0).max() < 1e-9
    slots = model.inst_slots[:, :, None, None] >= 0  # unused slots carry no derivative
    assert np.abs(np.where(slots, dP - dP0[:, : dP.shape[1]], 0.0)).max() < 1e-9
    assert np.abs(T - T0).max() < 1e-9


def test_batch_metrics_with_the_kernel_equal_pose_metrics() -> None:
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.metrics.batch import batch_metrics

    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    engine.compile_kernel()
    batch = model.solve_batch(**_batch(model, _states(model, 4, seed=11)), method="numpy")
    table = batch_metrics(batch, rates=True)
    for i in range(len(batch)):
        want = pose_metrics(batch.pose(i), rates=True)
        got = table.iloc[i]
        for key, value in want.items():
            if np.isnan(value):
                assert np.isnan(got[key]), key
            else:  # far instant centres: rounding grows with the distance squared
                assert got[key] == pytest.approx(value, rel=1e-9, abs=1e-9 + 1e-13 * value**2)


def _batch(model: suspension_sim.Model, states: list[dict]) -> dict[str, np.ndarray]:
    from suspension_sim.solve.batch import batch_inputs

    out = batch_inputs(states)
    if model.topology.rack_param is None:
        out.pop("rack")
    return out
