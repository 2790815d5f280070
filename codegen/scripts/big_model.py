#!/usr/bin/env python3
"""Writes a large Smithy JSON AST, to measure rebound-codegen's memory and time.

One AWS-like service with ERRORS error structures (a message, a code, a
Retry-After header and a detail structure each, every shape and member
documented with AWS-style HTML) and operations that list them, ERRORS_PER_OP
each. Each error's documentation has as many paragraphs (on average, and
none for some) as make the file about SIZE_MB megabytes. The output is the
same on every run.

    python3 codegen/scripts/big_model.py > /tmp/big.json   # 20,000 errors, 48.8 MB
    python3 codegen/scripts/big_model.py --errors-per-op 20000 > /tmp/big1op.json   # all on one operation, 48.5 MB
    python3 codegen/scripts/big_model.py --errors 2000 --size-mb 5 > /tmp/small.json

Then, for peak memory (the "Maximum resident set size" line):

    cargo build --release -p rebound-codegen
    /usr/bin/time -v target/release/rebound-codegen /tmp/big.json -o /tmp/big.rs
"""

import argparse
import json
import sys

NS = "com.example.big"

PARAGRAPH = (
    "<p>The request was rejected because <code>{name}</code> could not be "
    "completed for the resource you specified. Check the <a href=\"https://"
    "docs.example.com/{name}.html\">documentation</a> for the limits that apply "
    "to your account, and then retry the request with <i>exponential "
    "backoff</i>.</p> <ul> <li> <p>If the resource is in use, wait until its "
    "state is <code>ACTIVE</code> &amp; try again.</p> </li> <li> <p>If the "
    "limit is exceeded, request an increase through <b>Service Quotas</b>.</p> "
    "</li> </ul> <note> <p>Item {index} of this service's errors.</p> </note>"
)


def docs(name, index, repeat):
    if repeat == 0:
        return short(f"<code>{name}</code> error", index)
    return " ".join(PARAGRAPH.format(name=name, index=index) for _ in range(repeat))


def short(what, index):
    return f"<p>The {what} of error {index}, as the service reports it.</p>"


def model(errors, errors_per_op, repeat):
    shapes = {}
    service_ops = []
    for index in range(errors):
        name = f"Error{index:05}Exception"
        detail = f"Error{index:05}Detail"
        shapes[f"{NS}#{name}"] = {
            "type": "structure",
            "members": {
                "message": {
                    "target": f"{NS}#ErrorMessage",
                    "traits": {"smithy.api#documentation": short("message", index)},
                },
                "Code": {
                    "target": "smithy.api#Integer",
                    "traits": {"smithy.api#documentation": short("code", index)},
                },
                "RetryAfterSeconds": {
                    "target": "smithy.api#Integer",
                    "traits": {
                        "smithy.api#httpHeader": "Retry-After",
                        "smithy.api#documentation": short("retry delay", index),
                    },
                },
                "Detail": {
                    "target": f"{NS}#{detail}",
                    "traits": {"smithy.api#documentation": short("detail", index)},
                },
            },
            "traits": {
                "smithy.api#error": "client" if index % 3 else "server",
                "smithy.api#httpError": 400 if index % 3 else 503,
                "aws.protocols#awsQueryError": {
                    "code": f"AWS.Big.{name}",
                    "httpResponseCode": 400 if index % 3 else 503,
                },
                # `repeat` paragraphs on average (it need not be whole).
                "smithy.api#documentation": docs(
                    name, index, int((index + 1) * repeat) - int(index * repeat)
                ),
            },
        }
        shapes[f"{NS}#{detail}"] = {
            "type": "structure",
            "members": {
                "Reason": {
                    "target": "smithy.api#String",
                    "traits": {"smithy.api#documentation": short("reason", index)},
                },
            },
            "traits": {"smithy.api#documentation": short("detail structure", index)},
        }
    for op in range(0, errors, errors_per_op):
        name = f"Operation{op // errors_per_op:05}"
        service_ops.append({"target": f"{NS}#{name}"})
        shapes[f"{NS}#{name}"] = {
            "type": "operation",
            "input": {"target": "smithy.api#Unit"},
            "output": {"target": "smithy.api#Unit"},
            "errors": [
                {"target": f"{NS}#Error{i:05}Exception"}
                for i in range(op, min(op + errors_per_op, errors))
            ],
            "traits": {"smithy.api#documentation": docs(name, op, 1)},
        }
    shapes[f"{NS}#ErrorMessage"] = {"type": "string"}
    shapes[f"{NS}#BigService"] = {
        "type": "service",
        "version": "2024-01-01",
        "operations": service_ops,
        "traits": {
            "aws.api#service": {"sdkId": "Big"},
            "smithy.api#documentation": docs("BigService", 0, 4),
        },
    }
    return {"smithy": "2.0", "shapes": shapes}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", type=int, default=20_000)
    parser.add_argument("--errors-per-op", type=int, default=10)
    parser.add_argument("--size-mb", type=float, default=48.5)
    args = parser.parse_args()
    # Size the error documentation: measure the file with one paragraph per
    # error, then scale the paragraphs (a fraction of one is possible) to
    # reach the target.
    base = len(json.dumps(model(args.errors, args.errors_per_op, 1), indent=2))
    per_repeat = len(json.dumps(docs("Error00000Exception", 0, 1))) * args.errors
    target = int(args.size_mb * 1_000_000)
    repeat = max(0.0, 1 + (target - base) / per_repeat)
    json.dump(model(args.errors, args.errors_per_op, repeat), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
