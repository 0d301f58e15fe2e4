"""Design-of-experiments throughput: designs per second per core, and on a local Dask
cluster of 1 and 2 worker processes (the scaling).

    python3 benchmarks/doe_bench.py [--designs 64] [--repeats 3]

Each design of the example car runs three motions of 13 steps (heave, roll, steer), the
issue's yardstick; the study moves four hardpoints symmetrically. Prints the core count,
best and median of the repeats. Writes only into a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STUDY = """\
version: 1
variables:
  - {point: FL_UCA_F, axis: z, range: [-5, 5], symmetric: true}
  - {point: FL_LCA_R, axis: y, range: [-4, 4], symmetric: true}
  - {point: FL_TIE_I, axis: z, range: [-3, 3], symmetric: true}
  - {point: RL_TIE_I, axis: z, range: [-3, 3], symmetric: true}
motions: [heave, roll, steer]
samples: %d
seed: 1
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import suspension_sim as ss
    from suspension_sim.explore import doe
    from suspension_sim.explore.design_space import read_study
    from suspension_sim.solve import engine

    workbook = str(ROOT / "workbooks" / "fsae_car.xlsx")
    model = ss.load(workbook)
    print(f"cores: {os.cpu_count()}; compiled kernels in use: {engine.load_kernel_if_cached()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "study.yaml"
        path.write_text(STUDY % args.designs, encoding="utf-8")
        study = read_study(path)
        specs = doe.motion_specs(model, workbook, study.motions)
        offsets = doe.sample_offsets(study)
        rows = doe.run_design(model.car, study.variables, offsets[0], specs, None)
        columns = doe.table_columns(
            study.variables, [k for k in rows[0] if k not in doe.KEY_COLUMNS]
        )
        one: list[float] = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            doe.run_chunk(model.car, study.variables, specs, None, 0, offsets, columns)
            one.append(args.designs / (time.perf_counter() - t))
        print(
            f"one core, in process: best {max(one):.1f}, median {statistics.median(one):.1f}"
            f" designs/s ({args.designs} designs x 3 motions x 13 steps)"
        )
        for workers in (1, 2):
            rates = []
            for r in range(args.repeats):
                out = Path(tmp) / f"r{workers}-{r}.parquet"
                s = doe.run_doe(model.car, study, out, workbook=workbook, workers=workers)
                rates.append(s.designs_per_second)
            print(
                f"local Dask cluster, {workers} worker(s): best {max(rates):.1f}, median "
                f"{statistics.median(rates):.1f} designs/s (cluster start included)"
            )


if __name__ == "__main__":
    main()
