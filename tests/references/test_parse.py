import json
from pathlib import Path

import pytest

from curation.references import normalize_title, parse_reference

LABELLED = Path(__file__).parent / "fixtures" / "labelled_references.jsonl"


@pytest.mark.parametrize(
    ("raw", "title", "surname", "year"),
    [
        (
            "Ashish Vaswani, Noam Shazeer, and Illia Polosukhin. 2017. Attention is All you Need. In NeurIPS.",
            "Attention is All you Need",
            "Vaswani",
            2017,
        ),
        (
            "Kahneman, D., & Tversky, A. (1979). Prospect theory: An analysis of decision under risk. Econometrica, 47(2), 263–291.",
            "Prospect theory: An analysis of decision under risk",
            "Kahneman",
            1979,
        ),
        (
            'K. He, X. Zhang, S. Ren, and J. Sun, "Deep residual learning for image recognition," in Proc. CVPR, 2016, pp. 770–778.',
            "Deep residual learning for image recognition",
            "He",
            2016,
        ),
        (
            "de Moura, L., Bjørner, N.: Z3: an efficient SMT solver. In: TACAS 2008. LNCS, vol. 4963, pp. 337–340. Springer (2008)",
            "Z3: an efficient SMT solver",
            "de Moura",
            2008,
        ),
        (
            "Knuth, D. E. The Art of Computer Programming, Volume 1: Fundamental Algorithms, 3rd ed. Addison-Wesley, 1997.",
            "The Art of Computer Programming, Volume 1: Fundamental Algorithms",
            "Knuth",
            1997,
        ),
        (
            "Gunawi, H. S., et al. 2016. Why Does the Cloud Stop Computing? Lessons from Hundreds of Service Outages. In SoCC '16.",
            "Why Does the Cloud Stop Computing? Lessons from Hundreds of Service Outages",
            "Gunawi",
            2016,
        ),
        (
            "J. M. Maldacena, Adv. Theor. Math. Phys. 2, 231 (1998), arXiv:hep-th/9711200.",
            None,
            "Maldacena",
            1998,
        ),
        (
            "M. Henneaux and C. Teitelboim, Quantization of Gauge Systems (Princeton University Press, 1992).",
            "Quantization of Gauge Systems",
            "Henneaux",
            1992,
        ),
        (
            "Megatron- LM : Training Multi-Billion Parameter Language Models Using Model Parallelism , March 2020",
            "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism",
            None,
            2020,
        ),
    ],
)
def test_fields(raw: str, title: str | None, surname: str | None, year: int | None) -> None:
    ref = parse_reference(raw)
    assert (ref.title, ref.first_author_surname, ref.year) == (title, surname, year)


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("E., Thekkath, C", "author_fragment"),
        ("J., Leary, C., Maclaurin, D., Necula, G., Paszke, A., and Zhang, Q", "author_fragment"),
        ("Lim, and Santosh Nagarakatte.", "author_fragment"),
        ("Gunawi, Mingzhe Hao, Riza O.", "author_fragment"),
        (
            "In Proceedings of the 45th International Conference on Software Engineering (ICSE '23)",
            "venue_only",
        ),
        (
            "InProceedings of the ACM SIGOPS 30th Symposium on Operating Systems Principles(Austin, TX, USA)(SOSP ’24).",
            "venue_only",
        ),
        ("ACM Program.", "venue_only"),
        ("2022", "bare_year"),
        ("write newline", "artefact"),
        ("\\newblock", "artefact"),
        ("", "no_title"),
        ("Ibid.", "too_short"),
    ],
)
def test_unusable_titles_are_flagged(raw: str, problem: str) -> None:
    ref = parse_reference(raw)
    assert (ref.title_usable, ref.title_problem, ref.title) == (False, problem, None)
    assert ref.parse_uncertain


def test_a_real_title_with_commas_is_not_an_author_list() -> None:
    ref = parse_reference("Borg, Omega, and Kubernetes")
    assert ref.title_usable and ref.title == "Borg, Omega, and Kubernetes"


def test_a_bare_url_is_a_web_reference_not_a_parse_failure() -> None:
    ref = parse_reference("URL https://www.top500.org/system/180239")
    assert ref.kind == "web"
    assert ref.url == "https://www.top500.org/system/180239"
    assert not ref.title_usable and not ref.parse_uncertain


def test_github_issue_reference() -> None:
    ref = parse_reference(
        "deepspeed-7188: [BUG] grad_norm is NaN.https://github.com/ deepspeedai/DeepSpeed/issues/7188."
    )
    assert ref.kind == "software"
    assert [str(g) for g in ref.identifiers.github] == ["deepspeedai/deepspeed/issues/7188"]
    assert ref.title == "[BUG] grad_norm is NaN"
    assert "url_space" in [r.kind for r in ref.repairs]


def test_malformed_identifier_is_reported_and_title_kept() -> None:
    ref = parse_reference("Smith, A. and Jones, B. 2020. A Study of Things. arXiv:1913.12345.")
    assert ref.title == "A Study of Things" and not ref.identifiers
    assert [m.reason for m in ref.identifiers.malformed] == ["month 13 is not 01-12"]


