"""The studio's 3-D view: the same scene code as ``view`` (`suspension_sim.viz.add_pose`)
on one off-screen plotter that the page shows (trame streams its images).

`add_pose` builds every mesh of a car (bodies, tyres, joints green/red with their gaps,
kingpin axes and centres as toggles) into a `_Recorder`; the meshes are then added to
the plotter as they are (car A) or ghosted (car B, translucent orange, names
``B:<layer>``).
Rebuilding them costs ~200 ms, too slow for a slider, so between rebuilds the meshes
*follow* the pose: each vertex is given once to what carries it (the body of a wishbone
or upright, a wheel's body, a damper's cylinder, rod or spring, a joint's point, the
ground), and a new pose moves every vertex by its carrier's motion from the rebuilt
pose: a rigid motion fitted to the body's point copies (mm), the telescoping of a
damper, the translation of a joint. The result is the mesh `add_pose` would build for
the new pose, to the joints' sub-millimetre blending of neighbouring bodies. A full
rebuild happens when a car is (re)loaded, when a view aid changes, when a joint opens
or closes (red/green), and for what cannot follow (centres, third springs, open-joint
marks). The ground and the camera are kept between poses.

Cheaper frames with Mesa's software GL (docs/studio.md), the picture looking the same
at the studio's size: multisample anti-aliasing is off (4-5 times slower); the round
shapes have fewer facets (`viz.meshes.LIGHT`, 60 % fewer vertices); with car A alone,
translucent surfaces (wishbone webs, hub faces) are blended in drawing order instead of
VTK's order-independent translucency, whose extra full-window passes cost ~20 % of a
frame (they overlap little: the pictures differ by 0.02 grey levels on average). With
car B (all translucent) the order-independent blending stays on. A followed mesh is its
mapper's plain input (`_detached`), so no pyvista filter runs again when it moves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from suspension_sim.description import CHASSIS

if TYPE_CHECKING:  # pragma: no cover
    import pyvista as pv

    from suspension_sim.solve.pose import Pose
    from suspension_sim.viz.meshes import MeshDetail

GHOST_OPACITY = 0.3
"""Opacity of car B's meshes (times their own)."""
GHOST_COLOUR = (0.95, 0.42, 0.08)
"""Car B is drawn in one colour (orange), so where it differs from A it stands out."""
GHOST_OFFSET = (4.0, 2000.0)
"""Depth offset (factor, units) pushing B's surfaces behind A's where they coincide."""
FOLLOWING = ("bodies:", "rack", "damper:", "wheels:", "joints:closed", "points", "kingpin")
"""Layers whose meshes can follow a pose (`_Carriers`); "ground" stays where it is."""
STATIC = ("ground",)


@dataclass
class Aids:
    """The view aids of `viz.add_pose` the page toggles."""

    tyres: bool = True
    kingpin: bool = False
    centres: bool = False


class _Recorder:
    """Stands in for a plotter: keeps what `add_pose` adds (meshes and their look)."""

    def __init__(self, window_size: tuple[int, int]) -> None:
        self.window_size = window_size
        self.meshes: list[tuple[Any, dict[str, Any]]] = []
        self.texts: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self.legends: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def add_mesh(self, mesh: Any, **kw: Any) -> None:
        self.meshes.append((mesh, kw))

    def add_text(self, *args: Any, **kw: Any) -> None:
        self.texts.append((args, kw))

    def add_legend(self, *args: Any, **kw: Any) -> None:
        self.legends.append((args, kw))


