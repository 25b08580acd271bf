"""next_slot requests for the same profiles take one turn on their locks together (PostgreSQL).

Each next_slot request on PostgreSQL holds its profiles' locks from its read of their taken slots
to its commit (core/posts/slot_assignment.py), so the requests of one queue run one at a time. Under
load most of a hold is the request waiting for its core's event loop between its two round
trips, not work: one queue then stopped near one request per ~7 ms whatever the machine could
do. So within one core process, the requests that arrive for the same profiles while one of
them (the leader) waits for or holds the locks join its turn:

1. The leader reads the taken slots under the locks, gives its own posts the first free slot of
   each profile and each joined request the next ones, in the order they joined.
2. It writes the joined requests' slots as holds (slot_holds), with its own posts, in the
   transaction it commits: every later search sees them taken.
3. Once committed it hands each joined request its slots; those write their posts without the
   locks, deleting their holds in the same transaction (a search sees the hold or the post).

A joined request whose leader gave it nothing (an error, a lost connection, no free slot left, a
canceled call) takes a turn of its own, as if it had not joined. A hold whose request died before
committing its posts keeps its slot until it expires (HOLD_TTL, far beyond the facade's deadline
for a call) and housekeeping deletes it. SQLite needs none of this: its write transaction
serializes the requests, and they find their slots as they go.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import bindparam, delete
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.models import slot_holds
from core.db.prepared import Prepared
from core.ids import new_id
from core.metrics import NEXT_SLOT_TURNS
from core.posts import slot_assignment

# How long a slot stays held for a request that never committed its posts.
HOLD_TTL = timedelta(minutes=10)

# A hold is written only on a slot the search found free: a conflict is an expired hold.
_HOLD = insert(slot_holds)
_INSERT_HOLDS = Prepared(
    _HOLD.on_conflict_do_update(
        index_elements=[slot_holds.c.profile_id, slot_holds.c.minute],
        set_={"token": _HOLD.excluded.token, "expires_at": _HOLD.excluded.expires_at},
    ),
    columns=["profile_id", "minute", "token", "expires_at"],
)
_RELEASE = Prepared(delete(slot_holds).where(slot_holds.c.token == bindparam("token")))


class _NothingGiven(Exception):
    """The leader's turn gave this request no slots: it takes a turn of its own."""


@dataclass(slots=True)
class _Joined:
    """A request waiting for a leader's turn."""

    now: datetime
    future: asyncio.Future[dict[str, datetime]]
    token: str = field(default_factory=lambda: new_id("hld"))


@dataclass(slots=True)
class _Turn:
    joined: list[_Joined] = field(default_factory=list)


# The turns taking joiners, by their sorted profile ids (one core process, one event loop).
_OPEN: dict[tuple[str, ...], _Turn] = {}


@dataclass(slots=True)
class Slots:
    """The slots of one request's posts (by profile id), and what its transaction writes with them."""

    given: dict[str, datetime]
    # Joined: the token of the holds its posts replace.
    token: str = ""
    # Leader: the holds of the requests that joined its turn, and their slots, handed over once
    # it committed (`settle`).
    holds: list[dict] = field(default_factory=list)
    handoff: list[tuple[_Joined, dict[str, datetime] | None]] = field(default_factory=list)

    async def write(self, conn: AsyncConnection) -> None:
        """In the request's transaction, with its posts."""
        if self.token:
            await _RELEASE.run(conn, {"token": self.token})
        if self.holds:
            await _INSERT_HOLDS.many(conn, self.holds)

    def settle(self, committed: bool) -> None:
        """Leader: hands the joined requests their slots once its transaction committed (else
        they take their own turns). Must be called whatever happened after `take`."""
        for joined, given in self.handoff:
            if joined.future.done():  # its call was canceled: its hold expires
                continue
            if committed and given is not None:
                joined.future.set_result(given)
            else:
                joined.future.set_exception(_NothingGiven())
        self.handoff = []


async def take(conn: AsyncConnection, profile_ids: list[str], now: datetime, *, lead: bool) -> Slots:
    """The next free slot after `now` of each profile (PostgreSQL). `lead`: the caller commits
    its transaction right after its writes (create_posts' `ends_transaction`), so others may join
    its turn; otherwise it only joins one, or takes its turn alone."""
    key = tuple(sorted(profile_ids))
    turn = _OPEN.get(key)
    if turn is not None:
        joined = _Joined(now, asyncio.get_running_loop().create_future())
        turn.joined.append(joined)
        try:
            given = await joined.future
            NEXT_SLOT_TURNS.labels("joined").inc()
            return Slots(given, token=joined.token)
        except _NothingGiven:
            pass
    if turn is not None or not lead:
        NEXT_SLOT_TURNS.labels("alone").inc()
        return Slots(await slot_assignment.next_slots(conn, profile_ids, now))
    NEXT_SLOT_TURNS.labels("led").inc()
    turn = _OPEN[key] = _Turn()
    try:
        states, taken, held = await slot_assignment.locked_state(conn, profile_ids, now)
    except BaseException:
        _close(key, turn)
        _give_nothing(turn.joined)
        raise
    _close(key, turn)  # from here a request for these profiles leads the next turn
    joined = [j for j in turn.joined if not j.future.done()]
    try:
        latest = max([now, *(j.now for j in joined)])  # every slot after every request's now
        free = await slot_assignment.assign(
            conn, states, slot_assignment.starts(states, latest), taken, held, latest, count=1 + len(joined)
        )
    except BaseException:
        _give_nothing(joined)
        raise
    slots = Slots({profile_id: at[0] for profile_id, at in free.items()})
    expires = now + HOLD_TTL
    for i, waiting in enumerate(joined, start=1):
        if any(len(at) <= i for at in free.values()):
            slots.handoff.append((waiting, None))  # no free slot left for it here
            continue
        given = {profile_id: at[i] for profile_id, at in free.items()}
        slots.handoff.append((waiting, given))
        slots.holds += [
            {
                "profile_id": profile_id,
                "minute": slot_assignment.epoch_minute(at),
                "token": waiting.token,
                "expires_at": expires,
            }
            for profile_id, at in given.items()
        ]
    return slots


def _close(key: tuple[str, ...], turn: _Turn) -> None:
    if _OPEN.get(key) is turn:
        del _OPEN[key]


def _give_nothing(joined: list[_Joined]) -> None:
    for waiting in joined:
        if not waiting.future.done():
            waiting.future.set_exception(_NothingGiven())


async def purge_expired(conn: AsyncConnection, now: datetime) -> int:
    """Housekeeping: the holds of requests that died before committing their posts."""
    result = await conn.execute(delete(slot_holds).where(slot_holds.c.expires_at < now))
    return result.rowcount or 0
