"""Every model call of a deliberation, tagged with its phase, for counts, tokens and latency."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

Phase = Literal["R1", "R2", "R3"]
PHASES: tuple[Phase, ...] = ("R1", "R2", "R3")


class CallRecord(BaseModel):
    """One model call: where in the deliberation it happened and what it cost."""

    phase: Phase
    step: str
    agent: str
    repair: bool = False
    ok: bool = True
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0


class CallLedger(BaseModel):
    records: list[CallRecord] = Field(default_factory=list)

    def add(self, record: CallRecord) -> None:
        self.records.append(record)

    @property
    def calls(self) -> int:
        return len(self.records)

    def by_phase(self) -> dict[str, int]:
        counts = Counter(record.phase for record in self.records)
        return {phase: counts.get(phase, 0) for phase in PHASES}

    def by_step(self) -> dict[str, int]:
        return dict(Counter(f"{r.phase}.{r.step}" for r in self.records))

    @property
    def repairs(self) -> int:
        return sum(record.repair for record in self.records)

    @property
    def tokens(self) -> int:
        return sum(r.input_tokens + r.output_tokens for r in self.records)

    @property
    def seconds(self) -> float:
        return sum(record.seconds for record in self.records)
