"""Who may see what of the ladder: the one rule every page, API answer and download follows.

A viewer has one role towards each bot (and so towards each seat of a game): the organiser (the admin
token), the bot's owner (the participant who submitted it), another participant (signed in or with a
token: an opponent in the game or not), or an anonymous visitor. `RULE` says, per kind of information,
which roles see it; everything below applies that table and nothing else decides.

The policy for finished games: a game is public once it is over (bots by seat, the result, every
seat's moves and views step by step, the deal's seed, each fault's kind and step, the signature); a
game in flight is not shown at all. A bot's own words are its owner's: its stderr (log lines beside
each step, a fault's stderr tail, its check reports), its faults' details (an illegal action's text
can carry its hand) and its command and files. The server's own paths (upload folders, replay files)
are the organiser's alone. The replay download is the public record (`public_replay`), the same bytes
for every viewer and the bytes the server signs; the organiser gets the file as played.

Games in progress (`live_share`, the live pages of `arena serve` and `arena run --watch`): everyone sees
the public view as it is played; a seat's own view (its hand) as played is its bot's owner's and the
organiser's; every seat's view is the organiser's as played, and anyone else's the configured delay
behind the play (none configured: only once the game is over), except a participant with a bot at the
table: until the game ends they see no more than their bot does. A game's deal is its siblings' too (seat
rotations, a duplicate deal's tables): an owner whose bot plays the deal at another table sees nothing
of this one while theirs is played, not even its public view (its cards are the deal's).

A deal's hands are held until the deal is played out (`Item.DEAL_IN_PLAY`, `hands_held`): while any other
game of a game's deal is still to be played (reserved, queued or in flight; a dropped game no longer
counts), that game's hands are the organiser's alone, whoever asks, owners included (a participant whose
bot is queued on the deal could read them, or pass them on, before it plays). Of a finished game such held
the replay (download, page, viewer data) is withheld whole, public view included: there is no page of a
finished game without its hands, and its public view shows the deal's cards as they were played; its
result, seats, signature and faults' kinds stay public (the result is in the ratings already), its
faults' details and stderr tails are withheld too (`while_held`: they can carry a hand). Of a game in
progress, no one but the organiser gets every seat's view, neither behind the play nor once it is over,
while the deal is held; a seat's own view as played stays its owner's.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Mapping, Sequence

from arena.jsonvalue import JSON
from arena.replay.encoding import decode_line, encode_line


class Role(enum.Enum):
    ANONYMOUS = "anonymous"
    PARTICIPANT = "participant"  # another participant: an opponent in the game, or not in it
    OWNER = "owner"
    ORGANISER = "organiser"


class Item(enum.Enum):
    GAME = "a finished game's public record"
    FAULT_DETAIL = "a fault's detail"
    STDERR = "a bot's stderr: log lines, stderr tails, check reports"
    COMMAND = "a bot's command and files"
    SUBMISSION = "a submission, its verdict and its report"
    HOST_PATH = "the server's own paths"
    LIVE_SEAT = "a seat's own view (its hand) while its game is played"
    LIVE_FULL = "every seat's view while the game is played"
    DELAYED_FULL = "every seat's view, the configured delay behind the play"
    CHALLENGE = "a challenge, its games and its verdict (owned by the challenger)"
    DEAL_IN_PLAY = "a game's hands while another game of its deal is still to be played"


_EVERYONE = frozenset(Role)
_OWNER = frozenset({Role.OWNER, Role.ORGANISER})

RULE: Mapping[Item, frozenset[Role]] = {
    Item.GAME: _EVERYONE,
    Item.FAULT_DETAIL: _OWNER,
    Item.STDERR: _OWNER,
    Item.COMMAND: _OWNER,
    Item.SUBMISSION: _OWNER,
    Item.HOST_PATH: frozenset({Role.ORGANISER}),
    Item.LIVE_SEAT: _OWNER,
    Item.LIVE_FULL: frozenset({Role.ORGANISER}),
    Item.DELAYED_FULL: frozenset({Role.ANONYMOUS, Role.PARTICIPANT, Role.ORGANISER}),  # never an owner at the table
    Item.CHALLENGE: _OWNER,
    Item.DEAL_IN_PLAY: frozenset({Role.ORGANISER}),
}


def may_see(role: Role, item: Item) -> bool:
    """The rule: does `role` see `item`?"""
    return role in RULE[item]


def hands_held(role: Role, deal_open: bool) -> bool:
    """Are a game's hands withheld from a viewer whose role is `role` (towards no bot in particular:
    the organiser or not)? Only while `deal_open`: another game of its deal is still to be played."""
    return deal_open and not may_see(role, Item.DEAL_IN_PLAY)


def while_held(role: Role, held: bool) -> Role:
    """A viewer's role towards a seat of a game whose hands are `held` from it: an anonymous visitor's
    (a fault's detail and a bot's stderr can carry its hand, so not even its owner reads them yet)."""
    return Role.ANONYMOUS if held else role


@dataclass(frozen=True)
class Viewer:
    """Who is asking: a participant's id, the organiser, or neither (anonymous)."""

    participant: int | None = None
    organiser: bool = False

    def role(self, owner: int | None) -> Role:
        """This viewer's role towards something `owner` (a participant id) owns."""
        if self.organiser:
            return Role.ORGANISER
        if self.participant is None:
            return Role.ANONYMOUS
        return Role.OWNER if owner is not None and owner == self.participant else Role.PARTICIPANT


