"""Firebase Auth's admin side for account deletion (firebase-admin; the Auth emulator
locally): look a user up, end their sessions (disabled, refresh tokens revoked),
delete them."""

from __future__ import annotations

import contextlib

from footnote.adapters.firebase_app import FirebaseAppUser
from footnote.ports import AuthUser


class FirebaseAccountAuth(FirebaseAppUser):
    def user(self, uid: str) -> AuthUser | None:
        from firebase_admin import auth

        try:
            record = auth.get_user(uid, app=self._get_app())
        except auth.UserNotFoundError:
            return None
        return AuthUser(record.uid, record.email)

    def revoke(self, uid: str) -> None:
        from firebase_admin import auth

        with contextlib.suppress(auth.UserNotFoundError):  # already deleted: nothing to revoke
            auth.update_user(uid, disabled=True, app=self._get_app())  # no new sign-in
            auth.revoke_refresh_tokens(uid, app=self._get_app())

    def delete(self, uid: str) -> None:
        from firebase_admin import auth

        with contextlib.suppress(auth.UserNotFoundError):  # a replayed step: already gone
            auth.delete_user(uid, app=self._get_app())
