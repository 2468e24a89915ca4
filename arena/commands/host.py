"""``arena host COMPETITION.toml``: serve a competition (accounts, uploads, a continuous
ladder) from a data folder; ``arena admin create NAME``: the first admin, on the host;
``arena admin backup`` and ``restore``: the data folder, backed up while it runs;
account care (``promote``, ``demote``, ``reset-password``, ``unthrottle``, ``disable``,
``enable``) and ``arena admin export``: the standings for grading. Each change is
written to server.log; the running server sees it at once."""

from __future__ import annotations

import datetime
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
        str,
        typer.Option(help="address to listen on (0.0.0.0: every interface; see docs/HOSTING.md)"),
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
    final_now: Annotated[
        bool,
        typer.Option(
            "--final-now",
            help="the deadline has passed: close submissions and play the final now",
        ),
    ] = False,
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
    passed = deadline_passed(competition, data_dir)
    if passed and not final_now:
        raise fail(
            f"{competition_file}: final.deadline {passed} has passed: give a later deadline, "
            "or add --final-now to close submissions and play the final now"
        )
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
    if address.is_loopback and not behind_proxy:
        console.print(
            "only this machine can reach it: to open it to others, put a TLS reverse proxy in "
            "front and add --behind-proxy (docs/HOSTING.md: Behind a TLS reverse proxy)",
            soft_wrap=True,
        )
    elif not address.is_loopback:
        warn(
            f"listening on {bind}: put a TLS reverse proxy in front "
            "(docs/HOSTING.md: Behind a TLS reverse proxy)"
        )
    per_address = competition.limits.connections_per_address
    server = Server(uvicorn_config(app, behind_proxy, per_address), app.state.host.stopping.set)
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


def deadline_passed(competition, data_dir: Path) -> str | None:
    """The deadline in force if it has passed with no final fixed for it yet (a restart
    after the final is not refused), else None."""
    from arena.server.accounts import FILE_NAME, Accounts
    from arena.server.deadline import Deadline, stamp

    if not (Path(data_dir) / FILE_NAME).exists():  # a new competition: nothing written yet
        deadline = competition.final.deadline
        now = datetime.datetime.now(datetime.UTC)
        return stamp(deadline) if deadline is not None and now >= deadline else None
    accounts = Accounts(data_dir)
    moment = Deadline(competition, accounts)
    if not moment.closed():
        return None
    when = stamp(moment.current())
    boards = [f"{variant}-{players}p" for variant, players in competition.boards]
    return when if any(accounts.final_round(b, when) is None for b in boards) else None


@admin_app.command("create")
def create_admin(
    name: Annotated[str, typer.Argument(help="the admin's account name")],
    data_dir: DataDir = DATA_DIR,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="read the password from stdin")
    ] = False,
) -> None:
    """Make an admin account, on the host (an existing account: 'arena admin promote')."""
    from arena.server.accounts import (
        FILE_NAME,
        MAX_PASSWORD,
        MIN_PASSWORD,
        AccountError,
        Accounts,
        check_account_name,
    )

    if (Path(data_dir) / FILE_NAME).exists() and Accounts(data_dir).user_named(name):
        raise fail(
            f"an account named '{name}' exists: 'arena admin promote {name}' makes it an "
            f"admin, 'arena admin reset-password {name}' gives a code to set its password"
        )
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
    _logged(data_dir, f"admin (command line) created admin {name}")
    console.print(f"admin {name} created")


def _account(data_dir: Path, name: str):
    """The store and the account named ``name``; one line and exit 2 if there is none."""
    from arena.server.accounts import FILE_NAME, Accounts

    if not (Path(data_dir) / FILE_NAME).exists():
        raise fail(f"{data_dir} holds no competition's accounts: give --data-dir of arena host")
    accounts = Accounts(data_dir)
    user = accounts.user_named(name)
    if user is None:
        raise fail(f"no account named '{name}' in {data_dir}")
    return accounts, user


def _logged(data_dir: Path, message: str) -> None:
    """Write an admin's change to server.log, in the format the server writes it in (a
    log collector reading JSON lines must not meet a line of text)."""
    from arena.server.logs import LOG_FILE, setup_logging

    try:
        with (Path(data_dir) / LOG_FILE).open("rb") as log_file:
            log_file.seek(max(0, log_file.seek(0, 2) - 4096))
            last = [line for line in log_file.read().splitlines() if line.strip()][-1:]
    except OSError:
        last = []
    setup_logging(data_dir, "json" if last and last[0].startswith(b"{") else "text", echo=False)
    logging.getLogger("arena.host").info(message)


