"""Compare an OptimumK export's force channels with our statics, for a given force case.

OptimumK's force results need the force case they were computed with, which the
export does not hold. It is given as either

* a case of the workbook's Load Cases section, held constant over the motion
  (``--force-case NAME``), or
* OptimumK's force-case keyframes (``--force-keyframes FILE.csv``, the CSV of
  docs/loads.md), ramped with the export's ``Motion [Completion Percentage]``.

The loads act on the world-fixed line through each tyre's design contact patch
(OptimumK's rule: ``C + r unit(s x X)``, the loads' ``design`` application,
`suspension_sim.metrics.geometry.WheelSet.patch0`), whatever a workbook case's
Application column says. That is OptimumK's contact patch of step 0, because validate
compares only exports whose step 0 is the design state. Every
force channel of the export (``A To B [(leg)] - Fx [Front Left]``, ``Contact
Patch - Fz [Front Left]``, ``Steering Torque [Front] Mz``) is matched with
`suspension_sim.optimumk.forces.optimumk_forces` through one normal form
(`suspension_sim.validation.okheaders.force_key`) and compared in N or N m.

**An A-arm that carries more than its ball joint** (the push/pull rod's mount):
the split of its two pivot forces along the pivot axis is statically
indeterminate and OptimumK's rule for it is not established (docs/loads.md). The
world components of each pivot force mix that split in, so they are listed as not
compared; in their place two kinds of derived channel are compared, computed the
same way from the export's columns and from ours:

* ``<Arm> To Chassis (Fore + Aft) - Fx|Fy|Fz [corner]``: the sum of the two pivot
  forces (exact whatever the split);
* ``<Arm> To Chassis (Fore|Aft, normal to pivot axis) - Fx|Fy|Fz [corner]``: one
  pivot's force minus its component along the pivot axis (the unit vector from
  the Fore to the Aft chassis pivot, moved with the chassis at each step), in
  world axes (exact too).

The same holds for the reversed channels (``Chassis To <Arm> (Fore)``). The
moments of those pivots (ball joints, 0) are compared as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from suspension_sim.errors import InputError
from suspension_sim.validation.export_table import OK_FORCE, SOURCE, Column, Export
from suspension_sim.validation.headers import Header
from suspension_sim.validation.okheaders import ForceName, OkHeader, force_key, norm_words
from suspension_sim.validation.quantities import ChannelRule, Quantity
from suspension_sim.validation.results import (
    BLANK_IN_EXPORT,
    NOT_COMPUTED,
    ChannelResult,
    diagnose,
    tolerance_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.loads.cases import LoadCase
    from suspension_sim.model import KinematicModel
    from suspension_sim.optimumk.forces import ForceKeys
    from suspension_sim.optimumk.motion import OptimumKMotion

SPLIT_NOT_ESTABLISHED = (
    "OptimumK's rule for the split along the pivot axis is not established "
    "(this A-arm also carries the push/pull rod): compared as the derived channels "
    "'(Fore + Aft)' and '(Fore|Aft, normal to pivot axis)'"
)
"""Why the world components of a pivot force of an A-arm in bending are not compared."""
NO_SUCH_JOINT = "no such joint or channel in this car's statics"
ARMS = ("Lower A-Arm", "Upper A-Arm")
LEGS = ("Fore", "Aft")
FORCE_COMPONENTS = ("Fx", "Fy", "Fz")
CASE_OPTION = "force_case"
KEYS_OPTION = "force_keyframes"


# -- the force case -------------------------------------------------------------------------
def workbook_case(model: KinematicModel, name: str, workbook: str | Path | None) -> LoadCase:
    """The Load Cases section's case `name`; InputError naming ``force_case`` (the
    command's ``--force-case``) with a did-you-mean when there is none."""
    from suspension_sim.loads.sheet import load_cases_sheet
    from suspension_sim.names import did_you_mean

    path = workbook or model.car.source_path
    cases = load_cases_sheet(path, model.car) if path else []
    names = [c.name for c in cases]
    for case in cases:
        if case.name == name:
            return case
    folded = [c for c in cases if c.name.casefold() == name.casefold()]
    if len(folded) == 1:
        return folded[0]
    raise InputError(
        f"no load case {name!r} in the workbook's Load Cases section."
        + (did_you_mean(name, names) if names else ""),
        where=CASE_OPTION,
        hint=(f"its cases: {', '.join(names)}" if names else "the workbook has no Load Cases")
        + "; or give OptimumK's keyframes with --force-keyframes FILE.csv (docs/loads.md)",
    )


