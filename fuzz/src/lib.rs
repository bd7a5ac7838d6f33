//! Inputs and checks shared by the fuzz targets of polarscore's kernels.
//!
//! libFuzzer hands each target raw bytes; [`Text`] turns them into valid UTF-8 built from pieces
//! that reach the kernels' corners: any code point (every Unicode category, unassigned ones
//! included), the characters where Python and Rust disagree, words the kernels treat specially
//! (stopwords, articles, number words, numbers), and raw UTF-8. A text may then be repeated, up
//! to a size bound per target, so that small inputs grow into huge ones (a 100k-number text, a
//! one-token text of a million characters) and a kernel that is quadratic on repetitive text
//! runs into libFuzzer's per-input `-timeout`.
//!
//! Each target bounds its own time per input in proportion to the bytes of the texts it grew
//! ([`TimeBound`]): a linear kernel's time on a megabyte is milliseconds, a quadratic one's is
//! seconds, and libFuzzer's `-timeout` (one bound for every input, small ones included) could
//! not tell them apart without failing slow but linear huge inputs.
//!
//! The kernels read Python's character tables, which the Python package installs at import.
//! Without an interpreter, [`tables`] and [`fold_table`] install the tables `cargo test` uses,
//! built from Rust's own Unicode data (the crate exposes them under `cfg(fuzzing)`).

use _internal::answer_match::{test_fold, FoldTable};
use _internal::pyunicode::{test_tables, Tables};
use arbitrary::{Arbitrary, Result, Unstructured};

/// Python's tables as the kernels see them (installed on first use).
pub fn tables() -> &'static Tables {
    test_tables::install()
}

/// answer_match's accent-folding table: NFKD without marks, every code point.
pub fn fold_table() -> &'static FoldTable {
    test_fold::install_nfkd()
}

/// Build the tables the kernels compute once per process (the character tables, NFKC's "inert"
/// bit set; answer_match's target also builds the fold table), before the first input:
/// libFuzzer's per-input time bound is for the kernels' work on that input, not for a one-time
/// set-up.
pub fn warm_up() {
    use _internal::precision::normalize::{basic_normalize, NormScratch};
    let t = tables();
    basic_normalize(
        t,
        "\u{e9}\u{b2}",
        &mut NormScratch::default(),
        &mut String::new(),
    );
}

/// The CPU time an input may take, in proportion to its texts' length: `POLARSCORE_FUZZ_BASE_MS`
/// (default 100) plus `POLARSCORE_FUZZ_NS_PER_BYTE` (default 250: a quarter of a second for a
/// megabyte) per byte of the texts the target grew, for each pass it makes over them. A linear
/// pass over a megabyte takes milliseconds even instrumented; the quadratic `answer_colon` of old
/// took 0.44 s of CPU on the 1 MB text the fuzzer grew from 35 bytes, and goes over. AddressSanitizer builds slow the kernels 5-20x (`.ci/fuzz`
/// sets a larger rate for them).
///
/// A target that runs its kernels over the same text several times (in every mode, against
/// itself, swapped, per list item) allows that many `passes` ([`TimeBound::passes`]): there a
/// quadratic kernel must cost that many times more to fail, and the complexity test
/// (`tests/test_complexity.py`) is the finer check.
///
/// A target that also runs a kernel documented O(n*m) (the character similarities, ROUGE-L) on
/// texts it keeps small adds those pairs ([`TimeBound::with_pairs`]): a 64th of the rate each.
///
/// Made at the top of a target's body; when dropped at its end (unless the target is already
/// panicking), it panics if the input took longer than its bound, naming the bytes and the time.
pub struct TimeBound {
    start: std::time::Duration,
    bytes: usize,
    passes: usize,
    pairs: usize,
}

/// This thread's CPU time: the input's own work, however loaded the machine (a wall clock would
/// count the other processes' turns on the cores).
fn thread_cpu() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for clock_gettime to write.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return std::time::Duration::ZERO;
    }
    std::time::Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The constant and the rate, read once.
