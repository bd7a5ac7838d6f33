"""Adversarial texts and the kernels they are aimed at, for the complexity test and its benchmark.

A generator repeats one token of some kernel's grammar (``Answer:``, ``\\boxed{``, ``####``, a
URL scheme, a markdown link's brackets, a JSON bracket, a stopword, ...) until the text has the
size asked for: on one long line, or one token a line. A kernel that scans back, or searches
the rest of the text, from each occurrence of a token costs the square of the text's length on
such a text, where a linear pass costs its length.

Each kernel is an expression over a ``response`` and a ``reference`` column, and the roles say
which side gets the long text: ``"response"`` (the reference a short near miss built from the
same token), ``"reference"`` (the response short) or ``"both"``. The table is driven by the
registry: every registered scorer has its option sets here (``tests/test_complexity.py`` checks
that none is missing), every ``extract_choice`` rule set and ``extract_number`` method comes from
the package's own constants, and every scorer's companions (details, components, diagnostics)
are kernels too.

``tests/test_complexity.py`` times each kernel on each generator at n and 4n bytes;
``benchmarks/bench_adversarial.py`` prints each one's CPU seconds at 4 MB.
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import polars as pl

import polarscore as ps
from polarscore.scores.extraction import CHOICE_RULES, NUMBER_METHODS
from polarscore.stopwords import ANSWER_MATCH_STOPWORDS, builtin_stopwords
from tests.scorer_cases import COMPANIONS

# --- generators ---------------------------------------------------------------------------------

#: Each token of the kernels' grammars, repeated into a text: name -> the unit repeated.
TOKENS: dict[str, str] = {
    # final-answer extraction (MMLU-Pro's letter rules, GSM8K's numbers, the answer line)
    "answer_colon": "answer: ",
    "Answer_colon": "Answer:",
    "Answer_colon_1": "Answer: 1 ",
    "Answer_colon_letter": "Answer: A ",
    "nswer_colon": "nswer:",
    "ANSWER_colon": "ANSWER: ",
    "answer_is": "answer is ",
    "answer_is_paren": "answer is (",
    "answer_is_letter": "the answer is (B) ",
    "final_answer": "Final Answer: ",
    "bold_answer": "**Answer:** ",
    "boxed_open": "\\boxed{",
    "boxed": "\\boxed{1} ",
    "braces_open": "{",
    "hashes": "####",
    "hashes_number": "#### 1 ",
    "letter_colon": "A:",
    "letter_paren": "(A) ",
    "letter": "A ",
    # numbers and separators
    "digits": "1234567890",
    "digit_space": "1 ",
    "comma_digits": "1,",
    "dot_digits": "1.",
    "minus": "-",
    "minus_digit": "-1",
    "money": "$1,000.50 ",
    "separators": ".,$",
    "exponent": "1e5 ",
    "fraction": "1/2 ",
    "date": "2024-01-31 ",
    "phone": "+1 (555) 555-0100 ",
    "number_words": "twenty one hundred ",
    # URLs and markdown
    "url_scheme": "https://",
    "url": "https://a.b/c ",
    "colon_slashes": "://",
    "link_open": "[x](",
    "link": "[x](https://a.b) ",
    "brackets": "[",
    "close_paren": "](",
    "email": "a@b.",
    # quotes and JSON
    "quote": '"',
    "escaped_quote": '\\"',
    "json_open": '{"a": ',
    "json_array_open": "[",
    "json_pair": '{"a": 1}, ',
    "single_quote": "'",
    # words
    "en_stopwords": " ".join(sorted(builtin_stopwords("en"))) + " ",
    "de_stopwords": " ".join(sorted(builtin_stopwords("de"))) + " ",
    "ru_stopwords": " ".join(sorted(builtin_stopwords("ru"))) + " ",
    "match_stopwords": " ".join(ANSWER_MATCH_STOPWORDS) + " ",
    "article": "the ",
    "word": "paris ",
    "one_token": "a",
    # characters
    "spaces": " ",
    "ideographic_space": "\u3000",
    "combining": "e\u0301",
    "dotted_capital": "\u0130",
    "sharp_s": "\u00df",
    "mojibake": "Ã©",
    "cjk": "\u4e2d\u6587",
    "newline": "\n",
}

#: The layouts: one long line, or one token a line.
LAYOUTS: tuple[str, ...] = ("line", "lines")


@dataclass(frozen=True)
class Generator:
    """One token in one layout."""

    token: str
    layout: str

    @property
    def name(self) -> str:
        return f"{self.token}/{self.layout}"

    @property
    def unit(self) -> str:
        unit = TOKENS[self.token]
        return unit + "\n" if self.layout == "lines" else unit

    def text(self, size: int) -> str:
        """The unit repeated into a text of about ``size`` bytes (never less than one unit)."""
        return _text(self.unit, size)

    def near_miss(self) -> str:
        """A short text of the same tokens that ends otherwise: a reference for the long side."""
        unit = TOKENS[self.token]
        return (unit * max(1, 48 // len(unit.encode())))[:48] + "Zq"


@cache
def _text(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit.encode()))


GENERATORS: tuple[Generator, ...] = tuple(
    Generator(token, layout)
    for token in TOKENS
    for layout in LAYOUTS
    if not (token == "newline" and layout == "lines")
)


# --- kernels ------------------------------------------------------------------------------------

Build = Callable[[pl.Expr, pl.Expr], pl.Expr]


@dataclass(frozen=True)
class Kernel:
    """An expression to time, and how.

    Attributes
    ----------
    name
        Its id: the public function and its options.
    build
        ``build(response, reference) -> pl.Expr``.
    roles
        Which sides get the long text (see the module's docstring).
    guarded
        The kernel is O(n*m) on two long texts and bounded by ``max_work``: with the long text on
        both sides it need not be linear, but at 4n it must end null (the guard stopped it).
    scale
        The kernel's sizes as a fraction of the test's (Python-side checks that parse the text).
    scorer, options
        The registered scorer it runs and its options, for a scorer's own kernels.
    """

    name: str
    build: Build
    roles: tuple[str, ...] = ("response",)
    guarded: bool = False
    scale: float = 1.0
    scorer: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)


#: The option sets each registered scorer is timed with: every path its options choose.
SCORER_OPTIONS: dict[str, list[dict[str, Any]]] = {
    "answer_correctness": [
        {"match_mode": "exact"},
        {"match_mode": "normalized"},
        {"match_mode": "contains"},
    ],
    "answer_match": [
        {},
        {"exact": True, "contains": False, "token_recall": False},
        {"contains": True, "exact": False, "token_recall": False},
        {"token_recall": True, "exact": False, "contains": False, "stem_prefix": None},
        {"fold_accents": True, "number_words": True, "numbers_must_match": True},
        {"dates": True, "approximate_numbers": True, "glued_words": True},
        {"parentheticals": True, "repair_mojibake": True},
        {"question": pl.lit("What is the answer? Answer: the capital")},
    ],
    "answer_precision": [
        {},
        {"char_similarity": "sequence_matcher", "missing_expected": "zero"},
        {"stopwords": "en"},
        {"weights": {"numeric": 1.0}},
    ],
    "response_similarity": [
        {"metric": "token_recall"},
        {"metric": "token_f1"},
        {"metric": "rouge_l"},
    ],
    "correct": [
        {"task_kind": kind} for kind in ("multiple_choice", "numeric", "short_answer", "free_form")
    ],
    "squad_exact_match": [{}],
    "squad_f1": [{}],
    "choice_match": [{"rules": rules} for rules in CHOICE_RULES],
    "numeric_match": [{"method": method} for method in NUMBER_METHODS],
    "contains": [
        {"keywords": ["answer:", "https://", "the", "1,000", "\\boxed{", "Zq"]},
        {"keywords": ["Answer", "ß", "İ"], "mode": "all", "case_sensitive": False},
        {"keywords": ["[x](", '{"a"'], "mode": "none", "case_sensitive": True},
    ],
    "starts_with": [
        {"prefix": "Answer: Answer: Zq"},
        {"prefix": "ANSWER: ANSWER: Zq", "case_sensitive": False},
    ],
    "ends_with": [
        {"suffix": "Zq Answer: 1 "},
        {"suffix": "zq answer: 1 ", "case_sensitive": False},
    ],
    "exact_match": [{}, {"case_sensitive": False, "strip_whitespace": False}],
    "non_empty": [{}],
    "length_check": [{"unit": "chars"}, {"unit": "words"}],
    "format_check": [{"format_type": kind} for kind in ("email", "url", "phone", "date")],
    "regex_match": [
        {"pattern": r"[aA]nswer:\s*\(?([A-J])\)?"},
        {"pattern": r"(?i)answer is \(?([A-J])\)?", "full_match": True},
        {"pattern": r"\\boxed\{([^{}]*)\}"},
        {"pattern": r"#### (\-?[0-9\.\,]+)"},
        {"pattern": r"\bthe\b.*\bZq$"},
        # look-arounds: the backtracking engine, bounded by step_budget
        {"pattern": r"(?<=Answer: )\d+(?!\d)"},
        {"pattern": r"(\w+) \1"},
    ],
    "json_schema": [
        {},
        {"schema": {"type": "object", "properties": {"a": {"type": "integer"}}}},
        {"schema": {"type": "string", "pattern": "^(?=.*answer)"}},
    ],
    "language_detection": [{"expected_language": "en"}],
}

#: Scorers with O(n*m) work on two long texts, bounded by their ``max_work`` guard.
GUARDED: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "answer_precision": lambda options: True,
    "response_similarity": lambda options: options.get("metric") == "rouge_l",
}

#: Checks that run Python once per distinct response: timed at a smaller size.
PYTHON_SIDE_SCALE: dict[str, float] = {"json_schema": 1 / 8, "language_detection": 1 / 64}


def _label(name: str, options: Mapping[str, Any]) -> str:
    if not options:
        return name
    shown = ",".join(
        f"{key}={'expr' if isinstance(value, pl.Expr) else value!r}"
        for key, value in options.items()
    )
    return f"{name}[{shown}]"


def _scorer_kernels(name: str) -> list[Kernel]:
    spec = ps.get_scorer(name)
    roles: tuple[str, ...] = ("response",)
    if spec.reference_kind != "none":
        roles = ("response", "reference", "both")
    kernels = []
    for options in SCORER_OPTIONS[name]:
        kernels.append(
            Kernel(
                name=_label(name, options),
                build=lambda r, g, spec=spec, options=options: spec.function(r, g, **options),
                roles=roles,
                guarded=name in GUARDED and GUARDED[name](options),
                scale=PYTHON_SIDE_SCALE.get(name, 1.0),
                scorer=name,
                options=options,
            )
        )
    return kernels


def _companion_kernels(name: str) -> list[Kernel]:
    """The scorer's companions, with the options of its first option set they take."""
    kernels = []
    for companion in COMPANIONS.get(name, ()):
        if companion in (ps.extract_choice, ps.extract_number):
            continue  # the extractors have kernels of their own
        parameters = inspect.signature(companion).parameters
        options = {k: v for k, v in SCORER_OPTIONS[name][0].items() if k in parameters}
        positional = [
            p for p in parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]

        def build(
            r: pl.Expr,
            g: pl.Expr,
            f: Any = companion,
            o: Any = options,
            *,
            pair: bool = len(positional) > 1,
        ) -> pl.Expr:
            return f(r, g, **o) if pair else f(r, **o)

        kernels.append(
            Kernel(
                name=_label(companion.__name__, options),
                build=build,
                roles=("response",),
                guarded=False,
                scale=PYTHON_SIDE_SCALE.get(name, 1.0),
            )
        )
    return kernels


def _extractor_kernels() -> list[Kernel]:
    kernels = [
        Kernel(
            name=f"extract_choice[rules={rules!r}]",
            build=lambda r, g, rules=rules: ps.extract_choice(r, rules=rules),
        )
        for rules in CHOICE_RULES
    ]
    kernels += [
        Kernel(
            name=f"extract_number[method={method!r}]",
            build=lambda r, g, method=method: ps.extract_number(r, method=method),
        )
        for method in NUMBER_METHODS
    ]
    # the final-answer extractors that take the response alone
    kernels += [
        Kernel(name=function, build=lambda r, g, function=function: getattr(ps, function)(r))
        for function in ("final_choice", "final_number")
        if hasattr(ps, function)
    ]
    return kernels


def kernels() -> list[Kernel]:
    """Every kernel: each registered scorer's option sets, its companions, the extractors."""
    table: list[Kernel] = []
    for name in ps.available_scorers():
        table += _scorer_kernels(name)
        table += _companion_kernels(name)
    table += _extractor_kernels()
    return table


# --- measuring ----------------------------------------------------------------------------------


def frame(kernel: Kernel, generator: Generator, role: str, size: int) -> pl.DataFrame:
    """The one-row frame a kernel is timed on: the long text on the role's side(s)."""
    long = generator.text(size)
    short = generator.near_miss()
    response, reference = {
        "response": (long, short),
        "reference": (short, long),
        # the reference differs from the response at its end, so that equality and containment
        # are decided at the last byte
        "both": (long, long[: len(long) - 2] + "Zq"),
    }[role]
    return pl.DataFrame({"response": [response], "reference": [reference]})


@cache
def unlike_pair(size: int) -> pl.DataFrame:
    """Two texts of about ``size`` bytes, random words of one vocabulary drawn apart.

    Alike character by character and word by word, unlike throughout: the O(n*m) similarities
    would cost the whole product of their lengths. The 400 characters (CJK ideographs) are each
    rarer than difflib's "popular" bound (1%), so that its matching does that work too.
    """
    rng = random.Random(size)
    alphabet = [chr(0x4E00 + i) for i in range(400)]
    vocabulary = ["".join(rng.choices(alphabet, k=rng.randint(1, 3))) for _ in range(2000)]
    count = size // 7  # 3 bytes a character, two characters and a space a word on average
    texts = [" ".join(rng.choices(vocabulary, k=count)) for _ in range(2)]
    return pl.DataFrame({"response": [texts[0]], "reference": [texts[1]]})


#: A plain Polars pass over both columns: the same run's measure of what a linear pass costs.
BASELINE = Kernel(
    name="baseline",
    build=lambda r, g: r.str.to_lowercase().str.len_bytes() + g.str.to_lowercase().str.len_bytes(),
)


def cpu_seconds(kernel: Kernel, data: pl.DataFrame, *, repeat: int) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` selects of the kernel on ``data``, and its result."""
    expr = kernel.build(pl.col("response"), pl.col("reference"))
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = data.select(expr).to_series().item()
        best = min(best, time.process_time() - start)
    return best, result
