"""`crtdesk serve`: the desk in a web browser, for players who cannot SSH in.

textual-serve starts one desk process per browser tab, each on the saves folder (never on
a file named by the browser: the page's address carries only its size). It listens on
localhost unless told otherwise, and says in one line where it listens and the address a
browser opens, with the token every address asks for (localhost too: every account of the
host reaches it). Bound to every address (0.0.0.0, ::) it names the host by a name or an
address a browser can open, never 0.0.0.0.
"""

from __future__ import annotations

import argparse
import ipaddress
import re
import secrets
import shlex
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

from tui.cli.commands import MOST_DESKS
from tui.game import folder

_LOCAL_NAMES = ("localhost", "localhost.localdomain")
_HOST = re.compile(r"[A-Za-z0-9._:]+\Z")
# Addresses reserved for documentation (RFC 5737, RFC 3849): a socket connected to one
# (UDP: no packet is sent) is given the address this host would send from.
_NOWHERE = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}


class ServeError(Exception):
    """A serve command line that cannot be run; the message is one line."""


def port_number(text: str) -> int:
    value = text.strip()
    if not value.isdigit() or not value.isascii() or not 1 <= int(value) <= 65535:
        raise ServeError(f"--port {text!r}: expected a whole number from 1 to 65535")
    return int(value)


def max_desks(text: str) -> int:
    value = text.strip()
    if not value.isdigit() or not value.isascii() or not 1 <= int(value) <= MOST_DESKS:
        raise ServeError(f"--max-desks {text!r}: expected a whole number from 1 to {MOST_DESKS}")
    return int(value)


def host_name(text: str) -> str:
    host = text.strip()
    if not _HOST.match(host) or host.startswith(("-", ".")):
        raise ServeError(f"--host {text!r}: expected an address such as 127.0.0.1 or a host name")
    return host


def public_url(text: str | None, host: str, port: int) -> str:
    """The address players open: `--public-url`, else the address listened on, or bound to
    every address, one a browser can open (see `reachable_name`)."""
    if text is None:
        if is_everywhere(host):
            host = reachable_name(host)
        return f"http://{'[' + host + ']' if ':' in host else host}:{port}"
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ServeError(
            f"--public-url {text!r}: expected an address such as https://desk.example.org"
        )
    return text.strip().rstrip("/")


def saves_dir(text: str | None, create: bool = False) -> Path:
    if text is not None and text.startswith("-"):
        raise ServeError(f"--saves {text!r}: a folder name may not start with '-' (write ./{text})")
    # Imported to say a saves folder made: `crtdesk serve` starts no save command.
    from tui.cli.save_names import said_on_stderr

    return folder.saves_folder(text, make=create, said=said_on_stderr)


def is_local(host: str) -> bool:
    """True when `host` is a loopback address: only this machine can connect."""
    if host.lower() in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_everywhere(host: str) -> bool:
    """True when `host` is the unspecified address (0.0.0.0, ::): every address of the host."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def reachable_name(host: str) -> str:
    """For a server bound to every address, a name a browser can open: the host's name when
    it names an address others can reach, else the address this host sends from, else
    (no network but loopback) the loopback address."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    name = socket.gethostname()
    if _HOST.match(name) and not name.startswith(("-", ".")):
        try:
            found = socket.getaddrinfo(name, None, family, socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            found = []
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
        if addresses and not any(a.is_loopback or a.is_unspecified for a in addresses):
            return name
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect((_NOWHERE[family], 9))
            sender = str(probe.getsockname()[0]).split("%")[0]
        if not ipaddress.ip_address(sender).is_unspecified:
            return sender
    except (OSError, ValueError):
        pass
    return "::1" if family == socket.AF_INET6 else "127.0.0.1"


def desk_command(folder: Path) -> str:
    """The shell command each browser tab runs: the desk on the saves folder, no file."""
    return shlex.join([sys.executable, "-m", "tui.startup", "--saves", str(folder.resolve())])


def check_port(host: str, port: int) -> None:
    """Refuse a port this host cannot listen on (taken, or not allowed), in one line, before
    the start line says where the desk is served."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as err:
        raise ServeError(f"cannot listen on {host} port {port}: {err.strerror or err}") from err


def start_line(host: str, port: int, url: str) -> str:
    """The one line that says where the desk is: `url` is the address with its token."""
    if is_local(host):
        return (
            f"crtdesk serve: the desk on {url}, listening on {host} only (this machine; "
            "its other accounts need this address, its token); from another machine use an "
            "SSH tunnel or a reverse proxy with a login and TLS"
        )
    where = f"{host} (every address of this host)" if is_everywhere(host) else host
    return (
        f"crtdesk serve: the desk on {url}, listening on {where}: anyone who can reach port "
        f"{port} and has this address (its token) gets the desk; without TLS the token "
        "crosses the network in the clear: put a reverse proxy with TLS in front"
    )


def _cmd_serve(args: argparse.Namespace, tables: object) -> int:
    port = port_number(args.port)
    host = host_name(args.host)
    url = public_url(args.public_url, host, port)
    most = max_desks(args.max_desks)
    folder = saves_dir(args.saves, args.create)
    # Imported when serving: textual-serve loads only for `crtdesk serve`.
    from tui.desk.served import TEMPLATES, DeskServer, allowed_origins

    # Anyone who reaches the port would get a desk, on localhost every account of the
    # host: ask for a token on every address.
    token = secrets.token_urlsafe(24)
    server = DeskServer(
        desk_command(folder),
        max_desks=most,
        origins=allowed_origins(url, host, port),
        token=token,
        host=host,
        port=port,
        title="crtdesk",
        public_url=url,
        # textual-serve's page with the font it carries, asked of no other host.
        templates_path=TEMPLATES,
    )
    check_port(host, port)  # before any line says the desk is served
    print(start_line(host, port, f"{url}/?token={token}"), flush=True)
    try:
        server.serve()
    except OSError as err:
        raise ServeError(f"cannot listen on {host} port {port}: {err.strerror or err}") from err
    return 0
