"""``suspension-sim studio``: a live page in the browser (docs/studio.md).

The car in 3-D (the scene of ``view``), sliders for heave, roll, pitch, steer and
the damper strokes, the design sheet and the current motion's charts, all updated as
a slider moves; the workbook is watched and reloaded on save. A second workbook is
overlaid and compared. Served on 127.0.0.1 only. trame (a dependency) and VTK are
imported only here, when the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import socket
import sys
from pathlib import Path

from suspension_sim.errors import InputError, RenderingUnavailableError

PARAMETER_OPTIONS = {"path": "--out"}
"""Library parameter -> this command's option, for error messages (see `cli`)."""
HOST = "127.0.0.1"
"""The only address the studio listens on (loopback: nothing outside this machine)."""
INSTALL_HINT = (
    "install the package again (pip install -e . or pip install suspension-sim): it brings "
    "trame, trame-vtk and trame-vuetify"
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "studio",
        help="a live page in the browser: the car, sliders, design sheet and charts; "
        "follows the workbook",
        description="Start a local web page (on 127.0.0.1) showing the car in 3-D with sliders "
        "for heave (mm, + = chassis up), roll and pitch (deg), steer and damper strokes (mm, + = "
        "compression), the design sheet and the charts of a motion. Saving the workbook "
        "reloads it. With WORKBOOK_B both cars are overlaid and compared. Ctrl-C stops it.",
    )
    p.add_argument("workbook", help="the car workbook (.xlsx)")
    p.add_argument("workbook_b", nargs="?", default=None, help="a second car to compare")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="folder the export button writes into (created if missing; its parent must exist)",
    )
    p.add_argument(
        "--port",
        type=int,
        default=0,
        help="port on 127.0.0.1 (default: a free one, printed)",
    )
    p.add_argument("--no-browser", action="store_true", help="do not open a web browser")
    p.set_defaults(run=run)


def free_port() -> int:
    """A port on 127.0.0.1 nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def check_port(port: int) -> int:
    """`port` if it can be listened on (0: a free one); else an `InputError`."""
    if port == 0:
        return free_port()
    if not 1 <= port <= 65535:
        raise InputError(f"{port} is not a port number", where="--port", hint="give 1-65535")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise InputError(
                    f"port {port} on {HOST} is already in use (another studio?)",
                    where="--port",
                    hint="choose another port, or leave --port out for a free one",
                ) from None
            raise InputError(
                f"cannot listen on {HOST}:{port}: {exc.strerror or exc}", where="--port"
            ) from None
    return port


def open_browser(url: str) -> str | None:
    """Open `url` in the user's browser; None, or why it could not be opened."""
    import webbrowser

    try:
        if webbrowser.open(url, new=2):
            return None
    except webbrowser.Error as exc:
        return str(exc)
    return "no web browser found"


def run(args: argparse.Namespace) -> int:
    if args.out is not None:
        from suspension_sim.files import check_output

        check_output(args.out, where="--out", folder=True)
    port = check_port(args.port)
    try:
        import trame  # noqa: F401
        import trame_vtk  # noqa: F401
        import trame_vuetify  # noqa: F401
    except ImportError as exc:
        raise RenderingUnavailableError(
            f"the studio needs the optional package {exc.name or 'trame'}",
            where="studio",
            hint=INSTALL_HINT,
        ) from None
    from suspension_sim.studio.session import Session
    from suspension_sim.viz.probe import ensure_rendering, start_probe

    start_probe()
    session = Session(args.workbook, args.workbook_b)
    if session.cars[0] is None:  # nothing to show: the command line's message
        print(f"error: {session.errors[0]}", file=sys.stderr)
        return 2
    if session.errors[1:] and session.errors[1]:
        print(f"error: {session.errors[1]}", file=sys.stderr)
        return 2
    ensure_rendering()
    from suspension_sim.studio.app import Studio

    studio = Studio(session, out_dir=Path(args.out) if args.out else None)
    url = f"http://{HOST}:{port}/"

    def ready(**_: object) -> None:
        print(f"studio: {session.car.name} at {url} (Ctrl-C stops it)", flush=True)
        if not args.no_browser:
            why = open_browser(url)
            if why:
                print(f"note: could not open a browser ({why}); open {url} yourself", flush=True)

    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C: the usual way to stop it
        studio.start(port, on_ready=ready)
    print("studio stopped", flush=True)
    return 0
