"""The import graph of ``chatschema``: no cycle, and no import that runs back up.

Every ``.py`` file under ``src/chatschema`` is read with :mod:`ast`. An import is
an edge wherever it stands - at module level or inside a function (a lazy import
runs too, just later) - except under ``if TYPE_CHECKING:``, which never runs.
``from package import name`` is an edge to the submodule ``package.name`` when
there is one, else to the package (its ``__init__``); relative imports are resolved
against the importing module's package. Importing ``a.b.c`` runs ``a`` and ``a.b``
first, but those implicit edges to parent packages are left out: they would make
every package's modules import each other through its ``__init__``. Imports by
name through :mod:`importlib` (the codec registry of :mod:`chatschema.providers`)
are not edges either: they are what keeps the upper layers out of the lower ones'
import.

The layers are declared below as data, lowest first: a module may import its own
layer and the layers beneath it, never one above. A module belongs to the layer of
the longest prefix that names it (``chatschema.providers`` holds every codec
module); the package ``chatschema`` itself (the lazy facade) is named exactly.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from chatschema.providers import PROVIDERS

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
PACKAGE = "chatschema"

LAYERS: list[tuple[str, list[str]]] = [
    (
        "helpers (no models, nothing above)",
        [
            "chatschema.errors",
            "chatschema.limits",
            "chatschema._arguments",
            "chatschema._detect",
            "chatschema._gc",
            "chatschema._generated",
            "chatschema._json",
            "chatschema._masking",
            "chatschema._partial_json",
            "chatschema._render",
            "chatschema._usage",
        ],
    ),
    ("chunk arithmetic (classes handed in)", ["chatschema._chunks"]),
    ("base classes of the generated models", ["chatschema._wire"]),
    ("generated models", ["chatschema_models"]),
    ("models by name, validation", ["chatschema._models", "chatschema.validation"]),
    (
        "utilities",
        [
            "chatschema._coerce",
            "chatschema.builders",
            "chatschema.history",
            "chatschema.rendering",
            "chatschema.streaming",
            "chatschema.tokens",
        ],
    ),
    (
        "codec plumbing",
        [
            "chatschema.providers._codec",
            "chatschema.providers._protocol",
            "chatschema.providers._common",
            "chatschema.providers._openai",
        ],
    ),
    ("codecs", ["chatschema.providers"]),
    (
        "interop, data sets, telemetry, the test double and the gateway",
        [
            "chatschema.interop",
            "chatschema.datasets",
            "chatschema.telemetry",
            "chatschema.testing",
            "chatschema.gateway",
        ],
    ),
    (
        "applications and the facade",
        ["chatschema.__main__", "chatschema.cli", "chatschema.demo", "chatschema"],
    ),
]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: ``if TYPE_CHECKING:`` bodies left out."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
        return
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        for statement in node.orelse:
            yield from _imports(statement)
        return
    for child in ast.iter_child_nodes(node):
        yield from _imports(child)


def imported_modules(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` (or their packages) that ``module``'s code imports."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.add(alias.name)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            found.add(submodule if submodule in known else base)
    # ``import a.b.c`` names a.b.c; keep the longest known module each name reaches.
    edges = set()
    for name in found:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            edges.add(name)
    return edges


def import_graph(source_root: Path = SOURCE, *, models: bool = False) -> dict[str, set[str]]:
    """``{module: modules it imports}`` over the chatschema modules under ``source_root``.

    With ``models``, imports of the generated models (``chatschema_models``, not
    read here: see the last test) are kept as edges to modules outside the graph.
    """
    files = sorted((source_root / PACKAGE).rglob("*.py"))
    names = {path: ".".join(path.relative_to(source_root).with_suffix("").parts) for path in files}
    known = {name.removesuffix(".__init__") for name in names.values()}
    if models:
        generated = ROOT / "generated" / "python" / "chatschema_models"
        known |= {f"chatschema_models.{path.stem}" for path in generated.glob("*.py")}
        known |= {"chatschema_models"}
    graph: dict[str, set[str]] = {}
    for path, dotted in names.items():
        module = dotted.removesuffix(".__init__")
        source = path.read_text(encoding="utf-8")
        edges = imported_modules(source, module, dotted.endswith(".__init__"), known)
        graph.setdefault(module, set()).update(edges)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[tuple[list[str], list[str]]]:
    """Each strongly connected component with a cycle (Tarjan): a cycle, every member."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [(_cycle_in(graph, component), sorted(component)) for component in components]