NameArg = Annotated[str, typer.Argument(help="the account's name")]


@admin_app.command("promote")
def promote(name: NameArg, data_dir: DataDir = DATA_DIR) -> None:
    """Make an account an admin (it sees /admin)."""
    accounts, user = _account(data_dir, name)
    if user.admin:
        raise fail(f"{user.name} is already an admin")
    accounts.set_role(user.name, "admin")
    _logged(data_dir, f"admin (command line): promote {user.name}")
    console.print(f"{user.name} is now an admin")


@admin_app.command("demote")
def demote(name: NameArg, data_dir: DataDir = DATA_DIR) -> None:
    """Make an admin a participant again (the last admin stays one)."""
    from arena.server.accounts import AccountError

    accounts, user = _account(data_dir, name)
    if not user.admin:
        raise fail(f"{user.name} is not an admin")
    try:
        accounts.set_role(user.name, "participant")
    except AccountError as error:
        raise fail(str(error)) from None
    _logged(data_dir, f"admin (command line): demote {user.name}")
    console.print(f"{user.name} is now a participant")


@admin_app.command("reset-password")
def reset_password(name: NameArg, data_dir: DataDir = DATA_DIR) -> None:
    """Print a one-time code with which the participant sets a new password at /reset
    (hand it over yourself; it works once, within 48 hours; their sessions end)."""
    accounts, user = _account(data_dir, name)
    code = accounts.new_reset_code(user, None)
    _logged(data_dir, f"admin (command line): reset-password {user.name} (a one-time code)")
    console.print(f"one-time code for {user.name} (open /reset on the site; it works once):")
    print(code)


@admin_app.command("disable")
def disable(name: NameArg, data_dir: DataDir = DATA_DIR) -> None:
    """Disable an account: signed out, tokens revoked, its bots stop and leave the boards."""
    accounts, user = _account(data_dir, name)
    accounts.disable_user(user.id)
    _logged(data_dir, f"admin (command line): disable {user.name}")
    console.print(f"{user.name} is disabled")


@admin_app.command("enable")
def enable(name: NameArg, data_dir: DataDir = DATA_DIR) -> None:
    """Enable a disabled account again (its bots rest until it chooses which play)."""
    accounts, user = _account(data_dir, name)
    accounts.enable_user(user.id)
    _logged(data_dir, f"admin (command line): enable {user.name}")
    console.print(f"{user.name} is enabled")


@admin_app.command("export")
def export(
    data_dir: DataDir = DATA_DIR,
    format: Annotated[str, typer.Option(help="csv or json")] = "csv",
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="write here instead of stdout")
    ] = None,
) -> None:
    """The standings for grading: one row per bot version and board (owner, team, bot, version,
    final and ladder rank, rating, games, wins, faults by code), voided matches left out."""
    from arena.server.accounts import FILE_NAME, Accounts
    from arena.server.export import FORMATS, as_csv, as_json, described, standings
    from arena.tournament.store import ResultsStore

    if format not in FORMATS:
        raise fail(f"--format is one of {', '.join(FORMATS)}")
    if not (Path(data_dir) / FILE_NAME).exists():
        raise fail(f"{data_dir} holds no competition's accounts: give --data-dir of arena host")
    accounts = Accounts(data_dir)
    what = described(accounts)
    if what is None:
        raise fail(f"{data_dir} was not served by this arena yet: start 'arena host' on it once")
    with ResultsStore.reader(data_dir) as store:
        rows = standings(store, accounts, what)
    text = as_csv(rows) if format == "csv" else as_json(what.name, rows)
    _logged(data_dir, f"admin (command line) exported the standings ({len(rows)} rows, {format})")
    if out is None:
        print(text, end="")
        return
    try:
        out.write_text(text)
    except OSError as error:
        raise fail(f"cannot write {out}: {error.strerror or error}") from None
    console.print(f"{len(rows)} rows written to {out}")


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
    accounts, user = _account(data_dir, name)
    cleared = accounts.clear_signin_delays(user.name)
    _logged(
        data_dir,
        f"admin (command line) cleared the sign-in delays of {user.name} ({cleared} failures)",
    )
    console.print(
        f"cleared the sign-in delays of {user.name} ({cleared} failed sign-ins forgotten)"
    )
