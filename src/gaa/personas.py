"""Persona ids, selection patterns and the prompt files behind each persona.

A persona id is ``MBTI_G_CASE`` (``INTJ_M_PNEUMO``) or the gender-free ``MBTI_CASE``
(``INTJ_PNEUMO``), with ``_SEEK`` at the end for a patient who arrives seeking the operation
(``INTJ_M_MENISCUS_SEEK``). A selection is a list of ids and patterns: ``all``, ``library``, or
shell-style globs over the gendered ids of the selected cases (``INTJ_*``, ``*_F_LUNG``). The
default case selection is the seed's two cases and hesitant patients, so ``all`` is the
benchmark's 64 personas whatever else is registered; ``library`` is every registered case with
every stance it has. Other cases are selected by name, or by an explicit id that uses their
code. Invalid input is an error that lists the valid forms: nothing is ever replaced by a
default.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Iterable, Sequence

from gaa._args import split_list as split_selection
from gaa._builtins.cases import SEED_CASES
from gaa._resources import read_prompt
from gaa.errors import PersonaError, RegistryError
from gaa.models import MBTI_TYPES, Gender, MedicalCase, PatientPersona, PatientStance
from gaa.plugins import Catalogue, catalogue

GENDER_CODES: dict[str, Gender] = {"M": "male", "F": "female"}
DEFAULT_CASES: tuple[str, ...] = SEED_CASES
ALL = "all"
LIBRARY = "library"
STANCE_CODES: dict[str, PatientStance] = {"SEEK": "seeking"}
_GLOB_CHARS = frozenset("*?[")

ID_FORMS = (
    "MBTI_G_CASE (e.g. INTJ_M_PNEUMO), MBTI_CASE without gender (e.g. INTJ_PNEUMO), either "
    "with _SEEK for a patient seeking the operation (e.g. INTJ_M_MENISCUS_SEEK), 'all', "
    "'library', or a pattern such as INTJ_* or *_F_LUNG"
)


def resolve_cases(
    cases: str | Iterable[str] | None, registry: Catalogue | None = None
) -> list[MedicalCase]:
    """The cases a selection ranges over: the built-ins by default, ``all``, or names."""
    registry = registry or catalogue()
    names = split_selection(cases) or list(DEFAULT_CASES)
    if names == [ALL]:
        return [entry.item for entry in registry.cases]
    resolved: list[MedicalCase] = []
    for name in names:
        try:
            case = registry.cases.get(name).item
        except RegistryError as exc:
            raise PersonaError(str(exc)) from None
        if case not in resolved:
            resolved.append(case)
    return resolved


def persona_age(persona_id: str, case: MedicalCase) -> int:
    """A stable age within the case's range, derived from the persona id (same id, same age;
    the seeking stance of a patient has the hesitant one's age)."""
    low, high = case.age_range
    base = persona_id.removesuffix("_SEEK")
    digest = hashlib.sha256(base.encode("utf-8")).digest()
    return low + int.from_bytes(digest[:4], "big") % (high - low + 1)


def make_persona(
    mbti: str, gender: Gender | None, case: MedicalCase, stance: PatientStance = "hesitant"
) -> PatientPersona:
    code = next((k for k, v in GENDER_CODES.items() if v == gender), None)
    stance_code = next((k for k, v in STANCE_CODES.items() if v == stance), None)
    persona_id = "_".join(part for part in (mbti, code, case.code, stance_code) if part)
    return PatientPersona(
        persona_id=persona_id,
        mbti_type=mbti,
        gender=gender,
        medical_case=case.case_id,
        age=persona_age(persona_id, case),
        stance=stance,
    )


def all_personas(
    cases: Sequence[MedicalCase], stances: Sequence[PatientStance] = ("hesitant",)
) -> list[PatientPersona]:
    """Every gendered persona of ``cases`` (in the genders each case allows) with each of
    ``stances`` the case has: case by case, stance by stance, MBTI in canonical order, M
    before F."""
    return [
        make_persona(mbti, gender, case, stance)
        for case in cases
        for stance in stances
        if stance in case.stances
        for mbti in MBTI_TYPES
        for gender in GENDER_CODES.values()
        if gender in case.genders
    ]


