"""3-D view: real off-screen renders checked pixel by pixel, the rendering probe,
and the `view` command. Renders are small (400 x 300) to keep the module fast.

Red/green is checked where the joint projects: the renderer's world-to-display
transform gives the pixel of each point copy, and a small window around it
must (or must not) hold red pixels.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model, cli
from suspension_sim.errors import InputError, RenderingUnavailableError
from suspension_sim.solve.pose import Pose
from suspension_sim.viz import probe as viz_probe

ROOT = Path(__file__).resolve().parents[1]
SIZE = (400, 300)
BROKEN_STROKE = 49.0
"""FL stroke within the damper's length limits that the rocker cannot reach (FL_DMP_M opens)."""


# -- fixtures ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


@pytest.fixture(scope="module")
def design(model: Model) -> Pose:
    pose = model.solve()
    assert pose.converged
    return pose


@pytest.fixture(scope="module")
def broken(model: Model) -> Pose:
    pose = model.solve(shocks=[BROKEN_STROKE, 0, 0, 0], on_failure="return")
    assert not pose.converged
    return pose


@pytest.fixture(scope="module")
def workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example FSAE workbook if present, else the four-corner test car written out."""
    real = ROOT / "workbooks" / "fsae_car.xlsx"
    if real.is_file():
        return real
    from suspension_sim.workbook.writer import write_car

    return write_car(four_corner_car(), tmp_path_factory.mktemp("wb") / "four_corner.xlsx")


@pytest.fixture(scope="module")
def test_workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Always the four-corner car (its unreachable stroke is known)."""
    from suspension_sim.workbook.writer import write_car

    return write_car(four_corner_car(), tmp_path_factory.mktemp("wb4") / "four_corner.xlsx")


# -- pixel helpers ----------------------------------------------------------------------
def red_mask(img: np.ndarray) -> np.ndarray:
    """Pixels that are clearly red (the open-joint colour), not amber, pink or grey."""
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return (r > 140) & (g < 90) & (b < 90) & (r > 2 * g + 40)


def green_mask(img: np.ndarray) -> np.ndarray:
    r, g, b = (img[..., k].astype(int) for k in range(3))
    return (g > 100) & (g > r + 50) & (g > b + 40)


def window(mask: np.ndarray, col: float, row: float, half: int) -> np.ndarray:
    c, r = round(col), round(row)
    return mask[max(r - half, 0) : r + half + 1, max(c - half, 0) : c + half + 1]


def render(pose: Pose, camera: str = "iso", **kw: object) -> tuple[np.ndarray, object]:
    """Screenshot and the plotter's projection of every point copy (col, row)."""
    from suspension_sim.viz import build_scene, world_to_pixel

    plotter = build_scene(pose, camera=camera, size=SIZE, off_screen=True, **kw)  # type: ignore[arg-type]
    try:
        img = np.asarray(plotter.screenshot(return_img=True))
        px = world_to_pixel(plotter, pose.copies.to_numpy(dtype=float))
    finally:
        plotter.close()
    return img, px


# -- no pyvista where nothing is drawn ---------------------------------------------------
def _run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_import_viz_is_cheap() -> None:
    proc = _run_python(
        """
        import sys
        import suspension_sim.viz, suspension_sim.commands.view
        heavy = [m for m in ("pyvista", "vtk", "vtkmodules") if m in sys.modules]
        assert not heavy, heavy
        """
    )
    assert proc.returncode == 0, proc.stderr


def test_check_and_solve_never_import_pyvista(workbook: Path) -> None:
    proc = _run_python(
        f"""
        import sys
        import suspension_sim.cli
        assert suspension_sim.cli.main(["check", {str(workbook)!r}]) == 0
        assert suspension_sim.cli.main(["solve", {str(workbook)!r}]) == 0
        heavy = [m for m in ("pyvista", "vtk", "vtkmodules") if m in sys.modules]
        assert not heavy, heavy
        print("no pyvista")
        """,
        SUSPENSION_SIM_CACHE_DIR="",
    )
    assert proc.returncode == 0, proc.stderr
    assert "no pyvista" in proc.stdout


def test_geometry_needs_no_pyvista() -> None:
    proc = _run_python(
        """
        import sys
        import numpy as np
        from suspension_sim.viz.geometry import body_shape
        body_shape(np.eye(3))
        heavy = [m for m in ("pyvista", "vtk", "vtkmodules") if m in sys.modules]
        assert not heavy, heavy
        """
    )
    assert proc.returncode == 0, proc.stderr


