"""Joint forces in OptimumK's naming and signs (docs/loads.md, "OptimumK's force channels").

OptimumK reports, per step of a force result, ``"<A> To <B>[ (<leg>)] - F<x|y|z>|M<x|y|z>
[<Axle> <Side>]"``: the force (N) and moment (N m) that body A exerts on body B at their
joint, world axes, so every ``A To B`` is minus ``B To A``; ``Contact Patch`` is the
ground's force and moment on the tyre (Fz + = up); ``Steering Torque [Front] Mz`` the
torque at the steering wheel (N m). `optimumk_forces` gives those channels for a car
imported from OptimumK (`suspension_sim.workbook.optimumk`, body names
``FL_LowerAArm``, ``FL_UpperAArm``, ``FL_Upright``, ``FL_TieRod``, ``FL_PushPull``,
``FL_Rocker``, ``FL_Coilover``, ``Rack``, ``Chassis``) from our statics
(`suspension_sim.loads.statics`), with the coilover a plain two-force member whose
force comes from statics, as OptimumK's does (force elements' stiffness left out).

`read_force_keys` reads OptimumK's force-case keyframes in a small CSV of ours, and
`cases_per_step` ramps them (or holds a workbook case) over ``Motion [Completion
Percentage]``.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.description import CHASSIS, wheel_layout
from suspension_sim.errors import InputError
from suspension_sim.loads.cases import APPLICATIONS, Application, LoadCase, WheelLoad
from suspension_sim.loads.elements import elements_of
from suspension_sim.loads.statics import Statics, statics
from suspension_sim.names import did_you_mean

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel
    from suspension_sim.solve.pose import Pose

ROLES: dict[str, str] = {
    "LowerAArm": "Lower A-Arm",
    "UpperAArm": "Upper A-Arm",
    "Upright": "Upright",
    "TieRod": "Tie Rod",
    "PushPull": "Push/Pull",
    "Rocker": "Rocker",
    "Coilover": "CoilOver",
}
"""Our body name after the corner prefix (``FL_LowerAArm``) -> OptimumK's body name."""
RACK = "Rack"
"""OptimumK-style name we give the steering rack (the tie rods' inner joints); ours."""
LEGS: dict[str, str] = {
    "CHAS_LowFor": "Fore",
    "CHAS_LowAft": "Aft",
    "CHAS_UppFor": "Fore",
    "CHAS_UppAft": "Aft",
}
"""An A-arm's chassis pivots (OptimumK point name) -> the leg word in the channel name."""
PIVOT = "CHAS_RocPiv"
"""The rocker's pivot point: ``Rocker To Chassis`` is one resultant, its moment about it."""
COMPONENTS: tuple[str, ...] = ("Fx", "Fy", "Fz", "Mx", "My", "Mz")
CONTACT_PATCH = "Contact Patch"
STEERING_TORQUE = "Steering Torque [{axle}] Mz"
KEY_COLUMNS: tuple[str, ...] = ("wheel", "percent", "Fx", "Fy", "Fz", "Mx", "My", "Mz")
"""Columns of a force-keys CSV (`read_force_keys`)."""


@dataclass(frozen=True)
class Joint:
    """One joint between two bodies, in OptimumK's names.

    a, b: OptimumK body names (the channel ``a To b`` is the force on b from a);
    leg: ``Fore``/``Aft`` for an A-arm's chassis pivots, else ""; corner: ``Front Left``
    ...; on_a, on_b: the model's copies of the joint's points on our bodies a and b (one
    per point; the rocker's bearing has two); about: index into on_a/on_b of the point
    the moment is taken about.
    """

    a: str
    b: str
    leg: str
    corner: str
    on_a: tuple[int, ...]
    on_b: tuple[int, ...]
    about: int = 0

    def name(self, component: str, reverse: bool = False) -> str:
        """The channel name, e.g. ``Lower A-Arm To Chassis (Fore) - Fx [Front Left]``."""
        a, b = (self.b, self.a) if reverse else (self.a, self.b)
        leg = f" ({self.leg})" if self.leg else ""
        return f"{a} To {b}{leg} - {component} [{self.corner}]"


