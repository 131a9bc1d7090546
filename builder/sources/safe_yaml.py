"""YAML from upstream, read so that a small file cannot become a large object.

Safe loading alone is not enough: an "alias bomb" (a few anchors, each a list of aliases
to the previous one) is valid YAML of a few hundred bytes that expands to billions of
nodes. ``NoAliasLoader`` is PyYAML's safe loader that refuses any alias (``*name``), so the
loaded object is never larger than the text; and ``load_yaml`` refuses a text over
``MAX_YAML_BYTES`` before the parser sees it (pure-Python YAML parsing costs tens of bytes
of memory per byte of text). Upstream YAML (Aider's leaderboard) uses neither.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_YAML_BYTES = 16 * 1024 * 1024
"YAML payloads larger than this many bytes are refused unparsed."


class NoAliasLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that raises ``yaml.YAMLError`` at the first alias."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"YAML aliases (*{event.anchor}) are not allowed in upstream payloads", event.start_mark
            )
        return super().compose_node(parent, index)


def check_yaml_size(data: bytes, name: str, max_bytes: int = MAX_YAML_BYTES) -> None:
    """Raise ValueError when ``data`` is over the YAML size cap."""
    if len(data) > max_bytes:
        raise ValueError(f"{name}: {len(data)} bytes of YAML is over the cap of {max_bytes} bytes; not parsed")
