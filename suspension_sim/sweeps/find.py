"""Finding sweep definitions: a YAML file, a workbook's Sweeps section, or a
sweeps.yaml beside the workbook (docs/sweeps.md).

`load_sweeps` reads one place; `find_sweep` looks a named sweep up where a
workbook's sweeps are kept, in order, and lists what exists when it is not
found. Split from `suspension_sim.sweeps.run` (which re-exports these names) so
the runner reads on its own.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from suspension_sim.errors import InputError
from suspension_sim.names import did_you_mean
from suspension_sim.sweeps.spec import SweepSpec

if TYPE_CHECKING:  # pragma: no cover
    from suspension_sim.model import KinematicModel


YAML_SUFFIXES = (".yaml", ".yml")


WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")


BESIDE_WORKBOOK = "sweeps.yaml"
"""A sweep file with this name next to a workbook is used when the workbook has no
Sweeps section (or lacks the sweep asked for)."""


def load_sweeps(path_or_workbook: str | os.PathLike[str] | KinematicModel) -> dict[str, SweepSpec]:
    """Sweep definitions by name from a YAML file or a workbook's Sweeps section.

    A workbook (or a `Model`, meaning its workbook) without a Sweeps section
    gives an empty dict. Errors name the file and line (YAML) or the sheet
    and cell (workbook).
    """
    if isinstance(path_or_workbook, str | os.PathLike):
        path = Path(path_or_workbook)
    else:
        source = path_or_workbook.car.source_path
        if source is None:
            return {}
        path = Path(source)
    suffix = path.suffix.lower()
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a sweep file", where=str(path))
    if not path.is_file():
        raise InputError(f"no such file: {path}", where=str(path), hint="check the path")
    if suffix in YAML_SUFFIXES:
        from suspension_sim.sweeps.yaml_file import load_yaml

        return load_yaml(path)
    if suffix in WORKBOOK_SUFFIXES:
        from suspension_sim.sweeps.sheet import load_sheet

        return load_sheet(path)
    raise InputError(
        f"cannot read sweeps from a {suffix or 'file without extension'}",
        where=str(path),
        hint="give a .yaml file or an .xlsx workbook with a Sweeps section",
    )


def named_sweeps(
    workbook: str | os.PathLike[str], sweep_file: str | os.PathLike[str] | None = None
) -> list[tuple[str, dict[str, SweepSpec]]]:
    """(place, sweeps by name) where a workbook's named sweeps are looked up, in order:
    `sweep_file` alone if given; else the workbook's Sweeps section, then a
    sweeps.yaml next to the workbook."""
    places: list[tuple[str, dict[str, SweepSpec]]] = []
    if sweep_file is not None:
        places.append((str(sweep_file), load_sweeps(sweep_file)))
    else:
        wb = Path(workbook)
        places.append((f"{wb} (Sweeps section)", load_sweeps(wb)))
        beside = wb.with_name(BESIDE_WORKBOOK)
        if beside.is_file():
            places.append((str(beside), load_sweeps(beside)))
    return places


def find_named_sweep(
    workbook: str | os.PathLike[str], name: str, sweep_file: str | os.PathLike[str] | None = None
) -> tuple[SweepSpec, str] | None:
    """(sweep, place) of the named sweep `name` (`named_sweeps`; the exact name, else the
    one equal to it ignoring case), or None."""
    places = named_sweeps(workbook, sweep_file)
    for place, specs in places:
        if name in specs:
            return specs[name], place
    for place, specs in places:  # a unique case-insensitive match
        loose = [n for n in specs if n.casefold() == name.casefold()]
        if len(loose) == 1:
            return specs[loose[0]], place
    return None


def find_sweep(
    workbook: str | os.PathLike[str], name: str, sweep_file: str | os.PathLike[str] | None = None
) -> SweepSpec:
    """The named sweep `name`: from `sweep_file` if given; else the workbook's Sweeps
    section, then a sweeps.yaml next to the workbook. InputError lists what exists
    (standard motions, which need no definition, are `suspension_sim.sweeps.standard`)."""
    found = find_named_sweep(workbook, name, sweep_file)
    if found is not None:
        return found[0]
    places = named_sweeps(workbook, sweep_file)
    known = sorted({n for _, specs in places for n in specs})
    near = did_you_mean(name, known)
    looked = "; ".join(p for p, _ in places)
    raise InputError(
        f"no sweep named {name!r}" + (f".{near}" if near else ""),
        where="sweep",
        hint=(f"sweeps defined: {', '.join(known)} " if known else "no sweeps are defined ")
        + f"(looked in {looked}; see docs/sweeps.md)",
    )
