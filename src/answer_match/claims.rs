//! What a response claims: the rules that reject an answer which names the gold without
//! asserting it (a hedge among candidates, a negation, a sweep of numbers, a degenerate loop),
//! and the multiple-choice letters a response gives.
//!
//! The response is cut once, left to right, into *items* at its structure: list separators
//! (`,` `;` `/` `|` a line break, the words *or*, *and*, *nor*), hard breaks (a sentence's end,
//! `:`, the words *but*, *however*, *either*...) and neutral marks (brackets, quotes, `*`). Items
//! joined by list separators form a *run*; a hard break or a neutral mark alone ends it. Each item
//! is normalised as the response is, so an alias is found in an item as the `contains` rule finds
//! it in the response. A gold item is *hedged* when its run holds another candidate of the gold's
//! type (numbers with numbers, names with names) and the run is a coordination with *or* (or a
//! slash), a list of three candidates or more (joined by *and*, only short capitalised names:
//! *and* asserts each item), or comes in a sentence with a hedging word (*maybe*, *possibly*,
//! *either*...); no run is a hedge when the question asks for several. It is *negated* when a
//! negation comes right before it (`not X`, `isn't X`, `neither X`, `nor X`) or a verdict right
//! after it (`X is wrong`). A row whose every gold item is hedged or negated is rejected.
//!
//! A row is judged asserted as soon as one gold item is, so the sentences that hold a word of an
//! alias are cut and judged one by one, up to the first that asserts a gold item
//! ([`Claims::read_and_judge`]: nothing the judge reads crosses a sentence), and most are decided
//! by the item at the first place of such a word, which alone is normalised. Where an alias has
//! no such word, a response whose last item gives the gold alone in its run, undenied (`... A:
//! 18`), is decided from that item alone ([`Claims::tail_asserts`]) and the rest is never cut.
//! A letter gold needs only the items' letters, which come from the raw text: the cut for them
//! normalises no item ([`Claims::read_letters`]). A degenerate loop is looked for only when two
//! cheap tests of the words' first two bytes (at every fifth word, then at every word against the
//! eight before it) find one possible ([`pretests`], [`loop_after_pretests`]); the same walk over
//! the words tells whether a sweep is possible.
//!
//! Every pass is linear in the text: the cut is one scan, each item is normalised once, the
//! run-level counts are gathered once, and a gold item reads only its run's counts; the tail test
//! reads the text backwards once, to its last item's run start, and that item once; the sentence
//! read jumps from one place where a key is spelled to the next, and reads each sentence that
//! holds one from its bounds around the place.

use crate::answer_match::{FoldTable, Normalizer};
use crate::answer_words::number_spellings;
use crate::pyunicode::Tables;

/// A joint between two items: the marks met since the previous item, as bits.
const LIST: u16 = 1;
const OR: u16 = 2;
const HARD: u16 = 4;
const SENTENCE: u16 = 8;
const NEGATE_NEXT: u16 = 16;
const COLON: u16 = 32;
const AND: u16 = 64;
/// *either*: the sentence offers candidates; `?`: it asks.
const CUE: u16 = 128;
const QUESTION: u16 = 256;
const COMMA: u16 = 512;

/// One item of a response.
#[derive(Clone, Copy, Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Item {
    /// The item's normalised text in [`Claims::text`] (`" words "`).
    start: usize,
    end: usize,
    run: u32,
    sentence: u32,
    /// After *nor* or *neither*.
    negated_by_joint: bool,
    /// The multiple-choice letter the item gives (lower-case ASCII), and whether it denies it.
    letter: Option<u8>,
    letter_negated: bool,
    /// The item's words, and whether it may be a candidate number, name (see [`Run`]).
    words: usize,
    /// It is the first of its run.
    first: bool,
    as_number: bool,
    as_name: bool,
    /// Where an alias occurs in the item: its start and length in the item's text, its kind,
    /// its words, and whether the item denies it (filled by [`Claims::judge`]).
    gold: Option<(usize, usize, Kind, usize, bool)>,
    /// The gold may be a list's candidate: it ends the item when it is the first of its run.
    listable: bool,
}

/// What the runs hold: their candidates of each type, whether *or* joins them.
#[derive(Clone, Copy, Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
struct Run {
    or: bool,
    /// A sentence's end, or the text's, follows the run's last item; the text's start, a
    /// sentence's end or a colon comes before its first.
    ends: bool,
    starts: bool,
    /// An item after the first is a clause (it holds a verb such as *is*).
    clause: bool,
    /// A candidate name is not capitalised (`acid rain`, where `London` is).
    lower: u32,
    /// Gold items (counted by the verdicts).
    golds: u32,
    /// A comma before an *or* (`X, or Y`): a restatement when only two items are joined.
    restated: bool,
    /// Joined by *and*, then by a comma (`Sex and the City, New York`): no list.
    and: bool,
    /// An item gives examples (`including`, `among them`): a list of some, not candidates.
    examples: bool,
    /// The words of the run's first item, and the most of any other.
    first_words: usize,
    tail_words: usize,
    /// Items that may be a number, a name, by their words (`[k]`: `k` words, up to `SHORT`).
    numbers: [u16; SHORT + 1],
    names: [u16; SHORT + 1],
    /// Of these, the gold items (counted by the verdicts).
    gold_numbers: [u16; SHORT + 1],
    gold_names: [u16; SHORT + 1],
    /// Items that give a letter, and of these, a gold letter.
    letters: u32,
    gold_letters: u32,
    /// The candidates were listed already (a row lists each run once).
    listed: bool,
}

/// The most words a candidate may have.
const SHORT: usize = 5;
/// The most words of an item of a bare list joined by *and*.
const AND_WORDS: usize = 3;

/// Why a row whose gold the response names is still rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Hedge,
    Negated,
}

/// What [`Claims::judge`] has found so far, piece by piece: the gold items seen, whether one
/// was hedged, and the answer of the hedge rule once asked.
#[derive(Default)]
struct Judging {
    gold_items: usize,
    hedged: bool,
    hedge_rule: Option<bool>,
}

impl Judging {
    /// The verdict when no gold item seen is asserted.
    fn verdict(&self) -> Option<Verdict> {
        (self.gold_items > 0).then_some(if self.hedged {
            Verdict::Hedge
        } else {
            Verdict::Negated
        })
    }
}

/// Reusable buffers of the item analysis.
#[derive(Default)]
pub struct Claims {
    items: Vec<Item>,
    runs: Vec<Run>,
    /// Per sentence: bit 0, it holds a hedging word; bit 1, a word that gives examples.
    cues: Vec<u8>,
    text: String,
    scratch: String,
    /// The items' letters are read (for [`Claims::judge_letters`]).
    letters: bool,
    /// The items are cut but only their letters are read: no text, no candidates
    /// ([`Claims::read_letters`]).
    pub light: bool,
    /// The candidates of the last rejection, `" | "` between them.
    pub candidates: String,
    /// Split a year from a glued citation marker or word in each item's normal form
    /// (`answer_rules::split_year_citations_into`), as the match did in the whole response's.
    pub split_years: bool,
    split: String,
    /// The sources of places of gold items in a response, and per source the next place
    /// ([`first_key_place`]).
    sources: Vec<Source>,
    places: Vec<usize>,
    /// The rows [`Claims::item_asserts`] decided (the tests check that it decides some).
    #[cfg(test)]
    item_shortcuts: usize,
    /// The sentences [`Claims::read_and_judge`] found no gold item in without their cut.
    #[cfg(test)]
    sentences_skipped: usize,
}

/// Words that open a coordination or correct what came before: a hard break.
fn hard_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"but" | b"however" | b"although" | b"though" | b"whereas" | b"either" | b"neither"
    )
}

/// A negation right before a word (normalised: apostrophes are gone).
fn negator(w: &str) -> bool {
    matches!(
        w,
        "not" | "no" | "never" | "isnt" | "wasnt" | "arent" | "werent" | "nor" | "neither"
    )
}

/// Words that show a response offers candidates rather than an answer.
fn cue(w: &str) -> bool {
    matches!(
        w,
        "maybe"
            | "perhaps"
            | "possibly"
            | "possible"
            | "either"
            | "candidates"
            | "options"
            | "possibilities"
            | "alternatives"
            | "guesses"
    )
}

/// Words that open a clause: an item starting with one is a remark, not a candidate.
fn clause_starter(w: &str) -> bool {
    matches!(
        w,
        "i" | "it"
            | "its"
            | "he"
            | "she"
            | "they"
            | "we"
            | "you"
            | "this"
            | "that"
            | "these"
            | "those"
            | "which"
            | "who"
            | "whom"
            | "whose"
            | "where"
            | "when"
            | "so"
            | "because"
            | "if"
            | "as"
            | "since"
            | "while"
            | "there"
            | "here"
            | "is"
            | "was"
            | "are"
            | "were"
            | "also"
            | "both"
    )
}

/// Verdicts after a gold (`X is wrong`), as the normalised words that follow it.
const AFTER: &[&str] = &[
    " is wrong ",
    " is incorrect ",
    " is false ",
    " is mistaken ",
    " is not correct ",
    " is not right ",
    " is not answer ",
    " isnt correct ",
    " isnt right ",
    " isnt answer ",
    " was wrong ",
    " was incorrect ",
    " is common misconception ",
    " is misconception ",
    " wrong ",
    " incorrect ",
];

/// Words before a multiple-choice letter that leave it the answer (`The answer is B`).
fn letter_lead(w: &[u8]) -> bool {
    let mut buf = [0u8; 12];
    let Some(low) = lower(w, &mut buf) else {
        return false;
    };
    matches!(
        low,
        b"the"
            | b"answer"
            | b"is"
            | b"final"
            | b"correct"
            | b"right"
            | b"best"
            | b"option"
            | b"choice"
            | b"it"
            | b"its"
            | b"s"
            | b"i"
            | b"think"
            | b"believe"
            | b"would"
            | b"say"
            | b"be"
            | b"my"
            | b"letter"
            | b"maybe"
            | b"perhaps"
            | b"possibly"
            | b"probably"
            | b"so"
            | b"therefore"
            | b"thus"
            | b"hence"
            | b"boxed"
            | b"text"
            | b"textbf"
            | b"mathrm"
            | b"or"
    )
}

/// Negations before a letter, as raw ASCII words (`isn't` is `isn`, `t`).
fn letter_negator(w: &[u8]) -> bool {
    let mut buf = [0u8; 12];
    matches!(
        lower(w, &mut buf),
        Some(b"not" | b"no" | b"never" | b"isn" | b"wasn" | b"t" | b"nor" | b"neither")
    )
}

/// Words that may follow a letter answer (`B because ...`, `C is correct`).
fn letter_tail(w: &[u8]) -> bool {
    let mut buf = [0u8; 12];
    matches!(
        lower(w, &mut buf),
        Some(
            b"because"
                | b"since"
                | b"as"
                | b"is"
                | b"was"
                | b"which"
                | b"would"
                | b"seems"
                | b"appears"
                | b"correct"
                | b"right"
        )
    )
}

/// Verdicts after a letter and its `is` / `was` (`A is wrong`).
fn letter_denial(w: &[u8]) -> bool {
    let mut buf = [0u8; 12];
    matches!(
        lower(w, &mut buf),
        Some(b"wrong" | b"incorrect" | b"false" | b"not" | b"mistaken")
    )
}

/// `w` in ASCII lower case, when it fits `buf`.
fn lower<'b>(w: &[u8], buf: &'b mut [u8; 12]) -> Option<&'b [u8]> {
    let out = buf.get_mut(..w.len())?;
    for (o, &b) in out.iter_mut().zip(w) {
        *o = b.to_ascii_lowercase();
    }
    Some(out)
}

/// The multiple-choice letter an alias is (`A`, `(B)`, `c.`), lower-case: one ASCII letter
/// with nothing but brackets, dots, stars and spaces around it.
pub fn alias_letter(alias: &str) -> Option<u8> {
    let mut letter = None;
    for &b in alias.as_bytes() {
        if b.is_ascii_alphabetic() {
            if letter.is_some() {
                return None;
            }
            letter = Some(b.to_ascii_lowercase());
        } else if !matches!(b, b'(' | b')' | b'[' | b']' | b'.' | b'*' | b' ' | b':') {
            return None;
        }
    }
    letter
}

/// The letter a raw item gives: lead words (`the answer is`), then one ASCII letter, then
/// nothing or a word that keeps it the answer (`because`); a lone letter in any case, else
/// upper case only (a lower-case `a` after words is an article). With whether it is denied.
fn item_letter(raw: &[u8]) -> Option<(u8, bool)> {
    let mut words = raw
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .peekable();
    let mut negated = false;
    let mut lead = 0usize;
    let mut found = None;
    while let Some(w) = words.next() {
        if letter_negator(w) {
            negated = true;
            lead += 1;
            continue;
        }
        // A lone letter may itself be a lead word (`I`): it is the letter when nothing follows.
        // (`I think it is B`: the pronoun leads in.)
        let leads_in = letter_lead(w) && words.peek().is_some_and(|n| !letter_tail(n));
        if w.len() == 1 && w.first().is_some_and(u8::is_ascii_alphabetic) && !leads_in {
            found = w.first().copied();
            break;
        }
        if !letter_lead(w) {
            return last_letter(raw);
        }
        lead += 1;
    }
    let Some(letter) = found else {
        return last_letter(raw);
    };
    match (words.next(), words.next()) {
        (None, _) => {}
        (Some(next), after) if letter_tail(next) => {
            if matches!(next, b"is" | b"was" | b"Is" | b"Was") && after.is_some_and(letter_denial) {
                negated = true;
            }
        }
        _ => return None,
    }
    // A lower-case letter only alone in its item (`(a)`, `answer: b`).
    if letter.is_ascii_lowercase() && lead > 0 {
        return None;
    }
    Some((letter.to_ascii_lowercase(), negated))
}

/// Whether the dot at `i` ends an initial (`John F. Kennedy`, `B.B. King`, `D. W. Griffith`):
/// an upper-case letter alone after a word or another initial's dot.
fn initial(b: &[u8], i: usize) -> bool {
    let at = |k: usize| i.checked_sub(k).and_then(|k| b.get(k)).copied();
    // Another initial follows (`B. J. Thomas`).
    let next_initial = b.get(i + 1) == Some(&b' ')
        && b.get(i + 2).is_some_and(u8::is_ascii_uppercase)
        && b.get(i + 3) == Some(&b'.');
    at(1).is_some_and(|c| c.is_ascii_uppercase())
        && match at(2) {
            Some(b'.') => true,
            Some(b' ') => {
                next_initial || at(3).is_some_and(|c| c.is_ascii_alphanumeric() || c == b'.')
            }
            None => next_initial,
            _ => false,
        }
}

/// The letter an item ends with, when no lead words come before it (`coded by the V`,
/// `Vitamin K`): its last word, one upper-case ASCII letter; denied when a negation is in it.
fn last_letter(raw: &[u8]) -> Option<(u8, bool)> {
    let mut words = raw
        .split(|b| !b.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty());
    let last = words.next_back()?;
    let (&[letter], true) = (last, true) else {
        return None;
    };
    if !letter.is_ascii_uppercase() {
        return None;
    }
    // Nothing but marks after it (`K.`, `V)`).
    let end = raw.iter().rposition(u8::is_ascii_alphanumeric)?;
    let _ = end;
    // Denied by the word right before it (`not K`), not by one further back.
    let negated = words.next_back().is_some_and(letter_negator);
    Some((letter.to_ascii_lowercase(), negated))
}

/// The bytes a separator may start with ([`separator`]): a test that lets most bytes of a text
/// by for one table load. A mark is 1; the first letter of a separating word is 2, a separator
/// only at a word's start (after no ASCII letter or digit).
static SEPARATOR_FIRST: [u8; 256] = {
    let mut table = [0u8; 256];
    let marks = b",;|\n/.!?:()[]{}\"*$\xE2";
    let mut k = 0;
    while k < marks.len() {
        table[marks[k] as usize] = 1;
        k += 1;
    }
    let letters = b"oanebhtwOANEBHTW";
    k = 0;
    while k < letters.len() {
        table[letters[k] as usize] = 2;
        k += 1;
    }
    table
};

/// Per first letter of a separating word ([`SEPARATOR_FIRST`]'s 2, in either case), the second
/// letters such a word may have, lower case, as bits (`a` is bit 0): *or*, *and*, *although*,
/// *nor*, *neither*, *either*, *but*, *however*, *though*, *whereas*. A letter at a word's start
/// followed by any other byte starts no separator: most words (`of`, `a`, `war`) are let by
/// without [`separator`]'s read of the word.
static SEPARATOR_SECOND: [u32; 256] = {
    let mut table = [0u32; 256];
    let words: [&[u8]; 10] = [
        b"or",
        b"and",
        b"although",
        b"nor",
        b"neither",
        b"either",
        b"but",
        b"however",
        b"though",
        b"whereas",
    ];
    let mut k = 0;
    while k < words.len() {
        let (first, second) = (words[k][0], words[k][1]);
        let bit = 1u32 << (second - b'a');
        table[first as usize] |= bit;
        table[first.to_ascii_uppercase() as usize] |= bit;
        k += 1;
    }
    table
};

/// [`separator`], with [`SEPARATOR_FIRST`] first (and, for a letter, the byte before it, the
/// byte after it: [`SEPARATOR_SECOND`], and the one after that: [`may_start_joint_word`]).
#[inline(always)]
fn separator_at(b: &[u8], i: usize) -> Option<(u16, usize)> {
    let c = *b.get(i)?;
    match SEPARATOR_FIRST[usize::from(c)] {
        0 => None,
        2 => {
            if i.checked_sub(1)
                .and_then(|k| b.get(k))
                .is_some_and(u8::is_ascii_alphanumeric)
            {
                return None;
            }
            // Then its third ([`may_start_joint_word`]): `the`, `this`, `also`, `not`, `any`
            // are let by without [`separator`]'s read of the word.
            if !second_fits(c, b.get(i + 1).copied()) || !may_start_joint_word(b, i) {
                return None;
            }
            separator(b, i)
        }
        _ => separator(b, i),
    }
}

/// Whether `next`, the byte after a letter `c` that [`SEPARATOR_FIRST`] gives 2 (or the text's
/// end: `None`), may be the second letter of a separating word that starts with `c`
/// ([`SEPARATOR_SECOND`]).
#[inline(always)]
fn second_fits(c: u8, next: Option<u8>) -> bool {
    // The letter index, 26 or more for a byte that is no ASCII letter.
    let n = next.map_or(0xFF, |n| (n | 0x20).wrapping_sub(b'a'));
    n < 26 && SEPARATOR_SECOND[usize::from(c)] >> n & 1 != 0
}

/// Per byte, as bits, [`separator_at`]'s first two tests: 1, it may start a separator after a
/// byte that is no ASCII letter or digit (a mark, or a letter that [`SEPARATOR_FIRST`] gives 2);
/// 2, it may after one that is (a mark: a letter starts a separating word only at a word's start);
/// 4, it is an ASCII letter or digit. So a byte `c` after a byte `p` may start a separator only
/// if `SEPARATOR_CLASS[c] >> (SEPARATOR_CLASS[p] >> 2) & 1` is 1.
static SEPARATOR_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = match SEPARATOR_FIRST[c] {
            0 => 0,
            2 => 1,
            _ => 3,
        } | if (c as u8).is_ascii_alphanumeric() {
            4
        } else {
            0
        };
        c += 1;
    }
    table
};

/// The places of `lo..hi` in `b` (32 bytes at most; `lo` is bit 0) that pass
/// [`SEPARATOR_CLASS`]'s test and, for a letter, [`second_fits`] with the byte after it (in `b`,
/// past `hi` too): every place in it where [`separator_at`] finds a separator is one. Without a
/// branch per byte: the byte loops it replaces took one at every byte, and mispredicted at the
/// many letters [`SEPARATOR_FIRST`] lets by (`o a n e b h t w`), most of which are inside a
/// word. With AVX2, 32 bytes at once where `b` has them
/// ([`separator_candidates_avx2`]).
#[inline(always)]
fn separator_candidates(b: &[u8], lo: usize, hi: usize) -> u32 {
    let after_word = lo
        .checked_sub(1)
        .and_then(|k| b.get(k))
        .map_or(0, |&p| SEPARATOR_CLASS[usize::from(p)] >> 2);
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if crate::cpu::has_avx2() {
        // Near the text's end, its last bytes and zeros (no mark, no letter): the last byte's
        // next is none, as [`second_fits`] reads the end.
        let mut padded = [0u8; 33];
        let chunk = match b.get(lo..).and_then(|r| r.first_chunk::<33>()) {
            Some(chunk) => chunk,
            None => {
                let rest = b.get(lo..).unwrap_or(&[]);
                if let Some(dst) = padded.get_mut(..rest.len()) {
                    dst.copy_from_slice(rest);
                }
                &padded
            }
        };
        let n = hi.saturating_sub(lo).min(32);
        let keep = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        // SAFETY: the processor has AVX2, which is all the function needs.
        return unsafe { separator_candidates_avx2(chunk, u32::from(after_word)) } & keep;
    }
    separator_candidates_bytes(b, lo, hi, after_word)
}

/// [`separator_candidates`] a byte at a time, `after_word` being 1 when the byte before `lo` is
/// an ASCII letter or digit.
#[inline]
fn separator_candidates_bytes(b: &[u8], lo: usize, hi: usize, mut after_word: u8) -> u32 {
    let Some(window) = b.get(lo..hi) else {
        return 0;
    };
    let mut places = 0u32;
    for (k, &c) in window.iter().take(32).enumerate() {
        let class = SEPARATOR_CLASS[usize::from(c)];
        let mut place = class >> after_word & 1 != 0;
        if place && SEPARATOR_FIRST[usize::from(c)] == 2 {
            place = second_fits(c, b.get(lo + k + 1).copied());
        }
        places |= u32::from(place) << k;
        after_word = class >> 2;
    }
    places
}

/// Per nibble of a byte, the bits of the classes [`separator_candidates_avx2`] tells apart: a
/// byte is in a class when both its nibbles' entries have the class's bit. Bits 0 to 5 are the
/// marks [`SEPARATOR_FIRST`] gives 1 (a line break; `! " $ ( ) * , . /`; `: ; ?`; `[ ] { }`;
/// `|`; the lead byte E2). The tests check the classes against the table for every byte.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const SEPARATOR_NIBBLES: ([u8; 16], [u8; 16]) = crate::ascii::nibble_tables(&[
    // (bit, high nibbles, low nibbles)
    (1, &[0x0], &[0xA]),
    (2, &[0x2], &[0x1, 0x2, 0x4, 0x8, 0x9, 0xA, 0xC, 0xE, 0xF]),
    (4, &[0x3], &[0xA, 0xB, 0xF]),
    (8, &[0x5, 0x7], &[0xB, 0xD]),
    (16, &[0x7], &[0xC]),
    (32, &[0xE], &[0x2]),
]);

/// The letters [`SEPARATOR_FIRST`] gives 2 (either case), a bit per set of second letters they
/// take ([`SEPARATOR_SECOND`]), and per bit those second letters (either case):
/// [`separator_candidates_avx2`] keeps a letter whose class and its next byte's share a bit.
/// `o`: `r`; `a`: `n l`; `n`: `o e`; `e`: `i`; `b`: `u`; `h`: `o`; `t w`: `h`.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const FIRST_LETTER_NIBBLES: ([u8; 16], [u8; 16]) = crate::ascii::nibble_tables(&[
    (1, &[0x4, 0x6], &[0xF]),
    (2, &[0x4, 0x6], &[0x1]),
    (4, &[0x4, 0x6], &[0xE]),
    (8, &[0x4, 0x6], &[0x5]),
    (16, &[0x4, 0x6], &[0x2]),
    (32, &[0x4, 0x6], &[0x8]),
    (64, &[0x5, 0x7], &[0x4, 0x7]),
]);
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const SECOND_LETTER_NIBBLES: ([u8; 16], [u8; 16]) = crate::ascii::nibble_tables(&[
    (1, &[0x5, 0x7], &[0x2]),
    (2, &[0x4, 0x6], &[0xE, 0xC]),
    (4, &[0x4, 0x6], &[0xF, 0x5]),
    (8, &[0x4, 0x6], &[0x9]),
    (16, &[0x5, 0x7], &[0x5]),
    (32, &[0x4, 0x6], &[0xF]),
    (64, &[0x4, 0x6], &[0x8]),
]);

/// [`separator_candidates`] of the first 32 bytes of `chunk` (the 33rd is the byte after the
/// last), `after_word` being 1 when the byte before it is an ASCII letter or digit: the marks of
/// [`SEPARATOR_NIBBLES`], and the letters of [`FIRST_LETTER_NIBBLES`] after no ASCII letter or
/// digit and before a second letter they take.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
unsafe fn separator_candidates_avx2(chunk: &[u8; 33], after_word: u32) -> u32 {
    use crate::ascii::avx2::{in_range, nibble_classes};
    use std::arch::x86_64::*;
    let v = _mm256_loadu_si256(chunk.as_ptr().cast());
    // SAFETY: `chunk` holds 33 bytes, so 32 from its second byte on.
    let next = _mm256_loadu_si256(chunk.as_ptr().add(1).cast());
    let zero = _mm256_setzero_si256();
    let any = |class: __m256i| !(_mm256_movemask_epi8(_mm256_cmpeq_epi8(class, zero)) as u32);
    let mark = any(nibble_classes(
        v,
        &SEPARATOR_NIBBLES.0,
        &SEPARATOR_NIBBLES.1,
    ));
    let letter = any(_mm256_and_si256(
        nibble_classes(v, &FIRST_LETTER_NIBBLES.0, &FIRST_LETTER_NIBBLES.1),
        nibble_classes(next, &SECOND_LETTER_NIBBLES.0, &SECOND_LETTER_NIBBLES.1),
    ));
    // ASCII letters and digits (a byte from 0x80 is negative, so in neither range).
    let digit = in_range(v, b'0', b'9');
    let alpha = in_range(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), b'a', b'z');
    let word = _mm256_movemask_epi8(_mm256_or_si256(digit, alpha)) as u32;
    mark | (letter & !(word << 1 | after_word))
}

