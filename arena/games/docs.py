"""A game's protocol.md section, written from its spec: players, mode, options, rules, and the
documented view and action schemas (`GameSpec.view_schema`, `action_schema`). The conformance check
"documented" holds every view to its schema's members, so the section cannot drift from the code."""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from arena.games.base import GameSpec

MODES = {
    "sequential": "one seat decides at each step",
    "simultaneous": "every deciding seat is asked at once, in secret; nobody sees the others' choices before all have answered",
    "mixed": "some steps ask one seat, others several at once, in secret",
}


def _type(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type", "any")
    kinds = kind if isinstance(kind, list) else [kind]
    text = " or ".join(str(k) for k in kinds)
    items = schema.get("items")
    if "array" in kinds and isinstance(items, Mapping) and "type" in items:
        text += f" of {_type(items)}"
    return text


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def member(kind: str | list[str], description: str, items: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One documented member of a schema: its JSON type(s), what it means, and an array's item schema."""
    out: dict[str, Any] = {"type": kind, "description": description}
    if items is not None:
        out["items"] = items
    return out


def object_schema(description: str, members: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """A view's schema: an object holding exactly `members`, every one always present."""
    return {"type": "object", "description": description, "properties": dict(members), "required": list(members)}


def protocol_section(spec: GameSpec, level: int = 2) -> str:
    """The section as Markdown, headed at `level` (`arena games --protocol NAME`)."""
    return f"{'#' * level} {spec.name}\n\n" + protocol_reference(spec)


def protocol_reference(spec: GameSpec) -> str:
    """The section without its heading: what a generated block of protocol.md holds."""
    lines = [f"Game name `{spec.name}` (version {spec.version}), {spec.min_seats} to {spec.max_seats} players, mode "
             f"`{spec.mode.value}`: {MODES[spec.mode.value]}. {spec.description}", ""]
    if spec.rules:
        lines += [spec.rules.strip(), ""]
    if spec.options:
        lines += ["**Options** (in `start.options`):", "", "| option | type | default | meaning |", "|---|---|---|---|"]
        for o in spec.options:
            bounds = "".join(f"; {k} {v}" for k, v in (("at least", o.minimum), ("at most", o.maximum)) if v is not None)
            lines.append(f"| `{o.name}` | {o.type.__name__}{bounds} | `{json.dumps(o.default)}` | {_cell(o.description)} |")
        lines.append("")
    if spec.action_schema is not None:
        lines += [f"**Action**: {_type(spec.action_schema)}. {spec.action_schema.get('description', '')}".rstrip(), ""]
    if spec.view_schema is not None:
        lines += [f"**View** (`request.view`): {spec.view_schema.get('description', '')}".rstrip(), "",
                  "| member | type | meaning |", "|---|---|---|"]
        for name, member in spec.view_schema.get("properties", {}).items():
            lines.append(f"| `{name}` | {_type(member)} | {_cell(member.get('description', ''))} |")
        lines.append("")
    lines.append(f"Each game ends within {spec.max_steps:,} steps" + (" with the default options." if spec.options else "."))
    return "\n".join(lines) + "\n"


# A generated block of a Markdown file: the marker names the game, `regenerate` rewrites what follows it.
BLOCK = re.compile(r"(<!-- generated: arena games --protocol (?P<name>[a-z0-9][a-z0-9-]*) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)


def regenerate(text: str, lookup: Callable[[str], GameSpec]) -> str:
    """`text` with every generated block rewritten from its game's spec (`lookup` finds it by name)."""
    return BLOCK.sub(lambda m: m.group(1) + protocol_reference(lookup(m.group("name"))) + m.group(4), text)


def generated_games(text: str) -> list[str]:
    """The games whose blocks `text` holds, in order."""
    return [m.group("name") for m in BLOCK.finditer(text)]


JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _mistyped(members: Mapping[str, Any], view: Mapping[str, Any]) -> list[str]:
    wrong = []
    for name, value in view.items():
        kind = members[name].get("type")
        kinds = kind if isinstance(kind, list) else [kind] if kind else []
        if kinds and not any(JSON_TYPES[k](value) for k in kinds):
            wrong.append(f"{name} ({type(value).__name__}, documented {' or '.join(kinds)})")
    return wrong


def undocumented(spec: GameSpec, view: Mapping[str, Any]) -> str | None:
    """What a view holds that its schema does not document, or lacks that the schema requires; None when it agrees."""
    schema = spec.view_schema
    if schema is None:
        return None
    members = schema.get("properties", {})
    extra = sorted(set(view) - set(members))
    if extra:
        return f"the view holds {extra}, which view_schema does not document"
    missing = sorted(set(schema.get("required", [])) - set(view))
    if missing:
        return f"the view lacks {missing}, which view_schema requires"
    bare = sorted(name for name, spec_member in members.items() if not spec_member.get("description"))
    if bare:
        return f"view_schema's members {bare} have no description"
    wrong = _mistyped(members, view)
    if wrong:
        return f"the view's members {wrong} are not of the type view_schema documents"
    return None
