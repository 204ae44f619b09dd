"""The generated models, by name, for code that looks them up by name.

Imports the generated modules one by one rather than the ``chatschema_models``
package: that package imports ``chatschema`` first (its models' bases live here), so
at this point it may still be initializing.
"""

from __future__ import annotations

from typing import Any

from chatschema_models import chunk, content, conversation, message, tool, usage

__all__ = ["MODELS"]

MODELS: dict[str, Any] = {
    name: getattr(module, name)
    for module in (content, tool, usage, message, chunk, conversation)
    for name in module.__all__
}
"""Every generated class and type alias, by name."""
