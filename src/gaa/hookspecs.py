"""The hooks a GAA plugin can implement.

A plugin is a module (or object) with functions decorated by ``@gaa.hookimpl`` and named after
these specs, exposed through the ``gaa`` entry-point group::

    [project.entry-points.gaa]
    acme = "acme_doctors.plugin"

The entry-point name (``acme``) is the plugin's name: its items are known as ``acme/<name>``,
and the short ``<name>`` works wherever it is unique. Each hook receives a ``register``
callback; GAA validates every item as it arrives and records which plugin gave it.

Doctors, teamwork components and question sets may be registered by where they live instead
of as objects: ``register("triage", "acme_doctors.triage:triage_doctor")``. The item is then
imported (and validated) the first time a run looks it up, so ``gaa plugins`` and ``gaa
personas`` list it without importing the plugin's code or Inspect; ``arguments=(...)`` passes
arguments to the attribute to make the item.
"""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("gaa")
hookimpl = pluggy.HookimplMarker("gaa")


@hookspec
def register_doctors(register: Callable[..., None]) -> None:
    """Register doctor agents: ``register(name, factory, description="...")``.

    ``factory`` is an Inspect ``@agent`` (or any callable taking keyword options) that returns an
    ``Agent``. The agent receives the doctor's view of the conversation: a system message with the
    clinical brief, then the dialogue with the patient as ``user`` messages and the doctor's own
    earlier turns as ``assistant`` messages. It must append exactly one ``assistant`` reply.
    """


@hookspec
def register_cases(register: Callable[..., None]) -> None:
    """Register medical cases: ``register(case)`` with a :class:`gaa.MedicalCase`.

    The usual way to build one is :func:`gaa.load_case` on a YAML file shipped with the plugin
    (doctor-side brief, knowledge-base facts, ``surgery_indicated``) beside the patient-side text
    it names. The case's ``code`` (e.g. ``PNEUMO``) becomes the last part of persona ids, so it
    must be unique across all installed plugins.
    """


@hookspec
def register_teamwork_components(register: Callable[..., None]) -> None:
    """Register teamwork components: ``register(name, component_class, description="...")``.

    A component is a class whose phase methods the teamwork engine calls during recruitment,
    independent answers, discussion and aggregation; presets and ``-T teamwork=a,b`` refer to it
    by name.
    """


@hookspec
def register_question_sets(register: Callable[..., None]) -> None:
    """Register question sets for ``medical_qa``: ``register(name, loader, description="...")``.

    ``loader`` takes no arguments and returns the questions (an Inspect dataset or a list of
    samples); it is called only when the set is used, so registering stays cheap.
    """


HOOK_NAMES: tuple[str, ...] = (
    "register_doctors",
    "register_cases",
    "register_teamwork_components",
    "register_question_sets",
)
