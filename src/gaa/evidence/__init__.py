"""Evidence validation without an LLM: claims against the knowledge base, safety rules, the
informed-consent checklist and communication cues. Knows nothing of the judge or the engine."""

from gaa.evidence.claims import Claim, extract_claims
from gaa.evidence.knowledge import ClaimVerdict, check_claim
from gaa.evidence.validator import (
    CheckedClaim,
    DialogueEvidence,
    SafetyFlag,
    TurnValidation,
    validate_turn,
)

__all__ = [
    "CheckedClaim",
    "Claim",
    "ClaimVerdict",
    "DialogueEvidence",
    "SafetyFlag",
    "TurnValidation",
    "check_claim",
    "extract_claims",
    "validate_turn",
]