# -- shapes, without drawing -------------------------------------------------------------
def test_body_shapes_from_points() -> None:
    from suspension_sim.viz.geometry import body_shape

    link = body_shape(np.array([[0.0, 0, 0], [50, 0, 0], [100, 0, 0]]))
    assert link.kind == "line"
    assert sorted(float(e[0]) for e in link.ends) == [0.0, 100.0]  # type: ignore[union-attr]
    # a wishbone: three points in a plane, the outline is its three sides
    plate = body_shape(np.array([[0.0, 0, 0], [0, 300, 0], [200, 150, 0]]))
    assert plate.kind == "plane" and plate.flat
    lengths = sorted(float(np.linalg.norm(b - a)) for a, b in plate.outline)
    assert lengths == pytest.approx(sorted([300.0, np.hypot(200, 150), np.hypot(200, 150)]))
    # an upright: a tetrahedron is a solid whose hull has four faces
    tet = body_shape(np.array([[0.0, 0, 0], [100, 0, 0], [0, 100, 0], [0, 0, 100]]))
    assert tet.kind == "solid" and not tet.flat
    assert tet.triangles is not None and len(tet.triangles) == 4
    # repeated copies of one point are one point
    assert body_shape(np.array([[1.0, 2, 3]] * 3)).kind == "point"


def test_damper_shape_telescopes_along_its_axis() -> None:
    from suspension_sim.viz.geometry import DAMPER_BODY_LENGTH, DAMPER_ROD_LENGTH, damper_shape

    c, m = np.array([0.0, 0, 0]), np.array([0.0, 0, 180.0])  # compressed from 200 mm
    shape = damper_shape(c, m, design_length=200.0, coil_radius=20.0)
    assert shape is not None
    assert np.allclose(shape.body[1], [0, 0, DAMPER_BODY_LENGTH * 200.0])
    assert np.allclose(shape.rod[1], [0, 0, 180.0 - DAMPER_ROD_LENGTH * 200.0])
    assert np.allclose(np.hypot(shape.helix[:, 0], shape.helix[:, 1]), 20.0)
    assert 0 < shape.helix[:, 2].min() < shape.helix[:, 2].max() < 180.0
    assert damper_shape(c, c, 200.0, 20.0) is None


