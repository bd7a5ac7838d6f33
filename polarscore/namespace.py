"""The typed ``.score`` expression namespace.

``pl.col("response").score.answer_correctness("reference")`` is the same as
``polarscore.answer_correctness(pl.col("response"), "reference")``. Each method is spelled out (no
``__getattr__`` forwarding) so IDEs and type checkers see it, and only delegates; a test keeps the
signatures equal to the functions'.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import polars as pl

from polarscore._defaults import DEFAULT_MAX_WORK
from polarscore._typing import (
    CharSimilarity,
    ChoiceRules,
    ContainsMode,
    FormatType,
    IntoExpr,
    IntoMatchMode,
    IntoNumber,
    LengthUnit,
    MissingExpected,
    NumberMethod,
    SimilarityMetric,
)
from polarscore.normalize import repair_mojibake
from polarscore.scores import checks as _checks
from polarscore.scores import extraction as _extraction
from polarscore.scores.checks import DEFAULT_MAX_LENGTH, DEFAULT_STEP_BUDGET
from polarscore.scores.correct import correct, correct_details
from polarscore.scores.correctness import answer_correctness, answer_correctness_details
from polarscore.scores.match import (
    DEFAULT_MIN_TOKEN_RECALL,
    DEFAULT_STEM_PREFIX,
    answer_match,
    answer_match_details,
)
from polarscore.scores.precision import (
    answer_precision,
    answer_precision_components,
    answer_precision_diagnostics,
)
from polarscore.scores.similarity import response_similarity, response_similarity_details
from polarscore.scores.squad import squad_exact_match, squad_f1


@pl.api.register_expr_namespace("score")
class ScoreNamespace:
    """Scorers as methods of a response expression: ``pl.col("response").score.<scorer>(...)``."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def answer_correctness(
        self, reference: IntoExpr, *, match_mode: IntoMatchMode = "normalized"
    ) -> pl.Expr:
        """See :func:`polarscore.answer_correctness`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["Paris."], "reference": ["paris"]})
        >>> df.select(pl.col("response").score.answer_correctness("reference")).item()
        1.0
        """
        return answer_correctness(self._expr, reference, match_mode=match_mode)

    def answer_correctness_details(
        self, reference: IntoExpr, *, match_mode: IntoMatchMode = "normalized"
    ) -> pl.Expr:
        """See :func:`polarscore.answer_correctness_details`."""
        return answer_correctness_details(self._expr, reference, match_mode=match_mode)

    def correct(
        self,
        references: IntoExpr,
        *,
        task_kind: str | pl.Expr | pl.Series | None = None,
        question: IntoExpr | None = None,
        choices: IntoExpr | None = None,
    ) -> pl.Expr:
        """See :func:`polarscore.correct`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["ANSWER: A"], "references": [["A"]]})
        >>> df.select(pl.col("response").score.correct("references")).item()
        1.0
        """
        return correct(
            self._expr, references, task_kind=task_kind, question=question, choices=choices
        )

    def correct_details(
        self,
        references: IntoExpr,
        *,
        task_kind: str | pl.Expr | pl.Series | None = None,
        question: IntoExpr | None = None,
        choices: IntoExpr | None = None,
    ) -> pl.Expr:
        """See :func:`polarscore.correct_details`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["ANSWER: A"], "references": [["A"]]})
        >>> df.select(pl.col("response").score.correct_details("references")).item()["rule"]
        'final_choice'
        """
        return correct_details(
            self._expr, references, task_kind=task_kind, question=question, choices=choices
        )

    def answer_match(
        self,
        references: IntoExpr,
        *,
        question: IntoExpr | None = None,
        exact: bool = True,
        contains: bool = True,
        token_recall: bool = True,
        min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
        stem_prefix: int | None = DEFAULT_STEM_PREFIX,
        numbers_must_match: bool = True,
        fold_accents: bool = True,
        number_words: bool = True,
        dates: bool = True,
        parentheticals: bool = True,
        repair_mojibake: bool = True,
        approximate_numbers: bool = False,
        glued_words: bool = True,
        hedges: bool = True,
        negations: bool = True,
        sweeps: bool = True,
        degenerate_loops: bool = True,
        letters: bool = True,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_match`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["It is Paris."], "references": [["Lutetia", "Paris"]]})
        >>> df.select(pl.col("response").score.answer_match("references")).item()
        1.0
        """
        return answer_match(
            self._expr,
            references,
            question=question,
            exact=exact,
            contains=contains,
            token_recall=token_recall,
            min_token_recall=min_token_recall,
            stem_prefix=stem_prefix,
            numbers_must_match=numbers_must_match,
            fold_accents=fold_accents,
            number_words=number_words,
            dates=dates,
            parentheticals=parentheticals,
            repair_mojibake=repair_mojibake,
            approximate_numbers=approximate_numbers,
            glued_words=glued_words,
            hedges=hedges,
            negations=negations,
            sweeps=sweeps,
            degenerate_loops=degenerate_loops,
            letters=letters,
        )

    def answer_match_details(
        self,
        references: IntoExpr,
        *,
        question: IntoExpr | None = None,
        exact: bool = True,
        contains: bool = True,
        token_recall: bool = True,
        min_token_recall: float = DEFAULT_MIN_TOKEN_RECALL,
        stem_prefix: int | None = DEFAULT_STEM_PREFIX,
        numbers_must_match: bool = True,
        fold_accents: bool = True,
        number_words: bool = True,
        dates: bool = True,
        parentheticals: bool = True,
        repair_mojibake: bool = True,
        approximate_numbers: bool = False,
        glued_words: bool = True,
        hedges: bool = True,
        negations: bool = True,
        sweeps: bool = True,
        degenerate_loops: bool = True,
        letters: bool = True,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_match_details`."""
        return answer_match_details(
            self._expr,
            references,
            question=question,
            exact=exact,
            contains=contains,
            token_recall=token_recall,
            min_token_recall=min_token_recall,
            stem_prefix=stem_prefix,
            numbers_must_match=numbers_must_match,
            fold_accents=fold_accents,
            number_words=number_words,
            dates=dates,
            parentheticals=parentheticals,
            repair_mojibake=repair_mojibake,
            approximate_numbers=approximate_numbers,
            glued_words=glued_words,
            hedges=hedges,
            negations=negations,
            sweeps=sweeps,
            degenerate_loops=degenerate_loops,
            letters=letters,
        )

    def answer_precision(
        self,
        reference: IntoExpr,
        *,
        char_similarity: CharSimilarity = "indel",
        missing_expected: MissingExpected = "null",
        numeric_tolerance_abs: IntoNumber = 0.0,
        numeric_tolerance_rel: IntoNumber = 0.0,
        power_p: float = 0.3,
        weights: Mapping[str, float] | None = None,
        stopwords: str | Collection[str] | None = None,
        max_work: int | None = DEFAULT_MAX_WORK,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_precision`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["The answer is 42."], "reference": ["42"]})
        >>> round(df.select(pl.col("response").score.answer_precision("reference")).item(), 4)
        0.6691
        """
        return answer_precision(
            self._expr,
            reference,
            char_similarity=char_similarity,
            missing_expected=missing_expected,
            numeric_tolerance_abs=numeric_tolerance_abs,
            numeric_tolerance_rel=numeric_tolerance_rel,
            power_p=power_p,
            weights=weights,
            stopwords=stopwords,
            max_work=max_work,
        )

    def answer_precision_components(
        self,
        reference: IntoExpr,
        *,
        char_similarity: CharSimilarity = "indel",
        missing_expected: MissingExpected = "null",
        numeric_tolerance_abs: IntoNumber = 0.0,
        numeric_tolerance_rel: IntoNumber = 0.0,
        power_p: float = 0.3,
        weights: Mapping[str, float] | None = None,
        stopwords: str | Collection[str] | None = None,
        max_work: int | None = DEFAULT_MAX_WORK,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_precision_components`."""
        return answer_precision_components(
            self._expr,
            reference,
            char_similarity=char_similarity,
            missing_expected=missing_expected,
            numeric_tolerance_abs=numeric_tolerance_abs,
            numeric_tolerance_rel=numeric_tolerance_rel,
            power_p=power_p,
            weights=weights,
            stopwords=stopwords,
            max_work=max_work,
        )

    def answer_precision_diagnostics(
        self,
        reference: IntoExpr,
        *,
        char_similarity: CharSimilarity = "indel",
        missing_expected: MissingExpected = "null",
        numeric_tolerance_abs: IntoNumber = 0.0,
        numeric_tolerance_rel: IntoNumber = 0.0,
        power_p: float = 0.3,
        weights: Mapping[str, float] | None = None,
        stopwords: str | Collection[str] | None = None,
        max_work: int | None = DEFAULT_MAX_WORK,
    ) -> pl.Expr:
        """See :func:`polarscore.answer_precision_diagnostics`."""
        return answer_precision_diagnostics(
            self._expr,
            reference,
            char_similarity=char_similarity,
            missing_expected=missing_expected,
            numeric_tolerance_abs=numeric_tolerance_abs,
            numeric_tolerance_rel=numeric_tolerance_rel,
            power_p=power_p,
            weights=weights,
            stopwords=stopwords,
            max_work=max_work,
        )

    def response_similarity(
        self,
        acceptable: IntoExpr,
        *,
        metric: SimilarityMetric = "token_recall",
        unacceptable: IntoExpr | None = None,
        max_work: int | None = DEFAULT_MAX_WORK,
    ) -> pl.Expr:
        """See :func:`polarscore.response_similarity`.

        Examples
        --------
        >>> import polars as pl
        >>> import polarscore  # registers the namespace
        >>> df = pl.DataFrame({"response": ["yes"], "acceptable": [["yes yes", "no"]]})
        >>> df.select(pl.col("response").score.response_similarity("acceptable")).item()
        0.5
        """
        return response_similarity(
            self._expr, acceptable, metric=metric, unacceptable=unacceptable, max_work=max_work
        )

    def response_similarity_details(
        self,
        acceptable: IntoExpr,
        *,
        metric: SimilarityMetric = "token_recall",
        unacceptable: IntoExpr | None = None,
        max_work: int | None = DEFAULT_MAX_WORK,
    ) -> pl.Expr:
        """See :func:`polarscore.response_similarity_details`."""
        return response_similarity_details(
            self._expr, acceptable, metric=metric, unacceptable=unacceptable, max_work=max_work
        )

    def squad_exact_match(self, reference: IntoExpr) -> pl.Expr:
        """See :func:`polarscore.squad_exact_match`."""
        return squad_exact_match(self._expr, reference)

    def squad_f1(self, reference: IntoExpr) -> pl.Expr:
        """See :func:`polarscore.squad_f1`."""
        return squad_f1(self._expr, reference)

    def contains(
        self,
        *,
        keywords: Sequence[str] | pl.Expr | pl.Series = (),
        mode: ContainsMode = "any",
        case_sensitive: bool = False,
    ) -> pl.Expr:
        """See :func:`polarscore.contains`."""
        return _checks.contains(
            self._expr, keywords=keywords, mode=mode, case_sensitive=case_sensitive
        )

    def contains_details(
        self,
        *,
        keywords: Sequence[str] | pl.Expr | pl.Series = (),
        mode: ContainsMode = "any",
        case_sensitive: bool = False,
    ) -> pl.Expr:
        """See :func:`polarscore.contains_details`."""
        return _checks.contains_details(
            self._expr, keywords=keywords, mode=mode, case_sensitive=case_sensitive
        )

    def starts_with(
        self, *, prefix: str | pl.Expr | pl.Series = "", case_sensitive: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.starts_with`."""
        return _checks.starts_with(self._expr, prefix=prefix, case_sensitive=case_sensitive)

    def starts_with_details(
        self, *, prefix: str | pl.Expr | pl.Series = "", case_sensitive: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.starts_with_details`."""
        return _checks.starts_with_details(self._expr, prefix=prefix, case_sensitive=case_sensitive)

    def ends_with(
        self, *, suffix: str | pl.Expr | pl.Series = "", case_sensitive: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.ends_with`."""
        return _checks.ends_with(self._expr, suffix=suffix, case_sensitive=case_sensitive)

    def ends_with_details(
        self, *, suffix: str | pl.Expr | pl.Series = "", case_sensitive: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.ends_with_details`."""
        return _checks.ends_with_details(self._expr, suffix=suffix, case_sensitive=case_sensitive)

    def exact_match(
        self, reference: IntoExpr, *, case_sensitive: bool = True, strip_whitespace: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.exact_match`."""
        return _checks.exact_match(
            self._expr, reference, case_sensitive=case_sensitive, strip_whitespace=strip_whitespace
        )

    def exact_match_details(
        self, reference: IntoExpr, *, case_sensitive: bool = True, strip_whitespace: bool = True
    ) -> pl.Expr:
        """See :func:`polarscore.exact_match_details`."""
        return _checks.exact_match_details(
            self._expr, reference, case_sensitive=case_sensitive, strip_whitespace=strip_whitespace
        )

    def non_empty(self) -> pl.Expr:
        """See :func:`polarscore.non_empty`."""
        return _checks.non_empty(self._expr)

    def non_empty_details(self) -> pl.Expr:
        """See :func:`polarscore.non_empty_details`."""
        return _checks.non_empty_details(self._expr)

    def length_check(
        self,
        *,
        min_length: IntoNumber = 0,
        max_length: IntoNumber = DEFAULT_MAX_LENGTH,
        unit: LengthUnit = "chars",
    ) -> pl.Expr:
        """See :func:`polarscore.length_check`."""
        return _checks.length_check(
            self._expr, min_length=min_length, max_length=max_length, unit=unit
        )

    def length_check_details(
        self,
        *,
        min_length: IntoNumber = 0,
        max_length: IntoNumber = DEFAULT_MAX_LENGTH,
        unit: LengthUnit = "chars",
    ) -> pl.Expr:
        """See :func:`polarscore.length_check_details`."""
        return _checks.length_check_details(
            self._expr, min_length=min_length, max_length=max_length, unit=unit
        )

    def format_check(self, *, format_type: FormatType = "email") -> pl.Expr:
        """See :func:`polarscore.format_check`."""
        return _checks.format_check(self._expr, format_type=format_type)

    def format_check_details(self, *, format_type: FormatType = "email") -> pl.Expr:
        """See :func:`polarscore.format_check_details`."""
        return _checks.format_check_details(self._expr, format_type=format_type)

    def regex_match(
        self,
        *,
        pattern: str | pl.Expr | pl.Series = "",
        full_match: bool = False,
        step_budget: int | None = DEFAULT_STEP_BUDGET,
    ) -> pl.Expr:
        """See :func:`polarscore.regex_match`."""
        return _checks.regex_match(
            self._expr, pattern=pattern, full_match=full_match, step_budget=step_budget
        )

    def regex_match_details(
        self,
        *,
        pattern: str | pl.Expr | pl.Series = "",
        full_match: bool = False,
        step_budget: int | None = DEFAULT_STEP_BUDGET,
    ) -> pl.Expr:
        """See :func:`polarscore.regex_match_details`."""
        return _checks.regex_match_details(
            self._expr, pattern=pattern, full_match=full_match, step_budget=step_budget
        )

    def json_schema(
        self,
        *,
        schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None,
        step_budget: int | None = DEFAULT_STEP_BUDGET,
    ) -> pl.Expr:
        """See :func:`polarscore.json_schema`."""
        return _checks.json_schema(self._expr, schema=schema, step_budget=step_budget)

    def json_schema_details(
        self,
        *,
        schema: Mapping[str, Any] | pl.Expr | pl.Series | None = None,
        step_budget: int | None = DEFAULT_STEP_BUDGET,
    ) -> pl.Expr:
        """See :func:`polarscore.json_schema_details`."""
        return _checks.json_schema_details(self._expr, schema=schema, step_budget=step_budget)

    def language_detection(self, *, expected_language: str | pl.Expr | pl.Series = "en") -> pl.Expr:
        """See :func:`polarscore.language_detection`."""
        return _checks.language_detection(self._expr, expected_language=expected_language)

    def language_detection_details(
        self, *, expected_language: str | pl.Expr | pl.Series = "en"
    ) -> pl.Expr:
        """See :func:`polarscore.language_detection_details`."""
        return _checks.language_detection_details(self._expr, expected_language=expected_language)

    def extract_choice(self, *, rules: ChoiceRules = "mmlu_pro") -> pl.Expr:
        """See :func:`polarscore.extract_choice`."""
        return _extraction.extract_choice(self._expr, rules=rules)

    def choice_match(
        self,
        reference: IntoExpr,
        *,
        rules: ChoiceRules = "mmlu_pro",
        choices: IntoExpr | None = None,
    ) -> pl.Expr:
        """See :func:`polarscore.choice_match`."""
        return _extraction.choice_match(self._expr, reference, rules=rules, choices=choices)

    def final_choice(self, *, choices: IntoExpr | None = None) -> pl.Expr:
        """See :func:`polarscore.final_choice`."""
        return _extraction.final_choice(self._expr, choices=choices)

    def final_choice_details(self, *, choices: IntoExpr | None = None) -> pl.Expr:
        """See :func:`polarscore.final_choice_details`."""
        return _extraction.final_choice_details(self._expr, choices=choices)

    def final_number(self) -> pl.Expr:
        """See :func:`polarscore.final_number`."""
        return _extraction.final_number(self._expr)

    def final_number_details(self) -> pl.Expr:
        """See :func:`polarscore.final_number_details`."""
        return _extraction.final_number_details(self._expr)

    def repair_mojibake(self) -> pl.Expr:
        """See :func:`polarscore.repair_mojibake`."""
        return repair_mojibake(self._expr)

    def extract_number(self, *, method: NumberMethod = "flexible") -> pl.Expr:
        """See :func:`polarscore.extract_number`."""
        return _extraction.extract_number(self._expr, method=method)

    def numeric_match(
        self,
        reference: IntoExpr,
        *,
        method: NumberMethod = "flexible",
        numeric_tolerance_abs: IntoNumber = 0.0,
        numeric_tolerance_rel: IntoNumber = 0.0,
    ) -> pl.Expr:
        """See :func:`polarscore.numeric_match`."""
        return _extraction.numeric_match(
            self._expr,
            reference,
            method=method,
            numeric_tolerance_abs=numeric_tolerance_abs,
            numeric_tolerance_rel=numeric_tolerance_rel,
        )


__all__ = ["ScoreNamespace"]
