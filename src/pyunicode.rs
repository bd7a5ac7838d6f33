//! Python's character classes and case mapping, as the running interpreter defines them.
//!
//! The reference libraries run on CPython, whose Unicode tables (14.0 for Python 3.11) are older
//! than Rust's. The Python side of polarscore reads its interpreter's `unicodedata` once and hands
//! the result to [`set_tables`] as one flag byte pair per code point; every kernel classifies
//! characters through [`Tables`]. Characters the interpreter considers unassigned are inert for
//! Python (no case mapping, not a word character, not a digit), and are treated so here, whatever
//! newer Unicode says about them.

#[cfg(feature = "plugin")]
mod expressions;

use std::sync::OnceLock;

/// Whether `text` holds a capital sigma, whose lower case (`σ` or final `ς`) depends on the
/// characters around it: the texts the one-pass normalisations hand to their character path.
/// One searcher serves the process: `memmem::find` built one per call, which cost more than the
/// search itself on the short texts that are not ASCII (up to three calls a row, from SQuAD,
/// correctness and similarity).
#[inline]
pub fn has_capital_sigma(text: &str) -> bool {
    static SIGMA: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("\u{03A3}"));
    !text.is_ascii() && SIGMA.find(text.as_bytes()).is_some()
}

/// Python `str.isalnum() or c == "_"`: `re`'s `\w` on `str`.
pub const WORD: u16 = 1;
/// Category `Cn` in the interpreter's `unicodedata`.
pub const UNASSIGNED: u16 = 1 << 1;
/// Unicode `Cased` (lowercase, uppercase or titlecase), used by the final-sigma rule of `lower()`.
pub const CASED: u16 = 1 << 2;
/// Unicode `Case_Ignorable`, used by the final-sigma rule of `lower()`.
pub const CASE_IGNORABLE: u16 = 1 << 3;
/// Category `Nd`: `re`'s `\d`; `float()` reads its decimal value (bits 8..12).
pub const DIGIT: u16 = 1 << 4;
/// `str.isspace()`: Python's 29 whitespace code points.
pub const SPACE: u16 = 1 << 5;
/// `str.isprintable()` is false (`repr` escapes the character).
pub const UNPRINTABLE: u16 = 1 << 6;
/// `c.lower() != c`: the only characters whose lower-casing needs a look-up.
pub const CHANGES_WHEN_LOWERED: u16 = 1 << 7;

const N_CODE_POINTS: usize = 0x11_0000;

/// Per-code-point flags of the running Python.
pub struct Tables {
    flags: Box<[u16]>,
    /// The interpreter's `unicodedata.unidata_version`.
    pub version: String,
}

static TABLES: OnceLock<Tables> = OnceLock::new();

/// Install the interpreter's tables: `flags` holds two little-endian bytes per code point.
///
/// The first call wins; later calls (another import in the same process) must describe the same
/// interpreter and are ignored.
pub fn set_tables(flags: &[u8], version: &str) -> Result<(), String> {
    if flags.len() != 2 * N_CODE_POINTS {
        return Err(format!(
            "expected {} bytes of Unicode flags, got {}",
            2 * N_CODE_POINTS,
            flags.len()
        ));
    }
    if TABLES.get().is_some() {
        return Ok(());
    }
    // Written into a zeroed table rather than collected from the iterator: this loop compiles to
    // vector moves, where the collect cost 7 instructions per code point (7.8M at every start).
    let mut table = vec![0u16; N_CODE_POINTS].into_boxed_slice();
    for (slot, pair) in table.iter_mut().zip(flags.chunks_exact(2)) {
        *slot = u16::from_le_bytes([pair[0], pair[1]]);
    }
    let flags = table;
    let _ = TABLES.set(Tables {
        flags,
        version: version.to_owned(),
    });
    Ok(())
}

/// The installed tables, or an error telling that polarscore's Python side did not set them.
pub fn tables() -> Result<&'static Tables, String> {
    TABLES.get().ok_or_else(|| {
        "polarscore's Unicode tables are not loaded: call the scorers through the polarscore \
         Python package, which loads them from the interpreter's unicodedata"
            .to_owned()
    })
}

#[inline]
fn ascii_flags(b: u8) -> u16 {
    match b {
        b'0'..=b'9' => WORD | DIGIT | (((b - b'0') as u16) << 8),
        b'a'..=b'z' => WORD | CASED,
        b'A'..=b'Z' => WORD | CASED | CHANGES_WHEN_LOWERED,
        b'_' => WORD,
        b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | 0x1c..=0x1f | b' ' => SPACE | UNPRINTABLE,
        b'\'' | b'.' | b':' | b'^' | b'`' => CASE_IGNORABLE,
        0x00..=0x1f | 0x7f => UNPRINTABLE,
        _ => 0,
    }
}

