from __future__ import annotations

import textwrap
import types
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import gaa
from gaa import plugins
from gaa._resources import prompts_dir
from gaa.errors import PluginError, RegistryError
from gaa.testing import plugin_registered


def _case(case_id: str, code: str) -> gaa.MedicalCase:
    base = gaa.load_case(prompts_dir() / "cases" / "pneumothorax.yaml")
    return base.model_copy(update={"case_id": case_id, "code": code})


class ThrowawayPlugin:
    @gaa.hookimpl
    def register_doctors(self, register: Callable[..., None]) -> None:
        register("echo", lambda: None, description="repeats the patient")

    @gaa.hookimpl
    def register_teamwork_components(self, register: Callable[..., None]) -> None:
        register("coin_flip", type("CoinFlip", (), {}))

    @gaa.hookimpl
    def register_question_sets(self, register: Callable[..., None]) -> None:
        register("tiny", lambda: [])


def test_builtin_cases_are_registered_by_the_gaa_plugin() -> None:
    catalogue = plugins.catalogue()
    assert {"gaa/pneumothorax", "gaa/lung_cancer"} <= set(catalogue.cases.names())
    entry = catalogue.cases.get("pneumothorax")
    assert entry.plugin == "gaa" and entry.item.code == "PNEUMO"
    assert catalogue.cases.get("lung_cancer").item.code == "LUNG"
    builtin = [info for info in catalogue.plugins if info.builtin]
    assert {info.name for info in builtin} == {"gaa", "reference"}
    assert {info.module for info in builtin} == set(plugins.DEFAULT_PLUGINS)


def test_throwaway_plugin_items_are_registered_only_while_it_is() -> None:
    with plugin_registered(ThrowawayPlugin(), name="throwaway"):
        catalogue = plugins.catalogue()
        doctor = catalogue.doctors.get("echo")
        assert doctor.full_name == "throwaway/echo"
        assert doctor.description == "repeats the patient"
        assert catalogue.teamwork_components.get("coin_flip").plugin == "throwaway"
        assert catalogue.question_sets.get("throwaway/tiny").item() == []
    catalogue = plugins.catalogue()
    with pytest.raises(RegistryError, match="Unknown doctor 'echo'"):
        catalogue.doctors.get("echo")


def test_same_case_id_from_two_plugins_needs_the_full_name() -> None:
    first = types.SimpleNamespace(
        register_cases=gaa.hookimpl(lambda register: register(_case("twin", "TWINA")))
    )
    second = types.SimpleNamespace(
        register_cases=gaa.hookimpl(lambda register: register(_case("twin", "TWINB")))
    )
    with plugin_registered(first, name="alpha"), plugin_registered(second, name="beta"):
        cases = plugins.catalogue().cases
        with pytest.raises(RegistryError) as error:
            cases.get("twin")
        assert "alpha" in str(error.value) and "beta" in str(error.value)
        assert cases.get("beta/twin").item.code == "TWINB"


def test_case_code_clash_names_both_plugins() -> None:
    clashing = types.SimpleNamespace(
        register_cases=gaa.hookimpl(lambda register: register(_case("other_lung", "LUNG")))
    )
    with plugin_registered(clashing, name="clasher"), pytest.raises(PluginError) as error:
        plugins.catalogue()
    message = str(error.value)
    assert "gaa/lung_cancer" in message and "clasher/other_lung" in message
    assert "plugin 'gaa'" in message and "plugin 'clasher'" in message


def test_misspelled_hook_is_caught_and_names_the_plugin() -> None:
    typo = types.SimpleNamespace(register_doctor=gaa.hookimpl(lambda register: None))
    with pytest.raises(PluginError) as error, plugin_registered(typo, name="typo"):
        pass
    assert "'typo'" in str(error.value) and "register_doctor" in str(error.value)
    assert "register_doctors" in str(error.value)  # the known hooks are listed


def test_invalid_items_are_rejected_with_the_plugin_named() -> None:
    not_a_case = types.SimpleNamespace(
        register_cases=gaa.hookimpl(lambda register: register({"id": "x"}))
    )
    with (
        plugin_registered(not_a_case, name="sloppy"),
        pytest.raises(
            PluginError, match=r"Plugin 'sloppy' registered .* expected a gaa\.MedicalCase"
        ),
    ):
        plugins.catalogue()

    not_callable = types.SimpleNamespace(
        register_doctors=gaa.hookimpl(lambda register: register("dr", 42))
    )
    with (
        plugin_registered(not_callable, name="sloppy"),
        pytest.raises(PluginError, match=r"doctor 'dr'.*not a callable"),
    ):
        plugins.catalogue()


def _lazy_doctors(register: Callable[..., None]) -> None:
    register("ghost", "gaa_no_such_module.doctors:ghost")
    register("made", "functools:partial", arguments=(str, "exemplary"))


