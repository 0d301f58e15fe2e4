"""Independent reference tools for validation/<case>/make_reference.py.

Nothing here imports suspension_sim: the point of a reference is to reach
the same numbers by another road. This module has

* `read_workbook`: a small openpyxl reader of the car workbook (index table,
  User Options units and axis map, Components, Hard Points, Wheels, Steering,
  Damping), following docs/workbook.md;
* `SlvsCar`: the whole car solved by SolveSpace's constraint solver (`slvs`).
  Every rigid body is a minimal set of point-to-point distances (a virtual
  point off the body's plane keeps flat bodies rigid), joints are shared point
  entities, the chassis and rack points are constants placed by the chassis
  pose and the rack travel. Two ways to close the car: damper lengths given
  (a distance each), or every tyre on the ground (the damper distances are
  dropped and, per wheel, the lowest point of the tyre circle is put on the
  plane z = 0, see `SlvsCar._contact`);
* `wheel_channels`: camber, toe, steer, caster, KPI, scrub radius, trail,
  spindle length, half track, wheel travel and damper length from solved
  points, written from the formulas of docs/conventions.md (not from
  suspension_sim.metrics), with OptimumK's definitions (toe = the wheel plane's
  angle to X, + = toe-out; steer a heading, + = left; scrub and trail in the
  vehicle's views from its contact patch C + r unit(s x h));
* `write_export`: the OptimumK export layout (docs/validation.md).

Units: mm and degrees.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

CORNER_NAMES = {"FL": "Front Left", "FR": "Front Right", "RL": "Rear Left", "RR": "Rear Right"}


# -- the workbook -----------------------------------------------------------------------------
@dataclass
class RefWheel:
    name: str
    body: str
    centre: str
    axis_point: str
    radius: float
    kingpin: tuple[str, str] | None


@dataclass
class RefCar:
    """A car as read by `read_workbook`: mm, model frame (+X forward, +Y left, +Z up)."""

    name: str
    points: dict[str, np.ndarray]
    bodies: dict[str, list[str]]
    wheels: list[RefWheel]
    dampers: list[tuple[str, str, str]]  # (body, chassis point, moving point)
    rack: tuple[str, str, str] | None = None  # (body, end point 1, end point 2)
    rack_ratio_mm_per_deg: float | None = None
    reference_point: np.ndarray = field(default_factory=lambda: np.zeros(3))
    damper_limits: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)

    def damper_design_length(self, body: str) -> float:
        for b, c, m in self.dampers:
            if b == body:
                return float(np.linalg.norm(self.points[m] - self.points[c]))
        raise KeyError(body)


def _key(text: object) -> str:
    return re.sub(r"[\s#_]+", "", str(text or "")).lower()


def _cells(wb: object, ref: str, first_sheet: str) -> list[list[object]]:
    """Values of a range 'Sheet'!A1:D9 / Sheet!A1:D9 / A1:D9 / Sheet!B:E, as rows."""
    from openpyxl.utils.cell import column_index_from_string, coordinate_from_string

    ref = ref.replace("$", "").strip()
    if "!" in ref:
        sheet, cells = ref.rsplit("!", 1)
        sheet = sheet.strip()
        if sheet.startswith("'") and sheet.endswith("'"):
            sheet = sheet[1:-1].replace("''", "'")
    else:
        sheet, cells = first_sheet, ref
    ws = next(w for w in wb.worksheets if w.title.lower() == sheet.lower())  # type: ignore[attr-defined]
    a, b = cells.split(":")
    if a.isalpha():  # whole columns
        c0, c1 = sorted((column_index_from_string(a), column_index_from_string(b)))
        r0, r1 = 1, ws.max_row
    else:
        (ca, ra), (cb, rb) = coordinate_from_string(a), coordinate_from_string(b)
        c0, c1 = sorted((column_index_from_string(ca), column_index_from_string(cb)))
        r0, r1 = sorted((ra, rb))
    rows = [[ws.cell(r, c).value for c in range(c0, c1 + 1)] for r in range(r0, r1 + 1)]
    while rows and all(v is None for v in rows[0]):
        rows.pop(0)
    return rows


def _table(rows: list[list[object]]) -> list[dict[str, object]]:
    head = [_key(h) for h in rows[0]]
    out = []
    for row in rows[1:]:
        if all(v is None or str(v).strip() == "" for v in row):
            continue
        rec: dict[str, object] = {}
        extra: list[object] = []
        for h, v in zip(head, row, strict=False):
            if h and h not in rec:
                rec[h] = v
            else:
                extra.append(v)
        rec["__extra__"] = extra
        out.append(rec)
    return out


def _axis_map(text: str) -> np.ndarray:
    """Model = M @ workbook; '+Z +X +Y' or '[[0 0 1] [1 0 0] [0 1 0]]'."""
    tokens = re.findall(r"[+-]?[XYZxyz]", text)
    if len(tokens) == 3 and not re.search(r"\d", text):
        M = np.zeros((3, 3))
        for row, tok in enumerate(tokens):
            M[row, "xyz".index(tok[-1].lower())] = -1.0 if tok.startswith("-") else 1.0
        return M
    nums = [float(v) for v in re.findall(r"[+-]?\d+(?:\.\d*)?", text)]
    return np.array(nums, dtype=float).reshape(3, 3)


LENGTH_MM = {"mm": 1.0, "m": 1000.0, "in": 25.4, "inch": 25.4, "metre": 1000.0, "meter": 1000.0}


def read_workbook(path: str | Path) -> RefCar:
    """Read the workbook with openpyxl alone (see the module docstring)."""
    import openpyxl

    wb = openpyxl.load_workbook(path, data_only=True)
    first = wb.worksheets[0]
    index: dict[str, str] = {}
    found = None
    for row in first.iter_rows():
        for cell in row:
            if _key(cell.value) == "section":
                right = first.cell(cell.row, cell.column + 1).value
                if _key(right) == "range":
                    found = (cell.row, cell.column)
                    break
        if found:
            break
    assert found, "no index table"
    r = found[0] + 1
    while True:
        name, ref = first.cell(r, found[1]).value, first.cell(r, found[1] + 1).value
        if name is None and ref is None:
            break
        if name is not None and ref:
            index[_key(name)] = str(ref)
        r += 1
    sections = {k: _table(_cells(wb, v, first.title)) for k, v in index.items()}

    options = {_key(rec.get("option")): rec.get("value") for rec in sections.get("useroptions", [])}
    f = LENGTH_MM[str(options.get("lengthunit") or "mm").strip().lower()]
    angle_unit = str(options.get("angleunit") or "deg").strip().lower()
    deg_per_angle_unit = 180.0 / math.pi if angle_unit.startswith("rad") else 1.0
    M = _axis_map(str(options.get("axismap") or "+X +Y +Z"))

    points: dict[str, np.ndarray] = {}
    for rec in sections["hardpoints"]:
        name = rec.get("point", rec.get("pointname", rec.get("name")))
        xyz = np.array([float(rec["x"]), float(rec["y"]), float(rec["z"])])  # type: ignore[arg-type]
        points[str(name).strip()] = M @ xyz * f
    bodies: dict[str, list[str]] = {}
    for rec in sections["components"]:
        name = str(rec.get("body", rec.get("element"))).strip()
        pts = [rec.get("points"), *rec["__extra__"]]  # type: ignore[misc]
        bodies[name] = [str(p).strip() for p in pts if p is not None and str(p).strip()]
    wheels = []
    for rec in sections.get("wheels", []):
        kl = rec.get("kingpinlower")
        ku = rec.get("kingpinupper")
        wheels.append(
            RefWheel(
                str(rec["wheel"]).strip(),
                str(rec["body"]).strip(),
                str(rec.get("centrepoint", rec.get("centerpoint"))).strip(),
                str(rec["axispoint"]).strip(),
                float(rec.get("tyreradius", rec.get("tireradius"))) * f,  # type: ignore[arg-type]
                (str(kl).strip(), str(ku).strip()) if kl and ku else None,
            )
        )
    dampers = [
        (
            str(rec["damperbody"]).strip(),
            str(rec["chassispoint"]).strip(),
            str(rec["movingpoint"]).strip(),
        )
        for rec in sections.get("damping", [])
    ]
    limits = {}
    for rec in sections.get("damping", []):
        lo, hi = rec.get("minlength"), rec.get("maxlength")
        limits[str(rec["damperbody"]).strip()] = (
            float(lo) * f if lo not in (None, "") else None,  # type: ignore[arg-type]
            float(hi) * f if hi not in (None, "") else None,  # type: ignore[arg-type]
        )
    rack = None
    ratio = None
    steering = sections.get("steering", [])
    if steering:
        rec = steering[0]
        body = str(rec["rackbody"]).strip()
        e1, e2 = rec.get("endpoint1"), rec.get("endpoint2")
        if not e1:
            e1, e2 = bodies[body][0], bodies[body][1]
        rack = (body, str(e1).strip(), str(e2).strip())
        if rec.get("steeringratio") not in (None, ""):
            ratio = float(rec["steeringratio"]) * f / deg_per_angle_unit  # type: ignore[arg-type]
    ref_name = options.get("chassisreferencepoint")
    ref = points[str(ref_name).strip()] if ref_name else np.zeros(3)
    name = str(options.get("carname") or Path(path).stem)
    return RefCar(name, points, bodies, wheels, dampers, rack, ratio, ref, limits)


def corners(car: RefCar) -> dict[str, str]:
    """{wheel: OptimumK corner name} by position: front = ahead of the mean wheel x
    (every wheel is front when they share one x), left = +Y."""
    xs = [float(car.points[w.centre][0]) for w in car.wheels]
    mean = float(np.mean(xs))
    out = {}
    for w, x in zip(car.wheels, xs, strict=True):
        front = x > mean or max(xs) - min(xs) < 1.0
        left = car.points[w.centre][1] > 0
        out[w.name] = f"{'Front' if front else 'Rear'} {'Left' if left else 'Right'}"
    return out


def damper_of_wheels(car: RefCar) -> dict[str, str]:
    """{wheel: damper body}: the damper nearest the wheel's carrier in the body graph
    (bodies joined by shared points; the chassis and rack do not connect anything)."""
    skip = {"Chassis", car.rack[0] if car.rack else ""}
    fixed = set(car.bodies["Chassis"]) | (set(car.bodies[car.rack[0]]) if car.rack else set())
    graph: dict[str, set[str]] = {b: set() for b in car.bodies if b not in skip}
    for a in graph:
        for b in graph:
            if a != b and (set(car.bodies[a]) & set(car.bodies[b])) - fixed:
                graph[a].add(b)
    out = {}
    for w in car.wheels:
        dist = {w.body: 0}
        queue = [w.body]
        while queue:
            b = queue.pop(0)
            for nb in graph[b]:
                if nb not in dist:
                    dist[nb] = dist[b] + 1
                    queue.append(nb)
        near = sorted((dist[d], d) for d, _c, _m in car.dampers if d in dist)
        if near:
            out[w.name] = near[0][1]
    return out


# -- chassis pose -----------------------------------------------------------------------------
def rotation(roll_deg: float, pitch_deg: float, yaw_deg: float) -> np.ndarray:
    """R = Rz(yaw) Ry(pitch) Rx(roll) (docs/conventions.md), angles in degrees."""
    a, b, c = (math.radians(v) for v in (roll_deg, pitch_deg, yaw_deg))
    rx = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    ry = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    rz = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return rz @ ry @ rx


@dataclass(frozen=True)
class ChassisPose:
    """World = R (p - ref) + ref + d. Heave = d_z (mm, + up); angles in degrees."""

    heave: float = 0.0
    roll: float = 0.0
    pitch: float = 0.0
    ref: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def R(self) -> np.ndarray:
        return rotation(self.roll, self.pitch, 0.0)

    def to_world(self, p: np.ndarray) -> np.ndarray:
        ref = np.array(self.ref)
        return self.R @ (np.asarray(p) - ref) + ref + np.array([0.0, 0.0, self.heave])

    def to_chassis(self, p: np.ndarray) -> np.ndarray:
        ref = np.array(self.ref)
        return self.R.T @ (np.asarray(p) - ref - np.array([0.0, 0.0, self.heave])) + ref


@dataclass(frozen=True)
class Placement:
    """A general rigid chassis placement: world = R p + t (mm). Used where the chassis
    is moved as OptimumK moves it (steps integrated about world-fixed axes), which is
    not of the form `ChassisPose`."""

    R: np.ndarray
    t: np.ndarray

    @staticmethod
    def identity() -> Placement:
        return Placement(np.eye(3), np.zeros(3))

    def to_world(self, p: np.ndarray) -> np.ndarray:
        return self.R @ np.asarray(p) + self.t

    def to_chassis(self, p: np.ndarray) -> np.ndarray:
        return self.R.T @ (np.asarray(p) - self.t)

    def then(self, R: np.ndarray, t: np.ndarray) -> Placement:
        """This placement followed by the world-frame motion x -> R x + t."""
        return Placement(R @ self.R, R @ self.t + t)


def axis_rotation(
    point: np.ndarray, axis: np.ndarray, angle_deg: float
) -> tuple[np.ndarray, np.ndarray]:
    """(R, t) of a rotation by angle_deg (right hand) about the line through `point`
    along `axis`: x -> R (x - point) + point (Rodrigues)."""
    k = _unit(np.asarray(axis, dtype=float))
    a = math.radians(angle_deg)
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + math.sin(a) * K + (1.0 - math.cos(a)) * (K @ K)
    p = np.asarray(point, dtype=float)
    return R, p - R @ p


# -- SolveSpace ---------------------------------------------------------------------------------
FIXED, MOVING = 1, 2


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


class SlvsCar:
    """The car in SolveSpace. `solve(...)` returns every point in the world frame (mm)."""

    def __init__(self, car: RefCar):
        self.car = car
        self.fixed_names = set(car.bodies["Chassis"])
        self.rack_dir = np.zeros(3)
        self.rack_points: set[str] = set()
        if car.rack is not None:
            body, e1, e2 = car.rack
            u = _unit(car.points[e2] - car.points[e1])
            self.rack_dir = u if u[1] > 0 else -u  # + rack = toward +Y
            self.rack_points = set(car.bodies[body])
        self.fixed_names |= self.rack_points
        self.damper_bodies = {d[0] for d in car.dampers}
        self.moving_names = [
            p
            for body, pts in car.bodies.items()
            if body not in ("Chassis",) and body not in self.damper_bodies
            for p in pts
            if p not in self.fixed_names
        ]
        self.moving_names += [m for _b, _c, m in car.dampers if m not in self.fixed_names]
        self.moving_names = list(dict.fromkeys(self.moving_names))
        self.rigid: list[tuple[str, str, float]] = []
        self.virtual: dict[str, np.ndarray] = {}
        self._build_rigid_sets()

    # A minimal rigid set per body: each point placed by min(3, placed) distances to the
    # points already placed, chosen to be well conditioned; a virtual point off the body's
    # plane is added first when the body is flat.
    def _build_rigid_sets(self) -> None:
        car = self.car
        skip = {"Chassis", *self.damper_bodies}
        if car.rack is not None:
            skip.add(car.rack[0])
        pos = dict(car.points)
        for body, pts in car.bodies.items():
            if body in skip:
                continue
            placed = [p for p in pts if p in self.fixed_names]
            todo = [p for p in pts if p not in self.fixed_names]
            if not todo:
                continue
            if len(pts) >= 4:
                X = np.array([pos[p] for p in pts])
                centre = X.mean(axis=0)
                _, sv, vt = np.linalg.svd(X - centre)
                if sv[2] < 0.2 * sv[0]:  # flat (or nearly): add the virtual point
                    name = f"__virtual_{body}"
                    size = max(50.0, float(sv[0] / math.sqrt(len(pts))))
                    pos[name] = centre + vt[2] * size
                    self.virtual[name] = pos[name]
                    todo.insert(0, name)
            for p in todo:
                k = min(3, len(placed))
                anchors = self._best_anchors(pos, p, placed, k)
                for a in anchors:
                    self.rigid.append((p, a, float(np.linalg.norm(pos[p] - pos[a]))))
                placed.append(p)
        self.design = pos

    @staticmethod
    def _best_anchors(
        pos: Mapping[str, np.ndarray], p: str, placed: list[str], k: int
    ) -> list[str]:
        if k == 0:
            return []
        from itertools import combinations

        best, best_q = None, -1.0
        for combo in combinations(placed, k):
            u = [_unit(pos[p] - pos[a]) for a in combo]
            if k == 1:
                q = float(np.linalg.norm(pos[p] - pos[combo[0]]))
            elif k == 2:
                q = float(np.linalg.norm(np.cross(u[0], u[1])))
            else:
                q = abs(float(np.linalg.det(np.array(u))))
            if q > best_q:
                best, best_q = list(combo), q
        if k >= 2 and best_q < 0.05:
            raise ValueError(f"point {p}: no well-conditioned anchors among {placed}")
        assert best is not None
        return best

    def solve(
        self,
        pose: ChassisPose | Placement,
        rack: float = 0.0,
        lengths: Mapping[str, float] | None = None,
        start: Mapping[str, np.ndarray] | None = None,
        ground_z: float | Mapping[str, float] = 0.0,
        polish: int = 4,
        offsets: Mapping[str, np.ndarray] | None = None,
    ) -> dict[str, np.ndarray]:
        """Solve one pose (world mm). lengths: {damper body: eye-to-eye mm}, or None to put
        every tyre on the plane z = ground_z instead (one height, or {wheel: height}).
        `start`: world positions to begin from (a previous result); the design placed by
        the pose otherwise. `pose`: a ChassisPose or a Placement (anything with to_world).
        offsets: {fixed point: world displacement mm} added to where the pose puts it (a
        virtual displacement of a support, for its reaction by virtual work)."""
        import slvs

        car = self.car
        slvs.clear_sketch()
        ent: dict[str, object] = {}
        world_fixed: dict[str, np.ndarray] = {}
        for name in self.fixed_names:
            p = car.points[name] + (rack * self.rack_dir if name in self.rack_points else 0.0)
            world_fixed[name] = pose.to_world(p) + (
                np.asarray(offsets[name], dtype=float) if offsets and name in offsets else 0.0
            )
            ent[name] = slvs.add_point_3d(FIXED, *world_fixed[name])
        guess = {n: pose.to_world(self.design[n]) for n in [*self.moving_names, *self.virtual]}
        if start:
            guess.update({k: v for k, v in start.items() if k in guess or k.startswith("__")})
        for name in [*self.moving_names, *self.virtual]:
            ent[name] = slvs.add_point_3d(MOVING, *guess[name])
        free = slvs.E_FREE_IN_3D
        for a, b, d in self.rigid:
            slvs.distance(MOVING, ent[a], ent[b], d, free)
        if lengths is not None:
            for body, c, m in car.dampers:
                slvs.distance(MOVING, ent[c], ent[m], float(lengths[body]), free)
        else:
            extra = self._contact(slvs, ent, pose, guess, start, ground_z)
            ent.update(extra)
        for _ in range(polish):
            result = slvs.solve_sketch(MOVING, False)
            if isinstance(result, tuple):
                result = result[0]
            if result["result"] != 0:
                raise RuntimeError(f"SolveSpace did not solve: {result}")
        if result["dof"] != 0:
            raise RuntimeError(f"SolveSpace reports {result['dof']} free degrees of freedom")
        out = dict(world_fixed)
        for name, e in ent.items():
            if name in world_fixed:
                continue
            out[name] = np.array([slvs.get_param_value(h) for h in e["param"][:3]])  # type: ignore[index]
        return out

    def _contact(
        self,
        slvs: object,
        ent: dict[str, object],
        pose: ChassisPose | Placement,
        guess: Mapping[str, np.ndarray],
        start: Mapping[str, np.ndarray] | None,
        ground_z: float | Mapping[str, float],
    ) -> dict[str, object]:
        """Put every tyre on the ground with distances and two plane memberships.

        Per wheel (C centre, A axis point, r radius, a = |CA|): E on the tyre circle
        (|CE| = r, |AE| = sqrt(r^2 + a^2), i.e. CE perpendicular to the axis) and in
        the horizontal plane through C, so CE is the circle's horizontal radius; CP on
        the circle (|C CP| = r, |A CP| = sqrt(r^2 + a^2)) with |E CP| = r sqrt(2), so
        C->CP is perpendicular to the horizontal radius: CP is the lowest (or highest)
        point of the circle, and it lies on the ground plane. The warm start keeps the
        lowest one. One equation per wheel more than the unknowns: it replaces the
        wheel's damper length.
        """
        free = slvs.E_FREE_IN_3D  # type: ignore[attr-defined]
        up = slvs.add_normal_3d(FIXED, 1.0, 0.0, 0.0, 0.0)  # type: ignore[attr-defined]
        planes: dict[float, object] = {}
        out: dict[str, object] = {}
        for w in self.car.wheels:
            z_w = float(ground_z if isinstance(ground_z, (int, float)) else ground_z[w.name])
            if z_w not in planes:
                o = slvs.add_point_3d(FIXED, 0.0, 0.0, z_w)  # type: ignore[attr-defined]
                planes[z_w] = slvs.add_workplane(FIXED, o, up)  # type: ignore[attr-defined]
            ground = planes[z_w]
            c_w, a_w = guess[w.centre], guess[w.axis_point]
            s = _unit(a_w - c_w)
            h = _unit(np.cross(s, [0.0, 0.0, 1.0]))
            d = _unit(np.array([0.0, 0.0, 1.0]) - s[2] * s)
            e0 = (start or {}).get(f"__E_{w.name}", c_w + w.radius * h)
            cp0 = (start or {}).get(f"__CP_{w.name}", c_w - w.radius * d)
            E = slvs.add_point_3d(MOVING, *e0)  # type: ignore[attr-defined]
            CP = slvs.add_point_3d(MOVING, *cp0)  # type: ignore[attr-defined]
            C, A = ent[w.centre], ent[w.axis_point]
            a = float(np.linalg.norm(self.car.points[w.axis_point] - self.car.points[w.centre]))
            slant = math.hypot(w.radius, a)
            level = slvs.add_workplane(MOVING, C, up)  # type: ignore[attr-defined]
            slvs.distance(MOVING, C, E, w.radius, free)  # type: ignore[attr-defined]
            slvs.distance(MOVING, A, E, slant, free)  # type: ignore[attr-defined]
            slvs.coincident(MOVING, E, level, free)  # type: ignore[attr-defined]
            slvs.distance(MOVING, C, CP, w.radius, free)  # type: ignore[attr-defined]
            slvs.distance(MOVING, A, CP, slant, free)  # type: ignore[attr-defined]
            slvs.distance(MOVING, E, CP, w.radius * math.sqrt(2.0), free)  # type: ignore[attr-defined]
            slvs.coincident(MOVING, CP, ground, free)  # type: ignore[attr-defined]
            out[f"__E_{w.name}"] = E
            out[f"__CP_{w.name}"] = CP
        return out


# -- metrics (docs/conventions.md, written independently) --------------------------------------
def wheel_channels(
    car: RefCar,
    pts: Mapping[str, np.ndarray],
    pose: ChassisPose,
    design_toe_out: Mapping[str, float] | None = None,
) -> dict[str, dict[str, float]]:
    """{wheel: {quantity: value}} with OptimumK's definitions (mm, deg). Quantities:
    Camber Angle, Toe Angle (the wheel plane's angle to the vehicle X axis, + toe-out),
    Steer Angle (toe minus design toe as a heading, + = turned left on both sides),
    Caster Angle, Kingpin Angle, Scrub Radius and Mechanical Trail (in the vehicle's
    front and side views, from OptimumK's contact patch C + r unit(s x h)), Spindle
    Length, Half Track (lowest point of the tyre), Wheel Travel."""
    z = np.array([0.0, 0.0, 1.0])
    R = pose.R
    x_h = _unit(R[:, 0] - float(R[:, 0] @ z) * z)  # the car's heading on the ground
    y_h = np.cross(z, x_h)
    out: dict[str, dict[str, float]] = {}
    for w in car.wheels:
        side = 1.0 if car.points[w.centre][1] > 0 else -1.0
        C, A = np.asarray(pts[w.centre]), np.asarray(pts[w.axis_point])
        s = _unit(A - C)
        if (R.T @ s)[1] * side < 0:
            s = -s  # outboard
        sc = R.T @ s
        ch: dict[str, float] = {}
        ch["Camber Angle"] = -math.degrees(math.asin(float(s @ z)))
        # the angle between the wheel plane (normal s) and the chassis X axis
        ch["Toe Angle"] = -math.degrees(math.asin(float(sc[0])))
        steer = 0.0
        if design_toe_out is not None:
            steer = side * (ch["Toe Angle"] - design_toe_out[w.name])
            ch["Steer Angle"] = steer
        d = _unit(z - float(s @ z) * s)
        cp = C - w.radius * d  # lowest point of the tyre circle
        a = math.radians(steer)
        h = math.cos(a) * x_h + math.sin(a) * y_h
        u = _unit(np.cross(s, h))
        patch = C + w.radius * (u if u[2] < 0 else -u)  # OptimumK's contact patch
        if w.kingpin is not None:
            lo, up = np.asarray(pts[w.kingpin[0]]), np.asarray(pts[w.kingpin[1]])
            k = _unit(up - lo)
            kc = R.T @ k
            ch["Caster Angle"] = math.degrees(math.atan2(-kc[0], kc[2]))
            ch["Kingpin Angle"] = math.degrees(math.atan2(-side * kc[1], kc[2]))
            g = lo + (patch[2] - lo[2]) / k[2] * k
            ch["Scrub Radius"] = float((patch - g) @ (side * y_h))
            ch["Mechanical Trail"] = float((g - patch) @ x_h)
            rel = C - lo
            ch["Spindle Length"] = float(np.linalg.norm(rel - (rel @ k) * k))
        ch["Half Track"] = side * float(pose.to_chassis(cp)[1])
        ch["Wheel Travel"] = float(pose.to_chassis(C)[2] - car.points[w.centre][2])
        out[w.name] = ch
    return out


def damper_lengths(car: RefCar, pts: Mapping[str, np.ndarray]) -> dict[str, float]:
    """{damper body: eye-to-eye length} (mm)."""
    return {b: float(np.linalg.norm(pts[m] - pts[c])) for b, c, m in car.dampers}


def contact_heights(car: RefCar, pts: Mapping[str, np.ndarray]) -> dict[str, float]:
    """{wheel: world z of the lowest point of the tyre circle} (mm), for self-checks."""
    z = np.array([0.0, 0.0, 1.0])
    out = {}
    for w in car.wheels:
        C = np.asarray(pts[w.centre])
        s = _unit(np.asarray(pts[w.axis_point]) - C)
        d = _unit(z - float(s @ z) * s)
        out[w.name] = float((C - w.radius * d)[2])
    return out


# -- the export ---------------------------------------------------------------------------------
def write_export(
    path: str | Path,
    motion: Mapping[str, Sequence[float]],
    channels: Mapping[str, Sequence[float]],
    comments: Iterable[str] = (),
) -> Path:
    """Write an export in the OptimumK layout: comment lines, header, one row per step.

    motion: {"Heave [mm]": [...], ...}; channels: {"Camber Angle Front Left [deg]": [...]}.
    Values with 10 significant digits.
    """
    p = Path(path)
    cols: dict[str, list[float]] = {
        "Step": [float(i) for i in range(1, len(next(iter(motion.values()))) + 1)]
    }
    cols.update({k: list(v) for k, v in motion.items()})
    cols.update({k: list(v) for k, v in channels.items()})
    n = len(cols["Step"])
    with p.open("w", newline="", encoding="utf-8") as fh:
        for line in comments:
            fh.write(f"# {line}\n")
        writer = csv.writer(fh)
        writer.writerow(list(cols))
        for i in range(n):
            writer.writerow(
                [i + 1, *(f"{float(v[i]):.10g}" for k, v in cols.items() if k != "Step")]
            )
    return p