def corner_names(model: KinematicModel) -> dict[str, str]:
    """Wheel name -> OptimumK's corner words (``Front Left``), from the wheel layout."""
    layout = wheel_layout(model.car)
    return {
        w: f"{axle.title()} {side.title()}"
        for w, axle, side in zip(layout.names, layout.axle, layout.side, strict=True)
    }


def _role(body: str, wheels: Mapping[str, str], rack: str | None) -> tuple[str, str] | None:
    """(OptimumK body name, corner wheel or "") of one of our bodies, None if unknown."""
    if body == CHASSIS:
        return "Chassis", ""
    if rack is not None and body == rack:
        return RACK, ""
    prefix, _, role = body.partition("_")
    if prefix in wheels and role in ROLES:
        return ROLES[role], prefix
    return None


def optimumk_joints(model: KinematicModel) -> tuple[Joint, ...]:
    """Every joint of an OptimumK-imported car between two named bodies (see `ROLES`).

    A point held by exactly two bodies is one joint; an A-arm's two chassis pivots are
    two (legs Fore and Aft); the rocker's two chassis points are one bearing (moment
    about ``CHAS_RocPiv``). InputError when the car has no such body (not an
    OptimumK import: docs/optimumk.md names the bodies).
    """
    corners = corner_names(model)
    rack = model.car.rack.body if model.car.rack else None
    copies: dict[str, list[int]] = {}
    joined = set(int(i) for i in model.pair_a) | set(int(i) for i in model.pair_b)
    for i in sorted(joined):
        copies.setdefault(model.inst_point[i], []).append(i)
    groups: dict[tuple[str, str, str, str], list[tuple[str, int, int]]] = {}
    for point, idx in copies.items():
        if len(idx) != 2:
            continue
        found = [_role(model.inst_body[i], corners, rack) for i in idx]
        roles = [r for r in found if r is not None]
        if len(roles) != 2:
            continue
        wheel = roles[0][1] or roles[1][1]
        if not wheel or roles[0][0] == roles[1][0]:
            continue
        # A is the outer body of the pair in OptimumK's listing: the one that is not the
        # chassis (or rack); between two corner bodies, the order OptimumK writes below.
        order = [0, 1] if _rank(roles[0][0]) <= _rank(roles[1][0]) else [1, 0]
        ia, ib = (idx[k] for k in order)
        a, b = (roles[k][0] for k in order)
        local = point.split("_", 1)[1] if "_" in point else point
        leg = LEGS.get(local, "") if b == "Chassis" and "A-Arm" in a else ""
        groups.setdefault((a, b, leg, corners[wheel]), []).append((local, ia, ib))
    if not groups:
        raise InputError(
            "no joint of this car has OptimumK's body names (FL_LowerAArm, FL_Upright, ...)",
            hint="the OptimumK force channels are for cars imported with import-optimumk "
            "(docs/optimumk.md)",
        )
    out = []
    for (a, b, leg, corner), members in groups.items():
        names = [m[0] for m in members]
        about = names.index(PIVOT) if PIVOT in names else 0
        out.append(
            Joint(
                a, b, leg, corner, tuple(m[1] for m in members), tuple(m[2] for m in members), about
            )
        )
    return tuple(out)


_ORDER = ("Lower A-Arm", "Upper A-Arm", "Tie Rod", "Push/Pull", "CoilOver", "Rocker", "Upright")


def _rank(name: str) -> int:
    """Which body comes first in ``A To B`` (the arms and links before what they hold)."""
    return _ORDER.index(name) if name in _ORDER else len(_ORDER)


