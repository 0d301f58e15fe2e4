"""The studio page: a trame app (vuetify 3 widgets, a server-rendered VTK view).

`Studio` wires a `session.Session` (the numbers) and a `scene.StudioScene` (the 3-D
view) to the page's state. A slider move changes the state; `Studio.request` coalesces
the moves (only the latest is solved when several arrive during one update) and sends,
in this order: the design sheet; a *drag picture* of the 3-D view (`DRAG_RATIO` of the
page's size, JPEG `DRAG_QUALITY`: a quarter of the pixels to render); the charts. When
no move has come for `STILL_AFTER_S`, the *still picture* follows (full size,
`STILL_QUALITY`). The pictures are rendered, encoded and sent here, at once
(`_send_picture`), not by trame-vtk's encoder thread, which offers its image only at
a later poll; trame-vtk still serves the mouse (turn, pan, zoom). A task polls
the workbook files (every `POLL_S`) and reloads a saved one; a bad workbook shows its
message in the page and the last good car stays. The export button writes into the
``--out`` folder only (a new numbered sub-folder each time, never over a file).

Safety: the server listens on 127.0.0.1 only, has no upload or file endpoint, and the
page can name no file: the workbooks and the export folder are fixed on the command
line. The durations of the last steps are kept in `Studio.timings` (s).

One module (~720 lines) because `Studio` is one object the page's state, its update
loop and its widgets all read (the state names the widgets bind are set where the
state is); what splits out first when it grows: the page layout (`_build_ui`, ~200
lines of widgets) into a module of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

from suspension_sim.errors import SuspensionSimError
from suspension_sim.studio.charts import charts_html
from suspension_sim.studio.scene import Aids, StudioScene
from suspension_sim.studio.session import DRIVES, PRESETS, Frame, Session

POLL_S = 0.25
"""How often the workbook files are checked for a save (s)."""
CAMERAS = ("iso", "front", "side", "top")
STILL_QUALITY = 85
"""JPEG quality of the still picture (100 costs ~2x the encoding for no visible gain)."""
DRAG_RATIO = 0.5
"""Size of the drag picture over the page's view size (each side): the render's cost
is mostly per pixel with software GL, ~1/3 of the full picture's time."""
DRAG_QUALITY = 70
"""JPEG quality of the drag picture."""
STILL_AFTER_S = 0.15
"""The still picture is drawn when no slider move has come for this long (s)."""
CHARTS_EVERY_S = 0.1
"""While moves keep coming, the charts are still redrawn at least this often (s)."""
CHARTS_AFTER_S = 0.03
"""The charts are sent this long after the drag picture (s), or as soon as another move
comes: the browser then shows the picture before it lays out the charts' SVG."""
STALE_S = 0.01
"""trame-vtk's own pictures (the mouse turning the view): seconds before asking again
for an image still being encoded (trame-vtk: 0.5)."""
TIMINGS_KEPT = 1000
"""`Studio.timings` keeps the last this many steps."""


def _key(slider_key: str, index: int) -> str:
    """State name of a slider (a valid identifier): heave, roll, pitch, steer, stroke_0..."""
    return f"stroke_{index}" if slider_key.startswith("stroke:") else slider_key


