"""`rates.rate_columns` (components-first arrays, the `to_world` calls in one) against
the plain form it replaced, bit for bit.

The oracle, `reference_rate_columns`, is that plain form: `d_spin_axis`,
`d_contact_point`, `d_camber` and `steering_rates` on (S, n_w, cols, 3) arrays (the code
`rate_columns` ran before; those functions are checked against finite differences and
closed-form cases in tests/test_metrics_rates.py). Random states of every example car,
both presets, all metrics and a subset; equality is exact, signs of zero included.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from pathlib import Path

import numpy as np
import pytest
from test_centres_soa import WORKBOOKS, dual_states, random_states, same

import suspension_sim
from suspension_sim.explore import sensitivity
from suspension_sim.explore.dual import Dual, DualArray
from suspension_sim.metrics import wheel
from suspension_sim.metrics.conventions import Preset, preset
from suspension_sim.metrics.geometry import DEG, EX, Slot, Wheels, WheelSet, to_world, wheel_set
from suspension_sim.metrics.rates import (
    d_camber,
    d_camber_front_view,
    d_contact_point,
    d_spin_axis,
    d_steer_toe,
    d_toe,
    rate_columns,
    square_solve,
    steering_rates,
    steering_ratio,
)
from suspension_sim.metrics.vectors import Z_UP, cross

ROOT = Path(__file__).resolve().parents[1]


def reference_rate_columns(
    st: WheelSet,
    g: Wheels,
    v_C: np.ndarray,
    v_A: np.ndarray,
    Wd: np.ndarray,
    pre: Preset,
    ids: AbstractSet[str] | None = None,
) -> dict[Slot, np.ndarray]:
    """`rates.rate_columns` as it was written before its components-first form: the
    `rates` functions on (S, n_w, cols, 3) arrays."""

    def want(*mids: str) -> bool:
        return ids is None or any(m in ids for m in mids)

    n = Z_UP
    n_w = len(st.names)
    R = g.R
    cols = v_C.shape[2]
    out: dict[Slot, np.ndarray] = {}
    wheel_rates: dict[str, np.ndarray] = {}
    steering = ("steering_toe_gain", "steering_camber_gain", "steering_ratio")
    ground = want("roll_camber", "motion_ratio_heave") or (
        st.has_rack and bool(st.rack_ratio) and want(*steering)
    )
    if ground or want("camber_gain", "bump_steer", "bump_steer_per_25mm", "steer_rate"):
        ds_c = d_spin_axis(g.C_c[:, :, None], g.A_c[:, :, None], st.orient[:, None], v_C, v_A)
        ds_w = to_world(R, ds_c)
        own = np.arange(n_w)
        ds_c_own, ds_w_own = ds_c[:, own, own], ds_w[:, own, own]
        s_w = g.s_w
        if want("camber_gain"):
            if pre.camber == "front_view":
                gain = d_camber_front_view(s_w, ds_w_own, g.y_h[:, None], n)
            else:
                gain = d_camber(s_w, ds_w_own, n)
            wheel_rates["camber_gain"] = gain * DEG
        if want("bump_steer", "bump_steer_per_25mm"):
            bump = pre.toe_sign * d_toe(g.s_c, ds_c_own)
            wheel_rates["bump_steer"] = bump * DEG
            wheel_rates["bump_steer_per_25mm"] = bump * DEG * 25.0
        if st.has_rack and want("steer_rate"):
            d_toe_rack = d_steer_toe(pre, g.s_c, ds_c[:, :, cols - 1])
            wheel_rates["steer_rate"] = -st.side * d_toe_rack * DEG
    if ground:
        v_C_w = to_world(R, v_C[:, :, :n_w])
        dcp_z = d_contact_point(s_w[:, :, None], ds_w[:, :, :n_w], v_C_w, st.radius[:, None], n)[
            ..., 2
        ]
        if want("roll_camber"):
            # Roll camber: chassis roll with every contact point held on the ground.
            rigid_ds_w = to_world(R, cross(EX, g.s_c))
            rigid_dC_w = to_world(R, cross(EX, g.C_c - st.reference))
            rigid_cp_z = d_contact_point(s_w, rigid_ds_w, rigid_dC_w, st.radius, n)[..., 2]
            dtau = square_solve(dcp_z, -rigid_cp_z)
            dcam = d_camber(s_w[:, :, None], ds_w[:, :, :n_w], n)  # (S, i, k)
            wheel_rates["roll_camber"] = d_camber(s_w, rigid_ds_w, n) + np.einsum(
                "sik,sk->si", dcam, dtau
            )
        if st.has_rack and st.rack_ratio and want(*steering):
            toe_gain, camber_gain, steer = steering_rates(g, st, pre, ds_c, ds_w, v_C, dcp_z)
            wheel_rates["steering_toe_gain"] = toe_gain
            wheel_rates["steering_camber_gain"] = camber_gain
            for axle, (il, ir) in st.axles.items():
                mean = 0.5 * (steer[:, il] + steer[:, ir])
                out[("steering_ratio", axle, "")] = steering_ratio(mean)
    for mid, arr in wheel_rates.items():
        for i, name in enumerate(st.names):
            out[(mid, name, "")] = arr[:, i]
    ratio = want("motion_ratio", "installation_ratio")
    heave = want("motion_ratio_heave")
    if heave:
        # Heave with every contact point on the ground (the chassis up 1 mm lifts every CP 1 mm).
        dtau_heave = square_solve(dcp_z, -np.ones(dcp_z.shape[:2]))
    for i, name in enumerate(st.names):
        d = st.damper_of[i]
        if d < 0:
            continue
        if ratio:
            mr = Wd[:, d, i]
            out[("motion_ratio", name, "")] = mr
            with np.errstate(divide="ignore"):
                out[("installation_ratio", name, "")] = np.where(mr != 0, 1.0 / mr, np.inf)
        if heave:
            # d damper length / d heave = -(d stroke / d travel) . (d travel / d heave)
            d_length = -np.einsum("sk,sk->s", Wd[:, d, :n_w], dtau_heave)
            out[("motion_ratio_heave", name, "")] = wheel.ratio_per_motion(d_length)
    return out


@pytest.fixture(scope="module", params=WORKBOOKS, ids=[p.stem for p in WORKBOOKS])
def car_model(request: pytest.FixtureRequest) -> suspension_sim.Model:
    return suspension_sim.load(request.param)


@pytest.mark.parametrize("convention", ["iso", "optimumk"])
@pytest.mark.parametrize("ids", [None, {"roll_camber", "steering_ratio", "motion_ratio"}])
def test_rate_columns_equal_the_plain_form(
    car_model: suspension_sim.Model, convention: str, ids: AbstractSet[str] | None
) -> None:
    st = wheel_set(car_model)
    assert st.names  # every example car has wheels
    S, n_w = 89, len(st.names)
    g, _ = random_states(car_model, st, S, seed=n_w + 11)
    rng = np.random.default_rng(n_w)
    cols = n_w + (1 if st.has_rack else 0)
    v_C = rng.normal(scale=0.5, size=(S, n_w, cols, 3))
    v_A = v_C + rng.normal(scale=0.01, size=v_C.shape)
    v_C[: S // 5, :, 0] = 0.0  # a column that moves nothing
    Wd = rng.normal(scale=0.8, size=(S, len(st.dampers), cols))
    pre = preset(convention)
    got = rate_columns(st, g, v_C, v_A, Wd, pre, ids)
    want = reference_rate_columns(st, g, v_C, v_A, Wd, pre, ids)
    assert set(got) == set(want) and want
    for slot, v in want.items():
        assert same(got[slot], v), slot


def test_duals_get_the_plain_form_values_and_derivatives() -> None:
    """The rate metrics `explore.sensitivity` differentiates, on Duals: the values and the
    derivatives of the plain form."""
    model = suspension_sim.load(ROOT / "workbooks" / "fsae_car.xlsx")
    st = wheel_set(model)
    S, n_w = 5, len(st.names)
    g, _ = random_states(model, st, S, seed=2)
    rng = np.random.default_rng(4)
    cols = n_w + (1 if st.has_rack else 0)
    v_C = rng.normal(scale=0.5, size=(S, n_w, cols, 3))
    v_A = v_C + rng.normal(scale=0.01, size=v_C.shape)
    Wd = rng.normal(scale=0.8, size=(S, len(st.dampers), cols))
    gd, v_Cd = dual_states(g, v_C, seed=8)
    v_Ad: DualArray = Dual(v_A, rng.normal(size=(2, *v_A.shape)))
    Wdd: DualArray = Dual(Wd, rng.normal(size=(2, *Wd.shape)))
    for convention in ("iso", "optimumk"):
        pre = preset(convention)
        ids = sensitivity.RATE_IDS
        got: dict[Slot, DualArray] = rate_columns(st, gd, v_Cd, v_Ad, Wdd, pre, ids)
        want: dict[Slot, DualArray] = reference_rate_columns(st, gd, v_Cd, v_Ad, Wdd, pre, ids)
        assert set(got) == set(want) and want
        for slot, v in want.items():
            assert same(got[slot].val, v.val) and same(got[slot].der, v.der), slot