ANONYMOUS = Viewer()
ORGANISER = Viewer(organiser=True)


def fault(record: Mapping[str, JSON], role: Role) -> dict[str, JSON]:
    """One fault as `role` sees it: its seat, kind and step always; detail and stderr tail by the rule."""
    out = {k: v for k, v in record.items() if k not in ("detail", "stderr_tail")}
    if may_see(role, Item.FAULT_DETAIL) and "detail" in record:
        out["detail"] = record["detail"]
    if may_see(role, Item.STDERR) and "stderr_tail" in record:
        out["stderr_tail"] = record["stderr_tail"]
    return out


def private_seats(roles: Sequence[Role]) -> frozenset[int]:
    """The seats whose stderr and fault details a viewer with `roles` (one per seat) may read."""
    return frozenset(s for s, r in enumerate(roles) if may_see(r, Item.STDERR) and may_see(r, Item.FAULT_DETAIL))


def command(argv: Sequence[str], folder: str, role: Role) -> list[str] | None:
    """A bot's command as `role` sees it: None without the right, its folder's paths as `hide_paths` writes them."""
    if not may_see(role, Item.COMMAND):
        return None
    return [str(hide_paths(a, [folder], role)) for a in argv]


def hide_paths(value: JSON, folders: Sequence[str], role: Role) -> JSON:
    """`value` with each of the server's `folders` written `.` in its texts (a bot's own folder is `.` to
    its owner), unless `role` may see the server's paths."""
    roots = sorted({f.rstrip("/") for f in folders if f.strip("/")}, key=len, reverse=True)
    if may_see(role, Item.HOST_PATH) or not roots:
        return value
    return _hidden(value, roots)


def _hidden(value: JSON, roots: list[str]) -> JSON:
    if isinstance(value, str):
        for root in roots:
            value = value.replace(root, ".")
        return value
    if isinstance(value, list):
        return [_hidden(v, roots) for v in value]
    if isinstance(value, dict):
        return {k: _hidden(v, roots) for k, v in value.items()}
    return value


