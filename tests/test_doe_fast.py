"""The DOE's fast path (`explore.doe_fast`) against the reference path (`doe.run_chunk`):
the same table, column by column, for ordinary designs, a design that cannot be built,
one whose structure differs from the base car's, and steps that cannot be reached."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import suspension_sim as ss
from suspension_sim.explore import doe, doe_fast
from suspension_sim.explore.design_space import MotionRequest, Variable, apply_offsets
from suspension_sim.explore.doe_batch import FromBase
from suspension_sim.model import KinematicModel

ROOT = Path(__file__).resolve().parents[1]
CAR = ROOT / "workbooks" / "fsae_car.xlsx"

# Free x, y, z offsets of three front points (symmetric), so a design can put a point
# anywhere: on another point, or on a wishbone's pivot axis.
VARIABLES = (
    Variable("FL_UCA_F", "x", -500, 500, "FR_UCA_F"),
    Variable("FL_UCA_F", "y", -500, 500, "FR_UCA_F"),
    Variable("FL_UCA_F", "z", -500, 500, "FR_UCA_F"),
    Variable("FL_UBJ", "x", -500, 500, "FR_UBJ"),
    Variable("FL_UBJ", "y", -500, 500, "FR_UBJ"),
    Variable("FL_UBJ", "z", -500, 500, "FR_UBJ"),
    Variable("FL_TIE_I", "z", -500, 500, "FR_TIE_I"),
    Variable("FL_WC", "z", -500, 500, "FR_WC"),
)
MOTIONS = (MotionRequest("heave", -10.0, 10.0, 3), MotionRequest("roll", -1.0, 1.0, 2))
# Past the steering's reach at both ends: those steps are rows with their reason
# ("unreachable"), the middle one is solved.
TOO_FAR = (MotionRequest("steer", -600.0, 600.0, 3),)


@pytest.fixture(autouse=True)
def _checks_together_never_fail() -> Iterator[None]:
    """The chunk's design checks together (`FromBase.check_many`) raise nothing
    unforeseen in any test here (their fallback would keep the table right and hide it)."""
    yield
    for _, run in doe_fast._RUNNERS.values():
        assert not run.check_errors, run.check_errors


@pytest.fixture(scope="module")
def model() -> ss.Model:
    from suspension_sim.solve import engine

    engine.load_kernel_if_cached()  # as a DOE worker does (the numpy path otherwise)
    return ss.load(CAR)


@pytest.fixture(scope="module")
def specs(model: ss.Model) -> list:
    return doe.motion_specs(model, None, MOTIONS)


def designs(model: ss.Model) -> np.ndarray:
    """Rows of offsets: two ordinary designs, the upper wishbone's front pivot moved
    onto its rear pivot (no hinge axis: not built), its ball joint moved onto its pivot
    axis (the wishbone no longer moves: another joint classification), and a design with
    the wheel centres raised (another wheel set: its metrics computed on their own)."""
    car = model.car
    f, r, b = (car.point(n) for n in ("FL_UCA_F", "FL_UCA_R", "FL_UBJ"))
    d = (r - f) / np.linalg.norm(r - f)
    on_axis = f + float((b - f) @ d) * d  # the ball joint's foot on the pivot axis
    rows = [
        [2.0, -1.0, 3.0, 1.0, 0.5, -2.0, 1.5, 0.0],
        [-3.0, 2.0, -4.0, -1.0, 0.0, 2.5, -2.0, 0.0],
        [*(r - f), 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, *(on_axis - b), 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0],
    ]
    return np.array(rows, dtype=float)


def columns(model: ss.Model, specs: list) -> list[str]:
    first = doe.run_design(model.car, VARIABLES, [0.0] * len(VARIABLES), specs, None)
    reserved = set(doe.KEY_COLUMNS) | {v.name for v in VARIABLES}
    metric = list(dict.fromkeys(k for row in first for k in row if k not in reserved))
    return doe.table_columns(VARIABLES, metric)


def test_fast_path_gives_the_reference_table(model: ss.Model, specs: list) -> None:
    """Every column of both tables: keys and text exactly, numbers to 1e-9."""
    offsets = designs(model)
    cols = columns(model, specs)
    reference = doe.run_chunk(model.car, VARIABLES, specs, None, 10, offsets, cols)
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, None, 10, offsets, cols)
    assert list(fast.columns) == list(reference.columns) == cols
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    status = reference.groupby("design")["status"].apply(list).to_dict()
    assert status[10] == status[11] == status[14] == ["ok"] * 5
    # the pivot on the other pivot, and the ball joint on the pivot axis: one row each
    # with its reason, not a sweep
    assert status[12] == ["invalid design"] and status[13] == ["invalid design"]
    reasons = reference.set_index("design")["reason"]
    assert "coincide" in reasons[12]
    # a metric that the moved tie rod changes: the designs differ where they should
    toe = reference[(reference["motion"] == "heave") & (reference["step"] == 0)]
    assert toe["toe_FL_deg"].iloc[:2].nunique() == 2
    # the designs' metrics were computed together, but the one with other wheels
    run = doe_fast.runner(model.car, VARIABLES, specs, None, cols)
    if run.plan is not None:  # the compiled kernels are loaded (the batched formulas)
        solved = [run.solve(d) for d in offsets]
        shared = [s.shared_wheels if isinstance(s, doe_fast.Solved) else None for s in solved]
        assert shared == [True, True, None, None, False]


def test_unreachable_steps_are_the_reference_rows(model: ss.Model) -> None:
    """A motion past the car's reach: its end steps are rows with the solver's reason,
    the same by both paths, and the step between them is solved."""
    specs = doe.motion_specs(model, None, TOO_FAR)
    offsets = designs(model)[:1]
    cols = columns(model, specs)
    reference = doe.run_chunk(model.car, VARIABLES, specs, None, 0, offsets, cols)
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, None, 0, offsets, cols)
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    assert list(fast["status"]) == ["unreachable", "ok", "unreachable"]
    assert "cannot be reached" in fast["reason"].iloc[0]
    assert fast["toe_FL_deg"].isna().tolist() == [True, False, True]


def test_structure_check(model: ss.Model) -> None:
    """Small offsets keep the base car's structure; the ball joint on the pivot axis
    makes the upper wishbone another joint (its own model, never the shared one)."""
    base = KinematicModel(model.car)
    offsets = designs(model)
    moved = KinematicModel(apply_offsets(model.car, VARIABLES, offsets[0]))
    assert doe_fast.same_structure(
        base, KinematicModel(apply_offsets(model.car, VARIABLES, offsets[4]))
    )
    assert doe_fast.same_structure(base, moved)
    assert not np.array_equal(moved.frame, base.frame)  # the numbers did change
    folded = KinematicModel(apply_offsets(model.car, VARIABLES, offsets[3]))
    assert folded.topology.joint("FL_UCA").kind == "fixed"
    assert not doe_fast.same_structure(base, folded)


def test_designs_without_the_shared_structure(
    model: ss.Model, specs: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The path a design takes when its structure differs (its model built on its own,
    nothing taken from the base car) gives the reference rows too."""
    offsets = designs(model)[:2]
    cols = columns(model, specs)
    calls: list[bool] = []

    def differs(base: KinematicModel, other: KinematicModel) -> bool:
        calls.append(True)
        return False

    monkeypatch.setattr(doe_fast, "same_structure", differs)
    doe_fast._RUNNERS.clear()
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, None, 0, offsets, cols)
    reference = doe.run_chunk(model.car, VARIABLES, specs, None, 0, offsets, cols)
    assert len(calls) == 2
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    doe_fast._RUNNERS.clear()