def joint_channels(
    model: KinematicModel, st: Statics, joints: Sequence[Joint] | None = None
) -> dict[str, np.ndarray]:
    """Every joint's ``A To B`` and ``B To A`` channels from a `Statics` (B poses, C
    cases): arrays (B, C), world axes, N and N m. ``A To B`` is read from the copies on
    B, ``B To A`` from the copies on A (the pairs' two sides), moments about the joint's
    `about` point (0 at a ball joint)."""
    if st.inst_force is None:
        raise InputError("these statics kept no per-copy forces")
    out: dict[str, np.ndarray] = {}
    for j in joints if joints is not None else optimumk_joints(model):
        for reverse, on in ((False, j.on_b), (True, j.on_a)):
            f = np.einsum("bij,bnjc->bnic", st.R, st.inst_force[:, list(on)])  # (B, n, 3, C)
            p = np.einsum("bij,bnj->bni", st.R, st.P[:, list(on)])
            arm = p - p[:, j.about : j.about + 1]
            m = np.cross(arm[:, :, None, :], np.swapaxes(f, 2, 3)).sum(axis=1) / 1000.0
            total = f.sum(axis=1)  # (B, 3, C)
            for k, comp in enumerate(COMPONENTS[:3]):
                out[j.name(comp, reverse)] = total[:, k]
            for k, comp in enumerate(COMPONENTS[3:]):
                out[j.name(comp, reverse)] = m[:, :, k]  # m: (B, C, 3)
    return out


def steering_torque(model: KinematicModel, st: Statics) -> dict[str, np.ndarray]:
    """``Steering Torque [<axle>] Mz`` (B, C) N m: the tie rods' force on the rack along
    its axis (+Y-pointing, carried by the chassis) times the rack travel per radian of
    steering wheel (m/rad): the torque the loads put on the steering wheel. The sign is
    OptimumK's own, read from the ten force results of a public team project (equal at
    every step; docs/loads.md). {} without a rack or a steering ratio."""
    car = model.car
    rack = car.rack
    if rack is None or not rack.ratio_mm_per_deg or st.inst_force is None:
        return {}
    corners = corner_names(model)
    ends = np.array([car.point(p) for p in rack.end_points], dtype=float)
    axis = ends[1] - ends[0]
    axis = axis / np.linalg.norm(axis) * (1.0 if axis[1] >= 0 else -1.0)
    on_rack = [
        i
        for i, b in enumerate(model.inst_body)
        if b == rack.body and i in set(model.pair_a) | set(model.pair_b)
    ]
    axle = "Front"
    for i in on_rack:
        prefix = model.inst_point[i].split("_", 1)[0]
        if prefix in corners:
            axle = corners[prefix].split()[0]
    along = np.einsum("bnic,i->bc", st.inst_force[:, on_rack], axis)  # chassis frame
    per_rad = rack.ratio_mm_per_deg * 180.0 / math.pi / 1000.0  # m of rack per rad
    return {STEERING_TORQUE.format(axle=axle): along * per_rad}


def contact_channels(
    model: KinematicModel, force: np.ndarray, moment: np.ndarray
) -> dict[str, np.ndarray]:
    """``Contact Patch - F.|M. [corner]`` from the ground's force (B, n_w, 3) N and moment
    (B, n_w, 3) N m on each tyre, world axes."""
    corners = corner_names(model)
    out: dict[str, np.ndarray] = {}
    for w, wheel in enumerate(w.name for w in model.car.wheels):
        for k, comp in enumerate(COMPONENTS):
            value = force[:, w, k] if k < 3 else moment[:, w, k - 3]
            out[f"{CONTACT_PATCH} - {comp} [{corners[wheel]}]"] = value
    return out


