"""Shared pieces of every page: packaged assets, data embedded safely, the HTML shell."""

from __future__ import annotations

import html
from importlib import resources

from arena.jsonvalue import JSON, dumps_str

DATA_ID = "arena-data"


def asset(name: str) -> str:
    """The text of a file shipped in arena/web/assets."""
    return resources.files("arena.web").joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(value: JSON) -> str:
    """JSON safe inside a <script> element: no `<` at all (so no `</script>` or `<!--`), parsed by JSON.parse."""
    text = dumps_str(value)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def data_script(value: JSON) -> str:
    return f'<script type="application/json" id="{DATA_ID}">{embed_json(value)}</script>'


def styles(names: list[str]) -> str:
    return "\n".join(f"<style>\n{asset(n)}\n</style>" for n in names)


def scripts(names: list[str], nonce: str | None = None) -> str:
    attr = f' nonce="{html.escape(nonce)}"' if nonce else ""
    return "\n".join(f"<script{attr}>\n{asset(n)}\n</script>" for n in names)


# Files opened from disk: nothing loads from anywhere, the page's own inline script and style run.
FILE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"


def server_csp(nonce: str) -> str:
    """The same policy for a page `arena serve` sends, with two differences: only the scripts carrying
    this answer's nonce run (a script injected by hostile text would not, even if escaping failed), and
    the page may talk to its own server (live updates, uploads) and post forms to it. Nothing else.
    (The HTTP header adds frame-ancestors 'none', which a <meta> policy cannot carry.)"""
    return (f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; img-src data:; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'")


def shell(title: str, head: str, body: str, csp: str = FILE_CSP) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{html.escape(csp)}\">\n"
        f"<title>{html.escape(title)}</title>\n{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
