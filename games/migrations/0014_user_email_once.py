from django.db import migrations


class Migration(migrations.Migration):
    """One account per e-mail address, whatever its capitals, held by the database: two
    sign-ups with the same address at once could both pass the form's check. Accounts
    without an address (the site's bots) are not concerned."""

    dependencies = [
        ("games", "0013_puzzle_ratings"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE UNIQUE INDEX games_user_email_once ON auth_user (LOWER(email)) "
            "WHERE email <> ''",
            reverse_sql="DROP INDEX games_user_email_once",
        ),
    ]
