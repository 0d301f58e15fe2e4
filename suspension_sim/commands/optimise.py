"""``suspension-sim optimise WORKBOOK SPEC.yaml --out NEW.xlsx``: move hardpoints toward targets.

The spec names the design variables (hardpoint coordinates with ranges, as a DOE study),
the objectives (least squares of normalised violations) and the constraints (metric
bands at design, over or at a motion; link lengths; packaging boxes). Writes the best
design as a new workbook (never the input) and, with --report, a report: before/after
tables (Markdown + CSV), which constraints bind, one chart per targeted metric over its
motion. docs/exploration.md, "Optimisation".
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from suspension_sim.errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from suspension_sim.explore.optimise import OptimiseResult

HELP = "move hardpoints toward kinematic targets (SLSQP, analytic gradients); writes a new workbook"
PARAMETER_OPTIONS = {
    "out": "--out",
    "starts": "--starts",
    "report": "--report",
    "seed": "--seed",
    "gradients": "--gradients",
}
"""Library parameter -> this command's option, for error messages (see `cli`)."""
MAX_STARTS = 1024
REPORT_FILES = ("optimise.md", "terms.csv", "variables.csv", "starts.csv")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "optimise",
        help=HELP,
        description=__doc__.splitlines()[0],
        epilog="Exit 0 = every objective and constraint met, 1 = the best design found does "
        "not meet them all (it is still written; the report says which), 2 = bad input.",
    )
    p.add_argument("workbook", metavar="WORKBOOK", help="the car's .xlsx workbook (never written)")
    p.add_argument("spec", metavar="SPEC.yaml", help="variables, objectives, constraints")
    p.add_argument("--out", metavar="NEW.xlsx", required=True, help="the optimised workbook")
    p.add_argument("--report", metavar="DIR", default=None, help="folder for the report (created)")
    p.add_argument(
        "--starts",
        type=int,
        default=1,
        metavar="N",
        help="optimiser runs: the first from the design, the others from a Sobol sample of "
        "the variable ranges (default 1)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the Sobol starts (default 0)")
    p.add_argument(
        "--gradients",
        choices=("auto", "analytic", "finite"),
        default="auto",
        help="analytic (implicit function theorem) where the sensitivities cover a metric, "
        "finite differences, or auto: the cheaper on this problem (default)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --out / report")
    p.set_defaults(run=run)


def check_paths(args: argparse.Namespace) -> Path | None:
    """Refuse bad outputs before any work (suspension_sim.files rules); the report folder."""
    from suspension_sim.files import check_output, refuse_existing, same_file

    if not 1 <= args.starts <= MAX_STARTS:
        raise InputError(f"{args.starts} starts", where="--starts", hint=f"give 1 to {MAX_STARTS}")
    if not 0 <= args.seed < 2**32:
        raise InputError(f"seed {args.seed}", where="--seed", hint="give 0 to 2**32 - 1")
    if Path(args.out).suffix.lower() != ".xlsx":
        raise InputError(
            f"{args.out!r} is not an .xlsx file name", where="--out", hint="name it NEW.xlsx"
        )
    if same_file(args.out, args.workbook):
        raise InputError(
            f"{args.out} is the input workbook; optimise never overwrites it",
            where="--out",
            hint="choose another file name",
        )
    check_output(args.out, where="--out")
    refuse_existing(args.out, force=args.force, where="--out", what="the optimised workbook")
    if args.report is None:
        return None
    report = check_output(args.report, where="--report", folder=True)
    if same_file(report, args.workbook):
        raise InputError(f"{report} is the input workbook", where="--report")
    if report.is_dir() and not args.force:
        for name in REPORT_FILES:
            refuse_existing(report / name, force=False, where="--report", what="the report")
    return report


def run(args: argparse.Namespace) -> int:
    from suspension_sim import load
    from suspension_sim.explore.optimise import optimise
    from suspension_sim.explore.targets_spec import read_spec
    from suspension_sim.workbook.writer import write_car

    report = check_paths(args)
    spec = read_spec(args.spec)
    model = load(args.workbook)
    print(
        f"{model.car.name}: {len(spec.variables)} variable(s), {len(spec.terms)} term(s), "
        f"{len(spec.motions)} motion(s), {args.starts} start(s)",
        flush=True,
    )
    result = optimise(
        model,
        spec,
        starts=args.starts,
        seed=args.seed,
        workbook=args.workbook,
        gradients=args.gradients,
    )
    notes = [
        f"Optimised by suspension-sim optimise from {Path(args.workbook).name} "
        f"with {Path(args.spec).name}.",
        "Moved: "
        + ", ".join(
            f"{v.name} {d:+.4f} mm" for v, d in zip(spec.variables, result.offsets, strict=True)
        ),
    ]
    written = write_car(result.car, args.out, force=args.force, notes=notes)
    print(summary_text(result))
    print(f"wrote {written}")
    if report is not None:
        for path in write_report(result, report, Path(args.workbook).name, Path(args.spec).name):
            print(f"wrote {path}")
    return 0 if result.met else 1


def summary_text(result: OptimiseResult) -> str:
    """The console summary: objective, each term before -> after, the variables."""
    lines = [
        f"objective {result.objective_before:.6g} -> {result.objective_after:.6g} "
        f"({result.evaluations} evaluations, {result.gradient_evaluations} gradients, "
        f"{result.seconds:.1f} s); "
        + ("every target met" if result.met else "NOT every target met")
        + ("" if result.feasible else " (constraints not satisfied)")
    ]
    if result.reason:
        lines.append(f"the end design cannot be solved: {result.reason}")
    for o in result.outcomes:
        flag = "met" if o.met_after else "NOT met"
        binds = ", binds" if o.binds else ""
        show = _xyz if o.term.kind == "box" else _span
        lines.append(
            f"  {o.term.role:10s} {o.term.label}: {o.term.requirement}: "
            f"{show(o.before)} -> {show(o.after)} ({flag}{binds})"
        )
    for v, d in zip(result.variables, result.offsets, strict=True):
        end = " (at its range's end)" if v.name in result.at_bound else ""
        lines.append(f"  {v.name}: {d:+.4f} mm{end}")
    return "\n".join(lines)