def test_run_doe_fast_and_reference_files_agree(tmp_path: Path, model: ss.Model) -> None:
    """`run_doe` in this process by both paths: the same Parquet file (schema, nulls,
    values) and the same counts; the designs moving the left wheel centre have other
    wheel data than the base car (their metrics computed on their own)."""
    import pyarrow.parquet as pq

    from suspension_sim.explore.design_space import Study

    study = Study(
        variables=(Variable("FL_UCA_F", "z", -4, 4, "FR_UCA_F"), Variable("FL_WC", "x", -5, 5)),
        motions=(MotionRequest("heave", -10.0, 10.0, 3), MotionRequest("roll", -1.0, 1.0, 2)),
        samples=4,
        seed=3,
    )
    tables, summaries = [], []
    for way in (True, False):
        out = tmp_path / f"{way}.parquet"
        summaries.append(doe.run_doe(model.car, study, out, workers=0, chunk=3, fast=way))
        tables.append(pq.read_table(out))
    assert tables[0].schema == tables[1].schema
    for name in tables[0].column_names:
        assert tables[0][name].null_count == tables[1][name].null_count, name
    a, b = (t.to_pandas() for t in tables)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-9, atol=1e-9)
    fast, reference = summaries
    assert (fast.designs_ok, fast.designs_partly, fast.designs_failed, fast.rows) == (
        reference.designs_ok,
        reference.designs_partly,
        reference.designs_failed,
        reference.rows,
    )
    assert fast.reasons == reference.reasons


