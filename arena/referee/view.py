"""What a bot sees of the file system: the layout of its own mount namespace.

Landlock decides what a bot may open; this decides what is there to name at all. With a
mount namespace of its own (``containment.private_mounts``), PID 1 lays out, before it
applies Landlock and becomes the bot:

- ``/tmp``: an empty read-only tmpfs, like every protected folder: nothing of the host's
  ``/tmp`` can be named, and no rule of the bot's covers it;
- ``/tmp/scratch``: its scratch folder (``TMPDIR``, ``HOME``), a private size-limited
  tmpfs, the only folder it may write (with its own ``/dev/shm``), and its working folder,
  unless its command line names the organiser's current folder. Nothing else is mounted
  beneath it, so its read-write rule covers nothing but its own files;
- ``/tmp/bot``: its own stored code (a registered bot's version folder, which lives in the
  data folder), bound read-only: its path names nothing of the data folder, of the
  organiser's folders or of other bots (their names, their content hashes);
- every protected folder (the data folder: accounts, results, uploads, every participant's
  code) and the organiser's current folder, when the bot is not granted it, covered by an
  empty read-only tmpfs: nothing in them can be listed or even named. What the bot is
  granted beneath a covered folder or under ``/tmp`` (the Python installation, the arena's
  packages, the files its command line names, its endpoint's socket) is bound back
  read-only at the same path, so the bot sees under it exactly what Landlock lets it read:
  an installation under ``/tmp`` is as closed to it as one anywhere else.

Sources are opened before anything is mounted (a cover hides them), a folder is covered or
bound only after every mount above it, and a mount point is made only inside a tmpfs PID 1
itself mounted: nothing is ever created on the disk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.referee.confine import beneath, depth

TMP = "/tmp"
SCRATCH = "/tmp/scratch"  # its scratch folder, unless a path bound back lies there
OWN_CODE = "/tmp/bot"
# Never covered (the system, the kernel's views), nor any folder holding one of them; /tmp
# is covered anyway.
UNCOVERABLE = ("/dev", "/proc", "/sys", TMP)


def moved(path: str, renamed: Mapping[str, str]) -> str:
    """``path`` as the bot sees it: under the neutral name of a renamed folder holding it."""
    for real, seen in renamed.items():
        if beneath(path, real):
            return seen + path[len(real) :]
    return path


def neutral_names(own: Sequence[str]) -> dict[str, str]:
    """Where each of a bot's own code folders is bound: ``/tmp/bot``, then ``/tmp/bot-2``..."""
    return {path: OWN_CODE if i == 0 else f"{OWN_CODE}-{i + 1}" for i, path in enumerate(own)}


def coverable(folder: str, keep_visible: Sequence[str]) -> bool:
    """A folder may be covered unless it is ``/`` or holds the system, the kernel's views,
    ``/tmp`` or one of ``keep_visible`` (the system roots)."""
    return folder != "/" and not any(
        beneath(kept, folder) for kept in (*UNCOVERABLE, *keep_visible)
    )


@dataclass(frozen=True)
class Bind:
    """``source`` (a path of the referee's view) bound read-only at ``target``."""

    source: str
    target: str


def _covered(path: str, covers: Sequence[str], binds: Sequence[Bind]) -> bool:
    """Whether ``path`` is hidden by the layout so far: the innermost of ``covers`` and
    ``binds`` at or above it is a cover (a bind at a cover's own path shows the folder)."""
    innermost, hidden = "", False
    for target, is_cover in [*((c, True) for c in covers), *((b.target, False) for b in binds)]:
        if beneath(path, target) and len(target) >= len(innermost):
            innermost, hidden = target, is_cover
    return hidden


def _free_point(taken: Sequence[str]) -> str:
    """``SCRATCH``, or ``SCRATCH-2``, ``-3``...: the first that neither holds nor lies in one of
    ``taken`` (what is mounted under ``/tmp``), so that its read-write rule covers only it."""
    point, n = SCRATCH, 1
    while any(beneath(t, point) or beneath(point, t) for t in taken):
        n += 1
        point = f"{SCRATCH}-{n}"
    return point


@dataclass
class View:
    """The layout PID 1 makes: ``covers`` (empty read-only tmpfs), ``binds``, the private
    ``scratch`` tmpfs (None: none, the bot's scratch folder is on the disk), each after
    every mount above it; then ``workdir`` as its working folder (None: unchanged)."""

    covers: list[str] = field(default_factory=list)
    binds: list[Bind] = field(default_factory=list)
    workdir: str | None = None
    scratch: str | None = None

    @classmethod
    def plan(
        cls,
        hidden: Iterable[str],
        granted: Iterable[str],
        renamed: Mapping[str, str],
        workdir: str | None,
        system: Sequence[str] = (),
    ) -> View:
        """Cover ``/tmp`` and each ``hidden`` folder (if ``coverable`` and not hidden
        already: also one inside a folder bound back); bind each ``renamed`` folder at its
        neutral name, and every ``granted`` path that a cover hides back in place (never
        ``/tmp`` itself: that would hide the scratch folder). The scratch folder goes where
        nothing is bound; ``workdir`` None: it starts there."""
        covers = [TMP]
        binds = [Bind(real, seen) for real, seen in renamed.items()]
        wanted = [(path, True) for path in hidden if coverable(path, system)]
        wanted += [
            (path, False)
            for path in granted
            if not beneath(TMP, path) and not any(beneath(path, r) for r in renamed)
        ]
        # Outer paths first (a folder hidden inside one bound back is covered after it); at
        # one path the cover first, so that a granted folder shows.
        for path, hide in sorted(wanted, key=lambda w: (depth(w[0]), not w[1])):
            hidden_now = _covered(path, covers, binds)
            if hide and not hidden_now:
                covers.append(path)
            elif not hide and hidden_now:
                binds.append(Bind(path, path))
        scratch = _free_point([*covers[1:], *(b.target for b in binds)])
        return cls(covers, binds, workdir or scratch, scratch)
