"""The platform's features around the match core: what a site for playing games offers
beside the matches themselves. Puzzles, the daily puzzle and challenges (``puzzles``);
leaderboards, rating charts, the home page and the matches to watch (``boards``, ``charts``,
``dashboard``, ``watching``); players among themselves: blocking, following, invitation
links, finding a name, a match's chat and reports to the staff (``blocks``, ``follows``,
``links``, ``search``, ``chat_rooms``, ``reports``); accounts: guests, confirmed addresses,
push devices, closing an account, exporting its data (``guests``, ``addresses``,
``push_devices``, ``closing``, ``export``); and what the site forgets with time
(``retention``). A feature that changes a match (a chat message, a puzzle challenge, an
account closed) does it through the match core's unit of work (``games.services.match``).
"""