/// The first separator ([`separator_at`]) that starts in `from..to` of `b`: its start, bits and
/// length. [`separator_at`] reads only the places [`separator_candidates`] gives, 32 bytes at a
/// time.
#[inline]
fn separator_after(b: &[u8], from: usize, to: usize) -> Option<(usize, u16, usize)> {
    let to = to.min(b.len());
    let mut lo = from;
    while lo < to {
        let hi = to.min(lo + 32);
        let mut places = separator_candidates(b, lo, hi);
        while places != 0 {
            let j = lo + places.trailing_zeros() as usize;
            if let Some((bits, len)) = separator_at(b, j) {
                return Some((j, bits, len));
            }
            places &= places - 1;
        }
        lo = hi;
    }
    None
}

/// The last separator ([`separator_at`]) that starts in `from..end` of `b`: its start, bits and
/// length. [`separator_at`] reads only the places [`separator_candidates`] gives, 32 bytes at a
/// time.
#[inline]
fn separator_before(b: &[u8], from: usize, end: usize) -> Option<(usize, u16, usize)> {
    let mut hi = end.min(b.len());
    while hi > from {
        let lo = from.max(hi - 32.min(hi));
        let mut places = separator_candidates(b, lo, hi);
        while places != 0 {
            let k = 31 - places.leading_zeros() as usize;
            if let Some((bits, len)) = separator_at(b, lo + k) {
                return Some((lo + k, bits, len));
            }
            places &= !(1 << k);
        }
        hi = lo;
    }
    None
}

/// What comes last before a separator ([`before_item`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Before {
    Item,
    Separator(usize, u16, usize),
    Nothing,
}

/// What comes last before a separator at `j` of the raw text `b`, in `from..j`: the bytes of an
/// item, or else the last separator that starts there, or nothing. The joint loops read this for
/// whether an item comes before a joint, or another separator does; it is what the last separator
/// of `from..j` ([`separator_before`]) and whether a byte after it is an item's (an ASCII letter
/// or digit, or a byte outside ASCII) say, but read back from `j` only as far as the first byte
/// that is not blank (most often the last of the item before), not to that item's start.
///
/// Why it is the same, for `from` a character boundary: the bytes passed (ASCII, neither a
/// letter nor a digit, and starting no separator) are no item's, and none is inside a separator
/// (one longer than a byte is a word of letters or a three-byte character). At the first byte
/// `k` that is not passed:
///
/// * an ASCII mark that starts a separator: that is the last one, a byte long, and only blanks
///   follow it;
/// * a byte outside ASCII: it is inside a separator only if that is the character it belongs
///   to (`“`, `”`, `•`, from its lead byte, which is at `from` or after), which is then the last
///   one, and only blanks follow it; else an item's byte follows the last separator;
/// * an ASCII letter or digit: the word of letters and digits it ends (it ends there: a byte
///   after it up to `j` is passed, and `j` starts a separator, which a word's letter does not
///   unless it is the word's first) holds no separator but one that starts at its first byte
///   ([`separator_at`]: a letter inside a word starts none, a digit never does), and if that one
///   covers `k`, it is the last separator and only blanks follow it; else an item's byte does.
fn before_item(b: &[u8], from: usize, j: usize) -> Before {
    let mut k = j.min(b.len());
    while k > from {
        k -= 1;
        let c = b.get(k).copied().unwrap_or(0);
        if c.is_ascii_alphanumeric() {
            let mut w = k;
            while w > from && b.get(w - 1).is_some_and(u8::is_ascii_alphanumeric) {
                w -= 1;
            }
            return match separator_at(b, w) {
                Some((bits, len)) if w + len > k => Before::Separator(w, bits, len),
                _ => Before::Item,
            };
        }
        if c >= 0x80 {
            let mut lead = k;
            while lead > from && b.get(lead).is_some_and(|&x| x & 0xC0 == 0x80) {
                lead -= 1;
            }
            return match separator_at(b, lead) {
                Some((bits, len)) if lead + len > k => Before::Separator(lead, bits, len),
                _ => Before::Item,
            };
        }
        if let Some((bits, len)) = separator_at(b, k) {
            return Before::Separator(k, bits, len);
        }
    }
    Before::Nothing
}

/// What the bytes at `i` of a raw text are to the cut: the joint bits of a separator and its
/// length, or `None` inside an item.
#[inline]
fn separator(b: &[u8], i: usize) -> Option<(u16, usize)> {
    let c = *b.get(i)?;
    let prev = i.checked_sub(1).and_then(|k| b.get(k)).copied();
    let next = b.get(i + 1).copied();
    let digit = |x: Option<u8>| x.is_some_and(|x| x.is_ascii_digit());
    Some(match c {
        b',' if !(digit(prev) && digit(next)) => (LIST | COMMA, 1),
        b';' | b'|' | b'\n' => (LIST, 1),
        b'/' if !(digit(prev) && digit(next)) => (LIST | OR, 1),
        b'.' if (next
            .is_none_or(|n| n.is_ascii_whitespace() || matches!(n, b'"' | b')' | b'*'))
            && !digit(prev)
            && !initial(b, i))
            || (next == Some(b'.')) =>
        {
            (HARD | SENTENCE, 1)
        }
        b'!' => (HARD | SENTENCE, 1),
        b'?' => (HARD | SENTENCE | QUESTION, 1),
        b':' if !(digit(prev) && digit(next)) => (HARD | COLON, 1),
        // A bracket sets its words apart (`Paris (or Lyon)` is an aside, not a list), but for
        // one around a letter (`(A) or (B)`).
        b'(' if b.get(i + 2) == Some(&b')')
            && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) =>
        {
            (0, 1)
        }
        b')' if i >= 2 && b.get(i - 2) == Some(&b'(') => (0, 1),
        b'(' | b')' | b'[' | b']' => (HARD, 1),
        b'{' | b'}' | b'"' | b'*' | b'$' => (0, 1),
        // “ ” (E2 80 9C / 9D) are neutral, • (E2 80 A2) a list mark.
        0xE2 if b.get(i + 1) == Some(&0x80) => match b.get(i + 2) {
            Some(0x9C | 0x9D) => (0, 3),
            Some(0xA2) => (LIST, 3),
            _ => return None,
        },
        // The first letters of the words below.
        _ if matches!(
            c.to_ascii_lowercase(),
            b'o' | b'a' | b'n' | b'e' | b'b' | b'h' | b't' | b'w'
        ) && !prev.is_some_and(|p| p.is_ascii_alphanumeric()) =>
        {
            let len = b.get(i..).map_or(0, |r| {
                r.iter().take_while(|x| x.is_ascii_alphabetic()).count()
            });
            if len > 8
                || b.get(i + len)
                    .is_some_and(|x| x.is_ascii_alphanumeric() || *x >= 0x80)
            {
                return None;
            }
            let mut buf = [0u8; 12];
            let w = lower(b.get(i..i + len)?, &mut buf)?;
            let bits = match w {
                b"or" => LIST | OR,
                b"and" => LIST | AND,
                b"nor" => LIST | OR | NEGATE_NEXT,
                b"neither" => HARD | NEGATE_NEXT,
                b"either" => HARD | CUE,
                _ if hard_word(w) => HARD,
                _ => return None,
            };
            (bits, len)
        }
        _ => return None,
    })
}

/// Whether the cut ([`Claims::read`]) of the raw text `raw` may give an item whose normal form
/// is not a run of whole words of the normal form of `raw` itself: `false` proves that no item
/// holds an alias (padded, on word bounds) that the whole response's normal form does not.
///
/// Why: normalisation (`normalize.rs`) reads words, and every rewrite but three is of one
/// character or of one word (folding, lower case but for a capital sigma, ordinal suffixes,
/// number words, articles). The three that read a neighbour are: a dot or an apostrophe right
/// after a letter is deleted (`U.S.` is `us`); a comma between digits is deleted when three digits
/// follow it (`1,000`); a dot between digits is kept (`5.97`). So the item normalised alone
/// gives the whole text's words where the cut falls on a word break of the whole text and neither
/// side reads a neighbour across it. The cut's separators are of two kinds:
///
/// * a mark ([`separator`] at a byte that is no ASCII letter): `,` `;` `|` a line break `/` `.`
///   `!` `?` `:` brackets, `{` `}` `"` `*` `$`, `“` `”` `•`. None is a word character, and none is
///   deleted in a way that joins its neighbours: a cut comma or slash has no digit on one side,
///   so no thousands or decimal rewrite reads across it; a cut dot is followed by a space, a
///   quote, a bracket, a star, another dot or nothing, each a break in the whole text (the dot
///   itself is deleted after a letter, but the break after it stays). The character after a
///   mark is not after a letter or a digit, alone or in the whole text;
/// * a word (*or*, *and*, *but*...), after a byte that is no ASCII letter or digit and before
///   one that is neither that nor non-ASCII. It is a word of its own in the whole text, unless a
///   neighbour joins it to the next word or the one before: `_` (a word character) on either
///   side (`but_` is one word), a dot or an apostrophe after a letter right before it (`U.S.or`
///   is `usor`), a dot or an apostrophe right after it (deleted after its last letter) with
///   anything but white space or the text's end after that mark (`or.London` is `orlondon`),
///   or a non-ASCII character right before it (it may be a letter, or fold to one or to an
///   apostrophe).
///
/// Those are the places this looks for; with a capital sigma (or a character that folds to one:
/// `Ϲ`, the mathematical sigmas), whose lower case depends on the letters around it, it gives
/// `true` at once. Anything it flags only costs the full read. It reads the text once, 64 bytes
/// at a time ([`may_cut_by`]), with AVX2 where the processor has it.
pub fn may_cut_inside_words(raw: &str) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    if crate::cpu::has_avx512bw() {
        // SAFETY: the processor has AVX-512 BW, which is all the function needs.
        return unsafe { may_cut_avx512(raw.as_bytes()) };
    } else if crate::cpu::has_avx2() {
        // SAFETY: the processor has AVX2, which is all the function needs.
        return unsafe { may_cut_avx2(raw.as_bytes()) };
    }
    let mut padded = [0u8; 64];
    may_cut_by(raw.as_bytes(), |rest| {
        let block = crate::ascii::chunk_or_padded(rest, &mut padded, 0);
        (marks_in(block), high_places_if_any(block))
    })
}

/// [`may_cut_inside_words`] with AVX2: the block's classes from two loads ([`cut_places_avx2`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
fn may_cut_avx2(b: &[u8]) -> bool {
    let mut padded = [0u8; 64];
    may_cut_by(b, |rest| {
        let block = crate::ascii::chunk_or_padded(rest, &mut padded, 0);
        // SAFETY: this function runs only where the processor has AVX2.
        unsafe { cut_places_avx2(block) }
    })
}

/// [`may_cut_inside_words`] with AVX-512 (BW): the block's classes from one masked load, which
/// also pads the text's last block without a copy ([`cut_places_avx512`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw")]
fn may_cut_avx512(b: &[u8]) -> bool {
    may_cut_by(b, |rest| cut_places_avx512(rest))
}

/// The one pass of [`may_cut_inside_words`] over the raw text `b`, 64 bytes at a time: `places`
/// gives the marks (`.`, `'` and `_`: [`marks_in`]) and the non-ASCII places ([`high_places`],
/// none in a block of ASCII) of the block that starts the bytes it is given (zeros past the
/// text's end). Each place is a test of its own, true or false whatever the others say, so one
/// pass that looks at both kinds of place block by block answers as a pass over the marks
/// followed, for a text that is not ASCII, by one over the non-ASCII places (a text of ASCII has
/// none).
#[inline(always)]
fn may_cut_by(b: &[u8], mut places: impl FnMut(&[u8]) -> (u64, u64)) -> bool {
    let mut base = 0;
    while let Some(rest) = b.get(base..).filter(|r| !r.is_empty()) {
        let (mut marks, mut high) = places(rest);
        while marks != 0 {
            let i = base + marks.trailing_zeros() as usize;
            marks &= marks - 1;
            if cuts_at_mark(b, i) {
                return true;
            }
        }
        while high != 0 {
            if cuts_after_high_byte(b, base + high.trailing_zeros() as usize) {
                return true;
            }
            high &= high - 1;
        }
        base += 64;
    }
    false
}

/// [`high_places`] of `block`, with a look at its high bits first: most blocks are ASCII.
#[inline(always)]
fn high_places_if_any(block: &[u8; 64]) -> u64 {
    let any = block
        .chunks_exact(8)
        .fold(0u64, |acc, w| acc | crate::ascii::load(w, 0));
    if any & 0x8080_8080_8080_8080 == 0 {
        0
    } else {
        high_places(block)
    }
}

/// The marks ([`marks_in`]) that may be one that [`cuts_at_mark`] flags, and the non-ASCII
/// places ([`high_places`]) of `block`, with AVX2.
///
/// A mark glues a joint word back only if the byte after it may start one
/// ([`may_start_joint_word`]: `o`, `a`, `n`, `e`, `b`, `h`, `t`, `w`, either case), and ends one
/// only if the byte before it may end one (`r`, `d`, `t`, `h`, `s`, either case) and it is `_`
/// or the byte after it is not white space; the marks of neither kind are left out (most: a dot
/// at a sentence's end, before a space). The byte after the block's last, and the byte before
/// its first, are in the blocks beside them: the last mark is always kept, and the first kept
/// whatever the byte before it. Each byte's classes are the bits of a lookup by its low
/// nibble and one by its high nibble ([`CUT_NIBBLES`]), and-ed: every class is a set
/// of low nibbles for a set of high nibbles, a bit each.
///
/// # Safety
/// The processor must have AVX2.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn cut_places_avx2(block: &[u8; 64]) -> (u64, u64) {
    use crate::ascii::avx2::{bits, block_bits, equal, in_range, nibble_classes};
    use std::arch::x86_64::*;
    let (lo, hi) = block.split_at(32);
    // SAFETY: each half holds 32 bytes, which an unaligned load reads.
    let halves = unsafe {
        [
            _mm256_loadu_si256(lo.as_ptr().cast()),
            _mm256_loadu_si256(hi.as_ptr().cast()),
        ]
    };
    let classes = halves.map(|v| nibble_classes(v, &CUT_NIBBLES.0, &CUT_NIBBLES.1));
    // The bytes of any of the classes `set`, byte `k`'s as bit `k`.
    let of = |set: u8| {
        let zero = _mm256_setzero_si256();
        let [a, b] = classes.map(|c| {
            !bits(_mm256_cmpeq_epi8(
                _mm256_and_si256(c, _mm256_set1_epi8(set as i8)),
                zero,
            )) & 0xffff_ffff
        });
        a | b << 32
    };
    let marks = kept_marks(of);
    let high = bits(halves[0]) | bits(halves[1]) << 32;
    if high == 0 {
        return (marks, 0);
    }
    let letter = block_bits(block, |v| {
        bits(in_range(
            _mm256_or_si256(v, _mm256_set1_epi8(0x20)),
            b'a',
            b'z',
        ))
    });
    let lead = block_bits(block, |v| {
        bits(_mm256_or_si256(
            _mm256_or_si256(equal(v, 0xCE), equal(v, 0xCF)),
            equal(v, 0xF0),
        ))
    });
    (marks, high & (lead | (letter >> 1) | 1 << 63))
}

/// [`cut_places_avx2`] of the block that starts `rest`, with AVX-512 (BW): the classes of all
/// 64 bytes from one pair of shuffles, each class's bytes from one test; then, where a mark or a
/// non-ASCII place is left, only those whose next byte starts what may be a joint word
/// ([`joint_starts_avx512`]) among the ones kept for that next byte alone. Most marks left by
/// the classes are a dot inside a link (`en.wikipedia.org`, `example.org/`), which the three
/// bytes after it turn away here rather than one at a time in [`cuts_at_mark`].
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw")]
#[inline]
fn cut_places_avx512(rest: &[u8]) -> (u64, u64) {
    use crate::ascii::avx512::{equal, load_or, nibble_classes};
    use std::arch::x86_64::*;
    let v = load_or(rest, 0);
    let classes = nibble_classes(v, &CUT_NIBBLES.0, &CUT_NIBBLES.1);
    let of = |set: u8| _mm512_test_epi8_mask(classes, _mm512_set1_epi8(set as i8));
    let high = _mm512_movepi8_mask(v);
    let marks = of(CUT_DOT | CUT_UNDER);
    if marks | high == 0 {
        return (0, 0);
    }
    // The marks that end a joint word need no test of the byte after; the others, and the
    // non-ASCII places, must come before a joint word's first letter.
    let (starts, ends_joint) = joint_sides(&of);
    let lead = equal(v, 0xCE) | equal(v, 0xCF) | equal(v, 0xF0);
    let (marks, high) = (marks & (starts | ends_joint), high & (starts | lead));
    if marks | high == 0 {
        return (0, 0);
    }
    let joint = joint_starts_avx512(rest);
    (marks & (joint | ends_joint), high & (joint | lead))
}

/// The bytes `k` of the block that starts `rest` whose next byte starts what
/// [`may_start_joint_word`] lets by (`may_start_joint_word(rest, k + 1)`), byte `k`'s as bit
/// `k`, with AVX-512 (BW): the three bytes after each, from three masked loads, in lower case
/// (an ASCII letter's bit 5 set, which no other byte turns into a lower-case letter) compared
/// with each joint word's first three.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw")]
#[inline]
fn joint_starts_avx512(rest: &[u8]) -> u64 {
    use crate::ascii::avx512::{equal, in_range, load_or};
    use std::arch::x86_64::*;
    let lower = |at: usize| {
        _mm512_or_si512(
            load_or(rest.get(at..).unwrap_or(&[]), 0),
            _mm512_set1_epi8(0x20),
        )
    };
    let (c0, c1, c2) = (lower(1), lower(2), lower(3));
    let is = |v, x: &[u8]| x.iter().fold(0, |acc, &x| acc | equal(v, x));
    let one = |v, x| equal(v, x);
    let it = is(c2, b"it");
    (one(c0, b'o') & one(c1, b'r') & !in_range(c2, b'a', b'z'))
        | (one(c0, b'a') & (one(c1, b'n') & one(c2, b'd') | one(c1, b'l') & one(c2, b't')))
        | (one(c0, b'n') & (one(c1, b'o') & one(c2, b'r') | one(c1, b'e') & it))
        | (one(c0, b'e') & one(c1, b'i') & it)
        | (one(c0, b'b') & one(c1, b'u') & one(c2, b't'))
        | (one(c0, b'h') & one(c1, b'o') & one(c2, b'w'))
        | (one(c0, b't') & one(c1, b'h') & one(c2, b'o'))
        | (one(c0, b'w') & one(c1, b'h') & one(c2, b'e'))
}

/// The marks that [`cut_places_avx2`] keeps, from the block's classes (`of(set)`: the bytes of
/// any of the classes `set`, byte `k`'s as bit `k`).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn kept_marks(of: impl Fn(u8) -> u64) -> u64 {
    let marks = of(CUT_DOT | CUT_UNDER);
    if marks == 0 {
        return 0;
    }
    let (glues_back, ends_joint) = joint_sides(&of);
    marks & (glues_back | ends_joint)
}

/// From a block's classes (as for [`kept_marks`]): the bytes right before a letter that may
/// start a joint word (and the block's last, whose next byte is the next block's); and the
/// bytes right after a letter that may end one (and the block's first, whose byte before is the
/// block before's) that are a `_` or come before a byte that is no whitespace.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn joint_sides(of: &impl Fn(u8) -> u64) -> (u64, u64) {
    let (starts, ends) = (of(CUT_START), of(CUT_END));
    let (white, under) = (of(CUT_WHITE), of(CUT_UNDER));
    (
        starts >> 1 | 1 << 63,
        (ends << 1 | 1) & (under | !(white >> 1)),
    )
}

// The byte classes of [`cut_places_avx2`], two bits each (a class is the union of two sets of
// low nibbles, each for its own set of high nibbles):
// `.` `'` (2E, 27); `_` (5F); `o a n e b h` and `t w` (either case); `d h` and `r s t` (either
// case); a space, and `\t \n \x0c \r`.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_DOT: u8 = 1;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_UNDER: u8 = 2;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_START: u8 = 4 | 8;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_END: u8 = 16 | 32;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_WHITE: u8 = 64 | 128;

/// The tables of [`cut_places_avx2`]'s classes by a byte's low nibble and by its high nibble
/// (`(bit, high nibbles, low nibbles)`): a byte is of a class's bit where both tables set it.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
const CUT_NIBBLES: ([u8; 16], [u8; 16]) = crate::ascii::nibble_tables(&[
    (1, &[0x2], &[0xE, 0x7]),
    (2, &[0x5], &[0xF]),
    (4, &[0x4, 0x6], &[0xF, 0x1, 0xE, 0x5, 0x2, 0x8]),
    (8, &[0x5, 0x7], &[0x4, 0x7]),
    (16, &[0x4, 0x6], &[0x4, 0x8]),
    (32, &[0x5, 0x7], &[0x2, 0x3, 0x4]),
    (64, &[0x2], &[0x0]),
    (128, &[0x0], &[0x9, 0xA, 0xC, 0xD]),
]);

/// The bytes of `block` that are `.`, `'` or `_`, byte `k`'s as bit `k`: with SSE2 on x86_64,
/// else a byte at a time (the tests' oracle).
#[inline(always)]
fn marks_in(block: &[u8; 64]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        use crate::ascii::sse2::{bits, equal};
        use std::arch::x86_64::_mm_or_si128;
        let mut out = 0;
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            // SAFETY: SSE2 is enabled for the build on every x86_64 target (the `cfg`).
            let hit = unsafe {
                let v = std::arch::x86_64::_mm_set_epi64x(word(8), word(0));
                _mm_or_si128(
                    _mm_or_si128(equal(v, b'.'), equal(v, b'\'')),
                    equal(v, b'_'),
                )
            };
            out |= bits(hit) << (16 * k as u32);
        }
        out
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    {
        marks_bytes(block)
    }
}

/// [`marks_in`] a byte at a time.
#[cfg(any(test, not(all(target_arch = "x86_64", not(feature = "portable")))))]
fn marks_bytes(block: &[u8; 64]) -> u64 {
    let mut out = 0;
    for (k, &c) in block.iter().enumerate() {
        out |= u64::from(matches!(c, b'.' | b'\'' | b'_')) << k;
    }
    out
}

/// Whether the mark (`.`, `'` or `_`) at `i` of the raw text `b` may join a joint word to a
/// neighbour ([`may_cut_inside_words`]).
#[inline(always)]
fn cuts_at_mark(b: &[u8], i: usize) -> bool {
    let word_sep = |at: usize| joint_word_at(b, at);
    {
        let c = b.get(i).copied().unwrap_or(b'.');
        // A joint word after the mark, which the whole text joins to the word before.
        let glues_back = c == b'_'
            || i.checked_sub(1)
                .and_then(|k| b.get(k))
                .is_some_and(|&p| p.is_ascii_alphabetic() || p >= 0x80);
        if glues_back && word_sep(i + 1) {
            return true;
        }
        // A joint word before the mark, which the whole text joins to what follows it: to the
        // `_` itself (a word character), or across a deleted dot or apostrophe.
        let ends_joint = i
            .checked_sub(1)
            .and_then(|k| b.get(k))
            .is_some_and(|p| matches!(p.to_ascii_lowercase(), b'r' | b'd' | b't' | b'h' | b's'));
        if ends_joint && (c == b'_' || b.get(i + 1).is_some_and(|n| !n.is_ascii_whitespace())) {
            let mut s = i;
            while s > 0 && i - s < 9 && b.get(s - 1).is_some_and(u8::is_ascii_alphabetic) {
                s -= 1;
            }
            if i - s >= 2
                && may_start_joint_word(b, s)
                && separator(b, s).is_some_and(|(_, len)| s + len == i)
            {
                return true;
            }
        }
    }
    false
}

/// Whether a joint word (*or*, *and*, *but*...) starts at `at` of `b`.
#[inline]
fn joint_word_at(b: &[u8], at: usize) -> bool {
    may_start_joint_word(b, at) && separator(b, at).is_some_and(|(_, len)| len >= 2)
}

/// Whether `b` may hold, from `at`, a word that [`separator`] reads as a joint (*or*, *and*,
/// *nor*, *neither*, *either* and the hard words): its first three bytes, ASCII letters in
/// either case, are those of one of them (or *or* and a byte that is no ASCII letter). `false`
/// proves that [`separator`] at `at` is no word (`org`, `once`, `the`, `with` are let by without
/// it).
#[inline(always)]
fn may_start_joint_word(b: &[u8], at: usize) -> bool {
    let byte = |k: usize| b.get(at + k).copied().unwrap_or(0);
    let (c0, c1, c2) = (byte(0), byte(1), byte(2));
    // Lower case for ASCII letters; other bytes are told apart from them below.
    let lower = |c: u8| if c.is_ascii_alphabetic() { c | 0x20 } else { c };
    match (lower(c0), lower(c1)) {
        (b'o', b'r') => !c2.is_ascii_alphabetic(),
        (b'a', b'n') => lower(c2) == b'd',
        (b'n', b'o') => lower(c2) == b'r',
        (b'n', b'e') | (b'e', b'i') => lower(c2) == b'i' || lower(c2) == b't',
        (b'b', b'u') => lower(c2) == b't',
        (b'h', b'o') => lower(c2) == b'w',
        (b'a', b'l') => lower(c2) == b't',
        (b't', b'h') => lower(c2) == b'o',
        (b'w', b'h') => lower(c2) == b'e',
        _ => false,
    }
}

