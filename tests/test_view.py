"""The layout of a bot's mount namespace (arena/referee/view.py), as planned in the referee:
what PID 1 covers, binds back and where the scratch folder goes. The tests of what a bot
then reaches, with real processes, are in tests/test_hostile.py."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.confine import depth, parse
from arena.referee.sandbox import Mount, SandboxPolicy, confine_command
from arena.referee.view import OWN_CODE, SCRATCH, TMP, Bind, View, beneath

SYSTEM = ("/usr", "/etc")


def test_tmp_is_covered_and_what_is_granted_under_it_bound_back_beside_the_scratch_folder():
    view = View.plan(
        hidden=["/srv/comp/data"],
        granted=["/usr", "/tmp/co/.venv", "/tmp/co/.venv/lib/site", "/tmp/plugins", "/srv/x"],
        renamed={"/srv/comp/data/bots/spy/1a2b": OWN_CODE},
        workdir=None,
        system=SYSTEM,
    )
    assert view.covers == [TMP, "/srv/comp/data"]
    assert view.binds == [
        Bind("/srv/comp/data/bots/spy/1a2b", OWN_CODE),
        Bind("/tmp/plugins", "/tmp/plugins"),  # outer folders first
        Bind("/tmp/co/.venv", "/tmp/co/.venv"),  # the folder inside it needs no bind of its own
    ]
    assert view.scratch == view.workdir == SCRATCH
    # The scratch folder (the bot's only read-write rule) neither holds nor lies in a bind.
    assert not [b for b in view.binds if beneath(b.target, SCRATCH) or beneath(SCRATCH, b.target)]


def test_the_scratch_folder_moves_aside_from_an_installation_at_its_own_name():
    view = View.plan([], [f"{SCRATCH}/arena/.venv"], {}, "/tmp/elsewhere", SYSTEM)
    assert view.binds == [Bind(f"{SCRATCH}/arena/.venv", f"{SCRATCH}/arena/.venv")]
    assert view.scratch == f"{SCRATCH}-2" and view.workdir == "/tmp/elsewhere"


def test_a_folder_hidden_inside_one_bound_back_is_covered_after_it():
    """The data folder inside a granted folder under /tmp: /tmp's cover alone would hide it,
    but the bind of the folder holding it shows it again, so it gets a cover of its own."""
    view = View.plan(
        hidden=["/tmp/co/data", "/tmp/elsewhere/data"],
        granted=["/tmp/co", "/tmp/co/data/run.sock"],
        renamed={},
        workdir=None,
        system=SYSTEM,
    )
    assert view.covers == [TMP, "/tmp/co/data"]  # /tmp/elsewhere/data: under /tmp's cover
    assert view.binds == [Bind("/tmp/co", "/tmp/co"), Bind(*["/tmp/co/data/run.sock"] * 2)]


def test_tmp_itself_is_never_bound_back_over_its_cover():
    view = View.plan([], [TMP, "/", "/tmp/co"], {}, None, SYSTEM)
    assert view.covers == [TMP] and view.binds == [Bind("/tmp/co", "/tmp/co")]


def test_a_view_travels_to_pid_1_whole():
    view = View.plan(["/srv/data"], ["/srv/data/x", "/tmp/co"], {"/srv/data/b": OWN_CODE}, None)
    policy = SandboxPolicy(["/usr", "/srv/data/x"], ["/opt/lib"], ["/tmp/scratch"], 4242)
    command = confine_command(policy, 6, [Mount("/dev/shm", 1 << 20, 64)], view)
    assert command[3].endswith("confine.py") and command[-1] == "--"
    given, bot = parse([*command[4:], "python", "bot.py"])  # what PID 1 reads (confine.py)
    assert bot == ["python", "bot.py"]
    assert given["--cover"] == [[c] for c in view.covers]
    assert given["--bind"] == [[b.source, b.target] for b in view.binds]
    assert given["--workdir"] == [[view.workdir]] and given["--abi"] == [["6"]]
    assert given["--mount"] == [["/dev/shm", str(1 << 20), "64", "1777"]]
    assert given["--read"] == [["/usr"], ["/srv/data/x"]] and given["--port"] == [["4242"]]
    assert given["--list"] == [["/opt/lib"]] and given["--write"] == [["/tmp/scratch"]]
    unconfined, _ = parse([*confine_command(None, 6, [], view)[4:], "bot"])
    assert not unconfined["--abi"] and not unconfined["--read"], "no policy: no Landlock"
    with pytest.raises(ValueError):
        parse(["--cover", "/x", "--"])  # no command
    with pytest.raises(ValueError):
        parse(["--cover", "/x", "--nope", "/y", "--", "bot"])  # no such option


@given(st.lists(st.sampled_from(["a", "b", "ab", "tmp", "bot-2"]), max_size=4),
       st.lists(st.sampled_from(["a", "b", "ab", "tmp", "bot-2"]), max_size=4))  # fmt: skip
def test_beneath_and_depth_read_paths_as_pathlib_does(inner: list[str], outer: list[str]):
    path, folder = "/" + "/".join(inner), "/" + "/".join(outer)
    pure = PurePosixPath(path)
    assert beneath(path, folder) == pure.is_relative_to(folder)
    assert depth(path) == len(pure.parts)
