"""Optional dependencies, imported on first use with an error naming the extra."""

from __future__ import annotations

import importlib
from types import ModuleType

from chatschema.datasets._errors import MissingExtraError

__all__ = ["optional", "pyarrow", "ray"]


def optional(module: str, extra: str, purpose: str) -> ModuleType:
    """Import an optional dependency, or raise :class:`MissingExtraError` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingExtraError(
            f"{purpose} needs {module.split('.')[0]}, which is not installed: "
            f"pip install 'chatschema[{extra}]' ({error})"
        ) from None


def pyarrow() -> ModuleType:
    """The ``pyarrow`` module (extra ``parquet``)."""
    return optional("pyarrow", "parquet", "Arrow batches and Parquet files")


def ray() -> ModuleType:
    """The ``ray`` module with Ray Data loaded (extra ``ray``)."""
    module = optional("ray", "ray", "the Ray engine")
    optional("ray.data", "ray", "the Ray engine")
    return module