/// Whether the non-ASCII place at `i` of `b` ([`high_places`]) is one of
/// [`may_cut_inside_words`]: a non-ASCII character right before a joint word; a capital sigma or
/// a character that folds to one: `Σ` (CE A3), `Ϲ` (CF B9), the mathematical alphanumerics
/// (F0 9D ..).
#[inline(always)]
fn cuts_after_high_byte(b: &[u8], i: usize) -> bool {
    matches!(
        (b.get(i), b.get(i + 1)),
        (Some(0xCE), Some(0xA3)) | (Some(0xCF), Some(0xB9)) | (Some(0xF0), Some(0x9D))
    ) || joint_word_at(b, i + 1)
}

/// The bytes of `block` where [`may_cut_inside_words`] must look past the marks: the bytes of 0x80 and up
/// that are `0xCE`, `0xCF` or `0xF0` (a capital sigma's first byte, or one that folds to one),
/// or before an ASCII letter (a joint word's first byte), or the block's last (whose next byte
/// is the next block's); byte `k`'s as bit `k`. With SSE2 on x86_64, else a byte at a time (the
/// tests' oracle).
#[inline(always)]
fn high_places(block: &[u8; 64]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    let (high, letter, lead) = {
        use crate::ascii::sse2::{bits, equal, in_range};
        use std::arch::x86_64::*;
        let (mut high, mut letter, mut lead) = (0u64, 0u64, 0u64);
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            let word = |at: usize| crate::ascii::load(chunk, at) as i64;
            let shift = 16 * k as u32;
            // SAFETY: SSE2 is enabled for the build on every x86_64 target (the `cfg`).
            unsafe {
                let v = _mm_set_epi64x(word(8), word(0));
                high |= bits(v) << shift;
                letter |= bits(in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', b'z')) << shift;
                let sigma =
                    _mm_or_si128(_mm_or_si128(equal(v, 0xCE), equal(v, 0xCF)), equal(v, 0xF0));
                lead |= bits(sigma) << shift;
            }
        }
        (high, letter, lead)
    };
    #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
    let (high, letter, lead) = high_classes_bytes(block);
    high & (lead | (letter >> 1) | 1 << 63)
}

/// The classes of [`high_places`] a byte at a time: bytes of 0x80 and up, ASCII letters, and
/// the bytes `0xCE`, `0xCF`, `0xF0`.
#[cfg(any(test, not(all(target_arch = "x86_64", not(feature = "portable")))))]
fn high_classes_bytes(block: &[u8; 64]) -> (u64, u64, u64) {
    let (mut high, mut letter, mut lead) = (0u64, 0u64, 0u64);
    for (k, &c) in block.iter().enumerate() {
        high |= u64::from(c >= 0x80) << k;
        letter |= u64::from(c.is_ascii_alphabetic()) << k;
        lead |= u64::from(matches!(c, 0xCE | 0xCF | 0xF0)) << k;
    }
    (high, letter, lead)
}

/// The end of the sentence that starts at `start` of a raw text: after the next dot, `!` or `?`
/// that ends one, or the text's end.
fn sentence_end(b: &[u8], start: usize) -> usize {
    let mut from = start;
    while let Some(k) = b
        .get(from..)
        .and_then(|r| memchr::memchr3(b'.', b'!', b'?', r))
    {
        let at = from + k;
        if ends_sentence(b, at) {
            return at + 1;
        }
        from = at + 1;
    }
    b.len()
}

/// The start of the sentence of a raw text that holds byte `at`, given `floor`, the start of
/// that sentence or of one before it: right after the last dot, `!` or `?` before `at` that ends
/// a sentence, or `floor`. Whether one ends a sentence is decided by the bytes around it alone
/// ([`separator`]), so this is the start the walk from the text's start ([`sentence_end`]) finds.
fn sentence_start(b: &[u8], floor: usize, at: usize) -> usize {
    memchr::memrchr3_iter(b'.', b'!', b'?', b.get(floor..at).unwrap_or(&[]))
        .map(|k| floor + k)
        .find(|&k| ends_sentence(b, k))
        .map_or(floor, |k| k + 1)
}

/// Whether the dot, `!` or `?` at `at` of a raw text ends a sentence ([`separator`]).
#[inline]
fn ends_sentence(b: &[u8], at: usize) -> bool {
    separator(b, at).is_some_and(|(bits, _)| bits & SENTENCE != 0)
}

/// Whether a raw sentence may hold one of the keys (`spans` of `text`: words of normalised
/// aliases, ASCII letters and digits) as a word of its normal form, or of the normal form of any
/// piece of it ([`spells`]); with `number_words`, a key of digits may also be spelled as a
/// number word (`seven` for `7`).
///
/// An empty key stands for an alias with a byte outside ASCII but no ASCII word: the normal form
/// of an ASCII sentence holds no such byte (folding, lower case and number words keep ASCII in
/// ASCII), so only a sentence with a byte outside ASCII may hold it.
fn holds_key(sentence: &[u8], text: &str, spans: &[(usize, usize)], number_words: bool) -> bool {
    if !sentence.is_ascii() {
        // A character outside ASCII may fold or lower-case to letters (`é`, `ﬁ`, the Kelvin
        // sign), but for the punctuation of U+2000 to U+203F (E2 80 ..), which folds to none.
        if foreign(sentence) || spans.iter().any(|&(s, e)| s == e) {
            return true;
        }
    }
    spans.iter().any(|&(s, e)| {
        s < e
            && text.get(s..e).is_some_and(|key| {
                let key = key.as_bytes();
                spells(sentence, key)
                    || (number_words && spellings(key).iter().any(|w| spells(sentence, w)))
            })
    })
}

/// A source of places where a gold item may be ([`Claims::read_and_judge`]): a key (a span of the
/// aliases' text), one of its number spellings, or the characters outside ASCII (outside U+2000
/// to U+203F unless a key is empty, as [`holds_key`] reads them).
#[derive(Clone, Copy)]
enum Source {
    Key(usize, usize),
    Word(&'static [u8]),
    Outside,
}

/// The sources of places of the keys (`spans` of `text`) in a text, `ascii` or not, into `out`:
/// each key, with `number_words` its number spellings, and the characters outside ASCII in a
/// text with some. With whether a key is empty (an alias with no ASCII word).
fn sources_into(
    text: &str,
    spans: &[(usize, usize)],
    number_words: bool,
    ascii: bool,
    out: &mut Vec<Source>,
) -> bool {
    out.clear();
    let mut empty = false;
    for &(s, e) in spans {
        empty |= s == e;
        let Some(key) = text.get(s..e).map(str::as_bytes).filter(|k| !k.is_empty()) else {
            continue;
        };
        out.push(Source::Key(s, e));
        if number_words {
            out.extend(spellings(key).iter().copied().map(Source::Word));
        }
    }
    if !ascii {
        out.push(Source::Outside);
    }
    empty
}

/// Whether `rest` (a text from a place on, up to its sentence's end) starts with a spelling of
/// one of `sources` ([`spells`]) or a character outside ASCII that they look for: whether the
/// place is one of the sentence's. Every item whose normal form holds an alias holds one
/// ([`holds_key`]: an item with none is an ASCII-and-punctuation text that does not spell the
/// alias's key).
fn place_at(rest: &[u8], text: &str, sources: &[Source], empty: bool) -> bool {
    let Some(&c) = rest.first() else {
        return false;
    };
    let spelled = |key: &[u8]| {
        key.first()
            .is_some_and(|&k0| c == k0 || c == k0.to_ascii_uppercase())
            && spells_here(rest, key)
    };
    sources.iter().any(|&source| match source {
        Source::Key(s, e) => text.get(s..e).is_some_and(|key| spelled(key.as_bytes())),
        Source::Word(w) => spelled(w),
        Source::Outside => c >= 0x80 && (empty || rest.get(..2) != Some(&[0xE2, 0x80][..])),
    })
}

/// The first place at or after `from` of the whole text `b` where a key of `sources` is spelled
/// ([`spells`]), or a character outside ASCII that they look for is ([`place_at`]), where a
/// spelling may run on past a sentence's end: every place of a sentence of `b` is one (a
/// spelling within the sentence is one within the text).
///
/// Each source is searched only up to the best place of the sources before it: `next` keeps,
/// per source, either the first place at or after an earlier `from`, or (as `BOUND + end`) that
/// it has none from that `from` up to `end`, where a later search resumes. `from` must not go
/// back from one call to the next, and `next` must be empty for a text's first call.
fn first_key_place(
    b: &[u8],
    text: &str,
    sources: &[Source],
    empty: bool,
    from: usize,
    next: &mut Vec<usize>,
) -> Option<usize> {
    const BOUND: usize = 1 << (usize::BITS - 1);
    // The first place of a source in `lo..hi`.
    let spelled = |key: &[u8], lo: usize, hi: usize| {
        let (&k0, _) = key.split_first()?;
        let window = b.get(lo..hi)?;
        memchr::memchr2_iter(k0, k0.to_ascii_uppercase(), window)
            .map(|p| lo + p)
            .find(|&p| b.get(p..).is_some_and(|r| spells_here(r, key)))
    };
    let outside = |lo: usize, hi: usize| {
        let window = b.get(lo..hi)?;
        let mut i = 0;
        while let Some(k) = window.get(i..).and_then(first_high) {
            let at = i + k;
            if empty || b.get(lo + at..lo + at + 2) != Some(&[0xE2, 0x80][..]) {
                return Some(lo + at);
            }
            i = at + 3;
        }
        None
    };
    let fresh = next.is_empty();
    let mut best = usize::MAX;
    for (k, &source) in sources.iter().enumerate() {
        let cached = if fresh {
            BOUND + from
        } else {
            next.get(k).copied().unwrap_or(BOUND)
        };
        let hi = best.min(b.len());
        let entry = if cached < BOUND && cached >= from {
            cached
        } else {
            let lo = if cached >= BOUND {
                from.max(cached - BOUND)
            } else {
                from
            };
            if lo >= hi {
                cached.max(BOUND + from)
            } else {
                let found = match source {
                    Source::Key(s, e) => text
                        .get(s..e)
                        .and_then(|key| spelled(key.as_bytes(), lo, hi)),
                    Source::Word(w) => spelled(w, lo, hi),
                    Source::Outside => outside(lo, hi),
                };
                found.unwrap_or(BOUND + hi)
            }
        };
        if fresh {
            next.push(entry);
        } else if let Some(slot) = next.get_mut(k) {
            *slot = entry;
        }
        if entry < BOUND {
            best = best.min(entry);
        }
    }
    (best != usize::MAX).then_some(best)
}

/// The number words that normalise to the digits `key` ([`number_spellings`]): none but for a
/// key of one to three digits (every number word becomes 1 to 3 digits), whose spellings are
/// worked out once, for all of them, at the first use.
fn spellings(key: &[u8]) -> &'static [&'static [u8]] {
    static TABLE: std::sync::OnceLock<Vec<Vec<&'static [u8]>>> = std::sync::OnceLock::new();
    if !(1..=3).contains(&key.len()) || !key.iter().all(u8::is_ascii_digit) {
        return &[];
    }
    // A slot per key: 0-9 for one digit, then 10 more for 00-99, then 100 more for 000-999.
    let table = TABLE.get_or_init(|| {
        (1..=3u32)
            .flat_map(|len| {
                (0..10usize.pow(len)).map(move |v| {
                    let digits = format!("{v:0width$}", width = len as usize);
                    number_spellings(digits.as_bytes()).collect()
                })
            })
            .collect()
    });
    let value = key
        .iter()
        .fold(0usize, |v, &d| v * 10 + usize::from(d - b'0'));
    let slot = match key.len() {
        1 => value,
        2 => 10 + value,
        _ => 110 + value,
    };
    table.get(slot).map_or(&[], Vec::as_slice)
}

/// Where the first byte outside ASCII of `b` is, eight bytes at a time.
#[inline]
fn first_high(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        let high = u64::from_le_bytes(*chunk) & 0x8080_8080_8080_8080;
        if high != 0 {
            return Some(i + high.trailing_zeros() as usize / 8);
        }
        i += 8;
    }
    b.get(i..)?.iter().position(|&c| c >= 0x80).map(|k| i + k)
}

/// Whether an ASCII-or-punctuation text holds a character outside ASCII and outside U+2000 to
/// U+203F (whose folding and lower case hold no letter or digit: checked over the block in the
/// tests).
fn foreign(b: &[u8]) -> bool {
    let mut i = 0;
    while let Some(k) = b.get(i..).and_then(first_high) {
        let at = i + k;
        if b.get(at..at + 2) != Some(&[0xE2, 0x80][..]) {
            return true;
        }
        i = at + 3;
    }
    false
}

/// Whether the normal form of some piece of the raw ASCII-and-punctuation text `hay` may hold
/// the word `key` (ASCII lower-case letters and digits, not empty): `key` occurs in `hay` in any
/// ASCII case with marks between its bytes (`.` `'` `,` and the characters of U+2000 to U+203F).
///
/// Why this is exact for such a text: folding and lower-casing keep ASCII in ASCII and turn
/// U+2000 to U+203F into no letter or digit, so a word of letters and digits of the normal form
/// is made of the text's own ASCII letters and digits (lower-cased), in order. What lies
/// between two of them in the text but not in the word is what the normalisation deletes inside
/// a word: a dot or an apostrophe after a letter (`U.S.` is `us`; `’` and `․`, which folds to a
/// dot, are of the block), a comma between digits (`1,000`). Number words become digits (the
/// caller looks for them, [`number_spellings`]); ordinal suffixes and articles are only dropped,
/// and a letter is only split from a digit: none makes a word of letters or digits that are not
/// in the text in that order.
fn spells(hay: &[u8], key: &[u8]) -> bool {
    let Some(&k0) = key.first() else {
        return true;
    };
    memchr::memchr2_iter(k0, k0.to_ascii_uppercase(), hay)
        .any(|p| hay.get(p..).is_some_and(|r| spells_here(r, key)))
}

/// [`spells`] at the start of `hay`, whose first byte is the key's first in some case.
#[inline]
fn spells_here(hay: &[u8], key: &[u8]) -> bool {
    let (mut i, mut j) = (1, 1);
    while let Some(&want) = key.get(j) {
        match hay.get(i) {
            Some(&c) if c.to_ascii_lowercase() == want => {
                i += 1;
                j += 1;
            }
            Some(b'.' | b'\'' | b',') => i += 1,
            Some(0xE2) if hay.get(i + 1) == Some(&0x80) => i += 3,
            _ => return false,
        }
    }
    true
}

/// The first alias of over two bytes (the judge's gold aliases) that the normalised item holds,
/// and where it starts in it.
fn first_gold<'a>(
    item: &str,
    mut aliases: impl Iterator<Item = &'a str>,
) -> Option<(&'a str, usize)> {
    aliases.find_map(|a| {
        (a.len() > 2)
            .then(|| find(item, a).map(|p| (a, p)))
            .flatten()
    })
}

/// What [`Claims::item_asserts`] finds of the item that holds a byte.
enum ItemCheck {
    /// A gold item that the judge finds asserted.
    Asserted,
    /// An item that holds no alias, and where it ends.
    NoGold(usize),
    /// Anything else: the sentence must be cut.
    Other,
}

/// Where the padded `needle` first occurs in the padded `hay`: in a short `hay` (an item), at the
/// places of the needle's second byte (its first letter or digit, where its first is a space
/// that every word break gives), which costs less than building a [`memchr::memmem`] searcher.
fn find(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    match n {
        [first, second, ..] if h.len() <= SHORT_HAY => memchr::memchr_iter(*second, h)
            .filter_map(|p| p.checked_sub(1))
            .find(|&p| h.get(p) == Some(first) && h.get(p..).is_some_and(|r| r.starts_with(n))),
        _ => memchr::memmem::find(h, n),
    }
}

/// The longest haystack [`find`] searches without [`memchr::memmem`].
const SHORT_HAY: usize = 256;

/// Whether an item (normalised) denies the alias found at `at` in it: a negation right before it
/// (`not X`, but `No. 12` is a number), a verdict right after it (`X is wrong`), or a joint
/// before the item that negates (`nor X`).
///
/// A normal form's only white space is the space, so the word before the alias is read back
/// from `at` over bytes; every verdict of [`AFTER`] starts with a space and `i` or `w` (checked
/// when the crate compiles), so an item with neither after its alias is not compared with them.
fn denied(item: &str, alias: &str, at: usize, by_joint: bool) -> bool {
    if by_joint {
        return true;
    }
    let b = item.as_bytes();
    // The alias starts with a space at `at`; the word before ends at the last byte before it
    // that is not one.
    let end = b
        .get(..at)
        .and_then(|r| r.iter().rposition(|&c| c != b' '))
        .map_or(0, |k| k + 1);
    let start = b
        .get(..end)
        .and_then(|r| memchr::memrchr(b' ', r))
        .map_or(0, |k| k + 1);
    let denier = item.get(start..end).filter(|w| negator(w));
    let numbered = denier == Some("no") && kind(alias) == Kind::Number;
    if denier.is_some() && !numbered {
        return true;
    }
    let after = item.get(at + alias.len() - 1..).unwrap_or("");
    matches!(after.as_bytes().get(1), Some(b'i' | b'w'))
        && AFTER.iter().any(|v| after.starts_with(v))
}

/// Every verdict of [`AFTER`] starts with a space and `i` or `w` ([`denied`] reads that first).
const _: () = {
    let mut k = 0;
    while k < AFTER.len() {
        let v = AFTER[k].as_bytes();
        assert!(v.len() > 1 && v[0] == b' ' && (v[1] == b'i' || v[1] == b'w'));
        k += 1;
    }
};

/// The kind of answer an alias is, for the candidates it is compared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Number,
    Name,
}

fn kind(alias: &str) -> Kind {
    let mut ws = words(alias).peekable();
    if ws.peek().is_some() && ws.all(|w| w.as_bytes().first().is_some_and(u8::is_ascii_digit)) {
        Kind::Number
    } else {
        Kind::Name
    }
}

/// The number of [`words`] of a normalised text: the bytes other than a space that follow a
/// space or start the text, counted eight bytes at a time (a loop over the words mispredicts at
/// each word's end).
fn word_count(padded: &str) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let b = padded.as_bytes();
    let mut chunks = b.chunks_exact(8);
    // Bit 7 of byte 0: the byte before the chunk is not a space.
    let (mut n, mut after_word) = (0, 0u64);
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word) ^ 0x2020_2020_2020_2020;
        // Bit 7 of each byte that is not a space (no carry crosses a byte: 0x7F + 0x7F < 0x100).
        let letters = (((x & !HIGH) + !HIGH) | x) & HIGH;
        n += (letters & !(letters << 8 | after_word)).count_ones() as usize;
        after_word = letters >> 56;
    }
    let mut after_word = after_word != 0;
    for &c in chunks.remainder() {
        n += usize::from(c != b' ' && !after_word);
        after_word = c != b' ';
    }
    n
}

/// The words of a normalised text: `text.split(' ')` but the empty ones, by a plain byte scan
/// (words are short: a `memchr` call per word costs more than it saves).
pub fn words(text: &str) -> Words<'_> {
    Words { text, at: 0 }
}

/// The iterator of [`words`].
pub struct Words<'t> {
    text: &'t str,
    at: usize,
}

impl<'t> Iterator for Words<'t> {
    type Item = &'t str;

    #[inline]
    fn next(&mut self) -> Option<&'t str> {
        let b = self.text.as_bytes();
        let rest = b.get(self.at..)?;
        let from = self.at + rest.iter().position(|&c| c != b' ')?;
        let end = b
            .get(from..)
            .and_then(|r| r.iter().position(|&c| c == b' '))
            .map_or(b.len(), |k| from + k);
        self.at = end;
        // A space is a character boundary: the slice is always there.
        self.text.get(from..end)
    }
}

impl Claims {
    /// Cut `response` into items, normalise each, and gather what their runs hold: every
    /// sentence when `keys` is `None`, else only the sentences that may hold one of `keys` (a
    /// word of each normalised alias) as a word of an item's normal form ([`holds_key`]). Runs
    /// and cues never cross a sentence, so a sentence that holds no word of an alias holds no
    /// gold item and is skipped unread.
    #[allow(clippy::too_many_arguments)]
    pub fn read(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        keys: Option<(&str, &[(usize, usize)])>,
        letters: bool,
    ) {
        self.letters = letters;
        self.light = false;
        self.items.clear();
        self.runs.clear();
        self.cues.clear();
        self.text.clear();
        self.cues.push(0);
        let b = response.as_bytes();
        let Some((text, spans)) = keys else {
            self.cut(norm, t, fold, number_words, response, 0, b.len());
            return;
        };
        let mut start = 0;
        while start < b.len() {
            let end = sentence_end(b, start);
            if holds_key(b.get(start..end).unwrap_or(&[]), text, spans, number_words) {
                self.cut(norm, t, fold, number_words, response, start, end);
            }
            start = end;
        }
    }

