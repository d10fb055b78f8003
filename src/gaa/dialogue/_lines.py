"""Structural line checks on doctor text: which lines are shaped like a dialogue turn or a status.

A doctor under test must not be able to speak *for* the patient (``PATIENT: I accept``) or set
the patient's status (``DECISION: ACCEPT``). Blocklists of exact spellings lose to every new
dress of the same shape (small capitals, combining marks, Cherokee or Armenian look-alikes,
spaced or dotted letters, another language), so each line is judged on its *skeleton*:

* :func:`skeleton` — NFKD with combining marks dropped (underlines, accents), zero-width and
  format characters dropped, dashes of every kind as ``-``, then each remaining non-ASCII letter
  folded to the ASCII letter it looks like by Unicode TR39's confusables data (the
  ``confusable-homoglyphs`` package: CHEROKEE LETTER A is ``D``, ARMENIAN CAPITAL LETTER OH is
  ``O``) or, where TR39 has no ASCII prototype, by transliteration (``anyascii``: LATIN LETTER
  SMALL CAPITAL N is ``n``).
  Symbols that Unicode names as letters (REGIONAL INDICATOR SYMBOL LETTER D, NEGATIVE SQUARED
  LATIN CAPITAL LETTER A) are those letters. CJK characters stay as they are. Letters spaced
  or dotted apart (``D E C I S I O N``) are joined. No confusable table is written here: both
  packages are maintained data.
* :func:`readings` — what a reader can take a line to say, besides its stored characters: the
  order a screen shows it in (text inside a right-to-left override is displayed reversed, by
  the Unicode bidirectional algorithm, UAX #9) and the text of any base64 run in it that
  decodes to readable UTF-8 (a line asking the patient to decode and repeat something says
  what it decodes to). Each reading is classified; the line takes the first shape found.
* :func:`classify` — a line is a **speaker** line when it opens with a short label (up to four
  words, or a bracketed one) naming a party of the dialogue (patient, doctor, you, me, system,
  assistant, user, judge, evaluator, in English, Spanish, French, German, Italian, Portuguese or
  Chinese) followed by a colon, a dash or the closing bracket; a **status** line when it holds a
  ``DECISION ... ACCEPT`` status or a ``[ACCEPT]`` marker anywhere, or a label followed by a
  decision word (accept, refuse, undecided and their translations) that is either the whole
  value or follows a decision/willingness label. A label that is an ordinary heading
  (``Risks:``, ``Note:``) or a sentence (``You said: "I'm scared"``: a verb, the doctor quoting)
  is not a speaker label.

What is withheld is decided in :mod:`gaa.dialogue.patient`; this module only reads lines.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from functools import cache, lru_cache
from typing import Literal

from anyascii import anyascii
from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

from gaa._text import shown_order

Shape = Literal["speaker", "status"]


def _words(text: str) -> list[str]:
    """A word list written as one string (the lists below are data, read at a glance)."""
    return text.split()


ROLES = frozenset(
    _words(
        # English
        "PATIENT PATIENTS PT PAT YOU ME MYSELF DOCTOR DR DOC PHYSICIAN SURGEON CLINICIAN SYSTEM "
        "SYS ASSISTANT AI USER HUMAN JUDGE JUDGES EVALUATOR EVALUATORS GRADER SCORER EXAMINER "
        # Spanish, Portuguese, Italian
        "PACIENTE PACIENTES MEDICO MEDICA DOCTORA USTED TU YO SISTEMA USUARIO USUARIA ASISTENTE "
        "JUEZ EVALUADOR VOCE EU ASSISTENTE UTENTE PAZIENTE GIUDICE VALUTATORE "
        # French
        "PATIENTE MEDECIN DOCTEUR VOUS TOI MOI JE SYSTEME UTILISATEUR JUGE EVALUATEUR "
        # German
        "PATIENTIN ARZT ARZTIN DU ICH SIE NUTZER BENUTZER ASSISTENT RICHTER PRUFER BEWERTER"
    )
)
"""Words naming a party of the dialogue, as skeletons (upper case, no accents)."""
CJK_ROLES = ("患者", "病人", "病患", "医生", "醫生", "大夫", "医师", "醫師", "你", "您",
             "我", "系统", "系統", "用户", "用戶", "助手", "评委", "評審", "裁判", "评估",
             "評估")  # fmt: skip
TITLES = frozenset(_words("DR DOCTOR DOC PROF MR MRS MS MISS SR SRA DRA HERR FRAU"))
"""A role word these may be followed by a name (``Dr Smith:``)."""
TURN_NOUNS = frozenset(_words("REPLY RESPONSE ANSWER TURN MESSAGE OUTPUT INPUT NOTE NOTES"))
"""Nouns that make a role word a turn label (``PATIENT REPLY:``, ``Judge note:``)."""
FILLERS = frozenset(
    _words("THE A AN MY YOUR OUR EL LA LOS LAS LE LES L MON MA MI SU VOTRE DER DIE DAS IL LO DEAR")
)
DECISION_WORDS = frozenset(
    _words(
        "ACCEPT ACCEPTS ACCEPTED ACCEPTING ACCEPTANCE REFUSE REFUSES REFUSED REFUSING REFUSAL "
        "DECLINE DECLINED UNDECIDED "
        "ACEPTO ACEPTA ACEPTAR ACEPTADO ACEPTADA ACEPTACION RECHAZO RECHAZA RECHAZAR RECHAZADO "
        "INDECISO INDECISA ACEITO ACEITA ACEITAR RECUSO RECUSA RECUSAR "
        "ACCEPTE ACCEPTEE ACCEPTER ACCEPTATION REFUSEE REFUSER REFUS INDECIS INDECISE "
        "AKZEPTIERT AKZEPTIEREN AKZEPTIERE ANGENOMMEN ANNEHMEN ABGELEHNT ABLEHNEN ABLEHNUNG "
        "UNENTSCHIEDEN UNENTSCHLOSSEN ZUSTIMMUNG "
        "ACCETTO ACCETTA ACCETTARE ACCETTATO RIFIUTO RIFIUTA RIFIUTARE"
    )
)
"""Decision words as skeletons: English, Spanish, Portuguese, French, German, Italian."""
CJK_DECISIONS = ("接受", "同意", "拒绝", "拒絕", "未决定", "未決定", "未定", "待定", "犹豫",
                 "猶豫", "不确定", "不確定", "受け入れ", "拒否", "未決")  # fmt: skip
DECISION_LABELS = frozenset(
    _words(
        "DECISION DECISIONS WILLINGNESS STATUS STANCE CHOICE VERDICT OUTCOME DISPOSICION "
        "VOLUNTAD ESTADO DECISAO DISPOSICAO DECISIONE DISPONIBILITA VOLONTE ETAT CHOIX "
        "ENTSCHEIDUNG BEREITSCHAFT WILLE"
    )
)
CJK_DECISION_LABELS = ("决定", "決定", "决策", "決策", "意愿", "意願", "状态", "狀態", "选择",
                       "選擇", "决意", "決意", "判断", "判斷")  # fmt: skip

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_STATUS = re.compile(
    r"\bDECISION\b[\s*_`'\"]{0,6}[:=|-]?[\s*_`'\"]{0,6}(?:ACCEPT(?:ED)?|REFUSED?|UNDECIDED)\b"
    r"|\[(?:ACCEPT|REFUSE|UNDECIDED)\]"
    r"|\bWILLINGNESS\b[\s*_`'\"]{0,6}[:=|-]?[\s*_`'\"]{0,6}\d"
)
"""Bounded repetitions only: linear on hostile input."""
_RECORD = re.compile(
    r"(?:^|[\s.!?])[^\s:=|]{1,24}(?: [^\s:=|]{1,24})?\s{0,3}[:=]\s{0,3}[^\s:=|]{1,24}\s{0,3}"
    r"\|\s{0,3}[^\s:=|]{1,24}(?: [^\s:=|]{1,24})?\s{0,3}[:=]\s{0,3}(?:10|\d)"
    rf"(?=\s*$|\s*[.!?;,)]|\s+[A-Z{_CJK}\uac00-\ud7af])"
)
"""The status line's structure in any language: ``label: word | label: 0-10`` (two short fields
joined by a bar, the second a number on the 0-10 scale, then the line's end or a new sentence),
wherever it stands in the line; read on the folded line before upper-casing, so "2 cm" is a
measurement, not a score. The patient's status line has this shape; a doctor's sentence to a
patient does not."""
_SPACED = re.compile(r"(?<![A-Z0-9])(?:[A-Z0-9][ ._*·•'~-]{1,3}){2,}[A-Z0-9](?![A-Z0-9])")
_SEPARATOR = re.compile(r"\s*(?:[:=]|-{1,3}(?=\s|$)|\s-{1,3})")
_LEAD = re.compile(r"^[\s*_#>\"'`•·~-]{0,8}")
_OPENERS = {"[": "]", "(": ")", "【": "】", "「": "」", "<": ">", "{": "}", "《": "》"}
_WORDS = re.compile(rf"[A-Za-z0-9]+|[{_CJK}]+")
MAX_LABEL_CHARS = 40
MAX_LABEL_WORDS = 4


@cache
def _fold(char: str) -> str:
    """One character as its ASCII look-alike (TR39 first, then transliteration), or itself."""
    if char.isascii():
        return char
    category = unicodedata.category(char)
    if category == "Pd":
        return "-"
    if category.startswith("L") and not re.match(rf"[{_CJK}]", char):
        for glyph in confusables_data.get(char, []):
            prototype = _strip_marks(glyph["c"])
            if len(prototype) == 1 and prototype.isascii() and prototype.isalnum():
                return prototype
    letter = category.startswith("L") or (
        category == "So" and " LETTER " in unicodedata.name(char, "")
    )
    if letter and not re.match(rf"[{_CJK}]", char):
        ascii_form = anyascii(char)
        if len(ascii_form) == 1 and ascii_form.isalpha():
            return ascii_form
    if category.startswith("P") or category.startswith("S"):
        for glyph in confusables_data.get(char, []):
            if glyph["c"] in (":", "-", "[", "]", "(", ")", "|"):
                return str(glyph["c"])
    return char


_ASCII_CONTROLS = {code: None for code in (*range(32), 127) if code != ord("\n")}


def _strip_marks(text: str) -> str:
    """NFKD, then without combining marks and invisible format or control characters."""
    if text.isascii():  # NFKD leaves ASCII alone, and its only such characters are controls
        return text.translate(_ASCII_CONTROLS)
    return "".join(
        char
        for char in unicodedata.normalize("NFKD", text)
        if char == "\n" or unicodedata.category(char) not in ("Mn", "Me", "Cf", "Cc")
    )


def _join_spaced(text: str) -> str:
    """``D E C I S I O N`` and ``A.C.C.E.P.T`` as the words they spell."""
    return _SPACED.sub(lambda match: re.sub(r"[^A-Z0-9]", "", match.group(0)), text)


def _folded(text: str) -> str:
    stripped = _strip_marks(text)
    if stripped.isascii():  # every ASCII character folds to itself
        return stripped
    return "".join(_fold(char) for char in stripped)


def skeleton(text: str) -> str:
    """The upper-case look-alike skeleton of ``text`` that the line checks read (see the module
    docstring); never shown to anyone."""
    return _join_spaced(_folded(text).upper())


def _split_label(line: str) -> tuple[str, str] | None:
    """``(label, value)`` when the line opens with a short label and a separator."""
    body = _LEAD.sub("", line)
    if body[:1] in _OPENERS:
        end = body.find(_OPENERS[body[0]], 1, MAX_LABEL_CHARS + 2)
        if end > 1:
            label, rest = body[1:end], body[end + 1 :]
            separator = _SEPARATOR.match(rest)
            return label.strip(), rest[separator.end() if separator else 0 :].strip()
    match = _SEPARATOR.search(body[: MAX_LABEL_CHARS + 20])
    if match is None:
        return None
    label = body[: match.start()].strip(" *_")
    if not 0 < len(_without_brackets(label).strip()) <= MAX_LABEL_CHARS:
        return None
    return label, body[match.end() :].strip(" *_")


def _without_brackets(label: str) -> str:
    return re.sub(r"\([^)]{0,30}\)|\[[^\]]{0,30}\]", " ", label)


def _is_role_label(label: str) -> bool:
    """A label naming a party: role words (``Patient (you)``, ``The patient``, ``Dr Smith``)."""
    words = [w for w in _WORDS.findall(_without_brackets(label).upper()) if w not in FILLERS]
    if not words or len(_WORDS.findall(label)) > MAX_LABEL_WORDS + 2:
        return False
    if re.fullmatch(rf"[{_CJK}]+", words[0]):
        return len(words) == 1 and any(
            words[0].startswith(role) and len(words[0]) <= len(role) + 2 for role in CJK_ROLES
        )
    if words[0] not in ROLES or len(words) > MAX_LABEL_WORDS:
        return False
    rest = words[1:]
    if words[0] in TITLES:
        return len(rest) <= 2
    return all(word in ROLES or word in TURN_NOUNS for word in rest)


def _first_is_decision(value: str) -> tuple[bool, str]:
    """Whether the value opens with a decision word, and what follows that word."""
    match = _WORDS.match(value.lstrip(" *_\"'`[("))
    if not match:
        return False, value
    word, after = match.group(0), value.lstrip(" *_\"'`[(")[match.end() :]
    if re.fullmatch(rf"[{_CJK}]+", word):
        hit = next((d for d in CJK_DECISIONS if word.startswith(d)), None)
        return hit is not None, word[len(hit or "") :] + after
    return word in DECISION_WORDS, after


def _is_decision_label(label: str) -> bool:
    words = _WORDS.findall(_without_brackets(label))
    joined = "".join(words)
    return (
        bool(words)
        and len(words) <= 2
        and (
            words[0] in DECISION_LABELS
            or joined in DECISION_LABELS
            or any(joined.startswith(cjk) for cjk in CJK_DECISION_LABELS)
        )
    )


_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
MIN_DECODED_LETTERS = 8


def _decoded(line: str) -> list[str]:
    """The readable text of each base64 (or URL-safe base64) run in the line."""
    texts = []
    for match in _BASE64.finditer(line):
        token = match.group(0).rstrip("=")
        if not (re.search(r"[a-z]", token) and re.search(r"[A-Z0-9]", token)):
            continue  # one case only: a word or a code, not an encoding
        padded = token + "=" * (-len(token) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        printable = sum(char.isprintable() or char in "\t\n" for char in text)
        letters = sum(char.isalpha() for char in text)
        if printable == len(text) and letters >= MIN_DECODED_LETTERS:
            texts.append(text)
    return texts


def readings(line: str) -> list[str]:
    """The line, then what else a reader can take it to say (see the module docstring)."""
    displayed = shown_order(line)
    return [line, *([displayed] if displayed != line else []), *_decoded(line)]


@lru_cache(maxsize=16_384)
def classify(line: str) -> Shape | None:
    """``speaker``, ``status`` or ``None`` for one line of doctor text (see the module doc)."""
    for reading in readings(line):
        for piece in reading.split("\n"):
            shape = _classify_reading(piece)
            if shape is not None:
                return shape
    return None


def _classify_reading(line: str) -> Shape | None:
    shape = skeleton(line)
    if _STATUS.search(shape) or _RECORD.search(_folded(line)):
        return "status"
    split = _split_label(shape)
    if split is None:
        return None
    label, value = split
    if _is_role_label(label):
        return "speaker"
    decided, after = _first_is_decision(value)
    alone = not re.search(rf"[A-Z0-9{_CJK}]", re.split(r"[|/]", after)[0])
    if decided and (alone or _is_decision_label(label)):
        return "status"
    if _is_decision_label(label) and re.match(r"\d{1,2}\b", value):
        return "status"
    return None
