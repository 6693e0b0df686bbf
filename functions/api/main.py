"""API: notes, chat, search, conversations and health over HTTPS."""

import flask
import functions_framework

from footnote.entrypoints import handle_http


@functions_framework.http
def api(request: flask.Request) -> flask.typing.ResponseReturnValue:
    return handle_http(request)
