"""What each OptimumK file of a project is (`describe`), for ``suspension-sim optimumk-info``:
type, name, version, dates and users, GUID, and what it refers to, the GUIDs resolved to
names among the files of the same project folder. A file that cannot be read is listed
with its error, never a crash.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from suspension_sim.workbook.optimumk_files.car import is_project, project_root
from suspension_sim.workbook.optimumk_files.definitions import (
    KIND_NAMES,
    KIND_OF_SUFFIX,
    Definition,
    ForceCaseDef,
    Header,
    MotionDef,
    SetupDef,
    SimulationDef,
    SuspensionDef,
    read_definition,
)
from suspension_sim.workbook.optimumk_files.stream import OptimumKFileError

RESULT_SUFFIX = ".o2res"


@dataclass
class FileInfo:
    """One file: what it is and what it refers to (`refers`: lines such as ``front
    suspension: Front R6 (Suspension/Front R6.O2Sus)``), or the error that stopped it."""

    path: Path
    kind: str
    name: str = ""
    version: str = ""
    guid: str = ""
    created: datetime | None = None
    created_by: str = ""
    modified: datetime | None = None
    modified_by: str = ""
    comment: str = ""
    refers: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    error: str | None = None


def _files(path: Path, *, recursive: bool = True) -> list[Path]:
    suffixes = {*KIND_OF_SUFFIX, RESULT_SUFFIX}
    if path.is_dir():
        found = path.rglob("*") if recursive else path.iterdir()
        return sorted(p for p in found if p.is_file() and p.suffix.lower() in suffixes)
    return [path]


def _info(path: Path, header: Header, kind: str) -> FileInfo:
    return FileInfo(
        path,
        kind,
        header.name,
        header.version,
        header.guid,
        header.created,
        header.created_by,
        header.modified,
        header.modified_by,
        header.comment,
    )


def _read(path: Path) -> tuple[FileInfo, Definition | None]:
    if path.suffix.lower() == RESULT_SUFFIX:
        return _result(path), None
    try:
        d = read_definition(path)
    except OptimumKFileError as exc:
        kind = KIND_NAMES.get(KIND_OF_SUFFIX.get(path.suffix.lower(), "motion"), "file")
        return FileInfo(path, kind, error=exc.render()), None
    return _info(path, d.header, KIND_NAMES[d.header.kind]), d


def _result(path: Path) -> FileInfo:
    """A result: its header, the car it was computed on (the names of its embedded setup,
    suspensions and vehicle), its steps, channels and motion ranges."""
    from suspension_sim.workbook.optimumk_files.results import read_result

    try:
        r = read_result(path)
    except OSError as exc:
        return FileInfo(path, "result", error=f"{path.name}: cannot read: {exc}")
    except OptimumKFileError as exc:
        return FileInfo(path, "result", error=exc.render())
    info = FileInfo(path, "result", r.name, r.version, r.guid)
    info.refers += [
        f"computed on: setup {r.setup.header.name!r} (its own copy, saved"
        f" {_when(r.setup.header.modified or r.setup.header.created)})",
        f"front suspension: {r.front.header.name!r}" if r.front else "front suspension: none",
        f"rear suspension: {r.rear.header.name!r}" if r.rear else "rear suspension: none",
        f"vehicle: {r.vehicle.name!r}",
    ]
    kind = "force result" if r.is_force_result else "kinematic result"
    info.details.append(f"{kind}: {r.n_steps} steps, {len(r.channels)} channels")
    for dof, scale, unit in (
        ("Heave", 1000.0, "mm"),
        ("Roll", 180.0 / math.pi, "deg"),
        ("Pitch", 180.0 / math.pi, "deg"),
        ("Steering", 180.0 / math.pi, "deg"),
    ):
        c = r.channel(f"Motion [{dof}]")
        if c is not None and len(c.values) and any(v != 0.0 for v in c.values):
            lo, hi = float(min(c.values)) * scale, float(max(c.values)) * scale
            info.details.append(f"{dof.lower()}: {lo:.6g} .. {hi:.6g} {unit}")
    return info


def _when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M") if at is not None else "at an unknown date"


def describe(path: str | Path) -> list[FileInfo]:
    """Every OptimumK file at `path` (a file, or a folder and its subfolders), with the
    GUIDs it refers to resolved among the files of its project (`project_root`: the
    nearest folder at or above it holding Suspension/ and Setup/, else `path` itself).
    OptimumKFileError if `path` does not exist."""
    p = Path(path)
    if not p.exists():
        raise OptimumKFileError(
            f"not found: {p}", where=str(p), hint="give an OptimumK file or project folder"
        )
    wanted = _files(p)
    root = project_root(p)
    read: dict[Path, tuple[FileInfo, Definition | None]] = {}
    # The project's files name the GUIDs; outside a project only the folder itself is
    # looked at (never a walk of whatever folder a lone file sits in).
    for f in [*wanted, *_files(root, recursive=is_project(root))]:
        key = f.resolve()
        if key not in read:
            read[key] = _read(f)
    names = {
        info.guid: (info.name, info.kind, info.path)
        for info, _ in read.values()
        if info.guid and info.error is None
    }
    holders: dict[str, list[Path]] = {}  # a GUID in several files: said, never hidden
    for info, _ in read.values():
        if info.guid and info.error is None:
            holders.setdefault(info.guid, []).append(info.path)

    def shared(guid: str) -> str:
        paths = holders.get(guid, [])
        if len(paths) < 2:
            return ""
        same = len({q.read_bytes() for q in paths}) == 1
        return (
            f"; GUID {guid} is in {len(paths)} files ("
            + ", ".join(str(_shown(q, root)) for q in paths)
            + ("): identical copies" if same else "): they differ, import-optimumk refuses it")
        )

    def ref(what: str, guid: str | None) -> str:
        if guid is None:
            return f"{what}: none"
        if guid in names:
            name, kind, at = names[guid]
            return f"{what}: {name} ({kind}, {_shown(at, root)}){shared(guid)}"
        return f"{what}: {guid} (not found under {root})"

    out = []
    for f in wanted:
        info, d = read[f.resolve()]
        if info.guid and info.error is None and shared(info.guid):
            info.details.append(shared(info.guid)[2:])
        if isinstance(d, SetupDef):
            info.refers += [
                ref("front suspension", d.front_guid),
                ref("rear suspension", d.rear_guid),
                f"vehicle: {d.vehicle_guid or 'none'}",
            ]
            info.details.append(
                f"reference distance {d.reference_distance.value * 1000:g} mm, CG height"
                f" {d.cg_height.value * 1000:g} mm, front mass {d.front_mass_pct.value:g} %,"
                f" brake bias {d.brake_bias_pct.value:g} % front, drive bias"
                f" {d.drive_bias_pct.value:g} % front"
            )
        elif isinstance(d, SimulationDef):
            info.refers += [
                f"vehicle: {d.vehicle_guid}",
                ref("setup", d.setup_guid),
                ref("motion", d.motion_guid),
            ]
            info.details.append(f"type: {d.type}")
        elif isinstance(d, MotionDef):
            info.details.append(f"{d.steps} steps")
            for dof, keys in d.dofs.items():
                span = keys.span()
                if span is None:
                    continue
                scale, unit = (1000.0, "mm") if dof == "heave" else (180.0 / math.pi, "deg")
                info.details.append(f"{dof}: {span[0] * scale:g} .. {span[1] * scale:g} {unit}")
        elif isinstance(d, ForceCaseDef):
            used = sum(1 for k in d.keys.values() if any(v != 0.0 for _, v in k.keys))
            info.details += [
                f"{d.steps} steps, applied at: {d.application}",
                f"{used} of 24 force/moment components not zero",
            ]
        elif isinstance(d, SuspensionDef):
            info.details.append(
                "elements: "
                + ", ".join(m.type for m in d.elements_met)
                + (
                    "; met, not read: " + ", ".join(m.type for m in d.elements_not_read)
                    if d.elements_not_read
                    else ""
                )
            )
        out.append(info)
    return out


def _shown(path: Path, root: Path) -> Path:
    """`path` relative to `root` when it is below it, else as it is."""
    full, base = path.resolve(), root.resolve()
    return full.relative_to(base) if full.is_relative_to(base) else path


def _stamp(when: datetime | None) -> str:
    """A file's date as stored: UTC when the file says so (OptimumK stores local times in
    UTC), else as written."""
    if when is None:
        return "?"
    return when.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if when.tzinfo else "")


def render(infos: list[FileInfo], root: Path) -> str:
    """The text ``optimumk-info`` prints: one block per file."""
    lines: list[str] = []
    for info in infos:
        shown = _shown(info.path, root)
        if info.error is not None:
            lines += [f"{shown}: {info.kind}, NOT READ", f"  error: {info.error}", ""]
            continue
        lines.append(f"{shown}: {info.kind} {info.name!r}, version {info.version}")
        lines.append(f"  GUID {info.guid}")
        for what, when, who in (
            ("created", info.created, info.created_by),
            ("modified", info.modified, info.modified_by),
        ):
            if when is not None or who:
                lines.append(f"  {what} {_stamp(when)} by {who or '?'}")
        if info.comment:
            lines.append(f"  comment: {info.comment}")
        lines += [f"  {r}" for r in info.refers]
        lines += [f"  {d}" for d in info.details]
        lines.append("")
    return "\n".join(lines)
