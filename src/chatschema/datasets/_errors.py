"""The exceptions of :mod:`chatschema.datasets`."""

from __future__ import annotations

from chatschema.errors import ChatSchemaError

__all__ = ["DatasetError", "FormatWarning", "MissingExtraError"]


class DatasetError(ChatSchemaError, ValueError):
    """A dataset or batch that cannot be processed at all.

    A missing column, an unreadable file; not one bad row: those are reported in the
    row's ``problems``.
    """


class MissingExtraError(ChatSchemaError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class FormatWarning(UserWarning):
    """A given format that the dataset's rows contradict (they look like another one)."""