def check_case(case: LoadCase) -> LoadCase:
    """The case as OptimumK applies it: world axes, no brake or drive torque, every force
    on the design contact patch's line. InputError naming ``force_case`` otherwise."""
    wheels = {}
    for wheel, load in case.wheels.items():
        if load.axes != "world":
            raise InputError(
                f"load case {case.name!r}, wheel {wheel}: its loads are in {load.axes} axes; "
                "OptimumK's force cases are in world axes",
                where=CASE_OPTION,
                hint="set the case's Axes to world (Load Cases section)",
            )
        if load.brake_torque or load.drive_torque:
            raise InputError(
                f"load case {case.name!r}, wheel {wheel}: a brake or drive torque "
                f"({load.brake_torque:g} / {load.drive_torque:g} N m); OptimumK's force cases "
                "have none",
                where=CASE_OPTION,
                hint="give a torque about the spin axis as My (world axes), brake and "
                "drive torques blank",
            )
        wheels[wheel] = dataclasses.replace(load, application="design")
    return dataclasses.replace(case, wheels=wheels)


def cases_for_export(
    model: KinematicModel, export: Export, source: LoadCase | ForceKeys
) -> list[LoadCase]:
    """One case per step of the export: a workbook case held, or the keyframes ramped
    with ``Motion [Completion Percentage]`` (InputError naming ``force_keyframes`` when
    the export lacks it)."""
    from suspension_sim.loads.cases import LoadCase
    from suspension_sim.optimumk.forces import cases_per_step
    from suspension_sim.validation.drive import finite_values

    n = export.n_steps
    if isinstance(source, LoadCase):
        return cases_per_step(check_case(source), np.zeros(n))
    completion = export.motion().get("completion")
    if completion is None:
        raise InputError(
            "the keyframes are ramped with the export's 'Motion [Completion Percentage]' "
            "channel, which this export lacks",
            where=KEYS_OPTION,
            hint=f"export the result with Motion [Completion Percentage] ({export.path.name}), "
            "or hold one workbook case over the motion with --force-case NAME",
        )
    return cases_per_step(source, finite_values(completion))


# -- the contact-patch channels ------------------------------------------------------------
def contact_patch_channels(
    model: KinematicModel, cases: Sequence[LoadCase], motion: OptimumKMotion
) -> dict[str, np.ndarray]:
    """``Contact Patch - F.|M. [corner]``: the cases' loads as given (N, N m; NaN where a
    step did not solve)."""
    from suspension_sim.optimumk.forces import contact_channels

    names = [w.name for w in model.car.wheels]
    n = len(cases)
    force = np.zeros((n, len(names), 3))
    moment = np.zeros((n, len(names), 3))
    for i, case in enumerate(cases):
        for wheel, load in case.wheels.items():
            force[i, names.index(wheel)] = load.force
            moment[i, names.index(wheel)] = load.moment
    bad = np.array([p is None or not p.converged for p in motion.poses], dtype=bool)
    out = contact_channels(model, force, moment)
    for values in out.values():
        values[bad] = np.nan
    return out


# -- A-arms in bending --------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class BentArm:
    """An A-arm that carries more than its ball joint: corner words, arm name (OptimumK's),
    and its Fore and Aft chassis pivots (point names)."""

    corner: str
    arm: str
    fore: str
    aft: str


def bent_arms(model: KinematicModel) -> dict[tuple[str, str], BentArm]:
    """{(norm_words(arm), corner): BentArm} for every A-arm joined to anything besides the
    chassis (two pivots) and the upright (its ball joint)."""
    from suspension_sim.optimumk.forces import optimumk_joints

    joints = optimumk_joints(model)
    out: dict[tuple[str, str], BentArm] = {}
    for arm in ARMS:
        for corner in {j.corner for j in joints}:
            own = [j for j in joints if j.corner == corner and arm in (j.a, j.b)]
            others = [j for j in own if {j.a, j.b} - {arm} not in ({"Chassis"}, {"Upright"})]
            pivots = {
                j.leg: model.inst_point[(j.on_b if j.b == "Chassis" else j.on_a)[0]]
                for j in own
                if j.leg in LEGS
            }
            if others and set(pivots) == set(LEGS):
                out[(norm_words(arm), corner)] = BentArm(corner, arm, pivots["Fore"], pivots["Aft"])
    return out


