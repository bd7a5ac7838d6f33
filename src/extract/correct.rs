//! The whole per-row work of `correct`'s numeric and multiple-choice rules, in one pass per row.
//!
//! Each rule reproduces, value for value, the chain of Polars list expressions the rule was first
//! written as (kept in `tests/` as the oracle), with its null logic: Kleene `&` and `|`, a null
//! list of golds making the score null, and `list.contains` / `list.set_intersection` counting a
//! null as equal to a null.
//!
//! * Numeric: the response's final number and every gold alias's final number, each read as
//!   `f64` the way Polars casts a canonical number (`"1/3"` is no `f64`), equal as numbers.
//! * Multiple choice: the final letter (or, with the options, the option the response states)
//!   against the golds' bare letters, and with the options, the chosen option's text against the
//!   golds' texts. Texts are compared as the rule normalised them (strip, lowercase, each run of
//!   whitespace as one space): the caller passes them stripped and lowercased by Polars itself
//!   (its lowercasing follows its own Unicode tables), and [`same_text`] reads each run of
//!   whitespace as one space, as `str.replace_all(r"\s+", " ")` wrote it (the `regex` crate's
//!   `\s` is Unicode's White_Space, as `char::is_whitespace` is; lowercasing neither makes nor
//!   unmakes whitespace).

use super::final_choice::{self, Choice};
use super::final_number::{self, NumberForm};

/// One row's list of texts: `None` for a null list, else its items (each possibly null).
pub type Items<'a> = Option<&'a [Option<&'a str>]>;

/// A canonical number read as Polars' `cast(pl.Float64, strict=False)` reads it.
#[inline]
fn as_f64(canonical: &str) -> Option<f64> {
    // A canonical number is `-?digits(.digits)?` or `-?p/q`; Polars' and Rust's parsers both
    // round a decimal correctly, and both refuse `p/q`.
    canonical.parse::<f64>().ok()
}

/// Float equality as Polars' `==` compares (NaN equals NaN; a canonical number is never NaN).
#[inline]
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

/// The numeric rule of one row.
#[derive(Clone, Debug, PartialEq)]
pub struct NumberVerdict {
    /// 1.0 or 0.0; `None` when no gold holds a number that is an `f64` (or the golds are null).
    pub score: Option<f64>,
    /// The response's final number and its form (`None` for a null response or no number).
    pub number: Option<(String, NumberForm)>,
    /// The first gold alias holding a number (canonical), if any.
    pub gold: Option<String>,
}

/// The response's final number against every gold's: see the module's docs.
///
/// `details` asks for the response's number and the gold's text; without it they are `None`.
pub fn number_verdict(
    response: Option<&str>,
    golds: Items<'_>,
    details: bool,
    buf: &mut String,
) -> NumberVerdict {
    let number = response.and_then(final_number::final_number_text);
    let value = number.as_ref().and_then(|(n, _)| as_f64(n));
    let Some(golds) = golds else {
        return NumberVerdict {
            score: None,
            number: if details { number } else { None },
            gold: None,
        };
    };
    let mut usable = false;
    let mut hit = false;
    let mut gold = None;
    for g in golds.iter().flatten() {
        let Some((num, _)) = final_number::final_number(g) else {
            continue;
        };
        buf.clear();
        final_number::push_canonical(g, &num, buf);
        if details && gold.is_none() {
            gold = Some(buf.clone());
        }
        if let Some(gv) = as_f64(buf) {
            usable = true;
            hit |= value.is_some_and(|v| same(v, gv));
        }
    }
    NumberVerdict {
        score: usable.then_some(f64::from(u8::from(hit))),
        number: if details { number } else { None },
        gold,
    }
}

/// The letter a gold states as a bare letter: Polars' `str.extract(r"^\s*\(?([A-Za-z])\)?\.?\s*$")`
/// uppercased (`\s` being Unicode's White_Space, as in Rust's `regex` and `char::is_whitespace`).
pub fn bare_letter(gold: &str) -> Option<u8> {
    let rest = gold.trim_start_matches(char::is_whitespace);
    let rest = rest.strip_prefix('(').unwrap_or(rest);
    let letter = *rest.as_bytes().first()?;
    if !letter.is_ascii_alphabetic() {
        return None;
    }
    let rest = &rest[1..];
    let rest = rest.strip_prefix(')').unwrap_or(rest);
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    rest.chars()
        .all(char::is_whitespace)
        .then_some(letter.to_ascii_uppercase())
}

/// What the multiple-choice rule chose: a letter, or the empty text the rule writes for an option
/// past `Z` (Polars' `str.slice` past the letters' end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chosen {
    Letter(u8),
    PastZ,
}

