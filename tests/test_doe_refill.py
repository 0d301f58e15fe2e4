"""The DOE's cheap per-design model step (`explore.doe_refill`, `refit.refit_plan`,
`engine_reduced.refill_reduced`'s memo, `design_space.apply_offsets`) against the
plain computations it stands for: `_refill_plain` (the per-body refill, itself checked
against `KinematicModel` in tests/test_doe_fast.py) bit for bit and `KinematicModel`
to 1e-12; `_links`' scalar decisions against the vectorised ones, with points placed
on, near and clear of its 1e-9 mm thresholds and its ties; the refilled reduced tables
against those built from scratch; `np.cross` and `np.add` against their written-out
forms."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import suspension_sim as ss
from suspension_sim.description import Car
from suspension_sim.errors import SuspensionSimError
from suspension_sim.explore import doe_refill
from suspension_sim.explore.design_space import Variable, apply_offsets
from suspension_sim.model import KinematicModel
from suspension_sim.model.refit import point_rows, replaced
from suspension_sim.model.screws import _cross, frames_from_axes
from suspension_sim.model.topology import Part
from suspension_sim.solve import engine_reduced, engine_tables
from suspension_sim.solve.engine_plan import plan
from suspension_sim.solve.engine_reduced import RANDOM_POSITIONS

ROOT = Path(__file__).resolve().parents[1]
CAR = ROOT / "workbooks" / "fsae_car.xlsx"

# the benchmark's study: wishbone pivots, tie rods' inner ends (on the rack), toe links'
# inner ends (on the chassis), each with its twin
VARIABLES = (
    Variable("FL_UCA_F", "z", -5, 5, "FR_UCA_F"),
    Variable("FL_LCA_R", "y", -4, 4, "FR_LCA_R"),
    Variable("FL_TIE_I", "z", -3, 3, "FR_TIE_I"),
    Variable("RL_TIE_I", "z", -3, 3, "RR_TIE_I"),
    Variable("FL_UBJ", "x", -3, 3, "FR_UBJ"),
)
MOVED = frozenset(p for v in VARIABLES for p in (v.point, v.twin) if p is not None)
ATTRIBUTES = (
    "n_params",
    "n_fixed_parts",
    "kmax",
    "frame",
    "frame_inv",
    "inst_part",
    "inst_point",
    "inst_body",
    "inst_index",
    "inst_slots",
    "inst_design",
    "inst_local",
    "inst_rot",
    "inst_origin",
    "pair_a",
    "pair_b",
    "pair_point",
    "pair_bodies",
    "joined_points",
    "n_residuals",
    "active_pairs",
)


@pytest.fixture(scope="module")
def car() -> Car:
    return ss.load(CAR).car


@pytest.fixture(scope="module")
def base(car: Car) -> KinematicModel:
    """The base car's model with the caches a DOE runner builds (the kernel tables,
    full and reduced)."""
    model = KinematicModel(car)
    engine_tables.kernel_tables(model)
    assert engine_reduced.reduced_tables(model) is not None
    return model


def offsets(n: int, scale: float = 1.0, seed: int = 4) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.uniform(-scale, scale, size=(n, len(VARIABLES))) * [5, 4, 3, 3, 3]


def xyz(v: np.ndarray) -> tuple[float, float, float]:
    return (float(v[0]), float(v[1]), float(v[2]))


def bits(x: np.ndarray) -> bytes:
    """The exact bytes of an array (so -0.0 and 0.0, or two NaNs, are told apart)."""
    a = np.ascontiguousarray(x)
    return a.dtype.str.encode() + str(a.shape).encode() + a.tobytes()


def same_state(a: KinematicModel, b: KinematicModel) -> None:
    """`a` and `b` hold the same model: joints, parts and every per-copy array, bit
    for bit, and the same random-state positions."""
    assert vars(a).keys() == vars(b).keys()
    for ja, jb in zip(a.topology.joints, b.topology.joints, strict=True):
        assert (ja.body, ja.kind, ja.params, ja.reason) == (jb.body, jb.kind, jb.params, jb.reason)
        for pa, pb in zip(ja.parts, jb.parts, strict=True):
            assert (pa.body, pa.chain, pa.params, pa.points) == (
                pb.body,
                pb.chain,
                pb.params,
                pb.points,
            )
            assert bits(pa.frame) == bits(pb.frame)
    assert dataclasses.replace(a.topology, joints=()) == dataclasses.replace(b.topology, joints=())
    for pa, pb in zip(a.parts, b.parts, strict=True):
        assert (pa.body, pa.chain, pa.params, pa.points) == (
            pb.body,
            pb.chain,
            pb.params,
            pb.points,
        )
        assert bits(pa.frame) == bits(pb.frame)
    assert len(a.parts) == len(b.parts)
    for name in ATTRIBUTES:
        va, vb = getattr(a, name), getattr(b, name)
        if isinstance(va, np.ndarray):
            assert bits(va) == bits(vb), name
        else:
            assert va == vb, name
    for (ca, ia, pa_), (cb, ib, pb_) in zip(a.groups, b.groups, strict=True):
        assert ca == cb and bits(ia) == bits(ib) and bits(pa_) == bits(pb_)
    pa, pb = a.derived._values[RANDOM_POSITIONS], b.derived._values[RANDOM_POSITIONS]
    assert bits(pa) == bits(pb)


def close_to_built(model: KinematicModel) -> None:
    """`model` is `KinematicModel(model.car)`: the same structure, numbers to 1e-12."""
    built = KinematicModel(model.car)
    assert [j.kind for j in model.topology.joints] == [j.kind for j in built.topology.joints]
    for name in ATTRIBUTES:
        va, vb = getattr(model, name), getattr(built, name)
        if isinstance(va, np.ndarray) and va.dtype.kind == "f":
            np.testing.assert_allclose(va, vb, rtol=0, atol=1e-12, err_msg=name)
        elif isinstance(va, np.ndarray):
            assert np.array_equal(va, vb), name
        else:
            assert va == vb, name
    np.testing.assert_allclose(
        engine_reduced.random_positions(model),
        built.instance_positions(engine_reduced.random_states(built.n_params), False)[0],
        rtol=0,
        atol=1e-9,
    )


def test_fast_refill_is_the_plain_refill_bit_for_bit(car: Car, base: KinematicModel) -> None:
    """Designs of the study (and ten times larger moves): the fast path answers (a
    `_Plan`), with the model `_refill_plain` makes, bit for bit, and `KinematicModel`'s
    numbers to 1e-12."""
    for k, row in enumerate(np.concatenate([offsets(6), offsets(4, 10.0, seed=5)])):
        design = apply_offsets(car, VARIABLES, row)
        assert doe_refill._plan(base, design, MOVED) is not None
        fast = doe_refill.refill_model(base, design, MOVED)
        plain = doe_refill._refill_plain(base, design, MOVED)
        assert fast is not None and plain is not None
        same_state(fast, plain)
        # the seeded `_moving`: the copies the random states move by over 1e-6 mm
        P = fast.derived._values[RANDOM_POSITIONS]
        moving = np.abs(P - fast.inst_design[:, :, None]).max(axis=(1, 2)) > 1e-6
        assert bits(fast.derived._values[engine_reduced.MOVING]) == bits(moving)
        if k < 3:
            close_to_built(fast)


def test_other_cars_and_moves_take_the_plain_refill(car: Car, base: KinematicModel) -> None:
    """A car whose bodies are other objects (equal ones), or another point list, has no
    `_Plan` and takes `_refill_plain`; a ball joint moved onto its wishbone's pivot
    axis (the wishbone no longer moves) takes it too, and gets its new class."""
    design = apply_offsets(car, VARIABLES, offsets(1)[0])
    copy = dataclasses.replace(design, bodies=tuple(dataclasses.replace(b) for b in design.bodies))
    assert doe_refill._plan(base, copy, MOVED) is None
    other = doe_refill.refill_model(base, copy, MOVED)
    fast = doe_refill.refill_model(base, design, MOVED)
    assert other is not None and fast is not None
    same_state(other, fast)
    reordered = dataclasses.replace(design, points=design.points[::-1])
    assert doe_refill._plan(base, reordered, MOVED) is None
    f, r, b = (car.point(n) for n in ("FL_UCA_F", "FL_UCA_R", "FL_UBJ"))
    d = (r - f) / np.linalg.norm(r - f)
    foot = f + float((b - f) @ d) * d
    variables = tuple(Variable("FL_UBJ", ax, -500, 500) for ax in "xyz")
    onto = apply_offsets(car, variables, list(foot - b))
    moved = frozenset({"FL_UBJ"})
    plan_ = doe_refill._plan(base, onto, moved)
    assert plan_ is not None and plan_.refit.joints(point_rows(onto)) is None
    got = doe_refill.refill_model(base, onto, moved)
    # the wishbone is fixed now: either another structure (None) or the plain answer
    plain = doe_refill._refill_plain(base, onto, moved)
    if got is None:
        assert plain is None
    else:
        assert plain is not None
        same_state(got, plain)
        assert got.topology.joint("FL_UCA").kind == "fixed"


def test_shared_structure_and_refilled_tables(car: Car, base: KinematicModel) -> None:
    """`same_structure` holds for the study's designs, and the tables `share_structure`
    hands a design (full and reduced, refilled) are the ones built from scratch."""
    for row in offsets(4, seed=9):
        model = doe_refill.refill_model(base, apply_offsets(car, VARIABLES, row), MOVED)
        assert model is not None and doe_refill.same_structure(base, model)
        doe_refill.share_structure(base, model)
        full = model.derived._values["engine_kernel_tables"]
        reduced = model.derived._values["engine_reduced_tables"]
        built = KinematicModel(model.car)
        assert_same_tables(full, engine_tables._build_tables(built), 1e-12)
        made = engine_reduced._build_reduced(built)
        assert made is not None
        assert_same_tables(reduced, made, 1e-12)
        # and bit for bit with the tables built for this very model
        own = engine_reduced._build_reduced(model)
        assert own is not None
        assert_same_tables(reduced, own, 0.0)


def assert_same_tables(
    a: engine_tables.KernelTables, b: engine_tables.KernelTables, tol: float
) -> None:
    assert len(a.arrays) == len(b.arrays)
    for k, (x, y) in enumerate(zip(a.arrays, b.arrays, strict=True)):
        assert x.dtype == y.dtype and x.shape == y.shape, k
        if tol == 0.0 or x.dtype.kind != "f":
            assert bits(x) == bits(y), k
        else:
            np.testing.assert_allclose(x, y, rtol=0, atol=tol, err_msg=str(k))
    for f in ("n_blocks", "max_rows", "max_cols", "n_params", "k_max", "n_parts", "n_inst"):
        assert getattr(a, f) == getattr(b, f), f
    assert np.array_equal(a.inputs, b.inputs)


def inputs_of(model: KinematicModel) -> set[int]:
    return {int(k) for k in plan(model).inputs}


def scalar_choices(model: KinematicModel) -> list:
    return [
        (k.part, k.kind, k.ends, k.stroke)
        for k in engine_reduced._links(model, inputs_of(model)).values()
    ]


def with_origin(model: KinematicModel, part: int, origin: np.ndarray) -> None:
    """Put part `part`'s frame origin at `origin` (mm), in its `Part` and ``model.frame``
    (what `_links` and the vectorised decisions read)."""
    p = model.parts[part]
    frame = p.frame.copy()
    frame[:3, 3] = origin
    model.parts[part] = Part(p.body, p.chain, frame, p.params, p.points)
    model.frame = model.frame.copy()
    model.frame[part] = frame


def with_point(model: KinematicModel, name: str, where: np.ndarray) -> None:
    """Put point `name` at `where` (mm) in the car and in its copies (what `_links` and
    the vectorised decisions read), nothing else rebuilt."""
    moved = (float(where[0]), float(where[1]), float(where[2]))
    points = tuple(
        dataclasses.replace(p, xyz=moved) if p.name == name else p for p in model.car.points
    )
    model.car = dataclasses.replace(model.car, points=points)
    model.inst_design = model.inst_design.copy()
    model.inst_design[[i for i, n in enumerate(model.inst_point) if n == name]] = moved


def link_plan(model: KinematicModel) -> engine_reduced._LinkPlan:
    lp = engine_reduced._link_plan(model, inputs_of(model))
    assert lp is not None
    return lp


def test_vectorised_link_choices_are_the_scalar_ones_on_random_designs(
    car: Car, base: KinematicModel
) -> None:
    """Every point moved by up to 5 mm: `_link_choices` (with the base car's plan) is
    `_links`' list, and the car has links of each rule."""
    lp = link_plan(base)
    assert set(lp.rule) == {0, 1, 2}
    rng = np.random.default_rng(3)
    for _ in range(6):
        points = tuple(
            dataclasses.replace(p, xyz=xyz(np.add(p.xyz, rng.uniform(-5, 5, 3))))
            for p in car.points
        )
        model = KinematicModel(dataclasses.replace(car, points=points))
        got = engine_reduced._link_choices(model, lp)
        assert got is not None and got == scalar_choices(model)
        assert {ch[1] for ch in got} == {0, 1} and any(ch[3] >= 0 for ch in got)


DISTANCES = [
    (0.0, True),
    (0.5e-9, True),
    (0.9e-9, True),
    (0.9995e-9, False),
    (1e-9, False),
    (1.0005e-9, False),
    (1.1e-9, True),
    (2e-9, True),
    (1e-6, True),
]
"""(distance from a threshold's point, mm; the vectorised rule decides it): 1e-9 mm is
`_links`' threshold, a thousandth of it either side is left to `_links`."""
DIRECTION = np.array([0.6, -0.8, 0.0])


@pytest.mark.parametrize("distance, decided", DISTANCES)
def test_link_origins_at_and_near_the_threshold(
    base: KinematicModel, distance: float, decided: bool
) -> None:
    """A two-point link's frame origin, a link-from-the-chassis' and a damper rod's put
    `distance` mm from the candidate's first point: `_links`' list where the distance
    is clear of 1e-9 mm (the link kept up to 1e-9), None (`_links` decides) within a
    thousandth of it."""
    lp = link_plan(base)
    for rule in (0, 1, 2):
        c = lp.rule.index(rule)
        part = int(lp.parts[c])
        model = KinematicModel(base.car)
        with_origin(model, part, model.inst_design[lp.at[c]] + distance * DIRECTION)
        got = engine_reduced._link_choices(model, lp)
        if not decided:
            assert got is None
            continue
        want = scalar_choices(model)
        assert got == want
        if rule == 0:
            assert (part in [ch[0] for ch in want]) == (distance <= 1e-9)


@pytest.mark.parametrize("distance, decided", DISTANCES)
def test_a_second_chassis_point_at_a_dampers_origin(
    base: KinematicModel, distance: float, decided: bool
) -> None:
    """Another chassis point put `distance` mm from a damper's chassis point (its rod's
    frame origin): within 1e-9 mm two chassis points are there and the damper is no
    link (`at_origin`); the vectorised count agrees, and leaves the band to `_links`."""
    lp = link_plan(base)
    c = lp.rule.index(2)
    part = int(lp.parts[c])
    origin = base.frame[part, :3, 3]
    other = next(f for f in lp.fixed if np.linalg.norm(base.car.point(f) - origin) > 1.0)
    model = KinematicModel(base.car)
    with_point(model, other, origin + distance * DIRECTION)
    got = engine_reduced._link_choices(model, lp)
    if not decided:
        assert got is None
        return
    assert got == scalar_choices(model)
    assert (part in [ch[0] for ch in got]) == (distance > 1e-9)


def test_a_tie_for_the_nearer_end_is_left_to_links(base: KinematicModel) -> None:
    """A link from the chassis whose frame origin is as far from both its points (or
    within 1e-12 of that, relatively): `_links`' `min` decides, not the vectorised
    rule; 1e-6 of the link's length off the middle, the rule decides as `_links`."""
    lp = link_plan(base)
    c = lp.rule.index(1)
    part = int(lp.parts[c])
    for shift, decided in ((0.0, False), (1e-14, False), (1e-6, True)):
        model = KinematicModel(base.car)
        a, b = model.inst_design[lp.at[c]], model.inst_design[lp.at[len(lp.parts) + c]]
        with_origin(model, part, (a + b) / 2 + shift * (b - a))
        got = engine_reduced._link_choices(model, lp)
        if not decided:
            assert got is None
            continue
        assert got == scalar_choices(model)
        assert part not in [ch[0] for ch in got]  # its origin is on neither point


def test_refill_reduced_is_none_where_a_link_choice_changes(car: Car, base: KinematicModel) -> None:
    """The study's designs: the refilled reduced tables are the built ones (to 1e-12).
    A chassis point moved onto a damper's chassis point (at_origin finds two): the
    design's links are not the base car's and `refill_reduced` says None (build)."""
    tab = base.derived._values["engine_reduced_tables"]
    for row in offsets(3, seed=2):
        design = KinematicModel(apply_offsets(car, VARIABLES, row))
        made = engine_reduced.refill_reduced(base, tab, design)
        want = engine_reduced._build_reduced(design)
        assert made is not None and want is not None
        assert_same_tables(made, want, 1e-12)
    lp = link_plan(base)
    origin = base.frame[int(lp.parts[lp.rule.index(2)]), :3, 3]
    for name in lp.fixed:
        if np.linalg.norm(car.point(name) - origin) < 1.0:
            continue
        variables = tuple(Variable(name, ax, -1e3, 1e3) for ax in "xyz")
        try:
            doubled = KinematicModel(apply_offsets(car, variables, list(origin - car.point(name))))
        except SuspensionSimError:
            continue  # that point cannot go there (its own body would break)
        break
    assert scalar_choices(doubled) != scalar_choices(base)
    assert engine_reduced.refill_reduced(base, tab, doubled) is None


def test_written_out_cross_products_norms_and_offsets_are_numpys() -> None:
    """`_cross` is `np.cross` and `frames_from_axes` the `np.cross` / `np.linalg.norm`
    formula, byte for byte (signed zeros and basis vectors included); `apply_offsets`
    is the `np.add` of summed offsets, byte for byte, leaving unmoved points alone."""
    rng = np.random.default_rng(1)
    a = rng.normal(size=(4000, 3)) * rng.uniform(1e-6, 1e6, size=(4000, 1))
    b = rng.normal(size=(4000, 3))
    a[:300] = np.eye(3)[rng.integers(0, 3, 300)] * rng.choice([-1.0, 1.0, 0.0, -0.0], (300, 1))
    b[:100] = -0.0
    assert bits(_cross(a, b)) == bits(np.cross(a, b))
    z = a[300:] + 1e-3
    origins = b[300:]
    zn = z / np.linalg.norm(z, axis=1)[:, None]
    x = np.cross(np.eye(3)[np.argmin(np.abs(zn), axis=1)], zn)
    x /= np.linalg.norm(x, axis=1)[:, None]
    want = np.zeros((len(z), 4, 4))
    want[:, :3, 0], want[:, :3, 1], want[:, :3, 2] = x, np.cross(zn, x), zn
    want[:, :3, 3], want[:, 3, 3] = origins, 1.0
    assert bits(frames_from_axes(z, origins)) == bits(want)


def test_apply_offsets_is_the_numpy_sum(car: Car) -> None:
    rng = np.random.default_rng(6)
    names = [p.name for p in car.points]
    for _ in range(40):
        variables = tuple(
            Variable(
                names[rng.integers(len(names))],
                "xyz"[rng.integers(3)],
                -5,
                5,
                names[rng.integers(len(names))] if rng.uniform() < 0.5 else None,
            )
            for _ in range(rng.integers(1, 6))
        )
        values = rng.uniform(-5, 5, len(variables)) * rng.choice(
            [1.0, 1e-17, 0.0, -0.0, 1e8], len(variables)
        )
        moves: dict[str, np.ndarray] = {}
        for v, d in zip(variables, values, strict=True):
            k = "xyz".index(v.axis)
            for point, sign in ((v.point, 1.0), (v.twin, -1.0 if v.axis == "y" else 1.0)):
                if point is not None:
                    moves.setdefault(point, np.zeros(3))[k] += sign * float(d)
        got = apply_offsets(car, variables, values)
        assert dataclasses.replace(got, points=()) == dataclasses.replace(car, points=())
        for p, q in zip(car.points, got.points, strict=True):
            if p.name in moves:
                want = np.add(p.xyz, moves[p.name])
                assert q.name == p.name and q.source is p.source
                assert bits(np.array(q.xyz)) == bits(want)
                assert all(type(c) is float for c in q.xyz)
            else:
                assert q is p
    assert replaced(car, points=()) == dataclasses.replace(car, points=())
    with pytest.raises(TypeError, match="no field"):  # as dataclasses.replace refuses it
        replaced(car, pionts=())


def test_reversed_links_from_the_chassis(base: KinematicModel) -> None:
    """Each link from the chassis with its two points listed the other way round (its
    chassis point second): `_links` takes the nearer (the chassis point) first, and so
    does the vectorised rule."""
    model = KinematicModel(base.car)
    for i, p in enumerate(model.parts):
        if p.chain == "universal" and len(p.points) == 2:
            model.parts[i] = Part(p.body, p.chain, p.frame, p.params, p.points[::-1])
    lp = link_plan(model)
    got = engine_reduced._link_choices(model, lp)
    assert got is not None and got == scalar_choices(model)
    assert any(ch[1] == 1 and ch[3] < 0 for ch in got)


def test_a_copy_that_starts_to_move_changes_the_active_pairs(car: Car) -> None:
    """A third chassis point of a wishbone on its pivot axis never moves (its pair is
    left out of the solve); 1e-7 mm off the axis (still on it for `classify`, which
    keeps the wishbone revolute) it moves at the random states and its pair is active:
    the fast refill finds that as the plain one and `KinematicModel` do."""
    f, r = car.point("FL_UCA_F"), car.point("FL_UCA_R")
    q = f + 0.3 * (r - f)
    bodies = tuple(
        dataclasses.replace(b, points=(*b.points, "X_Q")) if b.name in ("Chassis", "FL_UCA") else b
        for b in car.bodies
    )
    point = dataclasses.replace(car.points[0], name="X_Q", xyz=xyz(q))
    on_axis = dataclasses.replace(car, points=(*car.points, point), bodies=bodies)
    base = KinematicModel(on_axis)
    variables = (Variable("X_Q", "z", -1, 1),)
    moved = frozenset({"X_Q"})
    still = doe_refill.refill_model(base, apply_offsets(on_axis, variables, [0.0]), moved)
    off = apply_offsets(on_axis, variables, [1e-7])
    fast = doe_refill.refill_model(base, off, moved)
    assert still is not None and fast is not None and doe_refill._plan(base, off, moved)
    assert fast.topology.joint("FL_UCA").kind == "revolute"
    plain = doe_refill._refill_plain(base, off, moved)
    assert plain is not None
    same_state(fast, plain)
    assert len(fast.active_pairs) == len(still.active_pairs) + 1
    assert np.array_equal(fast.active_pairs, KinematicModel(off).active_pairs)
    assert not doe_refill.same_structure(base, fast)


@pytest.mark.parametrize("along, answers", [(1.01e-3, True), (1.0005e-3, False), (0.99e-3, False)])
def test_rack_axis_near_perpendicular_to_y(car: Car, along: float, answers: bool) -> None:
    """The rack's axis turned until its Y component is `along` (classify refuses it
    below AXIS_ALONG_Y_MIN = 1e-3): `refit` answers (classify's frame, 1e-12) only
    clear of that threshold by more than `REFIT_MARGIN` of it."""
    from suspension_sim.errors import ModelError
    from suspension_sim.model.refit import refit
    from suspension_sim.model.topology import classify
    from suspension_sim.tolerances import AXIS_ALONG_Y_MIN

    assert car.rack is not None
    e0, e1 = car.rack.end_points
    a = car.point(e0)
    length = float(np.linalg.norm(car.point(e1) - a))
    unit = np.array([np.sqrt(1 - along**2), along, 0.0])
    target = xyz(a + length * unit)
    points = tuple(dataclasses.replace(p, xyz=target) if p.name == e1 else p for p in car.points)
    turned = dataclasses.replace(car, points=points)
    got = refit(turned, classify(car), {car.rack.body})
    if along < AXIS_ALONG_Y_MIN:
        with pytest.raises(ModelError):
            classify(turned)
    if not answers:
        assert got is None
        return
    assert got is not None
    want = classify(turned).joint(car.rack.body)
    np.testing.assert_allclose(
        got[car.rack.body].parts[0].frame, want.parts[0].frame, rtol=0, atol=1e-12
    )


def test_fresh_work_arrays_have_the_tables_layout(base: KinematicModel) -> None:
    """The work arrays a design gets next to the base car's (`_share_entries`) are
    `work_arrays`' W for its tables: the same shapes and types, zeros, new arrays."""
    tab = engine_tables.kernel_tables(base)
    used = engine_tables.work_arrays(tab)[0]
    for a in used:
        a += 1.0  # scratch a kernel wrote into
    fresh = doe_refill._fresh(used, tab)
    want = engine_tables.work_arrays(tab)[0]
    assert len(fresh) == len(want)
    for a, b, c in zip(fresh, want, used, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype and a.flags.c_contiguous
        assert not a.any() and a is not c
    assert len(doe_refill._fresh(None, tab)) == len(want)


@pytest.mark.parametrize(
    "name", ["fsae_car_arb", "macpherson_front", "five_link_rear", "solid_axle_rear"]
)
def test_every_example_car(name: str) -> None:
    """Each example car, six random points (not an anti-roll bar's) moved along random
    axes by up to 3 mm: the fast refill is the plain one bit for bit, the design shares
    the base car's structure, and its refilled tables (full and reduced) are the ones
    built for it from scratch, bit for bit."""
    car = ss.load(ROOT / "workbooks" / f"{name}.xlsx").car
    base = KinematicModel(car)
    engine_tables.kernel_tables(base)
    assert engine_reduced.reduced_tables(base) is not None
    on_bars = {
        p
        for bar in car.anti_roll_bars
        for p in (
            *bar.axis_points,
            bar.shaft_point,
            *(q for a in bar.arms for q in car.body(a).points),
        )
    }
    names = [p.name for p in car.points if p.name not in on_bars]
    rng = np.random.default_rng(1)
    for _ in range(4):
        points = list(rng.choice(names, size=6, replace=False))
        variables = tuple(Variable(p, "xyz"[rng.integers(3)], -3, 3) for p in points)
        moved = frozenset(points)
        for _ in range(2):
            design = apply_offsets(car, variables, rng.uniform(-3, 3, len(variables)).tolist())
            assert doe_refill._plan(base, design, moved) is not None
            fast = doe_refill.refill_model(base, design, moved)
            plain = doe_refill._refill_plain(base, design, moved)
            assert fast is not None and plain is not None
            same_state(fast, plain)
            assert doe_refill.same_structure(base, fast)
            doe_refill.share_structure(base, fast)
            values = fast.derived._values
            assert_same_tables(values["engine_kernel_tables"], engine_tables._build_tables(fast), 0)
            built = engine_reduced._build_reduced(fast)
            assert built is not None
            assert_same_tables(values["engine_reduced_tables"], built, 0.0)