impl Tables {
    /// All flags of `c`.
    #[inline]
    pub fn flags(&self, c: char) -> u16 {
        let cp = c as u32;
        if cp < 0x80 {
            let f = ascii_flags(cp as u8);
            // ' ' is printable; the other ASCII spaces are not.
            return if cp == 0x20 { f & !UNPRINTABLE } else { f };
        }
        self.flags[cp as usize]
    }

    /// `re`'s `\w` on `str`: letters, numbers and `_`.
    #[inline]
    pub fn is_word(&self, c: char) -> bool {
        if c.is_ascii() {
            return c.is_ascii_alphanumeric() || c == '_';
        }
        self.flags[c as usize] & WORD != 0
    }

    /// `str.isspace()`.
    #[inline]
    pub fn is_space(&self, c: char) -> bool {
        is_py_space(c)
    }

    /// `re`'s `\d`: category Nd, with its decimal value.
    #[inline]
    pub fn digit_value(&self, c: char) -> Option<u8> {
        if c.is_ascii_digit() {
            return Some(c as u8 - b'0');
        }
        if c.is_ascii() {
            return None;
        }
        let f = self.flags[c as usize];
        (f & DIGIT != 0).then_some(((f >> 8) & 0x0f) as u8)
    }

    /// Category `Cn` for the interpreter.
    #[inline]
    pub fn is_unassigned(&self, c: char) -> bool {
        !c.is_ascii() && self.flags[c as usize] & UNASSIGNED != 0
    }

    /// `str.isprintable()` of the single character.
    #[inline]
    pub fn is_printable(&self, c: char) -> bool {
        self.flags(c) & UNPRINTABLE == 0
    }

    /// Append `text.lower()` to `out`, exactly as Python computes it (full mappings, final sigma).
    pub fn push_lower(&self, text: &str, out: &mut String) {
        if text.is_ascii() {
            let start = out.len();
            out.push_str(text);
            if let Some(added) = out.get_mut(start..) {
                added.make_ascii_lowercase();
            }
            return;
        }
        self.for_each_lower(text, |c| {
            out.push(c);
            true
        });
    }

    /// Python's `text.lower()` as a new string.
    pub fn lower(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        self.push_lower(text, &mut out);
        out
    }

    /// Feed each character of `text.lower()` to `emit`, in order, until `emit` returns false.
    ///
    /// Linear in the text: the "preceded by a cased letter" half of the final-sigma rule is kept
    /// as running state, and the forward look stops at the next character that is not
    /// case-ignorable (a following capital sigma is cased, so no stretch is scanned twice by
    /// more than one sigma).
    #[inline]
    pub fn for_each_lower(&self, text: &str, mut emit: impl FnMut(char) -> bool) {
        // Without a capital sigma, every character lowers on its own.
        if memchr::memmem::find(text.as_bytes(), "\u{03A3}".as_bytes()).is_none() {
            for c in text.chars() {
                if !self.lower_char(c, &mut emit) {
                    return;
                }
            }
            return;
        }
        // Whether the last character that is not case-ignorable was cased.
        let mut after_cased = false;
        for (i, c) in text.char_indices() {
            if c == '\u{03A3}' {
                let rest = &text[i + c.len_utf8()..];
                let final_sigma = after_cased && !self.followed_by_cased(rest);
                if !emit(if final_sigma { '\u{03C2}' } else { '\u{03C3}' }) {
                    return;
                }
            } else if !self.lower_char(c, &mut emit) {
                return;
            }
            let f = self.flags(c);
            if f & CASE_IGNORABLE == 0 {
                after_cased = f & CASED != 0;
            }
        }
    }

    /// Feed the lower case of one character that is not a capital sigma to `emit`.
    #[inline(always)]
    pub fn lower_char_each(&self, c: char, mut emit: impl FnMut(char)) {
        self.lower_char(c, &mut |l| {
            emit(l);
            true
        });
    }

    /// Emit the lower-case of one character (not a capital sigma); false once `emit` says stop.
    #[inline(always)]
    fn lower_char(&self, c: char, emit: &mut impl FnMut(char) -> bool) -> bool {
        if c.is_ascii() {
            return emit(c.to_ascii_lowercase());
        }
        if self.flags[c as usize] & CHANGES_WHEN_LOWERED == 0 {
            return emit(c);
        }
        for l in c.to_lowercase() {
            if !emit(l) {
                return false;
            }
        }
        true
    }

    fn followed_by_cased(&self, rest: &str) -> bool {
        for c in rest.chars() {
            let f = self.flags(c);
            if f & CASE_IGNORABLE == 0 {
                return f & CASED != 0;
            }
        }
        false
    }
}

/// `str.isspace()` for one character: Unicode White_Space plus U+001C..U+001F.
#[inline]
pub fn is_py_space(c: char) -> bool {
    matches!(
        c as u32,
        0x09..=0x0d
            | 0x1c..=0x20
            | 0x85
            | 0xa0
            | 0x1680
            | 0x2000..=0x200a
            | 0x2028
            | 0x2029
            | 0x202f
            | 0x205f
            | 0x3000
    )
}

