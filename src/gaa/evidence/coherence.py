"""Which sentences earn credit: coherent sentences addressed to the patient.

Harm is found anywhere in a turn, but credit (a cue of empathy, a consent item, a supported
figure, a recommendation) is given only for a sentence someone could follow: at least
:data:`MIN_WORDS` words, with a verb or a pronoun that makes it a statement to a person rather
than a note ("Risks. Air leak 2 to 8 percent. Your choice." earns nothing). "My advice" and "my
recommendation" act as verbs, as does a line that starts "Plan:": "My advice: no operation now."
is advice given. A sentence about
"the patient" in the third person is not addressed to the patient.
"""

from __future__ import annotations

import re

MIN_WORDS = 4
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_CLAUSE_WORDS = frozenset(
    [
        "i",
        "you",
        "we",
        "it",
        "this",
        "that",
        "there",
        "they",
        "he",
        "she",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "should",
        "must",
        "shall",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "am",
        "i'm",
        "you're",
        "it's",
        "we're",
        "we'll",
        "i'll",
        "you'll",
        "i'd",
        "you'd",
        "we'd",
        # the same words as they are texted, without the apostrophe
        "im",
        "ive",
        "youre",
        "dont",
        "wont",
        "cant",
        "isnt",
        "doesnt",
        "wouldnt",
        "thats",
        "u",
        "it'll",
        "that's",
        "there's",
        "let's",
        "don't",
        "won't",
        "can't",
        "isn't",
        "aren't",
        "wasn't",
        "doesn't",
        "didn't",
        "wouldn't",
        "couldn't",
        "shouldn't",
        "i've",
        "you've",
        "we've",
        "let",
        "want",
        "need",
        "think",
        "know",
        "feel",
        "get",
        "go",
        "take",
        "make",
        "see",
        "come",
        "give",
        "mean",
        "means",
        "tell",
        "happen",
        "happens",
        "help",
        "helps",
        "like",
        "keep",
        "put",
        "say",
        "says",
        "said",
        "understand",
        "ask",
        "hope",
        "worry",
        "worried",
        "matters",
        "going",
        "seems",
        "looks",
        "sounds",
    ]
)
_VERB_STEMS = (
    "advise",
    "recommend",
    "suggest",
    "show",
    "mean",
    "drop",
    "fall",
    "cut",
    "reduce",
    "lower",
    "raise",
    "carry",
    "stay",
    "take",
    "return",
    "grow",
    "work",
    "happen",
    "occur",
    "leave",
    "protect",
    "remove",
    "involve",
    "give",
    "offer",
    "include",
    "cause",
    "control",
    "prevent",
    "suit",
    "matter",
    "decide",
    "avoid",
    "spread",
    "stop",
    "stick",
    "seal",
    "collapse",
    "recover",
    "heal",
    "hurt",
    "affect",
    "improve",
    "increase",
    "decrease",
    "rise",
    "settle",
    "burst",
    "rupture",
    "survive",
    "die",
    "live",
    "change",
    "find",
    "confirm",
    "appear",
    "remain",
    "last",
    "require",
    "allow",
    "let",
    "check",
    "watch",
    "scan",
    "operate",
    "treat",
    "repair",
    "fix",
    "explain",
    "expect",
    "see",
    "use",
)
_VERBS = frozenset(
    form
    for stem in _VERB_STEMS
    for form in (stem, f"{stem}s", f"{stem}es", f"{stem}ed", f"{stem}d", f"{stem[:-1]}ing")
) | frozenset(["shows", "does", "goes", "gets", "makes", "takes", "gives", "means"])
_ADVICE_GIVEN = re.compile(
    r"\b(?:my|our) (?:advice|recommendation)\b|^\W*(?:the )?(?:plan|advice|recommendation)\s*:",
    re.I,
)
_THIRD_PERSON = re.compile(r"\b(?:the patient|patient's|the patients?|this patient)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.I)


def coherent(sentence: str) -> bool:
    """A sentence, not a fragment or a list of bare keywords."""
    words = [w.lower() for w in _WORD.findall(sentence)]
    if _ADVICE_GIVEN.search(sentence) is not None:
        return len(words) >= MIN_WORDS - 1  # "My advice: operate." is advice given
    return len(words) >= MIN_WORDS and any(w in _CLAUSE_WORDS or w in _VERBS for w in words)


def addressed_to_patient(sentence: str) -> bool:
    return not (_THIRD_PERSON.search(sentence) and not _SECOND_PERSON.search(sentence))


def creditable(sentence: str) -> bool:
    return coherent(sentence) and addressed_to_patient(sentence)
