"""Documented functions of the languages `bench/shortq.py`'s own finders do not read: PHP, C#,
Kotlin, Swift, Zig and shell (braces), Ruby, Lua and Elixir (`end`), Haskell (layout).

Each finder returns what `shortq.py`'s do: (name, doc start, doc end, def start, def end, doc
text), 0-based inclusive, for a function with a doc comment right above it (attributes and
annotations between are allowed). Naive line patterns, as the other finders: a question is
only kept when the pattern is sure, and a missed function is just not sampled.
"""

import re

EXT = {".php": "php", ".cs": "csharp", ".kt": "kotlin", ".swift": "swift", ".zig": "zig",
       ".sh": "bash", ".rb": "ruby", ".lua": "lua", ".ex": "elixir", ".hs": "haskell"}

BRACE_SIG = {
    "php": re.compile(r"\s*((public|protected|private|static|final|abstract)\s+)*function\s+&?(\w+)\s*\("),
    "csharp": re.compile(r"\s*((public|protected|private|internal|static|virtual|override|abstract|async|"
                         r"sealed|new|unsafe|extern|partial)\s+)+[\w<>\[\], ?.]+\s+(\w+)\s*(<[^>]*>)?\s*\([^;]*$"),
    "kotlin": re.compile(r"\s*((public|private|internal|protected|override|suspend|inline|open|abstract|final|"
                         r"operator|infix|tailrec|actual|expect)\s+)*fun\s+(<[^>]*>\s*)?([\w.<>?]+\.)?(\w+)\s*\("),
    "swift": re.compile(r"\s*((public|private|internal|fileprivate|open|static|final|override|mutating|"
                        r"class|@\w+)\s+)*func\s+(\w+)\s*[<(]"),
    "zig": re.compile(r"\s*(pub\s+)?(export\s+)?(inline\s+)?fn\s+(\w+)\s*\("),
    "bash": re.compile(r"\s*(function\s+)?([A-Za-z_][\w-]*)\s*\(\)\s*\{?\s*$"),
}
# Line-comment doc marks per language; block `/** */` docs are read for the others.
LINE_DOC = {"csharp": "///", "swift": "///", "zig": "///", "bash": "#", "ruby": "#", "lua": "--"}
END_SIG = {
    "ruby": re.compile(r"(\s*)def\s+(self\.)?(\w+[?!=]?)"),
    "lua": re.compile(r"(\s*)(local\s+)?function\s+([\w.:]*[.:])?(\w+)\s*\("),
    "elixir": re.compile(r"(\s*)defp?\s+(\w+[?!]?)\s*[(\s]"),
}
SKIP_ABOVE = re.compile(r"\s*(#\[|@\w|\[\w)")  # attributes and annotations between doc and def


def brace_end(lines, start):
    """Last line of the block opened at or after `start` (naive brace count)."""
    depth, opened = 0, False
    for x in range(start, len(lines)):
        for ch in lines[x]:
            if ch == "{":
                depth, opened = depth + 1, True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return x
        if not opened and x > start + 3:
            return None
    return None


def keyword_end(lines, start, indent):
    """The `end` line closing a definition opened at `start` with `indent`."""
    for x in range(start + 1, len(lines)):
        line = lines[x]
        if line.strip() and len(line) - len(line.lstrip()) < indent:
            return None
        if re.match(r"\s*end\b", line) and len(line) - len(line.lstrip()) == indent:
            return x
    return None


def doc_above(lines, i, lang):
    """(doc start, doc end, text) of the doc comment right above line `i`, or None."""
    j = i - 1
    while j >= 0 and SKIP_ABOVE.match(lines[j]) and not lines[j].lstrip().startswith("@doc"):
        j -= 1
    if j < 0:
        return None
    if lang == "elixir":
        return elixir_doc(lines, j)
    mark = LINE_DOC.get(lang)
    if mark is None or lines[j].strip().endswith("*/"):
        return block_doc(lines, j)
    if not lines[j].lstrip().startswith(mark) or lines[j].lstrip().startswith("#!"):
        return None
    k = j
    while k - 1 >= 0 and lines[k - 1].lstrip().startswith(mark):
        k -= 1
    text = "\n".join(re.sub(r"^\s*" + re.escape(mark) + r"+[-|!]?", "", l) for l in lines[k:j + 1])
    text = re.sub(r"</?(summary|remarks|para)>", "", text)
    return k, j, text


def block_doc(lines, j):
    if not lines[j].strip().endswith("*/"):
        return None
    k = j
    while k >= 0 and "/**" not in lines[k]:
        if "/*" in lines[k]:
            return None
        k -= 1
    if k < 0:
        return None
    text = "\n".join(re.sub(r"^\s*(/\*\*|\*/|\*)?", "", l).replace("*/", "") for l in lines[k:j + 1])
    return k, j, text


def elixir_doc(lines, j):
    """An `@doc \"\"\" … \"\"\"` heredoc ending at line `j`."""
    if lines[j].strip() != '"""':
        return None
    k = j - 1
    while k >= 0 and not re.match(r'\s*@doc\s+"""\s*$', lines[k]):
        if '"""' in lines[k]:
            return None
        k -= 1
    if k < 0:
        return None
    return k, j, "\n".join(lines[k + 1:j])


def haskell_functions(lines):
    """Top-level functions with a `-- |` comment above their type signature."""
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"([a-z_]\w*)\s*::", line)
        if not m or i == 0 or not lines[i - 1].startswith("--"):
            continue
        k = i - 1
        while k - 1 >= 0 and lines[k - 1].startswith("--"):
            k -= 1
        if not lines[k].startswith("-- |"):
            continue
        end = i
        for x in range(i + 1, len(lines)):
            if lines[x].strip() and not lines[x][0].isspace() and not lines[x].startswith(m.group(1)):
                break
            if lines[x].strip():
                end = x
        text = "\n".join(re.sub(r"^--\s*\|?", "", l) for l in lines[k:i])
        out.append((m.group(1), k, i - 1, i, end, text))
    return out


def functions(lines, lang):
    """Documented functions of `lang`'s source `lines`."""
    if lang == "haskell":
        return haskell_functions(lines)
    out = []
    for i, line in enumerate(lines):
        if lang in BRACE_SIG:
            m = BRACE_SIG[lang].match(line)
            end = brace_end(lines, i) if m else None
        else:
            m = END_SIG[lang].match(line)
            end = keyword_end(lines, i, len(m.group(1))) if m else None
        if not m or end is None or re.match(r"\s*(//|#|\*|/\*|--)", line):
            continue
        names = [g for g in m.groups() if g and re.fullmatch(r"\w+[?!=]?", g)]
        name = names[-1] if names else None
        if not name or name in {"if", "for", "while", "switch", "return", "catch", "new", "function", "def"}:
            continue
        doc = doc_above(lines, i, lang)
        if doc:
            out.append((name, doc[0], doc[1], i, end, doc[2]))
    return out