impl Chosen {
    fn of_index(i: usize) -> Chosen {
        match u8::try_from(i) {
            Ok(i) if i < 26 => Chosen::Letter(b'A' + i),
            _ => Chosen::PastZ,
        }
    }
}

/// The options' texts, as given and stripped and lowercased.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// The options' texts as given (`None`: a null list), read by `final_choice`.
    pub texts: Items<'a>,
    /// The options' texts stripped and lowercased, item for item.
    pub normalized: Items<'a>,
}

/// `text` with each run of whitespace as one space.
fn collapsed(text: &str) -> impl Iterator<Item = char> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        if c.is_whitespace() {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            Some(' ')
        } else {
            Some(c)
        }
    })
}

/// Whether two stripped, lowercased texts are equal once each run of whitespace is one space.
fn same_str(a: &str, b: &str) -> bool {
    a == b || collapsed(a).eq(collapsed(b))
}

/// [`same_str`] of two items, a null equal to a null only (as `list.contains` and
/// `list.set_intersection` compare).
fn same_text(a: Option<&str>, b: Option<&str>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => same_str(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// The index of the first option whose text is the same as `text` (`None` for a null text or
/// options, or no such option), as the rule's `list.concat` / `arg_max` found it.
fn option_index(options: Items<'_>, text: Option<&str>) -> Option<usize> {
    let text = text?;
    options?
        .iter()
        .position(|o| o.is_some_and(|o| same_str(o, text)))
}

/// Kleene `|`.
fn or(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// The multiple-choice rule of one row.
#[derive(Clone, Debug, PartialEq)]
pub struct ChoiceVerdict {
    /// 1.0 or 0.0; `None` when no gold is usable (or the golds are null).
    pub score: Option<f64>,
    /// What the response chose.
    pub chosen: Option<Chosen>,
    /// What `final_choice` read (`None` for a null response).
    pub read: Option<Choice>,
}

/// The multiple-choice rule: see the module's docs. `normalized_response` and
/// `normalized_golds` (stripped and lowercased, the golds' item for item) are only read with
/// `options`.
pub fn choice_verdict(
    response: Option<&str>,
    golds: Items<'_>,
    options: Option<Options<'_>>,
    normalized_response: Option<&str>,
    normalized_golds: Items<'_>,
) -> ChoiceVerdict {
    let read = response.map(|t| final_choice::final_choice(t, options.and_then(|o| o.texts)));
    let mut chosen = read.and_then(|c| c.letter).map(Chosen::Letter);
    if let (None, Some(o)) = (chosen, options) {
        chosen = option_index(o.normalized, normalized_response).map(Chosen::of_index);
    }
    // `letters.list.contains(chosen) & chosen.is_not_null()`, and `letters.list.len() > 0`.
    let (mut hit, mut usable) = match golds {
        None => (chosen.map(|_| None::<bool>).unwrap_or(Some(false)), None),
        Some(golds) => {
            let mut any = false;
            let mut found = false;
            for letter in golds.iter().flatten().filter_map(|g| bare_letter(g)) {
                any = true;
                found |= chosen == Some(Chosen::Letter(letter));
            }
            (Some(found), Some(any))
        }
    };
    if let Some(o) = options {
        // `golds.list.contains(stated)`, a null `stated` finding a null gold.
        let stated = match chosen {
            Some(Chosen::Letter(l)) => o
                .normalized
                .zip(l.checked_sub(b'A'))
                .and_then(|(n, i)| n.get(usize::from(i)).copied().flatten()),
            _ => None,
        };
        let named = normalized_golds.map(|golds| golds.iter().any(|g| same_text(*g, stated)));
        // `golds.list.set_intersection(options).list.len() > 0`, null meeting null.
        let shared = match (normalized_golds, o.normalized) {
            (Some(golds), Some(opts)) => {
                Some(golds.iter().any(|g| opts.iter().any(|o| same_text(*g, *o))))
            }
            _ => None,
        };
        hit = or(hit, named);
        usable = or(usable, shared);
    }
    ChoiceVerdict {
        score: (usable == Some(true)).then_some(f64::from(u8::from(hit == Some(true)))),
        chosen,
        read,
    }
}

/// The gold letter `correct_details` reports: the first gold that is not blank, as a bare
/// letter, else (with the options) the letter of the option it states.
pub fn gold_choice(
    golds: Items<'_>,
    options: Option<Options<'_>>,
    normalized_golds: Items<'_>,
) -> Option<Chosen> {
    let golds = golds?;
    let (at, first) = golds
        .iter()
        .enumerate()
        .find_map(|(i, g)| g.filter(|g| !g.trim().is_empty()).map(|g| (i, g)))?;
    if let Some(letter) = bare_letter(first) {
        return Some(Chosen::Letter(letter));
    }
    let o = options?;
    let text = normalized_golds.and_then(|n| n.get(at).copied().flatten());
    option_index(o.normalized, text).map(Chosen::of_index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(response: &str, golds: &[Option<&str>]) -> Option<f64> {
        number_verdict(Some(response), Some(golds), false, &mut String::new()).score
    }

    #[test]
    fn numbers_match_any_alias_as_numbers() {
        assert_eq!(score("so #### 1,200", &[Some("1200.0")]), Some(1.0));
        assert_eq!(score("it is 7", &[Some("x"), Some("7")]), Some(1.0));
        assert_eq!(score("it is 8", &[Some("7")]), Some(0.0));
        assert_eq!(score("no number", &[Some("7")]), Some(0.0));
        // A gold with no number, or one that is no f64 (a fraction), is not usable.
        assert_eq!(score("7", &[Some("none"), None]), None);
        assert_eq!(score("1/3", &[Some("1/3")]), None);
        assert_eq!(score("7", &[]), None);
        let v = number_verdict(None, None, true, &mut String::new());
        assert_eq!((v.score, v.gold), (None, None));
        let v = number_verdict(
            None,
            Some(&[Some("2/6"), Some("4")]),
            true,
            &mut String::new(),
        );
        assert_eq!((v.score, v.gold.as_deref()), (Some(0.0), Some("1/3")));
    }

    #[test]
    fn whitespace_runs_compare_as_one_space() {
        assert!(same_str("new  york", "new york"));
        assert!(same_str("new\u{a0}\t\nyork", "new\u{2003}york"));
        assert!(!same_str("new\u{1c}york", "new york"));
        assert!(!same_str("newyork", "new york"));
        assert!(same_text(None, None));
        assert!(!same_text(Some(""), None));
    }

    #[test]
    fn bare_letters_follow_the_gold_pattern() {
        assert_eq!(bare_letter(" (b). "), Some(b'B'));
        assert_eq!(bare_letter("C"), Some(b'C'));
        assert_eq!(bare_letter("\u{2003}d)\u{a0}"), Some(b'D'));
        assert_eq!(bare_letter("B)."), Some(b'B'));
        assert_eq!(bare_letter("(B"), Some(b'B'));
        assert_eq!(bare_letter(".B"), None);
        assert_eq!(bare_letter("B.)"), None);
        assert_eq!(bare_letter("BC"), None);
        assert_eq!(bare_letter("\u{1c}B"), None);
        assert_eq!(bare_letter(""), None);
    }

    #[test]
    fn choices_follow_the_rule_and_its_nulls() {
        let v = choice_verdict(
            Some("The answer is (C)."),
            Some(&[Some("c")]),
            None,
            None,
            None,
        );
        assert_eq!((v.score, v.chosen), (Some(1.0), Some(Chosen::Letter(b'C'))));
        let v = choice_verdict(Some("?"), Some(&[Some("c"), None]), None, None, None);
        assert_eq!(v.score, Some(0.0));
        let v = choice_verdict(Some("?"), Some(&[Some("paris")]), None, None, None);
        assert_eq!(v.score, None);
        // With options: the response states an option's text; a null gold meets a null option.
        let texts = [Some("Paris"), Some("Rome")];
        let normalized = [Some("paris"), Some("rome")];
        let o = Options {
            texts: Some(&texts),
            normalized: Some(&normalized),
        };
        let golds = [Some("Rome")];
        let v = choice_verdict(
            Some("Rome"),
            Some(&golds),
            Some(o),
            Some("rome"),
            Some(&[Some("rome")]),
        );
        assert_eq!((v.score, v.chosen), (Some(1.0), Some(Chosen::Letter(b'B'))));
        let v = choice_verdict(Some("?"), Some(&[None]), Some(o), Some("?"), Some(&[None]));
        assert_eq!(v.score, None);
        let with_null = [Some("paris"), None];
        let o2 = Options {
            texts: Some(&texts),
            normalized: Some(&with_null),
        };
        let v = choice_verdict(Some("?"), Some(&[None]), Some(o2), Some("?"), Some(&[None]));
        assert_eq!(v.score, Some(1.0));
        assert_eq!(
            gold_choice(
                Some(&[None, Some(" "), Some("Rome")]),
                Some(o),
                Some(&[None, Some(""), Some("rome")])
            ),
            Some(Chosen::Letter(b'B'))
        );
    }
}
