"""Kinematic maps for vehicle simulators (docs/exploration.md, "Kinematic maps").

    import suspension_sim
    from suspension_sim.maps import compute_maps, Lookup, Native

    model = suspension_sim.load("workbooks/fsae_car.xlsx")
    maps = compute_maps(model, travel=(-20, 20, 41))   # rack: the default axis
    maps.write("maps/")                                 # map_FL.csv/.parquet, ..., maps.json
    fl = Lookup("maps/", "FL")                          # or Lookup(maps, "FL")
    fl.compute(10.0, 5.0)["camber"]                     # deg at 10 mm bump, rack 5 mm
    Native(model, "FL").compute(10.0, 5.0)["camber"]    # the same call, solved

Per corner, a grid over wheel travel (mm, + = bump) x rack travel (mm, + toward +Y;
corners the rack steers) or wheel travel only, of camber, toe, steer, track change,
caster, KPI, scrub radius, trail, motion ratio, stroke, wheel centre and contact point
(iso signs, mm and deg). Unreachable nodes are NaN with a reason.
"""

from suspension_sim.maps.fields import FIELDS, Field
from suspension_sim.maps.grid import compute_maps
from suspension_sim.maps.lookup import Lookup, MapValues, Native
from suspension_sim.maps.result import CornerMap, Maps

__all__ = [
    "FIELDS",
    "CornerMap",
    "Field",
    "Lookup",
    "MapValues",
    "Maps",
    "Native",
    "compute_maps",
]