def pivot_axes(model: KinematicModel, motion: OptimumKMotion, arm: BentArm) -> np.ndarray:
    """(n, 3) unit vectors from the Fore to the Aft pivot, world axes, at every step."""
    d = model.car.point(arm.aft) - model.car.point(arm.fore)
    axes = np.einsum("nij,j->ni", motion.chassis[:, :3, :3], d)
    return axes / np.linalg.norm(axes, axis=1, keepdims=True)


def _bent_of(
    h: OkHeader, bent: dict[tuple[str, str], BentArm]
) -> tuple[BentArm, str, str, str] | None:
    """(arm, source, target, leg) when `h` is a pivot force of an arm in bending."""
    f = h.force
    if f is None or f.leg is None or f.component not in FORCE_COMPONENTS:
        return None
    if norm_words(f.leg) not in ("fore", "aft"):
        return None
    pair = {norm_words(f.source), norm_words(f.target or "")}
    corner = h.location or ""
    for (arm_words, c), arm in bent.items():
        if c == corner and pair == {arm_words, "chassis"}:
            return arm, f.source, f.target or "", f.leg.strip().title()
    return None


# -- comparison ---------------------------------------------------------------------------
def compare_forces(
    model: KinematicModel,
    export: Export,
    motion: OptimumKMotion,
    source: LoadCase | ForceKeys,
    tol: dict[str, float],
) -> tuple[list[ChannelResult], list[tuple[str, str]], list[str]]:
    """(results, (header, reason) not compared, notes) for every force channel."""
    from suspension_sim.optimumk.forces import optimumk_forces
    from suspension_sim.validation.okheaders import force_key_of

    cases = cases_for_export(model, export, source)
    # every load's "design" line goes through OptimumK's design contact patch
    # (WheelSet.patch0), which is its step 0 here: validate compares only exports whose
    # step 0 is the design state
    raw = optimumk_forces(model, motion.poses, cases)
    raw.update(contact_patch_channels(model, cases, motion))
    ours: dict[str, np.ndarray] = {}
    named: dict[str, str] = {}  # normal form -> our channel's name (the report shows it)
    for name, values in raw.items():
        key = force_key_of(name)
        if key is not None:
            ours[key] = values
            named[key] = name
    bent = bent_arms(model)
    results: list[ChannelResult] = []
    not_compared: list[tuple[str, str]] = []
    held: dict[tuple[str, str, str, str], Column] = {}  # (arm, source, target, leg+comp)
    for col in export.outputs():
        if col.rule.metric != OK_FORCE:
            continue
        h = col.header.optimumk
        key = force_key(h)
        if h is None or key is None:
            not_compared.append((col.header.text, NOT_COMPUTED))
            continue
        found = _bent_of(h, bent)
        if found is not None:
            arm, src, tgt, leg = found
            assert h.force is not None
            held[(f"{arm.arm}|{arm.corner}", src, tgt, f"{leg}|{h.force.component}")] = col
            not_compared.append((col.header.text, SPLIT_NOT_ESTABLISHED))
            continue
        if key not in ours:
            not_compared.append((col.header.text, NO_SUCH_JOINT))
            continue
        if not np.isfinite(col.values).any():
            not_compared.append((col.header.text, BLANK_IN_EXPORT))
            continue
        limit = tolerance_of(col, tol)
        res = ChannelResult(col, named[key], np.asarray(ours[key], dtype=float), col.values, limit)
        res.notes = diagnose(res)
        results.append(res)
    results += _derived(model, motion, bent, held, ours, tol)
    from suspension_sim.loads.cases import LoadCase

    what = (
        f"workbook load case {source.name!r} held at every step"
        if isinstance(source, LoadCase)
        else f"force-case keyframes {source.name!r} ramped with Motion [Completion Percentage]"
    )
    notes = [
        f"force channels: {what}; every contact-patch load acts on the world-fixed line "
        "through OptimumK's design contact patch, C + r unit(s x X) (OptimumK's rule; step "
        "0 is the design state)",
    ]
    return results, not_compared, notes


