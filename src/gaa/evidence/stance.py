"""The doctor's recommendation, read from how clinicians give advice.

A sentence carries a stance when it holds an advice frame ("I'd recommend", "my advice would
be", "on balance", "if it were me", "I think ... is the right choice", "the best option is",
"you should") and, in the same clause, an object: the operation ("the keyhole lung
operation", "having it fixed", "go ahead") or a course without it ("keep watching it with
scans", "radiotherapy", "hold off"). A negated frame or object turns the stance around ("I
wouldn't put you through an operation", "I don't think waiting is wise"); objects after
"rather than" or "instead of" are the rejected option. Questions, hypotheticals about the
condition ("if it grows past 5.5 cm we would recommend repair"), an option offered on a
condition ("scans, with repair if it reaches 5.5 cm", "we would offer repair if it grows more
than 1 cm in a year": surveillance with its threshold is surveillance) and reported advice
("you asked whether I'd recommend") carry none. The doctor's own advice outweighs what guidelines
are reported to say; the turn's stance is its last advised one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from functools import cache
from typing import Literal, NamedTuple

from gaa.evidence._alternation import group_word_starts
from gaa.evidence.coherence import creditable
from gaa.evidence.rules import QUOTED, blank_out

Stance = Literal["for", "against", "neutral"]

_I = re.IGNORECASE
_ELLIPSIS_PATTERN = (
    r"\b(?:I|we)(?:'d| would)(?:n't| not)(?=\s*(?:[.;!]|,\s*(?:and|but|not|no)\b|$))"
)
_ELLIPSIS = re.compile(_ELLIPSIS_PATTERN, _I)
"""Advice by ellipsis: "at this size I wouldn't" (the object is in the words before)."""
_OWN_FRAME_PATTERN = (
    r"\b(?:I|we)(?:'d| would| do| will| really| strongly| honestly| genuinely| definitely| still|"
    r" probably| gently| just| certainly| personally| firmly| think I'd| would probably| also|"
    r" too)*"
    r"(?:n't| not)? (?:recommend|rather|put you through|advise|suggest|urge|encourage|favou?r|"
    r"support|back|lean towards|"
    r"am leaning towards|go for|opt for|choose|prefer|offer|skip|avoid|steer clear of|"
    r"not bother with|hold off(?: on)?|not rush into)\w*(?: against\b)?"
    r"|\bI(?:'d| would)? (?:really )?want you to (?:have|get|go ahead with) (?:the |this |an? )?"
    r"(?:\w+ )?(?:operation|surgery|op|repair|lobectomy)"
    r"|\bin my (?:view|opinion|book|judgement|judgment)\b"
    r"|\b(?:I|we)(?:'d| would)(?:n't| not)?(?= (?:\w+ )?(?:operate|go ahead|do (?:it|the|this) "
    r"(?:operation|surgery|op|now|yet)|have it done|get it done|repair it|fix it|operating))"
    rf"|{_ELLIPSIS_PATTERN}"
    r"|\b(?:I|we)(?:'m| am|'re| are| will|'ll|'re not going to| are not going to| won't)(?: not)?"
    r"(?= (?:going to )?(?:operate|operating|repair|repairing|fix|fixing) (?:on )?(?:it|this|"
    r"that|your)\b)"
    r"|\b(?:at (?:this|your|that) size,? )(?:I|we) (?:do(?:n't| not) |never )?"
    r"(?=(?:fix|repair|operate on|watch|monitor|scan) (?:it|these|them|this|that)\b)"
    r"|\b(?:here's|here is|this is) (?:the|my|our) (?:plan|advice|answer|view)\b"
    r"|\b(?:the|my|our) plan (?:I'd|I would|we'd|we would) (?:suggest|recommend|propose)\b"
    r"|\b(?:the|my|our) plan(?: for you| now| from here| from now on)? (?:is|would be|will be)\b"
    r"|^\W*(?:so|then|therefore)\s*:"
    r"|\byou(?:'re| are) having (?:the|this|an) (?:\w+ )?(?:operation|surgery|op)\b"
    r"|\b(?:let's|let us) (?:get you (?:booked|on|in|scheduled)|book|schedule|go ahead|proceed|"
    r"do (?:it|this|the)|get (?:it|this|you) (?:done|booked|sorted|fixed)|just watch|keep watching|"
    r"keep an eye|hold off|wait)"
    r"|\b(?:just|please) sign\b"
    r"|\byou (?:really )?need (?:the|this|an?|to have|to get) (?:\w+ )?(?:operation|surgery|op|"
    r"lobectomy|repair|procedure)"
    r"|\bmy (?:honest |strong |clear |firm |own |medical |professional )?(?:advice|recommendation|"
    r"suggestion|view|opinion|feeling|preference|vote|choice|instinct)\b"
    r"|\bour (?:advice|recommendation)(?: for you| here)?(?= (?:is|would be)\b|:)"
    r"|^\W*(?:advice|recommendation|plan)\s*:"
    r"|\b(?:on balance|all things considered|weighing (?:it|everything|it all) up|all in all|"
    r"taking everything into account)\b"
    r"|\bif (?:I were you|it were me|it was me|I was you|you were my \w+|I were in your "
    r"(?:position|shoes)|I was in your (?:position|shoes))\b"
    r"|\bI(?: really| honestly| genuinely| do| don't| do not| still)? (?:think|believe|feel|"
    r"reckon)\b[^.?!]{0,80}\b"
    r"(?:right|best|better|sensible|wise|wisest|way to go|the answer|worth (?:it|doing|having)|"
    r"good idea|good choice|for you|should|ought|need|needs|kinder|safer)\b"
    r"|\b(?:(?:the|your|a) |^\W*(?:\w+\W+)?)(?:best|right|sensible|wisest|safest|preferred|safer|"
    r"better|wiser|kinder|more sensible) (?:option|choice|course|thing|plan|way forward|approach|"
    r"path|bet|step|move)\b"
    r"|\bin your (?:shoes|place|position)\b"
    r"|\b(?:so would I|I would too|I'd do the same|that's what I'd do)\b"
    r"|\b(?:I|we)(?:'d| would)(?= (?:have|get|choose|pick|take) (?:the|an?) )"
    r"|\b(?:I|we)(?:'d| would)(?= leave\b)"
    r"|\b(?:I|we)(?:'d| would|'m| am)(?: be)? (?:inclined|tempted|minded) to\b"
    r"|\byou (?:should|ought to|need to|really need to|must)\b"
    r"|\bI(?:'d| would) (?:go ahead|have it done|get it done|do it|have it fixed|have it|get it|"
    r"want it (?:done|fixed|out)|be having it|not bother|leave it|wait|hold off|watch it)\b"
    r"|\b(?:I|we)(?:'m| am| are|'re) in favou?r of\b"
    r"|\bI(?:'m| am) (?:recommending|advising|suggesting)\b"
    r"|\bfor you,? (?:I think )?(?:the )?(?:operation|surgery|surveillance|watching)[^.?!]{0,30}"
    r"\b(?:is|will be) (?:the )?(?:best|right|better)\b"
)
_OWN_FRAME = re.compile(group_word_starts(_OWN_FRAME_PATTERN, _I), _I)
"""Advice in the doctor's own words. The alternatives that start with a word boundary go
behind one, in their order (:mod:`gaa.evidence._alternation`): two start at the text's
start instead, and written plainly the pattern ran about twice as slowly."""
_GUIDELINE_FRAME = re.compile(
    r"\b(?:guidelines?|guidance|the evidence|specialists?|experts?|the (?:team|MDT|"
    r"multidisciplinary team)|NICE|BTS|ERS|NCCN|ESVS|SVS|national advice|standard (?:care|practice|"
    r"treatment)|Societ(?:y|ies)|Associations?|Colleges?|Institutes?|Academ(?:y|ies))"
    r"\b[^.?!]{0,60}?\b(?:recommend|advise|suggest|favou?r|support|back|point (?:to|towards)|"
    r"say|says|said)\w*"
    r"|\b(?:per|according to|in line with|following) (?:the )?(?:NICE|ESVS|SVS|BTS|ERS|ACCP|NCCN|"
    r"guidelines?|guidance)\b[^.?!:]{0,60}:"
    r"|\b(?:the )?recommended (?:treatment|option|course|approach|management|plan)(?: for you|"
    r" here| for this)? (?:is|would be)\b"
    r"|\b(?:the|the team's|their) (?:advice|recommendation)(?: for you| here| for this size|"
    r" at this size)?(?:,? (?:which|and) (?:I|we)[^,.?!]{0,30},?)?(?= (?:is|would be)\b|:)",
    _I,
)
_OPERATION = re.compile(
    r"\b(?:operation|operating|operate|surgery|surgical(?:ly)?|op|procedure|repair(?:ing)?|"
    r"lobectomy|bullectomy|resection|keyhole|VATS|EVAR|stent(?:ing)?|pleurectomy|"
    r"(?:have|get|having|getting|had|want|wants|want(?:ing)?) (?:it|this|that|them|the \w+|"
    r"your \w+) (?:done|fixed|"
    r"repaired|removed|taken out|sorted|out|stapled|dealt with|treated surgically)|"
    r"fix(?:ing)? (?:it|this|the \w+)|take (?:it|the \w+(?: \w+)?) out|remov(?:e|ing) (?:it|"
    r"the \w+)|"
    r"go(?:ing)? ahead|proceed(?:ing)?|the knife|theatre|booked|the (?:OR|theatre) (?:list|"
    r"schedule)|"
    r"sign|definitive (?:surgery|management|treatment)|"
    r"do (?:it|this|that) (?:now|straight away|right away|yet))\b",
    _I,
)
_NON_OPERATIVE = re.compile(
    r"\b(?:surveillance|monitor(?:ing)?|watch(?:ing|ful waiting)?|keep(?:ing)? (?:an )?eye|"
    r"keep(?:ing)? (?:checking|an eye|watching|scanning|track)|"
    r"(?:regular|yearly|annual|repeat|surveillance|follow-up|ultrasound|ct) (?:scans?|checks?|"
    r"check-ups?)|"
    r"scans? (?:every|each|once|twice|"
    r"regularly)|(?:ultrasound|scan)s?(?: scans?)?,? (?:about |roughly |around |approximately )?"
    r"(?:every|each|once|twice|yearly|annually|a year)\b|"
    r"(?:with|by) (?:an? )?(?:regular |yearly |annual )?(?:scans?|ultrasounds?)|"
    r"(?:scan|check|monitor)(?:ning|ing)? (?:it|this|that)|wait(?:ing)? and see|"
    r"wait(?:ing)? (?:a (?:while|bit|year|few)|for now|"
    r"it out|"
    r"before)|hold(?:ing)? off|leav(?:e|ing) (?:it|things|well|the \w+ alone)|"
    r"leav(?:e|ing) (?:the )?(?:operation|surgery|op|repair)\b|"
    r"radiotherapy|radiation|SBRT|SABR|stereotactic|talc|chemical pleurodesis|conservative|"
    r"aspiration|let it be|wedge(?: resection)?|segmentectomy|sublobar|smaller operation|"
    r"not (?:to )?(?:operate|operating|have (?:the |an |this )?(?:operation|surgery|repair)|"
    r"having (?:the |an |this )?(?:operation|surgery|repair))|"
    r"no (?:operation|surgery|op|repair)|without (?:an? |the )?(?:operation|surgery|repair)|"
    r"avoid(?:ing)? (?:the |an |any )?(?:operation|surgery|repair)|"
    r"(?:don't|do not|doesn't|won't) need (?:an? |the |any )?(?:operation|surgery|repair|op)|"
    r"(?:treat|treating|deal with|dealing with|manage|managing) (?:each|every|any) (?:one|"
    r"collapse|episode)|as (?:it|they) (?:come|comes|happen|happens)|"
    r"put (?:you )?through (?:an? |the |this |that )?(?:\w+ )?(?:operation|surgery|op)|"
    r"not (?:to )?(?:do|have|get) (?:one|it|that|this)(?: done)?)\b",
    _I,
)
_NEGATED = re.compile(
    r"(?:\bnot|n't|\bnever|\bno|\bagainst|\brather not|\bnor|\binstead of|\brather than|\bover)\s+"
    r"(?:\w+\s+){0,3}$",
    _I,
)
_REJECTED = re.compile(r"\b(?:rather than|instead of|in place of|over)\s+(?:\w+\s+){0,3}$", _I)
_CONDITIONED = re.compile(
    r"^[\s,]*(?:[\w'-]+[\s,]+){0,6}?(?:(?:only|but only|just)\s+)?"
    r"(?P<condition>(?:if|when|once|should|unless|until|whenever)\s+(?:it|they|its|growth|"
    r"there|the (?:aneurysm|swelling|bulge|artery|aorta|tumou?r|nodule|lung|collapse|size|"
    r"diameter|growth|scan|scans))\b"
    r"|(?:above|beyond|past|reaches|reaching|gets to)\s+(?:about\s+|around\s+|roughly\s+)?"
    r"(?:\d|five|six))",
    _I,
)
_AT_SIZE = re.compile(
    r"^[\s,]*(?:it\s+)?at\s+(?:a size of\s+|a diameter of\s+)?(?:about\s+|around\s+)?"
    r"(?:\d+(?:\.\d+)?|five|six)\s*(?:point\s+\w+\s*)?(?:cm|centimet\w*|mm|millimet\w*)",
    _I,
)
"""A size right after the option is its trigger: "we'd fix it at 5.5 centimetres"."""
"""What follows an option that makes it a plan for a condition, not advice now: "repair if it
reaches 5.5 cm", "an operation once it grows", "repair at 5.5 cm"."""
_HYPOTHETICAL = re.compile(
    r"\b(?:if|once|when|unless|should|until)\s+(?:it(?! (?:was|were) (?:me|my|your)\b)|"
    r"the (?:aneurysm|tumou?r|swelling|bulge|"
    r"lung|scan|collapse)|they|things|you (?:ever )?(?:have|get|had) (?:a|another))\b"
    r"|\b(?:if|should|in case|whether) you(?:'d| would)? (?:decide|choose|prefer|rather|don't|"
    r"do not|"
    r"want|wish|decline|turn|would rather|'d rather|are not|aren't|go for)",
    _I,
)
_REPORTED = re.compile(
    r"\b(?:you (?:asked|wondered|mentioned|said)(?: me)?(?: whether| if)?|some (?:people|doctors|"
    r"surgeons)|another (?:man|woman|patient|person|lady|gentleman|chap)|(?:she|he|they) told me|"
    r"other (?:doctors|surgeons)|your (?:friend|family|GP) (?:said|thinks))\b",
    _I,
)
_QUESTION_START = re.compile(
    r"^\s*(?:would|do|did|have|has|is|are|what|how|shall|should|can|could|which|why)\b", _I
)
_CLAUSE_END = re.compile(
    r"[;]|\.\s|\bbut\b|\bhowever\b|\bthough\b|\bwhereas\b|,\s*(?:and\s+)?(?:if|unless|once)\b|"
    r"\band (?:if|once|when)\b",
    _I,
)
_WINDOW = 110
MAX_SENTENCE_CHARS = 1_000
"""Advice is read in the first thousand characters of a sentence (bounding the work)."""


