"""3-D view of member forces: real off-screen renders of the four-corner car under the
standard cornering case (280 kg), and ``suspension-sim loads --view``.

The colouring is checked against the load table (each member's tube carries its
axial force, the colour range is symmetric at the largest |force|), against the
colormap (tension and compression on opposite sides) and in the image (the pixels
where a tension and a compression member project are red and blue). Renders are
small (400 x 300) to keep the module fast.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest
from _cars import four_corner_car

from suspension_sim import Model, cli
from suspension_sim.errors import InputError, RenderingUnavailableError
from suspension_sim.loads import LoadResult, car_cases, solve_loads
from suspension_sim.solve.pose import Pose

ROOT = Path(__file__).resolve().parents[1]
SIZE = (400, 300)
MASS_KG = 280.0
CASE = "cornering"
G = 9.80665


@pytest.fixture(scope="module")
def model() -> Model:
    return Model(four_corner_car())


@pytest.fixture(scope="module")
def pose(model: Model) -> Pose:
    p = model.solve()
    assert p.converged
    return p


@pytest.fixture(scope="module")
def result(model: Model, pose: Pose) -> LoadResult:
    return solve_loads(pose, car_cases(model, MASS_KG))


@pytest.fixture(scope="module")
def forces(result: LoadResult) -> dict[str, float]:
    """Member -> axial force (N, + = tension) of the case, from the load table."""
    m = result.members()
    m = m[m["case"] == CASE]
    return dict(zip(m["member"].astype(str), m["axial_N"].astype(float), strict=True))


@pytest.fixture(scope="module")
def workbook(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from suspension_sim.workbook.writer import write_car

    return write_car(four_corner_car(), tmp_path_factory.mktemp("wb") / "four_corner.xlsx")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance (mm) of points p (n, 3) from the segment a-b."""
    d = b - a
    s = np.clip((p - a) @ d / (d @ d), 0.0, 1.0)
    return np.asarray(np.linalg.norm(p - (a + s[:, None] * d), axis=1))


# -- the scene ----------------------------------------------------------------------------
def test_member_tubes_carry_the_axial_forces(
    rendering: None, result: LoadResult, pose: Pose, forces: dict[str, float]
) -> None:
    import pyvista as pv

    from suspension_sim.viz.loads_view import SCALARS, build_member_scene

    scene = build_member_scene(result, CASE, pose, size=SIZE, off_screen=True)
    try:
        assert set(scene.members) == set(forces)  # every member drawn, nothing else
        for name, mesh in scene.members.items():
            assert mesh.n_points > 0
            np.testing.assert_array_equal(mesh.point_data[SCALARS], forces[name])
        limit = max(abs(v) for v in forces.values())
        assert scene.limit == pytest.approx(limit)
        mapper = scene.actors["members"].mapper
        assert tuple(mapper.scalar_range) == pytest.approx((-limit, limit))
        # what the actor really draws: the output of the mapper's input (pyvista puts an
        # active-scalars filter in front of the mesh)
        source = mapper.GetInputAlgorithm()
        source.Update()
        drawn = pv.wrap(source.GetOutputDataObject(0))
        assert drawn.n_points == sum(m.n_points for m in scene.members.values())
        np.testing.assert_allclose(
            np.unique(drawn.point_data[SCALARS]), np.unique(list(forces.values()))
        )
        # the scalar bar names the sign convention
        titles = list(scene.plotter.scalar_bars.keys())  # ScalarBars is not iterable
        assert any("+ tension" in t and "- compression" in t for t in titles)
    finally:
        scene.plotter.close()


def test_tubes_lie_along_the_links_and_legs(
    rendering: None, result: LoadResult, pose: Pose, model: Model
) -> None:
    """Independent geometry: a tie rod between its two points, a wishbone leg from its
    pivot to the ball joint (the arm's point on the upright), from the solved points."""
    from suspension_sim.viz.loads_view import build_member_scene

    pts = pose.points
    bodies = {b.name: b.points for b in model.car.bodies}
    upright = set(bodies["FR_Upright"])
    uca = bodies["FR_UCA"]
    ball = next(p for p in uca if p in upright)
    scene = build_member_scene(result, CASE, pose, size=SIZE, off_screen=True)
    try:
        tie = list(bodies["FR_TieRod"])
        assert len(tie) == 2
        for name, (a, b) in {
            "FR_TieRod": (tie[0], tie[1]),
            "FR_UCA leg FR_UCA_F": ("FR_UCA_F", ball),
        }.items():
            A, B = (pts.loc[p].to_numpy(dtype=float) for p in (a, b))
            mesh_pts = np.asarray(scene.members[name].points)
            dist = _segment_distance(mesh_pts, A, B)
            radius = float(dist.max())
            assert 1.0 < radius < 40.0  # a tube around the segment, nowhere else
            assert dist.min() > 0.5 * radius or np.isclose(dist.min(), 0.0)  # wall or caps
            ends = np.array([A, B])
            reach = np.linalg.norm(mesh_pts[:, None] - ends[None], axis=2).min(axis=0)
            assert (reach < radius + 1e-6).all()  # it reaches both points
    finally:
        scene.plotter.close()