fn rates() -> (u64, u64) {
    static RATES: std::sync::OnceLock<(u64, u64)> = std::sync::OnceLock::new();
    *RATES.get_or_init(|| {
        (
            env_u64("POLARSCORE_FUZZ_BASE_MS", 100),
            env_u64("POLARSCORE_FUZZ_NS_PER_BYTE", 250),
        )
    })
}

impl TimeBound {
    /// Start the clock of an input whose texts hold `bytes` bytes in all.
    pub fn new(bytes: usize) -> Self {
        TimeBound {
            start: thread_cpu(),
            bytes,
            passes: 1,
            pairs: 0,
        }
    }

    /// Allow for `passes` passes of a linear kernel over the texts.
    pub fn passes(mut self, passes: usize) -> Self {
        self.passes = passes.max(1);
        self
    }

    /// Allow for an O(n*m) kernel's `pairs` (n times m) too.
    pub fn with_pairs(mut self, pairs: usize) -> Self {
        self.pairs = self.pairs.saturating_add(pairs);
        self
    }

    /// The input's bound.
    pub fn limit(&self) -> std::time::Duration {
        let (base_ms, ns_per_byte) = rates();
        let pairs = (self.pairs as u64 / 64).saturating_mul(ns_per_byte);
        std::time::Duration::from_millis(base_ms)
            + std::time::Duration::from_nanos(
                ns_per_byte.saturating_mul(self.bytes.saturating_mul(self.passes) as u64),
            )
            + std::time::Duration::from_nanos(pairs)
    }
}

impl Drop for TimeBound {
    fn drop(&mut self) {
        let took = thread_cpu().saturating_sub(self.start);
        if !std::thread::panicking() && took > self.limit() {
            panic!(
                "superlinear time? {took:?} on {} bytes of text ({} passes, {} O(n*m) pairs), \
                 over the bound of {:?} (POLARSCORE_FUZZ_BASE_MS + POLARSCORE_FUZZ_NS_PER_BYTE \
                 a byte a pass)",
                self.bytes,
                self.passes,
                self.pairs,
                self.limit()
            );
        }
    }
}

/// Characters where Python and Rust disagree, or that the normalisations treat specially.
const TRAPS: &[char] = &[
    '\x1c',
    '\x1f',
    '\t',
    '\n',
    '\x0b',
    '\r',
    ' ',
    '\u{85}',
    '\u{a0}',
    '\u{1680}',
    '\u{2000}',
    '\u{2028}',
    '\u{202f}',
    '\u{3000}',
    '\u{200b}',
    '\u{200d}',
    '\u{feff}',
    '\u{180e}',
    '\u{301}',
    '\u{307}',
    '\u{94d}',
    '\u{64e}',
    '\u{fe0f}',
    '\u{20dd}',
    '²',
    '①',
    '½',
    'Ⅻ',
    '〇',
    '٣',
    '５',
    '३',
    '𝟓',
    'İ',
    'Σ',
    'σ',
    'ς',
    'ẞ',
    'ß',
    'K',
    'Ω',
    'Å',
    'ǅ',
    'ﬁ',
    '…',
    '™',
    '_',
    '＿',
    '‿',
    'Ⓐ',
    '.',
    ',',
    '\'',
    '-',
    '+',
    'e',
    'E',
    '!',
    '?',
    '"',
    '(',
    ')',
    ':',
    '%',
    '$',
    '«',
    '—',
    '😀',
    '\u{0}',
    '\u{7f}',
    '\u{d7ff}',
    '\u{e000}',
    '\u{fffd}',
    '\u{10ffff}',
    'A',
    'J',
    'K',
];

/// Words with a meaning for some kernel.
const WORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "and",
    "of",
    "is",
    "answer is ",
    "answer is (",
    "Answer: ",
    "nswer:",
    "paris",
    "Paris",
    "PARIS",
    "café",
    "cafe",
    "studies",
    "boxes",
    "one",
    "twenty",
    "hundred",
    "42",
    "-3.5",
    "+.5e-3",
    "1e308",
    "9e999",
    "0.000",
    "1,000",
    "٣.٥",
    "ΟΔΟΣ",
    "exact",
    "contains",
    " ",
];