    /// [`Claims::read`] with `keys`, then [`Claims::judge`], sentence by sentence: the verdict
    /// is `None` as soon as one gold item is asserted, and runs and cues never cross a sentence
    /// (nor does anything else the judge reads of an item: its run, its sentence's cues, the
    /// hedge rule, which is the row's), so each sentence is judged once it is cut, and the rest
    /// is not read once one asserts a gold item.
    #[allow(clippy::too_many_arguments)]
    pub fn read_and_judge<'a>(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        keys: (&str, &[(usize, usize)]),
        aliases: impl Iterator<Item = &'a str> + Clone,
        mut hedges: impl FnMut(&mut Normalizer) -> bool,
        negations: bool,
    ) -> Option<Verdict> {
        self.letters = false;
        self.light = false;
        self.items.clear();
        self.runs.clear();
        self.cues.clear();
        self.text.clear();
        self.cues.push(0);
        self.candidates.clear();
        let mut j = Judging::default();
        let (text, spans) = keys;
        let b = response.as_bytes();
        let ascii = b.is_ascii();
        let mut sources = std::mem::take(&mut self.sources);
        let empty = sources_into(text, spans, number_words, ascii, &mut sources);
        // From key place to key place: the sentences before the next place (a key spelled, or a
        // character outside ASCII, in the whole text from `pos` on) hold none, so none of their
        // items holds an alias ([`holds_key`]), and they are passed unread.
        let mut global = std::mem::take(&mut self.places);
        global.clear();
        let mut pos = 0;
        // The sentence of the last place.
        let mut sentence: Option<(usize, usize)> = None;
        #[cfg(test)]
        let mut uncut = false;
        let verdict = loop {
            let Some(at) = first_key_place(b, text, &sources, empty, pos, &mut global) else {
                break j.verdict();
            };
            // The sentence that holds it, as the walk from the text's start cuts it: whether a
            // dot, `!` or `?` ends a sentence is decided by the bytes around it alone
            // ([`separator`]), so its start is right after the last such end before the place
            // (none before the last sentence's end, itself a sentence's start), and its end is
            // the first at or after the place.
            let (start, end) = match sentence {
                Some((s, e)) if at < e => (s, e),
                _ => {
                    #[cfg(test)]
                    {
                        self.sentences_skipped += usize::from(uncut);
                        uncut = true;
                    }
                    let back = sentence.map_or(0, |(_, e)| e);
                    (sentence_start(b, back, at), sentence_end(b, at))
                }
            };
            sentence = Some((start, end));
            // A place of the whole text is one of the sentence unless its spelling runs on past
            // the sentence's end (`x..y`): then the next is looked for.
            if !place_at(b.get(at..end).unwrap_or(&[]), text, &sources, empty) {
                pos = at + 1;
                continue;
            }
            // Most accepted responses give the gold in running text: its item alone shows that
            // it is asserted, without the sentence's cut. A gold item holds a place of its
            // sentence ([`place_at`]), so the items at those places are the only ones that may
            // hold an alias: when none does, the sentence holds no gold item, and its cut would
            // add nothing the judge reads (runs and cues never cross a sentence).
            match self.item_asserts(
                norm,
                t,
                fold,
                number_words,
                response,
                (start, end),
                at,
                aliases.clone(),
                negations,
            ) {
                ItemCheck::Asserted => {
                    #[cfg(test)]
                    {
                        self.item_shortcuts += 1;
                        uncut = false;
                    }
                    break None;
                }
                ItemCheck::NoGold(item_end) if item_end > at => {
                    pos = item_end;
                    continue;
                }
                _ => {}
            }
            #[cfg(test)]
            {
                uncut = false;
            }
            let from = self.items.len();
            self.cut(norm, t, fold, number_words, response, start, end);
            let asserted =
                self.judge_items(from, norm, aliases.clone(), &mut hedges, negations, &mut j);
            if asserted {
                break None;
            }
            pos = end;
        };
        #[cfg(test)]
        {
            self.sentences_skipped += usize::from(uncut);
        }
        self.places = global;
        self.sources = sources;
        verdict
    }

    /// Whether the item of the sentence `piece` of `response` that holds byte `at` is a gold
    /// item that [`Claims::judge_items`] finds asserted: then [`Claims::read_and_judge`]'s
    /// verdict is `None` (a row is asserted as soon as one gold item is), and the sentence need
    /// not be cut. It reads the item's bounds and joints from the separators around it, and
    /// normalises that item alone.
    ///
    /// Why it is exact: the cut's items and joints are local. A separator is known by its bytes
    /// and the byte before ([`separator`]), and none starts inside a word of ASCII letters and
    /// digits (which the cut skips) or inside another separator, so the separators the cut meets
    /// in the sentence are the places where [`separator_at`] finds one, read in either
    /// direction; an item is the text between two of them that holds a letter, a digit or a
    /// character outside ASCII, and its joint is the marks back to the item before it in the
    /// sentence (the sentence's first item starts a run: the cut begins a piece with a hard
    /// joint, or with none at the text's start). The gold alias of an item is the first alias
    /// found in its normal form, as in the judge, which finds a gold item asserted unless it is
    /// denied, or it is `bare` and `listed`. This returns `true` only for a gold item that is not
    /// denied (with `negations`) and that is
    ///
    /// * longer than its alias by four words or more, so not `bare` (`it.words <= alias_words +
    ///   3` fails), or
    /// * the first of its run and the gold does not end it, so not `listable` and not `bare`, or
    /// * alone in its run (the first of it, and the next item starts another, or there is
    ///   none): the run's candidates are the gold item's own, so it offers none (`others` and
    ///   `offered` are zero) and is not `listed`.
    ///
    /// The tests hold it to the whole cut on random texts of separators, joints, denials and golds.
    #[allow(clippy::too_many_arguments)]
    fn item_asserts<'a>(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        (from, to): (usize, usize),
        at: usize,
        aliases: impl Iterator<Item = &'a str>,
        negations: bool,
    ) -> ItemCheck {
        let b = response.as_bytes();
        let filled = |s: usize, e: usize| {
            b.get(s..e)
                .is_some_and(|r| r.iter().any(|&c| c.is_ascii_alphanumeric() || c >= 0x80))
        };
        // The last separator of the sentence that starts before `end`: its start, bits, length.
        let before = |end: usize| separator_before(b, from, end);
        // The first separator of the sentence at or after `start`, and its length.
        let after = |start: usize| separator_after(b, start, to);
        // The item's bounds: `at` must not be inside a separator.
        let sep = before(at + 1);
        let start = match sep {
            Some((j, _, len)) if j + len > at => return ItemCheck::Other,
            Some((j, _, len)) => j + len,
            None => from,
        };
        let next = after(at);
        let end = next.map_or(to, |(j, _, _)| j);
        let Some(raw) = response.get(start..end) else {
            return ItemCheck::Other;
        };
        self.normalize_item(norm, t, fold, number_words, raw);
        let Some((alias, at)) = first_gold(&self.scratch, aliases) else {
            return ItemCheck::NoGold(end);
        };
        let item = self.scratch.as_str();
        let alias_words = word_count(alias);
        // More words than the alias's and three.
        let long = word_count(item) > alias_words + 3;
        // The joint before it, back to the item before it in the sentence, or to its start:
        // read for a denial by a joint, and for whether it starts a run (unless it is long).
        let (mut joint, mut sep, mut first) = (0u16, sep, true);
        while let Some((j, bits, _)) = sep.filter(|_| negations || !long) {
            joint |= bits;
            sep = match before_item(b, from, j) {
                Before::Item => {
                    first = joint & HARD != 0 || joint & LIST == 0;
                    break;
                }
                Before::Separator(k, bits, len) => Some((k, bits, len)),
                Before::Nothing => None,
            };
        }
        if negations && denied(item, alias, at, joint & NEGATE_NEXT != 0) {
            return ItemCheck::Other;
        }
        let ends_item = item.get(at + alias.len() - 1..) == Some(" ");
        if long || (first && !ends_item) {
            return ItemCheck::Asserted;
        }
        if !first {
            return ItemCheck::Other;
        }
        // The joint after it, up to the next item in the sentence: whether that starts a run.
        let (mut last, mut next, mut joint_after) = (true, next, 0u16);
        while let Some((j, bits, len)) = next {
            joint_after |= bits;
            let following = after(j + len);
            if filled(j + len, following.map_or(to, |(k, _, _)| k)) {
                last = joint_after & HARD != 0 || joint_after & LIST == 0;
                break;
            }
            next = following;
        }
        if last {
            ItemCheck::Asserted
        } else {
            ItemCheck::Other
        }
    }

    /// Cut the whole of `response` into items as [`Claims::read`] with no keys does, but read
    /// only what [`Claims::judge_letters`] and [`Claims::letters`] look at: each item's letter
    /// and its run's letters (the cut and the letters are taken from the raw text, so they are
    /// the same). No item is normalised: [`Claims::judge`] needs [`Claims::read`] after it.
    pub fn read_letters(&mut self, response: &str) {
        self.letters = true;
        self.light = true;
        self.items.clear();
        self.runs.clear();
        self.cues.clear();
        self.text.clear();
        self.cues.push(0);
        let b = response.as_bytes();
        let (mut start, mut i, mut joint) = (0, 0, 0u16);
        loop {
            let sep = if i >= b.len() {
                Some((HARD, 1))
            } else {
                separator_at(b, i)
            };
            if let Some((bits, len)) = sep {
                if let Some(raw) = response.get(start..i.min(b.len())).map(str::as_bytes) {
                    if raw.iter().any(|&c| c.is_ascii_alphanumeric() || c >= 0x80) {
                        let first = self.items.is_empty();
                        if first || joint & HARD != 0 || joint & LIST == 0 {
                            self.runs.push(Run::default());
                        }
                        let (letter, letter_negated) = match item_letter(raw) {
                            Some((l, n)) => (Some(l), n),
                            None => (None, false),
                        };
                        if let Some(r) = self.runs.last_mut() {
                            r.letters += u32::from(letter.is_some() && !letter_negated);
                        }
                        self.items.push(Item {
                            run: self.runs.len().saturating_sub(1) as u32,
                            letter,
                            letter_negated,
                            ..Item::default()
                        });
                        joint = 0;
                    }
                }
                joint |= bits;
                if i >= b.len() {
                    break;
                }
                i += len;
                start = i;
            } else {
                let word = b.get(i).is_some_and(u8::is_ascii_alphanumeric);
                i += 1;
                while word && i < b.len() && b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
                    i += 1;
                }
            }
            while i < b.len() && !response.is_char_boundary(i) {
                i += 1;
            }
        }
    }

    /// Whether the last item of `response` gives a gold alias alone in its run and does not deny
    /// it: then [`Claims::judge`] after the whole [`Claims::read`] finds the row asserted (its
    /// verdict is `None` as soon as one gold item is asserted, and such an item is: no other
    /// candidate shares its run), and the response need not be read. A cheap test for the rows
    /// that have no keys (an alias with no word of ASCII letters and digits, so every sentence
    /// would be read) and end with their answer (`... A: 18`): it reads the text backwards to
    /// that item's run start, and normalises that item alone. With keys it would cost more than
    /// it saves: [`Claims::read_and_judge`] decides most such rows from the first place of a key,
    /// in that item or an earlier one, while this test would read the last item of every row.
    ///
    /// A separator is known by its bytes and the byte before ([`separator`]), and none starts
    /// inside another (a word's letters after the first, a character's continuation bytes), so
    /// the separators met backwards are those the cut meets forwards.
    #[allow(clippy::too_many_arguments)]
    pub fn tail_asserts<'a>(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        aliases: impl Iterator<Item = &'a str>,
        negations: bool,
    ) -> bool {
        let b = response.as_bytes();
        let filled = |from: usize, to: usize| {
            b.get(from..to)
                .is_some_and(|r| r.iter().any(|&c| c.is_ascii_alphanumeric() || c >= 0x80))
        };
        // The last separator that starts before `end`: its start, bits and length.
        // (No separator starts on a continuation byte: [`SEPARATOR_FIRST`] has none.)
        let before = |end: usize| separator_before(b, 0, end);
        // The last item, and the separator right before it.
        let mut end = b.len();
        let (from, to, mut sep) = loop {
            match before(end) {
                Some((j, bits, len)) if filled(j + len, end) => {
                    break (j + len, end, Some((j, bits)))
                }
                Some((j, _, _)) => end = j,
                None if filled(0, end) => break (0, end, None),
                None => return false,
            }
        };
        // The joint before it: the marks back to the item before, or to the start of the text
        // (where the cut starts a run).
        let mut joint = 0u16;
        while let Some((j, bits)) = sep {
            joint |= bits;
            sep = match before_item(b, 0, j) {
                // An item before it: the joint must start a run.
                Before::Item if joint & HARD == 0 && joint & LIST != 0 => return false,
                Before::Item => break,
                Before::Separator(k, bits, _) => Some((k, bits)),
                Before::Nothing => None,
            };
        }
        let Some(raw) = response.get(from..to) else {
            return false;
        };
        let negate_next = joint & NEGATE_NEXT != 0;
        self.undenied_gold(
            norm,
            t,
            fold,
            number_words,
            raw,
            aliases,
            negations,
            negate_next,
        )
        .is_some()
    }

    /// Normalise the item `raw` into `self.scratch` and find the first alias of over two bytes
    /// in it: the alias and where it starts in the item, unless `negations` and the item denies
    /// it (`negate_next`: the joint before the item negates it). [`Claims::tail_asserts`] and
    /// [`Claims::item_asserts`] judge their one item by it.
    #[allow(clippy::too_many_arguments)]
    fn undenied_gold<'a>(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        raw: &str,
        aliases: impl Iterator<Item = &'a str>,
        negations: bool,
        negate_next: bool,
    ) -> Option<(&'a str, usize)> {
        self.normalize_item(norm, t, fold, number_words, raw);
        let item = self.scratch.as_str();
        let (alias, at) = first_gold(item, aliases)?;
        (!(negations && denied(item, alias, at, negate_next))).then_some((alias, at))
    }

    /// The normal form of the raw item `raw`, into `scratch`: as the response's, with years
    /// split from glued markers when [`Claims::split_years`] (a split inside a word, so the
    /// item's words are still those of the whole response's normal form).
    fn normalize_item(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        raw: &str,
    ) {
        norm.normalize_into(t, fold, number_words, raw, &mut self.scratch);
        if self.split_years && crate::answer_rules::has_glued_years(&self.scratch) {
            crate::answer_rules::split_year_citations_into(&self.scratch, &mut self.split);
            std::mem::swap(&mut self.scratch, &mut self.split);
        }
    }

    /// [`Claims::read`] of the sentences in `response[from..to]`, as if they were the text.
    #[allow(clippy::too_many_arguments)]
    fn cut(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        from: usize,
        to: usize,
    ) {
        let b = response.as_bytes();
        // A later piece starts a sentence of its own.
        let first = if self.items.is_empty() {
            0
        } else {
            HARD | SENTENCE
        };
        // From separator to separator ([`separator_after`]): the places the walk it replaces
        // passed unread (a word's letters after its first, a character's continuation bytes)
        // start none.
        let (mut start, mut joint) = (from, first);
        loop {
            let sep = separator_after(b, start, to);
            let end = sep.map_or(to, |(j, _, _)| j);
            if let Some(raw) = response.get(start..end) {
                if raw.bytes().any(|c| c.is_ascii_alphanumeric() || c >= 0x80) {
                    self.push(norm, t, fold, number_words, raw, joint);
                    joint = 0;
                }
            }
            let Some((j, bits, len)) = sep else {
                joint |= HARD;
                break;
            };
            joint |= bits;
            start = j + len;
        }
        if let Some(r) = self.runs.last_mut() {
            r.ends = true;
        }
        if let Some(c) = self.cues.last_mut().filter(|_| joint & QUESTION != 0) {
            *c |= 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        raw: &str,
        joint: u16,
    ) {
        let first = self.items.is_empty();
        if joint & QUESTION != 0 && !first {
            if let Some(c) = self.cues.last_mut() {
                *c |= 1;
            }
        }
        if !first && joint & SENTENCE != 0 {
            self.cues.push(0);
            if let Some(r) = self.runs.last_mut() {
                r.ends = true;
            }
        }
        let new_run = first || joint & HARD != 0 || joint & LIST == 0;
        if new_run {
            self.runs.push(Run::default());
        } else if joint & OR != 0 {
            if let Some(r) = self.runs.last_mut() {
                r.or = true;
                // `X, or Y` restates X (`5%, or 0.05`).
                r.restated |= joint & COMMA != 0;
            }
        }
        self.normalize_item(norm, t, fold, number_words, raw);
        let start = self.text.len();
        self.text.push_str(&self.scratch);
        // Only the letter rule reads an item's letter.
        let read = if self.letters {
            item_letter(raw.as_bytes())
        } else {
            None
        };
        let (letter, letter_negated) = match read {
            Some((l, n)) => (Some(l), n),
            None => (None, false),
        };
        // What the item may be as a candidate.
        let (mut n, mut negated, mut digit, mut name, mut cued) = (0, false, false, false, false);
        let (mut opener, mut verb, mut examples) = (false, false, false);
        for w in words(&self.scratch) {
            if n == 0 {
                opener = clause_starter(w);
            }
            verb |= matches!(
                w,
                "is" | "was" | "are" | "were" | "has" | "have" | "had" | "be"
            );
            examples |= matches!(
                w,
                "including" | "include" | "includes" | "included" | "among" | "such" | "namely"
            );
            n += 1;
            negated |= negator(w);
            cued |= cue(w);
            if w.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                digit = true;
            } else if !crate::answer_words::is_stopword(w) && !cue(w) && !negator(w) {
                name = true;
            }
        }
        if let Some(c) = self.cues.last_mut() {
            *c |= u8::from(cued || joint & CUE != 0) | u8::from(examples) << 1;
        }
        let negated = negated || joint & NEGATE_NEXT != 0;
        let (as_number, as_name) = (!negated && digit, !negated && name && !opener);
        // Capitalised: the last word starts with an upper-case letter or a digit (`London`).
        let capital = raw
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| {
                !w.is_empty()
                    && !["the", "a", "an", "maybe", "perhaps", "possibly", "either"]
                        .iter()
                        .any(|skip| w.eq_ignore_ascii_case(skip))
            })
            .and_then(|w| w.chars().next())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        if let Some(r) = self.runs.last_mut() {
            if new_run {
                r.first_words = n;
                r.starts = first || joint & (SENTENCE | COLON) != 0;
            } else {
                r.tail_words = r.tail_words.max(n);
                r.clause |= verb || opener;
                if joint & AND != 0 {
                    r.and = true;
                } else if r.and {
                    r.clause = true;
                }
            }
            r.lower += u32::from(as_name && !capital);
            r.examples |= examples;
            if let Some(k) = r.numbers.get_mut(n).filter(|_| as_number) {
                *k += 1;
            }
            if let Some(k) = r.names.get_mut(n).filter(|_| as_name) {
                *k += 1;
            }
            r.letters += u32::from(letter.is_some() && !letter_negated);
        }
        self.items.push(Item {
            start,
            end: self.text.len(),
            run: self.runs.len().saturating_sub(1) as u32,
            sentence: self.cues.len().saturating_sub(1) as u32,
            negated_by_joint: joint & NEGATE_NEXT != 0,
            letter,
            letter_negated,
            words: n,
            first: new_run,
            as_number,
            as_name,
            gold: None,
            listable: false,
        });
    }

    /// The letters the response gives, as a bit per letter (`a` is bit 0).
    pub fn letters(&self) -> u32 {
        self.items
            .iter()
            .filter_map(|it| it.letter)
            .fold(0, |m, l| m | 1 << (l.wrapping_sub(b'a') & 31))
    }

    /// The verdict on gold letters `gold` (a bit per letter): `Ok(letter)` when an item gives
    /// one and asserts it, else the rejection (`None`: no item gives one).
    pub fn judge_letters(
        &mut self,
        gold: u32,
        hedges: bool,
        negations: bool,
    ) -> Option<Result<u8, Verdict>> {
        let bit = |l: u8| 1u32 << (l.wrapping_sub(b'a') & 31);
        let is_gold = |it: &Item| it.letter.is_some_and(|l| gold & bit(l) != 0);
        for it in &self.items {
            if is_gold(it) && !it.letter_negated {
                if let Some(r) = self.runs.get_mut(it.run as usize) {
                    r.gold_letters += 1;
                }
            }
        }
        let (mut seen, mut hedged) = (false, false);
        self.candidates.clear();
        for it in &self.items {
            let Some(l) = it.letter.filter(|_| is_gold(it)) else {
                continue;
            };
            seen = true;
            if it.letter_negated && negations {
                continue;
            }
            let run = self.runs.get(it.run as usize).copied().unwrap_or_default();
            // Another letter in the run, given and not denied.
            if hedges && run.letters > run.gold_letters {
                hedged = true;
                continue;
            }
            return Some(Ok(l));
        }
        if !seen {
            return None;
        }
        for l in self.items.iter().filter_map(|o| o.letter) {
            if !self.candidates.is_empty() {
                self.candidates.push_str(" | ");
            }
            self.candidates.push(char::from(l.to_ascii_uppercase()));
        }
        Some(Err(if hedged {
            Verdict::Hedge
        } else {
            Verdict::Negated
        }))
    }

    /// The verdict on the gold aliases (normalised and padded): `None` when some item asserts
    /// one, or when no item holds one. `hedges` says whether the hedge rule applies; it is
    /// asked once, and only when an item would be a hedge.
    pub fn judge<'a>(
        &mut self,
        norm: &mut Normalizer,
        aliases: impl Iterator<Item = &'a str> + Clone,
        mut hedges: impl FnMut(&mut Normalizer) -> bool,
        negations: bool,
    ) -> Option<Verdict> {
        self.candidates.clear();
        let mut j = Judging::default();
        if self.judge_items(0, norm, aliases, &mut hedges, negations, &mut j) {
            return None;
        }
        j.verdict()
    }

    /// [`Claims::judge`] of the items from `from` on, whose runs and sentences hold no item
    /// before it: whether one of them asserts a gold alias. What the verdict needs of the
    /// others is carried in `j`, and their candidates in [`Claims::candidates`].
    fn judge_items<'a>(
        &mut self,
        from: usize,
        norm: &mut Normalizer,
        aliases: impl Iterator<Item = &'a str> + Clone,
        hedges: &mut impl FnMut(&mut Normalizer) -> bool,
        negations: bool,
        j: &mut Judging,
    ) -> bool {
        // First the gold items, and how many of each run's candidates they are.
        let mut gold_items = 0usize;
        for it in self.items.iter_mut().skip(from) {
            let Some(item) = self.text.get(it.start..it.end) else {
                continue;
            };
            let hit = aliases
                .clone()
                .filter(|a| a.len() > 2)
                .find_map(|a| find(item, a).map(|p| (a, p)));
            let Some((alias, at)) = hit else {
                continue;
            };
            gold_items += 1;
            let after = item.get(at + alias.len() - 1..).unwrap_or("");
            let neg = denied(item, alias, at, it.negated_by_joint);
            // The first item of a list leads in to its candidate: the gold must end it.
            let ends_item = after == " ";
            it.gold = Some((at, alias.len(), kind(alias), word_count(alias), neg));
            it.listable = !it.first || ends_item;
            if let Some(r) = self.runs.get_mut(it.run as usize) {
                r.golds += 1;
                if let Some(k) = r.gold_numbers.get_mut(it.words).filter(|_| it.as_number) {
                    *k += 1;
                }
                if let Some(k) = r.gold_names.get_mut(it.words).filter(|_| it.as_name) {
                    *k += 1;
                }
            }
        }
        j.gold_items += gold_items;
        if gold_items == 0 {
            return false;
        }
        for k in from..self.items.len() {
            let Some(it) = self.items.get(k).copied() else {
                break;
            };
            let Some((at, len, kind, alias_words, neg)) = it.gold else {
                continue;
            };
            if neg && negations {
                if let Some(denied) = self.text.get(it.start + at..it.start + at + len) {
                    if !self.candidates.is_empty() {
                        self.candidates.push_str(" | ");
                    }
                    self.candidates.push_str(denied.trim());
                }
                continue;
            }
            let run = self.runs.get(it.run as usize).copied().unwrap_or_default();
            let cued = self
                .cues
                .get(it.sentence as usize)
                .is_some_and(|c| c & 1 != 0);
            // Candidates as short as the gold, or three words (five when offered: `maybe X`);
            // the gold with three words more (`the answer is X`); the run's items all as short,
            // but a first that leads in to it.
            let limit = if cued {
                SHORT
            } else {
                (alias_words + 1).clamp(3, SHORT)
            };
            let (all, gold) = match kind {
                Kind::Number => (&run.numbers, &run.gold_numbers),
                Kind::Name => (&run.names, &run.gold_names),
            };
            let count = |c: &[u16; SHORT + 1]| {
                c.get(..=limit)
                    .map_or(0, |c| c.iter().map(|&k| u32::from(k)).sum::<u32>())
            };
            let others = count(all).saturating_sub(count(gold));
            let short = limit.max(alias_words + 2);
            // A run that names two golds answers a question that asks for several.
            let bare = run.ends
                && it.listable
                && !run.examples
                && self
                    .cues
                    .get(it.sentence as usize)
                    .is_none_or(|c| c & 2 == 0)
                && run.golds < 2
                && run.tail_words <= short
                && it.words <= alias_words + 3;
            // Candidates offered (`maybe`, `either`), several joined by `or`, two capitalised
            // names or numbers joined by `or` (`acid rain or acid precipitation` names one
            // thing twice), or a bare list of three or more.
            // Offered candidates (`maybe`, `either`, a question) of any type; several joined by
            // `or`; two names joined by `or` when neither is a common noun (`acid rain or acid
            // precipitation` names one thing twice), or numbers; a bare list of three or more,
            // at most one of them a common noun (`Hartley, author of...` is an apposition).
            let offered = (count(&run.numbers) + count(&run.names))
                .saturating_sub(count(&run.gold_numbers) + count(&run.gold_names));
            // An *and* asserts each item it joins: such a run offers candidates only as a bare
            // list of short capitalised names standing for the answer (`Paris, London and
            // Berlin`), not when an item is a phrase of four words or more (`2 years for women
            // and 3 years for men`, `In Matthew 10:2-4, ... and Acts 1:13`) or a common noun
            // (`Hartley, author of The Go-Between and The Hireling` is an apposition).
            let asserted = run.and
                && !run.or
                && (run.lower > 0 || run.first_words.max(run.tail_words) > AND_WORDS);
            // A cue word in a run of clauses (`pools contributions and donates them to
            // campaigns for or against political candidates`) is a clause's object, not an
            // offer.
            let listed = (offered >= 1 && cued && !(run.clause && run.and))
                || (!run.clause
                    && !asserted
                    && ((others >= 2 && run.or)
                        || (others >= 1
                            && run.or
                            && !run.restated
                            && (kind == Kind::Number || run.lower == 0))
                        || (others >= 2
                            && run.starts
                            && run.first_words <= short
                            && (kind == Kind::Number || run.lower <= 1))));
            if bare && listed && *j.hedge_rule.get_or_insert_with(|| hedges(norm)) {
                j.hedged = true;
                self.list_run(it.run, k);
                continue;
            }
            return true;
        }
        false
    }

    /// Add the items of run `run` to the candidates, once per run.
    fn list_run(&mut self, run: u32, from: usize) {
        let Some(r) = self.runs.get_mut(run as usize) else {
            return;
        };
        if r.listed {
            return;
        }
        r.listed = true;
        // A run's items are consecutive: back to its first, then on to its last.
        let mut first = from;
        while first > 0 && self.items.get(first - 1).is_some_and(|i| i.run == run) {
            first -= 1;
        }
        let mut k = first;
        while let Some(it) = self.items.get(k).filter(|i| i.run == run) {
            if let Some(text) = self.text.get(it.start..it.end) {
                let text = text.trim();
                if !text.is_empty() {
                    if !self.candidates.is_empty() {
                        self.candidates.push_str(" | ");
                    }
                    self.candidates.push_str(text);
                }
            }
            k += 1;
        }
    }
}

// --- sweeps and loops, over the normalised response ----------------------------------------------

/// The numbers of a sweep that covers every number of `alias` (`1 2 3 ... 20` for `12`): a run of
/// at least five integers (words *and*, *or*, *to* between them allowed) whose steps are mostly
/// one, or the step before; `None` when there is none.
pub fn sweep(response: &str, alias: &str) -> Option<(u64, u64)> {
    let mut need = [0u64; 8];
    let mut n_need = 0;
    for w in words(alias) {
        if let Some(v) = integer(w) {
            if let Some(slot) = need.get_mut(n_need) {
                *slot = v;
                n_need += 1;
            }
        }
    }
    if n_need == 0 {
        return None;
    }
    let need = need.get(..n_need)?;
    let covered = |lo: u64, hi: u64| need.iter().all(|&v| lo <= v && v <= hi);
    let (mut len, mut regular, mut prev, mut step, mut lo, mut hi) =
        (0u32, 0u32, 0u64, 0i128, 0, 0);
    let done = |len: u32, regular: u32, lo: u64, hi: u64| {
        len >= 5 && regular >= 3 && 2 * regular >= len - 1 && covered(lo, hi)
    };
    // The words, by a scan for spaces eight bytes at a time (`integer` of a word at once).
    let b = response.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let end = next_space(b, i);
        let at = i;
        i = end + 1;
        let Some(w) = b.get(at..end).filter(|w| !w.is_empty()) else {
            continue;
        };
        let number = (w.len() <= 18 && w.iter().all(u8::is_ascii_digit))
            .then(|| w.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0')));
        match number {
            Some(v) => {
                if len == 0 {
                    (len, regular, lo, hi, step) = (1, 0, v, v, 0);
                } else {
                    let d = i128::from(v) - i128::from(prev);
                    if d == 1 || (d != 0 && d == step) {
                        regular += 1;
                    }
                    step = d;
                    len += 1;
                    lo = lo.min(v);
                    hi = hi.max(v);
                }
                prev = v;
            }
            None if matches!(w, b"and" | b"or" | b"to") => {}
            None => {
                if done(len, regular, lo, hi) {
                    return Some((lo, hi));
                }
                len = 0;
            }
        }
    }
    done(len, regular, lo, hi).then_some((lo, hi))
}

