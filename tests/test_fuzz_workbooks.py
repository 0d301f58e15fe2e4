"""Fuzz: mutated copies of the example workbooks never crash the command line.

Careless edits as people make them (cells blanked, numbers typed as text,
rows duplicated, an index range shifted, a sheet renamed or deleted, cells
merged, a body's row rewired to another body's point) are applied with a fixed
seed to real .xlsx copies written with openpyxl. For every case `check` (and,
where it passes, `solve`) must: exit 0/1/2/3 only, print no traceback, leave
the workbook byte-identical, and, when it reports an error, name where: a sheet
and cell, or an option. A rewired row must never pass `check` with a free
motion left: when it exits 0, the Jacobian at design (every input held) has
full column rank, computed here with numpy's own rank, not the model's test.
"""

from __future__ import annotations

import contextlib
import io
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from openpyxl.utils import get_column_letter, range_boundaries
from openpyxl.worksheet.worksheet import Worksheet

from suspension_sim.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "workbooks").glob("*.xlsx"))
CASES_PER_WORKBOOK = 40
SEED = 20261123

WHERE = re.compile(
    r"(!\$?[A-Z]{1,3}\$?\d+)"  # Sheet!B12
    r"|(sheet '[^']+')|('[^']+' sheet)|(sheet \"[^\"]+\")"  # a named sheet
    r"|(--[a-z][a-z-]*)"  # an option
    r"|(Sheet!|Index)"
)
"""How an error says where the problem is."""

Mutation = Callable[[openpyxl.Workbook, random.Random], str]


def _sections(wb: openpyxl.Workbook) -> list[tuple[str, str]]:
    """(section name, range text) rows of the index table on the first sheet."""
    ws = wb.worksheets[0]
    out = []
    for row in ws.iter_rows(min_row=2, max_col=2, values_only=True):
        if isinstance(row[0], str) and isinstance(row[1], str) and ":" in row[1]:
            out.append((row[0], row[1]))
    return out


def _section_cells(
    wb: openpyxl.Workbook, rng: random.Random
) -> tuple[Worksheet, int, int, int, int]:
    """A random section: its worksheet and bounds (min_col, min_row, max_col, max_row)."""
    _, text = rng.choice(_sections(wb))
    sheet, _, cells = text.rpartition("!")
    sheet = sheet.strip("'") or wb.worksheets[0].title
    ws = wb[sheet] if sheet in wb.sheetnames else wb.worksheets[0]
    c0, r0, c1, r1 = range_boundaries(cells)
    return ws, c0, r0, c1, r1


