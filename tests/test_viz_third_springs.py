"""The 3-D view draws a third spring as a coil between its two ends."""

from __future__ import annotations

import numpy as np

from suspension_sim.api import Model
from suspension_sim.workbook.examples import load_source


def test_third_spring_coil_spans_its_ends(rendering: None) -> None:
    from suspension_sim.viz.probe import import_pyvista
    from suspension_sim.viz.render import add_pose, new_plotter

    pv = import_pyvista()
    pose = Model(load_source("fsae_car_arb")).solve()
    plotter = new_plotter(pv, (320, 240), off_screen=True)
    try:
        info = add_pose(plotter, pose, annotate=False, tyres=False)
        assert "third springs" in info.actors
        mesh = info.actors["third springs"].GetMapper().GetInput()
        pts = np.asarray(mesh.GetPoints().GetData())
        a = pose.points.loc["RC_TBAR_S"].to_numpy(dtype=float)
        b = pose.points.loc["RC_3RD_C"].to_numpy(dtype=float)
        d = (b - a) / np.linalg.norm(b - a)
        along = (pts - a) @ d
        # the coil lies between the ends (12 %..88 % of the length, plus the tube radius)
        assert along.min() > 0.0 and along.max() < np.linalg.norm(b - a)
        assert along.max() - along.min() > 0.7 * np.linalg.norm(b - a)
    finally:
        plotter.close()
