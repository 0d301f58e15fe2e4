"""Catalogue entries of the quantities read from one pose's geometry: the chassis
state and inputs, damper strokes and lengths, wheel geometry, axle and side geometry.

In column order (`suspension_sim.metrics.catalogue` puts these first, then
`suspension_sim.metrics.catalogue_rates`). Signs are those of the ``iso`` preset
(docs/conventions.md); world frame, mm and deg unless stated.
"""

from __future__ import annotations

from suspension_sim.metrics.metric import XYZ, Metric, entry

GEOMETRY_ENTRIES: tuple[Metric, ...] = (
    # -- car: chassis state and inputs ---------------------------------------
    entry(
        "chassis_heave",
        "mm",
        "car",
        "Chassis z translation of the reference point relative to design "
        "(pose.chassis z); the ground is fixed at z = 0.",
        "+ = chassis up (ride height increases)",
    ),
    entry(
        "chassis_roll",
        "deg",
        "car",
        "Chassis roll relative to the ground (pose.chassis roll), "
        "R = Rz(yaw) Ry(pitch) Rx(roll) about the reference point.",
        "+ = left side up",
    ),
    entry(
        "chassis_pitch",
        "deg",
        "car",
        "Chassis pitch relative to the ground (pose.chassis pitch).",
        "+ = nose down",
    ),
    entry("rack", "mm", "car", "Rack displacement from design.", "+ = rack toward +Y (left)"),
    entry(
        "steering_wheel_angle",
        "deg",
        "car",
        "rack / steering ratio (only when the workbook gives the ratio); the ratio's "
        "direction comes from the geometry (suspension_sim.solve.steering).",
        "+ = left turn (ISO 8855), whichever side of the axle the rack is",
    ),
    # -- dampers --------------------------------------------------------------
    entry("stroke", "mm", "damper", "Damper stroke from design.", "+ = compression"),
    entry(
        "damper_length",
        "mm",
        "damper",
        "Eye-to-eye length: design length - stroke.",
        "always positive",
    ),
    # -- wheel geometry -------------------------------------------------------
    entry(
        "wheel_travel",
        "mm",
        "wheel",
        "Displacement of the wheel centre along the chassis z axis from design.",
        "+ = bump (wheel up relative to the chassis)",
    ),
    entry(
        "camber",
        "deg",
        "wheel",
        "Inclination of the wheel plane to the ground normal: -asin(s.n), s = unit spin "
        "axis pointing outboard, n = ground normal (world +Z). The tyre-model inclination "
        "angle. Used by both presets.",
        "- = top of the wheel toward the car centreline (both sides)",
    ),
    entry(
        "camber_chassis",
        "deg",
        "wheel",
        "As camber, relative to the chassis: -asin(s.z_chassis).",
        "- = top toward the centreline",
    ),
    entry(
        "camber_front_view",
        "deg",
        "wheel",
        "Front-view projection: -atan2(s.n, |s.y_h|), y_h = chassis y axis projected on "
        "the ground plane (the car's horizontal lateral axis). Equals camber with the "
        "wheel straight; differs with steer.",
        "- = top toward the centreline",
    ),
    entry(
        "toe",
        "deg",
        "wheel",
        "Top-view angle of the wheel heading from the chassis X axis: "
        "atan2(s.x, |s.y|), chassis axes.",
        "+ = toe-in (front of the wheel toward the centreline)",
        optimumk="sign flipped: + = toe-out",
    ),
    entry(
        "toe_wheel_plane",
        "deg",
        "wheel",
        "Angle between the wheel plane and the chassis X axis: asin(s.x), chassis axes "
        "(OptimumK's toe). sin(toe_wheel_plane) = cos(camber_chassis) sin(toe): smaller "
        "than toe on a cambered wheel.",
        "+ = toe-in (front of the wheel toward the centreline)",
        optimumk="sign flipped: + = toe-out (OptimumK's Toe Angle)",
    ),
    entry(
        "steer",
        "deg",
        "wheel",
        "Roadwheel angle: change of the top-view wheel heading from design, about the "
        "chassis z axis (toe change, so static toe is excluded): -side * (toe - design toe).",
        "+ = wheel turned to the left (front toward +Y), both wheels",
        optimumk="wheel-plane toe minus static (design) toe as a heading, -side * "
        "(toe_wheel_plane - its design value): + = turned left on both wheels (earlier "
        "versions flipped the right wheel)",
    ),
    entry(
        "caster",
        "deg",
        "wheel",
        "Side-view angle of the kingpin axis k from the chassis z axis: atan2(-k.x, k.z), "
        "chassis axes. NaN for a wheel without kingpin points that the rack does not steer.",
        "+ = top of the axis rearward",
    ),
    entry(
        "kpi",
        "deg",
        "wheel",
        "Kingpin inclination: front-view angle of k from the chassis z axis, "
        "atan2(-k.y_out, k.z), y_out = outboard lateral direction of the wheel.",
        "+ = top of the axis inboard",
    ),
    entry(
        "scrub_radius",
        "mm",
        "wheel",
        "(CP - G).l: G = kingpin axis meets the ground plane through CP, l = spin axis "
        "projected on that plane (outboard), i.e. measured in the wheel's own axes.",
        "+ = G inboard of CP",
    ),
    entry(
        "mechanical_trail",
        "mm",
        "wheel",
        "(G - CP).h, h = the wheel's forward heading in the ground plane (perpendicular to "
        "l), so it stays meaningful with steer (not along the chassis X axis).",
        "+ = G ahead of CP",
    ),
    entry(
        "scrub_vehicle",
        "mm",
        "wheel",
        "Scrub radius in the vehicle's front view: (CP' - G').(side y_h), CP' = "
        "contact_patch, G' = kingpin axis meets the ground plane through CP', y_h = the "
        "car's horizontal lateral axis (OptimumK's Scrub Radius).",
        "+ = G' inboard of CP'",
    ),
    entry(
        "trail_vehicle",
        "mm",
        "wheel",
        "Mechanical trail in the vehicle's side view: (G' - CP').x_h, x_h = the car's "
        "horizontal heading (OptimumK's Mechanical Trail).",
        "+ = G' ahead of CP'",
    ),
    entry(
        "spindle_length",
        "mm",
        "wheel",
        "Perpendicular distance from the wheel centre to the kingpin axis (kingpin offset at hub).",
        "always >= 0",
    ),
    entry(
        "pushrod_length",
        "mm",
        "wheel",
        "Distance between the two ends of the wheel's push- or pullrod: the two-point "
        "link from the upright (or an arm holding a kingpin point) to the rocker that "
        "carries the wheel's damper (OptimumK's Push/Pull Length). A rigid link, so it "
        "only checks the geometry. NaN for a damper acting on an arm directly.",
        "always > 0",
    ),
    entry(
        "half_track",
        "mm",
        "wheel",
        "Distance of the contact point from the chassis centre plane (chassis y), "
        "measured perpendicular to that plane.",
        "+ = outboard",
    ),
    entry(
        "wheel_centre",
        "mm",
        "wheel",
        "Wheel centre C, world frame.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    entry(
        "contact_point",
        "mm",
        "wheel",
        "Tyre contact point CP = C - r d/|d|, d = n - (n.s)s, world frame.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    entry(
        "contact_patch",
        "mm",
        "wheel",
        "OptimumK's contact patch CP' = C + r unit(s x h), taken pointing down, h = the "
        "car's horizontal heading x_h turned about the vertical by the wheel-plane steer "
        "(optimumk steer); world frame. A few tenths of a mm from contact_point in x on "
        "a cambered, toed wheel.",
        "ISO 8855 axes",
        components=XYZ,
    ),
    # -- axle and side geometry -----------------------------------------------
    entry(
        "track",
        "mm",
        "axle",
        "Left + right half tracks of the axle.",
        "always positive",
    ),
    entry(
        "wheelbase",
        "mm",
        "side",
        "Chassis-X distance from the rear to the front contact point on one side.",
        "+ = front ahead of rear",
    ),
    entry(
        "ackermann",
        "%",
        "axle",
        "(d_i - d_o)/(d_i_ideal - d_o)*100, d_i_ideal = atan(L/(L/tan d_o - t)); "
        "d_o/d_i = outer/inner steer angle magnitudes, L = workbook wheelbase (else the "
        "mean design wheelbase), t = this axle's design track. NaN when (nearly) straight.",
        "100 = ideal Ackermann, 0 = parallel, < 0 = anti-Ackermann",
    ),
)
