"""Kernel tables with two-point links as distance rows, for batches.

A ball-ended pushrod or tie rod, a link from a chassis point, a damper between a
chassis point and one moving point: the coordinates of such a link only place the
link itself. `reduced_tables` replaces each one's end coincidences by one row,
|P_b - P_a| = L (L - stroke for a damper), on the copies of its ends on the bodies
it joins, so the blocks lose those unknowns (21 -> 9 on the example car's corners)
and every evaluation, factorisation and chord step is smaller; `kernel.rebuild_links`
sets the links' coordinates from their ends after each state. Kept apart from the
full tables (`engine_tables`) because it is the one place that decides which links
may go. Units: mm, rad.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.solve.engine_plan import plan
from suspension_sim.solve.engine_tables import KernelTables, kernel_tables

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel

LINK_CHAINS = ("link5", "universal", "damper_rod")
"""Part chains that a batch solve can replace by one distance row between their ends: a
two-point link (5 coordinates), a two-point link on a chassis point (universal), a
damper's rod (its stroke an input)."""


@dataclass(frozen=True)
class _Link:
    part: int  # the link's part
    kind: int  # 0: link5 (translations + angles), 1: angles only (origin on the chassis)
    ends: tuple[str, str]  # point at the frame's origin, point along its z axis
    length: float  # design distance between the ends, mm
    stroke: int  # the damper's stroke parameter, or -1


def reduced_tables(model: KinematicModel) -> KernelTables | None:
    """Kernel tables with every eligible two-point link eliminated (cached per model).

    A ball-ended pushrod or tie rod, a link from a chassis point, a damper between a
    chassis point and one moving point: its coordinates only place the link itself,
    and its joined ends' three coincidence rows each come down to one equation,
    |P_b - P_a| = L (L - stroke for a damper), on the copies of its end points on
    the bodies it joins. The blocks lose those unknowns (21 -> 9 on the example car's
    corners) and `kernel.rebuild_links` sets the links' coordinates from their ends
    after each state. None when nothing can be eliminated or the reduced problem does
    not split into the plan's blocks.
    """
    return model.derived.get("engine_reduced_tables", lambda: _build_reduced(model))


def refill_reduced(
    base: KinematicModel, tab: KernelTables, model: KinematicModel
) -> KernelTables | None:
    """`reduced_tables(model)` from `tab`, the reduced tables of `base` (a model of the
    same structure: same parts, chains, parameters, point copies and active pairs), with
    only the numbers refilled: the full tables' frames and local points
    (`engine_tables.refill_tables`) and each link row's design length. None when the
    choices `_build_reduced` makes from coordinates differ for `model` (the eligible
    links and their ends, which copies move at all): then build them.

    What depends on `base` alone (its choices, the candidate links by name, the link
    rows and their lengths) is kept in ``base.derived`` (`_RefillMemo`); per design
    the links' decisions are `_link_decisions` (`_links`' decisions in a few array
    operations, `_links` itself where a distance is near one of its thresholds),
    compared with the base car's as decisions (`_decided_choices`), and
    only the lengths of links whose ends moved are computed again.
    """
    full = kernel_tables(model)
    pl = plan(model)
    memo = base.derived.get(REFILL_MEMO, lambda: _refill_memo(base, tab, pl))
    if memo.tab is not tab or memo.plan is not pl:  # not the tables or plan it was made for
        memo = _refill_memo(base, tab, pl)
    links = memo.links
    decided = _link_decisions(model, links) if links is not None else None
    if links is None or decided is None:
        choices = _choices(model, memo.inputs)
    elif (
        memo.decided is not None
        and (decided[0] == memo.decided[0]).all()
        and (decided[1] == memo.decided[1]).all()
    ):
        choices = memo.choices  # the same decisions as the base's: the same links
    else:
        choices = _decided_choices(links, *decided)
    if choices != memo.choices or not np.array_equal(_moving(model), memo.moving):
        return None
    arrays = list(tab.arrays)
    # (`engine_tables.refill_tables` would put the model's frames and local points in,
    # after this check; `full` has them)
    n_frame = (len(model.frame), 3, 4)
    if n_frame != arrays[4].shape or np.shape(model.inst_local) != arrays[6].shape:
        raise ValueError("refill_tables: the model's structure is not the tables'")
    arrays[:7] = full.arrays[:7]
    # link rows (row kind 24 = 1) between copies a (10) and b (11): their lengths (25)
    lengths = memo.lengths.copy()
    if len(memo.link_rows):
        X = model.inst_design
        a, b = X[memo.link_a], X[memo.link_b]
        moved = ~((a == memo.base_a).all(axis=1) & (b == memo.base_b).all(axis=1))
        for k in np.flatnonzero(moved).tolist():
            v = b[k] - a[k]
            lengths[memo.link_rows[k]] = math.sqrt(v.dot(v))  # float(np.linalg.norm(v))
    arrays[25] = lengths
    out = object.__new__(KernelTables)  # `dataclasses.replace(tab, arrays=...)`, cheaper
    out.__dict__.update(tab.__dict__)
    out.__dict__["arrays"] = tuple(arrays)
    return out  # same layout, new numbers


