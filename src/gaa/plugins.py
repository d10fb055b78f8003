"""Plugin loading: built-ins first, then the ``gaa`` entry-point group, nothing else implicit.

The :class:`PluginHost` owns the pluggy manager and knows, for every registered plugin, its
name and the distribution it came from. :func:`catalogue` calls each plugin's hooks with a
``register`` callback bound to that plugin, so every item is validated on arrival and named
``plugin/name``. ``GAA_DISABLE_PLUGINS=a,b`` skips plugins by name.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pluggy

from gaa import hookspecs
from gaa.errors import PluginError
from gaa.models import MedicalCase
from gaa.registry import IMPORT_PATH_PATTERN, ImportPath, Registered, Registry

ENTRY_POINT_GROUP = "gaa"
DISABLE_ENV = "GAA_DISABLE_PLUGINS"

DEFAULT_PLUGINS: dict[str, str] = {
    "gaa._builtins.cases": "gaa",
    "gaa._builtins.teamwork": "gaa",
    "gaa._builtins.question_sets": "gaa",
    "gaa._builtins.doctors": "gaa",
    "gaa._builtins.reference_doctors": "reference",
}
"""Built-in plugin modules and the plugin name their items are registered under."""

RESERVED_NAMES = frozenset({"gaa", "reference"})


@dataclass(frozen=True)
class PluginInfo:
    """A loaded plugin: its name (the prefix of its items) and where it came from."""

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    builtin: bool = False

    @property
    def source(self) -> str:
        if self.builtin:
            return "built-in"
        if self.distribution:
            return f"{self.distribution} {self.version or ''}".strip()
        return self.module


@dataclass
class Catalogue:
    """Everything the loaded plugins registered, one registry per kind."""

    plugins: list[PluginInfo]
    doctors: Registry[Callable[..., Any]] = field(default_factory=lambda: Registry("doctor"))
    cases: Registry[MedicalCase] = field(default_factory=lambda: Registry("case"))
    teamwork_components: Registry[type] = field(
        default_factory=lambda: Registry("teamwork component")
    )
    question_sets: Registry[Callable[[], Any]] = field(
        default_factory=lambda: Registry("question set")
    )

    def case_by_code(self, code: str) -> Registered[MedicalCase] | None:
        """The case whose persona code is ``code`` (codes are unique), or ``None``."""
        return next((entry for entry in self.cases if entry.item.code == code), None)


def disabled_plugins() -> set[str]:
    """Plugin names listed in ``GAA_DISABLE_PLUGINS``."""
    return {name.strip() for name in os.environ.get(DISABLE_ENV, "").split(",") if name.strip()}


class PluginHost:
    """The pluggy manager plus what GAA knows about each registered plugin."""

    def __init__(self) -> None:
        self.manager = pluggy.PluginManager("gaa")
        self.manager.add_hookspecs(hookspecs)
        self._infos: dict[str, PluginInfo] = {}

    @property
    def plugins(self) -> list[PluginInfo]:
        return list(self._infos.values())

    def add(self, plugin: object, info: PluginInfo) -> None:
        """Register ``plugin``; an unknown or misspelled hook is an error naming it."""
        key = info.module if info.builtin else info.name
        if key in self._infos:
            other = self._infos[key]
            raise PluginError(
                f"Two plugins are named '{info.name}': {other.source} and {info.source}"
            )
        try:
            self.manager.register(plugin, name=key)
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            if self.manager.is_registered(plugin):
                self.manager.unregister(plugin)
            raise PluginError(
                f"Plugin '{info.name}' ({info.source}) is invalid: {exc}. "
                f"Known hooks: {', '.join(hookspecs.HOOK_NAMES)}"
            ) from None
        self._infos[key] = info

    def remove(self, name: str) -> None:
        plugin = self.manager.get_plugin(name)
        if plugin is not None:
            self.manager.unregister(plugin)
        self._infos.pop(name, None)

    def load_defaults(self, disabled: set[str]) -> None:
        for module_name, plugin_name in DEFAULT_PLUGINS.items():
            if plugin_name in disabled or module_name in disabled:
                continue
            module = importlib.import_module(module_name)
            self.add(module, PluginInfo(plugin_name, module_name, "gaa", _version("gaa"), True))

    def load_entry_points(self, disabled: set[str]) -> None:
        seen: dict[str, str] = {}
        for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
            name = entry_point.name
            distribution = entry_point.dist.name if entry_point.dist else None
            if name in disabled:
                continue
            if name in seen:
                if seen[name] == entry_point.value:
                    continue  # the same distribution found twice on sys.path
                raise PluginError(
                    f"Two plugins are named '{name}': {seen[name]} and {entry_point.value} "
                    f"(distribution {distribution}); uninstall one"
                )
            if name in RESERVED_NAMES:
                raise PluginError(
                    f"Plugin '{name}' (distribution {distribution}) uses a name reserved "
                    f"for GAA's built-ins ({', '.join(sorted(RESERVED_NAMES))})"
                )
            seen[name] = entry_point.value
            try:
                plugin = entry_point.load()
            except Exception as exc:
                raise PluginError(
                    f'Error importing plugin "{name}" from distribution {distribution} '
                    f"({entry_point.value}): {type(exc).__name__}: {exc}"
                ) from exc
            version = entry_point.dist.version if entry_point.dist else None
            self.add(plugin, PluginInfo(name, entry_point.value, distribution, version))

    def build_catalogue(self) -> Catalogue:
        """Call every plugin's hooks and collect what they register."""
        catalogue = Catalogue(plugins=self.plugins)
        for hook_name in hookspecs.HOOK_NAMES:
            hook = getattr(self.manager.hook, hook_name)
            for impl in hook.get_hookimpls():
                info = self._infos[impl.plugin_name]
                register = _REGISTER_FACTORIES[hook_name](catalogue, info)
                try:
                    impl.function(register=register)
                except PluginError:
                    raise
                except Exception as exc:
                    raise PluginError(
                        f"Plugin '{info.name}' ({info.source}) failed in {hook_name}: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
        return catalogue


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _named_register(
    registry: Registry[Any], info: PluginInfo, check: Callable[[str, Any], None]
) -> Callable[..., None]:
    def register(
        name: str, item: Any, description: str = "", arguments: tuple[Any, ...] = ()
    ) -> None:
        """``item`` is the object, or where it lives (``"package.module:attribute"``, imported
        on first use; ``arguments`` are then passed to that attribute to make the item)."""
        if isinstance(item, str):
            if not IMPORT_PATH_PATTERN.match(item):
                raise PluginError(
                    f"Plugin '{info.name}' registered {registry.kind} '{name}' as {item!r}: "
                    "a string must be an import path, 'package.module:attribute'"
                )
            owner = f"Plugin '{info.name}' registered {registry.kind} '{name}'"
            item = ImportPath(item, owner, tuple(arguments), functools.partial(check, name))
        else:
            if arguments:
                raise PluginError(
                    f"Plugin '{info.name}' registered {registry.kind} '{name}' with arguments "
                    "but no import path: arguments are passed to an item given by its path"
                )
            check(name, item)
        registry.add(
            name, item, plugin=info.name, description=description, distribution=info.distribution
        )

    return register


def _doctor_register(catalogue: Catalogue, info: PluginInfo) -> Callable[..., None]:
    def check(name: str, factory: Any) -> None:
        if not callable(factory):
            raise PluginError(
                f"Plugin '{info.name}' registered doctor '{name}' with {factory!r}, "
                "which is not a callable agent factory"
            )

    return _named_register(catalogue.doctors, info, check)


def _component_register(catalogue: Catalogue, info: PluginInfo) -> Callable[..., None]:
    def check(name: str, component: Any) -> None:
        if not isinstance(component, type):
            raise PluginError(
                f"Plugin '{info.name}' registered teamwork component '{name}' with "
                f"{component!r}, which is not a class"
            )

    return _named_register(catalogue.teamwork_components, info, check)


def _question_set_register(catalogue: Catalogue, info: PluginInfo) -> Callable[..., None]:
    def check(name: str, loader: Any) -> None:
        if not callable(loader):
            raise PluginError(
                f"Plugin '{info.name}' registered question set '{name}' with {loader!r}, "
                "which is not a callable loader"
            )

    return _named_register(catalogue.question_sets, info, check)


def _case_register(catalogue: Catalogue, info: PluginInfo) -> Callable[..., None]:
    def register(case: MedicalCase) -> None:
        if not isinstance(case, MedicalCase):
            raise PluginError(
                f"Plugin '{info.name}' registered {case!r} as a case; expected a "
                "gaa.MedicalCase (build one with gaa.load_case)"
            )
        clash = catalogue.case_by_code(case.code)
        if clash is not None:
            raise PluginError(
                f"Case code '{case.code}' is used by both {clash.full_name} (plugin "
                f"'{clash.plugin}') and {info.name}/{case.case_id} (plugin '{info.name}'); "
                "persona ids need a unique code per case"
            )
        catalogue.cases.add(
            case.case_id,
            case,
            plugin=info.name,
            description=case.title,
            distribution=info.distribution,
        )

    return register


_REGISTER_FACTORIES: dict[str, Callable[[Catalogue, PluginInfo], Callable[..., None]]] = {
    "register_doctors": _doctor_register,
    "register_cases": _case_register,
    "register_teamwork_components": _component_register,
    "register_question_sets": _question_set_register,
}

_host: PluginHost | None = None
_catalogue: Catalogue | None = None


def plugin_host() -> PluginHost:
    """The process-wide plugin host, loading built-ins and entry points on first use."""
    global _host
    if _host is None:
        disabled = disabled_plugins()
        host = PluginHost()
        host.load_defaults(disabled)
        host.load_entry_points(disabled)
        available = {ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
        available |= set(DEFAULT_PLUGINS) | set(DEFAULT_PLUGINS.values())
        for name in sorted(disabled - available):
            warnings.warn(
                f"{DISABLE_ENV} names '{name}', which is not an installed GAA plugin",
                stacklevel=2,
            )
        _host = host
    return _host


def catalogue() -> Catalogue:
    """Everything registered by the loaded plugins (built once, until :func:`reset`)."""
    global _catalogue
    if _catalogue is None:
        _catalogue = plugin_host().build_catalogue()
    return _catalogue


def reset(*, reload: bool = True) -> None:
    """Forget the catalogue; with ``reload`` also reload plugins (e.g. after changing the env)."""
    global _host, _catalogue
    _catalogue = None
    if reload:
        _host = None


@contextmanager
def registered(plugin: object, name: str, module: str | None = None) -> Iterator[None]:
    """Register ``plugin`` (a module or object with ``@gaa.hookimpl`` functions) for a block.

    The catalogue is rebuilt on entry and on exit, so the plugin's items are visible only inside
    the block. Its items are named ``<name>/<item>``.
    """
    host = plugin_host()
    host.add(plugin, PluginInfo(name=name, module=module or f"{type(plugin).__module__}:{name}"))
    reset(reload=False)
    try:
        yield
    finally:
        host.remove(name)
        reset(reload=False)
