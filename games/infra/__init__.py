"""Infrastructure: how the site runs, apart from what it does. Sending tasks after commit
(``queue``) and finding due work from the database (``sweep``); live streams and who has a
match open (``events``, ``streams``, ``presence``); sending e-mails and push notifications
(``notifications``, ``webpush``); rate limits, middleware, signing in and sessions
(``limits``, ``middleware``, ``backends``, ``sessions``); health probes and metrics
(``health``, ``metrics``); a game's state kept as bytes (``pickled``). None of it knows a
game's rules: the match core and the features (``games.services``) and the views use it.
"""
