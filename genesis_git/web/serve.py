"""``genesis web``: bind, say where, serve until Ctrl-C or SIGTERM, end cleanly.

The socket is bound before anything is printed, so the first line of stdout is the URL
that answers (``--port 0`` picks a free port and prints it).  Loopback is the default; any
other address needs ``public=True`` and gets a warning on stderr.  uvicorn serves the
pages; the signals are handled here so that both end the server with exit status 0.
"""

from __future__ import annotations

import contextlib
import ipaddress
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from genesis_git.kernel.errors import GenesisError, UsageError

if TYPE_CHECKING:
    from genesis_git.app.facade import Genesis

LOOPBACK = "127.0.0.1"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def allowed_hosts(host: str, port: int) -> frozenset[str] | None:
    """The ``Host`` headers a request may carry: the served loopback name and port
    (``localhost`` too, which only ever names this machine); ``None`` (any) for a public
    wildcard address, whose names the server cannot know."""
    name = url_host(host).lower()
    if host in ("0.0.0.0", "::"):
        return None
    names = {name}
    if is_loopback(host):
        names |= {"localhost", LOOPBACK} if ":" not in host else {"localhost"}
    return frozenset(n + suffix for n in names for suffix in (f":{port}", "")
                     if suffix or port == 80)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (0: a free port), or one clear error."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise UsageError(f"cannot bind to {host!r}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise GenesisError(f"cannot listen on {url_host(host)}:{port}: {exc.strerror}",
                           hint="pick another port with --port, or --port 0 for a free one"
                           ) from None
    sock.set_inheritable(True)
    return sock


def serve(g: Genesis, *, host: str = LOOPBACK, port: int = 8765, public: bool = False,
          org: bool = False, open_browser: bool = False, verbose: bool = False,
          on_error: Any = None) -> int:
    """Serve the pages until a signal; the exit status (0)."""
    import uvicorn

    from genesis_git.web.app import Site

    if not is_loopback(host) and not public:
        raise UsageError(f"{host} is not a loopback address",
                         hint="genesis web serves this machine only; --public serves other "
                              "machines too, and anyone who reaches the port reads the stories")
    if org and not g.workspace.config.settings.ledger.mirror.strip():
        raise UsageError("--org needs the PostgreSQL mirror",
                         hint="set [ledger] mirror (or GENESIS_LEDGER_MIRROR) to its URL")
    sock = bind(host, port)
    port = sock.getsockname()[1]
    url = f"http://{url_host(host) if host not in ('0.0.0.0', '::') else LOOPBACK}:{port}/"
    site = Site(g, hosts=allowed_hosts(host, port), served=url, org=org, on_error=on_error)
    sys.stdout.write(url + "\n")
    sys.stdout.flush()
    if not is_loopback(host):
        sys.stderr.write(f"genesis web: warning: serving {url_host(host)}:{port} to other "
                         "machines; anyone who reaches it reads this repository's stories "
                         "and files\n")
    sys.stderr.write("genesis web: read-only; Ctrl-C stops it\n")
    sys.stderr.flush()
    config = uvicorn.Config(site.app(), lifespan="off", log_level="info" if verbose else "warning",
                            access_log=verbose, server_header=False, proxy_headers=False)
    server = _Server(config)
    if open_browser:
        threading.Timer(0.3, _open, (url,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    sys.stderr.write("genesis web: stopped\n")
    return 0


def _open(url: str) -> None:
    import webbrowser

    with contextlib.suppress(Exception):
        webbrowser.open(url)


class _Server:
    """uvicorn's server with the signals handled here: SIGINT and SIGTERM stop it (a
    second Ctrl-C forces it), and nothing is raised again after it stopped."""

    def __init__(self, config: Any):
        import uvicorn

        outer = self

        class Server(uvicorn.Server):
            @contextlib.contextmanager
            def capture_signals(self) -> Iterator[None]:
                with outer.signals(self):
                    yield

        self.server = Server(config)

    @contextlib.contextmanager
    def signals(self, server: Any) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return

        def stop(sig: int, frame: object) -> None:
            if server.should_exit and sig == signal.SIGINT:
                server.force_exit = True
            server.should_exit = True

        old = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)

    def run(self, sockets: list[socket.socket]) -> None:
        self.server.run(sockets=sockets)
