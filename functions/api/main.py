"""API: notes, chat, search, conversations and health over HTTPS."""

import flask
import functions_framework

from footnote.config import get_settings
from footnote.entrypoints import handle_http

# Read the settings at start-up, not on the first request: unsafe settings (such as
# FIREBASE_AUTH_EMULATOR_HOST outside the emulator) stop the instance from starting.
get_settings().check_safe_to_serve()


@functions_framework.http
def api(request: flask.Request) -> flask.typing.ResponseReturnValue:
    return handle_http(request)
