#!/usr/bin/env python3
"""Validate empi-bench --json files against bench/schema/result.schema.json.

Uses the jsonschema package when installed; otherwise a small built-in
validator that understands the keywords our schema uses, so the check runs
on machines with a bare Python too.

  validate_json.py FILE.json...      exit 0 if all valid, 1 otherwise
"""
import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schema",
                      "result.schema.json")

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is_type(value, name):
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def mini_validate(value, schema, path="$"):
    """Returns a list of error strings (empty when valid)."""
    errs = []
    types = schema.get("type")
    if types is not None:
        types = types if isinstance(types, list) else [types]
        if not any(_is_type(value, t) for t in types):
            return ["%s: expected %s, got %r" % (path, "/".join(types), value)]
    if "enum" in schema and value not in schema["enum"]:
        errs.append("%s: %r not in %r" % (path, value, schema["enum"]))
    if "minimum" in schema and _is_type(value, "number") and value < schema["minimum"]:
        errs.append("%s: %r < minimum %r" % (path, value, schema["minimum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errs.append("%s: missing required '%s'" % (path, key))
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, sub in value.items():
            if key in props:
                errs += mini_validate(sub, props[key], "%s.%s" % (path, key))
            elif extra is False:
                errs.append("%s: unexpected property '%s'" % (path, key))
            elif isinstance(extra, dict):
                errs += mini_validate(sub, extra, "%s.%s" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            errs += mini_validate(item, schema["items"], "%s[%d]" % (path, i))
    return errs


def validate(doc, schema):
    try:
        import jsonschema
    except ImportError:
        return mini_validate(doc, schema)
    v = jsonschema.Draft202012Validator(schema)
    return ["%s: %s" % ("/".join(map(str, e.path)) or "$", e.message) for e in v.iter_errors(doc)]


def main(argv):
    with open(SCHEMA) as f:
        schema = json.load(f)
    bad = 0
    for path in argv:
        with open(path) as f:
            errs = validate(json.load(f), schema)
        for e in errs:
            print("%s: %s" % (path, e))
        bad += bool(errs)
        if not errs:
            print("%s: valid" % path)
    return 1 if bad or not argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
