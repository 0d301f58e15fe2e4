"""Load tables: the force at every joined point, member forces, inputs, jacking.

`solve_loads(pose, cases)` and `sweep_loads(poses, cases)` run the statics
(`suspension_sim.loads.statics`) and lay the results out as tables, world
frame, N (docs/loads.md, "Tables").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from suspension_sim.description import CHASSIS, wheel_layout
from suspension_sim.errors import InputError
from suspension_sim.loads.blocks import compile_blocks, load_if_cached
from suspension_sim.loads.cases import LoadCase
from suspension_sim.loads.elements import T_BAR, THIRD
from suspension_sim.loads.statics import (
    APPLIED,
    BASIS_ORDER,
    EXACT,
    LEGS,
    MIN_NORM,
    Statics,
    load_layout,
    occurrence_layers,
    scatter_add,
    statics,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.solve.pose import Pose

FORCE_COLUMNS: tuple[str, ...] = (
    "case",
    "body",
    "point",
    "member",
    "Fx_N",
    "Fy_N",
    "Fz_N",
    "F_N",
    "axial_N",
    "basis",
    "determinate",
)
"""Columns of `LoadResult.table` (a sweep adds ``step`` first)."""
ELEMENT_COLUMNS: tuple[str, ...] = (
    "case",
    "element",
    "kind",
    "deflection",
    "unit",
    "force_N",
    "torque_Nm",
    "Mx_Nm",
    "My_Nm",
    "Mz_Nm",
)
"""Columns of `LoadResult.elements` (a sweep adds ``step`` first)."""
RACK_MOUNTS = "(rack mounts)"
"""Point name of the rack assembly's total force on the chassis."""


COMPILE_WITH_SOLVER_POSES = 20
"""A sweep of at least this many poses, in a process where the compiled solver is
loaded, compiles the compiled block kernel when it is not on disk yet (once per user,
~10-20 s; later processes load it): a sweep solved by the compiled kernel then does
not get its loads from the slower numpy path."""


@dataclass(frozen=True)
class LoadResult:
    """Loads of one pose (or a sweep of poses) under named cases, world frame, N.

    table: the force ON the body named at each of its joined points (Fx, Fy,
    Fz, magnitude F), the chassis rows holding the resultant at each pickup;
    ``member`` and ``axial_N`` (+ = tension) for two-force members and wishbone
    legs; ``basis`` says how the value was found and ``determinate`` whether
    statics fixes it. A third spring adds a row at each end (member = its name,
    ``axial_N`` + = tension, so its force with the sign turned): the body it acts
    on there, a ``Chassis`` row when that end is on the chassis. inputs: damper
    forces (+ = compression) and the rack force. jacking: per wheel and axle (+ =
    lifts the chassis). elements: per case (and step) and force element (third
    springs, anti-roll bars): ``deflection`` (compression mm, + = shorter; twist
    deg), ``force_N`` (third spring, + pushes its ends apart) or ``torque_Nm`` (bar,
    = rate x twist) and, for a T-bar, its moment on the chassis (``Mx_Nm``,
    ``My_Nm``, ``Mz_Nm``, world); empty when the car has none.
    determinate: False when the mechanism has redundant joints (the minimum-norm
    forces are shown, labelled); message says which.
    """

    cases: tuple[str, ...]
    table: pd.DataFrame
    inputs: pd.DataFrame
    jacking: pd.DataFrame
    determinate: bool
    message: str
    raw: Statics = field(repr=False)
    elements: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ELEMENT_COLUMNS))

    def members(self) -> pd.DataFrame:
        """One row per member (two-force link, damper, wishbone leg) and case: axial force."""
        rows = self.table[self.table["member"] != ""]
        keys = [c for c in ("step", "case") if c in rows.columns] + ["member"]
        out = rows.drop_duplicates(keys)
        return out[[*keys, "body", "axial_N", "basis", "determinate"]].reset_index(drop=True)

    def pickups(self) -> pd.DataFrame:
        """The resultant load on the chassis at every pickup (rows of body Chassis)."""
        return self.table[self.table["body"] == CHASSIS].reset_index(drop=True)

    def case(self, name: str) -> pd.DataFrame:
        """The table rows of one case."""
        if name not in self.cases:
            from suspension_sim.names import did_you_mean

            raise InputError(
                f"no load case {name!r}." + did_you_mean(name, self.cases),
                hint=f"the cases are {', '.join(self.cases)}",
            )
        return self.table[self.table["case"] == name].reset_index(drop=True)


