"""``judge_check``: how well a judge configuration agrees with labelled consultations."""