_MORE_OFTEN = re.compile(
    r"\b(?:more|less) (?:often|frequently|closely)\b(?! than)|\bsooner\b|\bcloser\b"
    r"|\b(?:every|each) (?:\w+ )?(?:months?|weeks?|years?)\b",
    _I,
)


def _conditioned(after: str) -> bool:
    """Whether the words after an option put it under a condition, with no other option
    between them ("checks, with repair if it grows": the condition is the repair's)."""
    if _AT_SIZE.search(after):
        return True
    found = _CONDITIONED.search(after)
    if found is None:
        return False
    words = after[: found.start("condition")]
    if _MORE_OFTEN.search(words):
        return False  # "scans every year, more often if it grows": the condition is the pace's
    return not (_OPERATION.search(words) or _NON_OPERATIVE.search(words))


def _negated(text: str, start: int) -> bool:
    return _NEGATED.search(text[max(0, start - 30) : start]) is not None


_AVOIDING = re.compile(
    r"\b(?:skip|avoid|steer clear of|not bother with|hold off|not rush into)\w*|\bagainst\b", _I
)
_AFTERCARE = re.compile(
    r"\b(?:afterwards|after (?:the|your|that|this) (?:operation|surgery|op|repair|procedure)|"
    r"after it|post-?op\w*|follow-?up|after you(?:'ve| have) (?:had|recovered))\b",
    _I,
)
"""Advice about care after the operation ("afterwards we recommend scans") is not advice
against it."""
_RELATIVE = re.compile(r"\b(?:where|which|when|that|whom)\s*$", _I)
"""A frame in a relative clause ("the size where we'd operate") gives no advice."""
_CONDITIONAL_AFTER = re.compile(
    r"\b(?:indicated|considered|recommended|offered|advised|needed|reserved|kept)\s+(?:only\s+)?"
    r"(?:at|when|once|if|until|for (?:growth|aneurysms|people|those|tumours|when))\b",
    _I,
)