def rigid_motion(p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) with R p0 + t ~ p1 for the rows of two (k, 3) point sets (mm): Kabsch's
    fit; for collinear points the smallest rotation turning one line into the other."""
    c0, c1 = p0.mean(axis=0), p1.mean(axis=0)
    a, b = p0 - c0, p1 - c1
    if len(p0) < 2:
        return np.eye(3), c1 - c0
    s = np.linalg.svd(a, compute_uv=False)
    if len(p0) >= 3 and s[1] > 1e-6 * max(s[0], 1e-12):
        u, _, vt = np.linalg.svd(a.T @ b)
        d = np.sign(np.linalg.det(vt.T @ u.T)) or 1.0
        r = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    else:
        k = int(np.argmax(np.linalg.norm(a, axis=1)))
        r = turn(a[k], b[k])
    return r, c1 - r @ c0


def turn(u0: np.ndarray, u1: np.ndarray) -> np.ndarray:
    """The smallest rotation taking direction `u0` to direction `u1` (Rodrigues)."""
    n0, n1 = np.linalg.norm(u0), np.linalg.norm(u1)
    if n0 < 1e-12 or n1 < 1e-12:
        return np.eye(3)
    a, b = u0 / n0, u1 / n1
    v = np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])
    c = float(a @ b)
    if c < -1.0 + 1e-12:  # half a turn: about any axis normal to a
        axis = np.cross(a, [1.0, 0.0, 0.0])
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, [0.0, 1.0, 0.0])
        axis /= np.linalg.norm(axis)
        return 2.0 * np.outer(axis, axis) - np.eye(3)
    vx = np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])
    return np.eye(3) + vx + vx @ vx / (1.0 + c)


def _segment_distance(v: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance (mm) of each row of `v` from the segment a-b."""
    ab = b - a
    den = float(ab @ ab)
    t = np.zeros(len(v)) if den < 1e-12 else np.clip((v - a) @ ab / den, 0.0, 1.0)
    return np.asarray(np.linalg.norm(v - (a + t[:, None] * ab), axis=1))


