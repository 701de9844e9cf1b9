"""Read a LaTeX source tree the way TeX would: find the main file and follow its inputs."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

TEX_SUFFIXES = (".tex", ".ltx", ".latex")
MAX_INPUT_DEPTH = 32  # deeper \input chains are refused, with a warning (TeX allows about 15)
_NAMED_MAIN = ("ms", "main", "paper", "manuscript", "article")  # the last tie-break only
_WIDE_PROBE = 512  # bytes looked at to tell UTF-16 without a byte-order mark

# "%" to the end of the line, the line end and the next line's leading blanks, as TeX drops
# them; an escaped "\%" is text, but "\\%" is a line break followed by a comment.
_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%[^\n]*(?:\n[ \t]*)?")
_COMMENT_ENV = re.compile(r"\\begin\s*\{comment\}.*?(?:\\end\s*\{comment\}|\Z)", re.DOTALL)
_ENDINPUT = re.compile(r"\\endinput(?![A-Za-z@])[^\n]*")
_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_DOCUMENTCLASS = re.compile(r"\\documentclass(?![A-Za-z@])")
_BIBLIOGRAPHY_USE = re.compile(
    r"\\(?:bibliography|addbibresource|printbibliography|nobibliography)(?![A-Za-z@])"
    r"|\\begin\s*\{thebibliography\}"
)
_IFFALSE = re.compile(r"\\iffalse(?![A-Za-z@])")
_CONDITIONAL = re.compile(r"\\(if[A-Za-z@]*|else|fi)(?![A-Za-z@])")
# Macros named \if… that take arguments and are no TeX conditionals: TeX does not count them
# when it skips a false branch.
_NOT_CONDITIONALS = frozenset(
    "ifthenelse iftoggle ifbool ifboolexpr ifboolexpe ifdef ifundef ifcsdef ifcsundef "
    "ifdefempty ifcsempty ifdefvoid ifstrequal ifstrempty ifblank ifnumcomp ifnumequal "
    "ifdimcomp ifdefmacro ifdefstring ifdefstrequal ifcsstring ifltxcounter ifpatchable "
    "ifdefprotected ifdefltxprotected ifcsmacro ifdefparam ifcsparam ifinlist ifentrytype "
    "iffieldundef iffieldequalstr ifnameundef iflistundef ifciteseen ifkomavar".split()
)
# "\let\ifdraft\iffalse" and "\newif\ifdraft" name a conditional without opening one.
_DEFINED_HERE = re.compile(r"\\(?:let|newif|def|global)\s*(?:\\[A-Za-z@]+\s*=?\s*)?$")
# Each part can match a character one way only: "\{\s*([^{}]*?)\s*\}" could split a run of
# blanks three ways, and "\input{" with thousands of blanks and no "}" never finished. The
# names are stripped afterwards instead.
_INPUT = re.compile(
    r"\\(?:(?P<one>input|include|subfile|InputIfFileExists)(?![A-Za-z@])\s*"
    r"(?:\{(?P<file>[^{}]*)\}|(?P<bare>[^\s{}\\%]+))"
    r"|(?P<two>import|subimport|inputfrom|includefrom|subinputfrom|subincludefrom)\*?\s*"
    r"\{(?P<dir>[^{}]*)\}\s*\{(?P<file2>[^{}]*)\})"
)


def wide_encoding(head: bytes) -> str | None:
    """Return "utf-16"/"utf-32" (or an endian form) when the bytes are text in a wide encoding:
    by its byte-order mark, or, for UTF-16 without one, by the NUL beside every ASCII character
    (TeX sources are mostly ASCII). Read as latin-1, such a file is NULs and no TeX at all."""
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    sample = head[: min(len(head), _WIDE_PROBE) // 2 * 2]  # whole code units only
    if len(sample) < 8:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    half = len(sample) // 2
    if odd > 0.9 * half and even < 0.1 * half:
        return "utf-16-le"
    if even > 0.9 * half and odd < 0.1 * half:
        return "utf-16-be"
    return None


def decode(data: bytes) -> str:
    """Return a source file as text: UTF-16/32 when it is so encoded, else UTF-8, else latin-1
    (older sources are often latin-1)."""
    wide = wide_encoding(data[:_WIDE_PROBE])
    if wide is not None:
        return data.decode(wide, errors="replace").lstrip("\ufeff")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _drop_false_branches(text: str) -> str:
    """Return text without \\iffalse … \\fi (keeping an \\else branch), nesting as TeX does."""
    out: list[str] = []
    pos = 0
    for start in _IFFALSE.finditer(text):
        if start.start() < pos or _DEFINED_HERE.search(
            text, max(0, start.start() - 40), start.start()
        ):
            continue
        out.append(text[pos : start.start()])
        close, otherwise = _matching_fi(text, start.end())
        if otherwise is not None:  # the \else branch is read, and may hold more \iffalse
            out.append(_drop_false_branches(text[otherwise[1] : close[0]]))
        pos = close[1]
    out.append(text[pos:])
    return "".join(out)


def _matching_fi(text: str, pos: int) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """Return the span of the \\fi closing a conditional opened before pos, and of its \\else."""
    depth, otherwise = 0, None
    for m in _CONDITIONAL.finditer(text, pos):
        name = m[1]
        if name == "fi":
            if depth == 0:
                return (m.start(), m.end()), otherwise
            depth -= 1
        elif name == "else":
            if depth == 0 and otherwise is None:
                otherwise = (m.start(), m.end())
        elif name not in _NOT_CONDITIONALS and not _DEFINED_HERE.search(
            text, max(0, m.start() - 40), m.start()
        ):
            depth += 1
    return (len(text), len(text)), otherwise  # never closed: TeX skips to the end of the file


def clean(text: str) -> str:
    """Return TeX text without comments, comment environments, \\iffalse blocks or text after
    \\endinput."""
    text = _COMMENT.sub(r"\1", text)
    text = _COMMENT_ENV.sub("", text)
    if "\\iffalse" in text:
        text = _drop_false_branches(text)
    endinput = _ENDINPUT.search(text)
    return text[: endinput.end()] if endinput else text


@dataclass(frozen=True, slots=True)
class InputCommand:
    """One \\input-like command: where it stands, its target and the folder it is read from."""

    start: int
    end: int
    target: str
    include: bool  # \include and \subfile: always a .tex file
    folder: str | None  # \import{dir}: the folder the target and its own inputs are read from
    relative: bool  # \subimport: the folder is relative to the importing file's folder


def input_commands(text: str) -> Iterator[InputCommand]:
    """Yield the \\input, \\include, \\subfile and \\import commands of cleaned TeX text."""
    for m in _INPUT.finditer(text):
        if m["one"]:
            target = (m["file"] if m["file"] is not None else m["bare"]).strip().strip('"')
            include = m["one"] in ("include", "subfile")
            yield InputCommand(m.start(), m.end(), target, include, None, False)
        else:
            relative = m["two"].startswith("sub")
            target, folder = m["file2"].strip().strip('"'), m["dir"].strip()
            yield InputCommand(m.start(), m.end(), target, False, folder, relative)


def _join(folder: str, name: str) -> str | None:
    path = posixpath.normpath(posixpath.join(folder, name))
    return None if path.startswith("../") or path == ".." or path.startswith("/") else path


def resolve(
    name: str, folders: list[str], files: Mapping[str, object], include: bool = False
) -> str | None:
    """Return the archive path TeX would read for `\\input{name}` from the first folder that has
    it: `name.tex`, then `name` as given (\\include and \\subfile: `name.tex` only)."""
    candidates = [name + ".tex"] if include or not name.lower().endswith(TEX_SUFFIXES) else []
    if not include:
        candidates.append(name)
    for folder in folders:
        for candidate in candidates:
            path = _join(folder, candidate)
            if path is not None and path in files:
                return path
    return None


@dataclass
class TexTree:
    """The main file with everything it inputs spliced in, in TeX's reading order."""

    main: str
    text: str
    files_read: list[str]
    warnings: list[str] = field(default_factory=list)