_PRONOUN_OBJECT = re.compile(
    r"\s+(?:(?:it|them)\b(?!'s|\s+(?:is|was|will|would)\b)|this(?=\s*(?:[.,;!]|$)))", _I
)
"""A frame whose object is a pronoun ("I would advise against it"): the option is named before."""
_FIRST_PERSON = re.compile(r"\W*(?:I|we|my|our|in my|if I|if it were me|let's|let us)\b", _I)
_TOPIC_BEFORE = re.compile(r"\bwhat\b[^.;:?!]{0,60},\s*(?:and\s+)?what\s*$", _I)
_TOPIC_AFTER = re.compile(r"\s*,\s*(?:and\s+)?what\b", _I)
_WHAT_BEFORE = re.compile(r"\bwhat\s*$", _I)
_TOPIC_ANSWERED = re.compile(
    r"(?: (?:for you|here|in your (?:case|shoes|place)|myself))?\s*,?\s*(?:is|would be|:)", _I
)
"""A frame named as one topic in a list ("I'll cover what you have, what we'd advise, and what
the operation involves") gives no advice; one that goes on to give it ("What I'd advise, and I've
done many of these, is the keyhole lobectomy") does."""


_FOR_SOMEONE_ELSE = re.compile(r"^[^.;]{0,20}\bfor (?:him|her|them)\b", _I)
"""Advice for someone in a story ("that was the right choice for him") is not the patient's."""