REFILL_MEMO = ("engine_reduced", "refill")
"""``base.derived`` key of `refill_reduced`'s `_RefillMemo`."""

Choice = tuple[int, int, tuple[str, str], int]
"""A link as `refill_reduced` compares them: part, kind, ends, stroke parameter."""


def _choices(model: KinematicModel, inputs: set[int]) -> list[Choice]:
    return [(k.part, k.kind, k.ends, k.stroke) for k in _links(model, inputs).values()]


@dataclass(frozen=True)
class _RefillMemo:
    """What `refill_reduced` keeps per base model: the tables and plan it is for, the
    plan's inputs, the base's link choices and moving copies, its candidate links
    (`_link_plan`), and the link rows of `tab`: their row, end copies, the base's end
    coordinates and lengths (every row's length, 0 off the link rows)."""

    tab: KernelTables
    plan: object
    inputs: set[int]
    choices: list[Choice]
    moving: np.ndarray
    links: _LinkPlan | None
    decided: tuple[np.ndarray, np.ndarray] | None  # the base's `_link_decisions`
    link_rows: list[int]
    link_a: np.ndarray
    link_b: np.ndarray
    base_a: np.ndarray
    base_b: np.ndarray
    lengths: np.ndarray


def _refill_memo(base: KinematicModel, tab: KernelTables, pl: Any) -> _RefillMemo:
    inputs = {int(k) for k in pl.inputs}
    choices, moving = base.derived.get(
        "engine_reduced_choices", lambda: (_choices(base, inputs), _moving(base))
    )
    kind, ra, rb = tab.arrays[24], tab.arrays[10], tab.arrays[11]
    rows = np.flatnonzero(kind == 1)
    a, b = base.inst_design[ra[rows]], base.inst_design[rb[rows]]
    lengths = np.zeros(len(kind))
    for k, r in enumerate(rows.tolist()):
        lengths[r] = float(np.linalg.norm(b[k] - a[k]))
    links = _link_plan(base, inputs)
    decided = _link_decisions(base, links) if links is not None else None
    if links is None or (decided is not None and _decided_choices(links, *decided) != choices):
        decided = None  # (never but without links, by tests)
    return _RefillMemo(
        tab,
        pl,
        inputs,
        choices,
        moving,
        links,
        decided,
        rows.tolist(),
        ra[rows],
        rb[rows],
        a,
        b,
        lengths,
    )


