from curation.references import read_references

NATBIB = r"""\begin{thebibliography}{10}
\bibitem[Smith et~al.(2020)]{smith2020}
J.~Smith, K.~M{\"u}ller.
\newblock Learn-
ing to fly.
\newblock In \emph{Proc. of X}, 2020.

\bibitem{erdos} P.~Erd\H{o}s. \newblock Title two. \newblock arXiv:2101.00002, 2021.
\end{thebibliography}
"""

BIBLATEX = r"""\refsection{0}
  \entry{vaswani2017}{inproceedings}{}
    \name{author}{2}{}{%
      {{hash=1}{family={Vaswani},familyi={V\bibinitperiod},given={Ashish}}}%
      {{hash=2}{family={Shazeer},familyi={S\bibinitperiod},given={Noam}}}%
    }
    \field{title}{Attention is All you Need}
    \field{booktitle}{Advances in Neural Information Processing Systems}
    \field{year}{2017}
    \verb{doi}
    \verb 10.5555/3295222.3295349
    \endverb
  \endentry
\endrefsection
"""


def test_bibitems_with_natbib_labels_accents_and_newblocks() -> None:
    refs = list(read_references(NATBIB))
    assert [(r.index, r.label) for r in refs] == [(1, "smith2020"), (2, "erdos")]
    assert refs[0].raw == "J. Smith, K. Müller. Learn- ing to fly. In Proc. of X, 2020."
    assert refs[0].fields["printed_label"] == "Smith et al.(2020)"
    assert refs[1].raw == "P. Erdős. Title two. arXiv:2101.00002, 2021."


def test_biblatex_entries() -> None:
    (ref,) = read_references(BIBLATEX, "bbl")
    assert ref.label == "vaswani2017"
    assert ref.fields["author"] == "Vaswani and Shazeer"
    assert ref.fields["doi"] == "10.5555/3295222.3295349"
    assert ref.raw.startswith("Vaswani and Shazeer. 2017. Attention is All you Need.")
