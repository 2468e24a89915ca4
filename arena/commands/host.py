"""``arena host COMPETITION.toml``: serve a competition (accounts, uploads, a continuous
ladder) from a data folder; ``arena admin create NAME``: the first admin, on the host;
``arena admin backup`` and ``restore``: the data folder, backed up while it runs;
``arena admin unthrottle NAME``: clear an account's sign-in delays."""

from __future__ import annotations

import ipaddress
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.commands.common import DATA_DIR, RUNTIME, DataDir, console, fail, warn

admin_app = typer.Typer(
    help="Manage a hosted competition (on the host): accounts, backups, the disk."
)


def host(
    competition_file: Annotated[Path, typer.Argument(help="the competition file (TOML)")],
    data_dir: DataDir = DATA_DIR,
    bind: Annotated[
        str, typer.Option(help="address to listen on (0.0.0.0: every interface; see README)")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: any free port)")] = 8080,
    workers: Annotated[int, typer.Option(help="local match workers", min=1)] = 1,
    ray: Annotated[
        str | None, typer.Option(help="play the matches on Ray (an address, or 'local')")
    ] = None,
    behind_proxy: Annotated[
        bool,
        typer.Option(
            help="behind a TLS reverse proxy on this machine: trust its X-Forwarded-For "
            "(rate limits per real address) and mark cookies Secure"
        ),
    ] = False,
    log_format: Annotated[
        str,
        typer.Option(
            help="server.log and stderr: 'text' (a line a person reads) or 'json' (one JSON "
            "object a line, for a log collector)"
        ),
    ] = "text",
) -> None:
    """Serve a competition: sign-ups, uploads, validation, a ladder that never stops."""
    from arena.server.app import create_app, server_secret
    from arena.server.competition import Competition, CompetitionError
    from arena.server.logs import FORMATS, adopt_uvicorn_logs, setup_logging
    from arena.server.serving import Server, listen, uvicorn_config
    from arena.server.supervisor import Supervisor
    from arena.tournament.store import ResultsStore

    if log_format not in FORMATS:
        raise fail(f"--log-format {log_format}: give one of {', '.join(FORMATS)}")
    try:
        competition = Competition.from_toml(competition_file)
    except CompetitionError as error:
        raise fail(str(error)) from None
    if not 0 <= port <= 65535:
        raise fail("--port is 0 to 65535")
    try:
        address = ipaddress.ip_address(bind)
    except ValueError:
        raise fail(f"--bind {bind}: give an IP address (127.0.0.1, 0.0.0.0, ...)") from None
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        sock = listen(bind, port, family)
    except OSError as error:
        raise fail(
            f"cannot listen on {bind}:{port}: {error.strerror or error}; choose another --port"
        ) from None
    ResultsStore(data_dir).close()  # created (or migrated) before anything reads it
    setup_logging(data_dir, log_format)
    secret = server_secret(data_dir)
    worker = Supervisor(
        [
            sys.executable, "-m", "arena.server.worker", str(competition_file),
            "--data-dir", str(data_dir), "--workers", str(workers), "--parent", str(os.getpid()),
            "--log-format", log_format, *(["--ray", ray] if ray else []),
        ]
    )  # fmt: skip
    app = create_app(competition, data_dir, secret, behind_proxy, worker)
    worker.start()  # and started again whenever it dies
    shown = f"[{bind}]" if address.version == 6 else bind
    url = f"http://{shown}:{sock.getsockname()[1]}/"
    print(f"serving '{competition.title}' from {data_dir} at {url} (Ctrl-C stops)", flush=True)
    if address.is_loopback:
        console.print(
            "only this machine can reach it: to open it to others, put a TLS reverse proxy in "
            "front and add --behind-proxy (README: Host a competition)",
            soft_wrap=True,
        )
    else:
        warn(f"listening on {bind}: put a TLS reverse proxy in front (README: Host a competition)")
    server = Server(uvicorn_config(app, behind_proxy), app.state.host.stopping.set)
    if log_format == "json":
        adopt_uvicorn_logs()
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        app.state.host.stopping.set()
        worker.stop()
    console.print("stopped")


