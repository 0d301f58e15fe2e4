"""The compile process's numba setting: no machine code for functions Python never calls.

numba compiles every jitted function to machine code as soon as it is typed, also the
kernels' inner functions (`kernel_jit.inner`, `loads.blocks_kernel.inner`: no Python
wrapper), and optimises each one's whole module with every function it calls linked
in. That code is never run: a caller links the callee's LLVM IR into its own module
and optimises and emits it again, and only the entry points Python calls are cached
on disk. So a function deep in the call tree (a block evaluation) was optimised and
emitted once for itself and once more for every function above it. Measured on the
solve kernel's two solvers (one process, `NUMBA_OPT=1`): 17.0 s of CPU instead of
21.7 s.

`skip_inner_machine_code` makes numba, in this process only, link such a function's
module without optimising it as a whole and without emitting it; the entry points are
compiled as before, with every callee's IR in their module, which LLVM optimises
once at the entry point (the same passes; no fast-math in the solve kernels, so the
same results). Only functions of this package without a Python wrapper are
concerned. It is installed by the compile process (`commands.warm_up.compile_steps`)
only, and only on a numba release it was checked with (`CHECKED_NUMBA`; the names it
uses are checked too): any other numba compiles as usual.
"""

from __future__ import annotations

from typing import Any

CHECKED_NUMBA = ("0.68",)
"""numba releases (major.minor) whose internals this was read from and checked with
(tests/test_engine_compile_helpers.py, and the whole suite's compiled-vs-numpy tests,
whose kernels the compile process makes). Another release compiles as usual: the
attribute names below could stay while their meaning changes."""
PACKAGE_PREFIX = "suspension_sim."
"""Only functions of modules under this name are compiled this way."""
_MARK = "_suspension_sim_no_machine_code"
"""Attribute set on a code library that is linked, never emitted."""
_installed = False


def skip_inner_machine_code() -> bool:
    """Install the setting in this process (once); False when this numba's internals
    are not the ones it was written for (numba then compiles as usual)."""
    global _installed
    if _installed:
        return True
    try:
        import importlib

        import numba

        if ".".join(numba.__version__.split(".")[:2]) not in CHECKED_NUMBA:
            return False
        from numba.core import codegen, cpu
        from numba.core.compiler_lock import require_global_compiler_lock

        dynfunc: Any = importlib.import_module("numba._dynfunc")
    except ImportError:
        return False
    library_type: Any = codegen.CPUCodeLibrary
    context_type: Any = cpu.CPUContext
    needed = ("_final_module", "_linking_libraries", "_reload_init")
    methods = ("finalize", "_raise_if_finalized", "_finalize_dynamic_globals")
    if not all(hasattr(library_type, m) for m in methods) or not hasattr(
        context_type, "get_executable"
    ):
        return False
    probe = getattr(library_type, "__init__", None)
    if probe is None or not all(n in probe.__code__.co_names for n in needed[:2]):
        return False
    get_executable = context_type.get_executable
    finalize = library_type.finalize

    def lazy_get_executable(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
        wrapper = fndesc.llvm_cpython_wrapper_name
        ours = str(getattr(fndesc, "modname", "")).startswith(PACKAGE_PREFIX)
        if not ours or any(f.name == wrapper for f in library._final_module.functions):
            return get_executable(self, library, fndesc, env)
        setattr(library, _MARK, True)  # linked into its callers only: never emitted
        name = fndesc.qualname.split(".")[-1]
        doc = f"compiled wrapper for {fndesc.qualname!r}"
        # no Python wrapper: the address is 0, as numba's own path gives for it
        return dynfunc.make_function(fndesc.lookup_module(), name, doc, 0, env, (library,))

    def lazy_finalize(self: Any) -> None:
        if not getattr(self, _MARK, False):
            finalize(self)
            return
        require_global_compiler_lock()
        self._raise_if_finalized()
        seen = set()
        for library in self._linking_libraries:  # as numba's finalize links them
            if library not in seen:
                self._reload_init.update(library._reload_init)
                seen.add(library)
                self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        self._final_module.verify()
        self._finalize_dynamic_globals()
        self._finalized = True

    context_type.get_executable = lazy_get_executable
    library_type.finalize = lazy_finalize
    _installed = True
    return True
