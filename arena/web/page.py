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


def scripts(names: list[str]) -> str:
    return "\n".join(f"<script>\n{asset(n)}\n</script>" for n in names)


def shell(title: str, head: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
        "style-src 'unsafe-inline'; img-src data:\">\n"
        f"<title>{html.escape(title)}</title>\n{head}\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
