"""Medical multiple-choice QA answered by the teamwork engine (``tasks/medical_qa.py``)."""

from gaa.qa.questions import QuestionFileError, load_medqa_jsonl
from gaa.qa.scorer import teamwork_qa_scorer
from gaa.qa.solver import teamwork_solver
from gaa.qa.task import medical_qa

__all__ = [
    "QuestionFileError",
    "load_medqa_jsonl",
    "medical_qa",
    "teamwork_qa_scorer",
    "teamwork_solver",
]