@dataclass(frozen=True)
class _LinkPlan:
    """`_links`' candidate parts and what it decides by names alone (`_link_plan`); the
    distances it compares are left to `_link_decisions`. Per candidate, in part order:
    its part, its rule (0: a two-point link, 1: a two-point link on a chassis point, 2:
    a damper's rod), its two point names (a damper: its rod point twice), whether each
    is a chassis point, and its stroke parameter (-1 but for a damper). The distances:
    from the point copy `at` to the origin of candidate `of`: each candidate's first
    point, each one's second, then each damper's to every chassis point (`fixed`)."""

    parts: np.ndarray
    rule: list[int]
    names: list[tuple[str, str]]
    fixed0: list[bool]
    fixed1: list[bool]
    stroke: list[int]
    at: np.ndarray
    of: np.ndarray
    by_min: np.ndarray  # the rule 1 candidates (their first end is the nearer one)
    fixed: list[str]  # the chassis points


def _link_plan(model: KinematicModel, inputs: set[int]) -> _LinkPlan | None:
    """The candidates of `_links` for the models of `model`'s structure; None where a
    part is not laid out as `_links` expects (then `_links` answers)."""
    row: dict[str, int] = {}
    for i, name in enumerate(model.inst_point):
        row.setdefault(name, i)
    fixed = sorted(
        {model.inst_point[i] for i in range(len(model.inst_part)) if model.inst_part[i] == 0}
    )
    parts: list[int] = []
    rule: list[int] = []
    names: list[tuple[str, str]] = []
    stroke: list[int] = []
    for i, part in enumerate(model.parts):
        if part.chain == "link5" and len(part.points) == 2:
            parts.append(i)
            rule.append(0)
            names.append((part.points[0], part.points[1]))
            stroke.append(-1)
        elif part.chain == "universal" and len(part.points) == 2:
            if part.points[0] == part.points[1]:
                return None
            parts.append(i)
            rule.append(1)
            names.append((part.points[0], part.points[1]))
            stroke.append(-1)
        elif part.chain == "damper_rod" and len(part.points) == 1:
            if len(part.params) < 3:
                return None
            if part.params[2] not in inputs:
                continue  # never a link
            parts.append(i)
            rule.append(2)
            names.append((part.points[0], part.points[0]))
            stroke.append(part.params[2])
    if any(n not in row for pair in names for n in pair):
        return None
    n = len(parts)
    dampers = [c for c in range(n) if rule[c] == 2]
    at = [row[a] for a, _ in names] + [row[b] for _, b in names]
    at += [row[f] for _ in dampers for f in fixed]
    of = list(range(n)) * 2 + [c for c in dampers for _ in fixed]
    fixed_set = set(fixed)
    return _LinkPlan(
        np.array(parts, dtype=np.intp),
        rule,
        names,
        [a in fixed_set for a, _ in names],
        [b in fixed_set for _, b in names],
        stroke,
        np.array(at, dtype=np.intp),
        np.array(of, dtype=np.intp),
        np.array([c for c in range(n) if rule[c] == 1], dtype=np.intp),
        fixed,
    )


LINK_TOL_MM = 1e-9
"""`_links`' distance below which a point is at a frame's origin, mm."""
_LINK_BAND = 1e-3 * LINK_TOL_MM
"""Distances within this of `LINK_TOL_MM` are left to `_links` (`_link_decisions`)."""


def _link_choices(model: KinematicModel, lp: _LinkPlan) -> list[Choice] | None:
    """``[(part, kind, ends, stroke) of _links(model, inputs)]`` for a model of the
    structure `lp` was made for (`_link_decisions`, `_decided_choices`); None where a
    distance is too near one of `_links`' comparisons to decide here."""
    decided = _link_decisions(model, lp)
    return None if decided is None else _decided_choices(lp, *decided)


