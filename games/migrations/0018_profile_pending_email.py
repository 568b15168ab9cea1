from django.db import migrations, models


class Migration(migrations.Migration):
    """An e-mail address waits for confirmation beside the account's own (confirmed) one."""

    dependencies = [
        ("games", "0017_one_move_notification_per_match"),
    ]

    operations = [
        migrations.AddField(
            model_name="profile",
            name="pending_email",
            field=models.EmailField(
                blank=True,
                db_default="",
                default="",
                help_text="An address waiting for its owner to confirm it by the link sent there; "
                "the account's own address (the user's e-mail) is always a confirmed one.",
                max_length=254,
            ),
        ),
    ]