def as_cases(cases: LoadCase | Iterable[LoadCase]) -> list[LoadCase]:
    """One case or several -> a list; InputError for a repeated name or a non-case."""
    out = [cases] if isinstance(cases, LoadCase) else list(cases)
    seen: set[str] = set()
    for c in out:
        if not isinstance(c, LoadCase):
            raise InputError(f"{c!r} is not a LoadCase", hint="build cases with LoadCase(...)")
        if c.name in seen:
            raise InputError(f"load case {c.name!r} is given twice", where=c.where)
        seen.add(c.name)
    return out


def solve_loads(pose: Pose, cases: LoadCase | Iterable[LoadCase]) -> LoadResult:
    """Loads in every joint of a solved pose for each case (docs/loads.md)."""
    return _result([pose], as_cases(cases), sweep=None)


def sweep_loads(
    poses: Sequence[Pose],
    cases: LoadCase | Iterable[LoadCase],
    steps: Sequence[int] | None = None,
) -> LoadResult:
    """`solve_loads` for every pose of a sweep at once; tables gain a ``step`` column.

    steps: the label of each pose in that column (e.g. a `SweepResult`'s ``steps``);
    default 0, 1, 2, ...
    """
    poses = list(poses)
    labels = np.arange(len(poses)) if steps is None else np.asarray(list(steps), dtype=int)
    if len(labels) != len(poses):
        raise InputError(f"{len(labels)} step labels for {len(poses)} poses", where="steps")
    return _result(poses, as_cases(cases), sweep=labels)


