"""What is stored: matches (a solo game is a match with one seat), seats, moves, players,
push notifications, players among themselves (follows, blocks, invitation links), what is said
in matches, the pools of quick pairing, tournaments; one module each (matches, players,
pushes, social, chat, pools, tournaments).

A match is a game (``Match.game``, a slug of ``games.registry``) with its options and seed;
its whole state follows from those and its moves, each the text its game writes, in order.
Nothing here changes state by itself: the service functions in ``games.services`` do,
atomically.
"""

from games.models.chat import ChatBan, ChatMessage, ChatMute, Report
from games.models.matches import (
    ChallengeOffer,
    DailyResult,
    Match,
    MatchState,
    Move,
    Puzzle,
    Seat,
)
from games.models.players import (
    Heartbeat,
    Notification,
    PlayerStats,
    Profile,
    Rating,
    RatingChange,
    SoloBest,
)
from games.models.pools import PoolEntry
from games.models.pushes import PushMessage, PushSubscription
from games.models.social import Block, Follow, FollowNotice, InviteLink
from games.models.tournaments import Entry, SwissRound, Tournament

__all__ = [
    "Block",
    "ChallengeOffer",
    "ChatBan",
    "ChatMessage",
    "ChatMute",
    "DailyResult",
    "Entry",
    "Follow",
    "FollowNotice",
    "Heartbeat",
    "InviteLink",
    "Match",
    "MatchState",
    "Move",
    "Notification",
    "PlayerStats",
    "PoolEntry",
    "Profile",
    "PushMessage",
    "PushSubscription",
    "Puzzle",
    "Rating",
    "RatingChange",
    "Report",
    "Seat",
    "SoloBest",
    "SwissRound",
    "Tournament",
]
