#!/usr/bin/env python3
"""Writes a Smithy JSON AST with one very wide structure, to measure rebound-codegen's memory on it.

One service with one error, whose `Detail` member targets a structure of
MEMBERS members (a string, an integer or a timestamp each, every one
documented). With --error, the error itself has the members instead. The
output is the same on every run.

    python3 codegen/scripts/wide_model.py > /tmp/wide.json   # 100,000 members, 16.7 MB
    python3 codegen/scripts/wide_model.py --error > /tmp/wide-error.json
    python3 codegen/scripts/wide_model.py --compact > /tmp/wide-compact.json   # 9.9 MB

Then, for peak memory (the "Maximum resident set size" line):

    cargo build --release -p rebound-codegen
    /usr/bin/time -v target/release/rebound-codegen /tmp/wide.json -o /tmp/wide.rs
"""

import argparse
import json
import sys

NS = "com.example.wide"
TARGETS = ["smithy.api#String", "smithy.api#Integer", "smithy.api#Timestamp"]


def members(count):
    return {
        f"Field{index:06}": {
            "target": TARGETS[index % len(TARGETS)],
            "traits": {"smithy.api#documentation": f"Field {index}."},
        }
        for index in range(count)
    }


def model(count, on_error):
    wide = members(count)
    error_members = {"message": {"target": "smithy.api#String"}}
    shapes = {
        f"{NS}#WideService": {
            "type": "service",
            "version": "2024-01-01",
            "errors": [{"target": f"{NS}#WideException"}],
        },
        f"{NS}#WideException": {
            "type": "structure",
            "members": error_members,
            "traits": {"smithy.api#error": "client"},
        },
    }
    if on_error:
        error_members.update(wide)
    else:
        error_members["Detail"] = {"target": f"{NS}#Wide"}
        shapes[f"{NS}#Wide"] = {"type": "structure", "members": wide}
    return {"smithy": "2.0", "shapes": shapes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=100_000)
    parser.add_argument("--error", action="store_true", help="put the members on the error itself")
    parser.add_argument("--compact", action="store_true", help="no indentation or spaces")
    args = parser.parse_args()
    if args.compact:
        json.dump(model(args.members, args.error), sys.stdout, separators=(",", ":"))
    else:
        json.dump(model(args.members, args.error), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
