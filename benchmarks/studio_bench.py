"""Speed of the studio's steps on the example car (issue 26 targets, printed, not asserted).

    python3 benchmarks/studio_bench.py [--moves 30] [--browser]

- numbers: a slider move -> solve + design sheet + charts' marker + SVG (target 50 ms);
- 3-D: redraw of the view with `viz.add_pose` + one off-screen render (target 100 ms);
- reload: a saved workbook (a copy in a temporary folder, one cell changed) -> the new
  car's numbers (target 1 s); the motion's charts (a sweep) come after it;
- with --browser, the same from the page: a key press on the heave slider (headless
  Chromium through Playwright) until the design sheet in the DOM shows the new value.

Each figure is the median (and the worst) over the moves, heave stepping by 0.5 mm as a
slider does. Off-screen rendering uses Mesa's EGL (docs/rendering.md).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # as the CLI: BLAS threads spin on a busy machine

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"


def ms(values: list[float]) -> str:
    return f"median {1e3 * statistics.median(values):6.1f} ms, worst {1e3 * max(values):6.1f} ms"


def in_process(moves: int) -> None:
    import openpyxl

    from suspension_sim.studio.charts import charts_html
    from suspension_sim.studio.scene import StudioScene
    from suspension_sim.studio.session import Session
    from suspension_sim.viz.probe import configure_environment

    configure_environment()
    folder = Path(tempfile.mkdtemp(prefix="studio-bench-"))
    book = folder / "car.xlsx"
    shutil.copyfile(EXAMPLE, book)
    t0 = time.perf_counter()
    session = Session(book)
    frame = session.update()
    session.charts(frame)
    print(
        f"start (load, design pose, heave sweep for the charts): {time.perf_counter() - t0:.2f} s"
    )
    scene = StudioScene()
    t0 = time.perf_counter()
    scene.draw(frame.pose)  # type: ignore[arg-type]
    scene.plotter.ren_win.Render()
    print(f"first 3-D draw and render (GL start-up): {time.perf_counter() - t0:.2f} s")
    numbers, draws, renders = [], [], []
    for i in range(moves):
        session.controls.heave = 0.5 * (i + 1)
        t0 = time.perf_counter()
        frame = session.update()
        charts, note = session.charts(frame)
        charts_html(charts, note)
        t1 = time.perf_counter()
        scene.draw(frame.pose)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        scene.plotter.ren_win.Render()
        t3 = time.perf_counter()
        numbers.append(t1 - t0)
        draws.append(t2 - t1)
        renders.append(t3 - t2)
    total = [d + r for d, r in zip(draws, renders, strict=True)]
    print(f"slider move -> numbers (solve, sheet, marker, SVG): {ms(numbers)}   target 50 ms")
    print(f"slider move -> 3-D meshes moved:                     {ms(draws)}")
    print(f"            -> 3-D rendered (off-screen, 900x640):  {ms(renders)}")
    print(f"            -> 3-D total (+ numbers before it):     {ms(total)}   target 100 ms")
    reloads = []
    for k in range(3):
        wb = openpyxl.load_workbook(book)
        wb["Hard Points"]["D2"] = 346 + k + 1
        tmp = folder / "~car.xlsx"
        wb.save(tmp)
        os.replace(tmp, book)
        t0 = time.perf_counter()
        assert session.changed() == [0]
        session.reload()
        session.update()
        reloads.append(time.perf_counter() - t0)
    print(f"saved workbook -> new car's numbers:                 {ms(reloads)}   target 1 s")
    t0 = time.perf_counter()
    session.charts(session.update())
    print(f"            then the motion's charts (heave sweep):   {time.perf_counter() - t0:.2f} s")
    scene.close()
    shutil.rmtree(folder, ignore_errors=True)


def in_browser(moves: int) -> None:
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="studio-bench-"))
    book = folder / "car.xlsx"
    shutil.copyfile(EXAMPLE, book)
    env = {**os.environ, "SUSPENSION_SIM_BACKGROUND_COMPILE": "0", "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "suspension_sim", "studio", str(book), "--no-browser"]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    assert proc.stdout is not None
    url = None
    for line in proc.stdout:
        m = re.search(r"at (http://127\.0\.0\.1:\d+/)", line)
        if m:
            url = m[1]
            break
    assert url, "the studio did not start"
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                tempfile.mkdtemp(),
                executable_path="/usr/bin/chromium",
                args=args,
                headless=True,
                viewport={"width": 1500, "height": 1200},
            )
            page = ctx.new_page()
            page.goto(url)
            cell = page.locator("td[data-key='camber_FL_deg']")
            cell.wait_for(timeout=60000)
            thumb = page.locator(".v-slider:has(#slider-heave) [role=slider]")
            thumb.focus()
            page.wait_for_timeout(1000)
            page.evaluate(PROBE)
            numbers, images = [], []
            for _ in range(moves):
                page.evaluate("() => { window.__t = {}; }")
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(600)  # one move at a time: nothing queued behind it
                t = page.evaluate("() => window.__t")
                if "numbers" in t:
                    numbers.append((t["numbers"] - t["key"]) / 1e3)
                if "image" in t:
                    images.append((t["image"] - t["key"]) / 1e3)
            print(f"page: key press -> new camber in the DOM:       {ms(numbers)}   target 50 ms")
            print(
                f"page: key press -> new 3-D picture in the page: {ms(images)}   target 100 ms"
                f" ({len(images)} of {moves} within 0.6 s)"
            )
            ctx.close()
    finally:
        proc.send_signal(2)
        proc.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)


PROBE = """() => {
  const cell = document.querySelector("td[data-key='camber_FL_deg']");
  const img = document.querySelector("#view3d img");
  const digest = async (src) => {
    const buf = new Uint8Array(await (await fetch(src)).arrayBuffer());
    let h = 0;
    for (let i = 0; i < buf.length; i += 7) h = (h * 31 + buf[i]) | 0;
    return `${buf.length}:${h}`;
  };
  window.__t = {};
  let shown = null;
  digest(img.src).then((d) => { shown = d; });
  document.addEventListener("keydown", () => { window.__t.key = performance.now(); }, true);
  new MutationObserver(() => {
    if (window.__t.key && !window.__t.numbers) window.__t.numbers = performance.now();
  }).observe(cell, { attributes: true, attributeFilter: ["data-value"] });
  new MutationObserver(async () => {
    const at = performance.now();
    const d = await digest(img.src);
    if (d !== shown) {
      shown = d;
      if (window.__t.key && !window.__t.image) window.__t.image = at;
    }
  }).observe(img, { attributes: true, attributeFilter: ["src"] });
}"""
"""In the page: times (ms, the page's clock) of the key press, of the new camber in the
DOM and of the first new picture of the view (a checksum of its image: a picture sent
again unchanged does not count)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    args = parser.parse_args()
    in_process(args.moves)
    if args.browser:
        in_browser(args.moves)


if __name__ == "__main__":
    main()