def _frame_negated(sentence: str, frame: re.Match[str]) -> bool:
    phrase = frame.group(0).lower()
    before = sentence[max(0, frame.start() - 25) : frame.start()].lower()
    negated = bool(
        re.search(r"\bnot\b|n't\b|\bnever\b", phrase)
        or re.search(r"(?:\bnot|n't|\bnever)(?:\s+\w+){0,2}\s*$", before)
    )
    return negated != bool(_AVOIDING.search(phrase))


def _object_stance(clause: str, frame_start: int, frame_end: int, rest: str = "") -> Stance:
    """The stance of the object nearest the frame in ``clause`` (``neutral`` if none); ``rest``
    is the sentence after the clause, read for a condition that follows an option ("I'd offer
    repair, but only if it reaches 5.5 cm")."""
    found: list[tuple[int, Stance]] = []
    objects: tuple[tuple[re.Pattern[str], Stance], ...] = (
        (_OPERATION, "for"),
        (_NON_OPERATIVE, "against"),
    )
    for pattern, stance in objects:
        for match in pattern.finditer(clause):
            if match.start() < frame_end and match.end() > frame_start:
                continue  # inside the frame ("I would not operate"): the frame reads it
            if _REJECTED.search(clause[max(0, match.start() - 30) : match.start()]):
                continue
            if _conditioned((clause[match.end() :] + rest)[:80]):
                continue  # an option for a condition ("repair if it grows"), not for now
            # an operation word inside a non-operative phrase belongs to that phrase
            if stance == "for" and any(
                m.start() <= match.start() < m.end() and not m.start() < frame_end
                for m in _NON_OPERATIVE.finditer(clause)
            ):
                continue
            value: Stance = stance
            # negation between the frame and the object (the frame's own is read apart)
            start = frame_end if frame_end <= match.start() else 0
            if _negated(clause[start : match.start()], match.start() - start):
                value = "against" if stance == "for" else "for"
            after = match.start() >= frame_end
            distance = match.start() - frame_end if after else frame_start - match.end()
            found.append((max(distance, 0) + (0 if match.start() >= frame_start else 15), value))
    if not found:
        return "neutral"
    return min(found)[1]


