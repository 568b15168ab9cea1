"""The match core: a match with its game's state, and the one way it changes. A match's
record and its kept state (``record``, ``kept``), the unit of work that changes it and writes
the change together (``unit``, ``writes``), the events a change records and their
subscribers (``bus``, ``subscribers``), what views get of it and who may see it
(``matchview``, ``visibility``), what each reader is told live (``versions``); and what is
done to a match: creating it and filling its seats (``lobby``), moves and what players commit
to (``play``, ``commitments``), deadlines (``deadlines``), its end (``finish``), the bots'
seats and moves (``bot_seats``, ``bot_moves``); the reads every request makes, prepared once
(``prepared``). The platform's features (``games.services.features``) build on it; it
consults two of them itself: a player's blocks when seats are filled (``blocks``), and the
pushes a change writes for a player's devices (``push_devices``).
"""
