"""`centres.centre_columns` (components-first arrays, every wheel at once) against the
plain form it replaced, bit for bit.

The oracle, `reference_centre_columns`, is that plain form: the `linkage` functions on
(S, n_w, 3) arrays, one wheel at a time where it loops (the code `centre_columns`
ran before; `linkage` itself is checked against closed-form cases in
tests/test_metrics_linkage.py). The components-first helpers (`centres._force_centre`
and the others) are compared with their `linkage` functions on random vectors with
degenerate cases mixed in (zero rotation, zero rate along the view normal, coincident
and parallel planes). Equality is exact, signs of zero included: the two forms do the
same floating-point operations in the same order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

import suspension_sim
from suspension_sim.explore import sensitivity
from suspension_sim.explore.dual import Dual, DualArray
from suspension_sim.metrics import centres, linkage
from suspension_sim.metrics.centres import (
    ANTI_CENTRES,
    ANTIS,
    anti_cases,
    centre_columns,
    world_homogeneous,
)
from suspension_sim.metrics.geometry import (
    Slot,
    Wheels,
    WheelSet,
    place_wheels,
    to_chassis,
    to_world,
    wheel_set,
)
from suspension_sim.metrics.vectors import Z_UP, cross, dot
from suspension_sim.solve.batch import chassis_transforms

if TYPE_CHECKING:
    from suspension_sim.description import Options

ROOT = Path(__file__).resolve().parents[1]
WORKBOOKS = sorted(p for p in (ROOT / "workbooks").glob("*.xlsx") if p.stem != "template")


def reference_centre_columns(
    st: WheelSet,
    g: Wheels,
    twists: np.ndarray,
    opts: Options,
    ids: AbstractSet[str] | None = None,
) -> dict[Slot, np.ndarray]:
    """`centres.centre_columns` as it was written before its components-first form:
    the `linkage` functions on (S, n_w, 3) arrays, wheel by wheel where it loops."""

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n_w = len(st.names)
    R, t = g.R, g.t
    x_h, y_h = g.x_h, g.y_h
    m_front, m_side = to_chassis(R, x_h), to_chassis(R, y_h)  # (S, 3) chassis frame
    own = np.arange(n_w)
    travel = twists[:, :, :, :n_w]

    def velocity(tw: np.ndarray, p: np.ndarray) -> np.ndarray:
        return to_world(R, tw[..., 3:] + cross(tw[..., :3], p))

    mf, ms = m_front[:, None], m_side[:, None]
    xh, yh = x_h[:, None], y_h[:, None]
    out: dict[Slot, np.ndarray] = {}

    def put(mid: str, comps: str, N: np.ndarray, lam: np.ndarray) -> None:
        pts = linkage.finite(N, lam)
        for i, name in enumerate(st.names):
            for comp in comps:
                out[(mid, name, comp)] = pts[:, i, "xyz".index(comp)]

    antis = st.has_wheelbase and want(*ANTIS, *ANTI_CENTRES.values())
    side = want("svic", "svsa", "pitch_centre", "pitch_centre_line_angle") or antis
    front = want(
        "fvic", "fvsa", "roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"
    )
    tw_own = twists[:, own, :, own].transpose(1, 0, 2)  # (S, n_w, 6)
    if side:
        tw_side = np.einsum("siak,ik->sia", travel, st.heave)
        cp_side = velocity(tw_side, g.cp_c)
    if front:
        tw_front = np.einsum("siak,ik->sia", travel, st.roll)
        cp_front = velocity(tw_front, g.cp_c)
    if want("fvic", "fvsa"):
        fN, fl = linkage.force_centre(tw_front, g.cp_c, mf)
        fN = world_homogeneous(R, t, fN, fl)
        if want("fvic"):
            put("fvic", "yz", fN, fl)
        fsa = linkage.view_distance(g.cp_w, fN, fl, xh)
        for i, name in enumerate(st.names):
            out[("fvsa", name, "")] = fsa[:, i]
    if want("svic", "svsa"):
        sN, sl = linkage.force_centre(tw_side, g.cp_c, ms)
        sN = world_homogeneous(R, t, sN, sl)
        if want("svic"):
            put("svic", "xz", sN, sl)
        ssa = linkage.view_distance(g.cp_w, sN, sl, yh)
        for i, name in enumerate(st.names):
            out[("svsa", name, "")] = ssa[:, i]
    if want("fvic_axis"):
        aN, al = linkage.instant_centre(tw_own, g.cp_c, mf)
        put("fvic_axis", "yz", world_homogeneous(R, t, aN, al), al)
    if want("svic_axis"):
        aN, al = linkage.instant_centre(tw_own, g.cp_c, ms)
        put("svic_axis", "xz", world_homogeneous(R, t, aN, al), al)
    if antis:
        c_side = velocity(tw_side, g.C_c)
        L = st.design_wheelbase
        for i, name in enumerate(st.names):
            for mid, share, at_centre in anti_cases(bool(st.front[i]), bool(st.rear[i]), opts):
                u = c_side[:, i] if at_centre else cp_side[:, i]
                direction, _ = linkage.view_normal(u, y_h)
                out[(mid, name, "")] = linkage.anti_percent(
                    direction, x_h, Z_UP, mid == "anti_dive", L, opts.cg_height_mm, share
                )
                if at_centre:
                    cN, cl = linkage.force_centre(tw_side[:, i], g.C_c[:, i], m_side)
                    pts = linkage.finite(world_homogeneous(R, t, cN, cl), cl)
                    for comp in "xz":
                        out[(ANTI_CENTRES[mid], name, comp)] = pts[:, "xyz".index(comp)]

    for i in (
        (int(k) for k in np.flatnonzero(st.double_wishbone))
        if want("fvic_arms", "svic_arms")
        else ()
    ):
        planes = []
        for arm in st.arms[i]:
            a, b, joint = (to_world(R, g.P[:, j]) + t for j in arm)  # pivots, ball joint
            planes.append((a, cross(b - a, joint - a)))
        for mid, comps, normal in (("fvic_arms", "yz", x_h), ("svic_arms", "xz", y_h)):
            pts = linkage.finite(*linkage.planes_meet((*planes, (g.cp_w[:, i], normal))))
            for comp in comps:
                out[(mid, st.names[i], comp)] = pts[:, "xyz".index(comp)]

    for axle, (il, ir) in st.axles.items():
        if want("roll_centre_height", "roll_centre_lateral", "roll_centre_line_angle"):
            lines = (
                g.cp_w[:, il],
                linkage.view_normal(cp_front[:, il], x_h),
                g.cp_w[:, ir],
                linkage.view_normal(cp_front[:, ir], x_h),
                y_h,
                Z_UP,
            )
            out[("roll_centre_line_angle", axle, "")] = np.degrees(linkage.lines_angle(*lines))
            uv = linkage.centre_of_lines(*lines)
            u_rc, h = uv[:, 0], uv[:, 1]
            out[("roll_centre_height", axle, "")] = h
            if want("roll_centre_lateral"):
                mid_cp = 0.5 * (g.cp_w[:, il] + g.cp_w[:, ir])
                rc = dot(mid_cp, x_h)[:, None] * x_h + u_rc[:, None] * y_h + h[:, None] * Z_UP
                out[("roll_centre_lateral", axle, "")] = to_chassis(R, rc - t)[:, 1]
        if want("roll_centre_axis_height", "roll_centre_axis_line_angle"):
            # OptimumK's kinematic roll centre: the lines CP -> where each wheel's screw axis
            # pierces the vertical plane through the two contact points.
            mid_c = 0.5 * (g.cp_c[:, il] + g.cp_c[:, ir])
            pierce = []
            for i in (il, ir):
                pN, pl = linkage.instant_centre(tw_own[:, i], mid_c, m_front)
                pierce.append((world_homogeneous(R, t, pN, pl), pl))
            axis_lines = (g.cp_w[:, il], pierce[0], g.cp_w[:, ir], pierce[1], y_h, Z_UP)
            angle = linkage.lines_angle(*axis_lines)
            out[("roll_centre_axis_line_angle", axle, "")] = np.degrees(angle)
            uv = linkage.centre_of_lines(*axis_lines)
            out[("roll_centre_axis_height", axle, "")] = uv[:, 1]
    pitch = want("pitch_centre", "pitch_centre_line_angle")
    for side_name, (i_f, i_r) in st.sides.items() if pitch else ():
        side_lines = (
            g.cp_w[:, i_f],
            linkage.view_normal(cp_side[:, i_f], y_h),
            g.cp_w[:, i_r],
            linkage.view_normal(cp_side[:, i_r], y_h),
            x_h,
            Z_UP,
        )
        angle = linkage.lines_angle(*side_lines)
        out[("pitch_centre_line_angle", side_name, "")] = np.degrees(angle)
        xz = linkage.centre_of_lines(*side_lines)
        out[("pitch_centre", side_name, "x")] = xz[:, 0]
        out[("pitch_centre", side_name, "z")] = xz[:, 1]
    return out


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal element by element, NaN equal to NaN, and the same signs of zero."""
    a, b = np.asarray(a), np.asarray(b)
    return (
        a.shape == b.shape
        and bool(np.array_equal(a, b, equal_nan=True))
        and bool(np.array_equal(np.signbit(a), np.signbit(b)))
    )