def _link_decisions(model: KinematicModel, lp: _LinkPlan) -> tuple[np.ndarray, np.ndarray] | None:
    """`_links`' comparisons for `lp`'s candidates: whether each distance of `lp`
    (``at`` to ``of``'s frame origin) is within 1e-9 mm, and whether each rule 1
    candidate's first point is not farther than its second (`min` keeps the first of a
    tie). The distances in one array operation (the products and sums of
    `np.linalg.norm`), decided here when each is clear of its comparison by more than
    the last bits of its arithmetic, else None (`_links` decides)."""
    n = len(lp.parts)
    if not n:
        return np.zeros(0, dtype=bool), np.zeros(0, dtype=bool)
    origin = model.frame[lp.parts, :3, 3]
    v = model.inst_design[lp.at] - origin[lp.of]
    dist = np.sqrt(np.add.reduce(v * v, axis=1))  # the norms `_links` takes one by one
    if (np.abs(dist - LINK_TOL_MM) <= _LINK_BAND).any():
        return None
    d0, d1 = dist[lp.by_min], dist[n + lp.by_min]
    if (np.abs(d0 - d1) <= 1e-12 * np.maximum(d0, d1)).any():
        return None  # a tie, or nearly, for `min`
    return dist <= LINK_TOL_MM, d0 <= d1


def _decided_choices(lp: _LinkPlan, near: np.ndarray, closer: np.ndarray) -> list[Choice]:
    """The links `_links` keeps, from `_link_decisions`' answers: a link unless its
    first end (for rule 1 the nearer, and a chassis point) is more than 1e-9 mm from
    its frame's origin; a damper's rod when one chassis point is within 1e-9 mm."""
    n, nf = len(lp.parts), len(lp.fixed)
    near_l, closer_l = near.tolist(), iter(closer.tolist())
    out: list[Choice] = []
    damper = 0
    for c, part in enumerate(lp.parts.tolist()):
        rule, (p0, p1) = lp.rule[c], lp.names[c]
        if rule == 0:
            if near_l[c]:
                out.append((part, 0, (p0, p1), -1))
        elif rule == 1:
            if next(closer_l):
                if lp.fixed0[c] and near_l[c]:
                    out.append((part, 1, (p0, p1), -1))
            elif lp.fixed1[c] and near_l[n + c]:
                out.append((part, 1, (p1, p0), -1))
        else:
            start = 2 * n + damper * nf
            damper += 1
            at = [k for k in range(nf) if near_l[start + k]]
            if len(at) == 1:
                out.append((part, 1, (lp.fixed[at[0]], p0), lp.stroke[c]))
    return out


RANDOM_POSITIONS = ("engine_reduced", "random_positions")
"""``model.derived`` key of `random_positions`."""


def random_states(n_params: int) -> np.ndarray:
    """The three random states (n_params, 3), rad or mm, at which a point copy that
    moves at all moves (the draw `KinematicModel._active_pairs` makes too)."""
    return np.random.default_rng(0).uniform(-0.5, 0.5, size=(n_params, 3))


def random_positions(model: KinematicModel) -> np.ndarray:
    """Every point copy at `random_states` (n_inst, 3, 3), mm (cached per model; the DOE
    seeds it with the same numbers computed from its base car's transforms)."""
    return model.derived.get(
        RANDOM_POSITIONS,
        lambda: model.instance_positions(random_states(model.n_params), False)[0],
    )


MOVING_MM = 1e-6
"""A point copy moves at all when some random state (`random_positions`) takes it
farther than this from its design point, mm (as `_build_reduced` judges them)."""
MOVING = ("engine_reduced", "moving")
"""``model.derived`` key of `_moving` (the DOE seeds it, from the numbers it computes
for the active pairs)."""


def _moving(model: KinematicModel) -> np.ndarray:
    """Which point copies move at all (as `_build_reduced` judges them; cached)."""

    def build() -> np.ndarray:
        P = random_positions(model)
        gap = np.abs(P - model.inst_design[:, :, None])
        if not len(gap):
            return np.zeros(0, dtype=bool)
        return np.asarray(gap.reshape(len(gap), gap[0].size).max(axis=1) > MOVING_MM)

    return model.derived.get(MOVING, build)


