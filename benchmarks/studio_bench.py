"""Speed of the studio's steps on the example car (issue 26 targets, printed, not asserted).

    python3 benchmarks/studio_bench.py [--moves 30] [--browser | --page-only] [--gap-ms 600]
                                       [--runs 1]

- numbers: a slider move -> solve + design sheet (target 50 ms);
- 3-D: the meshes moved to the new pose + the drag picture rendered and encoded
  (JPEG, `studio.app.DRAG_RATIO` of the page's view size), after the numbers (target
  100 ms); then the charts, and the still picture (full size) the page gets when the
  slider rests;
- reload: a saved workbook (a copy in a temporary folder, one cell changed) -> the new
  car's numbers (target 1 s); the motion's charts (a sweep) come after it;
- with --browser, the same from the page (headless Chromium through Playwright): a key
  press on the heave slider until the camber cell in the DOM changes, until the first
  new picture of the view is shown (the drag picture: decoded, and the animation frame
  that paints it begun) and until the still picture is shown. --page-only: only that.

Each figure is the median and the worst (the page's pictures: also the best) over the
moves, heave stepping by 0.5 mm as a slider does. Off-screen rendering uses Mesa's EGL
(docs/rendering.md).
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
# no background compile of the fast kernels while timing (the studio's session does not
# use them; a compile would take the CPU the figures are about)
os.environ.setdefault("SUSPENSION_SIM_BACKGROUND_COMPILE", "0")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
PAGE_VIEW = (1111, 640)
"""The 3-D view's size in pixels in the page the browser benchmark opens (1500 x 1200)."""
if str(ROOT) not in sys.path:  # run as a script from any folder: this checkout's package
    sys.path.insert(0, str(ROOT))


def ms(values: list[float], best: bool = False) -> str:
    """Median and worst (and best) of durations in s, as ms."""
    if not values:
        return "none"
    low = f"best {1e3 * min(values):6.1f} ms, " if best else ""
    return (
        f"{low}median {1e3 * statistics.median(values):6.1f} ms, worst {1e3 * max(values):6.1f} ms"
    )


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
    from suspension_sim.studio.app import DRAG_QUALITY, DRAG_RATIO, STILL_QUALITY

    full = PAGE_VIEW
    drag = (round(full[0] * DRAG_RATIO), round(full[1] * DRAG_RATIO))
    scene = StudioScene(full)
    t0 = time.perf_counter()
    scene.draw(frame.pose)  # type: ignore[arg-type]
    scene.picture(full, STILL_QUALITY)
    print(f"first 3-D draw and picture (GL start-up): {time.perf_counter() - t0:.2f} s")
    numbers, charts_t, draws, drags, stills = [], [], [], [], []
    for i in range(moves):
        session.controls.heave = 0.5 * (i + 1)
        t0 = time.perf_counter()
        frame = session.update()
        t1 = time.perf_counter()
        scene.draw(frame.pose)  # type: ignore[arg-type]
        t2 = time.perf_counter()
        scene.picture(drag, DRAG_QUALITY)
        t3 = time.perf_counter()
        charts, note = session.charts(frame)
        charts_html(charts, note)
        t4 = time.perf_counter()
        scene.picture(full, STILL_QUALITY)
        t5 = time.perf_counter()
        numbers.append(t1 - t0)
        draws.append(t2 - t1)
        drags.append(t3 - t2)
        charts_t.append(t4 - t3)
        stills.append(t5 - t4)
    total = [n + d + r for n, d, r in zip(numbers, draws, drags, strict=True)]
    w, h = drag
    print(f"slider move -> numbers (solve, design sheet):          {ms(numbers)}   target 50 ms")
    print(f"            -> 3-D meshes moved:                       {ms(draws)}")
    print(f"            -> drag picture ({w}x{h}, render + JPEG): {ms(drags)}")
    print(f"            -> 3-D total (numbers, meshes, picture):   {ms(total)}   target 100 ms")
    print(f"            then the charts (markers, SVG):            {ms(charts_t)}")
    print(f"            still picture ({full[0]}x{full[1]}, render + JPEG): {ms(stills)}")
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


