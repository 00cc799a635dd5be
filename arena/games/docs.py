"""A game's protocol.md section, written from its spec: players, mode, options, rules, and the
documented view and action schemas (`GameSpec.view_schema`, `action_schema`). The conformance check
"documented" holds every view to its schema's members, so the section cannot drift from the code."""

from __future__ import annotations

from typing import Any, Mapping

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


def protocol_section(spec: GameSpec, level: int = 2) -> str:
    """The section as Markdown, headed at `level`."""
    head = "#" * level
    lines = [f"{head} {spec.name}", "",
             f"Game name `{spec.name}` (version {spec.version}), {spec.min_seats} to {spec.max_seats} players, mode "
             f"`{spec.mode.value}`: {MODES[spec.mode.value]}. {spec.description}", ""]
    if spec.rules:
        lines += [spec.rules.strip(), ""]
    if spec.options:
        lines += ["**Options** (in `start.options`):", "", "| option | type | default | meaning |", "|---|---|---|---|"]
        for o in spec.options:
            bounds = "".join(f"; {k} {v}" for k, v in (("at least", o.minimum), ("at most", o.maximum)) if v is not None)
            lines.append(f"| `{o.name}` | {o.type.__name__}{bounds} | `{o.default!r}` | {_cell(o.description)} |")
        lines.append("")
    if spec.action_schema is not None:
        lines += [f"**Action**: {_type(spec.action_schema)}. {spec.action_schema.get('description', '')}".rstrip(), ""]
    if spec.view_schema is not None:
        lines += [f"**View** (`request.view`): {spec.view_schema.get('description', '')}".rstrip(), "",
                  "| member | type | meaning |", "|---|---|---|"]
        for name, member in spec.view_schema.get("properties", {}).items():
            lines.append(f"| `{name}` | {_type(member)} | {_cell(member.get('description', ''))} |")
        lines.append("")
    lines.append(f"Each game ends within {spec.max_steps} steps.")
    return "\n".join(lines) + "\n"


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
    bare = sorted(name for name, member in members.items() if not member.get("description"))
    if bare:
        return f"view_schema's members {bare} have no description"
    return None
