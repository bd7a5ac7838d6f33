"""Reference oracles: slow, obviously correct pure-Python scorers, for the tests only.

Each module is an independent pure-Python restatement of the reference behaviour, written with
Python's own ``str``, ``re`` and ``unicodedata`` and sharing no code or character classes with
polarscore's Polars expressions or Rust kernels. The modules mirror what they check: one per
kernel family of the crate (``src/``) and scorer module (``polarscore/scores/``).

============================  ==================================================================
module                        checks
============================  ==================================================================
``correctness``               ``answer_correctness`` (``src/correctness.rs``)
``answer_match``              ``answer_match`` (``src/answer_match.rs``, ``src/answer_rules.rs``)
``precision``                 ``answer_precision`` (``src/precision/``)
``similarity``                ``response_similarity`` (``src/similarity.rs``)
``squad``                     ``squad_exact_match``, ``squad_f1`` (``src/squad.rs``)
``tokens``                    the token overlap and LCS both of them use (``src/tokens.rs``)
``checks``                    the ten judge-free checks (``src/deterministic.rs``)
``extract``                   ``extract_choice``, ``extract_number`` and their ``*_match``
                              scorers (``src/extract.rs``)
============================  ==================================================================
"""