def test_to_dict_is_json_serialisable() -> None:
    ref = parse_reference(
        "Megatron- LM. arXiv :1909 .08053v4. https://github.com/NVIDIA/Megatron-LM/pull/1"
    )
    data = json.loads(json.dumps(ref.to_dict()))
    assert data["identifiers"]["arxiv"] == ["1909.08053v4"]
    assert data["identifiers"]["github"][0] == {
        "owner": "nvidia",
        "repo": "megatron-lm",
        "kind": "pull",
        "ref": "1",
    }
    assert {r["kind"] for r in data["repairs"]} >= {"arxiv_space", "hyphenation"}
    assert data["normalized"] == ref.normalized


def test_huge_reference_is_parsed_by_its_head_with_a_warning() -> None:
    ref = parse_reference("Smith, J. 2020. A title. Filler " + "x" * 5_000_000)
    assert ref.title == "A title" and ref.warnings


def _labelled() -> list[dict]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]


def test_labelled_set_is_large_and_covers_every_style() -> None:
    rows = _labelled()
    assert len(rows) >= 300
    assert {
        "acm",
        "ieee",
        "apa",
        "natbib",
        "physics",
        "software",
        "web",
        "book",
        "thesis",
        "seed-json",
        "seed-page",
        "damaged",
    } <= {r["style"] for r in rows}


def test_every_flagged_label_is_flagged_by_the_parser() -> None:
    missed = [r["raw"] for r in _labelled() if r["flag"] and parse_reference(r["raw"]).title_usable]
    assert missed == []


def test_labelled_identifiers_are_never_invented() -> None:
    for row in _labelled():
        ref = parse_reference(row["raw"])
        got = {a.id for a in ref.identifiers.arxiv} | {d.value for d in ref.identifiers.dois}
        expected = set(row["identifiers"]["arxiv"]) | {d.lower() for d in row["identifiers"]["doi"]}
        assert got <= expected, row["raw"]


def test_labelled_titles_mostly_match() -> None:
    rows = [r for r in _labelled() if r["title"]]
    hits = sum(
        normalize_title(parse_reference(r["raw"]).title or "") == normalize_title(r["title"])
        for r in rows
    )
    assert hits / len(rows) >= 0.93


def test_a_trailing_year_is_not_a_venue() -> None:
    ref = parse_reference("J. Smith. Silent data corruption in large training runs. 2023.")
    assert (ref.title, ref.venue, ref.year) == (
        "Silent data corruption in large training runs",
        None,
        2023,
    )


@pytest.mark.parametrize(
    ("raw", "journal", "volume", "first_page", "year"),
    [
        ("S. Aoki et al., Phys. Rev. D 65, 094516 (2002).", "Phys. Rev. D", "65", "094516", 2002),
        ("G. Hooft, Nucl. Phys. B 393 (1993) 377.", "Nucl. Phys. B", "393", "377", 1993),
        (
            "J. Maldacena, Adv. Theor. Math. Phys. 2, 231 (1998).",
            "Adv. Theor. Math. Phys.",
            "2",
            "231",
            1998,
        ),
        (
            "R.Gupta, Phys .Rev .D85 ,054512 ( 2012),1110 .6448",
            "Phys. Rev. D",
            "85",
            "054512",
            2012,
        ),
        ("Abel T., Bryan G. L., Norman M. L., 2000, ApJ, 540, 39", "ApJ", "540", "39", 2000),
        (
            "Dean J. MapReduce. Commun. ACM 51, 1 (Jan. 2008), 107–113.",
            "Commun. ACM",
            "51",
            "107",
            2008,
        ),
    ],
)
def test_journal_references_give_journal_volume_and_first_page(
    raw: str, journal: str, volume: str, first_page: str, year: int
) -> None:
    ref = parse_reference(raw)
    assert (ref.journal, ref.volume, ref.first_page, ref.year) == (
        journal,
        volume,
        first_page,
        year,
    )


def test_a_journal_reference_alone_is_no_title() -> None:
    ref = parse_reference("M. Yamashita, T. Frederico, L. Tomio, Phys. Lett. B 670 (2008) 49.")
    assert ref.title is None and not ref.title_usable
    assert ref.first_author_surname == "Yamashita"


def test_the_title_stops_where_the_journal_reference_starts() -> None:
    ref = parse_reference(
        "J. Kogut, L. Susskind, Hamiltonian formulation of wilson's lattice gauge theories, "
        "Phys. Rev. D 11 (1975) 395-408."
    )
    assert ref.title == "Hamiltonian formulation of wilson's lattice gauge theories"
    assert (ref.journal, ref.volume, ref.first_page) == ("Phys. Rev. D", "11", "395")


