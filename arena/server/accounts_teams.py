"""Teams: participants who work together (``[teams] max_size`` in the competition file).

A participant makes a team and owns it; the owner hands out one-time invite codes
(hashed, expiring, used once, made as password-reset codes are); another account joins
with one; the owner removes a member, a member leaves. An account is in at most one
team. While in a team, a member's bots are the team's: its members see each other's
code, logs and seats as their own (``User.speaks_for``), ``active_bots`` counts the
team's playing versions, and two of the team's bots never share a ladder table
(``AccountSubmissions.sides``).
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from arena.server.accounts_db import (
    AccountError,
    AccountsBase,
    User,
    check_account_name,
    code_digest,
    one_time_code,
)

INVITE_SECONDS = 2 * 86400  # a team invite code works this long, once


@dataclass(frozen=True)
class Team:
    id: int
    name: str
    owner: str
    members: tuple[str, ...]  # in the order they joined, the owner first when they made it


@dataclass(frozen=True)
class Left:
    """What leaving did: the team, and who owns it now (None: it was the last member,
    the team is gone)."""

    team: str
    owner: str | None


def side_ids(db: sqlite3.Connection, user_id: int) -> list[int]:
    """The accounts whose bots count together with ``user_id``'s: its team's members, or
    the account alone."""
    rows = db.execute(
        "SELECT o.user_id FROM team_members m JOIN team_members o ON o.team_id = m.team_id"
        " WHERE m.user_id = ?",
        (user_id,),
    ).fetchall()
    return [row[0] for row in rows] or [user_id]


def playing_count(db: sqlite3.Connection, user_ids: list[int], but: int | None = None) -> int:
    """Versions of these accounts that play now (``but``: leaving one submission out)."""
    marks = ",".join("?" * len(user_ids))
    return int(
        db.execute(
            f"SELECT COUNT(*) FROM submissions WHERE user_id IN ({marks}) AND active = 1"
            " AND id != ?",
            (*user_ids, -1 if but is None else but),
        ).fetchone()[0]
    )


def teams_off() -> AccountError:
    return AccountError(
        "this competition has no teams ([teams] max_size is 1): everyone plays alone"
    )


class AccountTeams(AccountsBase):
    """Making, joining, leaving teams and their invite codes."""

    def team_of(self, user: User) -> Team | None:
        row = self.db.execute(
            "SELECT team_id FROM team_members WHERE user_id = ?", (user.id,)
        ).fetchone()
        return self._team(self.db, row[0]) if row else None

    def teams(self) -> list[Team]:
        ids = [row[0] for row in self.db.execute("SELECT id FROM teams ORDER BY name")]
        return [team for team in (self._team(self.db, i) for i in ids) if team is not None]

    def team_names(self) -> dict[str, str]:
        """Each account in a team (by name), with its team's name."""
        rows = self.db.execute(
            "SELECT u.name, t.name FROM team_members m JOIN users u ON u.id = m.user_id"
            " JOIN teams t ON t.id = m.team_id"
        )
        return dict(rows.fetchall())

    def create_team(self, user: User, name: str, max_size: int) -> Team:
        """A new team named ``name``, owned by ``user``, its first member."""
        if max_size <= 1:
            raise teams_off()
        name = name.strip()
        check_account_name(name, "team name")
        try:
            with self.transaction() as db:
                self._not_in_a_team(db, user)
                cursor = db.execute(
                    "INSERT INTO teams (name, owner_id, created_at) VALUES (?, ?, ?)",
                    (name, user.id, time.time()),
                )
                db.execute(
                    "INSERT INTO team_members (user_id, team_id, joined_at) VALUES (?, ?, ?)",
                    (user.id, cursor.lastrowid, time.time()),
                )
        except sqlite3.IntegrityError:
            raise AccountError(f"the team name '{name}' is taken: choose another") from None
        assert cursor.lastrowid is not None
        team = self._team(self.db, cursor.lastrowid)
        assert team is not None
        return team

    def new_team_invite(
        self, user: User, max_size: int, seconds: float = INVITE_SECONDS
    ) -> tuple[Team, str]:
        """A one-time code for another account to join ``user``'s team (its owner only;
        only the hash is kept; it works once, within ``seconds``). Refused when the team
        is full."""
        if max_size <= 1:
            raise teams_off()
        code = one_time_code()
        with self.transaction() as db:
            team = self._owned(db, user, "make an invite code")
            if len(team.members) >= max_size:
                raise AccountError(
                    f"team {team.name} is full ({max_size} members): remove one to invite another"
                )
            db.execute(
                "INSERT INTO team_invites (code_hash, team_id, by_user, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (code_digest(code), team.id, user.id, time.time() + seconds),
            )
        return team, code

    def join_team(self, user: User, code: str, max_size: int, active_limit: int) -> Team:
        """``user`` joins the team of an invite code: used once, before it expires, into a
        team with room, by an account in no team, whose playing versions and the team's
        together stay within ``active_limit``."""
        if max_size <= 1:
            raise teams_off()
        with self.transaction() as db:
            self._not_in_a_team(db, user)
            row = db.execute(
                "SELECT team_id, expires_at, used_at FROM team_invites WHERE code_hash = ?",
                (code_digest(code),),
            ).fetchone()
            if row is None or row[2] is not None or row[1] < time.time():
                raise AccountError(
                    "that invite code is not valid (used, expired or mistyped): ask the team's "
                    "owner for a new one"
                )
            team = self._team(db, row[0])
            assert team is not None  # a team's codes go with it
            if len(team.members) >= max_size:
                raise AccountError(f"team {team.name} is full ({max_size} members)")
            member_ids = [r[0] for r in db.execute(
                "SELECT user_id FROM team_members WHERE team_id = ?", (team.id,)
            )]  # fmt: skip
            playing = playing_count(db, [*member_ids, user.id])
            if playing > active_limit:
                raise AccountError(
                    f"with you team {team.name} would have {playing} versions playing, and at "
                    f"most {active_limit} play at once: stop one first"
                )
            db.execute(
                "UPDATE team_invites SET used_at = ?, used_by = ? WHERE code_hash = ?",
                (time.time(), user.id, code_digest(code)),
            )
            db.execute(
                "INSERT INTO team_members (user_id, team_id, joined_at) VALUES (?, ?, ?)",
                (user.id, team.id, time.time()),
            )
        joined = self._team(self.db, team.id)
        assert joined is not None
        return joined

    def leave_team(self, user: User) -> Left:
        """``user`` leaves their team; an owner leaving hands the team to the member who
        joined first after them, and the last member leaving ends the team (and its codes)."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT team_id FROM team_members WHERE user_id = ?", (user.id,)
            ).fetchone()
            if row is None:
                raise AccountError("you are in no team")
            team = self._team(db, row[0])
            assert team is not None
            db.execute("DELETE FROM team_members WHERE user_id = ?", (user.id,))
            rest = db.execute(
                "SELECT m.user_id, u.name FROM team_members m JOIN users u ON u.id = m.user_id"
                " WHERE m.team_id = ? ORDER BY m.joined_at, m.user_id",
                (team.id,),
            ).fetchall()
            if not rest:
                db.execute("DELETE FROM team_invites WHERE team_id = ?", (team.id,))
                db.execute("DELETE FROM teams WHERE id = ?", (team.id,))
                return Left(team.name, None)
            if team.owner == user.name:
                db.execute("UPDATE teams SET owner_id = ? WHERE id = ?", (rest[0][0], team.id))
                return Left(team.name, rest[0][1])
            return Left(team.name, team.owner)

    def remove_member(self, user: User, member: str) -> Team:
        """The team's owner takes ``member`` out of it (an owner leaves with ``leave_team``)."""
        with self.transaction() as db:
            team = self._owned(db, user, "remove a member")
            if member not in team.members:
                raise AccountError(f"{member[:32]} is not in team {team.name}")
            if member == user.name:
                raise AccountError("to leave your own team, use leave")
            db.execute(
                "DELETE FROM team_members WHERE team_id = ? AND user_id ="
                " (SELECT id FROM users WHERE name = ?)",
                (team.id, member),
            )
        return team

    # ---------------------------------------------------------------- reading

    def _team(self, db: sqlite3.Connection, team_id: int) -> Team | None:
        row = db.execute(
            "SELECT t.id, t.name, u.name FROM teams t JOIN users u ON u.id = t.owner_id"
            " WHERE t.id = ?",
            (team_id,),
        ).fetchone()
        if row is None:
            return None
        members = db.execute(
            "SELECT u.name FROM team_members m JOIN users u ON u.id = m.user_id"
            " WHERE m.team_id = ? ORDER BY m.joined_at, m.user_id",
            (team_id,),
        )
        return Team(row[0], row[1], row[2], tuple(r[0] for r in members))

    def _not_in_a_team(self, db: sqlite3.Connection, user: User) -> None:
        row = db.execute(
            "SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team_id"
            " WHERE m.user_id = ?",
            (user.id,),
        ).fetchone()
        if row is not None:
            raise AccountError(f"you are in team {row[0]}: leave it first (one team at a time)")

    def _owned(self, db: sqlite3.Connection, user: User, what: str) -> Team:
        row = db.execute(
            "SELECT team_id FROM team_members WHERE user_id = ?", (user.id,)
        ).fetchone()
        team = self._team(db, row[0]) if row else None
        if team is None:
            raise AccountError("you are in no team")
        if team.owner != user.name:
            raise AccountError(f"only the team's owner ({team.owner}) can {what}")
        return team