/// How many times a text is repeated: mostly once, rarely into a huge text (a fuzzer's byte
/// picks the bucket, and an exhausted input reads as once).
fn repeats(u: &mut Unstructured<'_>) -> Result<usize> {
    Ok(match u.arbitrary::<u8>()? {
        0..=199 => 1,
        200..=229 => *u.choose(&[2, 3, 7])?,
        230..=249 => *u.choose(&[64, 1000])?,
        _ => *u.choose(&[1 << 14, 1 << 17, 1 << 20])?,
    })
}

/// A valid UTF-8 text of at most `MAX_BYTES` bytes, built from the fuzzer's bytes.
pub struct Text<const MAX_BYTES: usize>(pub String);

impl<'a, const MAX_BYTES: usize> Arbitrary<'a> for Text<MAX_BYTES> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut s = String::new();
        let pieces = u.int_in_range(0..=24u8)?;
        for _ in 0..pieces {
            match u.int_in_range(0..=4u8)? {
                0 | 1 => s.push(*u.choose(TRAPS)?),
                2 => s.push_str(u.choose(WORDS)?),
                3 => {
                    let cp = u.int_in_range(0..=char::MAX as u32)?;
                    s.push(char::from_u32(cp).unwrap_or('\u{fffd}'));
                }
                _ => {
                    let raw: &str = u.arbitrary()?;
                    s.push_str(raw);
                }
            }
        }
        let times = repeats(u)?;
        if !s.is_empty() && times > 1 {
            let times = times.min(MAX_BYTES / s.len()).max(1);
            s = s.repeat(times);
        }
        if s.len() > MAX_BYTES {
            let mut cut = MAX_BYTES;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
        }
        Ok(Text(s))
    }
}

impl<const MAX_BYTES: usize> Text<MAX_BYTES> {
    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<const MAX_BYTES: usize> std::fmt::Debug for Text<MAX_BYTES> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let chars = self.0.chars().count();
        if chars <= 200 {
            write!(f, "{:?}", self.0)
        } else {
            let head: String = self.0.chars().take(100).collect();
            write!(f, "{head:?}... ({chars} characters)")
        }
    }
}

/// A list of optional texts (a list column's row), at most `MAX_ITEMS` items.
pub struct List<const MAX_BYTES: usize, const MAX_ITEMS: usize>(pub Vec<Option<String>>);

impl<'a, const MAX_BYTES: usize, const MAX_ITEMS: usize> Arbitrary<'a>
    for List<MAX_BYTES, MAX_ITEMS>
{
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let n = u.int_in_range(0..=MAX_ITEMS)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            let item: Option<Text<MAX_BYTES>> = u.arbitrary()?;
            items.push(item.map(|t| t.0));
        }
        Ok(List(items))
    }
}

impl<const MAX_BYTES: usize, const MAX_ITEMS: usize> std::fmt::Debug
    for List<MAX_BYTES, MAX_ITEMS>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|t| t.clone().map(Text::<MAX_BYTES>)))
            .finish()
    }
}

impl<const MAX_BYTES: usize, const MAX_ITEMS: usize> List<MAX_BYTES, MAX_ITEMS> {
    /// The bytes of its items, in all.
    pub fn len(&self) -> usize {
        self.0.iter().flatten().map(String::len).sum()
    }

    /// Whether it has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The items as a kernel reads a list row.
    pub fn items(&self) -> impl Iterator<Item = Option<&str>> + Clone + '_ {
        self.0.iter().map(|t| t.as_deref())
    }
}

/// A float the fuzzer chooses, special values included.
pub fn float(u: &mut Unstructured<'_>) -> Result<f64> {
    const SPECIAL: &[f64] = &[
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        1e-12,
        1e308,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    if u.arbitrary::<bool>()? {
        Ok(*u.choose(SPECIAL)?)
    } else {
        Ok(f64::from_bits(u.arbitrary()?))
    }
}

/// Assert that `score` is a score: within [0, 1] (NaN is not).
#[track_caller]
pub fn assert_score(score: f64, what: &dyn std::fmt::Debug) {
    assert!(
        (0.0..=1.0).contains(&score),
        "score {score} out of [0, 1]: {what:?}"
    );
}
