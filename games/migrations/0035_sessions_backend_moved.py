"""A signed-in session names the backend that signed its player in by dotted path, and Django
signs out a session whose backend is no longer listed in AUTHENTICATION_BACKENDS. The site's
backend moved from games.backends to games.infra.backends: the sessions naming the old path
name the new one, so that no player is signed out by the move, nor a guest, who has no
password to sign in with again."""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import migrations
from django.utils import timezone

OLD, NEW = "games.backends.Accounts", "games.infra.backends.Accounts"
BATCH = 1000


def rename(apps, schema_editor, old: str, new: str) -> None:
    Session = apps.get_model("sessions", "Session")
    alias = schema_editor.connection.alias
    store = SessionStore()  # the site's store signs with the same salt (the class's name)
    live = Session.objects.using(alias).filter(expire_date__gt=timezone.now())
    changed = []
    for session in live.iterator(chunk_size=BATCH):
        data = store.decode(session.session_data)  # {} when unreadable: left as it is
        if data.get(BACKEND_SESSION_KEY) != old:
            continue
        data[BACKEND_SESSION_KEY] = new
        session.session_data = store.encode(data)
        changed.append(session)
        if len(changed) == BATCH:
            Session.objects.using(alias).bulk_update(changed, ["session_data"])
            changed = []
    Session.objects.using(alias).bulk_update(changed, ["session_data"])


def forwards(apps, schema_editor):
    rename(apps, schema_editor, OLD, NEW)


def backwards(apps, schema_editor):
    rename(apps, schema_editor, NEW, OLD)


class Migration(migrations.Migration):
    dependencies = [("games", "0034_count_profile_figures"), ("sessions", "0001_initial")]

    operations = [migrations.RunPython(forwards, backwards)]