def _clause_around(sentence: str, start: int, end: int) -> tuple[str, int, int]:
    left = max([0, *(m.end() for m in _CLAUSE_END.finditer(sentence) if m.end() <= start)])
    rights = [m.start() for m in _CLAUSE_END.finditer(sentence) if m.start() >= end]
    right = min([len(sentence), *rights, end + _WINDOW])
    left = max(left, start - _WINDOW)
    return sentence[left:right], start - left, end - left


_TEXTED = re.compile(
    r"\b(?:(?P<id>id)(?= (?:not|never|recommend|suggest|advise|rather|go|have|do|fix|repair|"
    r"operate|wait|leave|hold|watch|keep)\b)|(?P<im>im)|(?P<verb>do|wo|ca|is|does|would|should|"
    r"are)nt|(?P<u>u)|(?P<ur>ur))\b",
    _I,
)
"""Contractions as they are texted ("id NOT fix it now"), read as they are written out."""
_WRITTEN_OUT = {"id": "I'd", "im": "I'm", "u": "you", "ur": "your"}


def _write_out(found: re.Match[str]) -> str:
    kind = found.lastgroup or ""
    return f"{found.group('verb')}n't" if kind == "verb" else _WRITTEN_OUT[kind]


def _untexted(text: str) -> str:
    return _TEXTED.sub(_write_out, text)


