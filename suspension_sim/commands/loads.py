"""``suspension-sim loads``: forces in every link and pickup of one pose under load cases."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from suspension_sim.commands.solve import add_pose_arguments, solve_pose
from suspension_sim.errors import InputError

PARAMETER_OPTIONS = {"path": "--out", "mass_kg": "--mass", "front_weight": "--front-weight"}
"""Library parameter -> this command's option, for error messages."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "loads",
        help="forces in every link, damper and chassis pickup for load cases",
        description="Solve one pose (strokes in mm, + = compression; rack in mm; chassis "
        "x y z in mm, roll pitch yaw in deg) and compute the static forces in every joint "
        "for the workbook's Load Cases, or for the standard cases with --mass "
        "(docs/loads.md). Forces in N, world frame, axial + = tension.",
    )
    add_pose_arguments(p)
    p.add_argument(
        "--case",
        action="append",
        default=None,
        metavar="NAME",
        help="only this case (repeat for several; default: every case)",
    )
    p.add_argument(
        "--mass",
        type=float,
        default=None,
        metavar="KG",
        help="use the standard cases (braking, acceleration, cornering, combined, bump) for "
        "a car of this mass, with CG height, brake and drive shares from User Options",
    )
    p.add_argument(
        "--front-weight",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="static front weight share for --mass (0..1, default 0.5)",
    )
    p.add_argument(
        "--application",
        choices=("contact", "design"),
        default=None,
        help="where every case's contact-patch force acts: contact = the pose's contact "
        "point, design = the line through the design contact point (OptimumK's force "
        "cases); default: as each case says (the Load Cases section's Application column)",
    )
    p.add_argument(
        "--sweep",
        metavar="MOTION",
        default=None,
        help="loads at every step of a motion instead of one pose: a standard motion (heave, "
        "roll, pitch, steer, bump:WHEEL, stroke:DAMPER, rack, chassis:AXIS) or a named sweep, "
        "as in the sweep command; the tables gain a step column",
    )
    p.add_argument(
        "--from", dest="start", type=float, default=None, metavar="A", help="--sweep's start"
    )
    p.add_argument("--to", dest="stop", type=float, default=None, metavar="B", help="its end")
    p.add_argument("--steps", type=int, default=None, metavar="N", help="its number of steps")
    p.add_argument("--sweeps", metavar="FILE.yaml", default=None, help="sweep definitions")
    p.add_argument("--out", default=None, help="write the load table to .csv, .xlsx or .parquet")
    p.add_argument("--chart", default=None, metavar="PNG", help="bar chart of member forces")
    p.add_argument(
        "--view",
        default=None,
        metavar="PNG",
        help="3-D image of the pose with every member coloured by its axial force "
        "(+ tension / - compression) and the contact-patch loads as arrows, for the first "
        "--case (off-screen; docs/loads.md)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing .xlsx output")
    p.add_argument("--tolerance", type=float, default=None, help="solver tolerance (mm)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.loads import car_cases, solve_loads
    from suspension_sim.loads.sheet import load_cases_sheet
    from suspension_sim.names import did_you_mean
    from suspension_sim.outputs.tables import check_table_path

    if args.out:
        check_table_path(
            args.out,
            option="--out",
            protect=args.workbook,
            force=args.force,
            suggest_add_sheet=False,
        )
    if args.chart:
        from suspension_sim.files import check_output

        check_output(args.chart, where="--chart")
        try:
            same = Path(args.chart).resolve() == Path(args.workbook).resolve()
        except OSError:
            same = False
        if same:
            raise InputError(
                "would overwrite the workbook with the chart",
                where="--chart",
                hint="give the chart its own .png file name",
            )
    if args.view:
        _check_image(args.view, args.workbook)
    _check_sweep_options(args)
    if args.tolerance is not None and not (args.tolerance > 0):
        raise InputError("must be positive", where="--tolerance")
    if args.view:
        from suspension_sim.viz.probe import ensure_rendering

        ensure_rendering()  # fail fast without GL (exit 4), before the load and solve
    model = load(args.workbook)
    cases = load_cases_sheet(args.workbook, model.car)
    if args.mass is not None:
        try:
            cases += car_cases(model, args.mass, front_weight=args.front_weight)
        except InputError as exc:
            where = {"mass_kg": "--mass", "front_weight": "--front-weight"}.get(
                exc.where or "", exc.where
            )
            raise InputError(exc.message, where=where, hint=exc.hint) from None
    if not cases:
        raise InputError(
            "no load cases: the workbook has no Load Cases section, or it is empty",
            where=args.workbook,
            hint="add a Load Cases section (docs/loads.md), or give --mass KG for the "
            "standard cases",
        )
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InputError(
            f"load case {twice!r} is defined twice (Load Cases section and --mass)",
            where="--mass",
            hint="rename the workbook's case",
        )
    if args.case:
        for name in args.case:
            if name not in names:
                raise InputError(
                    f"no load case {name!r}." + did_you_mean(name, names),
                    where="--case",
                    hint=f"the cases are {', '.join(names)}",
                )
        cases = [c for c in cases if c.name in args.case]
    if args.application is not None:
        cases = [with_application(c, args.application) for c in cases]
    if args.sweep is not None:
        return _run_sweep(args, model, cases)
    pose = solve_pose(model, args)
    if not pose.converged:
        print(f"error: {pose.failure}", file=sys.stderr)
        print("no loads: the pose did not close", file=sys.stderr)
        return 3
    result = solve_loads(pose, cases)
    if result.determinate:
        print(
            "no redundant joints: statics fixes every force except where the table's "
            "'basis' says otherwise (pivot axial splits, arms in bending)"
        )
    else:
        print(f"warning: {result.message}")
    for line in summary_lines(result):
        print(line)
    if args.out:
        _write(result, args)
    if args.chart:
        from suspension_sim.loads.charts import member_force_figure
        from suspension_sim.outputs.plots import save_figure

        fig = member_force_figure(result, result.cases[0])
        print(f"wrote {save_figure(fig, args.chart, option='--chart')} ({result.cases[0]})")
    if args.view:
        from suspension_sim.viz.loads_view import render_member_forces

        out = render_member_forces(result, result.cases[0], args.view, pose, where="--view")
        print(f"wrote {out} ({result.cases[0]})")
        if len(result.cases) > 1:
            print(f"note: --view draws one case, the first ({result.cases[0]}); pick with --case")
    return 0


def with_application(case: Any, application: str) -> Any:
    """The case with every wheel's force applied as `application` (contact or design)."""
    import dataclasses

    wheels = {
        w: dataclasses.replace(load, application=application) for w, load in case.wheels.items()
    }
    return dataclasses.replace(case, wheels=wheels)


def _check_sweep_options(args: argparse.Namespace) -> None:
    """--sweep replaces the pose options and draws no single pose; the range options
    need it."""
    if args.sweep is None:
        for option, value in (("--from", args.start), ("--to", args.stop), ("--steps", args.steps)):
            if value is not None:
                raise InputError("needs --sweep", where=option, hint="e.g. --sweep heave")
        return
    given = [
        option
        for option, used in (
            ("--shocks", args.shocks is not None),
            ("--rack", args.rack != 0.0),
            ("--chassis", any(v != 0.0 for v in args.chassis)),
            ("--chart", args.chart is not None),
            ("--view", args.view is not None),
            ("--tolerance", args.tolerance is not None),
        )
        if used
    ]
    if given:
        raise InputError(
            f"{given[0]} is for one pose; --sweep solves every step of its motion",
            where=given[0],
            hint="drop it, or drop --sweep (a named sweep can hold inputs: docs/sweeps.md)",
        )


def _run_sweep(args: argparse.Namespace, model: Any, cases: list[Any]) -> int:
    """Loads at every solved step of a motion: one table with a step column (N, world)."""
    from suspension_sim.loads import sweep_loads
    from suspension_sim.sweeps.run import run_sweep
    from suspension_sim.sweeps.standard import choose_sweep

    chosen = choose_sweep(
        model,
        args.workbook,
        args.sweep,
        args.sweeps,
        start=args.start,
        stop=args.stop,
        steps=args.steps,
    )
    if chosen.note:
        print(f"note: {chosen.note}")
    sweep = run_sweep(model, chosen.spec)
    if not sweep.poses:
        print(sweep.summary(), file=sys.stderr)
        print("no loads: no step of the sweep closed", file=sys.stderr)
        return 3
    result = sweep_loads(sweep.poses, cases, steps=sweep.steps)
    print(f"{model.car.name}: {chosen.spec.name}, {len(sweep.steps)} steps, {len(cases)} case(s)")
    if not result.determinate:
        print(f"warning: {result.message}")
    for case in result.cases:
        inp = result.inputs[result.inputs["case"] == case]
        parts = [
            f"{name} {_n(group.force_N.min())}..{_n(group.force_N.max())}"
            for name, group in inp.groupby("input", observed=True, sort=False)
        ]
        members = result.members()
        members = members[members["case"] == case]
        print(f"case {case}:")
        print(f"  inputs over the sweep [N] (damper + = compression): {', '.join(parts)}")
        if len(members):
            top = members.iloc[int(members["axial_N"].abs().to_numpy().argmax())]
            print(
                f"  largest member force: {top['member']} {top['axial_N']:+.0f} N at step "
                f"{int(top['step'])} (+ = tension)"
            )
    if args.out:
        _write(result, args)
    print(sweep.summary())
    return 0 if sweep.ok else 3


def _write(result: Any, args: argparse.Namespace) -> None:
    """Write the load table to --out (never over the workbook)."""
    from suspension_sim.outputs.tables import write_table

    path = write_table(
        result.table,
        args.out,
        option="--out",
        protect=args.workbook,
        force=args.force,
        sheet_name="Loads",
    )
    print(f"wrote {path} ({len(result.table)} rows)")


def _check_image(path: str, workbook: str) -> None:
    """Refuse a --view file that cannot be an image or would replace the workbook."""
    from suspension_sim.files import check_output
    from suspension_sim.viz.render import IMAGE_SUFFIXES

    target = Path(path)
    if target.suffix.lower() not in IMAGE_SUFFIXES:
        raise InputError(
            f"cannot write an image as {target.suffix or 'a file without extension'!r}",
            where="--view",
            hint="name the image .png (or .jpg, .bmp, .tif)",
        )
    check_output(target, where="--view")
    try:
        same = target.resolve() == Path(workbook).resolve()
    except OSError:
        same = False
    if same:
        raise InputError(
            "would overwrite the workbook with the image",
            where="--view",
            hint="give the image its own .png file name",
        )


def summary_lines(result: object) -> list[str]:
    """Per case: damper and rack forces, jacking per axle, the largest member force (N)."""
    r = result  # a LoadResult
    lines: list[str] = []
    for case in r.cases:  # type: ignore[attr-defined]
        inp = r.inputs[r.inputs["case"] == case]  # type: ignore[attr-defined]
        parts = [f"{row.input} {_n(row.force_N)}" for row in inp.itertuples()]
        jack = r.jacking[r.jacking["case"] == case]  # type: ignore[attr-defined]
        axles = [f"{row.where} {_n(row.jacking_N)}" for row in jack.itertuples()]
        members = r.members()  # type: ignore[attr-defined]
        members = members[members["case"] == case]
        lines.append(f"case {case}:")
        lines.append(f"  inputs [N] (damper + = compression): {', '.join(parts) or '(none)'}")
        lines.append(f"  jacking [N] (+ = lifts the chassis): {', '.join(axles) or '(none)'}")
        elements = getattr(r, "elements", None)
        if elements is not None and len(elements):
            rows = elements[elements["case"] == case]
            lines.append(f"  springs and bars: {', '.join(_element(e) for e in rows.itertuples())}")
        if len(members):
            top = members.loc[members["axial_N"].abs().idxmax()]
            note = "" if top["determinate"] else f" [{top['basis']}]"
            lines.append(
                f"  largest member force: {top['member']} {top['axial_N']:+.0f} N "
                f"(+ = tension){note}"
            )
    return lines


def _element(row: object) -> str:
    """One third spring (compression mm, force N) or bar (twist deg, torque N m)."""
    e = row  # a row of LoadResult.elements
    if e.kind == "third spring":  # type: ignore[attr-defined]
        return f"{e.element} {e.deflection:+.2f} mm {_n(e.force_N)} N"  # type: ignore[attr-defined]
    return f"{e.element} twist {e.deflection:+.3f} deg {e.torque_Nm:+.1f} N m"  # type: ignore[attr-defined]


def _n(value: float) -> str:
    """A force in whole newtons with its sign, without '-0'."""
    return f"{(value if abs(value) >= 0.5 else 0.0):+.0f}"
