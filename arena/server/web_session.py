"""Who is looking at a page: the sign-in cookie, CSRF tokens for the pages' writes, and the answer shell.

Signing in is the participant's token (or the organiser's admin token) typed into a form; the server
answers with a cookie holding it, `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
page sends it) and `Path=/`. The JSON API never reads this cookie, only `Authorization: Bearer`, so a
cross-site request can never act through the API. A page's own writes (forms, the upload) carry a CSRF
token, an HMAC of the session under a key only the server knows, and must say they come from the
server's own origin (`Origin`, else `Referer`; none or `null` is foreign). Signing in is such a write
too: the sign-in page sets a pre-session cookie and its form carries that cookie's HMAC, so another
site cannot sign a visitor in as someone else (login CSRF).
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
from arena.ladder.accounts import Participant
from arena.server.http import ApiError, state
from arena.web import page

COOKIE = "arena_session"
PRESIGN = "arena_signin"  # the sign-in form's pre-session cookie (its CSRF token is an HMAC of it)
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
    who = server.participant_by_token(token)
    return None if who is None else Viewer(token, who, False)


def _mac(request: Request, purpose: bytes, value: str) -> str:
    key = hashlib.sha256(b"arena-csrf\0" + state(request).admin_token.encode()).digest()
    return hmac.new(key, purpose + b"\0" + value.encode(), hashlib.sha256).hexdigest()


def csrf_token(request: Request, session: Viewer) -> str:
    """The CSRF token of a signed-in session's forms."""
    return _mac(request, b"session", session.token)


def signin_token(request: Request) -> tuple[str, str]:
    """(the pre-session cookie's value, the sign-in form's CSRF token): the cookie is made on the first
    visit to the sign-in page, before any session exists, so another site cannot sign a visitor in."""
    nonce = request.cookies.get(PRESIGN, "")
    if not nonce or len(nonce) > 100:
        nonce = secrets.token_urlsafe(24)
    return nonce, _mac(request, b"signin", nonce)


def same_origin(request: Request) -> None:
    """A write must say where it comes from (`Origin`, else `Referer`) and come from this server's own
    origin; none, `null` (a sandboxed frame, a redirect across sites) or another is refused."""
    said = request.headers.get("origin") or request.headers.get("referer") or ""
    there = urlsplit(said) if said != "null" else None
    own = (request.url.scheme, request.headers.get("host", ""))
    if there is None or (there.scheme, there.netloc) != own:
        raise ApiError(403, "a write to this server must come from its own pages (the browser said it came from "
                            f"{said[:80]!r}); open the page on this server and try again")


def check_signin(request: Request, sent: str | None) -> None:
    """The sign-in form's POST: from this server's own page, with the pre-session cookie's token."""
    same_origin(request)
    nonce = request.cookies.get(PRESIGN, "")
    if not nonce or not sent or not hmac.compare_digest(sent, _mac(request, b"signin", nonce)):
        raise ApiError(403, "the sign-in form is stale or not this server's: reload the sign-in page and try again")


def check_write(request: Request, session: Viewer | None, sent: str | None) -> Viewer:
    """A page's write: signed in, from this server's own pages, with the session's CSRF token."""
    if session is None:
        raise ApiError(401, "sign in first (your token, on the sign-in page)")
    same_origin(request)
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