def _cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the first module of a strongly connected component."""
    start = min(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node] & component):
                if target == start:
                    return [*paths[node], start]
                if target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(component)}")  # pragma: no cover


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of the longest prefix naming ``module``."""
    best: tuple[int, int] | None = None
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if prefix == PACKAGE:
                matches = module == PACKAGE
            else:
                matches = module == prefix or module.startswith(prefix + ".")
            if matches and (best is None or len(prefix) > best[0]):
                best = (len(prefix), number)
    return None if best is None else best[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module by a module of a lower layer, as readable lines."""
    found = []
    for module in sorted(graph):
        here = layer_of(module)
        if here is None:
            continue  # test_every_module_has_a_layer names it
        for target in sorted(graph[module]):
            there = layer_of(target)
            if there is not None and there > here:
                found.append(f"{module} ({LAYERS[here][0]}) imports {target} ({LAYERS[there][0]})")
    return found


# --------------------------------------------------------------------------- tests


def test_every_module_has_a_layer() -> None:
    missing = [module for module in sorted(import_graph()) if layer_of(module) is None]
    assert not missing, f"declare the layer of {missing} in LAYERS"


def test_no_import_cycle() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles:\n" + "\n".join(
        f"{' -> '.join(cycle)} (all of {', '.join(members)} reach each other)"
        for cycle, members in cycles
    )


def test_no_layer_imports_a_higher_one() -> None:
    upward = upward_imports(import_graph(models=True))
    assert not upward, "imports that run back up:\n" + "\n".join(upward)


DERIVED = {
    ("chatschema.providers.mistral", "chatschema.providers.openai_chat"),
    ("chatschema.providers.open_responses", "chatschema.providers.openai_responses"),
}
"""A format that is another's wire object with its own rules builds on that codec."""


def test_no_codec_imports_another() -> None:
    # a format's package builds on the shared plumbing only (docs/adding-a-format.md)
    formats = {f"chatschema.providers.{name}" for name in PROVIDERS}

    def format_of(module: str) -> str | None:
        return next((f for f in formats if module == f or module.startswith(f + ".")), None)

    crossing = [
        f"{module} imports {target}"
        for module, targets in sorted(import_graph().items())
        for target in sorted(targets)
        if format_of(module)
        and format_of(target)
        and format_of(module) != format_of(target)
        and (format_of(module), format_of(target)) not in DERIVED
    ]
    assert not crossing, "\n".join(crossing)


def test_the_generated_models_import_only_their_bases() -> None:
    # The other half of the models' layer: from chatschema they take their base
    # classes, and the package (which they import first, for the order; it imports
    # nothing at import time).
    models = ROOT / "generated" / "python" / "chatschema_models"
    for path in sorted(models.glob("*.py")):
        module = f"chatschema_models.{path.stem}".removesuffix(".__init__")
        known = {"chatschema", "chatschema._wire"}
        edges = imported_modules(
            path.read_text(encoding="utf-8"), module, path.stem == "__init__", known
        )
        assert edges <= known, (path.name, edges)


# ------------------------------------------------------------- the checker itself


def test_the_reader_sees_lazy_and_relative_imports_and_skips_type_checking() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import low\n"
        "from .sub import thing\n"
        "if TYPE_CHECKING:\n"
        "    from pkg import high\n"
        "else:\n"
        "    import pkg.other\n"
        "def later():\n"
        "    from pkg.high import name\n"
    )
    known = {"pkg", "pkg.low", "pkg.sub", "pkg.high", "pkg.other", "pkg.mod"}
    edges = imported_modules(source, "pkg.mod", False, known)
    assert edges == {"pkg.low", "pkg.sub", "pkg.high", "pkg.other"}


def test_the_checks_catch_a_cycle_and_an_upward_import() -> None:
    graph = {
        "chatschema._wire": {"chatschema.history"},
        "chatschema.history": {"chatschema.validation"},
        "chatschema.validation": {"chatschema._wire"},
    }
    cycle = ["chatschema._wire", "chatschema.history", "chatschema.validation", "chatschema._wire"]
    assert find_cycles(graph) == [(cycle, sorted(graph))]
    assert upward_imports(graph) == [
        "chatschema._wire (base classes of the generated models) imports chatschema.history"
        " (utilities)"
    ]


@pytest.mark.parametrize("module", ["chatschema", "chatschema.providers._common.reader"])
def test_layers_by_longest_prefix(module: str) -> None:
    names = [name for name, prefixes in LAYERS if any(module.startswith(p) for p in prefixes)]
    layer = layer_of(module)
    assert layer is not None and LAYERS[layer][0] in names
