"""Solving poses: inputs, the solver, targets, continuation and rates.

Layer 3 of the package (workbook -> description -> model -> **solve** ->
metrics/sweeps -> outputs/viz/validation -> cli): it imports the model, never
a reader, metrics or outputs.
"""
