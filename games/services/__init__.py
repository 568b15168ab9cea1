"""The only code that changes game state in the database, in two groups.

The match core (``games.services.match``): a match and the one way it changes.

- ``record``: a match with its game's state (``Record``), and replays from the moves;
- ``kept``: each match's state kept with it, read by one query, cached by each process;
- ``unit``: the unit of work, the one way a match changes (lock, read, change, write, then
  its events: ``bus``); ``writes``: the writes of a change, written together;
- ``bus``: the events a change records, handed to subscribers; ``subscribers``: all of the
  site's, in one place (notifications, e-mails, puzzle counts; live pages, ratings, bots);
- ``versions``: what each reader of a match sees (versions), told live after a change;
- ``matchview``: what views get of a match (data only), drafts and histories, the moves
  made as time ran out;
- ``visibility``: who may see a match, and when a puzzle's order is still a secret;
- ``commitments``: the kinds of move a player commits to before trying them;
- ``lobby``: creating matches and filling their seats, solo games;
- ``play``: looking at a match, moving (``play``), resigning, more time;
- ``deadlines``: who owes a move until when, expiry, the 80% reminder;
- ``finish``: the end of a match, ratings and profile figures;
- ``bot_seats``: bot accounts and their seats; ``bot_moves``: the task that makes their moves;
- ``prepared``: the reads every request makes, written as SQL once per process.

The platform's features (``games.services.features``), built on the core:

- ``puzzles``: puzzles, the daily puzzle and puzzle challenges;
- ``boards``: the leaderboards; ``charts``: a player's rating changes (reads only);
- ``dashboard``: the home page's lists; ``watching``: the matches others may watch, a
  player's current games (reads only);
- ``blocks``, ``follows``: blocking and following; ``links``: invitation links;
  ``search``: players by the beginning of their name (reads only);
- ``chat_rooms``: a match's chat, who reads and writes which room; ``reports``: reports to
  the staff, and what the staff does about them;
- ``guests``: visitors playing without an account, adopted on sign-up;
- ``addresses``: e-mail addresses confirmed by a signed link (sign-up, change of address);
- ``push_devices``: a player's push devices, and the pushes each change writes for them;
- ``closing``: closing an account; ``export``: everything kept about a player, for "Export
  my data" (reads only);
- ``retention``: what the site forgets with time, a batch at each sweep.

Every function that changes a match does it in the unit of work (``unit.change``), which locks
the match row first (one lock order, so no deadlocks), reads its kept state, and writes the
change and the new state together before handing its events on. Background work (ratings,
e-mails, pushes) claims its rows with a conditional update and does nothing when someone
else already did it. Views get ``MatchView``s, never a game's state. What the package itself
exports is the core's public functions, for the views and tasks.
"""

from games.services.match.deadlines import expire, expire_many, remind
from games.services.match.finish import (
    best_solo_game,
    figures_of,
    personal_best,
    rate_match,
    rate_puzzle_attempt,
    refresh_player_stats,
)
from games.services.match.kept import load
from games.services.match.lobby import (
    SPEEDS,
    TIME_CONTROLS,
    cancel,
    cancel_match,
    check_match_settings,
    create_match,
    decline,
    join,
    play_again,
    same_settings,
    speed_of,
    start_against_bot,
    start_realtime,
    start_solo,
)
from games.services.match.matchview import (
    MatchView,
    draft,
    history,
    solo_line,
    timed_out,
    version,
)
from games.services.match.play import (
    commit,
    extend,
    game_of,
    glances,
    open_match,
    owed_match_ids,
    play,
    resign,
    seen,
    set_prefs,
    touch,
    view_match,
    your_moves,
)
from games.services.match.record import MoveRefused, Record

__all__ = [
    "best_solo_game",
    "SPEEDS",
    "TIME_CONTROLS",
    "MatchView",
    "MoveRefused",
    "Record",
    "cancel",
    "cancel_match",
    "check_match_settings",
    "commit",
    "create_match",
    "decline",
    "draft",
    "expire",
    "expire_many",
    "extend",
    "game_of",
    "glances",
    "history",
    "join",
    "load",
    "open_match",
    "owed_match_ids",
    "personal_best",
    "play",
    "play_again",
    "same_settings",
    "rate_match",
    "rate_puzzle_attempt",
    "figures_of",
    "refresh_player_stats",
    "remind",
    "resign",
    "seen",
    "set_prefs",
    "solo_line",
    "start_against_bot",
    "speed_of",
    "start_realtime",
    "start_solo",
    "timed_out",
    "touch",
    "version",
    "view_match",
    "your_moves",
]
