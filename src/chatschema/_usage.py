"""Usage arithmetic: ``usage + usage``, :func:`add_usage`.

A low-level module: it imports no models. The classes come with the values
(``type(left)``, ``type(details)``), so the base class ``UsageBase`` can add usages
without reaching up into the generated models that import it, and
:mod:`chatschema.history` re-exports :func:`add_usage` under its public name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatschema_models.usage import Usage

__all__ = ["add_usage"]


def _details(left: Any, right: Any) -> Any:
    """Two token-detail objects added key by key (absent counts as 0)."""
    if left is None or right is None:
        return left if right is None else right
    first, second = left.model_dump(exclude_none=True), right.model_dump(exclude_none=True)
    return type(left)(**{key: first.get(key, 0) + second.get(key, 0) for key in first | second})


def add_usage(left: Usage, right: Usage) -> Usage:
    """The sum of two usages; details are added key by key (absent counts as 0)."""
    fields: dict[str, Any] = {
        "input_tokens": left.input_tokens + right.input_tokens,
        "output_tokens": left.output_tokens + right.output_tokens,
        "total_tokens": left.total_tokens + right.total_tokens,
    }
    inputs = _details(left.input_token_details, right.input_token_details)
    outputs = _details(left.output_token_details, right.output_token_details)
    if inputs is not None:
        fields["input_token_details"] = inputs
    if outputs is not None:
        fields["output_token_details"] = outputs
    return type(left)(**fields)
