"""The studio without a browser: its session (controls -> solve -> design sheet, charts,
reload, two cars) and its 3-D scene (meshes that follow a pose against `viz.add_pose`
rebuilt at that pose). Truths: `Model.solve` and `metrics.pose_metrics` for the same
inputs, `outputs.design_sheet`, and the meshes `add_pose` builds itself."""

from __future__ import annotations

import math
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest

from suspension_sim.studio.charts import charts_html, nice_ticks
from suspension_sim.studio.session import Session

if TYPE_CHECKING:
    from suspension_sim.solve.pose import Pose

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "workbooks" / "fsae_car.xlsx"
WHEELS = ("FL", "FR", "RL", "RR")


@pytest.fixture(scope="module")
def two_cars(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("studio-session")
    a, b = folder / "a.xlsx", folder / "b.xlsx"
    shutil.copyfile(EXAMPLE, a)
    shutil.copyfile(EXAMPLE, b)
    return a, b


def save_edited(path: Path, edit: dict[str, object]) -> None:
    import openpyxl

    wb = openpyxl.load_workbook(path)
    for ref, value in edit.items():
        sheet, cell = ref.split("!")
        wb[sheet][cell] = value
    tmp = path.with_name("~" + path.name)
    wb.save(tmp)
    os.replace(tmp, path)


def test_ground_controls_solve_what_model_solve_gives(two_cars: tuple[Path, Path]) -> None:
    import suspension_sim
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.sweeps.motions import ground_targets

    session = Session(two_cars[0])
    c = session.controls
    c.heave, c.roll, c.steer = -12.0, 0.8, 30.0  # steer: steering-wheel degrees
    frame = session.update()
    model = suspension_sim.load(two_cars[0])
    assert session.car.steer_unit == "deg"
    rack = 30.0 * session.car.rack_per_steer
    assert frame.pose is not None and frame.pose.rack == pytest.approx(rack, abs=1e-12)
    truth = pose_metrics(
        model.solve(rack=rack, chassis=(0, 0, -12, 0.8, 0, 0), targets=ground_targets(model)),
        "iso",
    )
    camber = next(r for r in frame.rows if r.label == "camber [deg]")
    for cell in camber.cells[:4]:
        assert cell.key is not None
        assert cell.value == pytest.approx(truth[cell.key], abs=1e-7)
    # every contact point is on the ground, so the strokes are the solved ones
    assert set(frame.inputs) == {f"stroke:{d}" for d in model.damper_names}
    assert frame.inputs["stroke:FL_Damper"] != frame.inputs["stroke:FR_Damper"]  # rolled


def test_stroke_controls_are_rowes_direct_inputs(two_cars: tuple[Path, Path]) -> None:
    import suspension_sim
    from suspension_sim.metrics import pose_metrics

    session = Session(two_cars[0])
    session.controls.drive = "strokes"
    session.controls.strokes["FL_Damper"] = 6.0
    frame = session.update()
    assert frame.pose is not None
    assert dict(frame.pose.shocks)["FL_Damper"] == 6.0
    model = suspension_sim.load(two_cars[0])
    truth = pose_metrics(model.solve(shocks={"FL_Damper": 6.0}), "iso")
    toe = next(r for r in frame.rows if r.label.startswith("toe [deg]"))
    assert toe.cells[0].value == pytest.approx(truth["toe_FL_deg"], abs=1e-7)
    assert toe.cells[1].value == pytest.approx(truth["toe_FR_deg"], abs=1e-7)


def test_charts_marker_sits_at_the_pose(two_cars: tuple[Path, Path]) -> None:
    session = Session(two_cars[0])
    session.controls.heave = 7.5
    frame = session.update()
    charts, note = session.charts(frame)
    assert note == ""
    camber = next(ch for ch in charts if ch.title == "camber [deg]")
    assert camber.x_label == "chassis_heave_mm"
    marks = {label: (x, y) for label, x, y in camber.marker}
    cells = next(r for r in frame.rows if r.label == "camber [deg]").cells
    assert marks["FL"] == (7.5, cells[0].value)
    # the marker lies on the heave sweep's line (linear between its steps)
    line = next(s for s in camber.series if s.label == "FL")
    assert marks["FL"][1] == pytest.approx(float(np.interp(7.5, line.x, line.y)), abs=0.01)
    svg = charts_html(charts)
    assert svg.count("<svg") == len(charts) and 'data-x="7.5"' in svg


def test_a_broken_save_keeps_the_last_good_car(tmp_path: Path) -> None:
    import suspension_sim
    from suspension_sim.errors import SuspensionSimError

    book = tmp_path / "car.xlsx"
    shutil.copyfile(EXAMPLE, book)
    session = Session(book)
    good = session.update().rows[0].cells[0].value
    save_edited(book, {"Hard Points!B2": "twelve"})
    assert session.changed() == [0]
    assert session.reload() == [0]
    with pytest.raises(SuspensionSimError) as err:
        suspension_sim.load(book, use_cache=False)
    assert session.errors[0] == err.value.render()
    assert "Hard Points" in err.value.render() and "B2" in err.value.render()
    assert session.update().rows[0].cells[0].value == good  # still the last good car
    assert session.changed() == []


def test_two_cars_are_compared_corner_by_corner(two_cars: tuple[Path, Path]) -> None:
    a, b = two_cars
    save_edited(b, {"Hard Points!D2": 361, "Hard Points!D3": 347})  # FL upper pivots +15
    session = Session(a, b)
    assert session.corner_map() == {w: w for w in WHEELS}
    session.controls.heave = 15.0
    frame = session.update()
    import suspension_sim
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.sweeps.motions import ground_targets

    model_b = suspension_sim.load(b)
    truth_b = pose_metrics(
        model_b.solve(chassis=(0, 0, 15, 0, 0, 0), targets=ground_targets(model_b)), "iso"
    )
    camber = next(r for r in frame.rows if r.label == "camber [deg]")
    assert camber.cells_b[0].value == pytest.approx(truth_b["camber_FL_deg"], abs=1e-7)
    assert abs(camber.cells_b[0].value - camber.cells[0].value) > 1e-3  # FL differs
    assert camber.cells_b[2].value == pytest.approx(camber.cells[2].value, abs=1e-9)  # RL same
    charts, _ = session.charts(frame)
    cars = {s.car for ch in charts for s in ch.series}
    assert cars == {"A", "B"}


def test_nice_ticks_are_round_and_cover_the_range() -> None:
    assert nice_ticks(-20.0, 20.0) == [-20.0, -10.0, 0.0, 10.0, 20.0]
    ticks = nice_ticks(-1.37, -0.21)
    assert ticks[0] >= -1.37 and ticks[-1] <= -0.21 and len(ticks) >= 3
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10.0 ** math.floor(math.log10(steps[0]))
    assert any(math.isclose(mantissa, m) for m in (1.0, 2.0, 2.5, 5.0))


# -- the 3-D scene ----------------------------------------------------------------------
def _nearest(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.spatial import cKDTree

    d1, _ = cKDTree(b).query(a)
    d2, _ = cKDTree(a).query(b)
    return float(max(d1.max(), d2.max()))


def test_scene_meshes_follow_the_pose_as_add_pose_would_draw_it(
    two_cars: tuple[Path, Path],
) -> None:
    from suspension_sim.studio.scene import StudioScene
    from suspension_sim.viz.probe import configure_environment

    configure_environment()
    session = Session(two_cars[0])
    first = session.update()
    scene = StudioScene((320, 240))
    scene.draw(first.pose)  # type: ignore[arg-type]
    assert scene.rebuilds == 1
    session.controls.heave, session.controls.roll, session.controls.steer = 18.0, -0.9, 40.0
    moved = session.update()
    scene.draw(moved.pose)  # type: ignore[arg-type]
    assert scene.rebuilds == 1  # followed, not rebuilt
    fresh = StudioScene((320, 240))
    fresh.draw(moved.pose)  # type: ignore[arg-type]
    followed, rebuilt = scene.cars[0].layers, fresh.cars[0].layers
    assert set(followed) == set(rebuilt)
    for name, layer in rebuilt.items():
        if name.startswith("ground"):
            continue  # each scene frames its own ground patch
        gap = _nearest(np.asarray(followed[name].mesh.points), np.asarray(layer.mesh.points))
        # tyres and rims: the same surface, its facets turned (the mesh starts at another
        # angle about the axle); springs: a stretched coil, its vertices ~8 mm apart
        # along the wire (`meshes.LIGHT`); the rest: joints' blending
        limit = 12.0 if name.startswith("wheels:") else 3.0 if "spring" in name else 1.0
        assert gap < limit, (name, gap)
    # the bodies' motions fitted all at once are those fitted one by one
    from suspension_sim.studio.scene import rigid_motion

    carriers = scene.cars[0].carriers
    assert carriers is not None and moved.pose is not None
    motion = carriers.motions(moved.pose)
    assert motion is not None
    by_body = carriers._rows()[0]
    c0 = first.pose.copies.to_numpy(dtype=float)  # type: ignore[union-attr]
    c1 = moved.pose.copies.to_numpy(dtype=float)
    bodies = [k for k, (kind, _) in enumerate(carriers.names) if kind == "body"]
    assert carriers._batch is not None and len(carriers._batch.members) >= 8
    for k in bodies:
        rows = by_body[carriers.names[k][1]]
        r, t = rigid_motion(c0[rows], c1[rows])
        assert np.allclose(motion[0][k], r, atol=1e-9) and np.allclose(motion[1][k], t, atol=1e-6)
    # a wheel's followed tyre is centred on the new wheel centre
    pose = moved.pose
    assert pose is not None
    tyre = followed["wheels:tyre"]
    owners = scene.cars[0].carriers.names  # type: ignore[union-attr]
    for w in pose.model.car.wheels:
        k = owners.index(("body", w.body))
        centre = np.asarray(tyre.mesh.points)[tyre.owner == k].mean(axis=0)
        truth = pose.copies.loc[(w.centre, w.body)].to_numpy(dtype=float)
        assert np.linalg.norm(centre - truth) < 0.5
    # a view aid rebuilds; car B is ghosted
    from suspension_sim.studio.scene import GHOST_OPACITY, Aids

    scene.draw(moved.pose, first.pose, Aids(kingpin=True))  # type: ignore[arg-type]
    assert scene.rebuilds == 3
    ghosts = [a for n, a in scene.plotter.actors.items() if str(n).startswith("B:")]
    assert ghosts and all(a.GetProperty().GetOpacity() <= GHOST_OPACITY + 1e-9 for a in ghosts)
    assert "kingpin" in scene.cars[0].layers
    scene.close()
    fresh.close()


def test_a_grid_sweep_draws_a_line_per_grid_value(tmp_path: Path) -> None:
    shutil.copyfile(EXAMPLE, tmp_path / "car.xlsx")
    shutil.copyfile(EXAMPLE.with_name("sweeps.yaml"), tmp_path / "sweeps.yaml")
    session = Session(tmp_path / "car.xlsx")
    assert "roll_at_steer" in session.car.motions  # the named sweeps beside the workbook
    session.controls.motion = "roll_at_steer"  # roll -2..2 deg at rack -20, 0, 20 mm
    frame = session.update()
    charts, note = session.charts(frame)
    assert note == ""
    camber = next(ch for ch in charts if ch.title == "camber [deg]")
    assert camber.x_label == "chassis_roll_deg"
    fl = [s for s in camber.series if s.label == "FL"]
    assert [s.group for s in fl] == ["rack_mm -20", "rack_mm 0", "rack_mm 20"]
    assert all(s.x == (-2.0, -1.0, 0.0, 1.0, 2.0) for s in fl)
    assert fl[0].y != fl[1].y  # steering changes camber in roll


def test_an_open_joint_is_drawn_red_by_add_pose(two_cars: tuple[Path, Path]) -> None:
    import dataclasses

    import suspension_sim
    from suspension_sim.api import Model
    from suspension_sim.studio.scene import StudioScene
    from suspension_sim.viz.probe import configure_environment

    configure_environment()
    car = suspension_sim.load(two_cars[0]).car
    free = dataclasses.replace(  # the damper's length limits lifted (scripts/render_docs_images)
        car,
        dampers=tuple(
            dataclasses.replace(d, min_length=None, max_length=None) for d in car.dampers
        ),
    )
    model = Model(free)
    scene = StudioScene((320, 240))
    scene.draw(model.solve())
    far = model.solve(shocks={"FL_Damper": 60.0}, on_failure="return")  # beyond the rocker
    assert not far.converged and far.info.max_residual_mm > 1.0
    scene.draw(far)
    assert scene.rebuilds == 2  # not followed: the red marks are add_pose's own
    assert "joints:open" in scene.cars[0].others
    scene.close()


def test_no_browser_is_a_note_not_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    import webbrowser

    from suspension_sim.commands import studio

    monkeypatch.setattr(webbrowser, "open", lambda *a, **k: False)
    assert studio.open_browser("http://127.0.0.1:1/") == "no web browser found"

    def broken(*_: object, **__: object) -> bool:
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "open", broken)
    assert studio.open_browser("http://127.0.0.1:1/") == "could not locate runnable browser"


def test_a_half_car_is_compared_at_its_own_corners_only() -> None:
    import suspension_sim
    from suspension_sim.metrics import pose_metrics
    from suspension_sim.sweeps.motions import ground_targets

    rear = EXAMPLE.with_name("solid_axle_rear.xlsx")  # a rear axle alone: wheels RL, RR
    session = Session(EXAMPLE, rear)
    assert session.corner_map() == {"RL": "RL", "RR": "RR"}  # nothing matched to the front
    session.controls.heave = 10.0
    frame = session.update()
    model = suspension_sim.load(rear)
    truth = pose_metrics(
        model.solve(chassis=(0, 0, 10, 0, 0, 0), targets=ground_targets(model)), "iso"
    )
    camber = next(r for r in frame.rows if r.label == "camber [deg]")
    by_column = dict(zip(frame.columns, camber.cells_b, strict=True))
    assert math.isnan(by_column["FL"].value) and math.isnan(by_column["FR"].value)
    assert by_column["RL"].value == pytest.approx(truth["camber_RL_deg"], abs=1e-7)
    charts, _ = session.charts(frame)
    b_lines = {
        s.label for ch in charts if ch.title == "camber [deg]" for s in ch.series if s.car == "B"
    }
    assert b_lines == {"RL", "RR"}


def _jpeg_pixels(data: bytes) -> np.ndarray:
    import io

    import imageio.v3 as iio

    return np.asarray(iio.imread(io.BytesIO(data), extension=".jpg"))[:, :, :3]


def test_studio_picture_looks_as_views_meshes_at_its_size(two_cars: tuple[Path, Path]) -> None:
    """The studio's picture (light meshes, car A's translucent parts blended in drawing
    order, its own JPEG) against the same pose drawn `view`'s way (fine meshes,
    order-independent translucency, pyvista's screenshot), at the page's view size: the
    same picture to JPEG noise, while the pose 5 mm higher is a visibly other picture."""
    from suspension_sim.studio.scene import StudioScene
    from suspension_sim.viz.meshes import FINE, LIGHT
    from suspension_sim.viz.probe import configure_environment

    configure_environment()
    session = Session(two_cars[0])
    session.controls.heave = 12.0
    pose = session.update().pose
    session.controls.heave = 17.0
    higher = session.update().pose
    assert pose is not None and higher is not None
    size = (1111, 640)  # the view in a 1500 px wide page (the tests' and the benchmark's)
    studio = StudioScene(size)
    studio.draw(pose)
    assert not studio.plotter.renderer.GetUseOIT()
    jpeg = studio.picture(size, 95)
    assert jpeg[:3] == b"\xff\xd8\xff"
    shown = _jpeg_pixels(jpeg)
    assert shown.shape == (640, 1111, 3)
    assert tuple(studio.window.GetSize()) == size  # the window keeps its size
    assert _jpeg_pixels(studio.picture((556, 320), 70)).shape == (320, 556, 3)
    assert tuple(studio.window.GetSize()) == size

    fine = StudioScene(size, detail=FINE)

    def screenshot(p: Pose) -> np.ndarray:
        fine.draw(p)
        fine.plotter.renderer.SetUseOIT(True)
        fine.window.Render()
        return np.asarray(fine.plotter.screenshot(return_img=True))[:, :, :3].astype(int)

    truth, other = screenshot(pose), screenshot(higher)

    def differ(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
        d = np.abs(a.astype(int) - b)
        return float(d.mean()), float((d.max(axis=2) > 60).mean())

    same, moved = differ(shown, truth), differ(other, truth)
    assert same[0] < 1.0 and same[1] < 0.002, same
    assert moved[1] > 3 * same[1] and moved[1] > 0.001, (moved, same)
    # fewer vertices: the joints' spheres and the wheels
    light_n = sum(layer.mesh.n_points for layer in studio.cars[0].layers.values())
    fine_n = sum(layer.mesh.n_points for layer in fine.cars[0].layers.values())
    assert light_n < 0.5 * fine_n, (light_n, fine_n)
    theta, phi = LIGHT.sphere
    joints = studio.cars[0].layers["joints:closed"].mesh.n_points
    assert joints == len(pose.points.index.intersection(_joined(pose))) * (theta * (phi - 2) + 2)
    studio.close()
    fine.close()


def _joined(pose: object) -> list[str]:
    from suspension_sim.viz.geometry import joint_status

    return [str(p) for p in joint_status(pose).index]  # type: ignore[arg-type]


def test_a_picture_still_being_encoded_is_asked_for_until_it_is_sent() -> None:
    """trame-vtk's image stream, when the newest picture is still being encoded: the
    studio's poller pushes again every time (trame-vtk's own drops a timer that fires
    early), and stops once the picture was sent or after the limit."""
    pytest.importorskip("trame")
    from suspension_sim.studio.app import _stale_poller

    class Link:
        def __init__(self) -> None:
            self.stale_handler_count = {"7": 1}
            self.last_stale_time = {"7": 123.0}
            self.stale_count_limit = 3
            self.pushes: list[tuple[str, bool, int]] = []

        def push_render(self, view_id: str, ignore: bool, count: int) -> None:
            self.pushes.append((view_id, ignore, count))

    link = Link()
    poll = _stale_poller(link)
    poll("7", 0)
    assert link.pushes == [("7", False, 1)] and link.stale_handler_count["7"] == 0
    poll("7", 2)
    assert link.pushes[-1] == ("7", False, 3)
    poll("7", 3)  # the limit: no more
    assert len(link.pushes) == 2
    link.last_stale_time["7"] = 0  # the picture was sent
    poll("7", 0)
    assert len(link.pushes) == 2 and link.stale_handler_count["7"] == 0