/// The lower case of each two-byte character (U+0080..=U+07FF, at its code point less 0x80)
/// when that is one non-ASCII `\w` character, else `'\0'` (and for the capital sigma, which
/// lower-cases by its context): for the normalisations' fast paths over two-byte letters.
pub fn two_byte_lower(t: &Tables) -> &'static [char; 0x780] {
    static TABLE: OnceLock<Box<[char; 0x780]>> = OnceLock::new();
    // The tables are installed once per process: the first caller's are every caller's.
    TABLE.get_or_init(|| {
        let mut table = Box::new(['\0'; 0x780]);
        for (cp, slot) in (0x80u32..0x800).zip(table.iter_mut()) {
            let Some(c) = char::from_u32(cp).filter(|&c| c != '\u{03A3}') else {
                continue;
            };
            let (mut lowered, mut n) = ('\0', 0);
            t.lower_char_each(c, |l| {
                lowered = l;
                n += 1;
            });
            if n == 1 && !lowered.is_ascii() && t.is_word(lowered) {
                *slot = lowered;
            }
        }
        table
    })
}

/// Python's `text.strip()`.
#[inline]
pub fn py_strip(text: &str) -> &str {
    text.trim_matches(is_py_space)
}

/// `not text.strip()`: empty or only Python whitespace.
#[inline]
pub fn py_is_blank(text: &str) -> bool {
    text.chars().all(is_py_space)
}

#[cfg(any(test, fuzzing))]
#[doc(hidden)]
pub mod test_tables {
    //! Tables for `cargo test` and the fuzz targets, built from Rust's own Unicode data (no
    //! interpreter there).
    use super::*;

    pub fn install() -> &'static Tables {
        if TABLES.get().is_none() {
            let mut flags = vec![0u8; 2 * N_CODE_POINTS];
            for cp in 0x80..N_CODE_POINTS as u32 {
                let Some(c) = char::from_u32(cp) else {
                    continue;
                };
                let mut f = 0u16;
                if c.is_alphanumeric() {
                    f |= WORD;
                }
                if c.is_lowercase() || c.is_uppercase() {
                    f |= CASED;
                }
                if is_py_space(c) {
                    f |= SPACE;
                }
                if c.to_lowercase().ne(std::iter::once(c)) {
                    f |= CHANGES_WHEN_LOWERED;
                }
                // Rust has no Nd table; these are the decimal digit blocks the tests use.
                let digit_blocks = [0x0660, 0x06F0, 0x0966, 0xFF10, 0x1D7CE, 0x1D7D8, 0x1D7E2];
                for zero in digit_blocks {
                    if (zero..zero + 10).contains(&cp) {
                        f |= DIGIT | (((cp - zero) as u16) << 8);
                    }
                }
                let [lo, hi] = f.to_le_bytes();
                flags[2 * cp as usize] = lo;
                flags[2 * cp as usize + 1] = hi;
            }
            set_tables(&flags, "test").unwrap();
        }
        tables().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared searcher finds a capital sigma wherever it is, and nothing in texts of the
    /// characters that share its bytes (`£`, `У` end in 0xA3; `Ξ`, `Σ`'s neighbours start with
    /// 0xCE).
    #[test]
    fn capital_sigma_is_found_at_every_place() {
        let pieces = ["a", "£", "У", "Ξ", "σ", "ς", "Γ", "中", " ", "Σ"];
        for n in 0..40 {
            for seed in 0..40usize {
                let text: String = (0..n)
                    .map(|k| pieces[(k * 7 + seed * 13 + k * k * seed) % (pieces.len() - 1)])
                    .collect();
                assert!(!has_capital_sigma(&text), "{text:?}");
                for at in 0..=text.len() {
                    if text.is_char_boundary(at) {
                        let with = format!("{}Σ{}", &text[..at], &text[at..]);
                        assert!(has_capital_sigma(&with), "{with:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn python_whitespace_has_29_code_points() {
        let n = (0..0x11_0000u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_py_space(c))
            .count();
        assert_eq!(n, 29);
        assert!(is_py_space('\x1c') && !is_py_space('\u{200b}'));
    }

    #[test]
    fn strip_uses_python_whitespace() {
        assert_eq!(py_strip("\x1cParis\x1f"), "Paris");
        assert_eq!(py_strip("\u{200b}x"), "\u{200b}x");
        assert!(py_is_blank("\u{3000}\t") && !py_is_blank("?"));
    }

    #[test]
    fn lower_has_final_sigma_and_full_mappings() {
        let t = test_tables::install();
        assert_eq!(t.lower("ΟΔΟΣ"), "οδος");
        assert_eq!(t.lower("ΟΔΟΣΑ"), "οδοσα");
        assert_eq!(t.lower("Σ"), "σ");
        assert_eq!(t.lower("İ"), "i\u{307}");
        assert_eq!(t.lower("ABC"), "abc");
    }
}