def _xyz(values: object) -> str:
    """A point's coordinates, e.g. ``(-65, 221.2, 185.2)``."""
    import numpy as np

    return "(" + ", ".join(f"{v:.6g}" for v in np.asarray(values, dtype=float)) + ")"


def _span(values: object) -> str:
    import numpy as np

    a = np.asarray(values, dtype=float)
    if a.size == 0 or not np.isfinite(a).any():
        return "-"
    lo, hi = float(np.nanmin(a)), float(np.nanmax(a))
    return f"{lo:.6g}" if lo == hi else f"[{lo:.6g}, {hi:.6g}]"


def write_report(result: OptimiseResult, folder: Path, workbook: str, spec: str) -> list[Path]:
    """optimise.md, terms.csv, variables.csv, starts.csv and charts/*.png in `folder`."""
    import pandas as pd

    from suspension_sim.files import write_text_atomically
    from suspension_sim.outputs.chart_files import save_figures

    folder.mkdir(exist_ok=True)
    terms = result.terms_table()
    variables = result.variables_table()
    starts = pd.DataFrame(
        [
            {
                "start": k + 1,
                **{f"{v.name}_start_mm": float(s.start[j]) for j, v in enumerate(result.variables)},
                **{f"{v.name}_end_mm": float(s.end[j]) for j, v in enumerate(result.variables)},
                "objective": s.objective,
                "constraint_violation": s.violation,
                "iterations": s.iterations,
                "message": s.message,
            }
            for k, s in enumerate(result.starts)
        ]
    )
    written = []
    for name, table in (("terms.csv", terms), ("variables.csv", variables), ("starts.csv", starts)):
        written.append(write_text_atomically(folder / name, table.to_csv(index=False)))
    charts: list[tuple[Figure, Path]] = []
    chart_names: dict[int, str] = {}
    if result.series:
        (folder / "charts").mkdir(exist_ok=True)
    for i, (label, s, before, after) in result.series.items():
        term = result.spec.terms[i]
        name = f"charts/{i + 1:02d}_{term.metric}_{label.replace(' ', '_')}.png"
        chart_names[i] = name
        charts.append(
            (term_figure(term.label, label, s, before, after, term.metric), folder / name)
        )
    written += save_figures(charts, option="--report")
    text = report_markdown(result, terms, variables, chart_names, workbook, spec)
    written.insert(0, write_text_atomically(folder / "optimise.md", text))
    return written


def term_figure(
    title: str, motion: str, s: object, before: object, after: object, metric: str
) -> Figure:
    """A targeted metric over its motion, before and after (matplotlib Agg)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    ax.plot(s, before, marker="o", markersize=3, label="before")  # type: ignore[arg-type]
    ax.plot(s, after, marker="s", markersize=3, label="after")  # type: ignore[arg-type]
    ax.set_xlabel(motion)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


def _md_table(frame: object) -> str:
    import pandas as pd

    assert isinstance(frame, pd.DataFrame)
    cols = [str(c) for c in frame.columns]
    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = [f"{v:.6g}" if isinstance(v, float) else str(v) for v in row]
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(out)


def report_markdown(
    result: OptimiseResult,
    terms: object,
    variables: object,
    charts: dict[int, str],
    workbook: str,
    spec: str,
) -> str:
    """The Markdown report."""
    binding = [o.term.label for o in result.outcomes if o.binds]
    sources = sorted({(o.gradient, o.term.label) for o in result.outcomes})
    lines = [
        f"# Optimisation of {result.car.name}",
        "",
        f"Workbook `{workbook}`, spec `{spec}`: {len(result.variables)} variable(s), "
        f"{len(result.outcomes)} term(s), {len(result.starts)} start(s) (SLSQP).",
        "",
        f"- Objective (least squares of normalised violations): {result.objective_before:.6g} "
        f"-> {result.objective_after:.6g}",
        "- Result: "
        + ("every objective and constraint met" if result.met else "NOT every target met")
        + ("" if result.feasible else "; the constraints do not all hold"),
        f"- {result.evaluations} design evaluations, {result.gradient_evaluations} gradients, "
        f"{result.seconds:.1f} s",
        f"- Binding constraints: {', '.join(binding) if binding else 'none'}",
        f"- Variables at a range end: {', '.join(result.at_bound) if result.at_bound else 'none'}",
    ]
    if result.reason:
        lines.append(f"- The end design cannot be solved: {result.reason}")
    lines += ["", "## Variables (mm)", "", _md_table(variables), ""]
    lines += ["## Objectives and constraints", "", _md_table(terms), ""]
    lines += [
        "## Gradients",
        "",
        "`analytic (IFT)`: exact derivatives by the implicit function theorem "
        "(explore.sensitivity); `closed form`: link lengths and boxes; `finite differences`: "
        "forward differences of re-solved designs (step 0.001 mm), for the metrics the "
        "analytic path does not cover, and for every metric when --gradients finite or when "
        "--gradients auto found them cheaper per gradient on this problem.",
        "",
    ]
    lines += [f"- {label}: {src}" for src, label in sources]
    if charts:
        lines += ["", "## Charts", ""]
        for i, name in charts.items():
            lines.append(f"![{result.spec.terms[i].label}]({name})")
    lines.append("")
    return "\n".join(lines)
