"""Read OptimumK's binary project files (docs/optimumk_files.md): definitions (.O2Sus
suspension, .O2Set vehicle setup, .O2Mot motion, .O2For force case, .O2Sim simulation)
and a car built from them through the same importer core as the Excel exports.

Modules, by job: `stream` (bytes, strings, dates, the SHA-1), `definitions` (the header and
each body), `car` (a suspension and setup -> `AxleExport`, `VehicleSetup`, `Car`),
`project` (what each file of a folder is, for ``optimumk-info``).
"""