def _within(value: Any, limits: tuple[float, float] | None) -> float:
    """A control's value from the page as a number inside its slider's range (anything
    else the page may send, text or NaN, is 0): the page only moves sliders."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return 0.0
    if not math.isfinite(v):
        return 0.0
    return v if limits is None else min(max(v, limits[0]), limits[1])


def _stale_poller(link: Any) -> Any:
    """A `render_stale_image` for trame-vtk's image stream `link`: push the view again
    while its newest picture is still being encoded, up to `stale_count_limit` times."""

    def poll(view_id: str, stale_count: int = 0) -> None:
        counts = link.stale_handler_count
        if counts.get(view_id, 0) > 0:
            counts[view_id] -= 1
        if link.last_stale_time.get(view_id, 0) and stale_count < link.stale_count_limit:
            link.push_render(view_id, False, stale_count + 1)

    return poll


def load_kernel_now() -> None:
    """Load the compiled solve kernel (if it is on disk) in a thread while the page
    opens, not lazily at a later solve: a lazy load (~0.4-0.8 s) would stall one slider
    move of the user's first drag. Solves meanwhile take the numpy path (a kernel half
    loaded counts as not loaded: `solve.engine.kernel_compiled`)."""
    import threading

    from suspension_sim.solve import engine

    threading.Thread(target=engine.load_kernel_if_cached, daemon=True).start()


class Studio:
    """The page, its state and handlers (module doc)."""

    def __init__(
        self,
        session: Session,
        *,
        out_dir: Path | None = None,
        size: tuple[int, int] = (900, 640),
        name: str = "suspension-sim-studio",
    ) -> None:
        from trame.app import get_server

        self.session = session
        self.out_dir = out_dir
        self.server = get_server(name, client_type="vue3")
        self.state = self.server.state
        self.ctrl = self.server.controller
        self.scene = StudioScene(size)
        self.timings: deque[dict[str, float]] = deque(maxlen=TIMINGS_KEPT)
        self._pending = False
        self._busy = False
        self._event_t = 0.0
        self._charts_t = 0.0
        self._still: asyncio.TimerHandle | None = None
        self._still_due = False
        self._moved = asyncio.Event()
        self._drawn: tuple[Frame, Aids] | None = None
        self._exports = 0
        self._export_note = ""
        self._stroke_keys: list[tuple[str, str]] = []
        self._frame: Frame | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        self._image_links: list[Any] = []
        self._init_state()
        self._build_ui()
        self.ctrl.on_server_ready.add(self._on_ready)

    # -- state ----------------------------------------------------------------------------
    def _init_state(self) -> None:
        s, car = self.state, self.session.car
        c = self.session.controls
        s.trame__title = "suspension-sim studio"
        s.heave, s.roll, s.pitch, s.steer = c.heave, c.roll, c.pitch, c.steer
        self._stroke_keys = [
            (_key(sl.key, i), sl.key.split(":", 1)[1])
            for i, sl in enumerate(x for x in car.sliders if x.key.startswith("stroke:"))
        ]
        for key, _ in self._stroke_keys:
            s[key] = 0.0
        self._slider_keys = [
            (next(strokes) if sl.key.startswith("stroke:") else sl.key, sl.key)
            for strokes in [iter(k for k, _ in self._stroke_keys)]
            for sl in car.sliders
        ]
        """(state name, `Slider.key`) of each slider on the page, in its order."""
        s.slider_note = ""
        self._set_slider_ranges()
        s.drive, s.preset, s.motion = c.drive, c.preset, c.motion
        s.motions = list(car.motions)
        s.tyres, s.kingpin, s.centres = True, False, False
        s.car_a = car.name
        s.car_b = (
            self.session.cars[1].name if len(self.session.cars) > 1 and self.session.cars[1] else ""
        )
        s.error_a = self.session.errors[0] or ""
        s.error_b = (
            self.session.errors[1]
            if len(self.session.errors) > 1 and self.session.errors[1]
            else ""
        )
        s.status_a, s.status_b = "", ""
        s.sheet_columns, s.sheet_rows = [], []
        s.charts_html = ""
        s.export_msg = ""
        s.can_export = self.out_dir is not None
        s.loads = 0
        s.updates = 0
        s.strokes_text = ""

        s.change("heave", "roll", "pitch", "steer", "drive", *[k for k, _ in self._stroke_keys])(
            self._on_input
        )
        s.change("preset", "motion")(self._on_input)
        s.change("tyres", "kingpin", "centres")(self._on_aids)

    def _set_slider_ranges(self) -> None:
        """Each slider's range, step and label from the current car A (its state:
        ``<name>_min``, ``_max``, ``_step``, ``_label``), its value kept inside the range;
        a note when the car's sliders are not the page's (a damper added, removed or
        renamed, the rack added: the page's set of sliders is built once)."""
        s = self.state
        mine = {sl.key: sl for sl in self.session.car.sliders}
        for name, key in self._slider_keys:
            sl = mine.get(key)
            if sl is None:
                continue
            s[f"{name}_min"], s[f"{name}_max"], s[f"{name}_step"] = sl.low, sl.high, sl.step
            s[f"{name}_label"] = sl.label
            if s[name] is not None:
                s[name] = _within(s[name], (sl.low, sl.high))
        on_page = {key for _, key in self._slider_keys}
        if set(mine) != on_page:
            added = sorted(set(mine) - on_page)
            gone = sorted(on_page - set(mine))
            parts = [f"new: {', '.join(added)}"] if added else []
            parts += [f"gone: {', '.join(gone)}"] if gone else []
            s.slider_note = (
                f"the car's controls changed ({'; '.join(parts)}): restart the studio "
                "for their sliders"
            )
        else:
            s.slider_note = ""

    def _on_input(self, **_: Any) -> None:
        self._event_t = time.perf_counter()
        self._read_controls()
        self.request()

    def _read_controls(self) -> None:
        """The session's controls from the page's state, each inside its slider's range."""
        c = self.session.controls
        s = self.state
        ranges = {sl.key: (sl.low, sl.high) for sl in self.session.car.sliders}
        for key in ("heave", "roll", "pitch", "steer"):
            setattr(c, key, _within(s[key], ranges.get(key)))
        c.drive = s.drive if s.drive in DRIVES else "ground"
        c.preset = s.preset if s.preset in PRESETS else "iso"
        if s.motion in self.session.car.motions:
            c.motion = s.motion
        for key, damper in self._stroke_keys:
            c.strokes[damper] = _within(s[key], ranges.get(f"stroke:{damper}"))

    def _on_aids(self, **_: Any) -> None:
        self.request()

    # -- updating -------------------------------------------------------------------------
    def request(self) -> None:
        """Ask for an update; moves that arrive during one are merged into the next."""
        self._pending = True
        self._moved.set()
        if self._still is not None:
            self._still.cancel()
            self._still = None
        if not self._busy:
            self._busy = True
            self._tasks.add(asyncio.ensure_future(self._work()))

    async def _work(self) -> None:
        try:
            while self._pending:
                await asyncio.sleep(0)  # let queued slider moves arrive first
                self._pending = False
                self.update_numbers()
                await self._sent()  # the numbers leave before the 3-D
                if self._pending:
                    continue  # a newer move: draw that one instead
                self.redraw(still=False)
                await self._sent()
                await self._calm(CHARTS_AFTER_S)
                if self._pending and time.perf_counter() - self._charts_t < CHARTS_EVERY_S:
                    continue
                self.update_charts()
                await self._sent()
        finally:
            self._busy = False
        if self._still_due:  # STILL_AFTER_S after the last move (the update took some)
            rest = STILL_AFTER_S - (time.perf_counter() - self._event_t)
            self._still = asyncio.get_event_loop().call_later(max(rest, 0.0), self._draw_still)

    async def _calm(self, seconds: float) -> None:
        """Wait `seconds`, or less if a move comes."""
        self._moved.clear()
        if not self._pending:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._moved.wait(), seconds)

    async def _sent(self) -> None:
        """Wait until what was pushed has left, and let queued moves arrive."""
        await self.server.network_completion
        await asyncio.sleep(0)

    def _draw_still(self) -> None:
        self._still = None
        if self._busy or self._pending:
            return  # the update under way schedules it again
        self.redraw(still=True)

    def update_numbers(self) -> Frame:
        """Solve at the controls and push the design sheet and the status (the charts
        come after the picture: `update_charts`)."""
        t0 = time.perf_counter()
        frame = self.session.update()
        t1 = time.perf_counter()
        with self.state as s:
            s.sheet_columns = list(frame.columns)
            s.sheet_rows = [
                {
                    "label": r.label,
                    "cells": [
                        {"key": c.key or "", "value": repr(c.value), "text": c.text}
                        for c in r.cells
                    ],
                    "cells_b": [
                        {"key": c.key or "", "value": repr(c.value), "text": c.text}
                        for c in r.cells_b
                    ],
                }
                for r in frame.rows
            ]
            s.status_a, s.status_b = frame.status, frame.status_b
            s.strokes_text = ", ".join(
                f"{k.split(':', 1)[1]} {v:+.2f}" for k, v in frame.inputs.items()
            )
            s.updates = int(s.updates or 0) + 1
        t2 = time.perf_counter()
        self._frame = frame
        self.timings.append(
            {"solve_sheet": t1 - t0, "numbers": t2 - t0, "since_event": t2 - (self._event_t or t0)}
        )
        return frame

    def update_charts(self) -> None:
        """Push the current motion's charts with their markers at the last solved pose."""
        frame = self._frame
        if frame is None:
            return
        t0 = time.perf_counter()
        charts, note = self.session.charts(frame)
        with self.state as s:
            s.charts_html = charts_html(charts, note)
        self._charts_t = time.perf_counter()
        if self.timings:
            self.timings[-1]["charts"] = self._charts_t - t0

    def redraw(self, still: bool = True) -> None:
        """Draw the last solved pose(s) and send the picture: the still one, or the
        drag one (smaller, `DRAG_RATIO`) followed by the still one `STILL_AFTER_S`
        after the last move."""
        frame = self._frame
        if frame is None or frame.pose is None:
            return
        t0 = time.perf_counter()
        s = self.state
        aids = Aids(bool(s.tyres), bool(s.kingpin), bool(s.centres))
        drawn = self._drawn
        if drawn is None or drawn[0] is not frame or drawn[1] != aids:  # else: a still
            self.scene.draw(frame.pose, frame.pose_b, aids)
            self._drawn = (frame, aids)
        t1 = time.perf_counter()
        self._still_due = not still
        sent = self._send_picture(still)
        if self.timings:
            row = self.timings[-1]
            row["draw"], row["picture"] = t1 - t0, time.perf_counter() - t1
            row["still"] = float(still)
        if not sent:  # no page watches the view yet: trame-vtk sends it when one does
            self.ctrl.view_update()

    def _send_picture(self, still: bool) -> bool:
        """Render the view at the page's size (times `DRAG_RATIO` unless `still`), encode
        it and publish it as trame-vtk's image stream would; False if no page watches."""
        window = self.scene.window
        for link in self._image_links:
            views = getattr(link, "tracking_views", {})
            view_id = str(link.get_global_id(window))
            if view_id not in views or not views[view_id].get("enabled", True):
                continue
            t0 = time.perf_counter()
            full = views[view_id].get("originalSize") or list(window.GetSize()[:2])
            ratio, quality = (1.0, STILL_QUALITY) if still else (DRAG_RATIO, DRAG_QUALITY)
            size = (int(full[0] * ratio + 0.5), int(full[1] * ratio + 0.5))
            jpeg = self.scene.picture(size, quality)
            reply = {
                "image": link.addAttachment(jpeg),
                "format": "jpeg",
                "id": view_id,
                "global_id": view_id,
                "size": list(size),
                "memsize": len(jpeg),
                "mtime": 0,
                "stale": False,
                "localTime": 0,
                "workTime": round(1e3 * (time.perf_counter() - t0)),
            }
            link.publish("viewport.image.push.subscription", reply)
            return True
        return False

    # -- files ----------------------------------------------------------------------------
    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(POLL_S)
            if self.session.changed():
                self.reload()

    def reload(self) -> None:
        """Read the saved workbook(s) again; show the message of a bad one."""
        t0 = time.perf_counter()
        before = list(self.session.cars)
        self.session.reload()
        with self.state as s:
            s.error_a = self.session.errors[0] or ""
            s.error_b = (self.session.errors[1] or "") if len(self.session.errors) > 1 else ""
            s.car_a = self.session.car.name
            s.motions = list(self.session.car.motions)
            s.loads = int(s.loads or 0) + 1
        self._set_slider_ranges()  # (a damper's length limits, a new steering ratio ...)
        self._read_controls()  # the controls follow the values kept inside the new ranges
        if any(a is not b for a, b in zip(self.session.cars, before, strict=True)):
            self.scene.reset_ground()  # a new car: new ground patch, same camera
        self.update_numbers()
        self.redraw()
        self.update_charts()
        self.timings.append({"reload": time.perf_counter() - t0})

    def export(self) -> None:
        """Write the view (PNG), the design sheet (csv, xlsx) and the current motion's
        charts (PNG) into a new numbered folder of --out."""
        if self.out_dir is None or self._frame is None or self._frame.pose is None:
            self.state.export_msg = "start the studio with --out DIR to export"
            return
        try:
            folder = self._export_folder()
            self._export_note = ""
            written = self._export_into(folder)
            note = f" ({self._export_note})" if self._export_note else ""
            self.state.export_msg = f"wrote {len(written)} files into {folder}{note}"
            print(f"exported {len(written)} files into {folder}", flush=True)
        except SuspensionSimError as exc:
            self.state.export_msg = f"error: {exc.render()}"
        except OSError as exc:
            self.state.export_msg = (
                f"error: cannot write into {self.out_dir}: {exc.strerror or exc}"
            )

    def _export_folder(self) -> Path:
        from suspension_sim.files import check_output

        assert self.out_dir is not None
        check_output(self.out_dir, where="--out", folder=True)
        self.out_dir.mkdir(exist_ok=True)
        for _ in range(10000):
            self._exports += 1
            folder = self.out_dir / f"studio-{self._exports:03d}"
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            return folder
        raise OSError("no free export folder name")

    def _export_into(self, folder: Path) -> list[Path]:
        from suspension_sim.outputs.chart_files import plot_sweep
        from suspension_sim.outputs.design_sheet import design_sheet
        from suspension_sim.outputs.tables import write_table
        from suspension_sim.sweeps import choose_sweep, run_sweep
        from suspension_sim.viz.render import save_screenshot

        frame = self._frame
        assert frame is not None and frame.pose is not None
        preset = self.session.controls.preset
        written = [save_screenshot(self.scene.plotter, folder / "view.png", where="--out")[0]]
        table = design_sheet(frame.pose, preset).frame()
        for suffix in (".csv", ".xlsx"):
            written.append(
                write_table(
                    table,
                    folder / f"design_sheet{suffix}",
                    option="--out",
                    sheet_name="Design sheet",
                )
            )
        car = self.session.car
        chosen = choose_sweep(car.model, car.path, self.session.controls.motion)
        result = run_sweep(car.model, chosen.spec, convention=preset, motion_style="ours")
        written += plot_sweep(result, folder / "charts")
        car_b = self.session.cars[1] if len(self.session.cars) > 1 else None
        if frame.pose_b is not None and car_b is not None:
            from suspension_sim.outputs.compare import compare

            table_b = design_sheet(frame.pose_b, preset).frame()
            for suffix in (".csv", ".xlsx"):
                written.append(
                    write_table(
                        table_b,
                        folder / f"design_sheet_B{suffix}",
                        option="--out",
                        sheet_name="Design sheet",
                    )
                )
            try:  # the overlaid charts and differences of `compare`
                both = compare([car.model, car_b.model], chosen.spec, convention=preset)
                written += both.write(folder / "compare", option="--out")
            except SuspensionSimError as exc:  # e.g. cars with wheels at other corners
                self._export_note = f"no compare charts: {exc.message}"
        return written

    # -- page -----------------------------------------------------------------------------
    def _on_ready(self, **_: Any) -> None:
        self._fast_image_delivery()
        self.update_numbers()
        self.redraw()
        self.update_charts()
        self._tasks.add(asyncio.ensure_future(self._watch()))
        load_kernel_now()

    def _fast_image_delivery(self) -> None:
        """Find trame-vtk's image stream (`_send_picture` publishes on it). For its own
        pictures (the mouse turning the view) it encodes the JPEG in a worker thread and,
        when a push finds it not ready, asks again later: after `STALE_S` instead of
        0.5 s, and every time (trame-vtk's own check drops the request when its timer
        fires early, so the last picture of a turn, the full-size one, could stay
        unsent)."""
        protocol = getattr(self.server, "protocol", None)
        for link in getattr(protocol, "linkProtocols", []) or []:
            if hasattr(link, "delta_stale_time_before_render"):
                link.delta_stale_time_before_render = STALE_S
                link.stale_count_limit = max(int(link.stale_count_limit), 40)
                link.render_stale_image = _stale_poller(link)
                self._image_links.append(link)

    def _build_ui(self) -> None:
        from trame.ui.vuetify3 import SinglePageLayout
        from trame.widgets import html
        from trame.widgets import vtk as vtk_widgets
        from trame.widgets import vuetify3 as v3

        with SinglePageLayout(self.server, full_height=True) as layout:
            layout.title.set_text("suspension-sim studio")
            layout.footer.hide()
            with layout.toolbar:
                v3.VSpacer()
                html.Span("{{ car_a }}", id="car-a", classes="text-subtitle-1 mr-2")
                html.Span(
                    "vs {{ car_b }}", id="car-b", v_if="car_b", classes="text-subtitle-1 mr-4"
                )
                v3.VSelect(
                    v_model=("motion",),
                    items=("motions",),
                    label="motion",
                    density="compact",
                    hide_details=True,
                    style="max-width: 200px",
                    id="motion",
                )
                v3.VSelect(
                    v_model=("preset",),
                    items=("presets", list(PRESETS)),
                    label="preset",
                    density="compact",
                    hide_details=True,
                    style="max-width: 130px",
                    classes="ml-2",
                    id="preset",
                )
                v3.VBtn(
                    "export",
                    click=self.export,
                    disabled=("!can_export",),
                    id="export",
                    classes="ml-2",
                    variant="outlined",
                )
            with layout.content, v3.VContainer(fluid=True, classes="pa-2"):
                html.Pre(
                    "{{ error_a }}",
                    v_if="error_a",
                    id="error-a",
                    classes="pa-2",
                    style="background:#fde8e8;color:#900;white-space:pre-wrap",
                )
                html.Div(
                    "{{ slider_note }}",
                    v_if="slider_note",
                    id="slider-note",
                    classes="pa-2",
                    style="background:#fff6d6;color:#5a4500",
                )
                html.Pre(
                    "{{ error_b }}",
                    v_if="error_b",
                    id="error-b",
                    classes="pa-2",
                    style="background:#fde8e8;color:#900;white-space:pre-wrap",
                )
                with v3.VRow(dense=True):
                    with v3.VCol(cols=3):
                        with v3.VBtnToggle(v_model=("drive",), mandatory=True, density="compact"):
                            v3.VBtn("on the ground", value="ground", id="drive-ground")
                            v3.VBtn("strokes", value="strokes", id="drive-strokes")
                        for key, slider_key in self._slider_keys:
                            stroke = slider_key.startswith("stroke:")
                            html.Div(
                                f"{{{{ {key}_label }}}}: {{{{ {key} }}}}",
                                classes="text-caption mt-2",
                                id=f"label-{key}",
                            )
                            v3.VSlider(
                                v_model_number=(key,),
                                min=(f"{key}_min",),
                                max=(f"{key}_max",),
                                step=(f"{key}_step",),
                                hide_details=True,
                                density="compact",
                                id=f"slider-{key}",
                                disabled=("drive == 'ground'",) if stroke else False,
                            )
                        html.Div(
                            "strokes [mm]: {{ strokes_text }}",
                            id="strokes",
                            classes="text-caption mt-2",
                        )
                        v3.VCheckbox(
                            v_model=("tyres",),
                            label="tyres",
                            density="compact",
                            hide_details=True,
                        )
                        v3.VCheckbox(
                            v_model=("kingpin",),
                            label="kingpin axes",
                            density="compact",
                            hide_details=True,
                        )
                        v3.VCheckbox(
                            v_model=("centres",),
                            label="centres",
                            density="compact",
                            hide_details=True,
                        )
                        with html.Div(classes="mt-1"):
                            for cam in CAMERAS:
                                v3.VBtn(
                                    cam,
                                    size="small",
                                    variant="text",
                                    click=(self.camera, f"['{cam}']"),
                                )
                    with v3.VCol(cols=9):
                        with html.Div(style="height: 640px; position: relative", id="view3d"):
                            view = vtk_widgets.VtkRemoteView(
                                self.scene.plotter.ren_win,
                                ref="view",
                                still_quality=STILL_QUALITY,
                                interactive_quality=60,
                                interactive_ratio=0.7,
                            )
                            self.ctrl.view_update = view.update
                            self.ctrl.view_reset_camera = view.reset_camera
                        html.Div("{{ status_a }}", id="status-a", classes="text-caption")
                        html.Div(
                            "{{ status_b }}",
                            id="status-b",
                            classes="text-caption",
                            v_if="status_b",
                        )
                        html.Div(
                            "{{ export_msg }}",
                            id="export-msg",
                            classes="text-caption",
                            v_if="export_msg",
                        )
                with html.Table(
                    id="sheet", classes="mt-2", style="border-collapse:collapse;font-size:13px"
                ):
                    with html.Tr():
                        html.Th("quantity", style="text-align:left;padding:2px 8px")
                        html.Th("{{ c }}", v_for="c in sheet_columns", style="padding:2px 8px")
                    with html.Tr(v_for="row in sheet_rows", raw_attrs=[':data-label="row.label"']):
                        html.Td("{{ row.label }}", style="padding:2px 8px")
                        with html.Td(
                            v_for="(c, i) in row.cells",
                            style="text-align:right;padding:2px 8px",
                            raw_attrs=[
                                ':data-key="c.key"',
                                ':data-value="c.value"',
                                ':data-value-b="row.cells_b.length ? row.cells_b[i].value : null"',
                            ],
                        ):
                            html.Span("{{ c.text }}", classes="val-a")
                            html.Span(
                                " / {{ row.cells_b[i].text }}",
                                v_if="row.cells_b.length",
                                classes="val-b",
                                style="color:#777",
                            )
                html.Div(v_html=("charts_html",), id="charts", classes="mt-2 d-flex flex-wrap")
        self.layout = layout

    def camera(self, preset: str) -> None:
        if preset in CAMERAS:
            self.scene.camera(preset)
            if not self._send_picture(still=True):
                self.ctrl.view_update()

    # -- running --------------------------------------------------------------------------
    def start(self, port: int, *, on_ready: Any = None) -> None:
        """Serve on 127.0.0.1:`port` until Ctrl-C (blocks)."""
        if on_ready is not None:
            self.ctrl.on_server_ready.add(on_ready)
        argv, sys.argv = sys.argv, sys.argv[:1]  # trame reads its own options from argv
        try:
            self.server.start(
                port=port,
                host="127.0.0.1",
                open_browser=False,
                show_connection_info=False,
                disable_logging=True,
                timeout=0,
                exec_mode="main",
            )
        finally:
            sys.argv = argv
            with contextlib.suppress(Exception):
                self.scene.close()