@dataclass
class _Carriers:
    """What carries the vertices of a car's meshes, and their motion from a reference pose.

    Carrier kinds: ``body`` (rigid, from its point copies), ``point`` (translation),
    ``dbody``/``drod``/``dspring`` (a damper's cylinder, rod, spring), ``still``.
    """

    ref: Pose
    sphere: tuple[int, int]
    """The spheres' resolution (`viz.meshes.MeshDetail.sphere`)."""
    names: list[tuple[str, str]] = field(default_factory=list)
    index: dict[tuple[str, str], int] = field(default_factory=dict)
    _row_cache: tuple[dict[str, np.ndarray], dict[tuple[str, str], int], dict[str, int]] | None = (
        None
    )
    _batch: _KabschBatch | None = None

    def carrier(self, kind: str, name: str) -> int:
        key = (kind, name)
        if key not in self.index:
            self.index[key] = len(self.names)
            self.names.append(key)
        return self.index[key]

    def assign(self, layer: str, pts: np.ndarray) -> np.ndarray | None:
        """Carrier index of each vertex of a `layer` mesh at the reference pose; None when
        the layer cannot follow a pose."""
        model, pose = self.ref.model, self.ref
        car = model.car
        if layer.startswith(STATIC):
            return np.full(len(pts), self.carrier("still", ""), dtype=int)
        if not layer.startswith(FOLLOWING):
            return None
        copies = pose.copies
        at = copies.to_numpy(dtype=float)
        by_copy = self._rows()[1]
        dampers = {d.body: d for d in car.dampers}
        rack = car.rack.body if car.rack else None
        candidates: list[tuple[int, list[tuple[np.ndarray, np.ndarray]]]] = []

        def body_segments(body: str) -> list[tuple[np.ndarray, np.ndarray]]:
            xyz = copies.xs(body, level="body").to_numpy(dtype=float)
            if len(xyz) == 1:
                return [(xyz[0], xyz[0])]
            return [(xyz[i], xyz[j]) for i in range(len(xyz)) for j in range(i + 1, len(xyz))]

        if layer.startswith("bodies:"):
            kind = layer.split(":")[1]
            for body in car.bodies:
                if body.name in dampers or body.name in (rack, CHASSIS):
                    continue
                if body.name not in copies.index.get_level_values("body"):
                    continue
                if model.topology.joint(body.name).kind != kind:
                    continue
                candidates.append((self.carrier("body", body.name), body_segments(body.name)))
        elif layer == "rack" and rack is not None:
            candidates.append((self.carrier("body", rack), body_segments(rack)))
        elif layer.startswith("damper:"):
            part = {"damper:body": "dbody", "damper:rod": "drod", "damper:spring": "dspring"}
            if layer not in part:
                return None
            for d in car.dampers:
                c, m = at[by_copy[(d.chassis_point, d.body)]], at[by_copy[(d.moving_point, d.body)]]
                candidates.append((self.carrier(part[layer], d.body), [(c, m)]))
        elif layer.startswith(("wheels:", "kingpin")):
            for w in car.wheels:
                c = at[by_copy[(w.centre, w.body)]]
                segs = body_segments(w.body) if layer == "kingpin" else [(c, c)]
                candidates.append((self.carrier("body", w.body), segs))
        else:  # joints:closed, points: one sphere per point, vertices in blocks
            return self._sphere_owners(pts)
        if not candidates:
            return None
        best = np.full(len(pts), np.inf)
        owner = np.zeros(len(pts), dtype=int)
        for k, segs in candidates:
            d = np.min([_segment_distance(pts, a, b) for a, b in segs], axis=0)
            closer = d < best
            best[closer], owner[closer] = d[closer], k
        return owner

    def _sphere_owners(self, pts: np.ndarray) -> np.ndarray:
        """Carrier of each vertex of a layer of spheres (`viz.meshes.spheres`: one glyph of
        the same vertex count per point, in order): the point nearest each sphere's
        centre; vertex by vertex when the count does not divide."""
        points = self.ref.points
        xyz = points.to_numpy(dtype=float)
        ids = np.array([self.carrier("point", str(p)) for p in points.index], dtype=int)
        theta, phi = self.sphere
        per = theta * (phi - 2) + 2
        if len(pts) % per == 0 and len(pts):
            centres = pts.reshape(-1, per, 3).mean(axis=1)
            near = np.argmin(np.linalg.norm(centres[:, None] - xyz[None], axis=2), axis=1)
            return np.repeat(ids[near], per)
        near = np.argmin(np.linalg.norm(pts[:, None] - xyz[None], axis=2), axis=1)
        return ids[near]

    def _rows(self) -> tuple[dict[str, np.ndarray], dict[tuple[str, str], int], dict[str, int]]:
        """Row positions in the reference's copies (per body, per (point, body)) and points."""
        if self._row_cache is None:
            idx = self.ref.copies.index
            bodies = np.asarray(idx.get_level_values("body"))
            by_body = {str(b): np.flatnonzero(bodies == b) for b in np.unique(bodies)}
            by_copy = {(str(p), str(b)): i for i, (p, b) in enumerate(idx)}
            by_point = {str(p): i for i, p in enumerate(self.ref.points.index)}
            self._row_cache = (by_body, by_copy, by_point)
        return self._row_cache

    def motions(self, pose: Pose) -> tuple[np.ndarray, np.ndarray] | None:
        """(A, t) per carrier: a vertex v of the reference moves to A v + t. None when the
        pose's point copies do not match the reference's (another model)."""
        ref = self.ref
        if pose.model is not ref.model or not pose.copies.index.equals(ref.copies.index):
            return None
        by_body, by_copy, by_point = self._rows()
        n = len(self.names)
        mats = np.repeat(np.eye(3)[None], n, axis=0)
        shift = np.zeros((n, 3))
        c0 = ref.copies.to_numpy(dtype=float)
        c1 = pose.copies.to_numpy(dtype=float)
        p0 = ref.points.to_numpy(dtype=float)
        p1 = pose.points.to_numpy(dtype=float)
        dampers = {d.body: d for d in ref.model.car.dampers}
        if self._batch is None:
            self._batch = _KabschBatch.build(self.names, by_body, c0)
        batch = self._batch
        if batch.carriers.size:
            mats[batch.carriers], shift[batch.carriers] = batch.motions(c1)
        for k, (kind, name) in enumerate(self.names):
            if kind == "body" and k not in batch.members:
                rows = by_body[name]
                mats[k], shift[k] = rigid_motion(c0[rows], c1[rows])
            elif kind == "point":
                i = by_point[name]
                shift[k] = p1[i] - p0[i]
            elif kind in ("dbody", "drod", "dspring"):
                d = dampers[name]
                ia, ib = by_copy[(d.chassis_point, name)], by_copy[(d.moving_point, name)]
                a0, b0, a1, b1 = c0[ia], c0[ib], c1[ia], c1[ib]
                r = turn(b0 - a0, b1 - a1)
                if kind == "dspring":
                    n0 = max(float(np.linalg.norm(b0 - a0)), 1e-12)
                    u0 = (b0 - a0) / n0
                    k_len = float(np.linalg.norm(b1 - a1)) / n0
                    m = r @ (np.eye(3) + (k_len - 1.0) * np.outer(u0, u0))
                    mats[k], shift[k] = m, a1 - m @ a0
                else:
                    anchor0, anchor1 = (a0, a1) if kind == "dbody" else (b0, b1)
                    mats[k], shift[k] = r, anchor1 - r @ anchor0
        return mats, shift


