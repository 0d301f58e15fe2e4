"""Add a results sheet to an existing .xlsx without touching anything else in it.

Loading a user's workbook with openpyxl and saving it again loses what
openpyxl does not model: charts, images, shapes, pivot tables, and the cached
values of formulas (so a workbook of formulas would read as blank until
Excel recomputes it). So the sheet is added at the package level instead: the
new worksheet part (plain values, inline strings, no styles) is written next
to the others and registered in ``[Content_Types].xml``, the workbook's
relationships and its ``<sheets>`` list, by inserting one element into each.
Every other part of the file is copied byte for byte. The file is replaced
atomically through `suspension_sim.files.atomic_path` (temp file in the same
folder, then rename; a symbolic link is written through to its target).
"""

from __future__ import annotations

import math
import os
import posixpath
import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pandas as pd

from suspension_sim.errors import InputError
from suspension_sim.files import NotWritableError, atomic_path, check_writable

WORKSHEET_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"
WORKSHEET_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet"
REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
MAX_SHEET_NAME = 31
_BAD_SHEET_CHARS = re.compile(r"[\[\]:*?/\\]")


def sheet_name(text: str) -> str:
    """A valid Excel sheet name from `text`: no []:*?/\\, at most 31 characters."""
    name = _BAD_SHEET_CHARS.sub("_", text).strip().strip("'")
    return name[:MAX_SHEET_NAME] or "Results"


def _column_letter(index: int) -> str:
    """1 -> A, 27 -> AA."""
    out = ""
    while index:
        index, rem = divmod(index - 1, 26)
        out = chr(65 + rem) + out
    return out


def _cell(ref: str, value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, int):
        return f'<c r="{ref}"><v>{value}</v></c>'
    if isinstance(value, float):
        if math.isinf(value):
            return _cell(ref, "inf" if value > 0 else "-inf")
        return f'<c r="{ref}"><v>{value!r}</v></c>'
    text = escape(str(value))
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c r="{ref}" t="inlineStr"><is><t{space}>{text}</t></is></c>'


def worksheet_xml(table: pd.DataFrame) -> bytes:
    """The table (index first, header row frozen) as a minimal worksheet part."""
    header = [table.index.name or "", *map(str, table.columns)]
    rows: list[list[object]] = [header]
    for idx, rec in zip(table.index, table.itertuples(index=False), strict=True):
        rows.append([_plain(idx), *(_plain(v) for v in rec)])
    width = len(header)
    body = []
    for r, values in enumerate(rows, start=1):
        cells = "".join(_cell(f"{_column_letter(c)}{r}", v) for c, v in enumerate(values, 1))
        body.append(f'<row r="{r}">{cells}</row>')
    dim = f"A1:{_column_letter(width)}{len(rows)}"
    xml = (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        f'<worksheet xmlns="{MAIN_NS}"><dimension ref="{dim}"/>'
        '<sheetViews><sheetView workbookViewId="0">'
        '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>'
        "</sheetView></sheetViews>"
        f"<sheetData>{''.join(body)}</sheetData></worksheet>"
    )
    return xml.encode("utf-8")


def _plain(value: object) -> object:
    """numpy scalars -> Python numbers."""
    if hasattr(value, "item"):
        return value.item()
    return value