def test_tension_and_compression_on_opposite_sides(
    rendering: None, result: LoadResult, pose: Pose, forces: dict[str, float]
) -> None:
    """Cornering to the left (+Y) loads the right front: its tie rod pulls, its pushrod
    pushes. The colormap puts them on opposite sides, and so does the image."""
    from suspension_sim.viz.geometry import world_to_pixel
    from suspension_sim.viz.loads_view import build_member_scene

    tension, compression = "FR_TieRod", "FR_Pushrod"
    assert forces[tension] > 0 > forces[compression]
    scene = build_member_scene(
        result, CASE, pose, size=SIZE, camera="front", tyres=False, off_screen=True
    )
    try:
        lut = scene.actors["members"].mapper.lookup_table
        hot = np.array(lut.map_value(forces[tension], opacity=False))
        cold = np.array(lut.map_value(forces[compression], opacity=False))
        assert hot[0] > hot[2] and cold[2] > cold[0]  # red-ish vs blue-ish
        assert np.array(lut.map_value(0.0, opacity=False)).std() < 0.05  # zero is neutral
        img = np.asarray(scene.plotter.screenshot(return_img=True))[..., :3].astype(int)
        found: dict[str, np.ndarray] = {}
        for name in (tension, compression):
            centre = np.asarray(scene.members[name].center, dtype=float)
            col, row = world_to_pixel(scene.plotter, centre)[0]
            r0, c0 = round(row), round(col)
            found[name] = img[max(r0 - 2, 0) : r0 + 3, max(c0 - 2, 0) : c0 + 3].reshape(-1, 3)
        red, blue = found[tension], found[compression]
        assert ((red[:, 0] - red[:, 2]) > 30).any()
        assert ((blue[:, 2] - blue[:, 0]) > 30).any()
    finally:
        scene.plotter.close()


def test_contact_arrows_carry_the_case_loads(result: LoadResult, pose: Pose, model: Model) -> None:
    """The arrows start on the ground under each wheel and together carry the car's weight."""
    from suspension_sim.viz.loads_view import contact_arrows

    arrows = contact_arrows(result, CASE, pose)
    assert set(arrows) == {w.name for w in model.car.wheels}
    total = np.sum([F for _, F in arrows.values()], axis=0)
    assert total[2] == pytest.approx(MASS_KG * G, rel=1e-3)
    for w in model.car.wheels:
        p, _ = arrows[w.name]
        centre = pose.points.loc[w.centre].to_numpy(dtype=float)
        assert p[2] == pytest.approx(0.0, abs=1.0)  # design pose: tyres on the ground
        assert np.hypot(*(p - centre)[:2]) < 5.0  # below the wheel centre (small camber)


def test_bad_case_or_other_pose_is_refused(result: LoadResult, pose: Pose, model: Model) -> None:
    from suspension_sim.viz.loads_view import build_member_scene

    with pytest.raises(InputError, match="cornering"):
        build_member_scene(result, "corner", pose)
    other = model.solve(shocks=[10, 0, 0, 0])  # the FL corner moves relative to the chassis
    with pytest.raises(InputError, match="another pose"):
        build_member_scene(result, CASE, other)


# -- files and the command ----------------------------------------------------------------
def test_png_of_the_requested_size(
    rendering: None, result: LoadResult, pose: Pose, tmp_path: Path
) -> None:
    from suspension_sim.viz.loads_view import render_member_forces

    out = render_member_forces(result, CASE, tmp_path / "forces.png", pose, size=SIZE)
    assert out == tmp_path / "forces.png"
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = iio.imread(out)
    assert img.shape[:2] == (SIZE[1], SIZE[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forces.png"]  # no temp file left


def test_loads_view_command(
    rendering: None, workbook: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _digest(workbook)
    out = tmp_path / "loads.png"
    argv = ["loads", str(workbook), "--mass", str(MASS_KG), "--case", CASE, "--view", str(out)]
    assert cli.main(argv) == 0
    assert iio.imread(out).shape[:2] == (900, 1200)
    assert f"wrote {out} ({CASE})" in capsys.readouterr().out
    assert _digest(workbook) == before


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--case", "corner", "--view", "{tmp}/x.png"], "cornering"),  # did you mean
        (["--case", CASE, "--view", "{wb}"], "--view"),  # the workbook itself
        (["--case", CASE, "--view", "{tmp}/x.txt"], "--view"),
        (["--case", CASE, "--view", "{tmp}/missing/x.png"], "--view"),
    ],
)
def test_loads_view_bad_input_exits_2(
    workbook: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    needle: str,
) -> None:
    before = _digest(workbook)
    args = [a.format(tmp=tmp_path, wb=workbook) for a in extra]
    assert cli.main(["loads", str(workbook), "--mass", str(MASS_KG), *args]) == 2
    assert needle in capsys.readouterr().err
    assert _digest(workbook) == before
    assert not (tmp_path / "x.png").exists()


def test_loads_view_without_gl_exits_4_with_message(workbook: Path, tmp_path: Path) -> None:
    """VTK's window factory broken (as in tests/test_viz.py): exit 4, what to install,
    no traceback, no image and the workbook untouched."""
    before = _digest(workbook)
    out = tmp_path / "x.png"
    argv = ["loads", str(workbook), "--mass", str(MASS_KG), "--view", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "suspension_sim", *argv],
        cwd=ROOT,
        env={
            **os.environ,
            "VTK_DEFAULT_OPENGL_WINDOW": "vtkNonexistentWindow",
            "SUSPENSION_SIM_CACHE_DIR": "",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == RenderingUnavailableError.exit_code == 4, proc.stderr
    assert "docs/rendering.md" in proc.stderr and "apt-get install" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()
    assert _digest(workbook) == before
