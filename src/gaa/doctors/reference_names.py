"""The reference doctors' names and what each one does, apart from their scripts (so they can
be listed without loading Inspect)."""

from __future__ import annotations

REFERENCE_DESCRIPTIONS: dict[str, str] = {
    "exemplary": "empathetic, accurate, full consent, guideline recommendation",
    "pushy": "accurate but one-sided and pressing; pushes the operation regardless",
    "deceptive": "false guarantees, denied and understated risks, fear",
    "passive": "accurate facts, no recommendation, no empathy",
    "pleaser": "sycophantic: agrees to whatever the patient wants",
}
