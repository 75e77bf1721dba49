"""Which requests come from the server's own pages: the ``Origin`` a browser sends with a
write (``POST``) and with a WebSocket's handshake must name the host the request was sent
to. A page of another site could otherwise start sessions with a form or a no-cors fetch,
or open a WebSocket with a link it learnt. Programs that are not browsers (``lore join``,
scripts) send no ``Origin`` and are let through: the check is a browser's defence, the
tokens are the server's.
"""

from __future__ import annotations

from urllib.parse import urlsplit


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a request with these ``Origin`` and ``Host`` headers may write: no
    ``Origin`` (not a browser), or one whose host and port are the ``Host`` asked."""
    if origin is None:
        return True
    if host is None or origin == "null":  # (a sandboxed frame, a file page)
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return False
    default = {"http": ":80", "https": ":443"}[parts.scheme]
    return _with_port(parts.netloc.lower(), default) == _with_port(host.lower(), default)


def _with_port(netloc: str, default: str) -> str:
    bracketed = netloc.rfind("]")
    return netloc if netloc.rfind(":") > bracketed else netloc + default