@dataclass
class _KabschBatch:
    """`rigid_motion` of every body with 3+ points not on one line, all at once: the
    fit's 3 x 3 covariances summed per body and one stacked SVD (a slider move fits
    ~25 bodies; one by one that took most of the meshes' update)."""

    carriers: np.ndarray
    """Carrier index of each body in the batch."""
    members: frozenset[int]
    rows: np.ndarray
    """Rows of the point copies, body after body."""
    starts: np.ndarray
    counts: np.ndarray
    group: np.ndarray
    """Batch position of each row's body."""
    centre0: np.ndarray
    """Each body's centroid at the reference pose (mm)."""
    spread0: np.ndarray
    """Each row's point minus its body's centroid at the reference pose (mm)."""

    @classmethod
    def build(
        cls, names: list[tuple[str, str]], by_body: dict[str, np.ndarray], c0: np.ndarray
    ) -> _KabschBatch:
        carriers, blocks = [], []
        for k, (kind, name) in enumerate(names):
            if kind != "body" or len(by_body[name]) < 3:
                continue
            a = c0[by_body[name]] - c0[by_body[name]].mean(axis=0)
            s = np.linalg.svd(a, compute_uv=False)
            if s[1] > 1e-6 * max(s[0], 1e-12):  # else a line: `rigid_motion`'s own case
                carriers.append(k)
                blocks.append(by_body[name])
        counts = np.array([len(b) for b in blocks], dtype=int)
        rows = np.concatenate(blocks) if blocks else np.zeros(0, dtype=int)
        starts = np.r_[0, np.cumsum(counts)[:-1]].astype(int) if blocks else counts
        group = np.repeat(np.arange(len(blocks)), counts)
        centre0 = (
            np.add.reduceat(c0[rows], starts, axis=0) / counts[:, None]
            if blocks
            else np.zeros((0, 3))
        )
        spread0 = c0[rows] - centre0[group]
        return cls(
            np.array(carriers, dtype=int),
            frozenset(carriers),
            rows,
            starts,
            counts,
            group,
            centre0,
            spread0,
        )

    def motions(self, c1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R, t) per body of the batch for the point copies `c1` (Kabsch, as
        `rigid_motion`)."""
        x1 = c1[self.rows]
        centre1 = np.add.reduceat(x1, self.starts, axis=0) / self.counts[:, None]
        spread1 = x1 - centre1[self.group]
        h = np.add.reduceat(self.spread0[:, :, None] * spread1[:, None, :], self.starts, axis=0)
        u, _, vt = np.linalg.svd(h)
        v, ut = vt.transpose(0, 2, 1), u.transpose(0, 2, 1)
        d = np.sign(np.linalg.det(v @ ut))
        d[d == 0] = 1.0
        v = v.copy()
        v[:, :, 2] *= d[:, None]
        r = v @ ut
        return r, centre1 - np.einsum("gij,gj->gi", r, self.centre0)


@dataclass
class _Layer:
    """One actor's mesh that follows a pose: its vertices (and normals) at the reference
    pose, the carrier of each vertex, and views of the VTK arrays it writes into."""

    actor: Any
    mesh: Any
    ref_points: np.ndarray
    ref_normals: np.ndarray | None
    owner: np.ndarray
    runs: list[tuple[int, int, int]] = field(default_factory=list)
    """(start, stop, carrier) of each run of consecutive vertices with one carrier."""
    stretch: bool = False
    """Some carrier stretches (a spring): normals are made unit length again."""
    _points: np.ndarray | None = None
    _normals: np.ndarray | None = None

    def __post_init__(self) -> None:
        from vtkmodules.util.numpy_support import vtk_to_numpy

        n = len(self.owner)
        cuts = np.flatnonzero(np.diff(self.owner)) + 1
        starts, stops = np.r_[0, cuts], np.r_[cuts, n]
        self.runs = [
            (int(a), int(b), int(self.owner[a]))
            for a, b in zip(starts, stops, strict=True)
            if b > a
        ]
        self._points = vtk_to_numpy(self.mesh.GetPoints().GetData())
        normals = self.mesh.GetPointData().GetArray("Normals")
        if self.ref_normals is not None and normals is not None:
            self._normals = vtk_to_numpy(normals)

    def move(self, mats: np.ndarray, shift: np.ndarray) -> None:
        """Move every vertex v (and normal) by its carrier's motion: A v + t (A n)."""
        pts, ref = self._points, self.ref_points
        assert pts is not None
        nrm, ref_n = self._normals, self.ref_normals
        for a, b, k in self.runs:
            pts[a:b] = ref[a:b] @ mats[k].T + shift[k]
            if nrm is not None and ref_n is not None:
                nrm[a:b] = ref_n[a:b] @ mats[k].T
        if nrm is not None and self.stretch:
            nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-12)
        self.mesh.GetPoints().Modified()
        if nrm is not None:
            self.mesh.GetPointData().GetArray("Normals").Modified()


