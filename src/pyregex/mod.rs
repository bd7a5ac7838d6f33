//! Python regular expressions in bounded time.
//!
//! The Python side reads a pattern with Python's own parser and writes it as a [`program`] with
//! every piece of `re`'s meaning spelled out (sets of code points, Python's anchors and word
//! boundaries). A [`Matcher`] then runs it:
//!
//! * in [`linear`] time (`regex-automata`'s meta engine) when the pattern is regular: no
//!   back-reference, look-around, conditional, atomic group or possessive repetition, which is
//!   nearly every pattern, the catastrophic ones included (`^(\w+\s?)*$`, `(x+x+)+y`);
//! * otherwise by [`backtrack`]ing as `re` does, with a budget of steps per text: a text that
//!   would take longer ends as [`Outcome::OverBudget`] instead of hanging the job.

pub mod backtrack;
#[cfg(feature = "plugin")]
mod expressions;
#[cfg(feature = "plugin")]
pub(crate) use expressions::regex_search;
pub mod linear;
pub mod program;

use std::sync::{Arc, Mutex};

use backtrack::Backtrack;
use linear::Linear;

/// How one text ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Match,
    NoMatch,
    /// The backtracking path spent its step budget before it could tell.
    OverBudget,
}

/// The default step budget of the backtracking path per text: about 0.1 s on one core, enough
/// for look-arounds of a few `.*` over a 4 MB text.
pub const DEFAULT_STEP_BUDGET: u64 = 10_000_000;

enum Engine {
    /// The linear engine, and for a pattern with `\B` the backtracking one for the empty text
    /// (where `re` never finds `\B`, unlike the linear engine's reading of it).
    Linear(Linear, Option<Backtrack>),
    Backtrack(Backtrack),
}

/// A compiled pattern.
pub struct Matcher {
    engine: Engine,
}

fn has_not_word(program: &program::Program) -> bool {
    let mut found = false;
    program.root.for_each_assertion(&mut |a| {
        found |= matches!(
            a,
            program::Assertion::NotWord | program::Assertion::NotAsciiWord
        );
    });
    found
}

/// Reusable buffers of [`Matcher::run`].
#[derive(Default)]
pub struct Scratch {
    mapped: Vec<u8>,
    backtrack: backtrack::Scratch,
}

impl Matcher {
    /// Compile a program; `is_word` is Python's `\w` (for `\b` and `\B`).
    pub fn new(program_text: &str, is_word: impl Fn(char) -> bool) -> Result<Matcher, String> {
        Matcher::build(program_text, is_word, false)
    }

    /// Compile a program for the backtracking path whatever it holds: its step count is then
    /// what `re`'s own backtracking would take, within a constant factor.
    pub fn backtracking(program_text: &str) -> Result<Matcher, String> {
        Matcher::build(program_text, |_| false, true)
    }

    fn build(
        program_text: &str,
        is_word: impl Fn(char) -> bool,
        backtrack: bool,
    ) -> Result<Matcher, String> {
        let program = program::parse(program_text)?;
        if backtrack {
            return Ok(Matcher {
                engine: Engine::Backtrack(Backtrack::new(&program)?),
            });
        }
        let engine = match Linear::new(&program, is_word) {
            Ok(linear) => {
                let empty = if has_not_word(&program) {
                    Some(Backtrack::new(&program)?)
                } else {
                    None
                };
                Engine::Linear(linear, empty)
            }
            Err(_) => Engine::Backtrack(Backtrack::new(&program)?),
        };
        Ok(Matcher { engine })
    }

    /// Whether the pattern runs in linear time (it never ends [`Outcome::OverBudget`]).
    pub fn is_linear(&self) -> bool {
        matches!(self.engine, Engine::Linear(..))
    }

    /// Search `text` (or match it whole, for a full-match program). `budget` bounds the steps of
    /// the backtracking path (`None`: unbounded).
    pub fn run(
        &self,
        text: &str,
        budget: Option<u64>,
        is_word: &dyn Fn(char) -> bool,
        scratch: &mut Scratch,
    ) -> Outcome {
        match &self.engine {
            Engine::Linear(_, Some(empty)) if text.is_empty() => {
                empty.run(text, budget, is_word, &mut scratch.backtrack)
            }
            Engine::Linear(linear, _) => {
                if linear.is_match(text, &mut scratch.mapped) {
                    Outcome::Match
                } else {
                    Outcome::NoMatch
                }
            }
            Engine::Backtrack(b) => b.run(text, budget, is_word, &mut scratch.backtrack),
        }
    }
}

