"""OptimumKinematics interop: its motion style, channel definitions and joint-force naming.

What OptimumK computes, channel by channel, and how it moves the chassis is written in
docs/optimumk.md, docs/validation.md and docs/conventions.md. The importer of its Excel
exports is `suspension_sim.workbook.optimumk`. Internal units mm, rad, N; channels are
reported in OptimumK's display units (mm, deg).
"""