def _result(poses: list[Pose], cases: list[LoadCase], sweep: np.ndarray | None) -> LoadResult:
    if not load_if_cached() and len(poses) >= COMPILE_WITH_SOLVER_POSES:
        from suspension_sim.solve import engine

        if engine.kernel_compiled() and engine.kernels_complete():  # once per user
            compile_blocks()
    st = statics(poses, cases)
    model = poses[0].model
    lay = load_layout(model)
    B, C = len(poses), len(cases)
    names = [c.name for c in cases]
    R = st.R

    # -- per copy: force on its body from every pair it is in -------------------------
    n_inst = len(model.inst_body)
    if st.inst_force is not None:
        force = st.inst_force
    else:
        force = np.zeros((B, n_inst, 3, C))
        scatter_add(force, model.pair_b, st.pair_force)
        scatter_add(force, model.pair_a, -st.pair_force)
    rank = st.pair_basis_code if st.pair_basis_code is not None else _basis_codes(st.pair_basis)
    worst = np.zeros((B, n_inst), dtype=int)
    for side in (model.pair_a, model.pair_b):  # np.maximum.at, one fancy op per layer
        for pos, idx in occurrence_layers(np.asarray(side), n_inst):
            worst[:, idx] = np.maximum(worst[:, idx], rank[:, pos])
    joined = np.zeros(n_inst, dtype=bool)
    joined[model.pair_a] = joined[model.pair_b] = True
    copies = np.flatnonzero(joined)
    # chassis copies last, so each body's rows come together and the pickups follow
    is_chassis = np.array([model.inst_body[i] == CHASSIS for i in copies])
    copies = np.concatenate([copies[~is_chassis], copies[is_chassis]])
    bodies = [model.inst_body[i] for i in copies]
    points = [model.inst_point[i] for i in copies]

    # -- members: two-force bodies and wishbone legs ------------------------------------
    member = np.array([""] * len(copies), dtype=object)
    axial = np.full((B, len(copies), C), np.nan)
    where = {int(i): r for r, i in enumerate(copies)}
    for b, (i1, i2) in lay.two_force.items():
        d = st.P[:, i2] - st.P[:, i1]
        d = d / np.linalg.norm(d, axis=-1, keepdims=True)
        value = np.einsum("bic,bi->bc", force[:, i2], d)
        for i in (i1, i2):
            member[where[i]] = lay.bodies[b]
            axial[:, where[i]] = value
    for k, (b, _sA, _sB, iA, iB) in enumerate(lay.arms):
        for leg, i in enumerate((iA, iB)):
            member[where[int(i)]] = f"{lay.bodies[b]} leg {model.inst_point[i]}"
            axial[:, where[int(i)]] = st.arm_axial[:, k, leg]

    F = np.matmul(R[:, None], force[:, copies])  # world frame (B, n, 3, C)
    parts_F = [F]
    parts_axial = [axial]
    parts_basis = [worst[:, copies]]
    bodies, points, members = list(bodies), list(points), list(member)

    # -- the rack assembly on the chassis, and the applied loads ---------------------------
    if len(lay.rack_inst):
        parts_F.append(np.einsum("bij,bjc->bic", R, st.rack_mount)[:, None])
        parts_axial.append(np.full((B, 1, C), np.nan))
        touching = st.pair_exact[:, _pairs_of(model, lay.rack_inst)]
        exact_rack = np.asarray(touching.all(axis=1), dtype=bool).reshape(B, 1)
        parts_basis.append(
            np.where(exact_rack, BASIS_ORDER.index(EXACT), BASIS_ORDER.index(MIN_NORM))
        )
        bodies.append(CHASSIS)
        points.append(RACK_MOUNTS)
        members.append("")
    el = st.elements
    if el is not None and el.n_springs:
        assert st.element_end_force is not None and st.element_force is not None
        ends = el.ends.reshape(-1)
        f_end = st.element_end_force.reshape(B, -1, 3)  # (B, 2 n_s, 3) chassis frame
        parts_F.append(np.repeat(np.einsum("bij,bnj->bni", R, f_end)[..., None], C, axis=3))
        tension = -np.repeat(st.element_force[:, : el.n_springs], 2, axis=1)
        parts_axial.append(np.repeat(tension[..., None], C, axis=2))
        parts_basis.append(np.full((B, len(ends)), BASIS_ORDER.index(EXACT)))
        bodies += [model.inst_body[i] for i in ends]
        points += [model.inst_point[i] for i in ends]
        members += [n for n in el.names[: el.n_springs] for _ in range(2)]
    wheels = list(lay.wheels)
    if wheels:
        parts_F.append(np.matmul(R[:, None], st.applied_force))
        parts_axial.append(np.full((B, len(wheels), C), np.nan))
        parts_basis.append(np.full((B, len(wheels)), BASIS_ORDER.index(APPLIED)))
        bodies += [lay.bodies[b] for b in lay.wheel_body]
        points += [f"{w} contact patch (applied)" for w in wheels]
        members += [""] * len(wheels)
    codes = np.concatenate(parts_basis, axis=1)
    table = _rows(
        np.concatenate(parts_F, axis=1),
        np.concatenate(parts_axial, axis=1),
        codes,
        names,
        bodies,
        points,
        members,
        sweep,
    )

    # -- inputs and jacking ----------------------------------------------------------------
    meaning = ["damper force, + = compression"] * len(model.damper_names)
    if "rack" in lay.inputs:
        meaning.append("force on the rack from the steering, + = toward +Y")
    inputs = _simple(
        st.input_force,
        names,
        sweep,
        {"input": list(lay.inputs), "meaning": meaning},
        "force_N",
        st.input_exact,
    )
    layout = wheel_layout(model.car)
    jack = st.jacking  # (B, n_w, C)
    where_names = list(wheels)
    values = [jack]
    for axle, (lft, rgt) in layout.axles.items():
        i, j = wheels.index(lft), wheels.index(rgt)
        values.append((jack[:, i] + jack[:, j])[:, None])
        where_names.append(axle)
    jacking = _simple(
        np.concatenate(values, axis=1),
        names,
        sweep,
        {"where": where_names},
        "jacking_N",
        None,
    )
    det = bool(st.determinate.all())
    message = "" if det else _indeterminate_message(model, lay, st)
    elements = _element_table(st, names, sweep)
    return LoadResult(tuple(names), table, inputs, jacking, det, message, st, elements)


