"""The competition file (``arena host``): typed and checked like a tournament file, each
mistake one line naming its path; the example in examples/ loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.server.competition import Competition, CompetitionError

ARENA = Path(sys.executable).with_name("arena")
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "competition.toml"
BASE = {"name": "c1", "title": "A competition", "ranked": [{"variant": "usa", "players": [2]}]}


def test_the_example_loads() -> None:
    competition = Competition.from_toml(EXAMPLE)
    assert competition.boards == (("usa", 2),)
    assert competition.final.deadline is not None and competition.final.deadline.tzinfo


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"titel": "x"}, "titel: unknown key (known keys: name, title, ranked"),
        ({"ranked": [{"variant": "nowhere"}]}, "ranked[0].variant: "),
        ({"ranked": [{"variant": "usa", "players": [7]}]}, "usa is played by 2-5 players, not 7"),
        ({"ranked": []}, "ranked: name at least one variant"),
        ({"ranked": [{"variant": "usa", "players": [2, 2]}]}, "usa with 2 players twice"),
        ({"limits": {"files": 0}}, "limits.files: must be a whole number >= 1"),
        ({"limits": {"upload_bytes": 10, "unpacked_bytes": 5}}, "limits.unpacked_bytes"),
        ({"registration": {"mode": "invite"}}, "invite mode needs at least one code"),
        ({"registration": {"mode": "maybe"}}, "registration.mode: 'maybe' is not one of"),
        ({"visibility": {"replays": "all"}}, "visibility.replays"),
        ({"time_control": {"move_ms": 0}}, "time_control.move_ms: must be"),
        ({"name": "a b"}, "competition name"),
        ({"title": " "}, "title: give the competition a title"),
        ({"teams": {"max_size": 0}}, "teams.max_size: must be a whole number >= 1"),
        ({"teams": {"max_size": 9}}, "teams.max_size: must be a whole number <= 8"),
        ({"teams": {"max_size": "2"}}, "teams.max_size: expected a whole number"),
    ],
)
def test_mistakes_are_one_line(change: dict, message: str) -> None:
    with pytest.raises(CompetitionError) as caught:
        Competition.from_dict(BASE | change)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "given",
    ["2030-01-01T00:00:00", '"2030-01-01 18:00"', '"tomorrow"', "2030-01-01", '"18:00Z"'],
)
def test_a_bad_deadline_is_told_with_an_example_of_the_right_form(
    tmp_path: Path, given: str
) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        f'name = "c1"\ntitle = "t"\n[[ranked]]\nvariant = "usa"\n[final]\ndeadline = {given}\n'
    )
    with pytest.raises(CompetitionError) as caught:
        Competition.from_toml(path)
    said = str(caught.value)
    assert "final.deadline: " in said and "e.g. deadline = 2026-12-01T18:00:00Z" in said
    assert "RFC3339" not in said and "\n" not in said


def test_arena_host_refuses_a_bad_file_in_one_line_and_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('name = "c1"\ntitle = "t"\nranked = [{ variant = "usa", players = [9] }]\n')
    data = tmp_path / "data"
    done = subprocess.run(
        [ARENA, "host", str(path), "--data-dir", str(data), "--port", "0"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not 9" in done.stderr
    assert not data.exists()


def test_the_hosting_doc_shows_the_example_file() -> None:
    """docs/HOSTING.md's competition file is examples/competition.toml, byte for byte."""
    doc = (EXAMPLE.parents[1] / "docs" / "HOSTING.md").read_text(encoding="utf-8")
    section = doc.split("## The competition file", 1)[1].split("\n## ", 1)[0]
    assert f"```toml\n{EXAMPLE.read_text(encoding='utf-8')}```" in section


def test_tables_never_seat_two_bots_of_one_participant_and_favour_new_bots() -> None:
    import random
    from collections import Counter

    import trueskill

    from arena.server.ladder import next_table

    pool = {"a.x@1": "a", "a.y@1": "a", "b.x@1": "b", "c.x@1": "c", "new.x@1": "new"}
    settled = trueskill.Rating(25, 1)
    ratings = {bot: settled for bot in pool if not bot.startswith("new")}
    games = {bot: 50 for bot in ratings}
    rng = random.Random(1)
    seated: Counter[str] = Counter()
    for index in range(400):
        table = next_table(pool, 3, ratings, games, rng, index)
        assert table is not None and len({pool[bot] for bot in table}) == 3
        seated.update(table)
    assert seated["new.x@1"] == max(seated.values())  # the uncertain newcomer plays most
    assert next_table({"a.x@1": "a", "a.y@1": "a"}, 2, {}, {}, rng, 0) is None


def test_arena_host_on_a_busy_port_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [ARENA, "host", str(EXAMPLE), "--data-dir", str(tmp_path / "d"), "--port", str(port)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert not (tmp_path / "d").exists()  # refused: nothing stored


def test_the_first_admin_is_made_on_the_host_and_a_bad_one_stores_nothing(tmp_path: Path) -> None:
    def admin(name: str, password: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [ARENA, "admin", "create", name, "--data-dir", str(tmp_path / "d"), "--password-stdin"],
            input=password + "\n", capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    for name, password in (("root", "short"), ("<b>", "long enough pw")):
        refused = admin(name, password)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert not (tmp_path / "d").exists()
    made = admin("root", "long enough pw")
    assert made.returncode == 0 and "admin root created" in made.stdout
    from arena.server.accounts import Accounts

    user = Accounts(tmp_path / "d").user_named("root")
    assert user is not None and user.admin