def test_refilled_model_is_the_built_model(model: ss.Model) -> None:
    """A design's model with only the bodies that carry a moved point reclassified (the
    rack, wishbones, tie rods here) equals `KinematicModel(car)` attribute by attribute;
    a design whose moved body changes class is not refilled (None: built whole)."""
    from suspension_sim.solve import engine_reduced

    base = KinematicModel(model.car)
    moved = frozenset(p for v in VARIABLES for p in (v.point, v.twin) if p is not None)
    offsets = designs(model)
    for row in (offsets[0], offsets[1], offsets[4]):
        car = apply_offsets(model.car, VARIABLES, row)
        refilled = doe_fast.refill_model(base, car, moved)
        assert refilled is not None
        built = KinematicModel(car)
        assert set(vars(refilled)) == set(vars(built))
        for name, value in vars(built).items():
            if name in ("derived", "_layouts"):
                continue
            mine = getattr(refilled, name)
            if name == "topology":
                mine, value = mine.joints, value.joints
            assert _same(mine, value), name
        # the point copies at the random states, seeded from the base car's transforms
        seeded = refilled.derived._values[engine_reduced.RANDOM_POSITIONS]
        states = engine_reduced.random_states(built.n_params)
        assert np.array_equal(seeded, built.instance_positions(states, False)[0])
    folded = apply_offsets(model.car, VARIABLES, offsets[3])
    assert doe_fast.refill_model(base, folded, moved) is None