def _element_table(st: Statics, cases: list[str], sweep: np.ndarray | None) -> pd.DataFrame:
    """Rows step, case, element (see `LoadResult`): deflection in mm or deg, third
    spring force N, bar torque N m, a T-bar's moment on the chassis N m (world)."""
    el = st.elements
    if el is None or st.element_deflection is None or st.element_force is None:
        return _empty_elements(sweep is not None).copy()
    B, C, n = st.R.shape[0], len(cases), el.n
    spring = np.array([k == THIRD for k in el.kinds])
    deflection = np.where(spring, st.element_deflection, np.degrees(st.element_deflection))
    force = np.where(spring, st.element_force, np.nan)
    torque = np.where(spring, np.nan, st.element_force / 1000.0)
    moment = np.full((B, n, 3, C), np.nan)
    if st.bar_reaction is not None:
        bars = np.flatnonzero(~spring)
        world = np.einsum("bij,bnjc->bnic", st.R, st.bar_reaction) / 1000.0
        is_t = np.array([el.kinds[i] == T_BAR for i in bars], dtype=bool)
        moment[:, bars[is_t]] = world[:, is_t]
    data: dict[str, object] = {}
    if sweep is not None:
        data["step"] = np.repeat(sweep, C * n)
    data["case"] = _categorical(np.tile(np.repeat(np.arange(C), n), B), list(cases))
    data["element"] = _labels(list(el.names), B * C, tile=True)
    data["kind"] = _labels(list(el.kinds), B * C, tile=True)

    def per_case(v: np.ndarray) -> np.ndarray:  # (B, n) -> rows (B, C, n)
        return np.repeat(v[:, None, :], C, axis=1).reshape(-1)

    data["deflection"] = per_case(deflection)
    data["unit"] = _labels(list(el.units), B * C, tile=True)
    data["force_N"] = per_case(force)
    data["torque_Nm"] = per_case(torque)
    for a, col in enumerate(("Mx_Nm", "My_Nm", "Mz_Nm")):
        data[col] = np.moveaxis(moment[:, :, a], 2, 1).reshape(-1)
    return pd.DataFrame(data, copy=False)  # every column is a new array: no copies


@cache
def _empty_elements(sweep: bool) -> pd.DataFrame:
    """The element table of a car with no force elements (copied for each result)."""
    return pd.DataFrame(columns=(["step"] if sweep else []) + list(ELEMENT_COLUMNS))


def _pairs_of(model: object, inst: np.ndarray) -> np.ndarray:
    """Pairs that touch any of the copies `inst`."""
    a, b = model.pair_a, model.pair_b  # type: ignore[attr-defined]
    return np.flatnonzero(np.isin(a, inst) | np.isin(b, inst))


def _labels(values: Sequence[str], reps: int, tile: bool) -> pd.Categorical:
    """A categorical column of `values` repeated: tiled `reps` times, or each value
    repeated `reps` times (labels as codes: 60k rows of text cost nothing)."""
    cats = list(dict.fromkeys(values))
    index = {c: i for i, c in enumerate(cats)}
    codes = np.array([index[v] for v in values], dtype=int)
    codes = np.tile(codes, reps) if tile else np.repeat(codes, reps)
    return _categorical(codes, cats)


def _basis_codes(basis: np.ndarray) -> np.ndarray:
    """Each label's index in `BASIS_ORDER` (an int array of basis's shape); ValueError
    for a label not in it (as BASIS_ORDER.index would)."""
    codes = np.full(basis.shape, -1, dtype=int)
    for i, label in enumerate(BASIS_ORDER):
        codes[basis == label] = i
    if np.any(codes < 0):
        raise ValueError(f"unknown basis label {basis[codes < 0][0]!r}")
    return codes


