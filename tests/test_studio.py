"""``suspension-sim studio`` driven in a real headless browser (Debian's Chromium through
Playwright's Python package; never ``playwright install``).

One studio server per module, on a copy of the example car in tmp_path (the bundled
workbook is never written). The page's numbers are read from its DOM (each design-sheet
cell carries its metric column and full-precision value) and compared with
`Model.solve` + `metrics.pose_metrics` for the same state; the 3-D view is checked by
the pixels of a screenshot; a saved edit and a broken workbook are made with openpyxl
and an atomic rename, as an editor saves.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("trame", reason="the studio extra (trame) is not installed")
pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
CHROMIUM = Path("/usr/bin/chromium")
BROWSER_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WHEELS = ("FL", "FR", "RL", "RR")
START_TIMEOUT_S = 90.0
WAIT_MS = 30000

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)


class Studio:
    """A running studio: its process, URL and files."""

    def __init__(self, proc: subprocess.Popen[str], url: str, workbook: Path, out: Path):
        self.proc, self.url, self.workbook, self.out = proc, url, workbook, out

    @property
    def port(self) -> int:
        return int(self.url.rstrip("/").rsplit(":", 1)[1])


def start_studio(folder: Path, *args: str) -> Studio:
    """Run ``suspension-sim studio ARGS --no-browser`` in `folder`; wait for its address."""
    env = {**os.environ, "SUSPENSION_SIM_BACKGROUND_COMPILE": "0", "PYTHONUNBUFFERED": "1"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "suspension_sim", "studio", *args, "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=folder,
    )
    url = None
    lines: list[str] = []
    deadline = time.monotonic() + START_TIMEOUT_S
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if m:
            url = m[1]
            break
    if url is None:
        proc.kill()
        pytest.fail("the studio did not start:\n" + "".join(lines))
    return Studio(proc, url, folder / Path(args[0]).name, folder / "exports")


def stop_studio(studio: Studio) -> None:
    """Ctrl-C: the studio stops cleanly (exit 0, "studio stopped")."""
    studio.proc.send_signal(2)
    try:
        rest, _ = studio.proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        studio.proc.kill()
        raise
    assert studio.proc.returncode == 0, rest
    assert "studio stopped" in rest


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    folder = tmp_path_factory.mktemp("studio")
    shutil.copyfile(EXAMPLE, folder / "car.xlsx")
    shutil.copyfile(EXAMPLE, folder / "b.xlsx")
    save_edited(folder / "b.xlsx", {"Hard Points!D4": 392})  # FL upper ball joint +12 mm
    running = start_studio(folder, "car.xlsx", "b.xlsx", "--out", "exports")
    yield running
    stop_studio(running)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            args=BROWSER_ARGS,
            headless=True,
            viewport={"width": 1500, "height": 1300},
        )
        try:
            yield ctx
        finally:
            ctx.close()


def open_page(browser: Any, studio: Studio) -> Any:
    page = browser.new_page()
    page.goto(studio.url)
    page.wait_for_selector("td[data-key='camber_FL_deg']", timeout=WAIT_MS)
    return page


def page_values(page: Any, metric: str) -> dict[str, float]:
    """{wheel: full-precision value} of a design-sheet row, read from the DOM."""
    return {
        w: float(page.locator(f"td[data-key='{metric}_{w}_deg']").get_attribute("data-value"))
        for w in WHEELS
    }


def expected(workbook: Path, heave: float, metric: str = "camber") -> dict[str, float]:
    """The library's value for the ground state at `heave` (mm): model.solve with every
    contact point held at z = 0, then pose_metrics (iso signs)."""
    import suspension_sim
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.sweeps.motions import ground_targets

    model = suspension_sim.load(workbook, use_cache=False)
    pose = model.solve(chassis=(0, 0, heave, 0, 0, 0), targets=ground_targets(model))
    values = pose_metrics(pose, "iso")
    return {w: float(values[f"{metric}_{w}_deg"]) for w in WHEELS}


def wait_for(page: Any, check: Any, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last is True:
            return
        page.wait_for_timeout(100)
    pytest.fail(f"timed out waiting for {what} (last: {last!r})")


def heave_on_page(page: Any) -> float:
    text = page.locator("#label-heave").inner_text()
    return float(text.rsplit(":", 1)[1])


def close(a: dict[str, float], b: dict[str, float], tol: float = 1e-7) -> bool:
    return all(math.isclose(a[w], b[w], rel_tol=0, abs_tol=tol) for w in WHEELS)


def test_page_loads_car_and_heave_slider_gives_model_camber(studio: Studio, browser: Any) -> None:
    page = open_page(browser, studio)
    assert page.locator("#car-a").inner_text().strip() == "fsae_car"
    # at design: the workbook's static camber (README's design sheet: -1.000 / -1.500)
    design = page_values(page, "camber")
    assert close(design, expected(studio.workbook, 0.0))
    assert design["FL"] == pytest.approx(-1.0, abs=1e-9)
    before = car_picture(page)  # the design pose, drawn
    # the heave slider, moved with the keyboard (0.5 mm a key) to +20 mm
    thumb = page.locator(".v-slider:has(#slider-heave) [role=slider]")
    thumb.focus()
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    wait_for(page, lambda: heave_on_page(page) == 20.0 or heave_on_page(page), "heave = 20")
    truth = expected(studio.workbook, 20.0)
    wait_for(
        page,
        lambda: close(page_values(page, "camber"), truth) or page_values(page, "camber"),
        "camber at +20 mm",
    )
    assert abs(truth["FL"] - design["FL"]) > 0.1  # heave really changes camber
    # the camber chart's marker sits at the slider's heave and the page's camber (the
    # charts come after the numbers and the drag picture)
    marker = page.locator("svg[data-title='camber [deg]'] circle.marker[data-label='FL']")

    def marker_x() -> Any:
        x = float(marker.get_attribute("data-x"))
        return x == 20.0 or x

    wait_for(page, marker_x, "the camber chart's marker at heave 20")
    assert float(marker.get_attribute("data-x")) == pytest.approx(20.0, abs=1e-9)
    assert float(marker.get_attribute("data-y")) == pytest.approx(truth["FL"], abs=1e-7)

    # the 3-D view is redrawn for the new pose (the car is 20 mm higher on its wheels)
    def redrawn() -> Any:
        now = car_picture(page)
        if now.shape != before.shape:
            return f"picture size {now.shape} != {before.shape}"
        change = float(np.abs(now[:, :, :3].astype(float) - before[:, :, :3]).mean())
        return change > 0.5 or change

    wait_for(page, redrawn, "a new picture of the car")
    page.close()


def test_a_slider_move_shows_a_drag_picture_then_the_still_one(
    studio: Studio, browser: Any
) -> None:
    """A key press on a slider: the page first shows the drag picture (`DRAG_RATIO` of
    the view's size, the cheaper render) and, when no move follows, the still picture at
    the full size of the view."""
    from suspension_sim.studio.app import DRAG_RATIO

    page = open_page(browser, studio)
    car_picture(page)  # the first picture is there
    page.evaluate(
        """() => {
        const img = document.querySelector("#view3d img");
        window.__widths = [];
        new MutationObserver(async () => {
          const src = img.src;
          try { await img.decode(); } catch (e) { return; }
          if (img.src === src) window.__widths.push(img.naturalWidth);
        }).observe(img, { attributes: true, attributeFilter: ["src"] });
    }"""
    )
    page.locator(".v-slider:has(#slider-pitch) [role=slider]").focus()
    page.keyboard.press("ArrowRight")
    view_width = page.evaluate("() => document.querySelector('#view3d').clientWidth")

    def drag_then_still() -> Any:
        widths = page.evaluate("() => window.__widths")
        if len(widths) < 2 or widths[-1] < 0.9 * view_width:
            return widths
        drag = round(DRAG_RATIO * widths[-1])
        first_drag = next((i for i, w in enumerate(widths) if abs(w - drag) <= 1), None)
        return (first_drag is not None and first_drag < len(widths) - 1) or widths

    wait_for(page, drag_then_still, "a drag picture, then the still one")
    page.keyboard.press("ArrowLeft")  # pitch back to 0 for the other tests
    wait_for(page, lambda: page.locator("#label-pitch").inner_text().endswith(": 0"), "pitch 0")
    page.close()


def test_the_mouse_turns_the_view_and_its_last_picture_is_full_size(
    studio: Studio, browser: Any
) -> None:
    """Dragging the mouse over the view turns the car (trame-vtk's pictures, smaller
    while the mouse moves); when it stops, the full-size picture of the new angle comes."""
    page = open_page(browser, studio)
    before = car_picture(page)
    box = page.locator("#view3d").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 8):
        page.mouse.move(x + 25 * k, y + 6 * k)
        page.wait_for_timeout(40)
    page.mouse.up()
    view_width = page.evaluate("() => document.querySelector('#view3d').clientWidth")

    def turned_full_size() -> Any:
        width = page.evaluate("() => document.querySelector('#view3d img').naturalWidth")
        now = car_picture(page)
        change = float(np.abs(now[:, :, :3].astype(float) - before[:, :, :3]).mean())
        return (width >= 0.9 * view_width and change > 2.0) or (width, change)

    wait_for(page, turned_full_size, "the turned car's full-size picture")
    page.get_by_role("button", name="iso").click()  # the camera back for the other tests
    page.close()


def car_picture(page: Any) -> np.ndarray:
    """A screenshot of the 3-D view once it shows a picture (not a blank canvas: many
    colours, high contrast), as RGB(A) pixels."""
    found: list[np.ndarray] = []

    def shown() -> Any:
        img = decode_png(page.locator("#view3d").screenshot())
        assert img.shape[0] > 200 and img.shape[1] > 300
        colours = len(np.unique(img[:, :, :3].reshape(-1, 3) // 8, axis=0))
        spread = float(img[:, :, :3].std())
        found[:] = [img]
        return (colours > 40 and spread > 20.0) or f"{colours} colours, spread {spread:.1f}"

    wait_for(page, shown, "a picture in the 3-D view")
    return found[0]


def decode_png(data: bytes) -> np.ndarray:
    import io

    import imageio.v3 as iio

    return np.asarray(iio.imread(io.BytesIO(data), extension=".png"))


def save_edited(path: Path, edit: dict[str, Any]) -> None:
    """Write a copy of `path` with cells changed ({"Sheet!A1": value}) and rename it over
    `path`, as an editor saves."""
    import openpyxl

    wb = openpyxl.load_workbook(path)
    for ref, value in edit.items():
        sheet, cell = ref.split("!")
        wb[sheet][cell] = value
    tmp = path.with_name("~" + path.name)
    wb.save(tmp)
    os.replace(tmp, path)


def test_saved_edit_updates_numbers_and_broken_workbook_shows_its_cell(
    studio: Studio, browser: Any, tmp_path: Path
) -> None:
    page = open_page(browser, studio)
    heave = heave_on_page(page)
    original = tmp_path / "original.xlsx"
    shutil.copyfile(studio.workbook, original)
    before = page_values(page, "camber")
    # raise the front-left upper wishbone's inner pivots by 15 mm: FL camber changes
    save_edited(studio.workbook, {"Hard Points!D2": 361, "Hard Points!D3": 347})
    truth = expected(studio.workbook, heave)
    assert abs(truth["FL"] - before["FL"]) > 1e-3
    wait_for(
        page,
        lambda: close(page_values(page, "camber"), truth) or page_values(page, "camber"),
        "the edited car's camber",
    )
    assert not page.locator("#error-a").count()
    # a broken cell: the page shows the message `load` gives, and the last good car stays
    save_edited(studio.workbook, {"Hard Points!D2": "abc"})
    import suspension_sim
    from suspension_sim.errors import SuspensionSimError

    with pytest.raises(SuspensionSimError) as err:
        suspension_sim.load(studio.workbook, use_cache=False)
    message = err.value.render()
    assert "D2" in message
    page.wait_for_selector("#error-a", timeout=WAIT_MS)
    assert page.locator("#error-a").inner_text().strip() == message.strip()
    assert close(page_values(page, "camber"), truth)  # the last good car
    # fixed again: the message goes, the numbers are the original car's
    shutil.copyfile(original, studio.workbook.with_name("~fixed.xlsx"))
    os.replace(studio.workbook.with_name("~fixed.xlsx"), studio.workbook)
    page.wait_for_selector("#error-a", state="detached", timeout=WAIT_MS)
    wait_for(
        page,
        lambda: close(page_values(page, "camber"), before) or page_values(page, "camber"),
        "the original camber",
    )
    page.close()


def test_saved_damper_limits_move_its_stroke_slider(
    studio: Studio, browser: Any, tmp_path: Path
) -> None:
    """A damper's Min length edited and saved: its stroke slider's range on the page
    becomes the new car's (the library's `stroke_range`), without a restart."""
    import suspension_sim
    from suspension_sim.sweeps.standard import stroke_range

    page = open_page(browser, studio)
    thumb = page.locator(".v-slider:has(#slider-stroke_0) [role='slider']")

    def top() -> float:
        return float(thumb.get_attribute("aria-valuemax"))

    model = suspension_sim.load(studio.workbook, use_cache=False)
    assert model.damper_names[0] == "FL_Damper"
    assert math.isclose(top(), stroke_range(model, "FL_Damper")[1], abs_tol=1e-9)
    original = tmp_path / "original.xlsx"
    shutil.copyfile(studio.workbook, original)
    design = model.car.damper_design_length(model.car.dampers[0])
    save_edited(studio.workbook, {"Damping!D2": round(design - 6.0, 3)})  # 6 mm of bump left
    edited = suspension_sim.load(studio.workbook, use_cache=False)
    want = stroke_range(edited, "FL_Damper")[1]
    assert math.isclose(want, 6.0, abs_tol=1e-3)
    wait_for(page, lambda: math.isclose(top(), want, abs_tol=1e-9) or top(), "the new range")
    assert not page.locator("#slider-note").count()
    shutil.copyfile(original, studio.workbook.with_name("~fixed.xlsx"))
    os.replace(studio.workbook.with_name("~fixed.xlsx"), studio.workbook)
    wait_for(
        page,
        lambda: math.isclose(top(), stroke_range(model, "FL_Damper")[1]) or top(),
        "the old range",
    )
    page.close()


def test_export_button_writes_view_sheet_and_charts(studio: Studio, browser: Any) -> None:
    page = open_page(browser, studio)
    page.locator("#export").click()
    page.wait_for_selector("#export-msg", timeout=WAIT_MS)
    wait_for(
        page,
        lambda: (
            "wrote" in page.locator("#export-msg").inner_text()
            or page.locator("#export-msg").inner_text()
        ),
        "the export",
    )
    folders = sorted(studio.out.glob("studio-*"))
    assert folders, "nothing exported"
    got = {p.relative_to(folders[-1]).as_posix() for p in folders[-1].rglob("*") if p.is_file()}
    assert {"view.png", "design_sheet.csv", "design_sheet.xlsx"} <= got
    assert {"design_sheet_B.csv", "design_sheet_B.xlsx", "compare/differences.csv"} <= got
    assert any(name.startswith("charts/") and name.endswith(".png") for name in got)
    import pandas as pd

    sheet = pd.read_csv(folders[-1] / "design_sheet.csv", index_col=0)
    assert sheet.loc["camber [deg]", "FL"] == pytest.approx(
        page_values(page, "camber")["FL"], abs=1e-9
    )
    sheet_b = pd.read_csv(folders[-1] / "design_sheet_B.csv", index_col=0)
    kpi_b = page.locator("td[data-key='kpi_FL_deg']").get_attribute("data-value-b")
    assert sheet_b.loc["KPI [deg]", "FL"] == pytest.approx(float(kpi_b), abs=1e-9)
    page.close()


def test_taken_port_is_a_clean_message(studio: Studio) -> None:
    env = {**os.environ, "SUSPENSION_SIM_BACKGROUND_COMPILE": "0"}
    cmd = [sys.executable, "-m", "suspension_sim", "studio", str(studio.workbook), "--no-browser"]
    run = subprocess.run(
        [*cmd, "--port", str(studio.port)], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 2
    assert f"--port: port {studio.port} on 127.0.0.1 is already in use" in run.stderr
    assert "Traceback" not in run.stderr


def test_serves_no_files_and_listens_on_loopback_only(studio: Studio) -> None:
    import socket
    import urllib.error
    import urllib.request

    book = studio.workbook.read_bytes()
    for name in ("car.xlsx", "../car.xlsx", "%2e%2e/car.xlsx", "exports/"):
        try:
            with urllib.request.urlopen(studio.url + name, timeout=10) as reply:
                body = reply.read()
        except urllib.error.HTTPError:
            continue
        assert book not in body and b"car.xlsx" not in body, name
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("10.255.255.255", 1))  # picks the outward address; sends nothing
        outward = s.getsockname()[0]
    if outward.startswith("127."):
        pytest.skip("this machine has no address but loopback")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(OSError):
        s.settimeout(5)
        s.connect((outward, studio.port))


def test_two_cars_overlaid_and_compared_in_the_page(studio: Studio, browser: Any) -> None:
    page = open_page(browser, studio)
    assert page.locator("#car-b").count() == 1
    heave = heave_on_page(page)
    truth_a = expected(studio.workbook, heave, "kpi")
    truth_b = expected(studio.workbook.with_name("b.xlsx"), heave, "kpi")
    assert abs(truth_a["FL"] - truth_b["FL"]) > 0.1  # B's steering axis leans more
    cells = {w: page.locator(f"td[data-key='kpi_{w}_deg']") for w in WHEELS}
    got_a = {w: float(c.get_attribute("data-value")) for w, c in cells.items()}
    got_b = {w: float(c.get_attribute("data-value-b")) for w, c in cells.items()}
    assert close(got_a, truth_a) and close(got_b, truth_b)
    dashed = page.locator("svg[data-title='camber [deg]'] polyline[data-car='B']")
    assert dashed.count() == 4
    page.close()
