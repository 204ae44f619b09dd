"""The generated model classes, by name, handed in as they are created.

The generated models import their base classes (:mod:`chatschema._wire`), so the
base classes and what they build on cannot import the models back. Instead,
``WireModel.__pydantic_init_subclass__`` puts every class of ``chatschema_models``
here the moment it is defined. Code beneath the models that must build one (the
chunk arithmetic of :mod:`chatschema._chunks`) reads it from here: a chunk exists
only once ``chatschema_models.chunk`` ran, and by then it and every module it
imports (message, content, tool, usage) have handed their classes in.

Code above the models imports them, or reads :data:`chatschema._models.MODELS`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["GENERATED"]

GENERATED: dict[str, Any] = {}
"""Every generated class defined so far, by class name."""
