"""Can this machine render? Ask a child process before VTK can crash this one.

Without GL libraries VTK does not raise: the process dies with a segmentation
fault inside the first render (exit 139, docs/rendering.md). So before any
drawing we run a tiny off-screen render in a child Python process, and turn a
failed child into a `RenderingUnavailableError` that says what to install.
The result is cached for the life of this process.

Nothing here imports pyvista or VTK; `import_pyvista()` does, after the probe
passed.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

from suspension_sim.errors import RenderingUnavailableError

OFF_SCREEN_ENV: dict[str, str] = {
    "PYVISTA_OFF_SCREEN": "true",
    "VTK_DEFAULT_OPENGL_WINDOW": "vtkEGLRenderWindow",
}
"""Set (unless already set) when there is no display: Mesa EGL, software GL."""

SKIP_PROBE_ENV = "SUSPENSION_SIM_RENDER_PROBE"
"""Set to ``0`` to skip the child-process probe (you vouch that GL works)."""

PROBE_TIMEOUT_S = 60.0
"""A probe that has not finished by then counts as failed (e.g. a hung X server)."""

INSTALL_HINT = (
    "install Mesa's EGL and software GL driver. Debian/Ubuntu (as root): "
    "apt-get install libegl1 libgl1-mesa-dri; Fedora: dnf install mesa-libEGL mesa-dri-drivers. "
    "suspension-sim sets PYVISTA_OFF_SCREEN=true and VTK_DEFAULT_OPENGL_WINDOW=vtkEGLRenderWindow "
    "itself when there is no display. See docs/rendering.md"
)

PROBE_SCRIPT = """
import importlib.metadata
import importlib.util
import sys
if importlib.util.find_spec("pyvista") is None:
    sys.exit("probe: No module named 'pyvista'")
from vtkmodules.vtkCommonCore import vtkVersion
from vtkmodules.vtkFiltersSources import vtkSphereSource
from vtkmodules.vtkRenderingCore import (
    vtkActor, vtkPolyDataMapper, vtkRenderer, vtkRenderWindow, vtkWindowToImageFilter,
)
import vtkmodules.vtkRenderingOpenGL2
from vtkmodules.util.numpy_support import vtk_to_numpy
sphere = vtkSphereSource()
sphere.SetRadius(0.5)
mapper = vtkPolyDataMapper()
mapper.SetInputConnection(sphere.GetOutputPort())
actor = vtkActor()
actor.SetMapper(mapper)
actor.GetProperty().SetColor(1.0, 0.0, 0.0)
renderer = vtkRenderer()
renderer.AddActor(actor)
renderer.SetBackground(1.0, 1.0, 1.0)
window = vtkRenderWindow()
window.SetOffScreenRendering(1)
window.SetSize(64, 48)
window.AddRenderer(renderer)
window.Render()
grab = vtkWindowToImageFilter()
grab.SetInput(window)
grab.Update()
image = grab.GetOutput()
scalars = image.GetPointData().GetScalars()
if scalars is None or image.GetDimensions()[:2] != (64, 48):
    sys.exit("probe: screenshot has the wrong shape: %r" % (image.GetDimensions(),))
img = vtk_to_numpy(scalars).reshape(48, 64, -1)
red = (img[..., 0] > 150) & (img[..., 1] < 100)
if not red.any():
    sys.exit("probe: the screenshot is blank (nothing was drawn)")
print("ok pyvista %s, VTK %s, %s" % (
    importlib.metadata.version("pyvista"), vtkVersion.GetVTKVersion(), window.GetClassName()))
window.Finalize()
"""
"""Runs in the child: one sphere, 64x48, off-screen; exits 0 only if it is visible. Plain
VTK (the render window pyvista would open, same environment), not pyvista: the child takes
~0.45 s instead of ~1.5 s, and the command waits for it before importing pyvista."""


@dataclass(frozen=True)
class ProbeResult:
    """What the child process reported. `returncode` None = timed out."""

    ok: bool
    returncode: int | None
    detail: str
    seconds: float
    environment: str = ""  # the child's rendering variables, "NAME=value, ..."

    def explain(self) -> str:
        """One paragraph for the user: what happened in the probe."""
        if self.ok:
            return f"off-screen rendering works ({self.detail})"
        rc = self.returncode
        if rc is None:
            what = f"the rendering probe did not finish within {self.seconds:.3g} s"
        elif rc in (-11, 139):
            what = (
                "VTK crashed (segmentation fault) opening an OpenGL window: "
                "the GL libraries are missing or unusable"
            )
        elif rc < 0:
            what = f"the rendering probe was killed by signal {-rc}"
        else:
            what = f"the rendering probe failed (exit {rc})"
        tail = f"; last output: {self.detail}" if self.detail else ""
        used = f" (environment: {self.environment})" if self.environment else ""
        return what + tail + used


_cached: ProbeResult | None = None


def has_display() -> bool:
    """True when an interactive window can open (X11/Wayland, or macOS/Windows)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def configure_environment() -> dict[str, str]:
    """Without a display, select off-screen EGL rendering (before pyvista is imported).

    Values the user already set win. Returns the variables this call set.
    """
    if has_display():
        return {}
    set_now: dict[str, str] = {}
    for key, value in OFF_SCREEN_ENV.items():
        if key not in os.environ:
            os.environ[key] = value
            set_now[key] = value
    return set_now