def optimumk_forces(
    model: KinematicModel,
    poses: Sequence[Pose | None],
    cases: LoadCase | Sequence[LoadCase],
    *,
    stiffness: bool = False,
) -> dict[str, np.ndarray]:
    """OptimumK's force channels at every step: name -> (n_steps,) array, N and N m,
    world axes (NaN where a pose is None or did not close).

    poses: one per step (e.g. `OptimumKMotion.poses`); cases: one `LoadCase` per step
    (`cases_per_step`) or one case for every step; their wheel loads in world axes,
    forces N, moments N m, without brake or drive torques (OptimumK's cases have none);
    the application as each load says (OptimumK: "design"). stiffness: False (as
    OptimumK) leaves out the stiffness of third springs and anti-roll bars, so every
    spring and damper is a plain two-force member whose force comes from statics;
    True keeps their forces at the pose (docs/loads.md).

    Statics is linear in the loads: it is solved once for all poses with one unit case
    per wheel, component and application used, and combined per step.
    """
    poses = list(poses)
    n = len(poses)
    per_step = [cases] * n if isinstance(cases, LoadCase) else list(cases)
    if len(per_step) != n:
        raise InputError(f"{len(per_step)} load cases for {n} steps", where="cases")
    names = [w.name for w in model.car.wheels]
    apps: list[Application] = []
    for case in per_step:
        for wheel, load in case.wheels.items():
            if wheel not in names:
                raise InputError(
                    f"load case {case.name!r}: no wheel {wheel!r} in this car."
                    + did_you_mean(wheel, names),
                    where=case.where,
                )
            if load.axes != "world" or load.brake_torque or load.drive_torque:
                raise InputError(
                    f"load case {case.name!r}, wheel {wheel}: OptimumK's force cases are "
                    "world-axes forces and moments, without brake or drive torques",
                    where=case.where,
                    hint="give the loads in world axes; a torque about the spin axis as My",
                )
            if load.application not in apps:
                apps.append(load.application)
    apps = apps or ["design"]
    ok = [i for i, p in enumerate(poses) if p is not None and p.converged]
    result: dict[str, np.ndarray] = {}
    if not ok:
        return result
    # Unit cases: wheel x application x component, plus the zero case (force elements).
    basis: list[LoadCase] = [LoadCase("zero", {})]
    slot: dict[tuple[str, str, int], int] = {}
    for wheel in names:
        for app in apps:
            for k in range(6):
                one = [0.0, 0.0, 0.0]
                one[k % 3] = 1.0
                e = (one[0], one[1], one[2])
                zero = (0.0, 0.0, 0.0)
                load = WheelLoad(e if k < 3 else zero, moment=zero if k < 3 else e, application=app)
                slot[(wheel, app, k)] = len(basis)
                basis.append(LoadCase(f"{wheel} {app} {COMPONENTS[k]}", {wheel: load}))
    el = elements_of(model)
    if el.n and not stiffness:
        el = dataclasses.replace(el, rate=np.zeros_like(el.rate), preload=np.zeros_like(el.preload))
    st = statics([poses[i] for i in ok], basis, el)  # type: ignore[misc]
    B = len(ok)
    coef = np.zeros((B, len(basis)))
    coef[:, 0] = 1.0
    force = np.zeros((B, len(names), 3))
    moment = np.zeros((B, len(names), 3))
    for b, i in enumerate(ok):
        for wheel, load in per_step[i].wheels.items():
            w = names.index(wheel)
            force[b, w], moment[b, w] = load.force, load.moment
            for k, v in enumerate((*load.force, *load.moment)):
                coef[b, slot[(wheel, load.application, k)]] = v

    def combine(values: np.ndarray) -> np.ndarray:
        """(B, K) per basis case -> (B,) per step: zero case + sum coef (unit - zero)."""
        return values[:, 0] + np.einsum("bk,bk->b", coef[:, 1:], values[:, 1:] - values[:, :1])

    channels = joint_channels(model, st)
    channels.update(steering_torque(model, st))
    for name, values in channels.items():
        full = np.full(n, np.nan)
        full[ok] = combine(values)
        result[name] = full
    for name, values in contact_channels(model, force, moment).items():
        full = np.full(n, np.nan)
        full[ok] = values
        result[name] = full
    return result


# -- force-case keyframes ------------------------------------------------------------------
@dataclass(frozen=True)
class ForceKeys:
    """OptimumK force-case keyframes: per wheel, rows (completion %, Fx, Fy, Fz N, Mx, My,
    Mz N m) sorted by completion, world axes; linear between keys, the end values held
    outside them. application: where the forces act (OptimumK: "design")."""

    wheels: Mapping[str, np.ndarray]
    application: Application = "design"
    name: str = "force case"