/// Whether a question (normalised) asks for several answers: a count of two to twenty before a
/// plural noun (`3 candidates`, `three countries`), a count after *name*, *list* or *give*
/// (`name two`), or *which* before a plural noun (`which countries`; not *what*, which comes
/// before verbs: `what does`, `what causes`). One pass over its words, each looked at with the
/// one before.
pub fn asks_several(question: &str) -> bool {
    let count = |w: &str| {
        integer(w).is_some_and(|v| (2..=20).contains(&v))
            || matches!(
                w,
                "two"
                    | "three"
                    | "four"
                    | "five"
                    | "six"
                    | "seven"
                    | "eight"
                    | "nine"
                    | "ten"
                    | "several"
            )
    };
    // A plural noun: a content word ending in `s` but not `ss`, `us`, `is` (`times`, a span of
    // time or a number of times, is a measure: `three times champion` asks for one).
    let plural = |w: &str| {
        w.len() >= 4
            && w.ends_with('s')
            && !(w.ends_with("ss") || w.ends_with("us") || w.ends_with("is"))
            && !crate::answer_words::is_stopword(w)
            && !matches!(
                w,
                "times"
                    | "years"
                    | "months"
                    | "weeks"
                    | "days"
                    | "hours"
                    | "minutes"
                    | "seconds"
                    | "decades"
                    | "centuries"
                    | "miles"
                    | "metres"
                    | "meters"
                    | "feet"
                    | "percent"
                    | "points"
                    | "goals"
                    | "runs"
            )
    };
    let mut prev = "";
    for w in words(question) {
        if (count(prev) && plural(w))
            || (matches!(prev, "name" | "list" | "give") && count(w))
            || (prev == "which" && plural(w) && !matches!(w, "does" | "goes"))
        {
            return true;
        }
        prev = w;
    }
    false
}

fn integer(w: &str) -> Option<u64> {
    if w.is_empty() || w.len() > 18 || !w.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    w.parse().ok()
}

/// The longest stretch of the response that repeats a loop of one to eight words at least four
/// times, when it is twenty words or more: `(loop length, words)`. (The rules run its two halves,
/// [`pretests`] and [`loop_after_pretests`], apart.)
#[cfg(test)]
pub fn degenerate_loop(response: &str) -> Option<(usize, usize)> {
    if !may_loop_by_pairs(response) {
        return None;
    }
    loop_after_pretests(response)
}

/// The longest stretch of the response that repeats a loop of one to eight words at least four
/// times, when it is twenty words or more (`(loop length, words)`), where [`pretests`] found that
/// it may hold a loop.
pub fn loop_after_pretests(response: &str) -> Option<(usize, usize)> {
    if !word_runs(response) {
        return None;
    }
    loop_scan(response)
}

/// The loop test of [`pretests`] alone.
#[cfg(test)]
fn may_loop_by_pairs(text: &str) -> bool {
    pretests(text, false).0
}

/// Whether a normalised text may hold a loop of [`loop_after_pretests`] and whether it may hold a
/// sweep ([`sweep`], whatever the alias), from one walk over its words: `false` proves there is
/// none. Texts too short for a loop are not walked (`(false, true)`: the sweep, of a few words,
/// is read whole).
///
/// The loop test reads what [`loop_scan`] would find a loop by with a key that equal words
/// share, their first two bytes (a byte and a space for a word of one byte), read where
/// [`super::for_each_word`] finds a word, before it looks for the word's end, in place of its
/// hash of the whole word: a run, for some `p` of one to eight, of `r` words in a row each with
/// the key of the word `p` before it, where `r + p` is twenty or more and four times `p` or
/// more. Equal words share a key, so a run of [`loop_scan`] is one here too, as long or longer:
/// a text this test turns away holds no loop (unequal words that share a key only let more texts
/// through to [`loop_scan`]). Twenty words of a byte or more, a space between two, are 39 bytes
/// or more: a shorter text holds no loop. The keys of the last eight words and the eight runs
/// are the lanes of 16 bits of two vectors ([`PairRuns`]).
///
/// The sweep test: a sweep is a run of five integers or more with only the words *and*, *or* and
/// *to* between them; every integer starts with a digit, and those three words start with `a`,
/// `o` and `t`. So the same walk counts the words in a row that start with a digit, passing over
/// the words that start with one of those letters, and a text where the count never reaches five
/// holds no sweep. The walk stops once both tests have passed.
pub fn pretests(text: &str, sweeps: bool) -> (bool, bool) {
    if sweeps {
        pretests_with::<true>(text)
    } else {
        pretests_with::<false>(text)
    }
}

/// [`pretests`], with the sweep's count or without it (`(may loop, false)`: the caller knows
/// there is no sweep to look for, [`sweep_needs`]). With SSE2 on x86_64, the words' keys are
/// first tested eight at a time ([`loop_groups`]), which turns away most texts without a word
/// walk; the texts it lets by are walked by [`pretests_by_words`], whose answer is the same.
#[inline(always)]
fn pretests_with<const SWEEPS: bool>(text: &str) -> (bool, bool) {
    if text.len() < 39 {
        return (false, SWEEPS);
    }
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    {
        let (may_run, may_sweep) = loop_groups::<SWEEPS>(text.as_bytes());
        if !may_run {
            return (false, may_sweep);
        }
    }
    pretests_by_words::<SWEEPS>(text)
}

/// A necessary condition of [`pretests`]' loop test, and its sweep test exactly, over the keys of
/// the words (their first two bytes, as a little-endian `u16`: equal keys, equal pairs) eight,
/// sixteen or a block's at a time: `(may loop, may sweep)`, where `may sweep` is [`pretests`]' when
/// `may loop` is `false`. A run of the loop test for `p` words is a run of `r` words in a row, each
/// with the key of the word `p` before it, `r` fifteen or more (`max(20, 4p) - p`); each of those
/// words has the key of one of the eight words before it, so a text without fifteen such words in a
/// row holds no run. The words' keys, found by the word starts of a mask of spaces per 64-byte
/// block, go to a buffer after the last eight (`0xffff` before the text's first word, which no key
/// is); each group is compared with the groups before it shifted by one to eight words at once (a
/// load, a compare, an or a shift: [`group_sse2`], or [`group_avx2`] where the processor has AVX2;
/// where it has AVX-512, [`loop_groups_avx512`] gathers and compares a block's keys in registers
/// instead), and the words in a row that share a key are counted from the masks, a group at a time
/// ([`GroupRuns`]). The sweep's count is read from the same keys' first bytes ([`digit_runs`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn loop_groups<const SWEEPS: bool>(b: &[u8]) -> (bool, bool) {
    if crate::cpu::has_avx512bw()
        && crate::cpu::has_avx512vbmi()
        && crate::cpu::has_avx512vbmi2()
        && crate::cpu::has_popcnt()
    {
        // SAFETY: the processor has AVX-512 BW, VBMI and VBMI2 and popcnt, which is all the
        // function needs (each is asked: a processor that has VBMI has BW, but a hypervisor
        // may report one without the other).
        unsafe { loop_groups_avx512::<SWEEPS>(b) }
    } else if crate::cpu::has_avx2() && crate::cpu::has_bmi1() && crate::cpu::has_popcnt() {
        // SAFETY: the processor has AVX2, BMI1 and popcnt, which is all the function needs.
        unsafe { loop_groups_avx2::<SWEEPS>(b) }
    } else {
        loop_groups_by::<SWEEPS, 8>(b)
    }
}

/// [`loop_groups`] with AVX2 (sixteen keys a group), BMI1 (the word starts' bits) and popcnt
/// (the sweep's count).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2,bmi1,popcnt")]
fn loop_groups_avx2<const SWEEPS: bool>(b: &[u8]) -> (bool, bool) {
    loop_groups_by::<SWEEPS, 16>(b)
}

/// [`loop_groups`] with AVX-512, a block of 64 bytes at a time and all its words' keys (32 at
/// most) a group: the keys are gathered at once by compressing the block's bytes, and those of
/// the block one byte on, by the word starts (VBMI2), and interleaving the two (VBMI), in place of
/// a loop over the starts; each key is compared with the eight before it in registers (the last
/// eight keys of the blocks before are kept in the top lanes of one, `0xffff` before the text's
/// first word), one bit a word, the keys shifted by one to eight words by a permute of the two.
/// The runs of words that share a key, and the sweep's count, are read from the masks as
/// [`loop_groups_by`] reads them: its answer, exactly (the tests hold it to it).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
fn loop_groups_avx512<const SWEEPS: bool>(b: &[u8]) -> (bool, bool) {
    use std::arch::x86_64::*;
    // Lane `i` of 16 bits: `i`.
    let lanes = _mm512_set_epi16(
        31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
        8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    // Key `i` from the first byte `i` of one register and the second byte `i` of another: byte
    // `2i` from byte `i` of the first, byte `2i + 1` from byte `i` of the second (index 64 on).
    let pairs = _mm512_or_si512(
        lanes,
        _mm512_slli_epi16::<8>(_mm512_add_epi16(lanes, _mm512_set1_epi16(64))),
    );
    // The keys of the blocks before, the last eight in lanes 24 to 31.
    let mut before = _mm512_set1_epi16(-1);
    let mut runs = GroupRuns::default();
    let mut base = 0;
    let mut space_before = 1u64;
    while let Some(rest) = b.get(base..).filter(|r| !r.is_empty()) {
        base += 64;
        // The block, and the block one byte on (spaces past the text's end).
        let block = crate::ascii::avx512::load_or(rest, b' ');
        let next = crate::ascii::avx512::load_or(rest.get(1..).unwrap_or_default(), b' ');
        let spaces = _mm512_cmpeq_epi8_mask(block, _mm512_set1_epi8(b' ' as i8));
        let starts = !spaces & ((spaces << 1) | space_before);
        space_before = spaces >> 63;
        if starts == 0 {
            continue;
        }
        let words = starts.count_ones();
        let first = _mm512_maskz_compress_epi8(starts, block);
        let keys = _mm512_permutex2var_epi8(first, pairs, _mm512_maskz_compress_epi8(starts, next));
        // Key `i` against key `i - p` (lane `i - p` of `keys`, or `32 + i - p` of `before`).
        let mut same = 0u32;
        for p in 1..=8 {
            let back = _mm512_sub_epi16(lanes, _mm512_set1_epi16(p));
            same |= _mm512_cmpeq_epi16_mask(keys, _mm512_permutex2var_epi16(keys, back, before));
        }
        // The last eight keys: lane `i` (24 to 31) is lane `i + words` of `before` and `keys`.
        before = _mm512_permutex2var_epi16(
            before,
            _mm512_add_epi16(lanes, _mm512_set1_epi16(words as i16)),
            keys,
        );
        let same = same & u32::MAX >> (32 - words);
        if runs.step(same, words) {
            return (true, SWEEPS);
        }
        if SWEEPS && !runs.swept {
            let digit = _mm512_cmplt_epu8_mask(
                _mm512_sub_epi8(first, _mm512_set1_epi8(b'0' as i8)),
                _mm512_set1_epi8(10),
            );
            let joint = _mm512_cmpeq_epi8_mask(first, _mm512_set1_epi8(b'a' as i8))
                | _mm512_cmpeq_epi8_mask(first, _mm512_set1_epi8(b'o' as i8))
                | _mm512_cmpeq_epi8_mask(first, _mm512_set1_epi8(b't' as i8));
            runs.sweep(digit as u32, (digit | joint) as u32, words);
        }
    }
    (false, SWEEPS && runs.swept)
}

/// The keys' buffer of [`loop_groups`]: the eight keys before the pending ones, then the pending
/// ones (fewer than a group) and a block's (32 at most), and room for the loads of a last group
/// past them.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
type Keys = [u16; 128];

/// One group of eight keys of [`loop_groups`] from `keys[at]` on (`at` 8 to 47), with SSE2:
/// the words that share their key with one of the eight before them (one bit a word), and with
/// `sweep` the ones whose first byte is a digit (bits 0 to 7) and those whose first byte is a
/// digit, `a`, `o` or `t` (bits 16 to 23).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn group_sse2<const SWEEPS: bool>(keys: &Keys, at: usize, sweep: bool) -> (u32, u32) {
    use std::arch::x86_64::*;
    debug_assert!((8..=56).contains(&at));
    // SAFETY: SSE2 is enabled for the build on every x86_64 target (the `cfg`); every load is of
    // eight keys from `at - 8` to `at + 8`, inside `keys`.
    unsafe {
        let p = keys.as_ptr().add(at.min(120));
        let cur = _mm_loadu_si128(p.cast());
        let mut same = _mm_cmpeq_epi16(cur, _mm_loadu_si128(p.sub(1).cast()));
        for back in 2..=8 {
            same = _mm_or_si128(
                same,
                _mm_cmpeq_epi16(cur, _mm_loadu_si128(p.sub(back).cast())),
            );
        }
        let dk = if SWEEPS && sweep {
            let first = _mm_and_si128(cur, _mm_set1_epi16(0xff));
            let digit = _mm_and_si128(
                _mm_cmpgt_epi16(first, _mm_set1_epi16(i16::from(b'0') - 1)),
                _mm_cmplt_epi16(first, _mm_set1_epi16(i16::from(b'9') + 1)),
            );
            let joint = _mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi16(first, _mm_set1_epi16(i16::from(b'a'))),
                    _mm_cmpeq_epi16(first, _mm_set1_epi16(i16::from(b'o'))),
                ),
                _mm_cmpeq_epi16(first, _mm_set1_epi16(i16::from(b't'))),
            );
            let dk = _mm_movemask_epi8(_mm_packs_epi16(digit, _mm_or_si128(digit, joint))) as u32;
            (dk & 0xff) | (dk >> 8) << 16
        } else {
            0
        };
        (
            _mm_movemask_epi8(_mm_packs_epi16(same, same)) as u32 & 0xff,
            dk,
        )
    }
}

/// [`group_sse2`] for sixteen keys, with AVX2 (`at` 8 to 55): the digits in bits 0 to 15, the
/// digits and joints in bits 16 to 31.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[target_feature(enable = "avx2")]
#[inline]
fn group_avx2<const SWEEPS: bool>(keys: &Keys, at: usize, sweep: bool) -> (u32, u32) {
    use std::arch::x86_64::*;
    debug_assert!((8..=56).contains(&at));
    // SAFETY: every load is of sixteen keys from `at - 8` to `at + 16`, inside `keys`.
    unsafe {
        let p = keys.as_ptr().add(at.min(112));
        let cur = _mm256_loadu_si256(p.cast());
        let mut same = _mm256_cmpeq_epi16(cur, _mm256_loadu_si256(p.sub(1).cast()));
        for back in 2..=8 {
            same = _mm256_or_si256(
                same,
                _mm256_cmpeq_epi16(cur, _mm256_loadu_si256(p.sub(back).cast())),
            );
        }
        let dk = if SWEEPS && sweep {
            let first = _mm256_and_si256(cur, _mm256_set1_epi16(0xff));
            let digit = _mm256_and_si256(
                _mm256_cmpgt_epi16(first, _mm256_set1_epi16(i16::from(b'0') - 1)),
                _mm256_cmpgt_epi16(_mm256_set1_epi16(i16::from(b'9') + 1), first),
            );
            let joint = _mm256_or_si256(
                _mm256_or_si256(
                    _mm256_cmpeq_epi16(first, _mm256_set1_epi16(i16::from(b'a'))),
                    _mm256_cmpeq_epi16(first, _mm256_set1_epi16(i16::from(b'o'))),
                ),
                _mm256_cmpeq_epi16(first, _mm256_set1_epi16(i16::from(b't'))),
            );
            // Packed within each 128-bit lane: digits 0-7, keeps 0-7, digits 8-15, keeps 8-15.
            let dk = _mm256_movemask_epi8(_mm256_packs_epi16(digit, _mm256_or_si256(digit, joint)))
                as u32;
            (dk & 0xff) | (dk >> 8 & 0xff00) | (dk >> 8 & 0xff) << 16 | (dk >> 16 & 0xff00) << 16
        } else {
            0
        };
        // Packed within each 128-bit lane: words 0-7 in bits 0-7, words 8-15 in bits 16-23.
        let same = _mm256_movemask_epi8(_mm256_packs_epi16(same, same)) as u32;
        (same & 0xff | (same >> 8 & 0xff00), dk)
    }
}

/// [`loop_groups`] with groups of `G` keys: 8 compared by [`group_sse2`], or 16 by
/// [`group_avx2`] (only where the processor has AVX2: inlined into [`loop_groups_avx2`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn loop_groups_by<const SWEEPS: bool, const G: usize>(b: &[u8]) -> (bool, bool) {
    let group = |keys: &Keys, at: usize, sweep: bool| {
        if G == 16 {
            // SAFETY: a group of sixteen is only compared in `loop_groups_avx2`, called where
            // the processor has AVX2.
            unsafe { group_avx2::<SWEEPS>(keys, at, sweep) }
        } else {
            group_sse2::<SWEEPS>(keys, at, sweep)
        }
    };
    let mut keys: Keys = [0xffff; 128];
    let mut n = 0usize;
    let mut runs = GroupRuns::default();
    let mut base = 0;
    let mut space_before = 1u64;
    let mut padded = [b' '; 80];
    while let Some(rest) = b.get(base..).filter(|r| !r.is_empty()) {
        let chunk = crate::ascii::chunk_or_padded(rest, &mut padded, b' ');
        let Some(head) = chunk.first_chunk::<64>() else {
            break;
        };
        let spaces = super::block::spaces(head);
        let mut starts = !spaces & ((spaces << 1) | space_before);
        space_before = spaces >> 63;
        // SAFETY: fewer than `G` keys are pending (`n`) and a block holds 32 word starts at
        // most, so every key goes to `keys[8 + n..8 + G + 32]`, inside the buffer.
        unsafe {
            let start = keys.as_mut_ptr().add(8 + n.min(G));
            let mut out = start;
            while starts != 0 {
                let k = starts.trailing_zeros() as usize & 63;
                starts &= starts - 1;
                out.write(u16::from_le_bytes([chunk[k], chunk[k + 1]]));
                out = out.add(1);
            }
            n += out.offset_from(start) as usize;
        }
        // Every full group (and in the text's last block, the last group, whatever its
        // size), then the last eight keys and those left pending to the buffer's start.
        let last = rest.len() <= 64;
        let mut at = 8;
        while at < 8 + n && (at + G <= 8 + n || last) {
            let words = (8 + n - at).min(G) as u32;
            let (same, dk) = group(&keys, at, SWEEPS && !runs.swept);
            // The words past the text's end are none.
            let same = same & u32::MAX >> (32 - words);
            if runs.step(same, words) {
                return (true, SWEEPS);
            }
            if SWEEPS && !runs.swept {
                runs.sweep(dk & 0xffff, dk >> 16, words);
            }
            at += G;
        }
        if last {
            break;
        }
        keys.copy_within((at - 8) & 63..((at - 8) & 63) + 8 + G, 0);
        n = (8 + n - at) & (G - 1);
        base += 64;
    }
    (false, SWEEPS && runs.swept)
}

/// What [`loop_groups`] carries from a group of words to the next: the words in a row that share
/// a key with one of the eight before them, and the sweep's count ([`digit_runs`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[derive(Default)]
struct GroupRuns {
    run: u32,
    /// Digits of the current run of words that start with a digit, `a`, `o` or `t`.
    digits: u32,
    swept: bool,
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
impl GroupRuns {
    /// One more group of `words` words (1 to 32), word `k` as bit `k` of `same` (those that
    /// share a key with one of the eight before them; none past the group's words): whether
    /// fifteen words in a row share a key, the run of the groups before with the group's first
    /// words, or the words inside the group that start two, four, eight, then fifteen in a row.
    /// (A function, not a closure: it is inlined at each call.)
    #[inline(always)]
    fn step(&mut self, same: u32, words: u32) -> bool {
        let mut r = same & (same >> 1);
        r &= r >> 2;
        r &= r >> 4;
        let reached = self.run + same.trailing_ones() >= 15 || r & (r >> 7) != 0;
        let live = u32::MAX >> (32 - words);
        self.run = if same == live {
            self.run + words
        } else {
            (same << (32 - words)).leading_ones()
        };
        reached
    }

    /// The sweep's count over the same group, where it is still counted (`!self.swept`): word
    /// `k` as bit `k` of `digit` (the words that start with a digit) and of `keep` (those that
    /// start with a digit, `a`, `o` or `t`).
    #[inline(always)]
    fn sweep(&mut self, digit: u32, keep: u32, words: u32) {
        let live = u32::MAX >> (32 - words);
        self.swept = digit_runs(&mut self.digits, digit & live, keep | !live);
    }
}

/// The sweep's count of [`loop_groups`] over a group of words, word `k` as bit `k` of `digit`
/// (those that start with a digit) and of `keep` (those that go on a run: a digit, `a`, `o` or
/// `t`, and the places past the group's words): `digits`, those of the run before the group,
/// becomes those of the run at its end; whether a run reaches five digits. The runs that cross
/// no word that ends one are counted from the masks at once: the first (which goes on from the
/// group before), the last (which goes on into the next), and the ones between, read word by
/// word only where they hold five digits among them.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[inline(always)]
fn digit_runs(digits: &mut u32, digit: u32, keep: u32) -> bool {
    let breaks = !keep;
    if breaks == 0 {
        *digits += digit.count_ones();
        return *digits >= 5;
    }
    // The words before the first break, and those after the last.
    let below = (breaks & breaks.wrapping_neg()) - 1;
    let above = u32::MAX
        .checked_shl(32 - breaks.leading_zeros())
        .unwrap_or(0);
    let first = *digits + (digit & below).count_ones();
    *digits = (digit & above).count_ones();
    if first >= 5 || *digits >= 5 {
        return true;
    }
    let middle = digit & !below & !above;
    if middle.count_ones() < 5 {
        return false;
    }
    let mut run = 0;
    for k in 0..32 {
        run = if keep >> k & 1 != 0 {
            run + (middle >> k & 1)
        } else {
            0
        };
        if run >= 5 {
            return true;
        }
    }
    false
}

/// [`pretests`] by one walk over the words, each pushed to [`PairRuns`]: what the texts that
/// [`loop_groups`] lets by are walked by (and everywhere without SSE2).
#[inline(always)]
fn pretests_by_words<const SWEEPS: bool>(text: &str) -> (bool, bool) {
    // By a word's first byte: whether a digit (one more word of the run), and whether the run
    // goes on (a digit, or the first letter of `and`, `or` and `to`).
    const SWEEP_ADD: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut c = b'0';
        while c <= b'9' {
            t[c as usize] = 1;
            c += 1;
        }
        t
    };
    const SWEEP_KEEP: [u8; 256] = {
        let mut t = SWEEP_ADD;
        t[b'a' as usize] = 1;
        t[b'o' as usize] = 1;
        t[b't' as usize] = 1;
        t
    };
    let b = text.as_bytes();
    if b.len() < 39 {
        return (false, SWEEPS);
    }
    use std::cell::Cell;
    let runs = Cell::new(PairRuns::new());
    let found = Cell::new(false);
    // Words in a row that start with a digit (the joints between them passed over).
    let (digits, longest) = (Cell::new(0u32), Cell::new(0u32));
    super::for_each_word(
        b,
        |pair| {
            // By the first byte, without branches (the words' first bytes are too mixed to
            // predict): one more for a digit, as many for `a`, `o` or `t`, none for the rest.
            if SWEEPS {
                let first = usize::from((pair >> 8) as u8);
                let (add, keep) = (SWEEP_ADD[first], SWEEP_KEEP[first]);
                let n = (digits.get() + u32::from(add)) & u32::from(keep).wrapping_neg();
                digits.set(n);
                longest.set(longest.get().max(n));
            }
            if !found.get() {
                let mut r = runs.get();
                found.set(r.push(pair as u16));
                runs.set(r);
            }
            // Every word is turned away (`for_each_word` reads no word's end) until both tests
            // have passed.
            !(found.get() && (!SWEEPS || longest.get() >= 5))
        },
        |_| false,
    );
    (found.get(), SWEEPS && longest.get() >= 5)
}

/// Whether [`sweep`] may find a sweep for `alias` at all: the alias holds an integer (a word
/// of one to eighteen digits); [`sweep`] of any response is `None` for an alias without one.
///
/// (Most aliases hold no digit: one look at their bytes, eight at a time. The others are read
/// in one pass that counts the digits of the word it is in, where the word iterator and
/// [`integer`] read each word twice.)
pub fn sweep_needs(alias: &str) -> bool {
    let b = alias.as_bytes();
    if !super::swar::has_ascii_digit(b) {
        return false;
    }
    // The current word's digits, or more than eighteen once it holds another byte.
    let mut digits = 0usize;
    for &c in b {
        if c == b' ' {
            if (1..=18).contains(&digits) {
                return true;
            }
            digits = 0;
        } else if c.is_ascii_digit() {
            digits += 1;
        } else {
            digits = 19;
        }
    }
    (1..=18).contains(&digits)
}