def _same(a: object, b: object) -> bool:
    """Equal values through tuples, lists, dataclasses and arrays (exactly)."""
    import dataclasses

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    if dataclasses.is_dataclass(a) and dataclasses.is_dataclass(b):
        return type(a) is type(b) and all(
            _same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, tuple | list) and isinstance(b, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


def test_refilled_kernel_tables_are_the_built_tables(model: ss.Model) -> None:
    """The base car's kernel tables (full and reduced) with a design's numbers put in
    equal the tables built for the design from scratch, array by array."""
    from suspension_sim.solve import engine_reduced, engine_tables

    base = KinematicModel(model.car)
    full, reduced = engine_tables.kernel_tables(base), engine_reduced.reduced_tables(base)
    assert reduced is not None
    for row in designs(model)[[0, 1, 4]]:
        design = KinematicModel(apply_offsets(model.car, VARIABLES, row))
        built = engine_tables._build_tables(design)
        refilled = engine_tables.refill_tables(full, design)
        assert _same(refilled, built)
        assert not np.array_equal(refilled.arrays[6], full.arrays[6])  # numbers did change
        made = engine_reduced.refill_reduced(base, reduced, design)
        assert made is not None and _same(made, engine_reduced._build_reduced(design))


def _kernel_runner(model: ss.Model, specs: list) -> tuple[doe_fast.DesignRunner, FromBase]:
    """The study's runner and its base-car motions, skipping the test when the compiled
    kernels are not loaded (the designs are then never solved from the base car's steps)."""
    from suspension_sim.solve import engine

    if not engine.kernel_compiled():
        pytest.skip("compiled kernels not on disk: no design is solved from the base car")
    doe_fast._RUNNERS.clear()
    run = doe_fast.runner(model.car, VARIABLES, specs, None, columns(model, specs))
    assert run.from_base is not None and run.from_base.ready
    return run, run.from_base


def test_designs_solved_from_the_base_car_and_those_that_are_not(
    model: ss.Model, specs: list
) -> None:
    """Ordinary designs are solved from the base car's steps (`doe_batch`); a design
    whose wheel centres are raised 30 mm cannot reach every step (the base car's start
    does not close there) and one raised 60 mm reaches none: those take the reference
    path. Every row is the reference's either way."""
    run, fb = _kernel_runner(model, specs)
    ordinary = designs(model)[[0, 1, 4]]
    far = np.zeros((2, len(VARIABLES)))
    far[:, 7] = [30.0, 60.0]
    taken = []
    for row in (*ordinary, *far):
        design, shared = run.model(row)
        assert shared
        taken.append(fb.run(design) is not None)
    assert taken == [True, True, True, False, False]
    offsets = np.vstack([ordinary, far])
    cols = columns(model, specs)
    reference = doe.run_chunk(model.car, VARIABLES, specs, None, 0, offsets, cols)
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, None, 0, offsets, cols)
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    status = reference.groupby("design")["status"].apply(set).to_dict()
    assert status[3] == {"ok", "unreachable"} and status[4] == {"unreachable"}


def test_design_checks_agree_with_the_reference(model: ss.Model, specs: list) -> None:
    """The design checks seed the damper-wheel pairing the reference finds on the
    design built whole; a design whose Jacobian at design loses rank (a column zeroed:
    a joint no longer moves anything) fails them, seeding nothing, so the reference's
    mobility check decides and says why."""
    from suspension_sim.explore import doe_checks
    from suspension_sim.solve.sensitivity import damper_wheels

    run, fb = _kernel_runner(model, specs)
    st = fb.structure
    assert st is not None and ("sweeps", "damper_wheels") in fb.keys
    row = designs(model)[0]
    design, _ = run.model(row)
    assert doe_checks.design_checks(design, st, fb.keys)
    P, dP = design.instance_positions(np.zeros((design.n_params, 1)))
    mine = doe_checks.positions(design, st.local0)
    assert dP is not None and np.array_equal(mine[0], P) and np.array_equal(mine[1], dP)
    whole = KinematicModel(apply_offsets(model.car, VARIABLES, row))
    assert design.derived._values[("sweeps", "damper_wheels")] == damper_wheels(whole)

    singular, _ = run.model(row)
    # the parts' derivative by the first unknown zeroed at design: its Jacobian column is 0
    local0 = st.local0.copy()
    copies, slots = np.nonzero(singular.inst_slots == st.x[0])
    assert len(copies)
    local0[copies, 1 + slots] = 0.0
    lost = dataclasses.replace(st, local0=local0)
    J = singular.dense_jacobian(np.zeros(singular.n_params), np.arange(singular.n_params))
    assert np.any(J[:, st.x[0]])  # the design itself is regular
    assert not doe_checks.design_checks(singular, lost, fb.keys)
    assert ("sweeps", "damper_wheels") not in singular.derived._values


