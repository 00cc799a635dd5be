"""Shared pieces of every page: packaged assets, data embedded safely, the HTML shell."""

from __future__ import annotations

import base64
import gzip
import html
import re
from importlib import resources
from pathlib import Path

from arena.jsonvalue import JSON, dumps, dumps_str, loads

DATA_ID = "arena-data"


def asset(name: str) -> str:
    """The text of a file shipped in arena/web/assets."""
    return resources.files("arena.web").joinpath("assets", name).read_text(encoding="utf-8")


def embed_json(value: JSON) -> str:
    """JSON safe inside a <script> element: no `<` at all (so no `</script>` or `<!--`), parsed by JSON.parse."""
    text = dumps_str(value)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def data_script(value: JSON, compress: bool = False) -> str:
    """The page's data as JSON, or (`compress`) gzip in base64, which the page inflates with the
    browser's DecompressionStream (viewer.js): a replay's frames shrink about twentyfold."""
    if not compress:
        return f'<script type="application/json" id="{DATA_ID}">{embed_json(value)}</script>'
    packed = base64.b64encode(gzip.compress(dumps(value), compresslevel=6, mtime=0)).decode("ascii")
    return f'<script type="application/octet-stream" id="{DATA_ID}" data-encoding="gzip-base64">{packed}</script>'


def read_data(page_text: str) -> JSON:
    """The data a page embeds (`data_script`), decoded as the page decodes it."""
    found = re.search(rf'<script type="[^"]+" id="{DATA_ID}"( data-encoding="gzip-base64")?>(.*?)</script>', page_text, re.S)
    if found is None:
        raise ValueError("no embedded data in this page")
    if found.group(1):
        return loads(gzip.decompress(base64.b64decode(found.group(2))))
    return loads(found.group(2))


def write_assets(folder: Path, names: list[str]) -> None:
    """Write the named assets into `folder` once, for pages that link them (`linked_styles`, `linked_scripts`)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        target = folder / name
        text = asset(name)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def linked_styles(names: list[str], base: str) -> str:
    return "\n".join(f'<link rel="stylesheet" href="{html.escape(base)}/{n}">' for n in names)


def linked_scripts(names: list[str], base: str) -> str:
    return "\n".join(f'<script src="{html.escape(base)}/{n}"></script>' for n in names)


def styles(names: list[str]) -> str:
    return "\n".join(f"<style>\n{asset(n)}\n</style>" for n in names)


def scripts(names: list[str], nonce: str | None = None) -> str:
    return "\n".join(inline_script(asset(n), nonce) for n in names)


def inline_script(code: str, nonce: str | None = None) -> str:
    """A script inline; a `</script` inside it (in a string, say) cannot end the element early."""
    attr = f' nonce="{html.escape(nonce)}"' if nonce else ""
    safe = re.sub(r"</(script)", r"<\\/\1", code, flags=re.I)
    return f"<script{attr}>\n{safe}\n</script>"


# Files opened from disk: nothing loads from anywhere, the page's own inline script and style run.
FILE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
# The same, for a page that also loads scripts and styles from files beside it (a report's viewer pages).
LINKED_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src data:"


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