def _derived(
    model: KinematicModel,
    motion: OptimumKMotion,
    bent: dict[tuple[str, str], BentArm],
    held: dict[tuple[str, str, str, str], Column],
    ours: dict[str, np.ndarray],
    tol: dict[str, float],
) -> list[ChannelResult]:
    """The '(Fore + Aft)' and '(leg, normal to pivot axis)' channels of every arm in
    bending whose pivot columns the export has."""
    out: list[ChannelResult] = []
    arms = {f"{b.arm}|{b.corner}": b for b in bent.values()}
    n = motion.chassis.shape[0]
    for arm_id, src, tgt in sorted({(a, s_, t) for a, s_, t, _ in held}):
        arm = arms[arm_id]
        axle, side = arm.corner.split()
        theirs: dict[tuple[str, str], Column] = {}
        mine: dict[tuple[str, str], np.ndarray] = {}
        for leg in LEGS:
            for comp in FORCE_COMPONENTS:
                col = held.get((arm_id, src, tgt, f"{leg}|{comp}"))
                if col is not None:
                    theirs[(leg, comp)] = col
                name = ForceName(src, tgt, leg, comp)
                h = OkHeader("", "", side, axle, None, "force", force=name)
                mine[(leg, comp)] = ours.get(force_key(h) or "", np.full(n, np.nan))
        for comp in FORCE_COMPONENTS:
            pair = [theirs.get((leg, comp)) for leg in LEGS]
            if None in pair:
                continue
            fore, aft = (c for c in pair if c is not None)
            out.append(
                _derived_result(
                    f"{src} To {tgt} (Fore + Aft) - {comp}",
                    arm.corner,
                    [fore, aft],
                    fore.values + aft.values,
                    mine[("Fore", comp)] + mine[("Aft", comp)],
                    tol,
                )
            )
        axis = pivot_axes(model, motion, arm)
        for leg in LEGS:
            cols = [theirs[(leg, c)] for c in FORCE_COMPONENTS if (leg, c) in theirs]
            if len(cols) < len(FORCE_COMPONENTS):
                continue
            t = np.stack([c.values for c in cols], axis=1)
            o = np.stack([mine[(leg, c)] for c in FORCE_COMPONENTS], axis=1)
            t_n = t - np.einsum("ni,ni->n", t, axis)[:, None] * axis
            o_n = o - np.einsum("ni,ni->n", o, axis)[:, None] * axis
            for k, comp in enumerate(FORCE_COMPONENTS):
                out.append(
                    _derived_result(
                        f"{src} To {tgt} ({leg}, normal to pivot axis) - {comp}",
                        arm.corner,
                        cols,
                        t_n[:, k],
                        o_n[:, k],
                        tol,
                    )
                )
    return out


def _derived_result(
    quantity: str,
    corner: str,
    sources: Sequence[Column],
    theirs: np.ndarray,
    ours: np.ndarray,
    tol: dict[str, float],
) -> ChannelResult:
    """A derived channel as a `ChannelResult` (its column says what it is made from)."""
    axle, side = corner.split()
    text = f"{quantity} [{corner}] (N)"
    source, _, rest = quantity.partition(" To ")
    target, _, tail = rest.partition(" (")
    leg, _, comp = tail.partition(") - ")
    ok = OkHeader(
        text, quantity, side, axle, "N", "force", force=ForceName(source, target, leg, comp)
    )
    q = Quantity(quantity, "force", "corner", OK_FORCE)
    header = Header(
        text, ok.key, "N", q, corner, ChannelRule(OK_FORCE, source=f"{SOURCE} (derived)"), ok
    )
    where = "derived from " + ", ".join(repr(c.header.text) for c in sources)
    col = Column(header, where, theirs, 1.0, "force", sources[0].rows, "")
    if "+" in leg:
        key = f"ours: {source} To {target} (Fore) + (Aft) - {comp} [{corner}]"
    else:
        leg_word = leg.split(",")[0]
        key = (
            f"ours: {source} To {target} ({leg_word}) less its pivot-axis part - {comp} [{corner}]"
        )
    res = ChannelResult(col, key, ours, theirs, tol["force"])
    res.notes = diagnose(res)
    return res
