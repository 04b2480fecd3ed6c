"""The syntax Swift 6.0.3 (Xcode 16.2, the oldest compiler CI builds with) does not parse, found in
the source text: scripts/check-availability's second half. The type-checked AST it reads for
declarations is the installed compiler's (Swift 6.3), which accepts every later form and records
most of them nowhere (a trailing comma, a raw identifier's spelling), so the forms are read off
the tokens instead, with comments and string literals (their interpolations read as code) set
aside, and the branches of `#if compiler(>=N)` / `#if swift(>=N)` that 6.0.3 skips left out.

Each form is named with its Swift Evolution proposal and the Swift that brought it:
  SE-0439 (6.1)  a trailing comma before `)` or `>` (parameter, argument, tuple, generic
                 parameter and argument lists, an interpolation), before the `]` of a
                 subscript or capture list
                 (an array or dictionary literal's was always legal)
  SE-0449 (6.1)  `nonisolated` on a type or an extension
  SE-0461 (6.2)  `nonisolated(nonsending)`, `@concurrent`
  SE-0438 (6.1)  a key path through a metatype (`\\T.Type.member`)
  SE-0451 (6.2)  a raw identifier (a backquoted name that is not an identifier: `` `a b` ``)
  SE-0481 (6.2)  `weak let`
  SE-0371 (6.1)  `isolated deinit`
  SE-0458 (6.2)  an `unsafe` expression, `@unsafe` / `@safe`
  SE-0452 (6.2)  a value generic parameter (`<let N: Int>`)
  SE-0476 (6.2)  `@abi(…)`
"""
import re

# Modifiers that may stand between `nonisolated` and the declaration it marks, or `weak` and `let`.
MODIFIERS = {"public", "private", "fileprivate", "internal", "package", "open", "final", "indirect", "static",
             "class", "nonisolated", "weak", "unowned", "lazy", "override", "required", "convenience", "dynamic"}
TYPE_DECLARATIONS = {"struct", "class", "enum", "extension", "protocol", "actor"}
# Words after which `[` opens a literal, never a subscript, and after which `unsafe` is a name.
KEYWORDS = {"return", "in", "case", "try", "await", "throw", "else", "is", "as", "where", "yield", "repeat", "then",
            "if", "guard", "while", "switch", "for", "let", "var", "func", "some", "any", "inout", "defer", "do",
            "catch", "import", "typealias", "init", "subscript", "discard", "consume", "copy", "each"}
NOT_AN_EXPRESSION_AFTER_UNSAFE = {"let", "var", "func", "in", "else", "is", "as", "where"}
OPERATOR_CHARACTERS = set("/=-+!*%<>&|^~?.")
MINIMUM = (6, 0, 3)


class Token:
    __slots__ = ("kind", "text", "offset", "spaced")

    def __init__(self, kind, text, offset, spaced):
        # kind: "name" (identifier or keyword, `#if`, `@attribute`), "raw" (backquoted name),
        # "number", "string", "punct" (one character), "newline"; spaced: whitespace before it.
        self.kind, self.text, self.offset, self.spaced = kind, text, offset, spaced


