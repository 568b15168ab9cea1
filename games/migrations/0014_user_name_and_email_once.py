from django.db import migrations


class Migration(migrations.Migration):
    """One account per name and per e-mail address, whatever their capitals, held by the
    database: two sign-ups at once could both pass the form's checks (and the name's own
    unique index minds capitals). Accounts without an address (the site's bots) are not
    concerned by the second."""

    dependencies = [
        ("games", "0013_puzzle_ratings"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX games_user_email_once ON auth_user (LOWER(email)) "
            "WHERE email <> ''",
            reverse_sql="DROP INDEX games_user_email_once",
        ),
        migrations.RunSQL(
            "CREATE UNIQUE INDEX games_user_name_once ON auth_user (LOWER(username))",
            reverse_sql="DROP INDEX games_user_name_once",
        ),
    ]