@pytest.mark.parametrize(
    ("raw", "surname", "title"),
    [
        (
            "Yang F, Lim GP, Begum AN, et al. Curcumin inhibits formation of amyloid beta "
            "oligomers and fibrils. J Biol Chem. 2005;280(7):5892-5901.",
            "Yang",
            "Curcumin inhibits formation of amyloid beta oligomers and fibrils",
        ),
        (
            "He K, Zhang X, Ren S, Sun J. Deep residual learning for image recognition. "
            "In: CVPR; 2016. p. 770-8.",
            "He",
            "Deep residual learning for image recognition",
        ),
        (
            "Ng AY, Jordan MI. On discriminative vs. generative classifiers. NIPS. 2002;14:841.",
            "Ng",
            "On discriminative vs. generative classifiers",
        ),
    ],
)
def test_vancouver_author_lists(raw: str, surname: str, title: str) -> None:
    ref = parse_reference(raw)
    assert (ref.first_author_surname, ref.title) == (surname, title)


@pytest.mark.parametrize(
    ("raw", "surname", "title"),
    [
        (
            "Feng Luo and Stephan Tillmann, Angle structures and normal surfaces, "
            "Trans. Amer. Math. Soc. 360 (2008), no. 6, 2849-2866.",
            "Luo",
            "Angle structures and normal surfaces",
        ),
        (
            "Cella G, Sannibale V, DeSalvo R, Marka S and Takamori A 2005 Monolithic geometric "
            "anti-spring blades. Nucl. Instrum. Methods Phys. Res. A 540 502-19",
            "Cella",
            "Monolithic geometric anti-spring blades",
        ),
        ("Adriani O. et al., Phys. Lett. B, 750 (2015) 360.", "Adriani", None),
        ("Biró T S, Müller B. Nucl. Phys., 1993, A561: 477", "Biró", None),
        (
            "ATLAS collaboration, G. Aad et al., Measurement of the jet fragmentation function, "
            "Phys. Lett. B 739 (2014) 320.",
            "ATLAS collaboration",
            "Measurement of the jet fragmentation function",
        ),
        (
            "[LIGO Scientific Collaboration] Observation of gravitational waves from a binary "
            "black hole merger. Phys. Rev. Lett. 116, 061102 (2016).",
            "LIGO Scientific Collaboration",
            "Observation of gravitational waves from a binary black hole merger",
        ),
    ],
)
def test_physics_and_harvard_author_lists(raw: str, surname: str, title: str | None) -> None:
    ref = parse_reference(raw)
    assert (ref.first_author_surname, ref.title) == (surname, title)


@pytest.mark.parametrize(
    ("raw", "title"),
    [
        (
            "B. Obrist, C. Pfeiffer, and R. Henley, 'Multi-Layered Social Resilience: A New Approach "
            "in Mitigation Research,' Progress in Development Studies, Vol.10, No.4, pp.283-293, 2010.",
            "Multi-Layered Social Resilience: A New Approach in Mitigation Research",
        ),
        (
            "R. L. Boylestad, L. Nashelsky, and L. Li, Electronic devices and circuit theory, vol. 11 "
            "(Prentice Hall, NJ, 2002).",
            "Electronic devices and circuit theory",
        ),
        (
            "Flohr M 1998 Singular vectors in logarithmic conformal field theories Nucl. Phys. B 514 523-52",
            "Singular vectors in logarithmic conformal field theories",
        ),
        (
            "M. Henneaux and C. Teitelboim, Quantization of Gauge Systems (Princeton University "
            "Press, 1992).",
            "Quantization of Gauge Systems",
        ),
    ],
)
def test_the_title_ends_before_the_venue(raw: str, title: str) -> None:
    assert parse_reference(raw).title == title


@pytest.mark.parametrize(
    "raw",
    [
        "[13 ]B. Buyens, Matrix product states for gauge field theories, Phys. Rev. Lett. 113 (2014) 091601.",
        "26-Buyens B, Haegeman J. Matrix product states for gauge field theories. Phys Rev Lett. 2014;113:091601.",
    ],
)
def test_a_list_number_is_not_part_of_the_reference(raw: str) -> None:
    ref = parse_reference(raw)
    assert ref.first_author_surname == "Buyens"
    assert ref.title == "Matrix product states for gauge field theories"


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("Smith J. Graph minors. PhD thesis, MIT, 1999.", "thesis"),
        ("Smith J. Graph minors. Doctoral Dissertation, MIT, 1999.", "thesis"),
        ("Smith J. Graph theses. Oxford, 1999.", "article"),  # "theses" is not "thesis"
        ("Smith J. Graph minors. Tech. Rep. 12, MIT, 1999.", "report"),
        ("Smith J. Graph minors. Technical report TR-12, MIT, 1999.", "report"),
        ("Smith J. Graph minors. Tech reports, MIT, 1999.", "article"),  # no word end after "rep"
        ("Smith J. Graph Minors. 2nd ed. Springer, 1999.", "book"),
        ("Smith J. Graph Minors. 12th edition, 1999.", "book"),
        ("Smith J. Graph Minors. A2nd ed, 1999.", "article"),  # the number must start a word
        ("Smith J. Graph Minors. Oxford University Press, 1999.", "book"),
        ("Smith J. Graph minors. In: Proc. SODA, Oxford University Press, 1999.", "article"),
        ("Smith J. Graph minors. Compress, 1999.", "article"),  # "press" must start a word
    ],
)
def test_kind_words_need_their_word_boundaries(raw: str, kind: str) -> None:
    assert parse_reference(raw).kind == kind
