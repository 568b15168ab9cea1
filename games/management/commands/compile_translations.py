"""Compile the site's translations with Babel (no GNU gettext needed): every ``django.po``
of ``LOCALE_PATHS`` and of the site's own apps (the game packages' included), each written
beside its place and then moved there, so that a process reading it meanwhile never reads
half of it."""

import os
import sys
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.apps import apps
from django.conf import settings
from django.core.management.base import BaseCommand


def catalogues() -> list[Path]:
    """Every catalogue of the site: its own locale folder's and each of its apps' (the apps
    that live in the site's folder; Django's and the libraries' come compiled)."""
    base, installed = Path(settings.BASE_DIR).resolve(), Path(sys.prefix).resolve()
    folders = [Path(folder) for folder in settings.LOCALE_PATHS]
    for config in apps.get_app_configs():
        path = Path(config.path).resolve()
        if path.is_relative_to(base) and not path.is_relative_to(installed):
            folders.append(path / "locale")
    found = []
    for folder in folders:
        found += sorted(folder.glob("*/LC_MESSAGES/django.po"))
    return found


class Command(BaseCommand):
    help = "Compile every translation of the site (django.po to django.mo) with Babel."

    def handle(self, *args, **options):
        for po in catalogues():
            language = po.parent.parent.name
            with po.open("rb") as source:
                catalogue = read_po(source, locale=language, domain="django")
            mo = po.with_suffix(".mo")
            written = mo.with_name(f"{mo.name}.{os.getpid()}")
            with written.open("wb") as target:
                write_mo(target, catalogue)
            written.replace(mo)
            if options["verbosity"] > 1:
                self.stdout.write(f"compiled {po}")
