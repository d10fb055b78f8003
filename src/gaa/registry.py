"""Named registries of plugin-provided items.

Every item is registered by a plugin under a short name and is known by its full name
``plugin/name``. Lookups accept the full name, or the short name when exactly one plugin
registered it. A clash names every plugin involved; an unknown name suggests the closest.

An item may be registered by where it lives (an :class:`ImportPath`,
``"package.module:attribute"``) instead of the object itself: it is imported the first time
it is looked up, so listing what is installed (``gaa plugins``, ``gaa personas``) imports
nothing that only running needs.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from gaa.errors import PluginError, RegistryError

T = TypeVar("T")

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")
IMPORT_PATH_PATTERN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


@dataclass(frozen=True)
class ImportPath:
    """An item named by where it lives, ``"package.module:attribute"``, imported on first use.

    ``arguments``, when given, are passed to the attribute (a factory) to make the item.
    ``check`` validates what was imported (the same check an item registered directly gets);
    ``owner`` says who registered it, for error messages.
    """

    path: str
    owner: str
    arguments: tuple[Any, ...] = ()
    check: Callable[[Any], None] | None = field(default=None, compare=False)

    def load(self) -> Any:
        module_name, _, attribute = self.path.partition(":")
        try:
            found: Any = importlib.import_module(module_name)
            for part in attribute.split("."):
                found = getattr(found, part)
        except Exception as exc:
            raise PluginError(
                f"{self.owner} as {self.path!r}, which cannot be imported: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        try:
            item = found(*self.arguments) if self.arguments else found
        except Exception as exc:
            raise PluginError(
                f"{self.owner} as {self.path!r} with arguments {self.arguments!r}, whose "
                f"factory failed: {type(exc).__name__}: {exc}"
            ) from exc
        if self.check is not None:
            self.check(item)
        return item


@dataclass(frozen=True)
class Registered(Generic[T]):
    """One registered item and where it came from."""

    name: str
    plugin: str
    item: T
    description: str = ""
    distribution: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.plugin}/{self.name}"


@dataclass
class Registry(Generic[T]):
    """Items of one kind (doctors, cases, ...) keyed by ``plugin/name``."""

    kind: str
    _entries: dict[str, Registered[T]] = field(default_factory=dict)

    def add(
        self,
        name: str,
        item: T,
        *,
        plugin: str,
        description: str = "",
        distribution: str | None = None,
    ) -> Registered[T]:
        """Register ``item``; a plugin registering the same name twice is an error."""
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise PluginError(
                f"Plugin '{plugin}' registered a {self.kind} with invalid name {name!r}: "
                "names are lowercase letters, digits, '_', '-' or '.', "
                "starting with a letter or digit"
            )
        entry = Registered(name, plugin, item, description, distribution)
        if entry.full_name in self._entries:
            raise PluginError(f"Plugin '{plugin}' registered the {self.kind} '{name}' twice")
        self._entries[entry.full_name] = entry
        return entry

    def get(self, name: str) -> Registered[T]:
        """Resolve a full ``plugin/name`` or a unique short name (importing an item registered
        by its :class:`ImportPath` the first time)."""
        entry = self._find(name)
        if isinstance(entry.item, ImportPath):
            entry = replace(entry, item=entry.item.load())
            self._entries[entry.full_name] = entry
        return entry

    def _find(self, name: str) -> Registered[T]:
        if name in self._entries:
            return self._entries[name]
        if "/" not in name:
            matches = [e for e in self._entries.values() if e.name == name]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                options = ", ".join(sorted(e.full_name for e in matches))
                plugins = " and ".join(sorted(e.plugin for e in matches))
                raise RegistryError(
                    f"The {self.kind} name '{name}' is registered by plugins {plugins}: "
                    f"use one of {options}"
                )
        raise RegistryError(self._unknown_message(name))

    def _unknown_message(self, name: str) -> str:
        candidates = sorted(set(self._entries) | {e.name for e in self._entries.values()})
        message = f"Unknown {self.kind} '{name}'."
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.5)
        if close:
            message += f" Did you mean '{close[0]}'?"
        if self._entries:
            message += f" Registered: {', '.join(sorted(self._entries))}."
        else:
            message += f" No {self.kind} is registered."
        return message

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self._find(name)
        except RegistryError:
            return False
        return True

    def __iter__(self) -> Iterator[Registered[T]]:
        """Every entry as registered: an item given by its import path is still an
        :class:`ImportPath` here (listing imports nothing); :meth:`get` gives it loaded."""
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def names(self) -> list[str]:
        """Full names in registration order."""
        return list(self._entries)
