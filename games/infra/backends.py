"""Signing in: Django's accounts, with the read of the user that every signed-in request
makes prepared once (``games.services.match.prepared``): Django compiling that read took longer
than the database took to answer it."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied, ValidationError

from games.services.match.prepared import Prepared

User = get_user_model()
_user = Prepared(User, User._meta.pk.name)


class Accounts(ModelBackend):
    """``ModelBackend``, reading the signed-in user with a prepared read.

    A wrong password (or an unknown or inactive account) stops here: the backend listed
    after this one is the same check, kept only for the sessions that name it, and would
    otherwise hash the wrong password a second time."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None and password is not None:
            raise PermissionDenied
        return user

    def get_user(self, user_id):
        try:
            pk = User._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        found = _user(pk)
        if not found:
            return None
        return found[0] if self.user_can_authenticate(found[0]) else None
