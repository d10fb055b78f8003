from __future__ import annotations

import pytest

from gaa.errors import PluginError, RegistryError
from gaa.registry import Registry


def make_registry() -> Registry[str]:
    registry: Registry[str] = Registry("doctor")
    registry.add("exemplary", "E", plugin="reference")
    registry.add("pushy", "P1", plugin="reference")
    registry.add("pushy", "P2", plugin="acme")
    registry.add("careful", "C", plugin="acme", description="a careful doctor")
    return registry


def test_full_and_unique_short_names_resolve() -> None:
    registry = make_registry()
    assert registry.get("reference/exemplary").item == "E"
    assert registry.get("exemplary").item == "E"
    assert registry.get("acme/pushy").item == "P2"
    assert registry.get("careful").description == "a careful doctor"
    assert registry.get("careful").full_name == "acme/careful"


def test_short_name_clash_names_both_plugins() -> None:
    with pytest.raises(RegistryError) as error:
        make_registry().get("pushy")
    message = str(error.value)
    assert "acme" in message and "reference" in message
    assert "acme/pushy" in message and "reference/pushy" in message


def test_unknown_name_suggests_closest() -> None:
    with pytest.raises(RegistryError, match="Did you mean 'exemplary'"):
        make_registry().get("exemplery")
    with pytest.raises(RegistryError, match="Registered: acme/careful"):
        make_registry().get("nothing-like-it")


def test_same_plugin_registering_twice_is_an_error() -> None:
    registry = make_registry()
    with pytest.raises(PluginError, match="registered the doctor 'exemplary' twice"):
        registry.add("exemplary", "again", plugin="reference")


@pytest.mark.parametrize("bad", ["", "Upper", "has space", "a/b", "-lead"])
def test_invalid_names_are_rejected(bad: str) -> None:
    with pytest.raises(PluginError, match="invalid name"):
        Registry[str]("case").add(bad, "x", plugin="acme")


def test_membership_and_order() -> None:
    registry = make_registry()
    assert "careful" in registry and "reference/pushy" in registry
    assert "pushy" not in registry  # ambiguous short name does not resolve
    assert registry.names() == [
        "reference/exemplary",
        "reference/pushy",
        "acme/pushy",
        "acme/careful",
    ]
    assert len(registry) == 4