def replay_for(data: bytes, roles: Sequence[Role]) -> bytes:
    """A replay file (JSON lines) with what `roles` (one per seat) may not see taken out: other seats'
    log records, fault details and stderr tails, and the commands and working folders of the header
    (the server's paths). Every record the game's re-simulation needs stays, so `arena verify` still
    checks the game; each line is written in the replay's own canonical encoding."""
    out: list[bytes] = []
    for raw in data.splitlines():
        if not raw.strip():
            continue
        record = decode_line(raw)
        if not isinstance(record, dict):
            out.append(raw + b"\n")
            continue
        kind = record.get("type")
        seat = record.get("seat")
        role = roles[seat] if isinstance(seat, int) and 0 <= seat < len(roles) else Role.ANONYMOUS
        if kind == "log" and not may_see(role, Item.STDERR):
            continue
        if kind == "fault":
            record = _kept_fault(record, roles)
        elif kind == "result" and isinstance(record.get("faults"), list):
            record = {**record, "faults": [_kept_fault(f, roles) for f in record["faults"]]}
        elif kind == "header" and isinstance(record.get("seats"), list):
            record = {**record, "seats": [_seat(s, roles) for s in record["seats"]]}
        out.append(encode_line(record))
    return b"".join(out)


def public_replay(data: bytes, seats: int) -> bytes:
    """The public record of a finished game: `replay_for` as an anonymous visitor sees every seat."""
    return replay_for(data, [Role.ANONYMOUS] * seats)


def _kept_fault(item: JSON, roles: Sequence[Role]) -> dict[str, JSON]:
    """A fault record with what its seat's role may not see emptied (the record keeps its shape)."""
    if not isinstance(item, dict):
        return {}
    seat = item.get("seat")
    role = roles[seat] if isinstance(seat, int) and 0 <= seat < len(roles) else Role.ANONYMOUS
    out = fault(item, role)
    out.setdefault("detail", "")
    out.setdefault("stderr_tail", [])
    return {k: out[k] for k in item}  # the record's own key order


def _seat(item: JSON, roles: Sequence[Role]) -> JSON:
    if not isinstance(item, dict):
        return item
    seat = item.get("seat")
    role = roles[seat] if isinstance(seat, int) and 0 <= seat < len(roles) else Role.ANONYMOUS
    if may_see(role, Item.HOST_PATH):
        return item
    return {**item, "command": [], "cwd": None}


@dataclass(frozen=True)
class LiveShare:
    """What a viewer sees of a game in progress: `seats`, whose views (hands) it sees as played, and
    `delayed`: every seat's view, the configured delay behind the play. The public view is everyone's."""

    seats: frozenset[int]
    delayed: bool
    public: bool = True  # the public view: not while the viewer's bot plays the same deal elsewhere


def live_share(roles: Sequence[Role], over: bool, elsewhere: Sequence[Role] = (), deal_open: bool = False) -> LiveShare:
    """The rule for games in progress, `roles` the viewer's role towards each seat's bot: once `over`, the
    finished game's rule (every seat, for everyone); before, `Item.LIVE_FULL` (every seat as played),
    `Item.LIVE_SEAT` (the seats it may see as played), `Item.DELAYED_FULL` (every seat behind the play) for a
    viewer none of whose roles at the table is denied it: an owner at the table sees no more than its bot.
    `elsewhere`: the viewer's roles towards the bots playing the same deal at other tables now; one denied
    the delayed view there (its bot) denies this game whole (`public` False), until this game is over.
    `deal_open`: another game of this deal is still to be played; unless the viewer may see `Item.DEAL_IN_PLAY`
    at every seat (the organiser), no every-seat view, neither behind the play nor once over (`hands_held`)."""
    seats = frozenset(range(len(roles)))
    held = deal_open and not (roles and all(may_see(r, Item.DEAL_IN_PLAY) for r in roles))
    if over and not held and all(may_see(r, Item.GAME) for r in roles):
        return LiveShare(seats, False)
    if roles and all(may_see(r, Item.LIVE_FULL) for r in roles):
        return LiveShare(seats, False)
    own = frozenset(s for s, r in enumerate(roles) if may_see(r, Item.LIVE_SEAT))
    if not all(may_see(r, Item.DELAYED_FULL) for r in elsewhere):
        return LiveShare(own, False, public=False)
    return LiveShare(own, not held and bool(roles) and all(may_see(r, Item.DELAYED_FULL) for r in roles))