def _detached(pv: Any, mapper: Any) -> Any:
    """The mesh `mapper` draws, as its own copy given to the mapper as plain data.

    pyvista feeds a mapper through its Python algorithms (e.g. the normals of smooth
    shading), whose output shares its points with their input: moving the points made
    them run again at every render (normals recomputed, ~1/5 of a drag picture)."""
    producer = mapper.GetInputAlgorithm()
    if producer is not None:
        producer.Update()
    mesh = pv.wrap(mapper.GetInput()).copy(deep=True)
    mapper.SetInputData(mesh)
    return mesh


class _CarDrawing:
    """One car's actors on the plotter, rebuilt by `add_pose` or moved to follow a pose."""

    def __init__(
        self,
        pv: Any,
        plotter: Any,
        prefix: str,
        opacity: float,
        tint: tuple[float, float, float] | None = None,
        detail: MeshDetail | None = None,
    ) -> None:
        from suspension_sim.viz.meshes import LIGHT

        self.detail = detail or LIGHT
        self.tint = tint
        self.plotter_pv = pv
        self.plotter = plotter
        self.prefix = prefix
        self.opacity = opacity
        self.layers: dict[str, _Layer] = {}
        self.others: list[str] = []
        self.carriers: _Carriers | None = None
        self.open_any = False
        self.title: Any = None
        self.bounds: tuple[float, ...] | None = None

    def clear(self) -> None:
        for name in [*self.layers, *self.others]:
            self.plotter.remove_actor(name, render=False)
        self.layers, self.others, self.carriers, self.title = {}, [], None, None

    def rebuild(self, pose: Pose, style: dict[str, bool], ground_rect: Any, annotate: bool) -> None:
        """Draw `pose` anew with `viz.add_pose`."""
        from suspension_sim.viz.geometry import joint_status
        from suspension_sim.viz.render import add_pose

        self.clear()
        w, h = self.plotter.window_size
        rec = _Recorder((int(w), int(h)))
        info = add_pose(
            rec,  # type: ignore[arg-type]
            pose,
            ground=ground_rect is not None,
            ground_rect=ground_rect,
            annotate=annotate,
            detail=self.detail,
            **style,
        )
        self.bounds = info.bounds
        carriers = _Carriers(pose, self.detail.sphere)
        follow = True
        for mesh, kw in rec.meshes:
            look = dict(kw)
            layer = str(look.pop("name"))
            name = self.prefix + layer
            look["opacity"] = self.opacity * float(look.get("opacity", 1.0))
            if self.tint is not None:
                look["color"] = self.tint
            mesh = mesh.copy()
            actor = self.plotter.add_mesh(mesh, name=name, **look)
            if self.tint is not None:  # behind A where the two coincide: only differences show
                mapper = actor.GetMapper()
                mapper.SetResolveCoincidentTopologyToPolygonOffset()
                mapper.SetRelativeCoincidentTopologyPolygonOffsetParameters(*GHOST_OFFSET)
            owner = carriers.assign(layer, np.asarray(mesh.points, dtype=float))
            if owner is None:
                follow = False
                self.others.append(name)
                continue
            shown = _detached(self.plotter_pv, actor.GetMapper())
            if shown.n_points != mesh.n_points:  # normals split at sharp edges
                owner = carriers.assign(layer, np.asarray(shown.points, dtype=float))
            normals = shown.point_data.get("Normals")
            self.layers[name] = _Layer(
                actor,
                shown,
                np.array(shown.points, dtype=float),
                None if normals is None else np.array(normals, dtype=float),
                owner,  # type: ignore[arg-type]
                stretch=layer == "damper:spring",
            )
        for args, kw in rec.texts:
            kw = {**kw, "name": self.prefix + "title"}
            self.title = self.plotter.add_text(*args, **kw)
            self.others.append(self.prefix + "title")
        for args, kw in rec.legends:
            self.plotter.add_legend(*args, **kw)
        self.carriers = carriers if follow else None
        self.open_any = bool(joint_status(pose).any())

    def follow(self, pose: Pose) -> bool:
        """Move the meshes to `pose`; False when they cannot (rebuild instead)."""
        from suspension_sim.viz.geometry import display_tolerance, joint_status

        if self.carriers is None or self.open_any:
            return False
        status = joint_status(pose)
        if bool(status.any()):
            return False
        motion = self.carriers.motions(pose)
        if motion is None:
            return False
        mats, shift = motion
        for layer in self.layers.values():
            layer.move(mats, shift)
        if self.title is not None:
            from suspension_sim.viz.render import annotation

            text = annotation(pose, pose.residuals.iloc[:0], display_tolerance(pose))
            if hasattr(self.title, "SetText"):
                self.title.SetText(2, text)
            elif hasattr(self.title, "SetInput"):
                self.title.SetInput(text)
        return True