# -- files -----------------------------------------------------------------------------
def test_screenshot_is_written_atomically(rendering: None, design: Pose, tmp_path: Path) -> None:
    """The image appears complete under its own name, with no temporary file left, and a
    stale temporary image of a process that died is cleared."""
    from suspension_sim.files import TEMP_TAG
    from suspension_sim.viz import render_image

    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f".old.png{TEMP_TAG}{int(dead.stdout)}-abc.tmp.png"
    stale.write_bytes(b"half an image")
    out = tmp_path / "pose.PNG"
    img = render_image(design, out, size=SIZE, annotate=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pose.PNG"]
    assert np.array_equal(iio.imread(out)[..., :3], img)
    with pytest.raises(InputError) as info:
        render_image(design, tmp_path / "missing" / "pose.png", size=SIZE)
    assert info.value.where == "path" and "missing" in str(info.value)


# -- the probe -------------------------------------------------------------------------
BROKEN_GL = {"VTK_DEFAULT_OPENGL_WINDOW": "vtkNonexistentWindow"}
"""Makes VTK's window factory fail; on these machines the child then segfaults (139)."""


def test_failed_probe_gives_what_to_install() -> None:
    result = viz_probe.probe_rendering(BROKEN_GL)
    assert not result.ok
    err = viz_probe.rendering_error(result)
    text = err.render()
    assert "apt-get install libegl1 libgl1-mesa-dri" in text
    assert "cannot render" in text and "docs/rendering.md" in text
    if result.returncode in (-11, 139):
        assert "segmentation fault" in text


def test_view_without_gl_exits_with_message_not_crash(test_workbook: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.png"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "suspension_sim",
            "view",
            str(test_workbook),
            "--screenshot",
            str(out),
        ],
        cwd=ROOT,
        env={**os.environ, **BROKEN_GL, "SUSPENSION_SIM_CACHE_DIR": ""},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == RenderingUnavailableError.exit_code, proc.stderr
    assert "apt-get install libegl1 libgl1-mesa-dri" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_started_probe_answers_ensure_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    """`start_probe` starts the child at once; `ensure_rendering` takes its answer (one
    child for the process) and raises the install hint when it failed."""
    monkeypatch.setattr(viz_probe, "_cached", None)
    monkeypatch.setattr(viz_probe, "_running", None)
    monkeypatch.delenv(viz_probe.SKIP_PROBE_ENV, raising=False)
    for key, value in BROKEN_GL.items():
        monkeypatch.setenv(key, value)
    spawned: list[object] = []
    real = viz_probe._spawn

    def spawn(env: dict[str, str] | None) -> object:
        spawned.append(env)
        return real(env)

    monkeypatch.setattr(viz_probe, "_spawn", spawn)
    viz_probe.start_probe()
    viz_probe.start_probe()  # already running: no second child
    assert len(spawned) == 1 and viz_probe._running is not None
    with pytest.raises(RenderingUnavailableError, match="cannot render"):
        viz_probe.ensure_rendering()
    with pytest.raises(RenderingUnavailableError):
        viz_probe.ensure_rendering()  # the cached answer
    assert len(spawned) == 1 and viz_probe._running is None


def test_probe_is_cached_per_process(rendering: None) -> None:
    first = viz_probe.ensure_rendering()
    assert first.ok and first is viz_probe.ensure_rendering()


def test_no_display_sets_egl_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("DISPLAY", "WAYLAND_DISPLAY", *viz_probe.OFF_SCREEN_ENV):
        monkeypatch.delenv(key, raising=False)
    if sys.platform in ("darwin", "win32"):
        pytest.skip("always has a display")
    assert viz_probe.configure_environment() == viz_probe.OFF_SCREEN_ENV
    monkeypatch.setenv("VTK_DEFAULT_OPENGL_WINDOW", "vtkOSOpenGLRenderWindow")
    monkeypatch.delenv("PYVISTA_OFF_SCREEN")
    assert viz_probe.configure_environment() == {"PYVISTA_OFF_SCREEN": "true"}
    assert os.environ["VTK_DEFAULT_OPENGL_WINDOW"] == "vtkOSOpenGLRenderWindow"  # user's wins


# -- red and green ---------------------------------------------------------------------
def test_converged_pose_has_no_red_and_green_joints(rendering: None, design: Pose) -> None:
    img, px = render(design)
    assert img.shape == (SIZE[1], SIZE[0], 3)
    assert red_mask(img).sum() == 0
    green = green_mask(img)
    joints = design.copies.index.get_level_values("point").isin(design.residuals.index)
    hits = [window(green, c, r, 3).any() for (c, r) in px[joints]]
    assert np.mean(hits) > 0.7  # most joints are in view (a few hide behind tyres)


def test_unreachable_stroke_shows_red_at_each_copy(rendering: None, broken: Pose) -> None:
    from suspension_sim.viz import joint_status

    status = joint_status(broken)
    open_pts = list(status[status].index)
    assert open_pts == ["FL_DMP_M"]
    img, px = render(broken)
    red = red_mask(img)
    is_open = broken.copies.index.get_level_values("point").isin(open_pts)
    assert is_open.sum() == 2  # on the damper rod and on the rocker
    for col, row in px[is_open]:
        assert window(red, col, row, 4).any(), (col, row)
    # and red nowhere else: every red pixel is near an open copy
    rows, cols = np.nonzero(red)
    d = np.hypot(cols[:, None] - px[is_open, 0], rows[:, None] - px[is_open, 1]).min(axis=1)
    assert d.max() < 25


def test_opened_joint_is_red_where_it_projects(rendering: None, design: Pose) -> None:
    """A pose whose rear-left rocker is turned off its solution: two joints open."""
    m = design.model
    q = design.params.copy()
    q[m.topology.param_names.index("RL_Rocker.angle")] += 0.25
    pose = dataclasses.replace(design, params=q)
    gaps = pose.residuals
    expected = {"RL_PR_I", "RL_DMP_M"}
    assert set(gaps[gaps > 0.01].index) == expected
    img, px = render(pose, camera="top")
    red = red_mask(img)
    is_open = pose.copies.index.get_level_values("point").isin(expected)
    for col, row in px[is_open]:
        assert window(red, col, row, 4).any(), (col, row)
    far = ~pose.copies.index.get_level_values("point").str.startswith("RL_")
    green = green_mask(img)
    assert not any(window(red, c, r, 2).any() for c, r in px[far])
    assert green.any()


def test_focus_open_zooms_on_the_open_joint(rendering: None, broken: Pose) -> None:
    whole, _ = render(broken)
    close, px = render(broken, focus="open")
    is_open = broken.copies.index.get_level_values("point") == "FL_DMP_M"
    h, w = close.shape[:2]
    assert ((px[is_open] > 0) & (px[is_open] < [w - 1, h - 1])).all()
    assert red_mask(close).sum() > 10 * max(red_mask(whole).sum(), 1)


def test_tolerance_turns_small_gaps_green(rendering: None, broken: Pose) -> None:
    img, _ = render(broken, tolerance_mm=10.0)  # the 2.67 mm gap is now within tolerance
    assert red_mask(img).sum() == 0


# -- camera presets ----------------------------------------------------------------------
@pytest.mark.parametrize("camera", ["front", "side", "top", "iso"])
def test_camera_frames_the_whole_car(rendering: None, design: Pose, camera: str) -> None:
    from suspension_sim.viz import pose_bounds

    img, px = render(design, camera=camera, annotate=False)
    h, w = img.shape[:2]
    assert (px[:, 0] > 0).all() and (px[:, 0] < w - 1).all()
    assert (px[:, 1] > 0).all() and (px[:, 1] < h - 1).all()
    drawn = np.any(img.astype(int) < 250, axis=2)  # background is white
    rows, cols = np.nonzero(drawn)
    assert rows.min() > 0 and cols.min() > 0 and rows.max() < h - 1 and cols.max() < w - 1
    # and the car fills the frame in at least one direction (not a speck)
    assert max((np.ptp(rows) + 1) / h, (np.ptp(cols) + 1) / w) > 0.7
    b = pose_bounds(design)
    assert b[4] == pytest.approx(0.0, abs=1e-6)  # tyres touch the ground, which is in the box


def test_cameras_match_cli_choices() -> None:
    from suspension_sim.commands.view import CAMERA_CHOICES
    from suspension_sim.viz import CAMERAS

    assert tuple(CAMERA_CHOICES) == tuple(CAMERAS)


# -- animation -------------------------------------------------------------------------
def _sweep(model: Model, n: int = 4) -> list[Pose]:
    poses, prev = [], None
    for s in np.linspace(0.0, 30.0, n):
        prev = model.solve(shocks=[s, s, 0, 0], guess=prev)
        poses.append(prev)
    return poses


def test_animate_gif_has_one_frame_per_pose(rendering: None, model: Model, tmp_path: Path) -> None:
    from suspension_sim.viz import animate

    poses = _sweep(model)
    out = animate(poses, tmp_path / "bump.gif", size=(200, 150), annotate=False)
    frames = iio.imread(out, index=None)
    assert frames.shape[0] == len(poses) and frames.shape[1:3] == (150, 200)
    assert not np.array_equal(frames[0], frames[-1])  # the car moved
    assert [p.name for p in tmp_path.iterdir()] == ["bump.gif"]  # no temporary file left


def test_mp4_without_imageio_ffmpeg_is_a_clear_error(
    model: Model, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from suspension_sim.viz import animate

    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)
    with pytest.raises(InputError, match="imageio-ffmpeg"):
        animate([model.solve()], tmp_path / "a.mp4")
    with pytest.raises(InputError, match=r"\.gif or \.mp4"):
        animate([model.solve()], tmp_path / "a.avi")


# -- the view command --------------------------------------------------------------------
def test_view_screenshot_of_unreachable_stroke(
    rendering: None, test_workbook: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "fail.png"
    argv = ["view", str(test_workbook), "--shocks", f"FL_Damper={BROKEN_STROKE}"]
    argv += ["--screenshot", str(out), "--size", *map(str, SIZE), "--camera", "front"]
    assert cli.main(argv) == 3  # the picture is written, the exit code says it is open
    img = iio.imread(out)
    assert img.shape[:2] == (SIZE[1], SIZE[0])
    assert red_mask(img[..., :3]).any()
    err = capsys.readouterr().err
    assert "FL_DMP_M" in err


def test_view_without_display_needs_screenshot(
    test_workbook: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(viz_probe.sys, "platform", "linux")
    assert cli.main(["view", str(test_workbook)]) == 2
    assert "--screenshot" in capsys.readouterr().err


def test_view_sweep_animation(rendering: None, test_workbook: Path, tmp_path: Path) -> None:
    """A real named sweep (sweeps.yaml beside the workbook) drawn frame by frame."""
    folder = tmp_path / "car"
    folder.mkdir()
    workbook = folder / test_workbook.name
    workbook.write_bytes(test_workbook.read_bytes())
    (folder / "sweeps.yaml").write_text(
        "version: 1\nsweeps:\n  Bump:\n    motion: bump\n    wheel: FL\n"
        "    start: -10\n    stop: 10\n    steps: 3\n"
    )
    out = tmp_path / "bump.gif"
    argv = ["view", str(workbook), "--sweep", "Bump", "--animate", str(out)]
    assert cli.main([*argv, "--size", "160", "120"]) == 0
    frames = iio.imread(out, index=None)
    assert frames.shape[:3] == (3, 120, 160)
    assert not np.array_equal(frames[0], frames[-1])  # the wheel moved between frames


def test_view_sweep_needs_animate(test_workbook: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["view", str(test_workbook), "--sweep", "bump"]) == 2
    assert "--animate" in capsys.readouterr().err


# -- view aids: tyres, kingpin axes, centres, --sweeps -----------------------------------
def near_colour(img: np.ndarray, colour: tuple[float, float, float], tol: int = 40) -> np.ndarray:
    """Pixels within `tol` (0-255, each channel) of a flat-shaded `colour`, or of it darkened
    by shading (same hue: each channel scaled by one factor between 0.45 and 1)."""
    rgb = img[..., :3].astype(float)
    ref = np.asarray(colour, dtype=float) * 255.0
    scale = np.clip((rgb @ ref) / (ref @ ref), 0.45, 1.0)
    return np.all(np.abs(rgb - scale[..., None] * ref) < tol, axis=-1)


def _project(pose: Pose, xyz: np.ndarray, **kw: object) -> tuple[np.ndarray, np.ndarray]:
    from suspension_sim.viz import build_scene, world_to_pixel

    plotter = build_scene(pose, size=SIZE, off_screen=True, annotate=False, **kw)  # type: ignore[arg-type]
    try:
        img = np.asarray(plotter.screenshot(return_img=True))
        px = world_to_pixel(plotter, xyz)
    finally:
        plotter.close()
    return img, px


def test_kingpin_segments_extend_the_kingpin_points(design: Pose) -> None:
    from suspension_sim.viz import kingpin_segments

    axes = kingpin_segments(design)
    assert set(axes) == {"FL", "FR", "RL", "RR"}
    lo, up = (design.points.loc[p].to_numpy(dtype=float) for p in ("FL_LBJ", "FL_UBJ"))
    a, b = axes["FL"]
    # 150 mm beyond each point, along the lower -> upper line
    assert np.linalg.norm(a - lo) == pytest.approx(150.0, abs=1e-9)
    assert np.linalg.norm(b - up) == pytest.approx(150.0, abs=1e-9)
    assert np.linalg.norm(b - a) == pytest.approx(np.linalg.norm(up - lo) + 300.0, abs=1e-9)
    assert np.linalg.norm(np.cross(b - a, up - lo)) == pytest.approx(0.0, abs=1e-6)


def test_centre_marks_lie_on_the_force_lines(design: Pose) -> None:
    """Each roll centre is where the lines contact point -> instant centre of its axle's
    two wheels cross in the front view (docs/conventions.md); the car is symmetric."""
    from suspension_sim.viz import centre_marks

    marks = centre_marks(design)
    assert set(marks.instant) == {"FL", "FR", "RL", "RR"} and set(marks.roll) == {"front", "rear"}
    for axle, (left, right) in {"front": ("FL", "FR"), "rear": ("RL", "RR")}.items():
        rc = marks.roll[axle]
        for w in (left, right):
            cp = np.array([design.points.loc[f"{w}_WC"].to_numpy(dtype=float)[0], 0, 0])
            cp[1] = 600.0 if w in ("FL", "RL") else -600.0  # contact patch y of this car
            ic = marks.instant[w]
            assert ic[0] == pytest.approx(cp[0], abs=1e-6)
            # rc, cp and ic collinear in the y-z plane
            d1, d2 = ic[1:] - cp[1:], rc[1:] - cp[1:]
            assert d1[0] * d2[1] - d1[1] * d2[0] == pytest.approx(0.0, abs=1e-6 * 600**2)
        assert rc[1] == pytest.approx(0.0, abs=1e-6)  # symmetric car: on the centre plane
        assert rc[2] > 0


def test_no_tyres_removes_the_tyre_colour(rendering: None, design: Pose) -> None:
    from suspension_sim.viz.render import TYRE

    car = design.model.car
    # the bottom of each front tyre's tread, seen from the front: only tyre there
    tread = []
    for w in car.wheels[:2]:
        c = design.points.loc[w.centre].to_numpy(dtype=float)
        tread.append(c - [0.0, 0.0, 0.85 * w.tyre_radius])
    with_tyres, px = _project(design, np.array(tread), camera="front")
    without, px2 = _project(design, np.array(tread), camera="front", tyres=False)
    assert np.allclose(px, px2)  # the same framing: tyres still count in the bounds
    dark, gone = near_colour(with_tyres, TYRE, 25), near_colour(without, TYRE, 25)
    for col, row in px:
        assert window(dark, col, row, 2).all()
        assert not window(gone, col, row, 2).any()
    assert gone.sum() < 0.05 * dark.sum()  # nowhere else either (dampers are a bit dark)


def test_kingpin_axes_are_drawn_where_they_project(rendering: None, design: Pose) -> None:
    from suspension_sim.viz import kingpin_segments
    from suspension_sim.viz.render import KINGPIN

    tops = []
    for lower, upper in kingpin_segments(design).values():
        d = (upper - lower) / np.linalg.norm(upper - lower)
        tops.append(upper - 75.0 * d)  # half-way along the extension above the upper point
    plain, _ = _project(design, np.array(tops), camera="front", tyres=False)
    aided, px = _project(design, np.array(tops), camera="front", tyres=False, kingpin=True)
    assert not near_colour(plain, KINGPIN).any()
    magenta = near_colour(aided, KINGPIN)
    front = [k for k in range(4) if tops[k][0] > -500.0]  # front axle, drawn in front
    assert len(front) == 2
    for k in front:
        assert window(magenta, px[k, 0], px[k, 1], 1).any(), px[k]


def test_centres_are_marked_in_their_colours(rendering: None, design: Pose) -> None:
    from suspension_sim.viz import centre_marks
    from suspension_sim.viz.render import INSTANT_CENTRE, ROLL_CENTRE

    marks = centre_marks(design)
    front_ic = np.array([marks.instant["FL"], marks.instant["FR"]])
    rc = marks.roll["front"][None]
    plain, _ = _project(design, rc, camera="front")  # the same framing
    img, px = _project(design, np.vstack([front_ic, rc]), camera="front", centres=True)
    orange, blue = near_colour(img, INSTANT_CENTRE), near_colour(img, ROLL_CENTRE)
    for col, row in px[:2]:
        assert window(orange, col, row, 0).all(), (col, row)
    assert window(blue, px[2, 0], px[2, 1], 1).all()
    without = near_colour(plain, ROLL_CENTRE)
    assert not window(without, px[2, 0], px[2, 1], 1).any()  # only background there


def test_view_sweeps_file_animates_a_sweep_defined_only_there(
    rendering: None, test_workbook: Path, tmp_path: Path
) -> None:
    sweeps = tmp_path / "elsewhere.yaml"
    sweeps.write_text(
        "version: 1\nsweeps:\n  Droop:\n    motion: bump\n    wheel: FR\n"
        "    start: -20\n    stop: 0\n    steps: 4\n"
    )
    out = tmp_path / "droop.gif"
    argv = ["view", str(test_workbook), "--sweep", "Droop", "--animate", str(out)]
    argv += ["--size", "160", "120", "--no-tyres", "--kingpin", "--centres"]
    assert cli.main([*argv, "--sweeps", str(sweeps)]) == 0
    frames = iio.imread(out, index=None)
    assert frames.shape[:3] == (4, 120, 160)
    assert cli.main(argv) == 2  # not in the workbook (nor beside it)
    roll = tmp_path / "roll.gif"
    argv = ["view", str(test_workbook), "--sweep", "roll", "--animate", str(roll)]
    assert cli.main([*argv, "--size", "160", "120", "--sweeps", str(sweeps)]) == 0
    assert iio.imread(roll, index=None).shape[0] > 1  # a standard motion by name
