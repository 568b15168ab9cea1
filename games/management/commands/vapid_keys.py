from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand
from py_vapid import Vapid
from py_vapid.utils import b64urlencode


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair for push notifications as the environment lines to set "
        "(VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY, VAPID_SUBJECT). Devices subscribed with an "
        "older pair get no more pushes until they subscribe again."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--subject",
            default="mailto:admin@example.org",
            help="the contact push services may write to (mailto: or https:)",
        )

    def handle(self, *args, subject: str, **options):
        vapid = Vapid()
        vapid.generate_keys()
        private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
        public = vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.stdout.write(f"VAPID_PUBLIC_KEY={b64urlencode(public)}")
        self.stdout.write(f"VAPID_PRIVATE_KEY={b64urlencode(private)}")
        self.stdout.write(f"VAPID_SUBJECT={subject}")
