"""OptimumK's own header grammar: quantity, side, axle, unit of a result-export column.

OptimumK (v2.x) writes every channel as its quantity followed by bracketed
tags and a unit in round brackets::

    header    := quantity tag* [" (" unit ")"]
    tag       := "[" Left|Right "]" | "[" Front|Rear "]"      (v2.x: [Side] [Axle])
               | "[" Front Left|Front Right|Rear Left|Rear Right "]"   (older versions)
               | "[" motion word(s) "]"                       (Motion [Heave] ...)

* corner channels carry a side and an axle: ``Camber Angle [Left] [Front] (deg)``
  (older: ``Camber Angle [Front Left] (deg)``);
* axle channels an axle: ``Roll Center Z [Front] (mm)``;
* side channels a side: ``Wheelbase [Left] (mm)``, ``Anti-Dive Percentage [Left] (%)``;
* car channels none: ``Wheelbase (mm)`` (the mean of the sides),
  ``Roll Axis Inclination Angle (deg)``;
* motion inputs: ``Motion [Heave] (mm)``, ``Motion [Completion Percentage] (%)``;
* force channels: ``Lower A-Arm To Chassis (Fore) - Fx [Front Left] (N)``,
  ``Contact Patch - Fz [Left] [Front] (N)``: body A's force on body B, world axes;
  ``Steering Torque [Front] Mz (N m)``: the component after the tags. OptimumK writes
  the corner of a force channel in one tag (``[Front Left]``); ``[Left] [Front]`` is
  read the same. `force_key` is the one normal form both an export's force headers
  and `suspension_sim.optimumk.forces.optimumk_forces`' keys are matched in;
* point channels: ``UPRI_LowPnt X [Left] [Front] (mm)``: a hardpoint's world coordinate.

**Only the bracketed tags are side and axle.** Words such as Front, Rear, Left
and Right inside the quantity belong to it (``Front View Instant Center X
[Left] [Front]`` is the quantity ``Front View Instant Center X`` of the front
left corner; ``Tie Rod Front View Angle`` has no axle in its name). A round
bracket inside the name is part of it (``Roll Center (Ground) Z [Front]``); only
a final round bracket holding a unit is the unit. Units are mm and deg.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from suspension_sim.validation.export_units import known_unit, unit_factor

OkKind = Literal["corner", "axle", "side", "car", "motion", "force", "point"]

SIDE_WORDS: dict[str, str] = {"left": "Left", "right": "Right"}
AXLE_WORDS: dict[str, str] = {"front": "Front", "rear": "Rear"}
MOTION_WORDS: dict[str, str] = {
    "heave": "Heave",
    "roll": "Roll",
    "pitch": "Pitch",
    "steering": "Steering",
    "completion percentage": "Completion Percentage",
}
"""The tags of ``Motion [...]`` (the motion inputs of a result)."""


_TAIL_RE = re.compile(r"(?P<tags>(?:\s*\[[^\[\]]*\])+)\s*(?:\((?P<unit>[^()]*)\))?\s*$")
_UNIT_TAIL_RE = re.compile(r"\s*\((?P<unit>[^()]*)\)\s*$")
_TAG_RE = re.compile(r"\[([^\[\]]*)\]")
_FORCE_RE = re.compile(
    r"^(?P<a>.+?)(?:\s+To\s+(?P<b>.+?))?(?:\s*\((?P<leg>[^()]+)\))?\s+-\s+(?P<c>[FM][xyz])$",
    re.IGNORECASE,
)
_COMPONENT_AFTER_TAGS_RE = re.compile(
    r"^(?P<name>[^\[\]()]+?)\s*(?P<tags>(?:\[[^\[\]]*\]\s*)+)(?P<c>[FM][xyz])"
    r"\s*(?:\((?P<unit>[^()]*)\))?\s*$"
)
"""``Steering Torque [Front] Mz (N m)``: a force channel whose component follows its tags."""
_POINT_RE = re.compile(r"^(?P<point>[A-Za-z]+_[A-Za-z0-9_]+)\s+(?P<axis>[XYZ])$")


@dataclass(frozen=True)
class ForceName:
    """The parts of a force channel's name: A's force (or moment) on B, one component."""

    source: str  # A ("Lower A-Arm", "Contact Patch")
    target: str | None  # B ("Chassis"); None for "Contact Patch - Fz"
    leg: str | None  # "Fore", "Aft" for an A-arm's legs
    component: str  # Fx Fy Fz Mx My Mz


@dataclass(frozen=True)
class OkHeader:
    """One OptimumK header, parsed. `quantity` is the name without tags or unit."""

    text: str
    quantity: str
    side: str | None
    axle: str | None
    unit: str | None
    kind: OkKind
    motion: str | None = None  # "Heave" ... "Completion Percentage" for Motion [..]
    force: ForceName | None = None
    point: tuple[str, str] | None = None  # ("UPRI_LowPnt", "X")

    @property
    def location(self) -> str | None:
        """``Front Left`` (corner), ``Front`` (axle), ``Left`` (side), or None."""
        if self.axle and self.side:
            return f"{self.axle} {self.side}"
        return self.axle or self.side

    @property
    def key(self) -> str:
        """OptimumK's channel text without unit, tags in v2.x order:
        ``Camber Angle [Left] [Front]``, ``Roll Center Z [Front]``, ``Wheelbase``."""
        if self.kind == "motion":
            return f"Motion [{self.motion}]"
        tags = "".join(f" [{t}]" for t in (self.side, self.axle) if t)
        return f"{self.quantity}{tags}"


def norm_words(text: str) -> str:
    """A quantity in matching form: lower case, single spaces; ``-`` ``_`` ``/`` kept apart
    from letters only as spaces (``Anti-Dive`` = ``anti dive``, ``Push/Pull`` = ``push pull``)."""
    return " ".join(re.split(r"[\s_\-./]+", text.strip().lower())).strip()


def _unit(text: str | None) -> str | None:
    if text is None:
        return None
    return text.strip()


def _is_unit(text: str) -> bool:
    """True if a final round bracket holds a unit (not a name part such as ``(Fore)``)."""
    t = text.strip()
    if not t:
        return True
    return known_unit(t) or t.lower() in ("deg/m", "rad/m", "n/mm")


def is_force_unit(unit: str | None) -> bool:
    """True if `unit` is a unit of force or moment (N, kN, lbf, N m, N mm, lbf ft ...)."""
    if unit is None or not unit.strip():
        return False
    for dimension in ("force", "moment"):
        try:
            unit_factor(unit, dimension)
        except KeyError:
            continue
        return True
    return False


def _read_tags(tags: list[str]) -> tuple[str | None, str | None, str | None] | None:
    """(side, axle, motion word) of a list of tags, or None if a tag is neither."""
    side = axle = motion = None
    for raw in tags:
        words = norm_words(raw)
        if words in SIDE_WORDS and side is None:
            side = SIDE_WORDS[words]
        elif words in AXLE_WORDS and axle is None:
            axle = AXLE_WORDS[words]
        elif words in MOTION_WORDS and motion is None:
            motion = MOTION_WORDS[words]
        else:
            parts = words.split()
            if len(parts) != 2 or side is not None or axle is not None:
                return None
            a, s = parts if parts[0] in AXLE_WORDS else parts[::-1]
            if a not in AXLE_WORDS or s not in SIDE_WORDS:
                return None
            side, axle = SIDE_WORDS[s], AXLE_WORDS[a]  # older "[Front Left]"
    return side, axle, motion


def parse_optimumk_header(text: object) -> OkHeader | None:
    """Parse one header cell in OptimumK's grammar; None if it does not follow it.

    A header without tags is a car-level channel (``Wheelbase (mm)``); a tag
    that is neither a side, an axle, a corner nor a motion word makes the
    header not OptimumK's (None).
    """
    raw = "" if text is None else str(text).strip()
    if not raw:
        return None
    after = _COMPONENT_AFTER_TAGS_RE.match(raw)
    if after is not None:
        read_after = _read_tags(_TAG_RE.findall(after["tags"]))
        unit_after = _unit(after["unit"])
        if (
            read_after is not None
            and read_after[2] is None
            and (unit_after is None or _is_unit(unit_after))
        ):
            name_after, comp = after["name"].strip(), after["c"]
            return OkHeader(
                raw,
                f"{name_after} {comp}",
                read_after[0],
                read_after[1],
                unit_after,
                "force",
                force=ForceName(name_after, None, None, comp),
            )
    unit: str | None = None
    m = _TAIL_RE.search(raw)
    if m is not None and m.start() > 0:
        name = raw[: m.start()].strip()
        tags = _TAG_RE.findall(m.group("tags"))
        unit = _unit(m.group("unit"))
        if unit is not None and not _is_unit(unit):
            return None
    else:
        name, tags = raw, []
        u = _UNIT_TAIL_RE.search(raw)
        if u is not None and u.start() > 0 and _is_unit(u.group("unit")):
            name, unit = raw[: u.start()].strip(), _unit(u.group("unit"))
    if not name or "[" in name or "]" in name:
        return None
    read = _read_tags(tags)
    if read is None:
        return None
    side, axle, motion = read
    if norm_words(name) == "motion":
        if motion is None or side or axle:
            return None
        return OkHeader(raw, "Motion", None, None, unit, "motion", motion=motion)
    if motion is not None:
        return None
    f = _FORCE_RE.match(name)
    if f is not None or is_force_unit(unit):
        force = (
            ForceName(f["a"].strip(), f["b"].strip() if f["b"] else None, f["leg"], f["c"])
            if f is not None
            else None
        )
        return OkHeader(raw, name, side, axle, unit, "force", force=force)
    p = _POINT_RE.match(name)
    if p is not None:
        return OkHeader(raw, name, side, axle, unit, "point", point=(p["point"], p["axis"]))
    kind: OkKind
    if side and axle:
        kind = "corner"
    elif axle:
        kind = "axle"
    elif side:
        kind = "side"
    else:
        kind = "car"
    return OkHeader(raw, name, side, axle, unit, kind)


def looks_like_optimumk(texts: list[str], title_keys: list[str] | None = None) -> bool:
    """True if a header row is OptimumK's: its motion channels ``Motion [Heave]`` ... or
    at least two corner channels in tags (``[Left] [Front]`` / ``[Front Left]``; point
    and force channels of a corner count), or a
    title block that says ``Type | Result`` with channels in tags."""
    parsed = [parse_optimumk_header(t) for t in texts if t]
    motions = sum(1 for h in parsed if h is not None and h.kind == "motion")
    corners = sum(
        1
        for h in parsed
        if h is not None
        and (h.kind in ("corner", "point") or (h.kind == "force" and h.side and h.axle))
    )
    if motions >= 1 and corners >= 1:
        return True
    titled = bool(title_keys) and "type" in [k.lower() for k in title_keys or []]
    return corners >= 2 and (titled or motions >= 1 or corners >= 4)


def force_key(h: OkHeader | None) -> str | None:
    """The normal form of a force channel, None for any other header.

    ``source | target | leg | component [Axle Side]``, the words as `norm_words` gives
    them: ``Lower A-Arm To Chassis (Fore) - Fx [Front Left]`` and ``... - Fx [Left]
    [Front]`` (the two ways a corner is written) give the same key, and so does the
    same text from `suspension_sim.optimumk.forces.optimumk_forces`, whose keys are
    read through this grammar too (`force_key_of`)."""
    if h is None or h.kind != "force" or h.force is None:
        return None
    f = h.force
    parts = (norm_words(f.source), norm_words(f.target or ""), norm_words(f.leg or ""))
    where = " ".join(t for t in (h.axle, h.side) if t)
    return f"{' | '.join(parts)} | {f.component.lower()} [{where}]"


def force_key_of(text: str) -> str | None:
    """`force_key` of a channel's text (a header, or a key of `optimumk_forces`)."""
    return force_key(parse_optimumk_header(text))