def test_items_registered_by_import_path_load_on_first_lookup() -> None:
    lazy = types.SimpleNamespace(
        register_teamwork_components=gaa.hookimpl(
            lambda register: register(
                "tally", "collections:Counter", description="counts", arguments=()
            )
        ),
        register_question_sets=gaa.hookimpl(lambda register: register("empty", "builtins:list")),
        register_doctors=gaa.hookimpl(_lazy_doctors),
    )
    with plugin_registered(lazy, name="lazy"):
        catalogue = plugins.catalogue()
        listed = {e.full_name: e.description for e in catalogue.teamwork_components}
        assert listed["lazy/tally"] == "counts" and "lazy/ghost" in catalogue.doctors
        component = catalogue.teamwork_components.get("tally")
        assert component.item is __import__("collections").Counter
        assert catalogue.question_sets.get("empty").item() == []
        made = catalogue.doctors.get("made").item  # the attribute called with the arguments
        assert made() == "exemplary"
        with pytest.raises(
            PluginError,
            match=r"Plugin 'lazy' registered doctor 'ghost' as 'gaa_no_such_module.doctors:ghost', "
            r"which cannot be imported: ModuleNotFoundError",
        ):
            catalogue.doctors.get("ghost")


def test_an_item_loaded_by_path_is_checked_like_one_given_directly() -> None:
    wrong_kind = types.SimpleNamespace(
        register_teamwork_components=gaa.hookimpl(
            lambda register: register("loud", "builtins:print")
        )
    )
    with (
        plugin_registered(wrong_kind, name="sloppy"),
        pytest.raises(PluginError, match=r"component 'loud'.*not a class"),
    ):
        plugins.catalogue().teamwork_components.get("loud")
    not_a_path = types.SimpleNamespace(
        register_doctors=gaa.hookimpl(lambda register: register("dr", "not a factory"))
    )
    with (
        plugin_registered(not_a_path, name="sloppy"),
        pytest.raises(PluginError, match=r"doctor 'dr' as 'not a factory'.*import path"),
    ):
        plugins.catalogue()


def test_a_failing_factory_or_stray_arguments_name_the_plugin() -> None:
    broken = types.SimpleNamespace(
        register_doctors=gaa.hookimpl(
            lambda register: register("bad", "json:loads", arguments=("{",))
        )
    )
    with (
        plugin_registered(broken, name="broken"),
        pytest.raises(
            PluginError, match=r"Plugin 'broken' registered doctor 'bad'.*factory failed"
        ),
    ):
        plugins.catalogue().doctors.get("bad")
    stray = types.SimpleNamespace(
        register_doctors=gaa.hookimpl(lambda register: register("dr", print, arguments=(1,)))
    )
    with (
        plugin_registered(stray, name="stray"),
        pytest.raises(PluginError, match=r"doctor 'dr' with arguments but no import path"),
    ):
        plugins.catalogue()


def test_hook_that_raises_is_reported_with_the_plugin_name() -> None:
    def explode(register: Callable[..., None]) -> None:
        raise RuntimeError("database offline")

    crashing = types.SimpleNamespace(register_question_sets=gaa.hookimpl(explode))
    with (
        plugin_registered(crashing, name="crashy"),
        pytest.raises(
            PluginError, match=r"Plugin 'crashy'.*register_question_sets.*database offline"
        ),
    ):
        plugins.catalogue()


def _fake_distribution(root: Path, module_source: str) -> None:
    (root / "broken_gaa_plugin.py").write_text(module_source)
    info = root / "broken_gaa_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-gaa-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gaa]\nbroken = broken_gaa_plugin\n")


def test_plugin_that_fails_to_import_is_named_with_its_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_distribution(tmp_path, 'raise ImportError("No module named acme_sdk")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.reset()
    with pytest.raises(PluginError) as error:
        plugins.catalogue()
    message = str(error.value)
    assert 'Error importing plugin "broken"' in message
    assert "broken-gaa-plugin" in message and "acme_sdk" in message


def test_disabled_plugins_are_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_distribution(tmp_path, 'raise ImportError("never imported when disabled")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv(plugins.DISABLE_ENV, "broken, example")
    plugins.reset()
    catalogue = plugins.catalogue()
    names = {info.name for info in catalogue.plugins}
    assert "broken" not in names and "example" not in names
    assert "small_aaa" not in catalogue.cases
    assert "pneumothorax" in catalogue.cases


def test_disabling_an_unknown_plugin_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(plugins.DISABLE_ENV, "no-such-plugin")
    plugins.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plugins.catalogue()
    assert any("no-such-plugin" in str(w.message) for w in caught)


def test_entry_point_named_like_a_builtin_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "impostor.py").write_text("")
    info = tmp_path / "impostor-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: impostor\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("[gaa]\nreference = impostor\n"))
    monkeypatch.syspath_prepend(str(tmp_path))
    plugins.reset()
    with pytest.raises(PluginError, match=r"'reference'.*impostor.*reserved"):
        plugins.catalogue()
