"""The five built-in teamwork components of ``spec/teamwork-components.md``."""
