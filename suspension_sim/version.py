"""The package version, importable from any layer (pyproject reads it from here)."""

__version__ = "0.2.0"