def _parts(zf: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    return {info.filename: info for info in zf.infolist()}


def _workbook_part(zf: zipfile.ZipFile) -> str:
    rels = zf.read("_rels/.rels").decode("utf-8")
    m = re.search(r'<Relationship\b[^>]*Type="[^"]*/officeDocument"[^>]*/?>', rels)
    target = re.search(r'Target="([^"]+)"', m[0]) if m else None
    return (target[1].lstrip("/") if target else "xl/workbook.xml") or "xl/workbook.xml"


def _rels_part(part: str) -> str:
    folder, name = posixpath.split(part)
    return posixpath.join(folder, "_rels", f"{name}.rels")


def _unescape_attr(text: str) -> str:
    return (
        text.replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
    )


def existing_sheets(path: str | os.PathLike[str]) -> list[str]:
    """Names of the sheets of an .xlsx, in order (read from the package, fast)."""
    with zipfile.ZipFile(path) as zf:
        wb = zf.read(_workbook_part(zf)).decode("utf-8")
    return [_unescape_attr(n) for n in re.findall(r'<(?:\w+:)?sheet\b[^>]*\bname="([^"]*)"', wb)]


def check_sheet_target(
    path: str | os.PathLike[str], name: str, *, force: bool = False, option: str = "path"
) -> None:
    """Refuse, before any work, a workbook that `add_sheet` could not add `name` to:
    a protected file, or one that already has that sheet (unless `force`)."""
    check_writable(path, where=option)
    if name.casefold() in {n.casefold() for n in existing_sheets(path)} and not force:
        raise InputError(
            f"the workbook already has a sheet {name!r}",
            where=option,
            hint="pass force=True to replace it, or write the table to a new file",
        )


def add_sheet(
    path: str | os.PathLike[str],
    name: str,
    table: pd.DataFrame,
    *,
    force: bool = False,
    option: str = "path",
) -> str:
    """Add `table` to the workbook at `path` as a new last sheet called `name`.

    An existing sheet of that name is an error unless `force`, which replaces
    its contents (keeping its place). Returns the sheet name used. Every other
    part of the file is left byte-identical; the file is replaced atomically.
    """
    src = Path(path)
    name = sheet_name(name)
    if src.suffix.lower() not in (".xlsx", ".xlsm"):
        raise InputError(f"{src.name} is not an .xlsx workbook", where=option)
    check_writable(src, where=option)  # a read-only workbook (or folder) is never replaced
    for lock in (src.with_name(f"~${src.name}"), src.with_name(f".~lock.{src.name}#")):
        if lock.exists():
            raise InputError(
                f"{src.name} is open in Excel or LibreOffice ({lock.name} exists): its next "
                "save would drop the results sheet",
                where=option,
                hint="close the workbook first, or write the results to a new file",
            )
    try:
        zf = zipfile.ZipFile(src)
    except (OSError, zipfile.BadZipFile) as exc:
        raise InputError(f"cannot open {src} as an .xlsx workbook ({exc})", where=option) from None
    with zf:
        parts = _parts(zf)
        wb_part = _workbook_part(zf)
        rels_part = _rels_part(wb_part)
        wb_xml = zf.read(wb_part).decode("utf-8")
        rels_xml = zf.read(rels_part).decode("utf-8")
        types_xml = zf.read("[Content_Types].xml").decode("utf-8")
        sheets = re.findall(r"<(?:\w+:)?sheet\b[^>]*/?>", wb_xml)
        by_name = {}
        for el in sheets:
            n = re.search(r'\bname="([^"]*)"', el)
            if n:
                by_name[_unescape_attr(n[1]).casefold()] = el
        new_parts: dict[str, bytes] = {}
        sheet_bytes = worksheet_xml(table)
        if name.casefold() in by_name:
            if not force:
                raise InputError(
                    f"the workbook already has a sheet {name!r}",
                    where=option,
                    hint="pass force=True to replace it, or write the results to a new file",
                )
            old_rid = re.search(r'\b\w+:id="([^"]+)"', by_name[name.casefold()])
            target = _rel_target(rels_xml, old_rid[1] if old_rid else "", wb_part)
            if target is None or target not in parts:
                raise InputError(f"cannot find the part of sheet {name!r}", where=option)
            new_parts[target] = sheet_bytes
        else:
            k = 1
            while f"xl/worksheets/sheet{k}.xml" in parts:
                k += 1
            part = f"xl/worksheets/sheet{k}.xml"
            ids = {int(i) for i in re.findall(r'\bId="rId(\d+)"', rels_xml)}
            rid = f"rId{max(ids, default=0) + 1}"
            sheet_ids = [int(i) for i in re.findall(r'\bsheetId="(\d+)"', wb_xml)]
            sheet_id = max(sheet_ids, default=0) + 1
            rel_target = posixpath.relpath(part, posixpath.dirname(wb_part))
            rels_xml = _insert_before(
                rels_xml,
                "Relationships",
                f'<Relationship Id="{rid}" Type="{WORKSHEET_REL}" Target="{rel_target}"/>',
            )
            types_xml = _insert_before(
                types_xml,
                "Types",
                f'<Override PartName="/{part}" ContentType="{WORKSHEET_TYPE}"/>',
            )
            wb_xml = _add_sheet_element(wb_xml, name, sheet_id, rid)
            new_parts[part] = sheet_bytes
            new_parts[wb_part] = wb_xml.encode("utf-8")
            new_parts[rels_part] = rels_xml.encode("utf-8")
            new_parts["[Content_Types].xml"] = types_xml.encode("utf-8")
        _rewrite(src, zf, new_parts, option)
    return name


def _rel_target(rels_xml: str, rid: str, wb_part: str) -> str | None:
    for el in re.findall(r"<Relationship\b[^>]*/?>", rels_xml):
        if re.search(rf'\bId="{re.escape(rid)}"', el):
            t = re.search(r'\bTarget="([^"]+)"', el)
            if t is None:
                return None
            target = t[1]
            if target.startswith("/"):
                return target.lstrip("/")
            return posixpath.normpath(posixpath.join(posixpath.dirname(wb_part), target))
    return None


def _insert_before(xml: str, root: str, element: str) -> str:
    m = list(re.finditer(rf"</(?:\w+:)?{root}\s*>", xml))
    if not m:
        raise InputError(f"unexpected workbook structure (no </{root}>)", where="workbook")
    i = m[-1].start()
    return xml[:i] + element + xml[i:]


def _add_sheet_element(wb_xml: str, name: str, sheet_id: int, rid: str) -> str:
    m = re.search(r"</((?:\w+:)?)sheets\s*>", wb_xml)
    if not m:
        raise InputError("unexpected workbook structure (no </sheets>)", where="workbook")
    prefix = m[1]
    ns = re.search(rf'xmlns:(\w+)="{re.escape(REL_NS)}"', wb_xml)
    rid_attr = f'{ns[1]}:id="{rid}"' if ns else f'xmlns:rr="{REL_NS}" rr:id="{rid}"'
    el = f'<{prefix}sheet name={quoteattr(name)} sheetId="{sheet_id}" {rid_attr}/>'
    return wb_xml[: m.start()] + el + wb_xml[m.start() :]


def _rewrite(src: Path, zf: zipfile.ZipFile, new_parts: dict[str, bytes], option: str) -> None:
    """Write the package again with `new_parts` replaced or added, then swap it in
    atomically (`suspension_sim.files.atomic_path`: a link is written through, and
    the file keeps its permission bits)."""
    stage = "start"
    try:
        with atomic_path(src, suffix=src.suffix) as tmp:
            stage = "write"
            with zipfile.ZipFile(tmp, "w") as out:
                for info in zf.infolist():
                    if info.filename in new_parts:
                        out.writestr(info, new_parts.pop(info.filename), info.compress_type)
                    else:
                        out.writestr(info, zf.read(info.filename), info.compress_type)
                for part, data in new_parts.items():
                    out.writestr(part, data, zipfile.ZIP_DEFLATED)
            stage = "replace"
    except NotWritableError as exc:
        raise InputError(f"{src} {exc.strerror}", where=option) from None
    except PermissionError:
        if stage != "replace":
            raise InputError(
                f"cannot write in folder {src.parent}: permission denied", where=option
            ) from None
        raise InputError(
            f"cannot replace {src}: permission denied (is it open in Excel?)",
            where=option,
            hint="close the workbook and run again",
        ) from None
    except OSError as exc:
        raise InputError(f"cannot write {src}: {exc.strerror}", where=option) from None