@admin_app.command("prune")
def prune_logs(
    competition_file: Annotated[
        Path | None,
        typer.Argument(help="the competition file whose [retention] applies (default: defaults)"),
    ] = None,
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Apply the retention of bots' per-match logs and the data folder's budget now, and
    say what it freed (results and match logs are never removed)."""
    from arena.server.competition import Competition, CompetitionError, RetentionTable
    from arena.server.retention import prune
    from arena.tournament.store import StoreError

    retention = RetentionTable()
    if competition_file is not None:
        try:
            retention = Competition.from_toml(competition_file).retention
        except CompetitionError as error:
            raise fail(str(error)) from None
    if not Path(data_dir).is_dir():
        raise fail(f"no data folder {data_dir}: give --data-dir the competition's folder")
    try:
        pruned = prune(Path(data_dir), retention)
    except (OSError, StoreError) as error:
        raise fail(f"cannot prune {data_dir}: {error}") from None
    console.print(pruned.describe(), soft_wrap=True)


@admin_app.command("create")
def create_admin(
    name: Annotated[str, typer.Argument(help="the admin's account name")],
    data_dir: DataDir = DATA_DIR,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="read the password from stdin")
    ] = False,
) -> None:
    """Make an admin account (or make an existing account admin), on the host."""
    from arena.server.accounts import (
        FILE_NAME,
        MAX_PASSWORD,
        MIN_PASSWORD,
        AccountError,
        Accounts,
        check_account_name,
    )

    if (Path(data_dir) / FILE_NAME).exists():
        accounts = Accounts(data_dir)
        if accounts.user_named(name) is not None:
            accounts.set_role(name, "admin")
            console.print(f"{name} is now an admin")
            return
    try:  # checked before anything is written: a refusal leaves no trace
        check_account_name(name)
        if password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = typer.prompt("password", hide_input=True, confirmation_prompt=True)
        if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
            raise AccountError(f"a password is {MIN_PASSWORD}-{MAX_PASSWORD} characters")
        Accounts(data_dir).create_user(name, password, role="admin")
    except AccountError as error:
        raise fail(str(error)) from None
    console.print(f"admin {name} created")


@admin_app.command("backup")
def backup_command(
    dest: Annotated[Path, typer.Argument(help="a new folder to hold the backup")],
    data_dir: DataDir = DATA_DIR,
    logs: Annotated[
        bool, typer.Option(help="also the logs: server.log, the bots' match and validation logs")
    ] = False,
) -> None:
    """Back up a competition's data folder while it runs: both stores (one consistent
    snapshot), the server's secret, uploads and bots' code; checked, then put in place whole."""
    from arena.server.backup import BackupError, take

    try:
        summary = take(data_dir, dest, logs)
    except BackupError as error:
        raise fail(str(error), RUNTIME) from None
    console.print(f"backed up {summary.describe()} to {summary.path} (checked)", soft_wrap=True)
    if summary.missing:
        warn(f"not in {data_dir} although a store names them: {', '.join(summary.missing)}")


@admin_app.command("restore")
def restore_command(
    backup: Annotated[Path, typer.Argument(help="a folder made by 'arena admin backup'")],
    data_dir: Annotated[
        Path, typer.Option(help="the new data folder to restore into (new or empty)")
    ] = DATA_DIR,
) -> None:
    """Restore a backup into a new data folder (checked first); then 'arena host' serves it."""
    from arena.server.backup import BackupError, restore

    try:
        summary = restore(backup, data_dir)
    except BackupError as error:
        raise fail(str(error), RUNTIME) from None
    console.print(
        f"restored {summary.describe()} to {summary.path}: serve it with "
        f"'arena host COMPETITION.toml --data-dir {summary.path}'",
        soft_wrap=True,
    )


@admin_app.command("unthrottle")
def unthrottle(
    name: Annotated[str, typer.Argument(help="the account whose sign-in delays to clear")],
    data_dir: DataDir = DATA_DIR,
) -> None:
    """Forget an account's failed sign-ins (from every address and device): its next
    sign-in is not delayed. Written to server.log; the running server sees it at once."""
    from arena.server.accounts import FILE_NAME, Accounts
    from arena.server.logs import setup_logging

    if not (Path(data_dir) / FILE_NAME).exists():
        raise fail(f"{data_dir} holds no competition's accounts: give --data-dir of arena host")
    accounts = Accounts(data_dir)
    user = accounts.user_named(name)
    if user is None:
        raise fail(f"no account named '{name}' in {data_dir}")
    cleared = accounts.clear_signin_delays(user.name)
    setup_logging(data_dir, echo=False)
    log = logging.getLogger("arena.host")
    log.info(
        "admin (command line) cleared the sign-in delays of %s (%d failures)", user.name, cleared
    )
    console.print(
        f"cleared the sign-in delays of {user.name} ({cleared} failed sign-ins forgotten)"
    )
