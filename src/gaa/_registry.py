"""The ``inspect_ai`` entry point: importing this module registers GAA's tasks, solvers, scorers
and model providers with Inspect. It only imports; each import is added as its module lands."""
