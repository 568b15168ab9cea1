"""The site's views by concern: typed function views that parse the request, call a service
and render. Nothing here knows a game's rules: each game's web adapter (``games.web``) draws
its view and reads its forms."""