@pytest.mark.parametrize("path", ["blocks", "near the rank bound", "whole J_x", "singular"])
def test_design_checks_together_answer_as_one_by_one(
    model: ss.Model, specs: list, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`design_checks_many` (the designs' arrays stacked, the tangents from one
    factorisation, the rank rule settled by the inverse's norm, the damper choice from
    a small inverse) answers and seeds what `design_checks` does design by design: on
    random designs, two made to fail (a moving body's slopes zeroed: its Jacobian
    columns vanish), with the wheel-set damper choice asked for too. Each of its paths:
    the blocks one by one; the rank threshold raised between the inverse's bound and
    the blocks' own singular values (the exact SVD decides); J_x
    solved whole (not split into blocks); every stacked solve and inverse singular (the
    designs then checked one by one)."""
    from suspension_sim.explore import doe_checks

    run, fb = _kernel_runner(model, specs)
    assert fb.structure is not None
    st = dataclasses.replace(fb.structure, wheels_fixed=True)  # the damper choice too
    if path == "whole J_x":
        st = dataclasses.replace(st, partition=False)
    rng = np.random.default_rng(7)
    rows = rng.uniform(-4.0, 4.0, size=(9, len(VARIABLES)))
    rows[:, -1] = 0.0  # the wheel centres stay (what `wheels_fixed` says)

    def built() -> list[KinematicModel]:
        out = []
        for k, row in enumerate(rows):
            design, shared = run.model(row)
            assert shared
            fb._seed_copies(design)
            if k in (2, 6):  # one moving body's slopes gone: its columns of J are 0
                design.inst_rot = design.inst_rot.copy()
                design.inst_rot[st.moving[k % len(st.moving)]] = 0.0
            out.append(design)
        return out

    alone, together = built(), built()
    calls = {"svd": 0, "one by one": 0}
    if path == "near the rank bound":
        # the scaled blocks' smallest singular value over their largest, per design
        ratios = []
        for m in alone:
            J = m.dense_jacobian(np.zeros(m.n_params), np.arange(m.n_params))[:, st.x]
            worst = np.inf
            for R, C in st.stacks:
                A = J[R, C]
                if A.shape[-1] > 1 and np.linalg.norm(A, axis=1).all():
                    sv = np.linalg.svd(A / np.linalg.norm(A, axis=1)[:, None, :], compute_uv=False)
                    worst = min(worst, float((sv[:, -1] / sv[:, 0]).min()))
            ratios.append(worst)
        # just under the smallest: every block passes, but only the exact SVD can say
        # so (the inverse's bound sits below the singular values it bounds)
        cut = 0.999 * min(r for r in ratios if np.isfinite(r))
        from suspension_sim import tolerances

        monkeypatch.setattr(tolerances, "RANK_TOL", cut / doe_checks.MARGIN)
        full_rank = doe_checks._full_rank

        def counted(A: np.ndarray) -> np.ndarray:
            calls["svd"] += 1
            return full_rank(A)

        monkeypatch.setattr(doe_checks, "_full_rank", counted)
    if path == "singular":
        solve = np.linalg.solve

        def stacked_singular(A: np.ndarray, b: np.ndarray) -> np.ndarray:
            if A.ndim > 3:  # the designs' blocks stacked (one design's are 3-D)
                raise np.linalg.LinAlgError("singular (test)")
            return solve(A, b)

        monkeypatch.setattr(np.linalg, "solve", stacked_singular)
    one = [doe_checks.design_checks(m, st, fb.keys) for m in alone]
    design_checks = doe_checks.design_checks

    def counted_one(*args: object) -> bool:
        calls["one by one"] += 1
        return design_checks(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(doe_checks, "design_checks", counted_one)
    many = doe_checks.design_checks_many(together, st, fb.keys)
    assert one == many
    assert not one[2] and not one[6]
    assert one.count(False) == 2
    if path == "near the rank bound":
        assert calls["svd"]
    # the stacked path answers every design itself (the two that fail included), but
    # when a stacked solve is singular: then each design on its own
    assert calls["one by one"] == (len(together) if path == "singular" else 0)
    keys = [*fb.keys, doe_checks.DAMPER_OF]
    for a, b in zip(alone, together, strict=True):
        for key in keys:
            va, vb = a.derived._values.get(key), b.derived._values.get(key)
            if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
                assert isinstance(va, np.ndarray) and np.array_equal(va, vb)
            else:
                assert va == vb
    assert all(
        isinstance(m.derived._values.get(doe_checks.DAMPER_OF), np.ndarray)
        for m in alone
        if m.derived._values.get(("sweeps", "damper_wheels")) is not None
    )


def test_rows_solved_as_one_state_at_a_time(model: ss.Model, specs: list) -> None:
    """`KernelSession.solve_rows` (one lock, the entry point called directly) gives
    each state bit for bit what `KernelSession.solve_one` gives it, stops at a status
    it is not told to accept, and refuses arrays the entry point cannot read as they
    are (Fortran order, float32)."""
    from suspension_sim.solve import engine
    from suspension_sim.tolerances import INNER_TARGET_MM

    run, fb = _kernel_runner(model, specs)
    design, _ = run.model(designs(model)[0])
    sess = engine.session(design)
    for bm in fb.motions:
        one = [
            sess.solve_one(q, q, tt, INNER_TARGET_MM)
            for q, tt in zip(bm.params, bm.tables, strict=True)
        ]
        assert all(r[0] == engine.OK for r in one)
        rows = bm.params.copy()
        worst = sess.solve_rows(rows, bm.params, bm.tables, INNER_TARGET_MM, (engine.OK,))
        assert worst is not None
        assert np.array_equal(rows, np.array([r[3] for r in one]))
        assert np.array_equal(worst, [r[2] for r in one])
        assert sess.solve_rows(bm.params.copy(), bm.params, bm.tables, 1e-10, ()) is None
        for bad in (np.asfortranarray(bm.params), bm.params.astype(np.float32)):
            with pytest.raises(ValueError, match="C-contiguous float64"):
                sess.solve_rows(bad, bm.params, bm.tables, 1e-10, (engine.OK,))


def test_branch_screen_flags_a_step_off_its_branch(model: ss.Model, specs: list) -> None:
    """The screen passes a design's own solutions and flags them when one step's upper
    wishbone is turned 0.2 rad further than its neighbours (~30 mm at the ball joint: a
    jump, not the smooth change a moved hardpoint makes)."""
    from suspension_sim.explore import doe_batch

    run, fb = _kernel_runner(model, specs)
    design, _ = run.model(designs(model)[1])
    solved = []
    for bm in fb.motions:
        got = doe_batch._solve_states(design, bm, bm.chassis)
        assert got is not None
        solved.append(got[0])
    assert doe_batch._clear_of_branches(design, fb.motions, solved) == [True, True]
    joint = design.topology.joint("FL_UCA")
    bent = [Q.copy() for Q in solved]
    bent[0][1, joint.params[0]] += 0.2
    assert doe_batch._clear_of_branches(design, fb.motions, bent) == [False, True]


def test_wheel_set_known_without_building_it(model: ss.Model, specs: list) -> None:
    """A study that moves no wheel or damper point: whether a design's wheel set is the
    base car's is known from its wheel-to-damper choice and steer sign alone, and that
    answer is what comparing the wheel sets built whole says."""
    from suspension_sim.explore.doe_checks import DAMPER_OF
    from suspension_sim.explore.doe_metrics import same_wheels
    from suspension_sim.metrics.geometry import wheel_set

    variables = VARIABLES[:7]  # not the wheel centre
    doe_fast._RUNNERS.clear()
    run = doe_fast.runner(model.car, variables, specs, None, columns(model, specs))
    fb = run.from_base
    if fb is None or not fb.ready:
        pytest.skip("compiled kernels not on disk: no design is solved from the base car")
    assert fb.structure is not None and fb.structure.wheels_fixed
    base = wheel_set(KinematicModel(model.car))
    for row in designs(model)[[0, 1]]:
        design, _ = run.model(row[:7])
        assert fb.run(design) is not None
        assert isinstance(design.derived._values.get(DAMPER_OF), np.ndarray)
        whole = wheel_set(KinematicModel(apply_offsets(model.car, variables, row[:7])))
        assert fb.same_wheels(design) is same_wheels(whole, base) is True
    doe_fast._RUNNERS.clear()


def test_dampers_past_their_limits_named_as_the_reference_names_them(model: ss.Model) -> None:
    """A heave of +-45 mm takes the dampers past their length limits at both ends: the
    fast path (these designs solved from the base car's steps) names them in the same
    words and numbers as the reference, and leaves the middle step's cell empty."""
    specs = doe.motion_specs(model, None, (MotionRequest("heave", -45.0, 45.0, 3),))
    cols = columns(model, specs)
    offsets = designs(model)[[0, 1]]
    reference = doe.run_chunk(model.car, VARIABLES, specs, None, 0, offsets, cols)
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, None, 0, offsets, cols)
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    text = fast["dampers_beyond_limits"].tolist()
    assert "< min" in text[0] and text[1] == "" and "> max" in text[2]
    run = doe_fast.runner(model.car, VARIABLES, specs, None, cols)
    if run.from_base is not None and run.from_base.ready:
        assert all(run.from_base.run(run.model(row)[0]) is not None for row in offsets)
    doe_fast._RUNNERS.clear()


@pytest.mark.parametrize(
    ("workbook", "points", "solved_from_base"),
    [
        # a five-link rear axle: the designs solved from the base car's steps
        ("five_link_rear", ("RL_LF_I", "RL_LR_I"), True),
        # a solid axle with redundant links: its pairs of links lock the dampers once one
        # chassis point moves, so every design is one `invalid design` row
        ("solid_axle_rear", ("RL_LL_C", "RL_UL_C"), False),
    ],
)
def test_other_layouts_give_the_reference_table(
    workbook: str, points: tuple[str, ...], solved_from_base: bool
) -> None:
    """Two other example cars, two designs each moving two chassis points up or down:
    the fast path's table is the reference's (the text column's type too, when no row
    has text), and the five-link axle's designs are solved from the base car's steps."""
    from suspension_sim.solve import engine

    other = ss.load(ROOT / "workbooks" / f"{workbook}.xlsx")
    variables = tuple(Variable(p, "z", -3.0, 3.0) for p in points)
    specs = doe.motion_specs(other, None, (MotionRequest("heave", -10.0, 10.0, 3),))
    first = doe.run_design(other.car, variables, [0.0, 0.0], specs, None)
    reserved = set(doe.KEY_COLUMNS) | {v.name for v in variables}
    cols = doe.table_columns(
        variables, list(dict.fromkeys(k for r in first for k in r if k not in reserved))
    )
    offsets = np.array([[1.5, -2.0], [-2.5, 1.0]])
    doe_fast._RUNNERS.clear()
    reference = doe.run_chunk(other.car, variables, specs, None, 0, offsets, cols)
    fast = doe_fast.run_chunk_fast(other.car, variables, specs, None, 0, offsets, cols)
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    if engine.kernel_compiled():
        run = doe_fast.runner(other.car, variables, specs, None, cols)
        fb = run.from_base
        taken = [fb is not None and fb.run(run.model(row)[0]) is not None for row in offsets]
        assert taken == [solved_from_base] * 2
    if not solved_from_base:
        assert set(reference["status"]) == {"invalid design"}
    doe_fast._RUNNERS.clear()


def test_a_motion_that_differs_per_design_runs_by_the_reference(model: ss.Model) -> None:
    """Under OptimumK's motion style the roll turns about each design's own roll axis, so
    a design's roll states are not the base car's: that motion runs by the reference
    continuation, the heave beside it from the base car's steps, and the table is the
    reference's."""
    specs = doe.motion_specs(model, None, MOTIONS)
    cols = columns(model, specs)
    offsets = designs(model)[[0, 1]]
    doe_fast._RUNNERS.clear()
    reference = doe.run_chunk(model.car, VARIABLES, specs, "optimumk", 0, offsets, cols)
    fast = doe_fast.run_chunk_fast(model.car, VARIABLES, specs, "optimumk", 0, offsets, cols)
    pd.testing.assert_frame_equal(fast, reference, check_exact=False, rtol=1e-9, atol=1e-9)
    from suspension_sim.solve import engine

    if engine.kernel_compiled():
        run = doe_fast.runner(model.car, VARIABLES, specs, "optimumk", cols)
        fb = run.from_base
        assert fb is not None and fb.ready
        for row in offsets:
            got = fb.run(run.model(row)[0])
            assert got is not None and [g is not None for g in got] == [True, False]
    doe_fast._RUNNERS.clear()


def test_plain_motions_are_the_base_cars_on_every_design(model: ss.Model) -> None:
    """What lets a design skip building a motion (`doe_batch.PLAIN_KINDS`): every such
    kind, built in the ``ours`` style on designs built whole (their own pairing and
    steer sign found by the reference), is the base car's motion, held inputs and
    targets included; under OptimumK's style a roll is not (its axis is the design's)."""
    from suspension_sim.explore import doe_batch
    from suspension_sim.solve.targets import Target
    from suspension_sim.sweeps.spec import MotionSpec, SweepSpec

    car = model.car
    wheel, damper = car.wheels[0].name, model.damper_names[0]
    kinds = {
        "heave": (None, None),
        "roll": (None, None),
        "pitch": (None, None),
        "steer": (None, "deg"),
        "bump": (wheel, None),
        "stroke": (damper, None),
        "rack": (None, None),
        "chassis": ("roll", None),
    }
    assert set(kinds) == doe_batch.PLAIN_KINDS
    held = {"rack": 2.0, "z": 1.0}
    target = {"rack": Target("coordinate", "FL_WC", 0.0, "z", "chassis")}
    specs = [
        SweepSpec(k, MotionSpec(k, (-1.0, 0.5, 1.0), of, unit), fixed=held if k == "bump" else {})
        for k, (of, unit) in kinds.items()
    ]
    specs.append(SweepSpec("heave t", MotionSpec("heave", (-1.0, 1.0)), targets=target))
    for spec in specs:
        assert doe_batch._plain_motion(spec, "ours")
    assert not doe_batch._plain_motion(specs[1], "optimumk")
    for row in designs(model)[[0, 1, 4]]:
        design = KinematicModel(apply_offsets(car, VARIABLES, row))
        for spec in specs:
            assert spec.build(design, "ours") == spec.build(model, "ours"), spec.name
        # the comparison sees a motion that does read the design
        assert specs[1].build(design, "optimumk") != specs[1].build(model, "optimumk")


def test_shared_metric_arguments_are_the_built_ones(model: ss.Model, specs: list) -> None:
    """The base car's compiled metric arguments with a design's own kernel tables (what
    `doe_metrics._group` hands the kernel: `JointPlan.args`, `_design_tables`) equal
    those built for the design itself, entry by entry."""
    import dataclasses as dc

    from suspension_sim.explore import doe_metrics
    from suspension_sim.metrics.batch import compiled_args

    run, _ = _kernel_runner(model, specs)
    assert run.wheels is not None and run.plan is not None and run.plan.args is not None
    row = designs(model)[1]
    design, _ = run.model(row)
    tab = doe_metrics._design_tables(run.plan.args, run.plan.reduced, design)
    assert tab is not None  # the design's tables have the base car's layout
    shared = dc.replace(run.plan.args, tables=tab)
    built = KinematicModel(apply_offsets(model.car, VARIABLES, row))
    assert _same(shared, compiled_args(built, run.wheels))


def test_damper_limits_shared_only_when_no_damper_point_moves(model: ss.Model, specs: list) -> None:
    """The inputs' limits (from the dampers' design lengths) are handed to each design
    only when the study moves no damper point; they then equal a design built whole."""
    from suspension_sim.explore import doe_batch
    from suspension_sim.solve.inputs import input_limits, input_table

    run, fb = _kernel_runner(model, specs)
    assert set(doe_batch.DAMPER_KEYS) <= set(fb.copies)
    built = KinematicModel(apply_offsets(model.car, VARIABLES, designs(model)[0]))
    assert fb.copies["input_limits"] == input_limits(built)
    assert fb.copies["input_table"].bounds == input_table(built).bounds  # type: ignore[attr-defined]
    damper = model.car.dampers[0]
    other = FromBase(run.base, specs, None, {damper.moving_point})
    assert other.ready and not set(doe_batch.DAMPER_KEYS) & set(other.copies)
