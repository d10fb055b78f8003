"""One hash of every finding the validator makes on the project's texts.

    .venv/bin/python bench/findings_fingerprint.py [CASE ...] [--dump FILE]

Every string longer than 15 characters in ``tests/data`` (validator corpora, attack suites,
labelled consultations: about 10,800 texts) is validated as a doctor turn against each case
(by default pneumothorax, small_aaa, lung_cancer and meniscal_tear), and every safety rule is
asked about it on its own. The script prints the number of texts, the CPU it took and an MD5
of all the results. A change meant to make the validator faster, not different, must print the
same hash before and after; ``--dump`` writes the results as JSON, to diff when it does not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from gaa._yaml import load_yaml
from gaa.evidence import validate_turn
from gaa.evidence.rules import safety_rules
from gaa.plugins import catalogue

DATA = Path(__file__).resolve().parents[1] / "tests" / "data"
DEFAULT_CASES = ("pneumothorax", "small_aaa", "lung_cancer", "meniscal_tear")
MIN_CHARS = 16


def _strings(node: Any, found: set[str]) -> None:
    if isinstance(node, str):
        if len(node) >= MIN_CHARS:
            found.add(node)
    elif isinstance(node, dict):
        for value in node.values():
            _strings(value, found)
    elif isinstance(node, list):
        for value in node:
            _strings(value, found)


def project_texts() -> list[str]:
    """Every string of at least :data:`MIN_CHARS` characters in the YAML and JSON files of
    ``tests/data``, each once, sorted."""
    found: set[str] = set()
    for path in sorted([*DATA.rglob("*.yaml"), *DATA.rglob("*.json")]):
        text = path.read_text(encoding="utf-8")
        try:
            data = load_yaml(text) if path.suffix == ".yaml" else json.loads(text)
        except Exception:  # a file that is not data (a fixture of bad input) holds no texts
            continue
        _strings(data, found)
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", default=list(DEFAULT_CASES))
    parser.add_argument("--dump", help="write every result as JSON to this file")
    args = parser.parse_args()
    texts = project_texts()
    cases = catalogue().cases
    started = time.process_time()
    results: dict[str, Any] = {"validations": {}, "rules": {}}
    for name in args.cases:
        case = cases.get(name).item
        for text in texts:
            key = f"{name}|{hashlib.md5(text.encode()).hexdigest()}"
            results["validations"][key] = validate_turn(text, case).model_dump(mode="json")
    for text in texts:
        key = hashlib.md5(text.encode()).hexdigest()
        results["rules"][key] = [rule.find(text) for rule in safety_rules()]
    cpu = time.process_time() - started
    encoded = json.dumps(results, sort_keys=True)
    if args.dump:
        Path(args.dump).write_text(encoded, encoding="utf-8")
    digest = hashlib.md5(encoded.encode()).hexdigest()
    print(f"{len(texts)} texts x {len(args.cases)} cases: {cpu:.1f} s CPU, findings {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