def in_browser(moves: int, gap_ms: int) -> list[float]:
    """Time the page in headless Chromium: `moves` key presses on the heave slider,
    `gap_ms` apart (one at a time: the still picture of one comes before the next).
    Returns the key press -> first new picture times (s)."""
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="studio-bench-"))
    book = folder / "car.xlsx"
    shutil.copyfile(EXAMPLE, book)
    env = {**os.environ, "SUSPENSION_SIM_BACKGROUND_COMPILE": "0", "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
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
            page.wait_for_timeout(1500)
            page.evaluate(PROBE)
            numbers, first, still, widths = [], [], [], []
            for _ in range(moves):
                page.evaluate("() => { window.__t = {pictures: []}; }")
                page.keyboard.press("ArrowRight")
                page.wait_for_timeout(gap_ms)
                t = page.evaluate("() => window.__t")
                if "numbers" in t:
                    numbers.append((t["numbers"] - t["key"]) / 1e3)
                shown = sorted(t["pictures"])
                if shown:
                    first.append((shown[0][0] - t["key"]) / 1e3)
                    widths.append(shown[0][1])
                    big = max(w for _, w in shown)
                    still.append((min(s for s, w in shown if w == big) - t["key"]) / 1e3)
            page.close()
            ctx.close()
    finally:
        proc.send_signal(2)
        proc.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)
    print(f"page: key press -> new camber in the DOM:             {ms(numbers)}   target 50 ms")
    print(
        f"page: key press -> first new picture shown (drag):    {ms(first, best=True)}"
        f"   target 100 ms ({len(first)} of {moves} within {gap_ms} ms;"
        f" {int(statistics.median(widths)) if widths else 0} px wide)"
    )
    print(f"page: key press -> still picture shown (full size):   {ms(still, best=True)}")
    return first


PROBE = """() => {
  const cell = document.querySelector("td[data-key='camber_FL_deg']");
  const img = document.querySelector("#view3d img");
  const digest = async (src) => {
    const buf = new Uint8Array(await (await fetch(src)).arrayBuffer());
    let h = 0;
    for (let i = 0; i < buf.length; i += 7) h = (h * 31 + buf[i]) | 0;
    return `${buf.length}:${h}`;
  };
  const frame = () => new Promise((done) => requestAnimationFrame(() => done(performance.now())));
  window.__t = { pictures: [] };
  let last = null;
  digest(img.src).then((d) => { last = d; });
  document.addEventListener("keydown", () => { window.__t.key = performance.now(); }, true);
  new MutationObserver(() => {
    if (window.__t.key && !window.__t.numbers) window.__t.numbers = performance.now();
  }).observe(cell, { attributes: true, attributeFilter: ["data-value"] });
  new MutationObserver(async () => {
    const key = window.__t.key;
    const src = img.src;
    const bytes = digest(src);
    try { await img.decode(); } catch (e) { return; }
    const painted = await frame();
    const d = await bytes;
    if (d === last || img.src !== src) return;
    last = d;
    if (key && key === window.__t.key) window.__t.pictures.push([painted, img.naturalWidth]);
  }).observe(img, { attributes: true, attributeFilter: ["src"] });
}"""
"""In the page: times (ms, the page's clock) of the key press, of the new camber in the
DOM, and of each new picture of the view: its <img> given the new image, the image
decoded, then the next animation frame (the one that paints it). A picture whose bytes
equal the last one's does not count."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    parser.add_argument("--page-only", action="store_true", help="only the page (with --browser)")
    parser.add_argument(
        "--gap-ms", type=int, default=600, help="between key presses in the page (default 600)"
    )
    parser.add_argument(
        "--runs", type=int, default=1, help="page runs (a new studio and browser each; default 1)"
    )
    args = parser.parse_args()
    if not args.page_only:
        in_process(args.moves)
    if args.browser or args.page_only:
        runs = [in_browser(args.moves, args.gap_ms) for _ in range(max(args.runs, 1))]
        if len(runs) > 1:
            medians = [1e3 * statistics.median(r) for r in runs if r]
            best = 1e3 * min(min(r) for r in runs if r)
            middle = statistics.median(medians)
            print(
                f"page, {len(runs)} runs: key press -> first new picture: median of each run"
                f" {min(medians):.1f}-{max(medians):.1f} ms (median {middle:.1f}),"
                f" best single press {best:.1f} ms"
            )


if __name__ == "__main__":
    main()