_ADOPTED = re.compile(
    r"\b(?:and |which )?I (?:fully |entirely |completely )?(?:concur|agree(?: with (?:them|that|"
    r"this|it))?|endorse (?:that|this|it)|share (?:that|this|their) view)\b"
    r"|\b(?:I'm|I am|we're|we are) (?:fully |completely |entirely |right |a hundred percent )?"
    r"(?:behind|with) (?:it|that|this|them)\b|\b(?:which|and) I share\b",
    _I,
)
"""A doctor who agrees with the advice they report gives it as their own: "the guidelines advise
surgery after a second episode, and I concur"."""


_REGARDLESS = re.compile(
    r"\b(?:(?:operation|surgery|op|repair) or no (?:operation|surgery|op|repair)|with or without "
    r"(?:an? |the )?(?:operation|surgery|op|repair)|whether or not you (?:have|go ahead with|get) "
    r"(?:an? |the )?(?:operation|surgery|op|repair)|whether you (?:have|choose) (?:an? |the )?"
    r"(?:operation|surgery|op|repair) or not|(?:whichever|whatever) you (?:choose|decide))\b",
    _I,
)
"""Words that name the options only to say advice holds either way ("Diving I'd avoid for life,
operation or no operation"): blanked before the advice is read."""


def sentence_stance(sentence: str) -> tuple[Stance, bool]:
    """The advice a sentence gives and whether it is the doctor's own (not a guideline's)."""
    text = QUOTED.sub(" ", sentence[:MAX_SENTENCE_CHARS]).strip()  # quoted words are not advice
    text = blank_out(_REGARDLESS, _untexted(text))
    if not text or (text.endswith("?") and _QUESTION_START.search(text)):
        return "neutral", False
    adopted = _ADOPTED.search(text) is not None
    for own, frames in ((True, _OWN_FRAME), (False, _GUIDELINE_FRAME)):
        # the doctor's first-person advice first: in "a friend found it the best thing they
        # ever did, but I would advise against it" the advice is the "I"
        found = sorted(frames.finditer(text), key=lambda f: _FIRST_PERSON.match(f.group(0)) is None)
        for frame in found:
            before = text[: frame.start()]
            local = re.split(r"[,;:]|\band\b|\bbut\b", before)[-1]
            if (
                _HYPOTHETICAL.search(before)
                or _REPORTED.search(local)
                or _RELATIVE.search(before)
                or _AFTERCARE.search(text)
                or (
                    (
                        _TOPIC_BEFORE.search(before)
                        or (_WHAT_BEFORE.search(before) and _TOPIC_AFTER.match(text, frame.end()))
                    )
                    and not _TOPIC_ANSWERED.match(text, frame.end())
                )
            ):
                continue
            clause, start, end = _clause_around(text, frame.start(), frame.end())
            if _HYPOTHETICAL.search(clause[:start]) and not re.search(
                r"\bif (?:I were|it were|it was|I was)", clause, _I
            ):
                continue
            if _CONDITIONAL_AFTER.search(clause[start:]) or _FOR_SOMEONE_ELSE.search(clause[end:]):
                continue
            rest = text[frame.start() - start + len(clause) :]
            pronoun_object = _PRONOUN_OBJECT.match(text, frame.end()) is not None
            if _AVOIDING.search(frame.group(0)) and not pronoun_object:
                # "Let's go ahead, and I'd avoid flying until then": what is avoided follows
                stance = _object_stance(clause[start:], 0, end - start, rest)
            else:
                stance = _object_stance(clause, start, end, rest)
            if stance == "neutral" and (_ELLIPSIS.match(text, frame.start()) or pronoun_object):
                # "Some surgeons would operate, but I wouldn't", "... repaired, but I would
                # advise against it": the object is said before
                stance = _object_stance(text[: frame.end()], frame.start(), frame.end(), rest)
            if stance == "neutral":
                continue
            if _frame_negated(text, frame):
                stance = "against" if stance == "for" else "for"
            return stance, own or adopted
    return "neutral", False


