"""What the statics of one model needs that does not change with the pose.

`load_layout` builds it once per model (kept in ``model.derived``): which
parameters are unknowns and which inputs, the bodies with equilibrium
equations, the pairs that hold by construction, two-force members and
wishbones, the fixed index arrays of the body equations, and the block
structure of the three linear systems (multipliers, body equations, jacking).
Split from `suspension_sim.loads.statics` so the per-pose solve there reads on
its own; behaviour and numbers are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.description import CHASSIS, wheel_layout
from suspension_sim.loads.blocks import BlockPattern, block_pattern
from suspension_sim.metrics.geometry import wheel_set

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


@dataclass(frozen=True)
class LoadLayout:
    """What the statics of one model needs and does not change with the pose."""

    x: np.ndarray  # unknown parameter indices
    u: np.ndarray  # input parameter indices (strokes, then rack)
    inputs: tuple[str, ...]  # damper bodies, then "rack"
    act: np.ndarray  # active pair indices (Jacobian rows / 3)
    struct: np.ndarray  # pairs that hold by construction
    bodies: tuple[str, ...]  # bodies with equilibrium equations (not the chassis or rack)
    inst_body: np.ndarray  # per copy: index into bodies, -1 = chassis or rack
    incidence: np.ndarray  # (n_bodies, n_inst) 0/1
    rack_inst: np.ndarray  # copies on the rack body
    wheels: tuple[str, ...]
    wheel_body: np.ndarray  # index into bodies of each wheel's carrier
    wheel_part: np.ndarray
    brake_inboard: np.ndarray  # bool per wheel
    drive_inboard: np.ndarray
    two_force: dict[int, tuple[int, int]]  # body -> its two joined copies
    arms: np.ndarray  # (n_arms, 5): body, pivot pairs A and B, their copies on the arm
    arm_outer: np.ndarray  # (n_arms,) outer copy (on the arm)
    body_ref: np.ndarray  # a reference copy of each body (moments about it)
    act_incidence: np.ndarray  # (n_inst, n_act): +1 on copy b, -1 on copy a of each pair
    side_inst: np.ndarray  # copies on a body at each end of the construction pairs
    side_sign: np.ndarray  # +1 copy b, -1 copy a
    side_flat: np.ndarray  # their 18 places each in the flat (6 n_b, 3 n_s) matrix
    lambda_blocks: BlockPattern  # of J_x^T (unknowns x residual rows)
    struct_blocks: BlockPattern  # of the body equations (6 per body x 3 per pair)
    jacking_blocks: BlockPattern  # of [J; contact-patch heights] (rows x jacking_params)
    jacking_params: np.ndarray  # every parameter but the rack's (held in jacking)


def load_layout(model: KinematicModel) -> LoadLayout:
    """The model's `LoadLayout`, built once and kept in ``model.derived``."""
    return model.derived.get(("loads", "layout"), lambda: _build_layout(model))


def _build_layout(model: KinematicModel) -> LoadLayout:
    car = model.car
    u = model.input_params()
    x = np.setdiff1d(np.arange(model.n_params), u)
    inputs = list(model.damper_names)
    if model.topology.rack_param is not None:
        inputs.append("rack")
    act = np.asarray(model.active_pairs, dtype=int)
    struct = np.setdiff1d(np.arange(len(model.pair_a)), act)
    rack = car.rack.body if car.rack else None
    bodies = tuple(b.name for b in car.bodies if b.name not in (CHASSIS, rack))
    index = {b: i for i, b in enumerate(bodies)}
    inst_body = np.array([index.get(b, -1) for b in model.inst_body], dtype=int)
    n_inst = len(model.inst_body)
    incidence = np.zeros((len(bodies), n_inst))
    on = inst_body >= 0
    incidence[inst_body[on], np.flatnonzero(on)] = 1.0
    rack_inst = np.array([i for i, b in enumerate(model.inst_body) if b == rack], dtype=int)

    st = wheel_set(model)
    layout = wheel_layout(car)
    opts = car.options
    rear = np.array([a == "rear" for a in layout.axle], dtype=bool)
    brake_inboard = np.where(rear, opts.rear_brakes_inboard, opts.front_brakes_inboard)
    drive_inboard = np.full(len(st.names), bool(opts.drive_inboard))

    # Joined copies of each body (a copy in some pair).
    joined = np.zeros(n_inst, dtype=bool)
    joined[model.pair_a] = joined[model.pair_b] = True
    copies: dict[int, list[int]] = {}
    for i in np.flatnonzero(joined & on):
        copies.setdefault(int(inst_body[i]), []).append(int(i))
    kinds = {j.body: j.kind for j in model.topology.joints}
    two_force: dict[int, tuple[int, int]] = {}
    for b, idx in copies.items():
        kind = kinds.get(bodies[b])
        if len(idx) == 2 and kind in ("link5", "universal", "damper"):
            two_force[b] = (idx[0], idx[1])
    # Wishbones: revolute bodies with two pivots that hold a point of a wheel carrier.
    carriers = {w.body for w in car.wheels}
    carrier_points = {p for b in car.bodies if b.name in carriers for p in b.points}
    arms: list[list[int]] = []
    outer: list[int] = []
    struct_of: dict[int, list[int]] = {}
    for s in struct:
        b = int(inst_body[model.pair_b[s]])
        if b >= 0:
            struct_of.setdefault(b, []).append(int(s))
    for b, pairs in struct_of.items():
        if kinds.get(bodies[b]) != "revolute" or len(pairs) != 2:
            continue
        pivots = {model.pair_b[s] for s in pairs}
        others = [i for i in copies.get(b, []) if i not in pivots]
        ball = [i for i in others if model.inst_point[i] in carrier_points]
        if len(ball) != 1:
            continue
        arms.append([b, pairs[0], pairs[1], model.pair_b[pairs[0]], model.pair_b[pairs[1]]])
        outer.append(ball[0])
    return LoadLayout(
        x=x,
        u=u,
        inputs=tuple(inputs),
        act=act,
        struct=struct,
        bodies=bodies,
        inst_body=inst_body,
        incidence=incidence,
        rack_inst=rack_inst,
        wheels=st.names,
        wheel_body=np.array([index[w.body] for w in car.wheels], dtype=int),
        wheel_part=st.part,
        brake_inboard=np.asarray(brake_inboard, dtype=bool),
        drive_inboard=drive_inboard,
        two_force=two_force,
        arms=np.array(arms, dtype=int).reshape(-1, 5),
        arm_outer=np.array(outer, dtype=int),
        **_equations(model, act, struct, inst_body, len(bodies)),
        **_patterns(model, x, struct, inst_body, len(bodies), st.part),
    )