def blank_cell(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws, c0, r0, c1, r1 = _section_cells(wb, rng)
    col, row = rng.randint(c0, c1), rng.randint(r0, r1)
    ws.cell(row, col).value = None
    return f"blank {ws.title}!{get_column_letter(col)}{row}"


def swap_type(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws, c0, r0, c1, r1 = _section_cells(wb, rng)
    col, row = rng.randint(c0, c1), rng.randint(r0 + 1, max(r0 + 1, r1))
    cell = ws.cell(row, col)
    if isinstance(cell.value, (int, float)):
        cell.value = rng.choice(["abc", "12,5", "1e400", "nan", " ", "=A1"])
    else:
        cell.value = rng.choice([0, -1, 1e300, 3.5, True])
    return f"swap {ws.title}!{cell.coordinate} -> {cell.value!r}"


def duplicate_row(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws, c0, r0, c1, r1 = _section_cells(wb, rng)
    if r1 <= r0 + 1:
        return blank_cell(wb, rng)
    src = rng.randint(r0 + 1, r1 - 1)
    for col in range(c0, c1 + 1):
        ws.cell(src + 1, col).value = ws.cell(src, col).value
    return f"duplicate {ws.title} row {src} over {src + 1}"


def shift_range(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws = wb.worksheets[0]
    rows = [
        r
        for r in ws.iter_rows(min_row=2, max_col=2)
        if isinstance(r[1].value, str) and ":" in r[1].value
    ]
    cell = rng.choice(rows)[1]
    sheet, _, cells = str(cell.value).rpartition("!")
    c0, r0, c1, r1 = range_boundaries(cells)
    dc, dr = rng.choice([(1, 0), (0, 1), (-1, 0), (0, -1), (0, 5), (3, 3)])
    c0, c1 = max(1, c0 + dc), max(1, c1 + dc)
    r0, r1 = max(1, r0 + dr), max(1, r1 + dr)
    new = f"{get_column_letter(c0)}{r0}:{get_column_letter(c1)}{r1}"
    cell.value = f"{sheet}!{new}" if sheet else new
    return f"shift {cell.coordinate} -> {cell.value}"


def rename_sheet(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws = rng.choice(wb.worksheets[1:] or wb.worksheets)
    old = ws.title
    ws.title = old + " old"
    return f"rename sheet {old!r}"


def delete_sheet(wb: openpyxl.Workbook, rng: random.Random) -> str:
    if len(wb.worksheets) < 2:
        return rename_sheet(wb, rng)
    ws = rng.choice(wb.worksheets[1:])
    wb.remove(ws)
    return f"delete sheet {ws.title!r}"


def merge_cells(wb: openpyxl.Workbook, rng: random.Random) -> str:
    ws, c0, r0, c1, r1 = _section_cells(wb, rng)
    if c1 <= c0:
        return blank_cell(wb, rng)
    col, row = rng.randint(c0, c1 - 1), rng.randint(r0, r1)
    ref = f"{get_column_letter(col)}{row}:{get_column_letter(col + 1)}{row}"
    ws.merge_cells(ref)
    return f"merge {ws.title}!{ref}"


def rewire_point(wb: openpyxl.Workbook, rng: random.Random) -> str:
    """A moving body's point cell retyped as a point of another body's row (the tie rod's
    inner end typed as the upright's ball joint)."""
    text = dict(_sections(wb)).get("Components")
    if text is None:
        return blank_cell(wb, rng)
    sheet, _, cells = text.rpartition("!")
    sheet = sheet.strip("'") or wb.worksheets[0].title
    ws = wb[sheet] if sheet in wb.sheetnames else wb.worksheets[0]
    c0, r0, c1, r1 = range_boundaries(cells)
    rows = {
        r: [ws.cell(r, c) for c in range(c0 + 1, c1 + 1) if isinstance(ws.cell(r, c).value, str)]
        for r in range(r0 + 1, r1 + 1)
        if isinstance(ws.cell(r, c0).value, str)
    }
    moving = [r for r, cells_ in rows.items() if cells_ and ws.cell(r, c0).value != "Chassis"]
    if not moving:
        return blank_cell(wb, rng)
    row = rng.choice(moving)
    own = {c.value for c in rows[row]}
    others = sorted({c.value for r, cs in rows.items() if r != row for c in cs} - own)
    if not others:
        return blank_cell(wb, rng)
    cell = rng.choice(rows[row])
    old, cell.value = cell.value, rng.choice(others)
    return f"rewire {ws.title}!{cell.coordinate} {old} -> {cell.value}"


MUTATIONS: tuple[Mutation, ...] = (
    blank_cell,
    blank_cell,
    swap_type,
    swap_type,
    duplicate_row,
    shift_range,
    rename_sheet,
    delete_sheet,
    merge_cells,
    rewire_point,
)


def _cases() -> list[tuple[Path, int]]:
    return [(wb, i) for wb in EXAMPLES for i in range(CASES_PER_WORKBOOK)]


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


@pytest.mark.parametrize(("source", "case"), _cases(), ids=lambda v: getattr(v, "stem", v))
def test_mutated_workbook_is_handled(source: Path, case: int, tmp_path: Path) -> None:
    rng = random.Random(f"{SEED}-{source.stem}-{case}")
    wb = openpyxl.load_workbook(source)
    what = [rng.choice(MUTATIONS)(wb, rng) for _ in range(rng.choice((1, 1, 2)))]
    path = tmp_path / source.name
    wb.save(path)
    before = path.read_bytes()

    code, text = _run(["check", str(path)])
    assert code in (0, 1, 2, 3), (what, code, text)
    assert "Traceback" not in text, (what, text)
    if code >= 2:
        assert WHERE.search(text), f"{what}: the error does not say where:\n{text}"
    if code == 0 and case % 4 == 0:
        code, text = _run(["solve", str(path)])
        assert code in (0, 2, 3), (what, code, text)
        assert "Traceback" not in text, (what, text)
        if code >= 2:
            assert WHERE.search(text) or "joint" in text, f"{what}:\n{text}"
    assert path.read_bytes() == before, f"{what}: the workbook was changed"


REWIRED_PER_WORKBOOK = 5


def _free_motions_at_design(path: Path) -> int:
    """Unknowns minus the numpy rank of the column-scaled Jacobian at design, every
    input held: 0 when no motion is free (independent of `model.mobility`)."""
    from suspension_sim.model import KinematicModel
    from suspension_sim.workbook import read_car

    model = KinematicModel(read_car(path))
    x = np.setdiff1d(np.arange(model.n_params), model.input_params())
    J = model.jacobian(np.zeros(model.n_params), x).toarray()
    norms = np.linalg.norm(J, axis=0)
    J = J / np.where(norms > 0, norms, 1.0)
    return len(x) - int(np.linalg.matrix_rank(J, tol=1e-9 * max(1.0, np.abs(J).max())))


@pytest.mark.parametrize(
    ("source", "case"),
    [(wb, i) for wb in EXAMPLES for i in range(REWIRED_PER_WORKBOOK)],
    ids=lambda v: getattr(v, "stem", v),
)
def test_rewired_row_never_passes_with_a_free_motion(
    source: Path, case: int, tmp_path: Path
) -> None:
    rng = random.Random(f"{SEED}-rewire-{source.stem}-{case}")
    wb = openpyxl.load_workbook(source)
    what = rewire_point(wb, rng)
    path = tmp_path / source.name
    wb.save(path)
    code, text = _run(["check", str(path)])
    assert code in (0, 2), (what, code, text)
    assert "Traceback" not in text, (what, text)
    if code == 0:
        assert _free_motions_at_design(path) == 0, f"{what}: exit 0 with a free motion"
    else:
        assert WHERE.search(text), f"{what}: the error does not say where:\n{text}"