/// Compiled programs, most recently used last: a literal pattern is compiled once per process,
/// not once per batch.
type Entry = (bool, Arc<str>, Arc<Matcher>);
static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
const CACHE_SIZE: usize = 64;

/// The compiled `program`, from the cache or compiled now.
pub fn cached(program: &str, is_word: impl Fn(char) -> bool) -> Result<Arc<Matcher>, String> {
    cached_as(program, false, || Matcher::new(program, is_word))
}

/// [`cached`] for [`Matcher::backtracking`].
pub fn cached_backtracking(program: &str) -> Result<Arc<Matcher>, String> {
    cached_as(program, true, || Matcher::backtracking(program))
}

fn cached_as(
    program: &str,
    backtrack: bool,
    compile: impl FnOnce() -> Result<Matcher, String>,
) -> Result<Arc<Matcher>, String> {
    if let Ok(mut cache) = CACHE.lock() {
        if let Some(i) = cache
            .iter()
            .position(|(b, p, _)| *b == backtrack && &**p == program)
        {
            let entry = cache.remove(i);
            let matcher = Arc::clone(&entry.2);
            cache.push(entry);
            return Ok(matcher);
        }
    }
    let matcher = Arc::new(compile()?);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push((backtrack, Arc::from(program), Arc::clone(&matcher)));
    }
    Ok(matcher)
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex_automata::util::look::LookMatcher;

    /// A stand-in for Python's `\w` (the tests have no interpreter): Rust's, but without the
    /// combining diacritical marks and with a few numbers, as Python disagrees with Rust.
    fn word(c: char) -> bool {
        if ('\u{300}'..='\u{36f}').contains(&c) {
            return false;
        }
        if "²³¹½¼".contains(c) {
            return true;
        }
        let mut buf = [0u8; 4];
        LookMatcher::new()
            .is_word_unicode(c.encode_utf8(&mut buf).as_bytes(), 0)
            .unwrap_or(false)
    }

    fn run(program: &str, text: &str, budget: Option<u64>) -> (Outcome, Outcome) {
        let mut s = Scratch::default();
        let either = Matcher::new(program, word).unwrap();
        let back = Matcher::backtracking(program).unwrap();
        (
            either.run(text, budget, &word, &mut s),
            back.run(text, budget, &word, &mut s),
        )
    }

    #[test]
    fn both_paths_agree_on_pythons_anchors_and_boundaries() {
        use Outcome::{Match as M, NoMatch as N};
        // a$ : searched; the texts: "a", "a\n", "a\n\n"
        for (text, want) in [("a", M), ("a\n", M), ("a\n\n", N), ("ab", N)] {
            assert_eq!(
                run("pyre1;G1;F0;q2:c[61]^$", text, None),
                (want, want),
                "{text:?}"
            );
        }
        // e\b over Python's \w: a combining mark is not a word character there, ² is
        assert!(!word('\u{301}') && word('²'));
        for (text, want) in [("e\u{301}", M), ("ea", N), ("e", M), ("e²", N), ("²e", M)] {
            assert_eq!(
                run("pyre1;G1;F0;q2:c[65]^b", text, None),
                (want, want),
                "{text:?}"
            );
        }
        // \B never holds in the empty text, as in re
        assert_eq!(run("pyre1;G1;F0;^B", "", None), (N, N));
        assert_eq!(run("pyre1;G1;F0;^B", "ab", None), (M, M));
        // a full match of a|ab tries every alternative
        assert_eq!(run("pyre1;G1;F1;a2:c[61]q2:c[61]c[62]", "ab", None), (M, M));
    }

    #[test]
    fn backtracking_is_bounded_and_needs_no_stack() {
        // (a+)+$ on "aaa...a!": exponential for a backtracker, linear for the other path
        let program = "pyre1;G2;F0;q2:r1,*gg1:r1,*gc[61]^$";
        let text = format!("{}!", "a".repeat(40));
        assert_eq!(
            run(program, &text, Some(100_000)),
            (Outcome::NoMatch, Outcome::OverBudget)
        );
        // (a|b)*c over a megabyte: a million entries deep, on the heap
        let program = "pyre1;G2;F0;q2:r0,*gg1:a2:c[61]c[62]c[63]";
        let text = format!("{}c", "ab".repeat(500_000));
        assert_eq!(run(program, &text, None), (Outcome::Match, Outcome::Match));
    }

    #[test]
    fn the_word_mapping_reads_pythons_word_characters() {
        let phi = linear::Phi::get_for_tests(word);
        assert!(phi.is_some());
        if let Some(phi) = phi {
            phi.check(word);
        }
        assert!(Matcher::new("pyre1;G1;F0;^b", word).unwrap().is_linear());
    }
}
