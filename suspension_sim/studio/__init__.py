"""``suspension-sim studio``: a live page in the browser (docs/studio.md).

`session` holds the cars and controls and computes what the page shows (no web
code); `scene` draws the 3-D view with `suspension_sim.viz`; `charts` turns the
current motion into SVG; `app` is the trame page and its server. Importing this
package is cheap: trame and VTK are imported only by `app` and `scene`.
"""
