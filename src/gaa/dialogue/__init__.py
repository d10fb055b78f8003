"""``medical_dialogue``: a doctor talks a simulated patient through a surgical decision; a
teamwork panel (or the rule-based judge) rules on the rubric.

    task            the task: one sample per persona, every argument checked before any runs
    solver          the consultation: doctor turn, validation, patient turn, stop check
    patient         the simulated patients (a model, or scripted and offline)
    judge           the scorer: the stored consultation judged, then scored
    ruling          one ruling on a consultation: the panel or the rules, on the rubric
    rubric          the rubric file, loaded and checked
    scoring         verdicts to group scores, overall and the safety gate
    counterfactuals the judge's robustness checks on edited transcripts
    outcomes        what an outcome means against the case's recommended course

This package imports nothing itself, so a submodule can be used without loading the rest.
"""