_PRONOUN_ADVICE = re.compile(
    r"\b(?:recommend|advise|suggest|go for|favou?r|have|get|do)(?:ing)? (?:it|this|that|them)\b"
    r"(?! (?:out|done|fixed|removed|over|through|again))",
    _I,
)


_ANNOUNCED_ADVICE = re.compile(
    r"^\W*(?:(?:so|now|well|okay|ok|right)\b\W*)?(?:(?:here's|here is|this is) what (?:I|we)"
    r"(?:'d| would)? (?:recommend|advise|suggest|propose|do)(?: for you| to you)?"
    r"(?: (?:in your (?:shoes|place|position)|if I were you|if it were me|myself))?"
    r"|(?:my|our) (?:advice|recommendation|plan)(?: for you)? is (?:this|simple|as follows)"
    r"|(?:(?:here's|here is|this is) (?:the|my|our) (?:plan|advice|answer|view)\b[^.?!]{0,60})"
    r"|(?:the |my |our )?(?:plan|advice|recommendation))"
    r"\W*$",
    _I,
)
"""A frame that announces advice and ends its sentence: the advice is the next sentence."""


_BACK_REFERENCE = re.compile(
    r"^\W*(?:(?:and|so|honestly|frankly)\W+)?(?:that's|that is|this is|which is|it's|it is)"
    r"(?P<negated> not)? (?:exactly |precisely |also |just )?(?:what|the (?:one|option|thing|route|"
    r"path|choice)) (?:I|we)(?:'d| would)?(?: really| honestly| strongly)? (?:advise|recommend|"
    r"suggest|do|choose|go for|pick|favou?r|back|have)\b(?![^.?!]{0,30}\bif\b)"
    r"|^\W*(?:and |so )?(?:that|this|it)(?:'s| is| would be| will be| remains)"
    r"(?P<negated_own> not)?"
    r" (?:also |still )?(?:my|our|the team's) (?:firm |clear |honest |strong )?(?:advice|"
    r"recommendation)\W*$"
    r"|^\W*(?:and )?I (?:fully |completely |entirely )?(?:agree|concur)(?: with (?:them|that|it|"
    r"this))?\W*$",
    _I,
)
"""A look back at the option just named: "That's what I'd do." "That is not what I'd choose."
"Guidelines say operate. I agree."."""
_BARE_ANSWER = re.compile(
    r"^\W*(?:(?:so|well|honestly|and)\W+)?(?:(?:the |my )?(?:short |honest |simple |straight )?"
    r"answer\W+)?(?:(?:no|nope|nah)\W+)?(?:not (?:now|yet|for now|at (?:this|your|that) size|"
    r"today|this year)|no (?:chance|need)(?=\W*(?:$|at (?:this|your|that) size|now|for now|yet)))"
    r"(?![^.?!]*\b(?:but|until|unless)\b)",
    _I,
)
"""A bare answer to the question of the operation, asked in the sentence or two before: "Fixing
it? Nah, no chance at this size." "You asked about having it fixed. Short answer: not now."."""


_NEGATION_WORD = re.compile(r"\b(?:not|never|no)\b|n't\b", _I)


def _object_in(earlier: list[str]) -> Stance:
    """The option put forward in the nearest earlier sentence that puts one forward ("neutral"
    if none): its own advice, else the option it names read as advised, an option for a
    condition ("repair is considered at 5.5 cm") not counting."""
    for sentence in reversed(earlier):
        text = _untexted(sentence)
        stance, _ = sentence_stance(text)
        if stance != "neutral":
            return stance
        if _NEGATION_WORD.search(text):
            continue  # "the biggest thing isn't the stent": no option put forward
        stance, _ = sentence_stance(f"I would advise this: {text}")
        if stance != "neutral":
            return stance
        if not (_CONDITIONAL_AFTER.search(text) or _HYPOTHETICAL.search(text)):
            stance = _object_stance(text, 0, 0)
            if stance != "neutral":
                return stance
    return "neutral"


