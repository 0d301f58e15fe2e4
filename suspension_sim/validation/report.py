"""Write a validation report: report.md, PNG overlay plots and comparison.csv.

Layout of REPORT_DIR (created if missing)::

    report.md          verdict, inputs, table of deviations, failing channels, plots
    comparison.csv     per step: theirs, ours and ours - theirs for every channel
    plots/<quantity>.png   one figure per quantity: a column per corner/axle, ours
                       over theirs on top, the difference with the tolerance band below
    plots/motion.png   the motion inputs taken from the export

matplotlib (Agg) is imported only here, when a report is written. Nothing
outside REPORT_DIR is written, and nothing is written over the workbook or
the export.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import write_atomically, write_text_atomically
from suspension_sim.validation.export import Export
from suspension_sim.validation.quantities import CORNERS
from suspension_sim.validation.results import (
    CONVENTION,
    RELATIVE_TOLERANCE,
    ChannelResult,
    Validation,
)

LOCATION_ORDER = {name: i for i, name in enumerate((*CORNERS, "Front", "Rear", ""))}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "channel"


def _fmt(value: float, digits: int = 4) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0:
        return "0"
    return f"{value:.{digits}g}" if abs(value) >= 1e-3 else f"{value:.2e}"


def _rel(path: str | Path, base: Path) -> str:
    """`path` relative to the report folder `base` when they share a parent below the
    file-system root (a report kept beside its data stays valid when moved with it);
    the absolute path otherwise."""
    target, folder = Path(path).resolve(), base.resolve()
    try:
        common = Path(os.path.commonpath([target, folder]))
    except ValueError:  # another drive on Windows
        return str(target)
    if common == Path(common.anchor):
        return str(target)
    return os.path.relpath(target, folder)


def prepare_dir(out: str | Path, protect: Sequence[str | Path]) -> Path:
    """Create REPORT_DIR if missing; refuse a file or a folder that holds a protected input."""
    d = Path(out)
    if d.exists() and not d.is_dir():
        raise InputError(
            f"{d} exists and is not a folder", where="out", hint="give a folder for the report"
        )
    for p in protect:
        if Path(p).resolve() in (d.resolve() / "report.md", d.resolve() / "comparison.csv"):
            raise InputError(
                f"writing the report into {d} would overwrite {p}",
                where="out",
                hint="choose another folder",
            )
    try:
        (d / "plots").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create {d}: {exc.strerror}", where="out") from None
    return d


def write_report(
    v: Validation,
    out: str | Path,
    *,
    plots: bool = True,
    protect: Sequence[str | Path] = (),
    title: str | None = None,
) -> Path:
    """Write the report folder; returns the path of report.md."""
    d = prepare_dir(out, [v.workbook, v.export.path, *protect])
    ordered = sorted(
        v.channels, key=lambda c: (_quantity_order(v, c), LOCATION_ORDER.get(c.location, 99))
    )
    _write_csv(v, ordered, d / "comparison.csv")
    figures: list[tuple[str, str]] = []
    if plots:
        figures = _write_plots(v, ordered, d / "plots")
    text = _markdown(v, ordered, d, figures, title)
    path = d / "report.md"
    with _writing(path):
        write_text_atomically(path, text)
    return path


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Turn an OSError while writing `path` into an InputError naming --out."""
    try:
        yield
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}", where="out") from None


def _quantity_order(v: Validation, c: ChannelResult) -> int:
    names = list(dict.fromkeys(ch.quantity for ch in v.channels))
    return names.index(c.quantity)


