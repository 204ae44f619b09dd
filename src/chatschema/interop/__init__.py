"""Interoperability with other Python message models.

Each submodule converts between chatschema's neutral messages and one framework's
own message objects, both ways, keeping what the other side has no field for:

- :mod:`chatschema.interop.langchain`: ``langchain_core`` messages (needs the
  optional dependency ``langchain-core``);
- :mod:`chatschema.interop.openhands`: the stored JSON of OpenHands SDK messages
  (``openhands.sdk.llm.message.Message.model_dump()``), without importing OpenHands.
- :mod:`chatschema.interop.mcp`: Model Context Protocol tool results, prompts,
  sampling messages and tools (JSON or ``mcp`` SDK objects), without importing ``mcp``.

Nothing is imported here: import the submodule you need.
"""