@cache
def _dtype(categories: tuple[str, ...]) -> pd.CategoricalDtype:
    """The categorical dtype of `categories` (pandas validates them on each build: cached)."""
    return pd.CategoricalDtype(categories=list(categories))


def _categorical(codes: np.ndarray, categories: list[str]) -> pd.Categorical:
    """A categorical column from integer codes into `categories` (unique)."""
    kind: pd.CategoricalDtype = _dtype(tuple(categories))
    column: pd.Categorical = pd.Categorical.from_codes(
        np.asarray(codes, dtype=np.int64), dtype=kind
    )
    return column


def _rows(
    F: np.ndarray,
    axial: np.ndarray,
    basis: np.ndarray,
    cases: list[str],
    bodies: list[str],
    points: list[str],
    members: list[str],
    sweep: np.ndarray | None,
) -> pd.DataFrame:
    """Rows step-major, then case, then point: F (B, n, 3, C), axial (B, n, C), basis
    codes into `BASIS_ORDER` (B, n)."""
    B, n, _, C = F.shape
    Fx, Fy, Fz = (np.moveaxis(F[:, :, a], 2, 1).reshape(-1) for a in range(3))  # (B, C, n)
    data: dict[str, object] = {}
    if sweep is not None:
        data["step"] = np.repeat(sweep, C * n)
    case_codes = np.tile(np.repeat(np.arange(C), n), B)
    data["case"] = _categorical(case_codes, list(cases))
    data["body"] = _labels(bodies, B * C, tile=True)
    data["point"] = _labels(points, B * C, tile=True)
    data["member"] = _labels(members, B * C, tile=True)
    data["Fx_N"], data["Fy_N"], data["Fz_N"] = Fx, Fy, Fz
    data["F_N"] = np.sqrt(Fx * Fx + Fy * Fy + Fz * Fz)  # np.linalg.norm's sum, in its order
    data["axial_N"] = np.moveaxis(axial, 2, 1).reshape(-1)
    codes = np.repeat(basis[:, None, :], C, axis=1).reshape(-1)
    data["basis"] = _categorical(codes, list(BASIS_ORDER))
    data["determinate"] = codes <= BASIS_ORDER.index(LEGS)
    return pd.DataFrame(data, copy=False)  # every column is a new array: no copies


def _simple(
    values: np.ndarray,
    cases: list[str],
    sweep: np.ndarray | None,
    labels: dict[str, list[str]],
    column: str,
    exact: np.ndarray | None,
) -> pd.DataFrame:
    """Rows step, case, label for values (B, n, C)."""
    B, n, C = values.shape
    data: dict[str, object] = {}
    if sweep is not None:
        data["step"] = np.repeat(sweep, C * n)
    case_codes = np.tile(np.repeat(np.arange(C), n), B)
    data["case"] = _categorical(case_codes, list(cases))
    for key, names in labels.items():
        data[key] = _labels(names, B * C, tile=True)
    data[column] = np.moveaxis(values, 2, 1).reshape(-1)
    if exact is not None:
        data["determinate"] = np.repeat(exact[:, None, :], C, axis=1).reshape(-1)
    return pd.DataFrame(data)


def _indeterminate_message(model: object, lay: object, st: Statics) -> str:
    """Which joints are redundant, in words."""
    free = ~st.pair_exact.all(axis=0)
    act = set(int(i) for i in lay.act)  # type: ignore[attr-defined]
    pts = model.pair_point  # type: ignore[attr-defined]
    bodies = model.pair_bodies  # type: ignore[attr-defined]
    names = sorted(
        {f"{pts[i]} ({bodies[i][0]}-{bodies[i][1]})" for i in np.flatnonzero(free) if i in act}
    )
    return (
        "statically indeterminate: redundant joints share forces that statics alone "
        "cannot split (the split depends on stiffness); the forces shown are the "
        "minimum-norm solution, labelled 'minimum-norm', not exact. Joints involved: "
        + ", ".join(names)
    )