# -- markdown ----------------------------------------------------------------------------
def _markdown(
    v: Validation,
    ordered: list[ChannelResult],
    d: Path,
    figures: list[tuple[str, str]],
    title: str | None,
) -> str:
    from suspension_sim.version import __version__

    verdict = "PASS" if v.passed else "FAIL"
    export = v.export
    n_cmp = len(v.compared)
    lines = [f"# {title or _title(v)}", ""]
    if v.preface:  # said before anything else (a result file's check of its own car)
        lines += [v.preface[0], ""] + [f"- {p.strip()}" for p in v.preface[1:]]
        lines += [""] if len(v.preface) > 1 else []
    lines += [
        f"**Result: {verdict}.** {v.summary().split(': ', 1)[-1]}",
        "",
        "| | |",
        "|---|---|",
        f"| Workbook | `{_rel(v.workbook, d)}` |",
        f"| Export | `{_rel(export.path, d)}`: {export.n_steps} steps, {n_cmp} channels compared |",
        f"| Drive | {_drive_text(v)} |",
        f"| Inputs taken from the export | {', '.join(f'`{i}`' for i in v.inputs) or 'none'} |",
        _definitions_row(v),
        f"| Channel map | {v.channel_map.source or 'default (docs/validation.md)'} |",
        f"| Tolerances (largest deviation) | {_fmt(v.tolerances['angle'])} deg for angles, "
        f"{_fmt(v.tolerances['length'])} mm for lengths, {_fmt(v.tolerances['ratio'])} for "
        f"ratios, {_fmt(v.tolerances.get('percent', float('nan')))} % for percentages"
        + (
            f", {_fmt(v.tolerances['gain'])} deg/mm for gains; ratios and gains also "
            f"{_fmt(RELATIVE_TOLERANCE)} x the largest value the export gives |"
            if v.style == "optimumk"
            else " |"
        )
        + _force_tolerances(v),
        f"| suspension_sim | {__version__} |",
        "",
        "Deviation = ours - theirs, over every step where the export has a value.",
        "",
    ]
    if export.notes:
        lines += ["Comment lines of the export:", ""] + [f"- {n}" for n in export.notes] + [""]
    lines += reading_notes(export)
    if v.failed_channels or v.failed_steps:
        lines += ["## What failed", ""]
        for s in v.failed_steps[:20]:
            reason = (s.failure or "").splitlines()[0]
            lines.append(f"- step {_step_label(v, s.index)}: not solved: {reason}")
        if len(v.failed_steps) > 20:
            lines.append(f"- ... and {len(v.failed_steps) - 20} more steps not solved")
        for c in ordered:
            if c.passed:
                continue
            at = _step_label(v, c.at_step) if c.at_step is not None else "n/a"
            text = (
                f"- **{c.channel}** (`{c.column.header.text}` vs `{c.key}`): largest deviation "
                f"{_fmt(c.max_abs)} {c.unit} at step {at}, RMS {_fmt(c.rms)} {c.unit} "
                f"(tolerance {_fmt(c.tolerance)} {c.unit})"
            )
            if c.notes:
                text += "; " + "; ".join(c.notes)
            lines.append(text)
        moved = _moved_corners(ordered)
        if moved:
            lines += ["", "Out of tolerance by corner/axle: " + moved + "."]
        lines.append("")
    lines += [
        "## Deviation per channel",
        "",
        "| Channel | Corner | Unit | Largest abs. deviation | at step | RMS | Mean | "
        "Tolerance | Result | Compared with |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in ordered:
        result = "input" if c.role == "input" else ("pass" if c.passed else "**FAIL**")
        at = _step_label(v, c.at_step) if c.at_step is not None else "n/a"
        lines.append(
            f"| {c.quantity} | {c.location or '-'} | {c.unit} | {_fmt(c.max_abs)} | {at} | "
            f"{_fmt(c.rms)} | {_fmt(c.mean)} | {_fmt(c.tolerance)} | {result} | `{c.key}` |"
        )
    lines.append("")
    inputs = [c for c in ordered if c.role == "input"]
    if inputs:
        lines += [
            "Channels marked *input* drove the model (`--drive dampers`); their deviation "
            "shows how closely the solved damper lengths follow the export, and is not judged.",
            "",
        ]
    if v.warnings:
        lines += ["## Notes", ""] + [f"- {w}" for w in v.warnings] + [""]
    if export.ignored or v.not_computed or v.not_compared:
        lines += ["## Columns not compared", ""]
    if v.style == "optimumk":
        lines += not_compared_lines(v.not_compared)
    elif export.ignored:
        lines += [
            "Not channels of the default map or the map file (add them with `--map` to "
            "compare them), each quantity once with the corners, axles or sides it has:",
            "",
            ", ".join(group_channels(export.ignored)),
            "",
        ]
    if v.not_computed:
        lines += [
            "Channels of the default map that this car has no value for:",
            "",
            ", ".join(f"`{t}`" for t in v.not_computed),
            "",
        ]
    if figures:
        lines += ["## Plots", ""]
        for name, rel in figures:
            lines += [f"### {name}", "", f"![{name}]({rel})", ""]
    lines += [
        "## Files",
        "",
        "- `comparison.csv`: every step, for every channel: theirs, ours, ours - theirs.",
        "- `plots/`: the figures above.",
        "",
    ]
    return "\n".join(lines)


def _force_tolerances(v: Validation) -> str:
    """The force and moment tolerances, as a line of their own, when force channels are
    compared ("" otherwise)."""
    dims = {c.column.dimension for c in v.compared}
    if not dims & {"force", "moment"}:
        return ""
    return (
        f"\n| Tolerances of force channels | {_fmt(v.tolerances['force'])} N for forces, "
        f"{_fmt(v.tolerances['moment'])} N m for moments |"
    )


def not_compared_lines(items: Sequence[tuple[str, str]]) -> list[str]:
    """Markdown lines: OptimumK channels not compared, grouped by reason (`NOT_COMPARED_REASONS`),
    each quantity once with the corners, axles or sides it has and, where the reason has
    one, the detail (``OptimumK's definition not established: <why>``)."""
    from suspension_sim.validation.okcompare import NOT_COMPARED_REASONS

    groups: dict[str, dict[str, list[str]]] = {}
    for text, reason in items:
        head = next((r for r in NOT_COMPARED_REASONS if reason.startswith(r)), reason)
        detail = reason[len(head) :].lstrip(": ").strip()
        groups.setdefault(head, {}).setdefault(detail, []).append(text)
    order = {r: i for i, r in enumerate(NOT_COMPARED_REASONS)}
    lines: list[str] = []
    for head in sorted(groups, key=lambda r: (order.get(r, len(order)), r)):
        by_detail = groups[head]
        n = sum(len(t) for t in by_detail.values())
        lines += [f"**Not compared: {head}** ({n} channel{'s' if n > 1 else ''}):", ""]
        if list(by_detail) == [""]:
            lines += [", ".join(group_channels(by_detail[""])), ""]
            continue
        for detail, texts in by_detail.items():
            lines.append(
                f"- {', '.join(group_channels(texts))}" + (f": {detail}" if detail else "")
            )
        lines.append("")
    return lines


def _definitions_row(v: Validation) -> str:
    if v.style == "optimumk":
        return (
            "| Definitions of our values | OptimumK's own, channel by channel "
            "(`suspension_sim.optimumk.channels`, docs/validation.md) |"
        )
    return (
        f"| Definitions of our metrics | `{CONVENTION}` preset (docs/conventions.md): toe = "
        "wheel-plane toe, + = toe-out; steer = its change, + = left; scrub and trail in the "
        "vehicle's views from OptimumK's contact patch |"
    )


def reading_notes(export: Export) -> list[str]:
    """Markdown lines: the export's title block, skipped rows and conversions."""
    lines: list[str] = []
    if export.title:
        pairs = [f"{k}: {val}" if val else k for k, val in export.title]
        lines += ["Title block of the export: " + "; ".join(pairs) + ".", ""]
    if export.skipped:
        lines += [
            f"Skipped {len(export.skipped)} statistic row(s) of the export's table view "
            "(not steps): " + ", ".join(export.skipped) + ".",
            "",
        ]
    for note in export.reading:
        lines += [f"Reading the export: {note}.", ""]
    return lines


def group_channels(texts: Sequence[str]) -> list[str]:
    """Header texts grouped by quantity, each once: ``Bump Steer [Front Left, Front Right]``."""
    from suspension_sim.validation.headers import name_location, quantity_words, split_unit
    from suspension_sim.validation.okheaders import parse_optimumk_header

    groups: dict[str, list[str]] = {}
    for text in texts:
        ok = parse_optimumk_header(text)
        if ok is not None and ok.kind != "motion" and (ok.side or ok.axle):
            base, loc = ok.quantity, ok.location  # only OptimumK's tags are the location
        else:
            name, _unit = split_unit(text)
            loc = name_location(name)
            base = quantity_words(name, loc) or name
        places = groups.setdefault(base, [])
        if loc is not None and loc not in places:
            places.append(loc)
    return [f"`{base}`" + (f" ({', '.join(p)})" if p else "") for base, p in groups.items()]


def _title(v: Validation) -> str:
    kind = (
        "OptimumK result file"
        if v.export.path.suffix.lower() == ".o2res"
        else "OptimumK export layout"
    )
    return f"Validation of {Path(v.workbook).name} against {v.export.path.name} ({kind})"


def _drive_text(v: Validation) -> str:
    if v.style == "optimumk":
        return (
            "OptimumK's motion style (docs/conventions.md): step by step, the heave "
            "increment along world Z, the roll increment about the line through step 0's "
            "front and rear roll centres, the pitch increment about the line through step "
            "0's left and right pitch centres; rack = Motion [Steering] x the Steering "
            "ratio; every tyre held at its own design contact-patch height"
        )
    if v.drive == "motion":
        return (
            "`motion`: chassis heave/roll/pitch and steer from the export's motion channels "
            "(about the workbook's chassis reference point), every tyre contact point held on "
            "the ground (z = 0)"
        )
    return (
        "`dampers`: every damper's stroke = design length - the export's damper length; rack "
        "and chassis pose from the motion channels when present (tyres not held on the ground)"
    )


def _step_label(v: Validation, index: int | None) -> str:
    if index is None:
        return "n/a"
    value = v.export.steps[index]
    return f"{int(value)}" if float(value).is_integer() else f"{value:g}"


def _moved_corners(ordered: list[ChannelResult]) -> str:
    by_loc: dict[str, list[str]] = {}
    for c in ordered:
        if not c.passed:
            by_loc.setdefault(c.location or "car", []).append(c.quantity)
    return "; ".join(f"{loc}: {', '.join(q)}" for loc, q in by_loc.items())


# -- comparison.csv ---------------------------------------------------------------------------
def _write_csv(v: Validation, ordered: list[ChannelResult], path: Path) -> None:
    data: dict[str, np.ndarray] = {"step": v.export.steps}
    if len(v.steps) == len(v.export.steps):  # none when the motion was not driven
        data["solved"] = np.array([s.ok for s in v.steps])
    for c in ordered:
        name = f"{c.channel} [{c.unit}]"
        data[f"theirs: {name}"] = c.theirs
        data[f"ours: {name}"] = c.ours
        data[f"ours - theirs: {name}"] = c.diff
    table = pd.DataFrame(data)
    with _writing(path):
        write_atomically(path, lambda tmp: table.to_csv(tmp, index=False, float_format="%.9g"))


# -- plots ------------------------------------------------------------------------------------
def _write_plots(
    v: Validation, ordered: list[ChannelResult], folder: Path
) -> list[tuple[str, str]]:
    import matplotlib.pyplot as plt

    written: list[tuple[str, str]] = []
    for title, name, fig in iter_comparison_figures(v, ordered):
        _save_figure(fig, folder / name, dpi=90 if name == "motion.png" else 80)
        plt.close(fig)
        written.append((title, f"plots/{name}"))
    return written


def comparison_figures(
    v: Validation, ordered: Sequence[ChannelResult] | None = None
) -> list[tuple[str, str, Any]]:
    """(title, file name, matplotlib Figure) of every report chart, not yet saved.

    The export's motion channels against step, then one figure per quantity:
    ours over theirs on top, ours - theirs with the tolerance band below.
    """
    return list(iter_comparison_figures(v, ordered))


def iter_comparison_figures(
    v: Validation, ordered: Sequence[ChannelResult] | None = None
) -> Iterator[tuple[str, str, Any]]:
    """`comparison_figures` one at a time, so a caller can save and close each (an
    OptimumK export has dozens of quantities)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    if ordered is None:
        ordered = list(v.channels)
    x = v.export.steps
    motion = v.export.motion()
    if motion:
        fig, ax = plt.subplots(figsize=(7.5, 2.8), constrained_layout=True)
        for col in motion.values():
            ax.plot(x, col.values, label=f"{col.channel} [{col.unit}]")
        ax.set_xlabel("step")
        ax.set_title("Motion from the export")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8, loc="best")
        yield "Motion", "motion.png", fig
    groups: dict[str, list[ChannelResult]] = {}
    for c in ordered:
        groups.setdefault(c.quantity, []).append(c)
    for quantity, chans in groups.items():
        n = len(chans)
        fig, axes = plt.subplots(
            2,
            n,
            figsize=(max(3.2 * n, 5.0), 4.6),
            sharex=True,
            squeeze=False,
            constrained_layout=True,
            gridspec_kw={"height_ratios": [3, 2]},
        )
        for j, c in enumerate(chans):
            top, bottom = axes[0, j], axes[1, j]
            top.plot(x, c.theirs, color="0.45", lw=3.0, alpha=0.6, label="export")
            top.plot(x, c.ours, color="tab:blue", lw=1.2, label="suspension_sim")
            state = "input" if c.role == "input" else ("pass" if c.passed else "FAIL")
            top.set_title(f"{c.location or quantity} ({state})", fontsize=9)
            top.grid(True, alpha=0.3)
            if j == 0:
                top.set_ylabel(f"{quantity} [{c.unit}]", fontsize=8)
                top.legend(fontsize=7, loc="best")
            bottom.plot(x, c.diff, color="tab:red" if not c.passed else "tab:green", lw=1.0)
            bottom.axhspan(-c.tolerance, c.tolerance, color="0.85", zorder=0)
            bottom.axhline(0.0, color="0.5", lw=0.6)
            bottom.text(
                0.02,
                0.95,
                f"max |ours - theirs| = {_fmt(c.max_abs, 3)} {c.unit}",
                transform=bottom.transAxes,
                fontsize=7,
                va="top",
            )
            bottom.grid(True, alpha=0.3)
            bottom.set_xlabel("step", fontsize=8)
            if j == 0:
                bottom.set_ylabel(f"ours - theirs [{c.unit}]", fontsize=8)
            for ax in (top, bottom):
                ax.tick_params(labelsize=7)
        fig.suptitle(quantity, fontsize=10)
        yield quantity, f"{_slug(quantity)}.png", fig


def _save_figure(fig: Any, path: Path, *, dpi: int) -> None:
    """Save a matplotlib figure as PNG at `path` (`dpi` dots per inch), atomically."""
    with _writing(path):
        write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=dpi, format="png"))
