#!/usr/bin/env python3
"""Checks that no crate of the workspace needs a newer rustc than it declares.

For every workspace member, walks its normal and build dependencies (all features on,
as CI builds them; dev-dependencies are the tests' and may need more) and fails if any
declares a `rust-version` above the member's own. Only rebound-smithy (and the facade's
optional `smithy` feature, which pulls it) may need more than the workspace's 1.88: the
AWS crates declare 1.94.1.
"""
import json
import subprocess
import sys


def parse(version):
    return tuple(int(part) for part in version.split(".")) + (0,) * (3 - version.count(".") - 1)


def main():
    metadata = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--all-features", "--locked"]))
    packages = {package["id"]: package for package in metadata["packages"]}
    nodes = {node["id"]: node for node in metadata["resolve"]["nodes"]}
    members = metadata["workspace_members"]
    failures = []
    for member in members:
        package = packages[member]
        declared = package.get("rust_version")
        if declared is None:
            continue
        limit = parse(declared)
        # The facade's `smithy` feature is exempt: it is rebound-smithy's, which says so.
        exempt = {"rebound-smithy"}
        seen = set()
        stack = [member]
        while stack:
            current = stack.pop()
            for dep in nodes[current]["deps"]:
                kinds = {kind["kind"] for kind in dep["dep_kinds"]}
                if kinds <= {"dev"} or dep["pkg"] in seen:
                    continue
                if packages[dep["pkg"]]["name"] in exempt:
                    continue
                seen.add(dep["pkg"])
                stack.append(dep["pkg"])
        for dep in seen:
            needed = packages[dep].get("rust_version")
            if needed and parse(needed) > limit:
                failures.append(f"{package['name']} (rust-version {declared}) depends on "
                                f"{packages[dep]['name']} {packages[dep]['version']}, "
                                f"which needs {needed}")
    for failure in sorted(set(failures)):
        print(f"error: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"rust-version: {len(members)} workspace crates checked, none needs more than it declares")
    return 0


if __name__ == "__main__":
    sys.exit(main())