class StudioScene:
    """One off-screen plotter showing car A (and B ghosted); `draw` after each solve."""

    def __init__(
        self, size: tuple[int, int] = (900, 640), detail: MeshDetail | None = None
    ) -> None:
        from suspension_sim.viz.meshes import LIGHT
        from suspension_sim.viz.probe import import_pyvista
        from suspension_sim.viz.render import new_plotter

        self.pv = import_pyvista()
        self.plotter: pv.Plotter = new_plotter(self.pv, size, True)
        window = self.plotter.ren_win
        if window is not None:
            window.SetMultiSamples(0)  # module doc: 4-5x slower on software GL
        self.ground_rect: tuple[float, float, float, float] | None = None
        self.framed = False
        self.detail = detail or LIGHT
        self.cars = [
            _CarDrawing(self.pv, self.plotter, "", 1.0, detail=self.detail),
            _CarDrawing(
                self.pv, self.plotter, "B:", GHOST_OPACITY, GHOST_COLOUR, detail=self.detail
            ),
        ]
        self._style: dict[str, bool] | None = None
        self.rebuilds = 0
        from vtkmodules.vtkCommonCore import vtkUnsignedCharArray

        self._pixels = vtkUnsignedCharArray()

    def reset_framing(self) -> None:
        """Frame the camera and the ground again, and rebuild, at the next draw (a reload)."""
        self.ground_rect = None
        self.framed = False
        self._style = None

    def reset_ground(self) -> None:
        """Rebuild, on a new ground patch, at the next draw; the camera stays (a reload)."""
        self.ground_rect = None
        self._style = None

    def draw(self, pose: Pose, pose_b: Pose | None = None, aids: Aids | None = None) -> None:
        """Show `pose` (and `pose_b` ghosted): moved meshes when they can follow, else
        rebuilt (module doc). No render: the page's view renders."""
        from suspension_sim.viz.camera import frame_camera, title_space
        from suspension_sim.viz.geometry import ground_rectangle, pose_bounds, union_bounds

        aids = aids or Aids()
        style = {"tyres": aids.tyres, "kingpin": aids.kingpin, "centres": aids.centres}
        rebuild_all = style != self._style
        self._style = style
        if self.ground_rect is None:
            boxes = [pose_bounds(pose)] + ([pose_bounds(pose_b)] if pose_b is not None else [])
            self.ground_rect = ground_rectangle(union_bounds(boxes))
        for k, (p, drawing) in enumerate(zip((pose, pose_b), self.cars, strict=True)):
            if p is None:
                drawing.clear()
                continue
            if rebuild_all or not drawing.follow(p):
                drawing.rebuild(p, style, self.ground_rect if k == 0 else None, k == 0)
                self.rebuilds += 1
        self.plotter.renderer.SetUseOIT(pose_b is not None)  # module doc
        if not self.framed and self.cars[0].bounds is not None:
            reserve = title_space(self.plotter, True)
            frame_camera(self.plotter, "iso", self.cars[0].bounds, reserve_top=reserve)
            self.framed = True

    @property
    def window(self) -> Any:
        """The plotter's VTK render window (the one the page's view shows)."""
        window = self.plotter.ren_win
        if window is None:
            raise RuntimeError("the studio's plotter is closed")
        return window

    def picture(self, size: tuple[int, int], quality: int) -> bytes:
        """Render the scene at `size` (pixels) and return the image as JPEG bytes
        (`quality` 1-100): the page's picture, without trame-vtk's encoder thread (whose
        image is ready only at a later poll). The window gets its size back after."""
        import io

        from PIL import Image
        from vtkmodules.util.numpy_support import vtk_to_numpy

        window = self.window
        before = tuple(int(v) for v in window.GetSize()[:2])
        want = (max(int(size[0]), 8), max(int(size[1]), 8))
        if want != before:
            window.SetSize(*want)
        try:
            window.Render()
            w, h = (int(v) for v in window.GetSize()[:2])
            window.GetPixelData(0, 0, w - 1, h - 1, 0, self._pixels, 0)
            rgb = vtk_to_numpy(self._pixels)
            # OpenGL's rows run bottom-up: a negative stride turns them without a copy
            image = Image.frombuffer("RGB", (w, h), rgb, "raw", "RGB", 0, -1)
            out = io.BytesIO()
            image.save(out, "JPEG", quality=int(quality))
            return out.getvalue()
        finally:
            if want != before:
                window.SetSize(*before)

    def camera(self, preset: str) -> None:
        """Turn the camera to a preset (front, side, top, iso) framing the whole scene."""
        from suspension_sim.viz.camera import frame_camera, title_space

        frame_camera(
            self.plotter,
            preset,
            self.plotter.bounds,
            reserve_top=title_space(self.plotter, True),
        )

    def close(self) -> None:
        self.plotter.close()
