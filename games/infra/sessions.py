"""Sessions kept in the database alone (``SESSION_ENGINE``), read with one SQL statement.

Every request of a signed-in player reads its session. Django's database store reads it
through the ORM, which compiles the query anew each time: about half a millisecond of CPU
on every request. This store runs the same SELECT, written once; everything else (writing,
expiry, logout) is Django's. A copy in the cache is not kept: the cache's errors are
ignored, so a logout made while Redis is away would have left the copy there, and the old
cookie would have signed the player in again.
"""

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        key = self.session_key
        if key is None:  # nothing to read
            return None
        model = self.model
        alias = router.db_for_read(model)
        connection = connections[alias]
        table = connection.ops.quote_name(model._meta.db_table)
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                [key, now],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return model(session_key=key, session_data=row[0])