def _links(model: KinematicModel, inputs: set[int]) -> dict[int, _Link]:
    """The eligible links by part (see `reduced_tables`)."""
    pts = model.car.point_map()
    fixed_names = {
        model.inst_point[i] for i in range(len(model.inst_part)) if model.inst_part[i] == 0
    }
    fixed_list = list(fixed_names)
    fixed_xyz = np.array([pts[p] for p in fixed_list]).reshape(-1, 3)

    def at_origin(origin: np.ndarray) -> list[str]:
        """The fixed points within 1e-9 mm of `origin`: the candidates found for all of
        them at once, then each judged by the scalar norm (the rule's exact numbers)."""
        near = np.flatnonzero(np.linalg.norm(fixed_xyz - origin, axis=1) < 2e-9).tolist()
        return [fixed_list[k] for k in near if np.linalg.norm(pts[fixed_list[k]] - origin) < 1e-9]

    out: dict[int, _Link] = {}
    for i, part in enumerate(model.parts):
        if part.chain not in LINK_CHAINS:
            continue
        if part.chain == "link5" and len(part.points) == 2:
            ends = (part.points[0], part.points[1])
            kind, stroke = 0, -1
        elif part.chain == "universal" and len(part.points) == 2:
            origin = part.frame[:3, 3]
            first = min(part.points, key=lambda p: float(np.linalg.norm(pts[p] - origin)))
            other = next(p for p in part.points if p != first)
            ends = (first, other)
            kind, stroke = 1, -1
        elif part.chain == "damper_rod" and len(part.points) == 1:
            origin = part.frame[:3, 3]
            chassis = at_origin(origin)
            if len(chassis) != 1 or part.params[2] not in inputs:
                continue
            ends = (chassis[0], part.points[0])
            kind, stroke = 1, part.params[2]
        else:
            continue
        if kind == 1 and ends[0] not in fixed_names:
            continue
        if np.linalg.norm(pts[ends[0]] - part.frame[:3, 3]) > 1e-9:
            continue  # the frame's origin must be the first end
        out[i] = _Link(i, kind, ends, float(np.linalg.norm(pts[ends[1]] - pts[ends[0]])), stroke)
    return out