def _document_body(text: str) -> str:
    """Return what lies between \\begin{document} and \\end{document} (a \\subfile's part)."""
    begin = _BEGIN_DOCUMENT.search(text)
    if not begin:
        return text
    end = _END_DOCUMENT.search(text, begin.end())
    return text[begin.end() : end.start() if end else len(text)]


def read_tree(main: str, sources: Mapping[str, str]) -> TexTree:
    """Return the main file's text with its inputs spliced in depth first, each file read once.

    `sources` maps archive paths to cleaned text. TeX resolves \\input names from the folder it
    runs in (the main file's); the including file's own folder is tried next, as a fallback for
    trees that rely on it (\\import and TEXINPUTS setups).
    """
    tree = TexTree(main, "", [])
    root = posixpath.dirname(main)

    def splice(path: str, base: str, depth: int) -> str:
        tree.files_read.append(path)
        text = sources[path]
        pieces: list[str] = []
        pos = 0
        here = posixpath.dirname(path)
        for command in input_commands(text):
            pieces.append(text[pos : command.start])
            pos = command.end
            folder = base
            if command.folder is not None:
                inner = command.folder.rstrip("/") or "."
                folder = _join(here if command.relative else root, inner) or base
            found = resolve(command.target, [folder, here, root], sources, command.include)
            if found is None:
                continue  # a figure, a missing file, or a macro argument such as #1
            if found in tree.files_read:
                continue  # read once: this also stops \input cycles
            if depth >= MAX_INPUT_DEPTH:
                tree.warnings.append(
                    f"{found}: not read, \\input nested deeper than {MAX_INPUT_DEPTH}"
                )
                continue
            inner_text = splice(found, folder, depth + 1)
            if text[command.start + 1 : command.start + 8] == "subfile":
                inner_text = _document_body(inner_text)
            pieces.append(f"\n{inner_text}\n")
        pieces.append(text[pos:])
        return "".join(pieces)

    text = splice(main, root, 0)
    end = _END_DOCUMENT.search(text)  # TeX stops reading at \end{document}
    tree.text = text[: end.start()] if end else text
    return tree