def read_force_keys(
    path: str | Path, model: KinematicModel, application: Application = "design"
) -> ForceKeys:
    """A force-keys CSV (docs/loads.md, "OptimumK force cases"): header ``wheel, percent,
    Fx, Fy, Fz, Mx, My, Mz`` (blank moments = 0), one row per wheel and key, forces in
    N and moments in N m, world axes. The wheel is the car's wheel name (FL) or
    OptimumK's corner words (Front Left). InputError naming file:line for a bad row."""
    p = Path(path)
    if application not in APPLICATIONS:
        raise InputError(f"application {application!r} is not one of {', '.join(APPLICATIONS)}")
    corners = corner_names(model)
    by_words = {v.casefold(): k for k, v in corners.items()}
    try:
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read the force keys: {exc.strerror}", where=str(p)) from None
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise InputError("the force-keys file is empty", where=str(p), hint=_KEYS_HINT)
    header = [h.strip() for h in rows[0]]
    lowered = [h.casefold() for h in header]
    missing = [c for c in KEY_COLUMNS[:5] if c.casefold() not in lowered]
    if missing:
        raise InputError(f"the header lacks column {missing[0]!r}", where=f"{p}:1", hint=_KEYS_HINT)
    col = {c: lowered.index(c.casefold()) if c.casefold() in lowered else -1 for c in KEY_COLUMNS}
    keys: dict[str, list[list[float]]] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        where = f"{p}:{line}"
        cell = row[col["wheel"]].strip() if col["wheel"] < len(row) else ""
        wheel = cell if cell in corners else by_words.get(cell.casefold())
        if wheel is None:
            raise InputError(
                f"no wheel {cell!r} in this car." + did_you_mean(cell, list(corners)),
                where=where,
                hint=f"the wheels are {', '.join(f'{k} ({v})' for k, v in corners.items())}",
            )
        values = []
        for c in KEY_COLUMNS[1:]:
            k = col[c]
            raw = row[k].strip() if 0 <= k < len(row) else ""
            if not raw and c in ("Mx", "My", "Mz"):
                values.append(0.0)
                continue
            try:
                v = float(raw)
            except ValueError:
                v = math.nan
            if not math.isfinite(v):
                raise InputError(f"{c} must be a number, found {raw!r}", where=where)
            values.append(v)
        if not 0.0 <= values[0] <= 100.0:
            raise InputError(
                f"percent must lie in 0..100, found {values[0]:g}",
                where=where,
                hint="the completion percentage of the motion at which the key holds",
            )
        keys.setdefault(wheel, []).append(values)
    if not keys:
        raise InputError("no keys in the file", where=str(p), hint=_KEYS_HINT)
    wheels: dict[str, np.ndarray] = {}
    for wheel, rows_w in keys.items():
        arr = np.array(rows_w, dtype=float)
        arr = arr[np.argsort(arr[:, 0], kind="stable")]
        if np.any(np.diff(arr[:, 0]) == 0):
            raise InputError(
                f"wheel {wheel} has two keys at one completion percentage", where=str(p)
            )
        wheels[wheel] = arr
    return ForceKeys(wheels, application, p.stem)


_KEYS_HINT = "columns: wheel, percent, Fx, Fy, Fz, Mx, My, Mz (N, N m, world axes)"


def cases_per_step(
    source: ForceKeys | LoadCase, completion_percent: Sequence[float] | np.ndarray
) -> list[LoadCase]:
    """One `LoadCase` per step: the keys interpolated linearly at each step's
    ``Motion [Completion Percentage]`` (held at the end keys outside them), or a
    workbook case held constant (as it is, its own application)."""
    pct = np.asarray(completion_percent, dtype=float).reshape(-1)
    if isinstance(source, LoadCase):
        return [dataclasses.replace(source, name=f"{source.name} {i}") for i in range(len(pct))]
    out = []
    for i, x in enumerate(pct):
        if not math.isfinite(x):
            raise InputError(f"completion percentage of step {i} is not a number")
        loads = {}
        for wheel, keys in source.wheels.items():
            v = [float(np.interp(x, keys[:, 0], keys[:, k])) for k in range(1, 7)]
            assert len(v) == 6
            loads[wheel] = WheelLoad(
                (v[0], v[1], v[2]),
                moment=(v[3], v[4], v[5]),
                application=source.application,
            )
        out.append(LoadCase(f"{source.name} {i}", loads))
    return out
