"""The double-wishbone corner against SolveSpace's solver (`slvs`).

SolveSpace knows nothing of screws or joint classes: every rigid body is a
minimal rigid set of point-to-point distances (SolveSpace's slvs Python API), chassis
points are in a constant group, and the damper length and rack position are
plain distances and fixed points. Agreement of every point to 1e-6 mm over a
range of strokes is an independent check of the screw-theory model.
"""

from __future__ import annotations

import numpy as np
import slvs  # a test dependency (pip install -e .[test]); never skipped
from _cars import CORNER_BODIES, CORNER_POINTS, double_wishbone_corner

from suspension_sim import Model

P = {k: np.array(v) for k, v in CORNER_POINTS.items()}
FIXED_GROUP, MOVING_GROUP = 1, 2


def _rigid_distances(names: list[str]) -> list[tuple[str, str]]:
    """A minimal rigid set: a tetrahedron, then three distances per further point."""
    pairs = [(a, b) for i, a in enumerate(names[:4]) for b in names[i + 1 : 4]]
    for extra in names[4:]:
        pairs += [(extra, names[0]), (extra, names[1]), (extra, names[2])]
    return pairs


def slvs_corner(stroke: float, rack: float, start: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Solve the corner with SolveSpace; returns every point (mm)."""
    slvs.clear_sketch()
    rack_dir = (P["TIE_I"] - P["RACK_R"]) / np.linalg.norm(P["TIE_I"] - P["RACK_R"])
    rack_dir *= np.sign(rack_dir[1])
    chassis = set(CORNER_BODIES["Chassis"]) | {"TIE_I"}
    ent = {}
    for name in P:
        if name == "RACK_R":
            continue
        if name in chassis:
            xyz = P[name] + (rack * rack_dir if name == "TIE_I" else 0.0)
            ent[name] = slvs.add_point_3d(FIXED_GROUP, *xyz)
        else:
            ent[name] = slvs.add_point_3d(MOVING_GROUP, *start[name])
    free = slvs.E_FREE_IN_3D

    def dist(a: str, b: str, value: float | None = None) -> None:
        d = float(np.linalg.norm(P[a] - P[b])) if value is None else value
        slvs.distance(MOVING_GROUP, ent[a], ent[b], d, free)

    # Wishbones and rocker: distances to both pivots plus within the moving points.
    for body, pivots in (
        ("LCA", ("LCA_F", "LCA_R")),
        ("UCA", ("UCA_F", "UCA_R")),
        ("Rocker", ("RK_P1", "RK_P2")),
    ):
        moving = [p for p in CORNER_BODIES[body] if p not in pivots]
        for m in moving:
            dist(m, pivots[0])
            dist(m, pivots[1])
        for i, a in enumerate(moving):
            for b in moving[i + 1 :]:
                dist(a, b)
    for a, b in _rigid_distances(["UBJ", "LBJ", "TIE_O", "WC", "WA"]):
        dist(a, b)
    dist("PR_O", "PR_I")
    dist("TIE_I", "TIE_O")
    dist("DMP_M", "DMP_C", float(np.linalg.norm(P["DMP_M"] - P["DMP_C"])) - stroke)
    for _ in range(3):  # slvs stops at 1e-8; call again to polish
        result = slvs.solve_sketch(MOVING_GROUP, False)
        if isinstance(result, tuple):  # some slvs releases also return the failed constraints
            result = result[0]
        assert result["result"] == 0, result
        assert result["dof"] == 0, result  # the distances locate every point
    out = {}
    for name, e in ent.items():
        out[name] = np.array([slvs.get_param_value(h) for h in e["param"][:3]])
    return out


def test_corner_matches_solvespace_over_travel() -> None:
    model = Model(double_wishbone_corner())
    start = dict(P)
    pose = None
    checked = 0
    for stroke, rack in [(s, r) for s in np.linspace(-25.0, 40.0, 14) for r in (-10.0, 0.0, 10.0)]:
        pose = model.solve(shocks=[stroke], rack=rack, guess=pose)
        ref = slvs_corner(stroke, rack, start)
        for name, xyz in ref.items():
            got = pose.points.loc[name].to_numpy(dtype=float)
            assert np.allclose(got, xyz, atol=1e-6, rtol=0), (stroke, rack, name, got - xyz)
            checked += 1
    assert checked == 14 * 3 * 16
