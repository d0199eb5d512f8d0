"""Validates radar's JSON output against its documented schema (docs/json).

    python3 validate_json.py SCHEMA [--lines] < OUTPUT

--lines: each line is a document (radar events --json). Prints each error
with where it is, and exits 1 on any; 0 when every document is valid.
"""
import json
import sys

import jsonschema


def main():
    schema_path, lines = sys.argv[1], "--lines" in sys.argv[2:]
    with open(schema_path) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    text = sys.stdin.read()
    documents = [line for line in text.splitlines() if line.strip()] if lines else [text]
    errors = 0
    for n, document in enumerate(documents, 1):
        try:
            value = json.loads(document)
        except json.JSONDecodeError as e:
            print(f"document {n}: not JSON: {e}")
            errors += 1
            continue
        for error in validator.iter_errors(value):
            print(f"document {n}: {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}")
            errors += 1
    if not documents:
        print("no document")
        errors += 1
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