def random_states(
    model: suspension_sim.Model, st: WheelSet, S: int, seed: int
) -> tuple[Wheels, np.ndarray]:
    """Placed wheels of S made-up states (copies moved a few mm from design, the chassis
    rolled, pitched, yawed and moved) and carrier twists along the wheel tangents, with
    pure translations, zero columns, zero rates about the view axes and -0 mixed in."""
    rng = np.random.default_rng(seed)
    P0, _ = model.instance_positions(np.zeros((model.n_params, 1)), derivatives=False)
    P = P0.transpose(2, 0, 1) + rng.normal(scale=5.0, size=(S, P0.shape[0], 3))
    chassis = np.zeros((S, 6))
    chassis[:, :3] = rng.normal(scale=20.0, size=(S, 3))
    chassis[:, 3:] = rng.normal(scale=2.0, size=(S, 3))
    chassis[: S // 4, 3:] = 0.0  # some states level: rotations of exact zeros and ones
    R, t = chassis_transforms(model, chassis)
    g = place_wheels(st, P, R, t)
    n_w = len(st.names)
    tw = np.empty((S, n_w, 6, n_w + 1))
    tw[:, :, :3] = rng.normal(scale=2e-3, size=(S, n_w, 3, n_w + 1))
    tw[:, :, 3:] = rng.normal(scale=1.0, size=(S, n_w, 3, n_w + 1))
    tw[rng.random(S) < 0.1, :, :3] = 0.0  # pure translations
    tw[rng.random(S) < 0.1, :, :, 0] = 0.0  # a column that moves nothing
    tw[rng.random(S) < 0.1, :, 0] = 0.0  # no rotation about x (the front view's normal)
    tw[rng.random(S) < 0.1, :, 1] = 0.0  # nor about y
    tw[rng.random(S) < 0.05] *= 1e-14  # centres beyond CENTRE_AT_INFINITY_MM
    tw[rng.random(tw.shape) < 0.03] = -0.0  # signed zeros: sums of them keep their sign rules
    tw[S // 2] = -0.0  # a state of nothing but -0
    return g, tw


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def car_model(request: pytest.FixtureRequest) -> suspension_sim.Model:
    return suspension_sim.load(request.param)


@pytest.mark.parametrize("ids", [None, {"svic", "anti_dive", "roll_centre_axis_height"}])
def test_centre_columns_equal_the_plain_form(
    car_model: suspension_sim.Model, ids: AbstractSet[str] | None
) -> None:
    st = wheel_set(car_model)
    assert st.names  # every example car has wheels
    g, tw = random_states(car_model, st, 97, seed=len(st.names))
    for opts in (car_model.car.options, _inboard(car_model.car.options)):
        got = centre_columns(st, g, tw, opts, ids)
        want = reference_centre_columns(st, g, tw, opts, ids)
        assert set(got) == set(want) and want
        for slot, v in want.items():
            assert same(got[slot], v), slot


def test_one_state_equals_its_row_of_many() -> None:
    """A pose (S = 1, `centre_metrics`) gets the value its row gets in a stack."""
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    st = wheel_set(model)
    g, tw = random_states(model, st, 9, seed=3)
    many = centre_columns(st, g, tw, model.car.options)
    for s in (0, 5):
        one = dataclasses.replace(
            g, **{k: v[s : s + 1] for k, v in vars(g).items() if v is not None}
        )
        row = centre_columns(st, one, tw[s : s + 1], model.car.options)
        for slot, v in many.items():
            assert same(row[slot], v[s : s + 1]), slot


def _inboard(opts: Options) -> Options:
    """The options with every anti taken at the wheel centre (inboard brakes and drive)."""
    return dataclasses.replace(
        opts, front_brakes_inboard=True, rear_brakes_inboard=True, drive_inboard=True
    )


def test_components_first_helpers_equal_linkage() -> None:
    rng = np.random.default_rng(7)
    S, n = 400, 3
    tw = rng.normal(size=(S, n, 6)) * np.array([1e-3] * 3 + [1.0] * 3)
    tw[:40, :, :3] = 0.0  # pure translations
    tw[40:80, :, 0] = 0.0  # no rotation about x
    tw[80:100] *= 1e-13  # far centres
    ref = rng.normal(scale=300.0, size=(S, n, 3))
    m = rng.normal(size=(S, n, 3))
    m /= np.linalg.norm(m, axis=-1, keepdims=True)
    m[100:140] = [1.0, 0.0, 0.0]
    soa = centres._soa
    for plain, comps in (
        (linkage.force_centre, centres._force_centre),
        (linkage.instant_centre, centres._instant_centre),
    ):
        N, lam = plain(tw, ref, m)
        N2, lam2 = comps(soa(tw), soa(ref), soa(m))
        assert same(soa(N), N2) and same(lam, lam2)
        assert same(soa(linkage.finite(N, lam)), centres._finite(N2, lam2))
        dist = linkage.view_distance(ref[:, ::-1], N, lam, m)
        assert same(dist, centres._view_distance(soa(ref[:, ::-1]), N2, lam2, soa(m)))
    planes = []
    for _ in range(3):
        p, nrm = rng.normal(scale=200.0, size=(2, S, n, 3))
        planes.append((p, nrm))
    planes[1][1][:30] = planes[0][1][:30]  # parallel arm planes
    planes[2][1][30:60] = 0.0  # no normal: NaN
    N, lam = linkage.planes_meet(tuple(planes))
    N2, lam2 = centres._planes_meet(tuple((soa(p), soa(q)) for p, q in planes))
    assert same(soa(N), N2) and same(lam, lam2)


def dual_states(g: Wheels, tw: np.ndarray, seed: int) -> tuple[Wheels, DualArray]:
    """`g` and `tw` as Duals along two random directions (`explore.sensitivity` runs the
    formulas on Duals: the derivatives come from the same operations)."""
    rng = np.random.default_rng(seed)

    def dual(v: np.ndarray) -> DualArray:
        return Dual(v, rng.normal(size=(2, *v.shape)))

    fields = {k: dual(v) for k, v in vars(g).items() if isinstance(v, np.ndarray)}
    return dataclasses.replace(g, **fields), dual(tw)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the -0 state: atan2 at 0
def test_duals_get_the_plain_form_values_and_derivatives() -> None:
    """The centre metrics `explore.sensitivity` differentiates, on Duals (the antis at the
    contact points, as it asks them): the values and the derivatives of the plain form
    (which took Duals only there: `linkage`'s homogeneous centres make plain arrays)."""
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    st = wheel_set(model)
    g, tw = random_states(model, st, 7, seed=5)
    gd, twd = dual_states(g, tw, seed=6)
    opts = dataclasses.replace(
        model.car.options, front_brakes_inboard=False, rear_brakes_inboard=False
    )
    opts = dataclasses.replace(opts, drive_inboard=False)
    ids = sensitivity.CENTRE_IDS | sensitivity.ANTI_IDS
    got: dict[Slot, DualArray] = centre_columns(st, gd, twd, opts, ids)
    want: dict[Slot, DualArray] = reference_centre_columns(st, gd, twd, opts, ids)
    assert set(got) == set(want) and want
    for slot, v in want.items():
        assert same(got[slot].val, v.val) and same(got[slot].der, v.der), slot


def test_mixed_linkage_motions_equal_einsum() -> None:
    """`centres._mix` (the travels' twists weighted by the heave or roll weights, summed
    from 0 column by column) against the einsum it replaces, signs of zero included."""
    rng = np.random.default_rng(9)
    for path in WORKBOOKS:
        st = wheel_set(suspension_sim.load(path))
        n_w = len(st.names)
        if not n_w:
            continue
        shape = (300, n_w, 6, n_w + 1)
        tw = rng.normal(size=shape) * rng.choice([1e-9, 1.0, 1e6], size=shape)
        tw[rng.random(tw.shape) < 0.2] = 0.0
        tw[rng.random(tw.shape) < 0.2] = -0.0
        tw[:20] = -0.0
        per_column = tw.transpose(1, 3, 2, 0).copy()
        for W in (st.heave, st.roll):
            assert centres._unit_weights(W)
            want = centres._soa(np.einsum("siak,ik->sia", tw[..., :n_w], W))
            assert same(centres._mix(tw, per_column, W), want), path.stem
    assert not centres._unit_weights(np.array([[0.5, 0.5], [0.0, 1.0]]))
    assert not centres._unit_weights(np.ones((3, 3)))  # three terms: their order matters