def _equations(
    model: KinematicModel,
    act: np.ndarray,
    struct: np.ndarray,
    inst_body: np.ndarray,
    n_bodies: int,
) -> dict[str, Any]:
    """Fixed index arrays of the body equations (`suspension_sim.loads.statics`)."""
    n_inst = len(inst_body)
    body_ref = np.zeros(n_bodies, dtype=int)
    for b in range(n_bodies):
        on = np.flatnonzero(inst_body == b)
        body_ref[b] = on[0] if len(on) else 0
    act_incidence = np.zeros((n_inst, len(act)))
    act_incidence[model.pair_b[act], np.arange(len(act))] += 1.0
    act_incidence[model.pair_a[act], np.arange(len(act))] -= 1.0
    act_incidence[inst_body < 0] = 0.0  # the chassis and the rack have no equations
    side_inst: list[int] = []
    side_sign: list[float] = []
    flat: list[np.ndarray] = []
    width = 3 * len(struct)
    for k, pair in enumerate(struct):
        for inst, sign in ((model.pair_b[pair], 1.0), (model.pair_a[pair], -1.0)):
            b = int(inst_body[inst])
            if b < 0:
                continue
            rr, cc = np.meshgrid(6 * b + np.arange(6), 3 * k + np.arange(3), indexing="ij")
            side_inst.append(int(inst))
            side_sign.append(sign)
            flat.append((rr * width + cc).ravel())
    return {
        "body_ref": body_ref,
        "act_incidence": act_incidence,
        "side_inst": np.array(side_inst, dtype=int),
        "side_sign": np.array(side_sign, dtype=float),
        "side_flat": np.concatenate(flat) if flat else np.zeros(0, dtype=int),
    }


def _patterns(
    model: KinematicModel,
    x: np.ndarray,
    struct: np.ndarray,
    inst_body: np.ndarray,
    n_bodies: int,
    wheel_part: np.ndarray,
) -> dict[str, Any]:
    """Block structure of the three linear systems, from the sparsity alone."""
    jl = model.layout(np.arange(model.n_params))
    m, n = jl.shape
    col_of = np.full(n, -1)
    col_of[x] = np.arange(len(x))
    on_x = col_of[jl.indices] >= 0
    lam = block_pattern(col_of[jl.indices][on_x], jl.rows[on_x], len(x), m)
    r_list: list[np.ndarray] = [np.zeros(0, dtype=int)]
    c_list: list[np.ndarray] = [np.zeros(0, dtype=int)]
    for k, pair in enumerate(struct):
        for inst in (model.pair_a[pair], model.pair_b[pair]):
            b = int(inst_body[inst])
            if b >= 0:  # six equations of body b meet the three force components of pair k
                rr, cc = np.meshgrid(6 * b + np.arange(6), 3 * k + np.arange(3), indexing="ij")
                r_list.append(rr.ravel())
                c_list.append(cc.ravel())
    r_idx, c_idx = np.concatenate(r_list), np.concatenate(c_list)
    structural = block_pattern(r_idx, c_idx, 6 * n_bodies, 3 * len(struct))
    keep = np.setdiff1d(
        np.arange(n), [model.topology.rack_param] if model.topology.rack_param is not None else []
    )
    new_col = np.full(n, -1)
    new_col[keep] = np.arange(len(keep))
    kept = new_col[jl.indices] >= 0
    jr, jc = [jl.rows[kept]], [new_col[jl.indices][kept]]
    for w, part in enumerate(wheel_part):
        params = np.array(model.parts[part].params, dtype=int)
        params = params[new_col[params] >= 0]
        jr.append(np.full(len(params), m + w))
        jc.append(new_col[params])
    jacking = block_pattern(np.concatenate(jr), np.concatenate(jc), m + len(wheel_part), len(keep))
    return {
        "lambda_blocks": lam,
        "struct_blocks": structural,
        "jacking_blocks": jacking,
        "jacking_params": keep,
    }