class Lexer:
    def __init__(self, text):
        self.text, self.tokens = text, []

    def run(self):
        self.code(0, nested=False)
        return self.tokens

    def add(self, kind, text, offset, spaced):
        self.tokens.append(Token(kind, text, offset, spaced))

    def code(self, i, nested):
        """Tokens from i; with `nested`, up to the `)` that closes an interpolation (returns after it)."""
        text, depth, spaced = self.text, 0, True
        while i < len(text):
            c = text[i]
            if c == "\n":
                self.add("newline", c, i, True)
                i, spaced = i + 1, True
                continue
            if c in " \t\r":
                i, spaced = i + 1, True
                continue
            if text.startswith("//", i):
                end = text.find("\n", i)
                i, spaced = (len(text) if end < 0 else end), True
                continue
            if text.startswith("/*", i):
                i, spaced = self.block_comment(i), True
                continue
            start = i
            hashes = 0
            while c == "#" and text.startswith("#", i + hashes):
                hashes += 1
            if text.startswith('"', i + hashes):
                i = self.string(i, hashes)
                self.add("string", text[start:i], start, spaced)
            elif text.startswith("/", i + hashes) and (hashes or self.regex_can_start(spaced, i)) and self.regex_end(i, hashes):
                i = self.regex_end(i, hashes)
                self.add("string", text[start:i], start, spaced)
            elif c == "`":
                end = text.find("`", i + 1)
                end = len(text) - 1 if end < 0 else end
                self.add("raw", text[i + 1:end], start, spaced)
                i = end + 1
            elif c.isalpha() or c == "_" or c in "#@$" or ord(c) > 127:
                i += 1
                while i < len(text) and (text[i].isalnum() or text[i] == "_" or ord(text[i]) > 127):
                    i += 1
                self.add("name", text[start:i], start, spaced)
            elif c.isdigit():
                while i < len(text) and (text[i].isalnum() or text[i] in "_." and i + 1 < len(text) and text[i + 1].isalnum()):
                    i += 1
                self.add("number", text[start:i], start, spaced)
            else:
                if nested and c == ")" and depth == 0:
                    self.add("punct", c, start, spaced)  # `"\(x,)"`: a trailing comma before it counts
                    return i + 1
                depth += {"(": 1, ")": -1}.get(c, 0)
                self.add("punct", c, start, spaced)
                i += 1
            spaced = False
        return i

    def block_comment(self, i):
        depth = 0
        while i < len(self.text):
            if self.text.startswith("/*", i):
                depth, i = depth + 1, i + 2
            elif self.text.startswith("*/", i):
                depth, i = depth - 1, i + 2
                if depth == 0:
                    return i
            else:
                i += 1
        return i

    def string(self, i, hashes):
        """A string literal from its first `#` or quote; returns the index after it. Its
        interpolations (`\\(…)`, `\\#(…)` in a raw string) are read as code."""
        text = self.text
        i += hashes
        multiline = text.startswith('"""', i)
        close = ('"""' if multiline else '"') + "#" * hashes
        escape = "\\" + "#" * hashes
        i += 3 if multiline else 1
        while i < len(text):
            if text.startswith(escape, i):
                i += len(escape)
                if i < len(text) and text[i] == "(":
                    i = self.code(i + 1, nested=True)
                else:
                    i += 1
            elif text.startswith(close, i):
                return i + len(close)
            elif text[i] == "\n" and not multiline:
                return i
            else:
                i += 1
        return i

    def regex_can_start(self, spaced, i):
        """A bare `/…/` regex literal stands where an expression starts and does not begin with a
        space; `a / b` and `a/b` are divisions."""
        if i + 1 >= len(self.text) or self.text[i + 1] in " \t\n/*=":
            return False
        previous = self.tokens[-1] if self.tokens else None
        return previous is None or (previous.kind == "punct" and previous.text in "(,:=[{!&|?") or \
            (previous.kind == "name" and previous.text in KEYWORDS)

    def regex_end(self, i, hashes):
        """The index after a regex literal starting at i (its `#`s, `/`), or 0 when there is none
        on the line (a division or an operator)."""
        text = self.text
        j, close = i + hashes + 1, "/" + "#" * hashes
        while j < len(text) and (hashes or text[j] != "\n"):
            if text[j] == "\\":
                j += 2
            elif text.startswith(close, j):
                return j + len(close)
            else:
                j += 1
        return 0


def compiler_condition_skips(condition):
    """True when a `#if`/`#elseif` condition is `compiler(>=N)` or `swift(>=N)` with N after
    6.0.3: its branch is not parsed by 6.0.3."""
    found = re.fullmatch(r"\s*(?:compiler|swift)\s*\(\s*>=\s*(\d+(?:\.\d+)*)\s*\)\s*", condition)
    if not found:
        return None
    version = tuple(int(p) for p in found.group(1).split("."))
    return version > MINIMUM


