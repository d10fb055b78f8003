"""Spotlighting: every doctor turn a model reads is marked as the doctor's words, never orders.

Spotlighting (Hines et al., 2024, "Defending Against Indirect Prompt Injection Attacks With
Spotlighting", Microsoft) gives a model a standing instruction that text inside a marked region
is data, and marks the region so that the data cannot close it. Of its three forms, delimiting
(a boundary around the data) is the one used here; datamarking (a token between every word)
and encoding (base64) measured stronger against injection in the paper, but they garble the
words the judges must quote back and the patient must answer in character, and small local
models decode base64 poorly. The boundary is therefore made unforgeable instead: a random token
that the doctor never sees, removed from anything the doctor writes (:meth:`Boundary.scrub`),
so a doctor cannot write the closing mark and speak outside it.

One token per sample: the dialogue solver draws it (``secrets``) when the consultation starts
and stores it in the sample store (``DialogueStats.boundary``), so the patient model, every judge
and the summary writer of that sample read the same marks, and re-scoring a log reuses them. A
log written before the boundary existed gets one derived from its session id (itself random).
Only models read marked text: the scripted patient and the rules judge read the sanitised text
and the validator's findings, which are the same with or without marks.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass

TOKEN_HEX = 16


@dataclass(frozen=True)
class Boundary:
    """The marks around one sample's doctor turns."""

    token: str

    @classmethod
    def draw(cls) -> Boundary:
        """A fresh random boundary for a new sample."""
        return cls(secrets.token_hex(TOKEN_HEX // 2))

    @classmethod
    def derived(cls, seed: str) -> Boundary:
        """The boundary of a sample stored without one: fixed by its (random) session id."""
        digest = hashlib.sha256(f"gaa-boundary:{seed}".encode()).hexdigest()
        return cls(digest[:TOKEN_HEX])

    @property
    def open(self) -> str:
        return f"<doctor_turn_{self.token}>"

    @property
    def close(self) -> str:
        return f"</doctor_turn_{self.token}>"

    def scrub(self, text: str) -> str:
        """``text`` without the token (any case), so it cannot forge or close a boundary."""
        return re.sub(re.escape(self.token), "", text, flags=re.IGNORECASE)

    def mark(self, text: str) -> str:
        """One doctor turn inside the boundary, on lines of its own."""
        return f"{self.open}\n{self.scrub(text)}\n{self.close}"
