"""Who is looking at a page: the sign-in cookie, CSRF tokens for the pages' writes, and the answer shell.

Signing in is the participant's token (or the organiser's admin token) typed into a form; the server
answers with a cookie holding it, `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
page sends it) and `Path=/`. The JSON API never reads this cookie, only `Authorization: Bearer`, so a
cross-site request can never act through the API. A page's own writes (forms, the upload) carry a CSRF
token, an HMAC of the session under a key only the server knows, and must come from the server's own
origin when the browser says where they come from.
"""

from __future__ import annotations

import hashlib
import html
import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse

from arena.ladder import access
from arena.ladder.accounts import Participant, participant_by_token
from arena.server.http import ApiError, state
from arena.web import page

COOKIE = "arena_session"
FORM_BYTES = 16_384


@dataclass(frozen=True)
class Viewer:
    token: str
    participant: Participant | None
    admin: bool

    @property
    def name(self) -> str:
        return "organiser" if self.admin else self.participant.name if self.participant else ""


def access_viewer(session: Viewer | None) -> access.Viewer:
    """The page's visitor as the access rule knows viewers."""
    if session is None:
        return access.ANONYMOUS
    return access.ORGANISER if session.admin else access.Viewer(session.participant.id if session.participant else None)


def viewer(request: Request) -> Viewer | None:
    """The signed-in participant or organiser, None for an anonymous visitor (or a stale cookie)."""
    token = request.cookies.get(COOKIE, "")
    if not token or len(token) > 200:
        return None
    server = state(request)
    if server.is_admin(token):
        return Viewer(token, None, True)
    who = participant_by_token(server.db, token)
    return None if who is None else Viewer(token, who, False)


def csrf_token(request: Request, session: Viewer) -> str:
    key = hashlib.sha256(b"arena-csrf\0" + state(request).admin_token.encode()).digest()
    return hmac.new(key, session.token.encode(), hashlib.sha256).hexdigest()


def check_write(request: Request, session: Viewer | None, sent: str | None) -> Viewer:
    """A page's write: signed in, from this server's own pages, with the session's CSRF token."""
    if session is None:
        raise ApiError(401, "sign in first (your token, on the sign-in page)")
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin and origin != "null":
        there = urlsplit(origin)
        if there.netloc != request.headers.get("host", ""):
            raise ApiError(403, "a write to this server must come from its own pages")
    if not sent or not hmac.compare_digest(sent, csrf_token(request, session)):
        raise ApiError(403, "the form is stale or not this server's: reload the page and try again")
    return session


async def form(request: Request) -> dict[str, str]:
    """An urlencoded form body (small: these forms hold a token or a name)."""
    body = await request.body()
    if len(body) > FORM_BYTES:
        raise ApiError(413, "the form is too large")
    fields = parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True, max_num_fields=20)
    return {k: v[0] for k, v in fields.items()}


def html_page(title: str, body: str, status: int = 200, scripts: bool = True) -> HTMLResponse:
    """A page in the shared shell: the report's styles and the ladder's own, its script under this
    answer's nonce, and the same policy in the header as in the page."""
    nonce = secrets.token_urlsafe(16)
    head = page.styles(["base.css", "ladder.css"])
    text = page.shell(title, head, body + (page.scripts(["ladder.js"], nonce) if scripts else ""), page.server_csp(nonce))
    return HTMLResponse(text, status, headers=security_headers(nonce))


def security_headers(nonce: str) -> dict[str, str]:
    return {"Content-Security-Policy": page.server_csp(nonce) + "; frame-ancestors 'none'", "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin", "Cache-Control": "no-store"}


def is_page(request: Request) -> bool:
    """A request a person's browser makes for a page (an error then is a page too, not JSON)."""
    path = request.url.path
    return (request.method == "GET" and not path.startswith("/api/") and not path.endswith(".json")
            and path not in ("/events", "/leaderboard/table"))


def error_page(status: int, message: str) -> HTMLResponse:
    body = ('<header class="nav"><nav aria-label="pages"><a href="/">leaderboard</a></nav></header>'
            f'<main><h1>{status}</h1><p class="error" role="alert">{html.escape(message)}</p></main>')
    return html_page(f"{status}", body, status, scripts=False)
