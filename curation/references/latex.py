"""Turn LaTeX markup in references into plain Unicode text."""

from __future__ import annotations

import re
import unicodedata

from pylatexenc.latex2text import LatexNodes2Text

_CONVERTER = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)
_URL_MACRO = re.compile(r"\\(?:url|path)\s*\{([^{}]*)\}")
# Only the URL argument is kept whole; the text argument is ordinary text (REVTeX nests
# \bibfield and \bibinfo groups in it).
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}")
# Macros of BibTeX-made .bbl files (REVTeX, natbib, biblatex) that print nothing or a fixed text.
_BBL_MACROS = (
    (re.compile(r"\\doibase\s*"), "https://doi.org/"),
    (re.compile(r"\\Eprint\s*\{[^{}]*\}\s*"), ""),  # \Eprint {url} {arXiv:…}: the text stays
    (re.compile(r"\\BibitemShut\s*\{\w*\}|\\(?:BibitemOpen|bibitemStop|bibitemNoStop)\b"), ""),
    (re.compile(r"\\(?:selectlanguage|bibAnnoteFile|bibAnnote)\s*\{[^{}]*\}"), ""),
    (re.compile(r"\\href@noop\s*(?:\{\s*\})?"), ""),
    (re.compile(r"\\bibrangedash\b\s*"), "\u2013"),
    (re.compile(r"\\urlprefix\b\s*"), "URL "),
)
_BBL_HINT = re.compile(
    r"\\(?:doibase|Eprint|Bibitem|bibitem|selectlanguage|bibAnnote|href@|bibrangedash|urlprefix)"
)
# In a URL, "\_" means "_" (hyperref's \href reads it so; authors write it for \url too).
_URL_ESCAPE = re.compile(r"\\([_%#&])")
# A lone "%" in a reference is a literal (URL escapes, percentages), never a comment.
_BARE_PERCENT = re.compile(r"(?<!\\)%")
_PLACEHOLDER = "\uf8ff{}\uf8ff"
_PLACEHOLDER_RE = re.compile("\uf8ff(\\d+)\uf8ff")

# The common cases, done here because pylatexenc costs about a millisecond per call.
_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
_ACCENT = re.compile(r"\{?\\([\"'`^~=.]|[uvHckrdb](?![A-Za-z]))\s*\{?\\?([A-Za-z])\}?\}?")
_LETTERS = {
    "ss": "ß",
    "o": "ø",
    "O": "Ø",
    "l": "ł",
    "L": "Ł",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "aa": "å",
    "AA": "Å",
    "i": "ı",
    "j": "ȷ",
}
_LETTER = re.compile(r"\{?\\(ss|ae|AE|oe|OE|aa|AA|[oOlLij])(?![A-Za-z])\s*\}?")
_STYLE = re.compile(
    r"\\(?:(?:emph|textit|textbf|textsc|textrm|texttt|textsf|mbox|natexlab|enquote|em|it|bf|"
    r"sc|rm|tt|newblock|relax|bibnamefont|bibfnamefont|citenamefont|bibinitperiod|"
    r"bibnamedelim[a-d]|bibinitdelim)\b|(?:bibinfo|bibfield)\s*\{\w+\})\s*"
)
_ESCAPED = re.compile(r"\\([&%$#_{}])")
_DASHES = (("---", "\u2014"), ("--", "\u2013"), ("``", "\u201c"), ("''", "\u201d"))


def _fast(text: str) -> str:
    text = _ACCENT.sub(lambda m: unicodedata.normalize("NFC", m[2] + _ACCENTS[m[1]]), text)
    text = _LETTER.sub(lambda m: _LETTERS[m[1]], text)
    text = _STYLE.sub("", text)
    text = _ESCAPED.sub(lambda m: "\uf8fe" + m[1], text)  # protect escaped braces from removal
    text = text.replace("{", "").replace("}", "").replace("~", " ").replace("\\ ", " ")
    for latex, char in _DASHES:
        text = text.replace(latex, char)
    return text.replace("\uf8fe", "")


