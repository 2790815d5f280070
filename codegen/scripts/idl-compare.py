"""Compares two Smithy JSON AST files as models (codegen/src/idl/conformance.rs, `normalize`,
has the rules): exit 0 when they are the same model, else 1 with the first difference."""
import json
import sys


def numbers(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, list):
        return [numbers(v) for v in value]
    if isinstance(value, dict):
        return {k: numbers(v) for k, v in value.items()}
    return value


def normalize(document):
    shapes, applies = {}, []
    for shape_id, shape in document.get("shapes", {}).items():
        if shape.get("type") == "apply":
            applies.append((shape_id, shape.get("traits", {})))
            continue
        shape = numbers(shape)
        if shape.get("type") == "set":
            shape["type"] = "list"
            shape.setdefault("traits", {})["smithy.api#uniqueItems"] = {}
        if shape.get("type") == "operation":
            for key in ("input", "output"):
                shape.setdefault(key, {"target": "smithy.api#Unit"})
        members = shape.setdefault("members", {})
        for key in ("member", "key", "value"):
            if key in shape:
                members[key] = shape.pop(key)
        shapes[shape_id] = shape
    pending = {}
    for shape_id, traits in applies:
        root, _, member = shape_id.partition("$")
        target = shapes.get(root)
        if target is not None and member:
            target = target["members"].get(member)
        if target is None:
            target = pending.setdefault(shape_id, {})
        existing = target.setdefault("traits", {})
        for trait_id, value in numbers(traits).items():
            if isinstance(existing.get(trait_id), list) and isinstance(value, list):
                existing[trait_id] = existing[trait_id] + value
            else:
                existing[trait_id] = value
    for shape in shapes.values():
        for key in [k for k, v in shape.items() if k != "type" and v in ({}, [])]:
            del shape[key]
        for member in shape.get("members", {}).values():
            if member.get("traits") == {}:
                del member["traits"]
    return {"shapes": shapes, "applied": pending, "metadata": numbers(document.get("metadata", {}))}


def first_difference(a, b, path=""):
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)[:80]} against {json.dumps(b)[:80]}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}/{key}: only in the {'second' if key in b else 'first'}"
            found = first_difference(a[key], b[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}/{i}")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {json.dumps(a)[:80]} against {json.dumps(b)[:80]}"


with open(sys.argv[1]) as f:
    first = normalize(json.load(f))
with open(sys.argv[2]) as f:
    second = normalize(json.load(f))
difference = first_difference(first, second)
if difference:
    print(difference)
    sys.exit(1)