def active(tokens):
    """The tokens 6.0.3 parses, without the newlines: a branch of `#if compiler(>=N)` or
    `#if swift(>=N)` with N after 6.0.3 left out (its `#else` kept)."""
    kept, skipping = [], []  # for each open #if: whether its current branch is left out
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.kind == "name" and token.text in ("#if", "#elseif", "#else", "#endif"):
            end = i + 1
            while end < len(tokens) and tokens[end].kind != "newline":
                end += 1
            condition = "".join(t.text for t in tokens[i + 1:end])
            if token.text == "#if":
                skipping.append(compiler_condition_skips(condition) is True)
            elif skipping and token.text == "#elseif":
                skipping[-1] = compiler_condition_skips(condition) is True
            elif skipping and token.text == "#else":
                skipping[-1] = False
            elif skipping:
                skipping.pop()
            i = end
            continue
        if token.kind != "newline" and not any(skipping):
            kept.append(token)
        i += 1
    return kept


FORMS = {
    "trailing comma": "a trailing comma in a parameter, argument, tuple, generic or subscript list (SE-0439, Swift 6.1)",
    "nonisolated type": "`nonisolated` on a type or an extension (SE-0449, Swift 6.1)",
    "nonsending": "`nonisolated(nonsending)` (SE-0461, Swift 6.2)",
    "concurrent": "`@concurrent` (SE-0461, Swift 6.2)",
    "metatype key path": "a key path through a metatype (SE-0438, Swift 6.1)",
    "raw identifier": "a raw identifier (SE-0451, Swift 6.2)",
    "weak let": "`weak let` (SE-0481, Swift 6.2)",
    "isolated deinit": "`isolated deinit` (SE-0371, Swift 6.1)",
    "unsafe": "an `unsafe` expression (SE-0458, Swift 6.2)",
    "unsafe attribute": "`@unsafe` / `@safe` (SE-0458, Swift 6.2)",
    "value generic": "a value generic parameter `<let N: Int>` (SE-0452, Swift 6.2)",
    "abi": "`@abi` (SE-0476, Swift 6.2)",
}


def matching_open(tokens, index, open_text, close_text):
    depth = 0
    for j in range(index, -1, -1):
        if tokens[j].kind == "punct" and tokens[j].text == close_text:
            depth += 1
        elif tokens[j].kind == "punct" and tokens[j].text == open_text:
            depth -= 1
            if depth == 0:
                return j
    return None


def bracket_is_subscript_or_capture(tokens, close):
    """The `]` at `close` ends a subscript's arguments (`a[1,]`: `[` right after a name, `)`, `]`,
    `?` or `!`) or a closure's capture list (`{ [x,] in`); otherwise an array or dictionary literal."""
    opening = matching_open(tokens, close, "[", "]")
    if opening is None or opening == 0:
        return False
    before, after = tokens[opening - 1], tokens[close + 1] if close + 1 < len(tokens) else None
    if before.kind == "punct" and before.text == "{" and after is not None and \
            ((after.kind == "name" and after.text == "in") or (after.kind == "punct" and after.text == "(")):
        return True
    if tokens[opening].spaced:
        return False
    return (before.kind == "name" and before.text not in KEYWORDS and not before.text.startswith(("#", "@"))) or \
        (before.kind == "punct" and before.text in ")]?!")