/// Whether a normalised text that [`pretests`] let through holds a run of its loop test with a
/// stronger key, [`word_key`] (of a word's first two bytes, its last byte and its length), that
/// equal words share too: `false` proves there is no loop, as for [`pretests`]. The second walk
/// reads each word's end, which the first does not: it turns away the texts whose words share
/// their first two bytes one pattern after the other (`page_34388`, `page_877894`: the cited
/// pages of a log, one line after the other, are a loop of their first two bytes).
fn word_runs(text: &str) -> bool {
    use std::cell::Cell;
    let b = text.as_bytes();
    let mut runs = PairRuns::new();
    let mut found = false;
    // The first two bytes of the word `for_each_word` found, for the call of `f` that follows.
    let head = Cell::new(0usize);
    super::for_each_word(
        b,
        |pair| {
            head.set(pair);
            false
        },
        |word| {
            found = runs.push(word_key(b, head.get(), word));
            !found
        },
    );
    found
}

/// The key of [`word_runs`] for a word of a normalised text found by [`super::for_each_word`]
/// (`pair` its first two bytes): a function of the word's first two bytes, its last byte and its
/// length (the low byte), so that equal words share it, mixed into 15 bits (never `0xffff`, the
/// ring's mark of no word).
#[inline(always)]
fn word_key(b: &[u8], pair: usize, word: super::WordAt) -> u16 {
    let end = word.end(b);
    let last = end
        .checked_sub(1)
        .and_then(|k| b.get(k))
        .copied()
        .unwrap_or(0);
    let len = end.wrapping_sub(word.start) as u32;
    let whole = (pair as u32) << 16 | u32::from(last) << 8 | (len & 0xff);
    (whole.wrapping_mul(0x9e37_79b1) >> 17) as u16
}

/// The runs of [`pretests`]' loop test: the keys of the last eight words, the latest in lane 0,
/// and for each `p` of one to eight, in lane `p - 1`, how many words in a row have had the key
/// of the word `p` before them. Lanes of the ring start at `0xffff`, which no key is (no UTF-8
/// text holds the byte `0xff`), so a lane for a word before the text's first never equals a key.
/// With SSE2 on x86_64, the lanes of 16 bits of two vectors (a word costs a compare, a subtract,
/// an and, a compare with the floors, a shift); elsewhere (and in the tests, as the oracle) of
/// two `u128`s ([`PairRunsScalar`]).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[derive(Clone, Copy)]
struct PairRuns {
    ring: std::arch::x86_64::__m128i,
    runs: std::arch::x86_64::__m128i,
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
impl PairRuns {
    #[inline(always)]
    fn new() -> Self {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is enabled for the build on every x86_64 target (the `cfg`).
        unsafe {
            PairRuns {
                ring: _mm_set1_epi16(-1),
                runs: _mm_setzero_si128(),
            }
        }
    }

    /// One more word, of key `key`: whether a run now reaches its floor (`r + p` twenty words
    /// or more and four times `p` or more: `r` is `max(20, 4p) - p` or more). A run is 24 at
    /// most before it reaches its floor, so no lane overflows as long as the caller stops at the
    /// first `true`.
    #[inline(always)]
    fn push(&mut self, key: u16) -> bool {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is enabled for the build on every x86_64 target (the `cfg`).
        unsafe {
            // Lane `p - 1`: the floor less one, `max(20, 4p) - p - 1`.
            let below = _mm_setr_epi16(18, 17, 16, 15, 14, 17, 20, 23);
            let k = _mm_set1_epi16(key as i16);
            // All ones in the lanes whose key is `key`.
            let same = _mm_cmpeq_epi16(self.ring, k);
            // One more where the key is the same (`- -1`), else zero.
            let runs = _mm_and_si128(_mm_sub_epi16(self.runs, same), same);
            self.runs = runs;
            self.ring = _mm_or_si128(
                _mm_slli_si128::<2>(self.ring),
                _mm_cvtsi32_si128(i32::from(key)),
            );
            _mm_movemask_epi8(_mm_cmpgt_epi16(runs, below)) != 0
        }
    }
}

/// [`PairRuns`] in the lanes of 16 bits of two `u128`s: the portable version, and the tests'
/// check of the SSE2 one.
#[cfg(any(test, not(all(target_arch = "x86_64", not(feature = "portable")))))]
#[derive(Clone, Copy)]
struct PairRunsScalar {
    ring: u128,
    runs: u128,
}

#[cfg(any(test, not(all(target_arch = "x86_64", not(feature = "portable")))))]
impl PairRunsScalar {
    const LANES: u128 = 0x0001_0001_0001_0001_0001_0001_0001_0001;
    const LOW: u128 = 0x7fff * Self::LANES;
    const HIGH: u128 = 0x8000 * Self::LANES;
    // Lane `p - 1`: `0x8000` less the least run of a loop of `p` words, max(20, 4p) - p.
    const FLOOR: u128 = {
        let mut f = 0u128;
        let mut p = 1;
        while p <= 8 {
            let span = if 4 * p > 20 { 4 * p } else { 20 };
            f |= ((0x8000 - (span - p)) as u128) << (16 * (p - 1));
            p += 1;
        }
        f
    };

    #[inline(always)]
    fn new() -> Self {
        PairRunsScalar {
            ring: u128::MAX,
            runs: 0,
        }
    }

