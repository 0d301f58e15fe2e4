"""Result files: tables (csv, xlsx, parquet), sheets added to a workbook, charts.

from suspension_sim.outputs import write_table
"""

from suspension_sim.outputs.tables import FORMATS, check_table_path, write_table

__all__ = ["FORMATS", "check_table_path", "write_table"]
