#!/usr/bin/env python3
"""Applies an RFC 6902 patch (add, remove, replace, move) to a JSON file and prints whether the
result equals a second file: `apply_patch.py OLD PATCH NEW` exits 0 when PATCH turns OLD into
NEW. In place on Python lists (a replacement is O(1)), so patches of millions of operations on
large arrays apply in seconds, unlike jq's copying setpath."""
import json
import sys


def tokens(pointer):
    if pointer == "":
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def parent(doc, path):
    node = doc
    for t in path[:-1]:
        node = node[int(t)] if isinstance(node, list) else node[t]
    return node, path[-1]


def add(doc, path, value):
    node, last = parent(doc, path)
    if isinstance(node, list):
        node.insert(len(node) if last == "-" else int(last), value)
    else:
        node[last] = value


def remove(doc, path):
    node, last = parent(doc, path)
    return node.pop(int(last)) if isinstance(node, list) else node.pop(last)


def main():
    old, patch, new = (json.load(open(p)) for p in sys.argv[1:4])
    doc = {"": old}
    for op in patch:
        path = [""] + tokens(op["path"])
        if op["op"] == "replace":
            node, last = parent(doc, path)
            node[int(last) if isinstance(node, list) else last] = op["value"]
        elif op["op"] == "add":
            add(doc, path, op["value"])
        elif op["op"] == "remove":
            remove(doc, path)
        elif op["op"] == "move":
            add(doc, path, remove(doc, [""] + tokens(op["from"])))
        else:
            sys.exit("unknown op %r" % op["op"])
    sys.exit(0 if doc[""] == new else "the patch does not turn OLD into NEW")


if __name__ == "__main__":
    main()