def _inputs_of(path: str, text: str, sources: Mapping[str, str]) -> set[str]:
    here = posixpath.dirname(path)
    found = set()
    for command in input_commands(text):
        folders = [here]
        if command.folder is not None:
            folders.insert(0, _join(here, command.folder) or here)
        target = resolve(command.target, folders, sources, command.include)
        if target is not None and target != path:
            found.add(target)
    return found


def choose_main(sources: Mapping[str, str], bbl_stems: set[str] | None = None) -> str | None:
    """Return the main file: a \\documentclass file no other file inputs, preferring one with
    \\begin{document}, then a bibliography, then a .bbl named after it, then the most citations
    in its tree; a conventional name (ms, main, paper…) and a shallow path break what remains."""
    tex = {p: t for p, t in sources.items() if p.lower().endswith(TEX_SUFFIXES)}
    candidates = [p for p, t in tex.items() if _DOCUMENTCLASS.search(t)]
    if not candidates:
        return None
    inputs = {p: _inputs_of(p, t, tex) for p, t in tex.items()}
    input_by_other = set().union(*inputs.values()) if inputs else set()
    stems = bbl_stems or set()

    def tree_text(path: str) -> str:
        return read_tree(path, tex).text

    def score(path: str) -> tuple[object, ...]:
        text = tex[path]
        whole = tree_text(path)
        stem = posixpath.splitext(path)[0]
        return (
            path not in input_by_other,
            bool(_BEGIN_DOCUMENT.search(text)),
            bool(_BIBLIOGRAPHY_USE.search(whole)),
            stem in stems,
            whole.count("\\cite") + whole.count("\\nocite") + whole.count("\\bibitem"),
            posixpath.basename(stem).lower() in _NAMED_MAIN,
            -path.count("/"),
        )

    return max(sorted(candidates), key=score)