# The journal macros of AAS/MNRAS bibliography styles (aas_macros.sty): \\apj prints "ApJ".
# Left alone they vanish, and the reference loses its venue ("2010, , 512, A12").
_JOURNAL_MACROS = {
    "aj": "AJ", "actaa": "Acta Astron.", "araa": "ARA&A", "apj": "ApJ", "apjl": "ApJ",
    "apjs": "ApJS", "ao": "Appl. Opt.", "apss": "Ap&SS", "aap": "A&A", "astap": "A&A",
    "aapr": "A&A Rev.", "aaps": "A&AS", "azh": "AZh", "baas": "BAAS", "icarus": "Icarus",
    "jcap": "JCAP", "jrasc": "JRASC", "memras": "MmRAS", "mnras": "MNRAS", "na": "New A",
    "nar": "New A Rev.", "pra": "Phys. Rev. A", "prb": "Phys. Rev. B", "prc": "Phys. Rev. C",
    "prd": "Phys. Rev. D", "pre": "Phys. Rev. E", "prl": "Phys. Rev. Lett.", "pasa": "PASA",
    "pasp": "PASP", "pasj": "PASJ", "rmxaa": "Rev. Mexicana Astron. Astrofis.",
    "qjras": "QJRAS", "skytel": "S&T", "solphys": "Sol. Phys.", "sovast": "Soviet Ast.",
    "ssr": "Space Sci. Rev.", "zap": "ZAp", "nat": "Nature", "iaucirc": "IAU Circ.",
    "aplett": "Astrophys. Lett.", "gca": "Geochim. Cosmochim. Acta",
    "grl": "Geophys. Res. Lett.", "jcp": "J. Chem. Phys.", "jgr": "J. Geophys. Res.",
    "jqsrt": "JQSRT", "memsai": "Mem. Soc. Astron. Italiana", "nphysa": "Nucl. Phys. A",
    "physrep": "Phys. Rep.", "physscr": "Phys. Scr", "planss": "Planet. Space Sci.",
    "procspie": "Proc. SPIE", "psj": "PSJ", "apjlett": "ApJ",
}  # fmt: skip
_JOURNAL_MACRO = re.compile(
    r"\\(" + "|".join(sorted(_JOURNAL_MACROS, key=len, reverse=True)) + r")(?![A-Za-z])"
)


def latex_to_text(text: str) -> str:
    """Return text with accents, macros and braces converted; URLs are kept verbatim."""
    if "\\" not in text and "{" not in text and "~" not in text:
        return text
    kept: list[str] = []
    if _BBL_HINT.search(text):
        for pattern, replacement in _BBL_MACROS:
            text = pattern.sub(replacement, text)

    def keep(url: str) -> str:
        kept.append(_URL_ESCAPE.sub(r"\1", url))
        return _PLACEHOLDER.format(len(kept) - 1)

    if "\\" in text:
        text = _JOURNAL_MACRO.sub(lambda m: _JOURNAL_MACROS[m[1]], text)
    text = _HREF.sub(lambda m: keep(m[1]) + " ", text)
    text = _URL_MACRO.sub(lambda m: keep(m[1]), text)
    text = re.sub(r"https?://\S+", lambda m: keep(m[0]), text)
    converted = _fast(text)
    if "\\" in converted:
        try:
            # Without the markup pylatexenc does not know, whose arguments it would print.
            converted = _CONVERTER.latex_to_text(_BARE_PERCENT.sub(r"\\%", _STYLE.sub("", text)))
        except Exception:  # pylatexenc raises assorted errors on broken markup; keep the input
            pass
    converted = converted.replace("\u00a0", " ")
    return _PLACEHOLDER_RE.sub(lambda m: kept[int(m[1])], converted)