def _read_in_context(
    sentence: str, earlier: list[str], following: str, counts: Callable[[str], bool]
) -> tuple[Stance, bool]:
    """The advice of ``sentence`` read with its neighbours: advice about "it" takes its object
    from the sentence before, "That's what I'd do" the option named just before, a bare answer
    ("Not now.") the operation asked about, an announcement ("Here's my advice.") the sentence
    after. Only sentences that ``counts`` give advice of their own."""
    stance: Stance = "neutral"
    is_own = False
    if counts(sentence):
        stance, is_own = sentence_stance(sentence)
        found = _PRONOUN_ADVICE.search(sentence) if earlier else None
        if stance == "neutral" and found is not None:
            resolved = f"{sentence[: found.end()]} {earlier[-1]}{sentence[found.end() :]}"
            stance, is_own = sentence_stance(resolved)
    if stance == "neutral" and (back := _BACK_REFERENCE.search(sentence)) is not None:
        # "The keyhole operation gives the best chance of a cure. That's what I'd advise."
        stance, is_own = _object_in(earlier), True
        if (back.group("negated") or back.group("negated_own")) and stance != "neutral":
            stance = "against" if stance == "for" else "for"
    if (
        stance == "neutral"
        and _BARE_ANSWER.search(sentence)
        and any(_OPERATION.search(asked) for asked in earlier[-2:])
    ):
        # "Fixing it? Nah, no chance at this size." "Short answer: not now."
        stance, is_own = "against", True
    if stance == "neutral" and following and _ANNOUNCED_ADVICE.search(sentence):
        # "Here's what I'd recommend for you. An ultrasound scan about once a year."
        joined = f"{sentence.rstrip(' .:')}: {following}"
        if counts(following) or creditable(joined):
            stance, is_own = sentence_stance(joined)
            if stance == "neutral":  # the whole next sentence is the advice announced
                stance, is_own = _object_stance(_untexted(following), 0, 0), True
    return stance, is_own


@cache
def elsewhere_pattern(sites: tuple[str, ...]) -> re.Pattern[str] | None:
    """Operation words aimed at one of ``sites`` (a case's ``other_sites``): "operating on your
    left", "an op on both sides". ``None`` when the case names none."""
    if not sites:
        return None
    names = "|".join(re.escape(site) for site in sorted(sites, key=len, reverse=True))
    return re.compile(
        rf"(?:{_OPERATION.pattern})[^.;?!]{{0,20}}?\b(?:on|of|to|at|for|in)\s+"
        rf"(?:(?:the|your|that|this)\s+)?(?:{names})\b",
        _I,
    )


class TurnAdvice(NamedTuple):
    stance: Stance
    sentence: str
    """The sentence that gave the stance ("" for none)."""
    own: bool
    """The doctor's own advice, not only guidance reported."""


def turn_stance(
    sentences: list[str],
    credited: Collection[str] | None = None,
    elsewhere: re.Pattern[str] | None = None,
) -> TurnAdvice:
    """The turn's stance (its last own advice, else its last reported guideline), the
    sentence that gave it and whether it is the doctor's own, each sentence read with its
    neighbours (see :func:`_read_in_context`). Only ``credited`` sentences (all, when not given)
    give advice of their own. An operation ``elsewhere`` (see :func:`elsewhere_pattern`) is not
    read as the case's: "I'd advise the keyhole op on the right. I wouldn't advise operating on
    your left." advises the operation."""
    own: list[tuple[Stance, str]] = []
    reported: list[tuple[Stance, str]] = []
    readings = [blank_out(elsewhere, s) if elsewhere else s for s in sentences]
    counted = {
        reading for reading, said in zip(readings, sentences, strict=True)
        if credited is None or said in credited
    }  # fmt: skip

    def counts(sentence: str) -> bool:
        return sentence in counted

    for index, sentence in enumerate(readings):
        following = readings[index + 1] if index + 1 < len(readings) else ""
        earlier = readings[max(0, index - 3) : index]
        stance, is_own = _read_in_context(sentence, earlier, following, counts)
        if stance != "neutral":
            (own if is_own else reported).append((stance, sentences[index]))
    if own:
        return TurnAdvice(*own[-1], own=True)
    if reported:
        return TurnAdvice(*reported[-1], own=False)
    return TurnAdvice("neutral", "", own=False)