def parse_persona_id(persona_id: str, registry: Catalogue | None = None) -> PatientPersona:
    """Parse one explicit id; its case code may be any registered case's."""
    registry = registry or catalogue()
    parts = persona_id.strip().upper().split("_")
    stance: PatientStance = "hesitant"
    if len(parts) > 2 and parts[-1] in STANCE_CODES:
        stance = STANCE_CODES[parts.pop()]
    if len(parts) not in (2, 3) or not all(parts):
        raise PersonaError(f"Invalid persona id '{persona_id}': expected {ID_FORMS}")
    mbti, code = parts[0], parts[-1]
    if mbti not in MBTI_TYPES:
        raise PersonaError(
            f"Invalid persona id '{persona_id}': '{mbti}' is not an MBTI type; "
            f"valid types: {', '.join(MBTI_TYPES)}"
        )
    gender: Gender | None = None
    if len(parts) == 3:
        if parts[1] not in GENDER_CODES:
            valid = ", ".join(f"{k} ({v})" for k, v in GENDER_CODES.items())
            raise PersonaError(
                f"Invalid persona id '{persona_id}': '{parts[1]}' is not a gender code; "
                f"valid genders: {valid}, or leave it out (e.g. {mbti}_{code})"
            )
        gender = GENDER_CODES[parts[1]]
    entry = registry.case_by_code(code)
    if entry is None:
        codes = ", ".join(f"{e.item.code} ({e.full_name})" for e in registry.cases)
        raise PersonaError(
            f"Invalid persona id '{persona_id}': '{code}' is not a case code; "
            f"valid case codes: {codes or 'none registered'}"
        )
    case = entry.item
    if gender is not None and gender not in case.genders:
        raise PersonaError(
            f"Invalid persona id '{persona_id}': the {case.case_id} case has "
            f"{' and '.join(case.genders)} patients only"
        )
    if stance not in case.stances:
        raise PersonaError(
            f"Invalid persona id '{persona_id}': the {case.case_id} case has no {stance} "
            f"patient (its stances: {', '.join(case.stances)})"
        )
    return make_persona(mbti, gender, case, stance)


def _any_fields(item: str) -> str:
    """``all`` or ``any`` as a whole field of an id is a wildcard: ``all_F_LUNG`` is ``*_F_LUNG``
    (on the command line a leading ``*`` is YAML's alias sign, so ``-T personas=*_F_LUNG``
    cannot be passed unquoted)."""
    parts = item.split("_")
    if len(parts) < 2:
        return item
    return "_".join("*" if part.lower() in ("all", "any") else part for part in parts)


def select_personas(
    selection: str | Iterable[str] | None = ALL,
    cases: str | Iterable[str] | None = None,
    registry: Catalogue | None = None,
) -> list[PatientPersona]:
    """Resolve ids and patterns to personas, in the order given, without duplicates."""
    registry = registry or catalogue()
    items = split_selection(selection) or [ALL]
    chosen = resolve_cases(cases, registry)
    universe = all_personas(chosen)
    patterned = all_personas(chosen, ("hesitant", "seeking"))
    selected: dict[str, PatientPersona] = {}
    for item in map(_any_fields, items):
        if item.lower() == ALL:
            matches = universe
        elif item.lower() == LIBRARY:
            matches = all_personas(resolve_cases(ALL, registry), ("hesitant", "seeking"))
        elif _GLOB_CHARS & set(item):
            pattern = item.upper()
            # a seeking patient is matched only by a pattern that asks for one (``*_SEEK``),
            # so the seed's patterns keep meaning what they meant
            seeking = pattern.endswith("_SEEK")
            matches = [
                p
                for p in patterned
                if (p.stance == "seeking") == seeking and fnmatch.fnmatchcase(p.persona_id, pattern)
            ]
            if not matches:
                case_names = ", ".join(case.case_id for case in resolve_cases(cases, registry))
                raise PersonaError(
                    f"Persona pattern '{item}' matches no persona of the selected cases "
                    f"({case_names}); ids look like INTJ_M_PNEUMO. Select other cases by name "
                    f"with cases=..., or write {ID_FORMS}"
                )
        else:
            matches = [parse_persona_id(item, registry)]
        for persona in matches:
            selected.setdefault(persona.persona_id, persona)
    return list(selected.values())


def mbti_prompt(mbti: str) -> str:
    """The behavioural brief for playing a patient of this MBTI type."""
    if mbti not in MBTI_TYPES:
        raise PersonaError(f"'{mbti}' is not an MBTI type; valid types: {', '.join(MBTI_TYPES)}")
    return read_prompt("mbti", f"{mbti.lower()}.txt")


def gender_prompt(gender: Gender) -> str:
    """Life circumstances that shape a patient's concerns, for this gender."""
    if gender not in GENDER_CODES.values():
        raise PersonaError(f"'{gender}' is not a gender; valid: {', '.join(GENDER_CODES.values())}")
    return read_prompt("gender", f"{gender}.txt")