def _build_reduced(model: KinematicModel) -> KernelTables | None:
    pl = plan(model)
    full = kernel_tables(model)
    p_nj, p_param = full.arrays[0], full.arrays[3]
    inputs = [int(k) for k in pl.inputs]
    in_col = {k: j for j, k in enumerate(inputs)}
    links = _links(model, set(inputs))
    # A link needs a copy of each end on a body that stays (iterate: links on links).
    dropped: set[int] = set()
    while True:
        elim = {i for i in links if i not in dropped}
        gone = set(elim)
        gone |= {
            j
            for j, part in enumerate(model.parts)
            if part.params and any(set(part.params) <= set(model.parts[i].params) for i in elim)
        }
        keep = [i for i in range(len(model.inst_part)) if int(model.inst_part[i]) not in gone]
        copies: dict[str, list[int]] = {}
        for i in keep:
            copies.setdefault(model.inst_point[i], []).append(i)
        bad = {i for i in elim if any(e not in copies for e in links[i].ends)}
        if not bad:
            break
        dropped |= bad
    if not elim:
        return None
    gone_params = {k for i in elim for k in model.parts[i].params if k not in in_col}
    block_of: dict[int, int] = {}
    for b, blk in enumerate(pl.blocks):
        for k in blk.params:
            if int(k) not in gone_params:
                block_of[int(k)] = b
    # Which copies move at all (as `KinematicModel._active_pairs` judges pairs).
    P = random_positions(model)
    moves = np.abs(P - model.inst_design[:, :, None]).max(axis=(1, 2)) > 1e-6
    fixed = model.inst_part < model.n_fixed_parts
    # rows: (a, b, axis, kind, length, stroke parameter)
    rows: list[tuple[int, int, int, int, float, int]] = []
    for cs in copies.values():
        ref = cs[0]
        for c in cs[1:]:
            if not (moves[ref] or moves[c]) and (fixed[ref] or fixed[c]):
                continue
            rows += [(ref, c, ax, 0, 0.0, -1) for ax in range(3)]
    x_of: dict[int, tuple[int, int, int]] = {}  # link part -> (its row, end a copy, end b copy)
    for i in sorted(elim):
        lk = links[i]
        a, e = copies[lk.ends[0]][0], copies[lk.ends[1]][0]
        x_of[i] = (len(rows), a, e)
        rows.append((a, e, 0, 1, lk.length, lk.stroke))

    def unknowns(row: tuple[int, int, int, int, float, int]) -> set[int]:
        out = set()
        for inst in row[:2]:
            part = int(model.inst_part[inst])
            out |= {int(p_param[part, j]) for j in range(int(p_nj[part]))} - set(in_col)
        if row[5] >= 0 and row[5] not in in_col:
            out.add(row[5])
        return out

    n_b = len(pl.blocks)
    rows_of: list[list[int]] = [[] for _ in range(n_b + 1)]
    for k, row in enumerate(rows):
        ks = unknowns(row)
        if any(u in gone_params or u not in block_of for u in ks):
            return None
        bs = {block_of[u] for u in ks}
        if len(bs) > 1:
            return None
        rows_of[bs.pop() if bs else n_b].append(k)
    cols_of = [
        np.array([int(k) for k in blk.params if int(k) not in gone_params], dtype=np.int64)
        for blk in pl.blocks
    ] + [np.zeros(0, dtype=np.int64)]
    if any(len(rows_of[b]) < len(cols_of[b]) for b in range(n_b)):
        return None

    arr: dict[str, list[Any]] = {k: [] for k in ("c", "ra", "rb", "ax", "kd", "ln", "cf", "pr")}
    pa: list[np.ndarray] = []
    ins: list[np.ndarray] = []
    ent: dict[str, list[Any]] = {k: [] for k in ("row", "col", "inst", "slot", "axis", "sign")}
    e_ptr = [0]
    x_ptr = [0]
    xs: dict[str, list[int]] = {k: [] for k in ("part", "kind", "a", "b")}
    xs_part_of: list[list[int]] = [[] for _ in range(n_b + 1)]
    for b in range(n_b + 1):
        local = {int(k): j for j, k in enumerate(cols_of[b])}
        arr["c"].append(cols_of[b])
        chosen = [rows[k] for k in rows_of[b]]
        insts: set[int] = set()
        for lr, (ia, ib, ax, kd, ln, st) in enumerate(chosen):
            arr["ra"].append(ia)
            arr["rb"].append(ib)
            arr["ax"].append(ax)
            arr["kd"].append(kd)
            arr["ln"].append(ln)
            arr["cf"].append(1.0 if st >= 0 else 0.0)
            arr["pr"].append(st)
            insts |= {ia, ib}
            if b == n_b:
                continue
            for inst, sign in ((ia, -1.0), (ib, 1.0)):
                part = int(model.inst_part[inst])
                for j in range(int(p_nj[part])):
                    k = int(p_param[part, j])
                    col = local[k] if k in local else -1 - in_col[k]
                    for axis in (ax,) if kd == 0 else (0, 1, 2):
                        ent["row"].append(lr)
                        ent["col"].append(col)
                        ent["inst"].append(inst)
                        ent["slot"].append(j)
                        ent["axis"].append(axis)
                        ent["sign"].append(sign)
            if st >= 0:  # d(|P_b - P_a| - L + stroke)/d stroke = 1
                ent["row"].append(lr)
                ent["col"].append(local[st] if st in local else -1 - in_col[st])
                ent["inst"].append(-1)
                ent["slot"].append(0)
                ent["axis"].append(0)
                ent["sign"].append(1.0)
        e_ptr.append(len(ent["row"]))
        inst_arr = np.array(sorted(insts), dtype=np.int64)
        ins.append(inst_arr)
        pa.append(np.unique(model.inst_part[inst_arr]).astype(np.int64))
        for i in sorted(elim):
            row_k, a, e = x_of[i]
            if row_k in rows_of[b]:
                xs_part_of[b].append(i)
                xs["part"].append(i)
                xs["kind"].append(links[i].kind)
                xs["a"].append(a)
                xs["b"].append(e)
        x_ptr.append(len(xs["part"]))

    def ptr(xs_: list[np.ndarray]) -> np.ndarray:
        return np.concatenate([[0], np.cumsum([len(x) for x in xs_])]).astype(np.int64)

    def i64(x: list[Any]) -> np.ndarray:
        return np.ascontiguousarray(np.array(x, dtype=np.int64).reshape(-1))

    def f64(x: list[Any]) -> np.ndarray:
        return np.ascontiguousarray(np.array(x, dtype=float).reshape(-1))

    # The model's own rows that involve a copy on an eliminated part, with the block of
    # that part's link (`kernel.link_rows` checks them after the links are rebuilt).
    owner = {int(p): b for b in range(n_b + 1) for p in xs_part_of[b]}
    for i in sorted(elim):
        for j, other in enumerate(model.parts):
            if j in gone and j not in owner and set(other.params) <= set(model.parts[i].params):
                owner[j] = owner[i]
    act = model.active_pairs
    checks: list[list[tuple[int, int, int]]] = [[] for _ in range(n_b + 1)]
    for pair in act:
        a, e = int(model.pair_a[pair]), int(model.pair_b[pair])
        parts_ = [int(model.inst_part[a]), int(model.inst_part[e])]
        mine = [owner[p] for p in parts_ if p in owner]
        if mine:
            checks[mine[0]] += [(a, e, ax) for ax in range(3)]
    k_parts = [sorted({p for p, b in owner.items() if b == g}) for g in range(n_b + 1)]
    k_insts = [
        np.flatnonzero(np.isin(model.inst_part, k_parts[g])).astype(np.int64)
        for g in range(n_b + 1)
    ]
    rows_per = [len(r) for r in rows_of]
    arrays = (
        *full.arrays[:7],
        ptr(arr["c"]),
        i64(np.concatenate(arr["c"]).tolist()),
        np.concatenate([[0], np.cumsum(rows_per)]).astype(np.int64),
        i64(arr["ra"]),
        i64(arr["rb"]),
        i64(arr["ax"]),
        ptr(pa),
        i64(np.concatenate(pa).tolist()),
        ptr(ins),
        i64(np.concatenate(ins).tolist()),
        np.array(e_ptr, dtype=np.int64),
        i64(ent["row"]),
        i64(ent["col"]),
        i64(ent["inst"]),
        i64(ent["slot"]),
        i64(ent["axis"]),
        f64(ent["sign"]),
        i64(arr["kd"]),
        f64(arr["ln"]),
        f64(arr["cf"]),
        i64(arr["pr"]),
        np.array(x_ptr, dtype=np.int64),
        i64(xs["part"]),
        i64(xs["kind"]),
        i64(xs["a"]),
        i64(xs["b"]),
        ptr([np.array(c) for c in checks]),
        i64([a for c in checks for a, _, _ in c]),
        i64([e for c in checks for _, e, _ in c]),
        i64([ax for c in checks for _, _, ax in c]),
        ptr([np.array(p) for p in k_parts]),
        i64([p for ps in k_parts for p in ps]),
        ptr(k_insts),
        i64(np.concatenate(k_insts).tolist()),
    )
    return KernelTables(
        arrays=arrays,
        n_blocks=n_b + 1,
        max_rows=max(rows_per, default=0),
        max_cols=max((len(c) for c in cols_of), default=0),
        n_params=model.n_params,
        inputs=full.inputs,
        k_max=full.k_max,
        n_parts=full.n_parts,
        n_inst=full.n_inst,
    )
