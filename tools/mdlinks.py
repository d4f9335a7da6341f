#!/usr/bin/env python3
"""mdlinks.py - every relative link in the repository's markdown resolves.

Owns: finding the links of a .md file (inline `[text](target)`, images `![alt](target)`,
reference definitions `[name]: target`; not inside fenced code blocks or `code spans`), and
checking each relative one: its file or directory exists, and its `#anchor`, if it points
into a .md file, is a heading there as GitHub names it (lower case, punctuation other
than `-` and `_` dropped, each space a `-`, a repeated heading given -1, -2, ...) or an
HTML `id=`/`name=`. Links with a scheme (https:, mailto:) are not fetched. make test runs
it through tools/test_mdlinks.py (run `md-links`).

    tools/mdlinks.py [ROOT]      print each broken link as FILE:LINE: target: why; exit 1
"""

import os
import re
import sys
import urllib.parse

SKIP_DIRS = {".git", "build"}
FENCE_RE = re.compile(r"^ {0,3}(```+|~~~+)")
ATX_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
INLINE_RE = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]"
                       r"\(\s*(<[^>]*>|[^)\s]*)(?:\s+[\"'(][^)]*)?\)")
REFDEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
HTML_ID_RE = re.compile(r"<[^>]+\b(?:id|name)=[\"']([^\"']+)[\"']")
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading):
    """GitHub's anchor for a heading's text: markdown links and images become their text,
    code spans their content, HTML tags go; then lower case, every character that is not
    a letter, digit, `_`, `-` or space dropped, each space a `-`."""
    t = re.sub(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\([^)]*\)", r"\1", heading)
    t = CODE_SPAN_RE.sub(lambda m: m.group(2), t)
    t = re.sub(r"<[^>]+>", "", t)
    t = re.sub(r"[^\w\- ]", "", t.lower())
    return t.replace(" ", "-")


def scan(text):
    """(anchors, links) of a markdown text: anchors a set (headings numbered as GitHub
    numbers repeats; HTML ids), links [(line number, target)] outside code."""
    anchors, seen, links = set(), {}, []
    lines = text.split("\n")
    fence = None
    for n, line in enumerate(lines, 1):
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        heading = None
        m = ATX_RE.match(line)
        if m:
            heading = m.group(2)
        elif n < len(lines) and line.strip() and re.match(r"^ {0,3}(=+|-+)\s*$", lines[n]) \
                and not line.lstrip().startswith(("|", "-", "*", ">")):
            heading = line.strip()  # a setext heading (text, then === or ---)
        if heading is not None:
            base = slug(heading)
            k = seen.get(base, 0)
            seen[base] = k + 1
            anchors.add(base if k == 0 else "%s-%d" % (base, k))
        anchors.update(HTML_ID_RE.findall(line))
        code_free = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        for m in INLINE_RE.finditer(code_free):
            links.append((n, m.group(2).strip("<>")))
        m = REFDEF_RE.match(code_free)
        if m:
            links.append((n, m.group(1).strip("<>")))
    return anchors, links


def markdown_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and
                         not (d == root and x.startswith(".")))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".md")]
    return out


def check(root, files=None):
    """[(file relative to root, line, target, why)] of every broken relative link."""
    root = os.path.abspath(root)
    cache, bad = {}, []

    def anchors_of(path):
        if path not in cache:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[path] = scan(f.read())
        return cache[path]

    for path in files or markdown_files(root):
        path = os.path.abspath(path)
        rel = os.path.relpath(path, root)
        for line, target in anchors_of(path)[1]:
            if not target or SCHEME_RE.match(target) or target.startswith("//"):
                continue
            file_part, _, anchor = target.partition("#")
            file_part = urllib.parse.unquote(file_part)
            if not file_part:
                dest = path
            elif file_part.startswith("/"):
                dest = os.path.join(root, file_part.lstrip("/"))
            else:
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            if not os.path.exists(dest):
                bad.append((rel, line, target, "no file %s" % os.path.relpath(dest, root)))
                continue
            if not anchor or not dest.endswith(".md") or os.path.isdir(dest):
                continue
            anchor = urllib.parse.unquote(anchor)
            if anchor not in anchors_of(dest)[0] and anchor.lower() not in anchors_of(dest)[0]:
                bad.append((rel, line, target, "no heading #%s in %s" % (
                    anchor, os.path.relpath(dest, root))))
    return bad


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = argv[0] if argv else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bad = check(root)
    for rel, line, target, why in bad:
        print("%s:%d: %s: %s" % (rel, line, target, why))
    print("mdlinks: %d markdown file(s), %d broken link(s)" % (len(markdown_files(root)),
                                                              len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
