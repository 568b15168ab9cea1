import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nmbr9site.settings")

app = Celery("nmbr9site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
