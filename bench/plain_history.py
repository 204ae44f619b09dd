"""The common case: a plain agent history of short turns, no reasoning.

What most histories are made of (the mixed history of ``workloads.build_history`` is
the reasoning-rich one): a user request in a string, an assistant text with one tool
call, a tool result of a few lines, and now and then a user text with an image URL.
Seeded, standard library only, in chatschema's JSON form; every tool call is
answered and there are at most 100 images, so every codec accepts it.
"""

from __future__ import annotations

import random
from typing import Any

_WORDS = [
    "the",
    "file",
    "config",
    "build",
    "test",
    "error",
    "value",
    "list",
    "path",
    "user",
    "request",
    "server",
    "update",
    "function",
    "return",
    "module",
    "check",
    "result",
    "output",
    "read",
    "write",
    "line",
    "change",
    "fix",
    "run",
]


def _sentence(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + "."


def _lines(rng: random.Random, count: int) -> str:
    return "\n".join(_sentence(rng, 4, 12) for _ in range(count))


def build_plain_history(count: int, seed: int = 20_261_124) -> list[dict[str, Any]]:
    """A plain agent history of exactly ``count`` messages, in chatschema's JSON form.

    Episodes of: a user request (a string; one in 25 a text and an image URL), then
    one to three assistant turns of a short text and one tool call, each followed by
    its tool result (two to six lines), then a short final answer.
    """
    rng = random.Random(seed)
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are a coding agent."}]
    images = 0
    serial = 0
    while len(history) < count:
        serial += 1
        if images < 100 and rng.random() < 0.04:
            images += 1
            user: dict[str, Any] = {
                "role": "user",
                "content": [
                    {"type": "text", "text": _sentence(rng, 6, 20)},
                    {"type": "image", "url": f"https://example.com/shots/{serial}.png"},
                ],
            }
        else:
            user = {"role": "user", "content": _sentence(rng, 6, 30)}
        episode = [user]
        for turn in range(rng.randint(1, 3)):
            call_id = f"call_{serial}_{turn}"
            episode.append(
                {
                    "role": "assistant",
                    "content": _sentence(rng, 5, 15),
                    "tool_calls": [
                        {
                            "id": call_id,
                            "name": rng.choice(["read_file", "run", "search", "edit"]),
                            "arguments": {"path": f"src/{rng.choice(_WORDS)}.py", "line": turn},
                        }
                    ],
                }
            )
            episode.append(
                {"role": "tool", "tool_call_id": call_id, "content": _lines(rng, rng.randint(2, 6))}
            )
        episode.append({"role": "assistant", "content": _sentence(rng, 8, 25)})
        if len(history) + len(episode) > count:
            while len(history) < count:  # pad with plain exchanges
                history.append({"role": "user", "content": _sentence(rng, 6, 30)})
                if len(history) < count:
                    history.append({"role": "assistant", "content": _sentence(rng, 8, 25)})
            break
        history.extend(episode)
    return history