def _last_lines(text: str, n: int = 2) -> str:
    """The last distinct messages of child output, without colour codes or VTK log prefixes."""
    import re

    clean = re.sub(r"\x1b\[[0-9;]*m", "", text)
    messages: list[str] = []
    for line in clean.splitlines():
        m = re.search(r"\b(?:WARN|ERR|INFO)\|\s*(.*)", line)
        msg = (m.group(1) if m else line).strip()
        if msg and msg not in messages:
            messages.append(msg)
    return " | ".join(messages[-n:])[-600:]


def _child_env(env: Mapping[str, str] | None) -> tuple[dict[str, str], str]:
    """The probe child's environment and its rendering variables as "NAME=value, ..."."""
    configure_environment()
    child_env = dict(os.environ)
    child_env.update(env or {})
    settings = ", ".join(
        f"{k}={child_env[k]}"
        for k in ("VTK_DEFAULT_OPENGL_WINDOW", "PYVISTA_OFF_SCREEN", "DISPLAY", "WAYLAND_DISPLAY")
        if child_env.get(k)
    )
    return child_env, settings


@dataclass
class _Running:
    """A probe child started by `start_probe`, not yet asked for its answer."""

    proc: subprocess.Popen[str]
    started: float
    settings: str


_running: _Running | None = None


def _spawn(env: Mapping[str, str] | None) -> _Running:
    child_env, settings = _child_env(env)
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE_SCRIPT],
        env=child_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return _Running(proc, time.perf_counter(), settings)


def _answer(run: _Running, timeout: float) -> ProbeResult:
    """Wait for the child (until `timeout` s after its start) and read its verdict."""
    left = max(0.0, timeout - (time.perf_counter() - run.started))
    try:
        out, err = run.proc.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        run.proc.kill()
        out, err = run.proc.communicate()
        detail = _last_lines(_text(err) + _text(out))
        return ProbeResult(False, None, detail, time.perf_counter() - run.started, run.settings)
    seconds = time.perf_counter() - run.started
    if run.proc.returncode == 0:
        return ProbeResult(True, 0, out.strip(), seconds, run.settings)
    detail = _last_lines(err + out)
    return ProbeResult(False, run.proc.returncode, detail, seconds, run.settings)


def probe_rendering(
    env: Mapping[str, str] | None = None, *, timeout: float = PROBE_TIMEOUT_S
) -> ProbeResult:
    """Render one tiny off-screen frame in a child process (never cached).

    `env` adds or overrides environment variables for the child only (tests
    use it to force a failure). Takes about 0.4 s where GL works.
    """
    return _answer(_spawn(env), timeout)


def start_probe() -> None:
    """Start the probe child now and return at once; `ensure_rendering` takes its answer.

    A command calls this first and loads the car and solves while the child renders
    its frame on the other core (the probe costs ~0.4 s where GL works, less than
    reading and solving the car). Nothing happens when the probe is skipped or already answered.
    A child never asked for its answer is stopped when this process exits.
    """
    global _running
    if _running is not None or _cached is not None or _skipped():
        return
    _running = _spawn(None)
    atexit.register(_stop_unasked)


def _stop_unasked() -> None:
    if _running is not None and _running.proc.poll() is None:
        _running.proc.kill()
        _running.proc.communicate()


def _skipped() -> bool:
    return os.environ.get(SKIP_PROBE_ENV, "").strip() == "0"


def _text(out: str | bytes | None) -> str:
    """Captured output as text (a timed-out child's output may come back as bytes)."""
    if out is None:
        return ""
    return out.decode(errors="replace") if isinstance(out, bytes) else out


def rendering_error(result: ProbeResult) -> RenderingUnavailableError:
    """The user-facing error for a failed probe, with what to install."""
    hint = INSTALL_HINT
    if "No module named" in result.detail and "pyvista" in result.detail:
        hint = "pip install pyvista (it brings VTK); then see docs/rendering.md"
    elif has_display() and sys.platform not in ("darwin", "win32"):
        hint = (
            "the display in DISPLAY/WAYLAND_DISPLAY may be unreachable: unset it to render "
            "off-screen with EGL, or " + INSTALL_HINT
        )
    return RenderingUnavailableError(
        f"cannot render: {result.explain()}", where="rendering", hint=hint
    )


def ensure_rendering() -> ProbeResult:
    """Probe once per process (taking the answer of `start_probe`'s child if one was
    started); raise `RenderingUnavailableError` if rendering fails.

    ``SUSPENSION_SIM_RENDER_PROBE=0`` skips the child process.
    """
    global _cached, _running
    configure_environment()
    if _skipped():
        return ProbeResult(True, 0, f"probe skipped ({SKIP_PROBE_ENV}=0)", 0.0)
    if _cached is None:
        if _running is not None:
            run, _running = _running, None
            _cached = _answer(run, PROBE_TIMEOUT_S)
        else:
            _cached = probe_rendering()
    if not _cached.ok:
        raise rendering_error(_cached)
    return _cached


def import_pyvista() -> ModuleType:
    """pyvista, imported only after the probe passed, set up for this machine."""
    ensure_rendering()
    import pyvista

    if not has_display():
        pyvista.OFF_SCREEN = True
    return pyvista