def findings(text):
    """(character offset, form) for each use of syntax Swift 6.0.3 does not parse."""
    tokens = active(Lexer(text).run())
    found = []

    def at(i):
        return tokens[i] if 0 <= i < len(tokens) else Token("eof", "", len(text), True)

    def is_punct(i, value):
        return at(i).kind == "punct" and at(i).text == value

    def is_name(i, value):
        return at(i).kind == "name" and at(i).text == value

    for i, token in enumerate(tokens):
        if token.kind == "punct" and token.text == ",":
            following = at(i + 1)
            if following.kind == "punct" and following.text == ")":
                found.append((token.offset, "trailing comma"))
            elif following.kind == "punct" and following.text == ">" and not (
                    at(i + 2).kind == "punct" and at(i + 2).text in OPERATOR_CHARACTERS and not at(i + 2).spaced):
                found.append((token.offset, "trailing comma"))
            elif following.kind == "punct" and following.text == "]" and bracket_is_subscript_or_capture(tokens, i + 1):
                found.append((token.offset, "trailing comma"))
        elif token.kind == "name" and token.text == "nonisolated":
            if is_punct(i + 1, "(") and is_name(i + 2, "nonsending") and is_punct(i + 3, ")"):
                found.append((token.offset, "nonsending"))
                continue
            j = i + 1
            while at(j).kind == "name" and at(j).text in MODIFIERS and at(j).text != "class":
                j += 1
            # `nonisolated class func f()` is a class member (old), `nonisolated class C` a type.
            member = at(j).text == "class" and at(j + 1).kind == "name" and (
                at(j + 1).text in MODIFIERS or at(j + 1).text in KEYWORDS or at(j + 1).text in ("mutating", "deinit"))
            if at(j).kind == "name" and at(j).text in TYPE_DECLARATIONS and not member:
                found.append((token.offset, "nonisolated type"))
        elif token.kind == "name" and token.text == "@concurrent":
            found.append((token.offset, "concurrent"))
        elif token.kind == "name" and token.text == "@abi":
            found.append((token.offset, "abi"))
        elif token.kind == "name" and token.text in ("@unsafe", "@safe"):
            found.append((token.offset, "unsafe attribute"))
        elif token.kind == "punct" and token.text == "\\" and at(i + 1).kind == "name":
            # \Root.Type.member: the root's components, generic arguments skipped.
            j, components = i + 1, []
            while at(j).kind == "name":
                components.append(at(j).text)
                j += 1
                if is_punct(j, "<"):
                    depth = 0
                    while j < len(tokens):
                        depth += {"<": 1, ">": -1}.get(at(j).text if at(j).kind == "punct" else "", 0)
                        j += 1
                        if depth == 0:
                            break
                if not (is_punct(j, ".") and at(j + 1).kind == "name" and not at(j + 1).spaced):
                    break
                j += 1
            if any(c in ("Type", "Protocol") for c in components[1:-1] if c) and len(components) > 2:
                found.append((token.offset, "metatype key path"))
        elif token.kind == "raw" and not token.text.isidentifier() and not re.fullmatch(r"\$?[A-Za-z_][A-Za-z0-9_]*", token.text):
            found.append((token.offset, "raw identifier"))
        elif token.kind == "name" and token.text == "weak":
            j = i + 1
            while at(j).kind == "name" and at(j).text in MODIFIERS:
                j += 1
            if is_name(j, "let"):
                found.append((token.offset, "weak let"))
        elif token.kind == "name" and token.text == "isolated" and is_name(i + 1, "deinit"):
            found.append((token.offset, "isolated deinit"))
        elif token.kind == "name" and token.text == "unsafe":
            before, after = at(i - 1), at(i + 1)
            if before.kind == "punct" and before.text in ".(@":
                continue
            if before.kind == "name" and before.text in ("let", "var", "func", "case", "typealias"):
                continue
            if after.kind in ("name", "raw", "number", "string") and after.text not in NOT_AN_EXPRESSION_AFTER_UNSAFE \
                    or (after.kind == "punct" and after.text in "&[" and after.spaced):
                if text.count("\n", token.offset, after.offset) == 0:
                    found.append((token.offset, "unsafe"))
        elif token.kind == "punct" and token.text == "<" and is_name(i + 1, "let") and not token.spaced:
            found.append((token.offset, "value generic"))
    return found