    /// As [`PairRuns::push`].
    #[inline(always)]
    fn push(&mut self, key: u16) -> bool {
        let key = u128::from(key);
        let x = self.ring ^ key.wrapping_mul(Self::LANES);
        // A lane of ones where the key is the lane's, of zeros elsewhere (exact: no carry leaves
        // a lane).
        let same = ((!(((x & Self::LOW) + Self::LOW) | x) & Self::HIGH) >> 15).wrapping_mul(0xffff);
        self.runs = (self.runs + Self::LANES) & same;
        self.ring = self.ring << 16 | key;
        (self.runs + Self::FLOOR) & Self::HIGH != 0
    }
}

#[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
type PairRuns = PairRunsScalar;

/// Whether a normalised text holds a run of the loop test, walked with [`PairRunsScalar`] over
/// every word (without stopping), with the key of [`pretests`] (a word's first two bytes) or,
/// with `whole`, of [`word_runs`]: the tests' oracle of both.
#[cfg(test)]
fn pair_runs_by(text: &str, whole: bool) -> bool {
    use std::cell::Cell;
    let b = text.as_bytes();
    let mut runs = PairRunsScalar::new();
    let mut found = false;
    let head = Cell::new(0usize);
    super::for_each_word(
        b,
        |pair| {
            head.set(pair);
            false
        },
        |word| {
            let pair = head.get();
            let key = if whole {
                word_key(b, pair, word)
            } else {
                pair as u16
            };
            found = found || runs.push(key);
            true
        },
    );
    found
}

/// [`pair_runs_by`] with the key of [`pretests`].
#[cfg(test)]
fn pair_runs(text: &str) -> bool {
    pair_runs_by(text, false)
}

/// The loop scan of [`loop_after_pretests`]: word `n` against the eight before it.
fn loop_scan(response: &str) -> Option<(usize, usize)> {
    const P: usize = 8;
    // The keys of the last eight words, word `k` at `k % P`.
    let mut ring = [0u64; P];
    let mut runs = [0usize; P + 1];
    let mut best: Option<(usize, usize)> = None;
    for (n, w) in words(response).enumerate() {
        let h = w.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        for p in 1..=P.min(n) {
            let same = ring.get((n - p) % P) == Some(&h);
            let r = runs.get_mut(p)?;
            *r = if same { *r + 1 } else { 0 };
            let span = *r + p;
            if *r > 0 && span >= 4 * p && span >= 20 && best.is_none_or(|(_, s)| span > s) {
                best = Some((p, span));
            }
        }
        if let Some(slot) = ring.get_mut(n % P) {
            *slot = h;
        }
    }
    best
}

/// The first space at or after `i` in `b` (`b.len()` when there is none), eight bytes at a time.
fn next_space(b: &[u8], mut i: usize) -> usize {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    while let Some(chunk) = b.get(i..).and_then(|r| r.first_chunk::<8>()) {
        // A byte of `x` is zero where the text has a space; `t` has its high bit set there.
        let x = u64::from_le_bytes(*chunk) ^ 0x2020_2020_2020_2020;
        let t = !(((x & LOW) + LOW) | x | LOW);
        if t != 0 {
            return i + t.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    b.get(i..)
        .and_then(|r| r.iter().position(|&c| c == b' '))
        .map_or(b.len(), |k| i + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per item: its run, its letter, whether it denies it.
    type ItemLetters = Vec<(u32, Option<u8>, bool)>;

    /// What [`Claims::judge_letters`] and [`Claims::letters`] read of the items and runs.
    fn letter_view(c: &Claims) -> (ItemLetters, Vec<u32>) {
        let items = c.items.iter().map(|i| (i.run, i.letter, i.letter_negated));
        (items.collect(), c.runs.iter().map(|r| r.letters).collect())
    }

    /// The word-at-a-time searches agree with their byte-by-byte oracles: the first byte outside
    /// ASCII, and a separator's first byte with the byte before it.
    #[test]
    fn the_byte_scans_agree_with_their_oracles() {
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let alphabet = b"ab or,.nd1 \x80\xE2thoweiuTHOW";
        for _ in 0..20_000 {
            let b: Vec<u8> = (0..next(40))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            assert_eq!(first_high(&b), b.iter().position(|&c| c >= 0x80), "{b:?}");
            for i in 0..=b.len() {
                let oracle = b.get(i).and_then(|&c| {
                    let listed = b",;|\n/.!?:()[]{}\"*$\xE2oanebhtwOANEBHTW".contains(&c);
                    listed.then(|| separator(&b, i)).flatten()
                });
                assert_eq!(separator_at(&b, i), oracle, "{b:?} {i}");
            }
        }
    }

    /// [`denied`] as it was first written, with `str` searches: its oracle.
    fn denied_by_str(item: &str, alias: &str, at: usize, by_joint: bool) -> bool {
        let before = item.get(..at + 1).unwrap_or("");
        let after = item.get(at + alias.len() - 1..).unwrap_or("");
        let denier = before.trim_end().rsplit(' ').next().filter(|w| negator(w));
        let numbered = denier == Some("no") && kind(alias) == Kind::Number;
        by_joint || (denier.is_some() && !numbered) || AFTER.iter().any(|v| after.starts_with(v))
    }

    /// [`denied`]'s byte reads agree with its oracle at every place of an alias in random
    /// items of negations, verdicts, numbers and words (with double spaces now and then).
    #[test]
    fn denied_agrees_with_its_oracle() {
        let mut next = crate::testing::xorshift(0x7a3d_91c5_0e6b_24f1u64);
        let words = [
            "not",
            "no",
            "nor",
            "isnt",
            "is",
            "was",
            "wrong",
            "incorrect",
            "correct",
            "answer",
            "common",
            "misconception",
            "12",
            "paris",
            "x",
            "i",
            "w",
            "wrongly",
            "",
        ];
        let aliases = [" 12 ", " paris ", " x ", " no "];
        let mut hits = 0usize;
        for round in 0..60_000 {
            let mut item = String::from(" ");
            for _ in 0..next(8) {
                item.push_str(words[next(words.len())]);
                item.push(' ');
            }
            let alias = aliases[next(aliases.len())];
            for at in (0..item.len()).filter(|&p| item[p..].starts_with(alias)) {
                let by_joint = round % 7 == 0;
                assert_eq!(
                    denied(&item, alias, at, by_joint),
                    denied_by_str(&item, alias, at, by_joint),
                    "{item:?} {alias:?} {at}"
                );
                hits += 1;
            }
        }
        assert!(hits > 8_000, "{hits}");
    }

    /// The normalised `refs` (number words on) one after the other in one text, each one's span in
    /// it, and each one's key as the matcher picks it: its longest word of ASCII letters and
    /// digits, or an empty span at its end for an alias without one (which must then have a byte
    /// outside ASCII).
    #[allow(clippy::type_complexity)]
    fn aliases_and_keys(
        norm: &mut Normalizer,
        t: &Tables,
        fold: &FoldTable,
        refs: &[&str],
    ) -> (String, Vec<(usize, usize)>, Vec<(usize, usize)>) {
        let (mut aliases, mut spans, mut out) = (String::new(), Vec::new(), String::new());
        for r in refs {
            norm.normalize_into(t, Some(fold), true, r, &mut out);
            let s = aliases.len();
            aliases.push_str(&out);
            spans.push((s, aliases.len()));
        }
        let keys = spans
            .iter()
            .map(|&(s, e)| {
                let key = aliases[s..e]
                    .split(' ')
                    .filter(|w| !w.is_empty() && w.bytes().all(|c| c.is_ascii_alphanumeric()))
                    .max_by_key(|w| w.len());
                key.map_or_else(
                    || {
                        assert!(!aliases[s..e].is_ascii(), "{:?}", &aliases[s..e]);
                        (e, e)
                    },
                    |key| {
                        let at = key.as_ptr() as usize - aliases.as_ptr() as usize;
                        (at, at + key.len())
                    },
                )
            })
            .collect();
        (aliases, spans, keys)
    }

    /// Judging sentence by sentence, up to the first that asserts a gold item, gives the
    /// verdict and the candidates of the whole keyed read judged at once, on texts of several
    /// sentences of separators, joints, denials, cues and golds.
    #[test]
    fn judging_sentence_by_sentence_decides_as_the_whole_read() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let golds = [
            "Paris",
            "18",
            "George Washington",
            "1992",
            "twelve",
            "no",
            "The Who",
            "cafe",
            "US",
            // No ASCII word: an empty key, for the sentences with a byte outside ASCII.
            "Αθήνα",
        ];
        let tokens = [
            ",",
            ";",
            "/",
            ". ",
            ". ",
            "! ",
            "? ",
            "...",
            ":",
            "(",
            ")",
            "\"",
            "*",
            "•",
            "|",
            "\n",
            " or ",
            " and ",
            " nor ",
            " neither ",
            " either ",
            " but ",
            "not ",
            "isn't ",
            " is wrong",
            " maybe ",
            " including ",
            "It is ",
            "The answer is ",
            "London",
            "Lyon",
            "13",
            "1990",
            "John Adams",
            "acid rain",
            "Berlin",
            "J. F. Kennedy",
            "1,000",
            "é",
            // Golds spelled otherwise than their normal forms, which the keys must still find.
            "Twelve",
            "twelfth",
            "U.S.",
            "Pa.ris",
            "PAR'IS",
            "Par’is",
            "1,992",
            "Café",
            "CAFÉ",
            "’",
            "ΑΘΗΝΑ",
            "Ελλάδα",
            "—",
        ];
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
        let (mut fast, mut whole) = (Claims::default(), Claims::default());
        let mut every = Claims::default();
        let mut norm = Normalizer::default();
        let (mut rejected, mut asserted, mut skipped) = (0, 0, 0);
        for round in 0..40_000 {
            let refs: Vec<&str> = (0..1 + next(2)).map(|_| golds[next(golds.len())]).collect();
            // The aliases, normalised and padded, and each one's longest ASCII word.
            let (aliases, spans, keys) = aliases_and_keys(&mut norm, t, fold, &refs);
            let mut text = String::new();
            // Every other text names a gold once, so that its one item decides the row.
            let (len, once) = (1 + next(24), round % 2 == 1);
            let gold_at = next(len);
            for k in 0..len {
                let gold = if once { k == gold_at } else { next(4) == 0 };
                text.push_str(if gold {
                    refs[next(refs.len())]
                } else {
                    tokens[next(tokens.len())]
                });
                if next(2) == 0 {
                    text.push(' ');
                }
            }
            let alias_iter = spans.iter().map(|&(s, e)| &aliases[s..e]);
            let rule = round % 3 != 0;
            let negations = round % 5 != 0;
            let a = fast.read_and_judge(
                &mut norm,
                t,
                Some(fold),
                true,
                &text,
                (&aliases, &keys),
                alias_iter.clone(),
                |_: &mut Normalizer| rule,
                negations,
            );
            whole.read(
                &mut norm,
                t,
                Some(fold),
                true,
                &text,
                Some((&aliases, &keys)),
                false,
            );
            let b = whole.judge(
                &mut norm,
                alias_iter.clone(),
                |_: &mut Normalizer| rule,
                negations,
            );
            assert_eq!(a, b, "{text:?} {refs:?}");
            // The keys skip no sentence that holds a gold item, however the raw text spells it:
            // each skipped sentence, cut as the read cuts it, has no item that holds an alias.
            let b = text.as_bytes();
            let mut start = 0;
            while start < b.len() {
                let end = sentence_end(b, start);
                if !holds_key(&b[start..end], &aliases, &keys, true) {
                    every.items.clear();
                    every.runs.clear();
                    every.text.clear();
                    every.cues.clear();
                    every.cues.push(0);
                    every.cut(&mut norm, t, Some(fold), true, &text, start, end);
                    for it in &every.items {
                        let item = &every.text[it.start..it.end];
                        let gold = alias_iter.clone().find(|a| a.len() > 2 && item.contains(a));
                        assert!(gold.is_none(), "{text:?} {refs:?}: {item:?} skipped");
                    }
                    skipped += 1;
                }
                start = end;
            }
            if a.is_some() {
                assert_eq!(fast.candidates, whole.candidates, "{text:?} {refs:?}");
                rejected += 1;
            } else {
                asserted += usize::from(!whole.items.is_empty());
            }
        }
        // The item shortcut decides many rows (and the whole read above holds it to the cut).
        // So do the places of keys, which find sentences without a gold item uncut.
        let (shortcuts, uncut) = (fast.item_shortcuts, fast.sentences_skipped);
        assert!(
            rejected > 1_000
                && asserted > 10_000
                && skipped > 10_000
                && shortcuts > 5_000
                && uncut > 1_000,
            "{rejected} {asserted} {skipped} {shortcuts} {uncut}"
        );
    }

    /// The letters-only cut gives each item and run the letters the whole read gives them, and
    /// the same letter verdicts, on texts of separators, joints, denials, letters and words.
    /// Where [`may_cut_inside_words`] finds no place where the cut falls inside a word, every
    /// item's normal form is a run of whole words of the normal form of the whole text (so an
    /// alias found in an item is found in the whole text): on texts of joint words glued to
    /// marks, letters, digits and non-ASCII characters, and of every separator.
    #[test]
    fn items_are_runs_of_the_whole_texts_words_where_no_cut_is_glued() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let tokens = [
            ",", ";", "/", ".", ". ", "!", "?", ":", "(", ")", "(A)", "[", "]", "{", "}", "\"",
            "*", "$", "“", "”", "•", "|", "\n", "'", "'s", "’", "_", "-", "..", "...", "…", "or",
            "and", "nor", "either", "neither", "but", "however", "though", "OR", "And", "not",
            "isn't", "U.S.", "U.S", "e.g.", "J. F.", "x", "I", "a", "the", "an", "18th", "twelve",
            "1", "12", "1,000", "3.5", "10:30", "5,7", "Paris", "London", "lyon", "é", "café", "Σ",
            "ΑΣ", "Ϲ", "日本", "№", "²", "ﬁ", " ", " ", " ", "\t",
        ];
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut claims = Claims::default();
        let mut norm = Normalizer::default();
        let (mut whole, mut item) = (String::new(), String::new());
        let (mut checked, mut flagged, mut items) = (0, 0, 0);
        for _ in 0..200_000 {
            let mut text = String::new();
            for _ in 0..1 + next(14) {
                text.push_str(tokens[next(tokens.len())]);
                // Mostly glued: the places to get wrong are between tokens.
                if next(4) == 0 {
                    text.push(' ');
                }
            }
            if may_cut_inside_words(&text) {
                flagged += 1;
                continue;
            }
            checked += 1;
            norm.normalize_into(t, Some(fold), true, &text, &mut whole);
            claims.read(&mut norm, t, Some(fold), true, &text, None, false);
            for it in &claims.items {
                item.clear();
                item.push_str(&claims.text[it.start..it.end]);
                if item.trim().is_empty() {
                    continue;
                }
                items += 1;
                assert!(
                    crate::answer_match::contains_padded(whole.as_bytes(), item.as_bytes()),
                    "{text:?}: item {item:?} is not in {whole:?}"
                );
            }
        }
        // Both kinds of texts, and many items checked.
        assert!(checked > 50_000 && flagged > 50_000, "{checked} {flagged}");
        assert!(items > 200_000, "{items}");
    }

    #[test]
    fn the_letters_only_cut_reads_as_the_whole_read() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let tokens = [
            ",",
            ";",
            "/",
            ".",
            "!",
            "?",
            ":",
            "(",
            ")",
            "(A)",
            "(b)",
            "[C]",
            "\"",
            "*",
            "“",
            "•",
            "|",
            "\n",
            " or ",
            " and ",
            " nor ",
            " neither ",
            " either ",
            " but ",
            "not ",
            "isn't ",
            " is wrong",
            " is ",
            "...",
            " ",
            " ",
            "A",
            "B",
            "c",
            "d.",
            "E)",
            "I",
            "a",
            "The answer is",
            "answer: ",
            "ANSWER:",
            "maybe",
            "because",
            "J. F.",
            "1.",
            "2)",
            "12",
            "3.5",
            "1,000",
            "10:30",
            "London",
            "Vitamin K",
            "é",
            "É",
            "ﬁ",
            "\\boxed{",
            "}",
            "**",
        ];
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let (mut light, mut whole) = (Claims::default(), Claims::default());
        let mut norm = Normalizer::default();
        let mut lettered = 0;
        for _ in 0..40_000 {
            let mut text = String::new();
            for _ in 0..1 + next(14) {
                text.push_str(tokens[next(tokens.len())]);
                if next(2) == 0 {
                    text.push(' ');
                }
            }
            light.read_letters(&text);
            whole.read(&mut norm, t, Some(fold), true, &text, None, true);
            assert_eq!(letter_view(&light), letter_view(&whole), "{text:?}");
            assert_eq!(light.letters(), whole.letters(), "{text:?}");
            let gold = 1 << next(5);
            for (hedges, negations) in [(true, true), (false, true), (true, false)] {
                let a = light.judge_letters(gold, hedges, negations);
                let b = whole.judge_letters(gold, hedges, negations);
                assert_eq!(a, b, "{text:?}");
                assert_eq!(light.candidates, whole.candidates, "{text:?}");
            }
            lettered += usize::from(whole.letters() != 0);
        }
        assert!(lettered > 10_000, "{lettered}");
    }

    #[test]
    fn letters_of_aliases_and_items() {
        assert_eq!(alias_letter("A"), Some(b'a'));
        assert_eq!(alias_letter("(c)"), Some(b'c'));
        assert_eq!(alias_letter("AB"), None);
        assert_eq!(alias_letter("A1"), None);
        for (raw, want) in [
            ("A", Some((b'a', false))),
            ("a", Some((b'a', false))),
            ("The answer is B", Some((b'b', false))),
            ("I think it's C", Some((b'c', false))),
            ("I", Some((b'i', false))),
            ("B because it fits", Some((b'b', false))),
            ("A is wrong", Some((b'a', true))),
            ("not D", Some((b'd', true))),
            ("A dog", None),
            ("the answer is a", None),
            // A letter that ends its item is given (`the V gene`, `Vitamin K`), unless denied
            // right before it.
            ("Many guess D", Some((b'd', false))),
            ("Vitamin K", Some((b'k', false))),
            ("it is not K", Some((b'k', true))),
            ("it does not appear, it is Q", Some((b'q', false))),
        ] {
            assert_eq!(item_letter(raw.as_bytes()), want, "{raw:?}");
        }
    }

    #[test]
    fn questions_that_ask_for_several() {
        for q in [
            " 3 candidates for democratic nomination in 1960 ",
            " name two planets ",
            " three countries that border france ",
            " which countries border andorra ",
        ] {
            assert!(asks_several(q), "{q}");
        }
        for q in [
            " which three times formula one champion was burnt in crash in 1976 ",
            " which country borders andorra ",
            " who won in 1960 ",
            " what is capital of france ",
            " which genus is it ",
            " what does sign in shape of square mean ",
            " which does ",
        ] {
            assert!(!asks_several(q), "{q}");
        }
    }

    #[test]
    fn sweeps() {
        assert_eq!(sweep(" 1 2 3 4 5 20 ", " 12 "), Some((1, 20)));
        assert_eq!(sweep(" 1 2 3 4 5 20 ", " 21 "), None);
        assert_eq!(sweep(" 5 7 15 16 23 42 ", " 15 "), None);
        assert_eq!(sweep(" it is 12 ", " 12 "), None);
        assert_eq!(sweep(" 1 2 3 4 29 29 ", " 5 7 15 16 "), Some((1, 29)));
        assert_eq!(sweep(" 10 20 30 40 50 ", " 30 "), Some((10, 50)));
        assert_eq!(sweep(" 1 2 3 4 5 ", " paris "), None);
    }

    /// A small seeded generator of test texts (xorshift).
    fn next(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// Every ASCII word of letters and digits of a text's normal form is found by [`holds_key`]
    /// in the raw text (with the number words, when they are read): on random texts of letters,
    /// digits, the marks the normalisation deletes inside a word, number words, articles,
    /// ordinal suffixes, the punctuation of U+2000 to U+203F and characters that fold to
    /// letters. And that punctuation folds to no letter or digit.
    #[test]
    fn the_sentence_keys_find_every_word_of_the_normal_form() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let pieces = [
            "a", "b", "s", "t", "U", "S", "X", "7", "1", "0", "00", "000", ",", ".", "'", "’", "․",
            "…", "—", "“", " ", " ", "-", "_", "é", "É", "ﬁ", "K", "İ", "Σ", "seven", "Seventh",
            "ONE", "hundred", "Twenty", "the", "An", "'s", "’s", "th", "st", " or ", "\n", "?",
            "!",
        ];
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let (mut norm, mut out, mut text) = (Normalizer::default(), String::new(), String::new());
        let mut checked = 0usize;
        for round in 0..60_000 {
            text.clear();
            for _ in 0..1 + next(12) {
                text.push_str(pieces[next(pieces.len())]);
            }
            let number_words = round % 2 == 0;
            let folding = (round % 3 != 0).then_some(fold);
            norm.normalize_into(t, folding, number_words, &text, &mut out);
            for w in words(&out).filter(|w| w.bytes().all(|c| c.is_ascii_alphanumeric())) {
                let spans = [(0, w.len())];
                assert!(
                    holds_key(text.as_bytes(), w, &spans, number_words),
                    "{text:?} -> {out:?}: {w:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 100_000, "{checked}");
        for c in ('\u{2000}'..='\u{203F}').map(|c| c.to_string()) {
            norm.normalize_into(t, Some(fold), true, &format!("a{c}0"), &mut out);
            assert!(!foreign(c.as_bytes()), "{c:?}");
            assert!(
                out.split(' ').all(|w| matches!(w, "" | "a" | "0" | "a0")),
                "{c:?} {out:?}"
            );
        }
    }

    /// A text of `words` random words of `vocab` (after a leading space), where about one word
    /// in `loop_one_in` starts a loop instead: a unit of 1 to `periods` random words, repeated
    /// 2 to `repeats + 1` times.
    fn looped_text(
        seed: &mut u64,
        vocab: &[&str],
        words: u64,
        loop_one_in: u64,
        periods: u64,
        repeats: u64,
    ) -> String {
        let mut text = String::from(" ");
        let mut k = 0;
        while k < words {
            if next(seed).is_multiple_of(loop_one_in) {
                let p = 1 + (next(seed) % periods) as usize;
                let unit: Vec<&str> = (0..p)
                    .map(|_| vocab[(next(seed) % vocab.len() as u64) as usize])
                    .collect();
                for _ in 0..2 + next(seed) % repeats {
                    for w in &unit {
                        text.push_str(w);
                        text.push(' ');
                        k += 1;
                    }
                }
            } else {
                text.push_str(vocab[(next(seed) % vocab.len() as u64) as usize]);
                text.push(' ');
                k += 1;
            }
        }
        text
    }

    #[test]
    fn the_cheap_loop_tests_never_miss_a_loop() {
        let vocab = ["a", "b", "c", "dd", "ee", "paris", "12", "13", "and"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut found = 0;
        for _ in 0..20_000 {
            let n = 10 + next(&mut seed) % 60;
            // Now and then a loop of one to eight words, repeated two to seven times.
            let text = looped_text(&mut seed, &vocab, n, 10, 8, 6);
            let full = loop_scan(&text);
            assert_eq!(degenerate_loop(&text), full, "{text}");
            assert!(full.is_none() || may_loop_by_pairs(&text), "{text}");
            assert!(full.is_none() || pair_runs(&text), "{text}");
            assert!(full.is_none() || word_runs(&text), "{text}");
            assert_eq!(word_runs(&text), pair_runs_by(&text, true), "{text}");
            found += usize::from(full.is_some());
        }
        // The texts hold loops, and texts without one.
        assert!(found > 1000 && found < 19_000, "{found}");
    }

    #[test]
    fn the_pair_test_never_misses_a_loop() {
        // Words that share their first two bytes (`pa`, `paris`, `pat`), words of one byte, and
        // of two bytes over two characters; texts long enough to cross 64-byte blocks.
        let vocab = [
            "a", "pa", "paris", "pat", "1", "12", "2", "29", "29)", "é", "éa", "the", "then",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let (mut found, mut passed) = (0, 0);
        let check = |text: &str, found: &mut usize, passed: &mut usize| {
            let full = loop_scan(text);
            assert_eq!(degenerate_loop(text), full, "{text}");
            let pairs = may_loop_by_pairs(text);
            assert_eq!(pairs, text.len() >= 39 && pair_runs(text), "{text}");
            assert_eq!(word_runs(text), pair_runs_by(text, true), "{text}");
            assert!(full.is_none() || pairs, "{text}");
            assert!(full.is_none() || word_runs(text), "{text}");
            assert!(full.is_none() || pair_runs(text), "{text}");
            *found += usize::from(full.is_some());
            *passed += usize::from(pairs);
        };
        for _ in 0..20_000 {
            let n = 5 + next(&mut seed) % 200;
            let text = looped_text(&mut seed, &vocab, n, 12, 9, 8);
            check(&text, &mut found, &mut passed);
        }
        assert!(found > 1000 && passed < 20_000, "{found} {passed}");
        // Real degenerate loops: an lm-eval MATH log's enumerators that end in a loop of one, a
        // phrase repeated, a number repeated; each from its first word on and after a preamble
        // of one to seventy words, so that the loop starts at every place between checkpoints
        // and blocks; and each cut one word short of the loop's floor.
        let enumerators: String = (1..=29).map(|i| format!("{i} ")).collect();
        let loops = [
            format!("{enumerators}{}", "29 ".repeat(25)),
            format!(
                "{}{}",
                (1..=29).map(|i| format!("{i}) ")).collect::<String>(),
                "29) ".repeat(25)
            ),
            "the answer is 5 ".repeat(8),
            "so x equals 12 and y equals 13 ".repeat(4),
            "12 ".repeat(20),
            "a b c d e f g h ".repeat(4),
        ];
        for body in &loops {
            for pre in 0..70 {
                let preamble: String = (0..pre).map(|i| format!("w{i} ")).collect();
                let text = format!(" {preamble}{body}");
                check(&text, &mut found, &mut passed);
                assert!(loop_scan(&text).is_some(), "{text}");
            }
        }
        assert_eq!(loop_scan(&format!(" {}", "12 ".repeat(19))), None);

        assert!(may_loop_by_pairs(&format!(" {}", "1 ".repeat(20))));
        // Cited pages one line after the other: a loop of their words' first two bytes, not of
        // the words, which the second walk's key tells apart.
        let cited: String = [34388, 877894, 703524, 381187, 643431, 862637]
            .iter()
            .map(|n| format!("source https enwikipediaorg wiki page_{n} "))
            .collect();
        let cited = format!(" {cited}");
        assert!(may_loop_by_pairs(&cited) && !word_runs(&cited));
        assert_eq!(loop_scan(&cited), None);
    }

    /// The runs of the loop test ([`PairRuns`], with SSE2 on x86_64) agree with their `u128`
    /// oracle word by word, until the first that reaches its floor: on streams of keys from a
    /// few (so that runs of every length and period are common), `0xffff` among them.
    #[test]
    fn the_pair_runs_agree_with_their_scalar_oracle() {
        let mut next = crate::testing::xorshift(0x7a3c_11d2_90e4_5b61u64);
        let (mut hit, mut missed) = (0, 0);
        for _ in 0..20_000 {
            let keys: Vec<u16> = {
                let alphabet = [0x6120u16, 0x3132, 0x3220, 0x7061, 0xffff, 0x0000, 0x2020];
                let few = 1 + next(alphabet.len());
                let period = 1 + next(10);
                (0..next(120))
                    .map(|i| {
                        if next(4) == 0 {
                            alphabet[next(few)]
                        } else {
                            alphabet[(i % period) % few]
                        }
                    })
                    .collect()
            };
            let (mut fast, mut slow) = (PairRuns::new(), PairRunsScalar::new());
            let mut reached = false;
            for &k in &keys {
                let (a, b) = (fast.push(k), slow.push(k));
                assert_eq!(a, b, "{keys:?}");
                if a {
                    reached = true;
                    break;
                }
            }
            hit += usize::from(reached);
            missed += usize::from(!reached);
        }
        assert!(hit > 2000 && missed > 2000, "{hit} {missed}");
    }

    /// [`sweep`] over `str` words and `integer`, as it was first written: the oracle of the byte
    /// scan.
    fn sweep_by_words(response: &str, need: &[u64]) -> Option<(u64, u64)> {
        let covered = |lo: u64, hi: u64| need.iter().all(|&v| lo <= v && v <= hi);
        let (mut len, mut regular, mut prev, mut step, mut lo, mut hi) =
            (0u32, 0u32, 0u64, 0i128, 0, 0);
        let done = |len: u32, regular: u32, lo: u64, hi: u64| {
            len >= 5 && regular >= 3 && 2 * regular >= len - 1 && covered(lo, hi)
        };
        for w in response.split(' ').filter(|w| !w.is_empty()) {
            match integer(w) {
                Some(v) => {
                    if len == 0 {
                        (len, regular, lo, hi, step) = (1, 0, v, v, 0);
                    } else {
                        let d = i128::from(v) - i128::from(prev);
                        if d == 1 || (d != 0 && d == step) {
                            regular += 1;
                        }
                        step = d;
                        len += 1;
                        lo = lo.min(v);
                        hi = hi.max(v);
                    }
                    prev = v;
                }
                None if matches!(w, "and" | "or" | "to") => {}
                None => {
                    if done(len, regular, lo, hi) {
                        return Some((lo, hi));
                    }
                    len = 0;
                }
            }
        }
        done(len, regular, lo, hi).then_some((lo, hi))
    }

    /// [`sweep_needs`]' one pass decides as the word iterator and [`integer`] did: on random
    /// aliases of digits, letters, spaces (doubled too) and a byte outside ASCII, with words of
    /// digits around eighteen long.
    #[test]
    fn sweep_needs_agrees_with_its_word_oracle() {
        let tokens = [
            "1",
            "42",
            "1969",
            "123456789012345678",
            "1234567890123456789",
            "x",
            "1st",
            "a1",
            " ",
            " ",
            "  ",
            "é",
            "٣",
            "-",
            "0",
        ];
        let mut next = crate::testing::xorshift(0x7e57_5eed_0042_0042u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..50_000 {
            let mut alias = String::new();
            for _ in 0..next(8) {
                alias.push_str(tokens[next(tokens.len())]);
            }
            let want = alias.bytes().any(|c| c.is_ascii_digit())
                && words(&alias).any(|w| integer(w).is_some());
            assert_eq!(sweep_needs(&alias), want, "{alias:?}");
            yes += usize::from(want);
            no += usize::from(!want);
        }
        assert!(yes > 5_000 && no > 5_000, "{yes} {no}");
    }

    #[test]
    fn the_sweep_scan_agrees_with_its_word_oracle() {
        let vocab = [
            "1",
            "2",
            "3",
            "4",
            "5",
            "6",
            "10",
            "12",
            "20",
            "and",
            "or",
            "to",
            "x",
            "007",
            "123456789012345678",
            "1234567890123456789",
            "",
            "",
        ];
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut found = 0;
        for _ in 0..20_000 {
            let n = next(&mut seed) % 40;
            let mut text = String::from(" ");
            for _ in 0..n {
                if next(&mut seed).is_multiple_of(8) {
                    // A run of numbers one apart, or two apart.
                    let (from, step) = (next(&mut seed) % 8, 1 + next(&mut seed) % 2);
                    for k in 0..3 + next(&mut seed) % 6 {
                        text.push_str(&format!("{} ", from + k * step));
                    }
                }
                text.push_str(vocab[(next(&mut seed) % vocab.len() as u64) as usize]);
                text.push(' ');
            }
            let gold = [3u64, 12, 5][(next(&mut seed) % 3) as usize];
            let got = sweep(&text, &format!(" {gold} "));
            assert_eq!(got, sweep_by_words(&text, &[gold]), "{text}");
            // An alias without an integer has no sweep, which the rules do not look for.
            let words_only = [
                " paris ",
                " 12th century ",
                " 1234567890123456789 ",
                " ",
                "",
            ][(next(&mut seed) % 5) as usize];
            assert!(!sweep_needs(words_only), "{words_only}");
            assert_eq!(sweep(&text, words_only), None, "{text}");
            assert!(sweep_needs(&format!(" {gold} ")));
            found += usize::from(got.is_some());
        }
        assert!(found > 1000, "{found}");
    }

    /// What [`pretests`] says never hides a sweep or a loop: on texts of random numbers, runs of
    /// numbers, the joints a sweep passes over and words that share their first two bytes
    /// (`andes`, `order`, `toll`), after a preamble of words so that runs start at every place
    /// of a 64-byte block.
    #[test]
    fn the_pretests_never_miss_a_sweep_or_a_loop() {
        let vocab = [
            "1", "2", "3", "5", "12", "20", "and", "or", "to", "andes", "order", "toll", "x",
            "12th", "007", "paris", "",
        ];
        let mut seed = 0x0f1e_2d3c_4b5a_6978u64;
        let (mut swept, mut turned_away, mut looped) = (0, 0, 0);
        for _ in 0..30_000 {
            let mut text = String::from(" ");
            for i in 0..next(&mut seed) % 12 {
                text.push_str(&format!("w{i} "));
            }
            for _ in 0..next(&mut seed) % 40 {
                if next(&mut seed).is_multiple_of(30) {
                    let (from, step) = (next(&mut seed) % 8, 1 + next(&mut seed) % 2);
                    for k in 0..3 + next(&mut seed) % 6 {
                        text.push_str(&format!("{} ", from + k * step));
                    }
                } else if next(&mut seed).is_multiple_of(200) {
                    text.push_str(&"12 ".repeat(20));
                }
                text.push_str(vocab[(next(&mut seed) % vocab.len() as u64) as usize]);
                text.push(' ');
            }
            let (may_loop, may_sweep) = pretests(&text, true);
            assert_eq!(pretests(&text, false), (may_loop, false), "{text}");
            let gold = [3u64, 12, 5][(next(&mut seed) % 3) as usize];
            let full = sweep(&text, &format!(" {gold} "));
            assert!(full.is_none() || may_sweep, "{text}");
            let gated = may_sweep
                .then(|| sweep(&text, &format!(" {gold} ")))
                .flatten();
            assert_eq!(gated, full, "{text}");
            let gated = may_loop.then(|| loop_after_pretests(&text)).flatten();
            assert_eq!(gated, loop_scan(&text), "{text}");
            swept += usize::from(full.is_some());
            looped += usize::from(gated.is_some());
            turned_away += usize::from(!may_sweep);
        }
        // Sweeps and loops found, and texts turned away without a sweep read.
        assert!(
            swept > 1000 && looped > 100 && turned_away > 3000,
            "{swept} {looped} {turned_away}"
        );
    }

    /// [`may_cut_inside_words`] as it was written before its block scan and the three-byte test
    /// of joint words: every `.`, `'` and `_` found by `memchr3`, every joint word read by
    /// [`separator`] after its first letter alone. The oracle of both.
    fn may_cut_inside_words_by_memchr(raw: &str) -> bool {
        let b = raw.as_bytes();
        let word_sep = |at: usize| {
            b.get(at).is_some_and(|c| {
                matches!(
                    c.to_ascii_lowercase(),
                    b'o' | b'a' | b'n' | b'e' | b'b' | b'h' | b't' | b'w'
                )
            }) && separator(b, at).is_some_and(|(_, len)| len >= 2)
        };
        for i in memchr::memchr3_iter(b'.', b'\'', b'_', b) {
            let c = b[i];
            let glues_back = c == b'_'
                || i.checked_sub(1)
                    .is_some_and(|k| b[k].is_ascii_alphabetic() || b[k] >= 0x80);
            if glues_back && word_sep(i + 1) {
                return true;
            }
            let ends_joint = i.checked_sub(1).is_some_and(|k| {
                matches!(b[k].to_ascii_lowercase(), b'r' | b'd' | b't' | b'h' | b's')
            });
            if ends_joint && (c == b'_' || b.get(i + 1).is_some_and(|n| !n.is_ascii_whitespace())) {
                let mut s = i;
                while s > 0 && i - s < 9 && b[s - 1].is_ascii_alphabetic() {
                    s -= 1;
                }
                if i - s >= 2 && separator(b, s).is_some_and(|(_, len)| s + len == i) {
                    return true;
                }
            }
        }
        b.iter().enumerate().any(|(i, &c)| {
            c >= 0x80
                && (matches!(
                    (c, b.get(i + 1)),
                    (0xCE, Some(0xA3)) | (0xCF, Some(0xB9)) | (0xF0, Some(0x9D))
                ) || word_sep(i + 1))
        })
    }

    /// [`may_cut_inside_words`], and where the processor has AVX2 (which the dispatch passes
    /// over where it has AVX-512) its AVX2 path too, which must agree.
    fn may_cut_by_each_path(text: &str) -> bool {
        let got = may_cut_inside_words(text);
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if crate::cpu::has_avx2() {
            // SAFETY: the processor has AVX2.
            assert_eq!(unsafe { may_cut_avx2(text.as_bytes()) }, got, "{text:?}");
        }
        got
    }

    /// The block scan of `.`, `'` and `_` and the three-byte test of joint words decide as
    /// the `memchr` scan and [`separator`] alone did: on random texts of joint words, their
    /// look-alikes (`org`, `andes`, `north`, `eithe`), marks, digits and characters outside
    /// ASCII, in either case, long enough to cross 64-byte blocks; and a byte at a time, the
    /// marks of random blocks.
    #[test]
    fn the_mark_scan_agrees_with_its_memchr_oracle() {
        let tokens = [
            "or", "OR", "Or", "org", "and", "AND", "andes", "nor", "not", "neither", "NEITHER",
            "eithe", "either", "but", "BUT", "butter", "however", "how", "although", "alt",
            "though", "thou", "whereas", "where", "x", "U", "S", "Paris", "1", "42", ".", ".", "'",
            "'", "_", "_", " ", " ", " ", ",", "é", "Σ", "日本", "\n", "s", "d", "r",
        ];
        let mut next = crate::testing::xorshift(0x0bad_cafe_1234_5678u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..100_000 {
            let mut text = String::new();
            for _ in 0..next(60) {
                text.push_str(tokens[next(tokens.len())]);
                if next(2) == 0 {
                    text.push(' ');
                }
            }
            let want = may_cut_inside_words_by_memchr(&text);
            assert_eq!(may_cut_by_each_path(&text), want, "{text:?}");
            yes += usize::from(want);
            no += usize::from(!want);
        }
        assert!(yes > 10_000 && no > 10_000, "{yes} {no}");
        let mut block = [0u8; 64];
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        let mut dropped = 0;
        for round in 0..20_000 {
            // Every other block is ASCII, which has no non-ASCII place.
            let top = if round % 2 == 0 { 256 } else { 128 };
            // Marks among the letters and spaces around a joint word, and any byte.
            let near = b"oOanNebhtTwWrdDsS  \n\t\r\x0c\x0b.,-";
            for c in &mut block {
                *c = match next(8) {
                    0 => b'.',
                    1 => b'\'',
                    2 => b'_',
                    3 | 4 => near[next(near.len())],
                    _ => next(top) as u8,
                };
            }
            let marks = marks_bytes(&block);
            assert_eq!(marks_in(&block), marks, "{block:?}");
            let (high, letter, lead) = high_classes_bytes(&block);
            let places = high & (lead | (letter >> 1) | 1 << 63);
            assert_eq!(high_places(&block), places, "{block:?}");
            assert_eq!(high_places_if_any(&block), places, "{block:?}");
            #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
            if crate::cpu::has_avx2() {
                // SAFETY: the processor has AVX2.
                let (kept, high) = unsafe { cut_places_avx2(&block) };
                assert_eq!(high, places, "{block:?}");
                // The marks turned away are not flagged, whatever the bytes around the block
                // (the last mark, whose next byte is the next block's, is always kept).
                assert_eq!(kept & !marks, 0, "{block:?}");
                assert_eq!(kept >> 63, marks >> 63, "{block:?}");
                let mut text = [near[next(near.len())]; 65];
                text[1..].copy_from_slice(&block);
                let mut gone = marks & !kept;
                while gone != 0 {
                    let k = gone.trailing_zeros() as usize;
                    gone &= gone - 1;
                    assert!(!cuts_at_mark(&text, k + 1), "{k} {text:?}");
                }
                dropped += (marks & !kept).count_ones();
                if crate::cpu::has_avx512bw() {
                    // AVX-512 keeps fewer: what it turns away of what AVX2 keeps, in the block
                    // as a whole text, is flagged by neither test.
                    // SAFETY: the processor has AVX-512 BW.
                    let (kept512, high512) = unsafe { cut_places_avx512(&block) };
                    assert_eq!(kept512 & !kept, 0, "{block:?}");
                    assert_eq!(high512 & !high, 0, "{block:?}");
                    for k in 0..64 {
                        let bit = 1u64 << k;
                        if kept & !kept512 & bit != 0 {
                            assert!(!cuts_at_mark(&block, k), "{k} {block:?}");
                        }
                        if high & !high512 & bit != 0 {
                            assert!(!cuts_after_high_byte(&block, k), "{k} {block:?}");
                        }
                    }
                }
            }
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        assert!(!crate::cpu::has_avx2() || dropped > 20_000, "{dropped}");
    }

    /// The joint starts of [`cut_places_avx512`] are the places [`may_start_joint_word`] lets
    /// by: on random texts of joint words' first letters and their look-alikes, in either case,
    /// cut at every length (the bytes past a text's end are read as zeros by both).
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[test]
    fn the_joint_starts_agree_with_may_start_joint_word() {
        if !crate::cpu::has_avx512bw() {
            return;
        }
        let tokens = [
            "or", "OR", "oR", "org", "or1", "and", "ANd", "an", "al", "alt", "ALT", "nor", "no",
            "nei", "NET", "ne", "ei", "eit", "EII", "bu", "but", "how", "ho", "tho", "th", "whe",
            "Wh", "x", " ", ".", "_", "é", "\0",
        ];
        let mut next = crate::testing::xorshift(0x0123_4567_89ab_cdefu64);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            while text.len() < 70 {
                text.extend_from_slice(tokens[next(tokens.len())].as_bytes());
            }
            text.truncate(next(70));
            // SAFETY: the processor has AVX-512 BW.
            let joint = unsafe { joint_starts_avx512(&text) };
            for k in 0..64 {
                let want = may_start_joint_word(&text, k + 1);
                assert_eq!(joint >> k & 1 == 1, want, "{k} {text:?}");
                found += usize::from(want);
            }
        }
        assert!(found > 20_000, "{found}");
    }

    /// The non-ASCII places of [`may_cut_inside_words`] (capital sigmas, the characters that
    /// fold to one, a character glued to a joint word), read in the same pass as the marks,
    /// decide as its oracle does: on random texts thick with them.
    #[test]
    fn the_high_byte_places_agree_with_the_memchr_oracle() {
        let tokens = [
            "or", "and", "but", "x", "é", "Σ", "Ϲ", "𝐀", "日本", "ΑΣ", "a", " ", " ", ".", "'",
            "_", "nor", "either", "however", "Paris", "ü",
        ];
        let mut next = crate::testing::xorshift(0x5151_7a7a_0101_2323u64);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..100_000 {
            let mut text = String::new();
            for _ in 0..next(40) {
                text.push_str(tokens[next(tokens.len())]);
                if next(3) == 0 {
                    text.push(' ');
                }
            }
            let want = may_cut_inside_words_by_memchr(&text);
            assert_eq!(may_cut_by_each_path(&text), want, "{text:?}");
            yes += usize::from(want);
            no += usize::from(!want);
        }
        assert!(yes > 10_000 && no > 10_000, "{yes} {no}");
    }

    #[test]
    fn loops() {
        let looped = format!(" answer {} ", ["a b c"; 8].join(" "));
        assert_eq!(degenerate_loop(&looped), Some((3, 24)));
        assert_eq!(degenerate_loop(" paris is capital of france "), None);
        let once = format!(" {} ", ["paris"; 19].join(" "));
        assert_eq!(degenerate_loop(&once), None);
        let more = format!(" {} ", ["paris"; 20].join(" "));
        assert_eq!(degenerate_loop(&more), Some((1, 20)));
    }

    /// [`Claims::tail_asserts`] with the item found by [`separator_at`] at every byte backwards
    /// (the oracle of the test below).
    #[allow(clippy::too_many_arguments)]
    fn tail_asserts_byte_by_byte<'a>(
        c: &mut Claims,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        aliases: impl Iterator<Item = &'a str>,
        negations: bool,
    ) -> bool {
        let b = response.as_bytes();
        let filled = |from: usize, to: usize| {
            b.get(from..to)
                .is_some_and(|r| r.iter().any(|&c| c.is_ascii_alphanumeric() || c >= 0x80))
        };
        // The last separator that starts before `end`: its start, bits and length.
        let before = |end: usize| {
            // (No separator starts on a continuation byte: [`SEPARATOR_FIRST`] has none.)
            (0..end)
                .rev()
                .find_map(|j| separator_at(b, j).map(|(bits, len)| (j, bits, len)))
        };
        // The last item, and the separator right before it.
        let mut end = b.len();
        let (from, to, mut sep) = loop {
            match before(end) {
                Some((j, bits, len)) if filled(j + len, end) => {
                    break (j + len, end, Some((j, bits)))
                }
                Some((j, _, _)) => end = j,
                None if filled(0, end) => break (0, end, None),
                None => return false,
            }
        };
        // The joint before it: the marks back to the item before, or to the start of the text.
        let mut joint = 0u16;
        while let Some((j, bits)) = sep {
            joint |= bits;
            let prev = before(j);
            if filled(prev.map_or(0, |(k, _, len)| k + len), j) {
                // An item before it: the joint must start a run.
                if joint & HARD == 0 && joint & LIST != 0 {
                    return false;
                }
                break;
            }
            sep = prev.map(|(k, bits, _)| (k, bits));
        }
        let Some(raw) = response.get(from..to) else {
            return false;
        };
        let negate_next = joint & NEGATE_NEXT != 0;
        c.undenied_gold(
            norm,
            t,
            fold,
            number_words,
            raw,
            aliases,
            negations,
            negate_next,
        )
        .is_some()
    }

    /// The separator scans by [`separator_candidates`] find what [`separator_at`] read at every
    /// byte finds (the loops they replace), in both directions, over windows of long texts of
    /// marks, joint words and their look-alikes, letters, digits and characters outside ASCII.
    #[test]
    fn the_separator_scans_find_what_every_byte_finds() {
        let tokens = [
            " ", " ", "a", "or", "Or", "and", "nor", "but", "however", "oat", "bee", "town",
            "wheat", "x", "12", "1", ",", ", ", ".", ". ", "..", "!", "?", ":", ";", "/", "|",
            "\n", "(", ")", "(a)", "[", "]", "{", "}", "\"", "*", "$", "“", "”", "•", "é", "京",
            "’", "_", "'", "-",
        ];
        let mut next = crate::testing::xorshift(0x3c6e_f372_fe94_f82bu64);
        let mut found = 0;
        for _ in 0..3_000 {
            let mut text = String::new();
            for _ in 0..next(160) {
                text.push_str(tokens[next(tokens.len())]);
            }
            let b = text.as_bytes();
            for _ in 0..20 {
                let (x, y) = (next(b.len() + 2), next(b.len() + 2));
                let (from, to) = (x.min(y), x.max(y));
                let at = |j: usize| separator_at(b, j).map(|(bits, len)| (j, bits, len));
                let after = (from..to.min(b.len())).find_map(at);
                let before = (from..to.min(b.len())).rev().find_map(at);
                assert_eq!(separator_after(b, from, to), after, "{text:?} {from} {to}");
                assert_eq!(
                    separator_before(b, from, to),
                    before,
                    "{text:?} {from} {to}"
                );
                found += usize::from(after.is_some());
            }
        }
        assert!(found > 20_000, "{found}");
    }

    /// The AVX2 candidates are those read a byte at a time, for every byte at every place of
    /// a window and after every byte before it, and on random windows.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[test]
    fn the_avx2_separator_candidates_are_the_bytes_ones() {
        if !crate::cpu::has_avx2() {
            return;
        }
        let check = |b: &[u8]| {
            for lo in 0..b.len().saturating_sub(32) {
                let chunk = b[lo..].first_chunk::<33>().unwrap();
                let after = lo
                    .checked_sub(1)
                    .map_or(0, |k| SEPARATOR_CLASS[b[k] as usize] >> 2);
                // SAFETY: the processor has AVX2 (checked above).
                let fast = unsafe { separator_candidates_avx2(chunk, u32::from(after)) };
                assert_eq!(
                    fast,
                    separator_candidates_bytes(b, lo, lo + 32, after),
                    "{b:?} {lo}"
                );
                for hi in lo..=b.len().min(lo + 32) {
                    let want = separator_candidates_bytes(b, lo, hi, after);
                    assert_eq!(separator_candidates(b, lo, hi), want, "{b:?} {lo} {hi}");
                }
            }
        };
        for c in 0..=255u8 {
            for p in [b'a', b' ', b'7', 0xE2, c] {
                let mut b = vec![p; 70];
                b[33] = c;
                b[34] = c;
                b[1] = c;
                check(&b);
            }
        }
        let mut next = crate::testing::xorshift(0x9b05_688c_2b3e_6c1fu64);
        let bytes = b"aeiotwhnbAOTW xz09,.;:!?()[]{}|/*$\"\n\xE2\x80\x9C\xC3\xA9_'-";
        for _ in 0..2_000 {
            let b: Vec<u8> = (0..next(100)).map(|_| bytes[next(bytes.len())]).collect();
            check(&b);
        }
    }

    /// The words counted eight bytes at a time are those [`words`] gives, on texts of spaces,
    /// letters and characters outside ASCII of every length.
    #[test]
    fn words_are_counted_as_the_iterator_gives_them() {
        let pieces = [" ", " ", "  ", "a", "bc", "paris", "é", "京", "1945", "_"];
        let mut next = crate::testing::xorshift(0x510e_527f_ade6_82d1u64);
        for _ in 0..20_000 {
            let text: String = (0..next(40)).map(|_| pieces[next(pieces.len())]).collect();
            assert_eq!(word_count(&text), words(&text).count(), "{text:?}");
        }
    }

    /// [`before_item`] says what the last separator before a separator's start and the bytes
    /// after it say (the loops it replaces), from any character boundary, on the texts above.
    #[test]
    fn the_joint_reads_back_as_far_as_the_item_before() {
        let tokens = [
            " ", " ", "a", "or", "Or", "and", "nor", "neither", "but", "oat", "bee", "x", "12",
            "1", ",", ", ", ".", ". ", "..", "!", "?", ":", ";", "/", "|", "\n", "(", ")", "(a)",
            "[", "]", "\"", "*", "“", "”", "•", "é", "京", "’", "_", "'", "-",
        ];
        let mut next = crate::testing::xorshift(0xa54f_f53a_5f1d_36f1u64);
        let mut seen = [0usize; 3];
        for _ in 0..3_000 {
            let mut text = String::new();
            for _ in 0..next(40) {
                text.push_str(tokens[next(tokens.len())]);
            }
            let b = text.as_bytes();
            let starts: Vec<usize> = (0..b.len())
                .filter(|&k| separator_at(b, k).is_some())
                .chain([b.len()])
                .collect();
            for _ in 0..20 {
                let j = starts[next(starts.len())];
                let from = next(j + 1);
                if !text.is_char_boundary(from) {
                    continue;
                }
                let prev = separator_before(b, from, j);
                let filled = b
                    .get(prev.map_or(from, |(k, _, len)| k + len)..j)
                    .is_some_and(|r| r.iter().any(|&c| c.is_ascii_alphanumeric() || c >= 0x80));
                let want = match prev {
                    _ if filled => Before::Item,
                    Some((k, bits, len)) => Before::Separator(k, bits, len),
                    None => Before::Nothing,
                };
                assert_eq!(before_item(b, from, j), want, "{text:?} {from} {j}");
                seen[match want {
                    Before::Item => 0,
                    Before::Separator(..) => 1,
                    Before::Nothing => 2,
                }] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n > 2_000), "{seen:?}");
    }

    /// [`Claims::cut`] as it was, walking the text byte by byte (past words and characters):
    /// the oracle of the test below.
    #[allow(clippy::too_many_arguments)]
    fn cut_byte_by_byte(
        claims: &mut Claims,
        norm: &mut Normalizer,
        t: &Tables,
        fold: Option<&FoldTable>,
        number_words: bool,
        response: &str,
        from: usize,
        to: usize,
    ) {
        let b = response.as_bytes();
        let first = if claims.items.is_empty() {
            0
        } else {
            HARD | SENTENCE
        };
        let (mut start, mut i, mut joint) = (from, from, first);
        loop {
            let sep = if i >= to {
                Some((HARD, 1))
            } else {
                separator_at(b, i)
            };
            if let Some((bits, len)) = sep {
                if let Some(raw) = response.get(start..i.min(to)) {
                    if raw.bytes().any(|c| c.is_ascii_alphanumeric() || c >= 0x80) {
                        claims.push(norm, t, fold, number_words, raw, joint);
                        joint = 0;
                    }
                }
                joint |= bits;
                if i >= to {
                    if let Some(r) = claims.runs.last_mut() {
                        r.ends = true;
                    }
                    if let Some(c) = claims.cues.last_mut().filter(|_| joint & QUESTION != 0) {
                        *c |= 1;
                    }
                    break;
                }
                i += len;
                start = i;
            } else {
                // Past the rest of a word of ASCII letters and digits: a letter is a separator
                // only at a word's start, a digit never.
                let word = b.get(i).is_some_and(u8::is_ascii_alphanumeric);
                i += 1;
                while word && i < to && b.get(i).is_some_and(u8::is_ascii_alphanumeric) {
                    i += 1;
                }
            }
            // Stay on a character boundary: a multi-byte character is inside an item.
            while i < to && !response.is_char_boundary(i) {
                i += 1;
            }
        }
    }

    /// The cut from separator to separator gives the items, runs, cues and text of the walk
    /// byte by byte, for whole texts and for pieces of them cut one after the other, on texts
    /// of separators, joint words and their look-alikes, letters, digits and characters
    /// outside ASCII.
    #[test]
    fn the_cut_by_separators_is_the_walk_byte_by_byte() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let tokens = [
            " ", " ", " ", "Paris", "or", "Or", "and", "nor", "neither", "but", "oat", "bee", "is",
            "not", "maybe", "12", "1", ",", ", ", ".", ". ", "..", "!", "? ", ":", ";", "/", "|",
            "\n", "(", ")", "(a)", "[", "]", "\"", "*", "“", "”", "•", "é", "京", "’", "_", "'",
            "-", "1,000",
        ];
        let mut next = crate::testing::xorshift(0x1f83_d9ab_fb41_bd6bu64);
        let (mut fast, mut slow) = (Claims::default(), Claims::default());
        let mut norm = Normalizer::default();
        let mut items = 0;
        for round in 0..4_000 {
            let mut text = String::new();
            for _ in 0..next(60) {
                text.push_str(tokens[next(tokens.len())]);
            }
            let b = text.as_bytes();
            let mut cuts = vec![0, b.len()];
            for _ in 0..next(3) {
                let k = next(b.len() + 1);
                if text.is_char_boundary(k) {
                    cuts.push(k);
                }
            }
            cuts.sort_unstable();
            for c in [&mut fast, &mut slow] {
                c.letters = round % 2 == 0;
                c.items.clear();
                c.runs.clear();
                c.cues.clear();
                c.text.clear();
                c.cues.push(0);
            }
            for w in cuts.windows(2) {
                let nw = round % 3 != 0;
                fast.cut(&mut norm, t, Some(fold), nw, &text, w[0], w[1]);
                cut_byte_by_byte(&mut slow, &mut norm, t, Some(fold), nw, &text, w[0], w[1]);
            }
            assert_eq!(fast.text, slow.text, "{text:?} {cuts:?}");
            assert_eq!(fast.items, slow.items, "{text:?} {cuts:?}");
            assert_eq!(fast.runs, slow.runs, "{text:?} {cuts:?}");
            assert_eq!(fast.cues, slow.cues, "{text:?} {cuts:?}");
            items += fast.items.len();
        }
        assert!(items > 20_000, "{items}");
    }

    /// The tail shortcut decides as its byte-by-byte oracle, and only rows that the whole read
    /// finds asserted; the separator scans and the second-letter table agree with
    /// the byte-by-byte reading of [`separator`], on texts of separators, joint words and their
    /// look-alikes, denials and golds.
    #[test]
    fn the_tail_and_the_separator_scans_agree_with_their_oracles() {
        let t = crate::pyunicode::test_tables::install();
        let fold = crate::answer_match::test_fold::install();
        let golds = [
            "Paris",
            "18",
            "George Washington",
            "twelve",
            "The Who",
            "US",
            "Αθήνα",
        ];
        let tokens = [
            ",",
            ";",
            "/",
            ". ",
            "..",
            "!",
            "?",
            ":",
            "(",
            ")",
            "\"",
            "*",
            "•",
            "“",
            "|",
            "\n",
            "or",
            "Or",
            "and",
            "AND",
            "nor",
            "neither",
            "either",
            "but",
            "however",
            "although",
            "though",
            "whereas",
            "whereby",
            "org",
            "ant",
            "north",
            "eight",
            "butter",
            "how",
            "altitude",
            "thorn",
            "where",
            "ox",
            "an",
            "not",
            "isn't",
            "is wrong",
            "maybe",
            "A:",
            "The answer is",
            "London",
            "13",
            "1,000",
            "J. F.",
            "U.S.",
            "Pa..ris",
            "é",
        ];
        let mut next = crate::testing::xorshift(0x6a09_e667_f3bc_c908u64);
        let (mut fast, mut slow) = (Claims::default(), Claims::default());
        let mut norm = Normalizer::default();
        let (mut yes, mut no, mut words) = (0, 0, 0);
        for round in 0..30_000 {
            let refs: Vec<&str> = (0..1 + next(2)).map(|_| golds[next(golds.len())]).collect();
            let (aliases, spans, keys) = aliases_and_keys(&mut norm, t, fold, &refs);
            let mut text = String::new();
            for _ in 0..1 + next(16) {
                text.push_str(if next(5) == 0 {
                    refs[next(refs.len())]
                } else {
                    tokens[next(tokens.len())]
                });
                if next(2) == 0 {
                    text.push(' ');
                }
            }
            let b = text.as_bytes();
            for i in 0..=b.len() {
                let oracle = b.get(i).and_then(|&c| {
                    let listed = b",;|\n/.!?:()[]{}\"*$\xE2oanebhtwOANEBHTW".contains(&c);
                    listed.then(|| separator(b, i)).flatten()
                });
                assert_eq!(separator_at(b, i), oracle, "{text:?} {i}");
                words += usize::from(oracle.is_some_and(|(_, len)| len > 1));
                let after = (i..b.len()).find_map(|j| separator(b, j).map(|(x, l)| (j, x, l)));
                let before = (0..i)
                    .rev()
                    .find_map(|j| separator(b, j).map(|(x, l)| (j, x, l)));
                let valid =
                    |s: &Option<(usize, u16, usize)>| s.filter(|&(j, ..)| text.is_char_boundary(j));
                assert_eq!(
                    separator_after(b, i, b.len()),
                    valid(&after),
                    "{text:?} {i}"
                );
                assert_eq!(separator_before(b, 0, i), valid(&before), "{text:?} {i}");
            }
            let alias_iter = spans.iter().map(|&(s, e)| &aliases[s..e]);
            let keyed = (round % 4 != 0).then_some((aliases.as_str(), keys.as_slice()));
            let negations = round % 5 != 0;
            let number_words = round % 3 != 0;
            let args = (Some(fold), number_words, text.as_str(), keyed);
            let a = fast.tail_asserts(
                &mut norm,
                t,
                args.0,
                args.1,
                args.2,
                alias_iter.clone(),
                negations,
            );
            let want = tail_asserts_byte_by_byte(
                &mut slow,
                &mut norm,
                t,
                args.0,
                args.1,
                args.2,
                alias_iter.clone(),
                negations,
            );
            assert_eq!(a, want, "{text:?} {refs:?}");
            if a {
                // And the row it decides is one the whole read and the judge find asserted.
                slow.read(&mut norm, t, args.0, args.1, args.2, None, false);
                let hedge = |_: &mut Normalizer| round % 2 == 0;
                let verdict = slow.judge(&mut norm, alias_iter.clone(), hedge, negations);
                assert_eq!(verdict, None, "{text:?} {refs:?}");
            }
            yes += usize::from(want);
            no += usize::from(!want);
            // And the read from key place to key place (keys spelled across a sentence's end,
            // `Pa..ris`, among them) judges as the whole keyed read.
            if let Some(keys) = keyed {
                let hedge = |_: &mut Normalizer| round % 2 == 0;
                let a = fast.read_and_judge(
                    &mut norm,
                    t,
                    args.0,
                    args.1,
                    args.2,
                    keys,
                    alias_iter.clone(),
                    hedge,
                    negations,
                );
                slow.read(&mut norm, t, args.0, args.1, args.2, keyed, false);
                let want = slow.judge(&mut norm, alias_iter.clone(), hedge, negations);
                assert_eq!(a, want, "{text:?} {refs:?}");
                if a.is_some() {
                    assert_eq!(fast.candidates, slow.candidates, "{text:?} {refs:?}");
                }
            }
        }
        assert!(
            yes > 2_000 && no > 2_000 && words > 10_000,
            "{yes} {no} {words}"
        );
    }

    /// The places of keys in a whole text, searched source by source up to the best so far with
    /// what each search found kept for the next, are the first places of a plain search of every
    /// source ([`spells`] at each byte); a place is one of its sentence's exactly when the
    /// spelling ends within it; and the number spellings read from the table are those of
    /// [`number_spellings`].
    #[test]
    fn the_key_places_agree_with_their_oracle() {
        for len in 1..=4 {
            for v in 0..10usize.pow(len) {
                let digits = format!("{v:0width$}", width = len as usize);
                let want: Vec<&[u8]> = number_spellings(digits.as_bytes()).collect();
                assert_eq!(spellings(digits.as_bytes()), want.as_slice(), "{digits}");
            }
        }
        for word in ["", "seven", "x7", "7x", "12a"] {
            assert!(spellings(word.as_bytes()).is_empty(), "{word}");
        }
        let keys = ["paris", "us", "7", "12", "who", "x"];
        let pieces = [
            "Pa", "ris", "PARIS", "p.a", "r'is", "U", ".", "..", "S", "seven", "Twelve", "7", "1",
            "2", "’", "é", "—", "who", " ", " ", "x", ". ", "!", "?", ",", "Pa..ris", "U..S",
        ];
        let mut next = crate::testing::xorshift(0xbb67_ae85_84ca_a73bu64);
        let (mut found, mut crossing) = (0, 0);
        for round in 0..30_000 {
            let mut text = String::new();
            for _ in 0..next(20) {
                text.push_str(pieces[next(pieces.len())]);
            }
            let mut aliases = String::new();
            let mut spans = Vec::new();
            for _ in 0..1 + next(2) {
                let s = aliases.len();
                // Now and then an empty key: an alias without an ASCII word.
                if next(6) != 0 {
                    aliases.push_str(keys[next(keys.len())]);
                }
                spans.push((s, aliases.len()));
                aliases.push(' ');
            }
            let b = text.as_bytes();
            let number_words = round % 2 == 0;
            let mut sources = Vec::new();
            let empty = sources_into(
                &aliases,
                &spans,
                number_words,
                text.is_ascii(),
                &mut sources,
            );
            // A source's spelling at a place, ending before `end`.
            let spelled_at = |p: usize, end: usize| {
                place_at(b.get(p..end).unwrap_or(&[]), &aliases, &sources, empty)
            };
            let mut cache = Vec::new();
            let mut from = 0;
            while from <= b.len() {
                // (Places are characters' first bytes, and so is every `from` the read passes.)
                let want = (from..b.len())
                    .filter(|&p| text.is_char_boundary(p))
                    .find(|&p| spelled_at(p, b.len()));
                let got = first_key_place(b, &aliases, &sources, empty, from, &mut cache);
                assert_eq!(got, want, "{text:?} {aliases:?} {spans:?} from {from}");
                found += usize::from(got.is_some());
                if let Some(p) = got {
                    // The place is one of its sentence's when the sentence holds the spelling.
                    let end = sentence_end(b, p);
                    let sentence = &b[..end];
                    let holds = holds_key(&sentence[p..], &aliases, &spans, number_words)
                        && (sentence[p] >= 0x80 || {
                            let k = sentence[p].to_ascii_lowercase();
                            spans.iter().any(|&(s, e)| {
                                let key = &aliases.as_bytes()[s..e];
                                let words = spellings(key).iter().copied();
                                std::iter::once(key)
                                    .chain(words.filter(|_| number_words))
                                    .any(|w| {
                                        w.first() == Some(&k) && spells_here(&sentence[p..], w)
                                    })
                            })
                        });
                    assert_eq!(spelled_at(p, end), holds, "{text:?} {aliases:?} at {p}");
                    crossing += usize::from(!holds);
                }
                from += 1 + next(4);
                while !text.is_char_boundary(from.min(b.len())) {
                    from += 1;
                }
            }
        }
        assert!(found > 50_000 && crossing > 100, "{found} {crossing}");
    }

    /// [`digit_runs`] counts as a walk word by word does (how the groups counted before it):
    /// on random groups thick with digits and breaks, from every count below five.
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    #[test]
    fn the_digit_runs_agree_with_a_word_walk() {
        let mut next = crate::testing::xorshift(0x3141_5926_5358_9793u64);
        let (mut swept, mut not) = (0, 0);
        for _ in 0..200_000 {
            let (a, b, c) = (
                next(1 << 32) as u32,
                next(1 << 32) as u32,
                next(1 << 32) as u32,
            );
            // Breaks one word in four or in eight; digits half the words or more.
            let keep = a | b | if next(2) == 0 { c } else { 0 };
            let digit = keep & (b | c);
            let before = next(5) as u32;
            let (mut want, mut reached) = (before, false);
            for k in 0..32 {
                want = if keep >> k & 1 != 0 {
                    want + (digit >> k & 1)
                } else {
                    0
                };
                reached |= want >= 5;
            }
            let mut got = before;
            let hit = digit_runs(&mut got, digit, keep);
            assert_eq!(hit, reached, "{digit:032b} {keep:032b} {before}");
            if !hit {
                assert_eq!(got, want, "{digit:032b} {keep:032b} {before}");
            }
            swept += usize::from(hit);
            not += usize::from(!hit);
        }
        assert!(swept > 5_000 && not > 5_000, "{swept} {not}");
    }

    /// [`pretests`] (with SSE2, its eight-at-a-time test first) answers as its word walk,
    /// [`pretests_by_words`], with the sweep's count and without: on texts of loops of one to
    /// nine words, words that share their first two bytes, numbers and the joints a sweep passes
    /// over, words of one byte (32 words to a block), ASCII and not, from a few words to a few
    /// hundred, so that loops and sweeps start and end at every place of a group and a block.
    #[test]
    fn the_grouped_pretests_agree_with_the_word_walk() {
        let vocab = [
            "a", "b", "pa", "paris", "pat", "1", "12", "2", "29", "7", "and", "or", "to", "andes",
            "toll", "é", "éa", "ω", "the", "then", "x", "12th",
        ];
        let mut seed = 0x5d0b_1e3a_77c4_92f1u64;
        let (mut loops, mut sweeps, mut neither) = (0, 0, 0);
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        let mut turned_away = 0;
        for i in 0..30_000 {
            let n = 3 + next(&mut seed) % if i % 10 == 0 { 400 } else { 90 };
            let one_in = 9 + next(&mut seed) % 40;
            let mut text = looped_text(&mut seed, &vocab, n, one_in, 9, 7);
            if next(&mut seed).is_multiple_of(7) {
                // Numbers in a row, with joints between some.
                for k in 0..next(&mut seed) % 9 {
                    text.push_str(&format!("{k} "));
                    if next(&mut seed).is_multiple_of(3) {
                        text.push_str(["and ", "or ", "to ", "toll "][(k % 4) as usize]);
                    }
                }
                text.push_str("end ");
            }
            for sweeps_too in [true, false] {
                let want = if sweeps_too {
                    pretests_by_words::<true>(&text)
                } else {
                    pretests_by_words::<false>(&text)
                };
                assert_eq!(pretests(&text, sweeps_too), want, "{text:?} {sweeps_too}");
                // Each group width on its own (the dispatch above takes one): a text it turns
                // away is one the word walk turns away, with the same sweep.
                #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
                if text.len() >= 39 {
                    let b = text.as_bytes();
                    let mut widths = vec![if sweeps_too {
                        loop_groups_by::<true, 8>(b)
                    } else {
                        loop_groups_by::<false, 8>(b)
                    }];
                    if crate::cpu::has_avx2() && crate::cpu::has_bmi1() && crate::cpu::has_popcnt()
                    {
                        // SAFETY: the processor has AVX2, BMI1 and popcnt.
                        widths.push(unsafe {
                            if sweeps_too {
                                loop_groups_avx2::<true>(b)
                            } else {
                                loop_groups_avx2::<false>(b)
                            }
                        });
                    }
                    if crate::cpu::has_avx512bw()
                        && crate::cpu::has_avx512vbmi()
                        && crate::cpu::has_avx512vbmi2()
                        && crate::cpu::has_popcnt()
                    {
                        // SAFETY: the processor has AVX-512 BW, VBMI and VBMI2, and popcnt.
                        let whole = unsafe {
                            if sweeps_too {
                                loop_groups_avx512::<true>(b)
                            } else {
                                loop_groups_avx512::<false>(b)
                            }
                        };
                        // The same runs, read a block at a time: the eight-key groups' answer.
                        assert_eq!(whole, widths[0], "{text:?} {sweeps_too}");
                        widths.push(whole);
                    }
                    for (may_run, may_sweep) in widths {
                        assert!(
                            may_run || (false, may_sweep) == want,
                            "{text:?} {sweeps_too}"
                        );
                        turned_away += usize::from(!may_run);
                    }
                }
            }
            let (may_loop, may_sweep) = pretests(&text, true);
            loops += usize::from(may_loop);
            sweeps += usize::from(may_sweep);
            neither += usize::from(!may_loop && !may_sweep);
        }
        assert!(
            loops > 3000 && sweeps > 3000 && neither > 3000,
            "{loops} {sweeps} {neither}"
        );
        // The groups turn most texts away without a walk.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        assert!(turned_away > 20_000, "{turned_away}");
    }
}
