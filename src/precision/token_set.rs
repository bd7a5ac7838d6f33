//! The token sets of answer_precision: the distinct tokens of a normalised text, and the
//! stopwords.
//!
//! Tokens arrive as byte spans of the normalised text while it is written, most of them short
//! ASCII words. A token of at most 8 bytes is its own [`short_id`]: its bytes as one zero-padded
//! little-endian word (read with one load when the text is long enough), its length in the top
//! byte when it is shorter than 8, where UTF-8 never puts such a byte; two tokens are equal when
//! their ids are. Short tokens live in a table of those ids, so a look-up is a multiplication
//! and the comparison of a word or two. A longer token is hashed 8 bytes at a time, kept as a
//! span and compared as bytes. The stopwords are a set of the same kind, sparser, so that most
//! look-ups end at the first slot.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::ascii::load_short;

/// The multiplier of the hash (the high bits of a product mix every input bit).
pub(crate) const K: u64 = 0x517c_c1b7_2722_0a95;

/// The key of the token `text[start..end]` of at most 8 bytes: its bytes as a zero-padded
/// little-endian word. When 8 bytes end at `end`, one load and a shift.
#[inline(always)]
pub fn short_key(text: &[u8], start: usize, end: usize) -> u64 {
    let len = end.saturating_sub(start);
    if let Some(chunk) = end
        .checked_sub(8)
        .and_then(|from| text.get(from..end))
        .and_then(|w| w.first_chunk::<8>())
    {
        if (1..=8).contains(&len) {
            return u64::from_le_bytes(*chunk) >> (8 * (8 - len));
        }
    }
    text.get(start..end).map_or(0, load_short)
}

/// The id of the token `text[start..end]` of at most 8 bytes of UTF-8: its [`short_key`], and
/// when it is shorter than 8 bytes, `0xF8 + length` in the top byte (which its key leaves
/// zero). UTF-8 never uses the bytes 0xF8 to 0xFF, so the top byte of an 8-byte token is below
/// them: two tokens have the same id exactly when they are equal, and no id is [`NO_ID`].
#[inline(always)]
pub fn short_id(text: &[u8], start: usize, end: usize) -> u64 {
    id_of_key(short_key(text, start, end), end.saturating_sub(start))
}

/// The [`short_id`] of a token of `len` bytes (at most 8) whose [`short_key`] is `key`.
#[inline(always)]
pub fn id_of_key(key: u64, len: usize) -> u64 {
    if len < 8 {
        key | (0xF8 | len as u64) << 56
    } else {
        key
    }
}

/// Per length `len` (0 to 8): the mask of a token's first `len` bytes in a little-endian word,
/// and the tag [`id_of_key`] adds to its key, so that the [`short_id`] of the token whose bytes
/// (and any after them) are the word `w` is `w & mask | tag`.
pub const SHORT_ID_BITS: [(u64, u64); 9] = {
    let mut bits = [(0u64, 0u64); 9];
    let mut len = 0;
    while len <= 8 {
        let mask = if len == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * len)) - 1
        };
        let tag = if len < 8 {
            (0xF8 | len as u64) << 56
        } else {
            0
        };
        bits[len] = (mask, tag);
        len += 1;
    }
    bits
};

/// The hash of a token longer than 8 bytes.
#[inline]
pub fn long_hash(token: &[u8]) -> u64 {
    let mut h = token.len() as u64;
    let mut chunks = token.chunks_exact(8);
    for chunk in &mut chunks {
        h = (h.rotate_left(5) ^ load_short(chunk)).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // The token's last 8 bytes (over the end of its last whole chunk) in one load when it
        // has 8, where the bytes of the rest were read one at a time.
        let word = token
            .len()
            .checked_sub(8)
            .and_then(|from| token.get(from..))
            .and_then(|w| w.first_chunk::<8>())
            .map_or_else(|| load_short(rest), |w| u64::from_le_bytes(*w));
        h = (h.rotate_left(5) ^ word).wrapping_mul(K);
    }
    h
}

/// The short tokens' table of a [`TokenSet`] has at least this many slots per token and
/// stopword held.
const SPARSE: usize = 16;

/// An empty slot of the short tokens' table: eight 0xFF bytes, which no UTF-8 token holds.
const NO_ID: u64 = u64::MAX;
/// An empty slot of the long tokens' table.
const EMPTY: u32 = u32::MAX;

/// The length in bytes of the token of at most 8 bytes whose [`short_id`] is `id`: the
/// length its top byte tags (0xF8 to 0xFF), or 8 (a byte of UTF-8 there, below 0xF8).
#[inline(always)]
fn short_len(id: u64) -> usize {
    let top = (id >> 56) as usize;
    if top >= 0xF8 {
        top & 7
    } else {
        8
    }
}

/// A distinct token of at most 8 bytes: its [`short_id`], where it starts, and its slot in
/// the short tokens' table.
#[derive(Clone, Copy, Default)]
struct Short {
    id: u64,
    start: usize,
    slot: usize,
}

/// A distinct token longer than 8 bytes: its [`long_hash`], span, and slot in the long
/// tokens' table.
#[derive(Clone, Copy)]
struct Long {
    hash: u64,
    start: usize,
    end: usize,
    slot: usize,
}

/// The tokens of a text as the normaliser finds them (duplicates and stopwords included), to
/// be added to a [`TokenSet`] once the text is written ([`TokenSet::add_pending`]): the
/// writer only appends, and the set's look-ups run in a loop of their own.
#[derive(Default)]
pub struct Pending {
    /// The tokens of at most 8 bytes: their [`short_id`] and start.
    short: Vec<(u64, usize)>,
    /// The longer tokens' spans.
    long: Vec<(usize, usize)>,
}

impl Pending {
    pub fn clear(&mut self) {
        self.short.clear();
        self.long.clear();
    }

    /// The token of at most 8 bytes whose [`short_id`] is `id`, starting at `start`.
    #[inline(always)]
    pub fn push_short(&mut self, id: u64, start: usize) {
        self.short.push((id, start));
    }

    /// The token `text[start..end]`.
    #[inline(always)]
    pub fn push(&mut self, text: &[u8], start: usize, end: usize) {
        if end.saturating_sub(start) <= 8 {
            self.push_short(short_id(text, start, end), start);
        } else {
            self.long.push((start, end));
        }
    }
}

/// The distinct tokens of one text as spans of it, in two open-addressing tables: the short
/// tokens' ids, and the indexes of the long tokens. It allocates nothing once grown and clears
/// in the number of tokens it holds.
///
/// A short token is added without a branch on whether it is held (which follows the text, and
/// was mispredicted about one time in three): its home slot is read, and unless it holds
/// another token (rare: the table is at most a sixteenth full) its id is written there and its
/// entry after the last, the count going up by one when the slot was empty.
#[derive(Default)]
pub struct TokenSet {
    /// The short tokens held, in the order first added: the first `short_count` entries. There
    /// is always at least one more, which an insertion writes before it knows whether its token
    /// is new.
    shorts: Vec<Short>,
    short_count: usize,
    /// An insertion needs no room while `short_count` is below it ([`TokenSet::grow_short`]).
    short_limit: usize,
    /// A power-of-two number of slots, each [`NO_ID`] or the id of a short token held.
    short: Vec<u64>,
    /// 64 minus the number of bits of a slot index: the home slot of a hash is its high bits.
    short_shift: u32,
    /// The long tokens held, in the order first added.
    longs: Vec<Long>,
    /// A power-of-two number of slots, each [`EMPTY`] or an index of `longs`.
    long: Vec<u32>,
    long_shift: u32,
    /// The ids of the short stopwords, held in `short` for good but not tokens of the set
    /// ([`TokenSet::keep_stopwords`]): a token of at most 8 bytes is looked up once, and found
    /// if it is held or a stopword, either way not added.
    resident: Vec<u64>,
    /// The [`StopWords::generation`] of the stopwords in `resident` (0: none).
    resident_of: u64,
}

/// A set with no tokens and no slots, the `other` of [`TokenSet::add_pending`].
static NO_SET: TokenSet = TokenSet {
    shorts: Vec::new(),
    short_count: 0,
    short_limit: 0,
    short: Vec::new(),
    short_shift: 0,
    longs: Vec::new(),
    long: Vec::new(),
    long_shift: 0,
    resident: Vec::new(),
    resident_of: 0,
};

/// The home slot of `hash` in a table of `64 - shift` bits.
#[inline(always)]
fn home(hash: u64, shift: u32) -> usize {
    (hash >> shift) as usize
}

/// [`TokenSet::find_short`] in the table `table` of `64 - shift` bits (a power of two; no
/// slot when it is empty).
///
/// The home slot is read and compared once: unless it holds another token (about one time in
/// sixteen), that is the answer, with no branch on whether `id` is held. The slots are masked
/// to the table's length, which spares their bounds checks.
#[inline(always)]
fn find_in(table: &[u64], shift: u32, id: u64) -> (usize, u64) {
    let mask = table.len().wrapping_sub(1);
    let mut slot = home(id.wrapping_mul(K), shift) & mask;
    let Some(&first) = table.get(slot) else {
        return (slot, NO_ID);
    };
    let mut held = first;
    // Another token there: `held` is neither `id` nor all ones (the sum of the two tests'
    // bits is the one branch). The table always has an empty slot, so the search ends.
    while u8::from(held != id) + u8::from(held != NO_ID) == 2 {
        slot = (slot + 1) & mask;
        held = table.get(slot).copied().unwrap_or(NO_ID);
    }
    (slot, held)
}

impl TokenSet {
    pub fn clear(&mut self) {
        // The slots are masked to the table's length (a power of two, or empty with no token
        // held): no bounds check nor branch per token.
        let mask = self.short.len().wrapping_sub(1);
        let held = self.shorts.get(..self.short_count).unwrap_or(&[]);
        if !self.short.is_empty() {
            for e in held {
                if let Some(s) = self.short.get_mut(e.slot & mask) {
                    *s = NO_ID;
                }
            }
        }
        for e in &self.longs {
            if let Some(s) = self.long.get_mut(e.slot) {
                *s = EMPTY;
            }
        }
        self.short_count = 0;
        self.longs.clear();
    }

    /// Hold the short stopwords of `stop` in the short tokens' table from now on (instead of
    /// those held before, if they differ), so that [`TokenSet::insert_short`] leaves them out
    /// in the same look-up that finds a token held already: the set must be empty. They are
    /// no tokens of the set (nor counted, listed, or found by [`TokenSet::count_shared`] from
    /// a set without them: a token of such a set is no stopword, and ids are equal only for
    /// equal tokens); [`TokenSet::clear`] keeps them.
    #[inline(always)]
    pub fn keep_stopwords(&mut self, stop: &StopWords) {
        if self.resident_of != stop.generation {
            self.hold_stopwords(stop);
        }
    }

    #[cold]
    #[inline(never)]
    fn hold_stopwords(&mut self, stop: &StopWords) {
        self.clear();
        self.resident.clear();
        self.resident.extend(
            stop.set
                .shorts
                .iter()
                .take(stop.set.short_count)
                .map(|e| e.id),
        );
        self.resident_of = stop.generation;
        let size = (SPARSE * (self.resident.len() + 1))
            .next_power_of_two()
            .max(64);
        self.resize_short(size);
    }

    /// The number of distinct tokens.
    #[inline]
    pub fn len(&self) -> usize {
        self.short_count + self.longs.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The distinct tokens, the short ones (at most 8 bytes) first, each kind in the order
    /// first added; `text` is the text they were added from.
    pub fn tokens<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        let shorts = self
            .shorts
            .iter()
            .take(self.short_count)
            .map(|e| (e.start, e.start.saturating_add(short_len(e.id))));
        let longs = self.longs.iter().map(|e| (e.start, e.end));
        shorts
            .chain(longs)
            .map(|(start, end)| text.get(start..end).unwrap_or(""))
    }

    /// The slot of the short token `id` (its [`short_id`]) and what it holds: `id` if it is
    /// held, else [`NO_ID`] (the empty slot where it would go). Outside a table with no slots
    /// (before the first insertion), whose answer is [`NO_ID`] and a slot past its end.
    ///
    /// The home slot is read and compared once: unless it holds another token, that is the
    /// answer, with no branch on whether `id` is held.
    #[inline(always)]
    fn find_short(&self, id: u64) -> (usize, u64) {
        find_in(&self.short, self.short_shift, id)
    }

    /// Whether the short token `id` (its [`short_id`]) is held (a short stopword
    /// [`TokenSet::keep_stopwords`] holds is found too).
    #[inline(always)]
    pub fn contains_short(&self, id: u64) -> bool {
        self.find_short(id).1 == id
    }

    /// Add the token `text[start..end]` of at most 8 bytes (its [`short_id`] `id`) unless it is
    /// held.
    #[inline(always)]
    pub fn insert_short(&mut self, id: u64, start: usize, end: usize) {
        debug_assert_eq!(end.checked_sub(start), Some(short_len(id)));
        self.add_short(id, start);
    }

    /// [`TokenSet::insert_short`], saying whether the token was added (not held, no stopword
    /// held).
    #[inline(always)]
    pub fn add_short(&mut self, id: u64, start: usize) -> bool {
        if self.short_count >= self.short_limit {
            self.grow_short();
        }
        let count = self.short_count;
        let (slot, held) = self.find_short(id);
        let new = held != id;
        self.put_short(count, Short { id, start, slot });
        self.short_count = count + usize::from(new);
        new
    }

    /// Write the short token `e` into its slot (over itself if it is held there) and as the
    /// entry `count`, past those held (there is room for both).
    #[inline(always)]
    fn put_short(&mut self, count: usize, e: Short) {
        if let Some(s) = self.short.get_mut(e.slot) {
            *s = e.id;
        }
        if let Some(to) = self.shorts.get_mut(count) {
            *to = e;
        }
    }

    /// Add the tokens `pending` holds (spans of `text`, which holds the text of the tokens
    /// added before), leaving out the stopwords: the short ones that
    /// [`TokenSet::keep_stopwords`] holds, and the long ones of `stop`.
    pub fn add_pending(&mut self, text: &[u8], pending: &Pending, stop: &StopWords) {
        self.add_pending_counting::<false>(text, pending, stop, None);
    }

    /// [`TokenSet::add_pending`], counting the tokens added that `other` holds (spans of
    /// `other_text`; it keeps the same stopwords): with a set that was empty, the size of the
    /// intersection, as [`TokenSet::count_shared`] counts it.
    pub fn add_pending_shared(
        &mut self,
        text: &[u8],
        pending: &Pending,
        stop: &StopWords,
        other: &TokenSet,
        other_text: &[u8],
    ) -> usize {
        self.add_pending_counting::<true>(text, pending, stop, Some((other, other_text)))
    }

    /// [`TokenSet::add_pending`], counting with `SHARED` the tokens added that `other` holds.
    ///
    /// The short tokens go in runs that fit the room the set has, each with no branch on
    /// whether it is held (which follows the text: that branch was mispredicted about one time
    /// in three): its home slot is read; the id is written there again, or into the empty
    /// slot, and its entry after the last, the count going up by one when the slot was empty.
    /// A token whose home slot holds another (about one time in sixteen: the table is at most
    /// a sixteenth full) is set aside, the slot left as it is, and added after the run by a
    /// search past its home slot. Likewise the reference's look-up in `other`.
    #[inline(always)]
    fn add_pending_counting<const SHARED: bool>(
        &mut self,
        text: &[u8],
        pending: &Pending,
        stop: &StopWords,
        other: Option<(&TokenSet, &[u8])>,
    ) -> usize {
        // `other` with `SHARED` only (a set without slots stands for none).
        let (other, other_text) = match other {
            Some((set, text)) if SHARED => (set, text),
            _ => (&NO_SET, &[][..]),
        };
        let mut shared = 0usize;
        let mut rest = pending.short.as_slice();
        let (other_table, other_shift) = (other.short.as_slice(), other.short_shift);
        while !rest.is_empty() {
            if self.short_count >= self.short_limit {
                self.grow_short();
            }
            let room = self.short_limit.saturating_sub(self.short_count).max(1);
            let (now, later) = rest.split_at(room.min(rest.len()));
            rest = later;
            let first = self.short_count;
            if self.shorts.len() < first + 2 * now.len() {
                // A power of two, as its indexes are masked; room for the run's new tokens
                // after those held and for those set aside at its end.
                let len = (first + 2 * now.len()).next_power_of_two();
                self.shorts.resize(len, Short::default());
            }
            let shift = self.short_shift;
            let (table, shorts) = (self.short.as_mut_slice(), self.shorts.as_mut_slice());
            if table.is_empty() || shorts.is_empty() || (SHARED && other_table.is_empty()) {
                // Not reached (`grow_short` gave them room; `other` keeps the stopwords).
                for &(id, start) in now {
                    let new = self.add_short(id, start);
                    shared += usize::from(SHARED && new && other.contains_short(id));
                }
                continue;
            }
            // Powers of two: the slots and entries are masked indexes (no bounds checks).
            let (mask, last) = (table.len() - 1, shorts.len() - 1);
            let other_mask = other_table.len().wrapping_sub(1);
            let (mut count, mut set_aside, mut unsure) = (first, 0usize, 0usize);
            for &(id, start) in now {
                let slot = home(id.wrapping_mul(K), shift) & mask;
                let held = table[slot];
                let same = held == id;
                let taken = !same & (held != NO_ID);
                let new = !same & !taken;
                table[slot] = if taken { held } else { id };
                // The entry after the last, or one set aside from the end.
                let at = if taken { last - set_aside } else { count };
                shorts[at & last] = Short { id, start, slot };
                count += usize::from(new);
                set_aside += usize::from(taken);
                if SHARED {
                    // A short stopword is held in both tables: never new here.
                    let held = other_table[home(id.wrapping_mul(K), other_shift) & other_mask];
                    let found = held == id;
                    shared += usize::from(new & found);
                    unsure += usize::from(new & !found & (held != NO_ID));
                }
            }
            self.short_count = count;
            if set_aside > 0 {
                shared += self.add_set_aside::<SHARED>(set_aside, other);
            }
            if SHARED && unsure > 0 {
                shared += self.count_unsure(first, count, other);
            }
        }
        for &(start, end) in &pending.long {
            let Some(token) = text.get(start..end) else {
                continue;
            };
            let hash = long_hash(token);
            if !stop.contains_long(token, hash)
                && self.add_long(text, start, end, hash)
                && SHARED
                && other.contains_long(other_text, token, hash)
            {
                shared += 1;
            }
        }
        shared
    }

    /// After a run of [`TokenSet::add_pending_counting`]: add the `set_aside` tokens at the end
    /// of `shorts` (their home slot held another token) by a search past the home slot; with
    /// `SHARED`, the number of those added that `other` holds.
    #[cold]
    #[inline(never)]
    fn add_set_aside<const SHARED: bool>(&mut self, set_aside: usize, other: &TokenSet) -> usize {
        let mut shared = 0;
        let last = self.shorts.len().wrapping_sub(1);
        for k in 0..set_aside {
            // Above the entries held even once these are added (the run's tokens are at most
            // half of the entries past those held before it).
            let Some(&e) = self.shorts.get(last.wrapping_sub(k)) else {
                continue;
            };
            let new = self.add_short(e.id, e.start);
            shared += usize::from(SHARED && new && other.contains_short(e.id));
        }
        shared
    }

    /// After a run of [`TokenSet::add_pending_counting`] with `SHARED`: how many of the
    /// entries `first..count` it added, whose home slot in `other` held another token, `other`
    /// holds.
    #[cold]
    #[inline(never)]
    fn count_unsure(&self, first: usize, count: usize, other: &TokenSet) -> usize {
        let mask = other.short.len().wrapping_sub(1);
        let entries = self.shorts.get(first..count).unwrap_or(&[]);
        entries
            .iter()
            .filter(|e| {
                let slot = home(e.id.wrapping_mul(K), other.short_shift) & mask;
                other
                    .short
                    .get(slot)
                    .is_some_and(|&x| x != e.id && x != NO_ID)
                    && other.contains_short(e.id)
            })
            .count()
    }

    /// Make room for one more short token: the table at most a sixteenth full once it is in
    /// (each probe past the home slot was a branch mispredicted about one time in three), and
    /// an entry past it.
    #[cold]
    #[inline(never)]
    fn grow_short(&mut self) {
        let need = SPARSE * (self.short_count + self.resident.len() + 1);
        if need > self.short.len() {
            self.resize_short(need.next_power_of_two().max(64));
        }
        if self.short_count >= self.shorts.len() {
            // A power of two, as `add_pending` masks its indexes.
            let len = (2 * self.shorts.len()).max(64).next_power_of_two();
            self.shorts.resize(len, Short::default());
        }
        self.set_short_limit();
    }

    /// The count of short tokens below which an insertion has room: the table stays at most
    /// a sixteenth full with one more token and stopwords in it, and an entry is past it.
    fn set_short_limit(&mut self) {
        let by_table = (self.short.len() / SPARSE).saturating_sub(self.resident.len());
        self.short_limit = by_table.min(self.shorts.len());
    }

    /// Rehash the short tokens into `size` slots (a power of two, more than they are).
    fn resize_short(&mut self, size: usize) {
        self.short_shift = 64 - size.trailing_zeros();
        self.short.clear();
        self.short.resize(size, NO_ID);
        let mask = size - 1;
        for &id in &self.resident {
            let mut i = home(id.wrapping_mul(K), self.short_shift);
            while self.short.get(i).is_some_and(|&x| x != NO_ID) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.short.get_mut(i) {
                *s = id;
            }
        }
        for e in self.shorts.iter_mut().take(self.short_count) {
            let mut i = home(e.id.wrapping_mul(K), self.short_shift);
            while self.short.get(i).is_some_and(|&x| x != NO_ID) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.short.get_mut(i) {
                *s = e.id;
                e.slot = i;
            }
        }
        self.set_short_limit();
    }

    /// The slot of the long token `token` (its [`long_hash`] `hash`; spans of `held` are the
    /// tokens held), and whether it is held.
    #[inline(always)]
    fn find_long(&self, held: &[u8], hash: u64, token: &[u8]) -> (usize, bool) {
        let mask = self.long.len().wrapping_sub(1);
        let mut i = home(hash, self.long_shift);
        loop {
            let Some(e) = self.long.get(i).and_then(|&id| self.longs.get(id as usize)) else {
                return (i, false);
            };
            if e.hash == hash && held.get(e.start..e.end) == Some(token) {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Whether the long token `token` (its [`long_hash`] `hash`) is held; `text` is the text
    /// the tokens held were added from.
    #[inline]
    pub fn contains_long(&self, text: &[u8], token: &[u8], hash: u64) -> bool {
        !self.longs.is_empty() && self.find_long(text, hash, token).1
    }

    /// Add the token `text[start..end]` longer than 8 bytes (its [`long_hash`] `hash`) unless it
    /// is held. `text` must begin with the text of the tokens added before (it may have grown
    /// since).
    #[inline]
    pub fn insert_long(&mut self, text: &[u8], start: usize, end: usize, hash: u64) {
        self.add_long(text, start, end, hash);
    }

    /// [`TokenSet::insert_long`], saying whether the token was added (not held).
    #[inline]
    pub fn add_long(&mut self, text: &[u8], start: usize, end: usize, hash: u64) -> bool {
        if (self.longs.len() + 1) * 4 > self.long.len() {
            self.resize_long((self.long.len() * 2).max(64));
        }
        let Some(token) = text.get(start..end) else {
            return false;
        };
        let (slot, found) = self.find_long(text, hash, token);
        if found {
            return false;
        }
        let id = self.longs.len() as u32;
        if let Some(s) = self.long.get_mut(slot) {
            *s = id;
            self.longs.push(Long {
                hash,
                start,
                end,
                slot,
            });
            return true;
        }
        false
    }

    /// Rehash the long tokens into `size` slots (a power of two, more than they are).
    fn resize_long(&mut self, size: usize) {
        self.long_shift = 64 - size.trailing_zeros();
        self.long.clear();
        self.long.resize(size, EMPTY);
        let mask = size - 1;
        for (id, e) in self.longs.iter_mut().enumerate() {
            let mut i = home(e.hash, self.long_shift);
            while self.long.get(i).is_some_and(|&s| s != EMPTY) {
                i = (i + 1) & mask;
            }
            if let Some(s) = self.long.get_mut(i) {
                *s = id as u32;
                e.slot = i;
            }
        }
    }

    /// Add the token `text[start..end]` unless it is held (see [`TokenSet::insert_long`]).
    #[inline]
    pub fn insert(&mut self, text: &[u8], start: usize, end: usize) {
        if end.saturating_sub(start) <= 8 {
            self.insert_short(short_id(text, start, end), start, end);
        } else if let Some(token) = text.get(start..end) {
            self.insert_long(text, start, end, long_hash(token));
        }
    }

    /// How many of `other`'s tokens (spans of `other_text`) this set holds (spans of `text`).
    pub fn count_shared(&self, text: &[u8], other: &TokenSet, other_text: &[u8]) -> usize {
        if self.is_empty() {
            return 0;
        }
        let shorts = other
            .shorts
            .iter()
            .take(other.short_count)
            .map(|e| usize::from(self.contains_short(e.id)))
            .sum::<usize>();
        let longs = other
            .longs
            .iter()
            .filter(|e| {
                other_text
                    .get(e.start..e.end)
                    .is_some_and(|token| self.contains_long(text, token, e.hash))
            })
            .count();
        shorts + longs
    }
}

/// The stopwords, a token set of their own, sparse.
#[derive(Default)]
pub struct StopWords {
    /// The distinct words, concatenated; the entries are spans of it.
    arena: Vec<u8>,
    /// The distinct words' spans of `arena`, in the order first given.
    words: Vec<(usize, usize)>,
    /// Boxed: the options that hold the stopwords stay small.
    set: Box<TokenSet>,
    /// One bit per byte length of the words (63: 63 and longer): most long tokens are told
    /// apart by their length alone.
    lengths: u64,
    /// A number no other table of this process has (0: the empty table's), by which a
    /// [`TokenSet`] knows the stopwords it holds ([`TokenSet::keep_stopwords`]).
    generation: u64,
}

#[inline(always)]
fn length_bit(len: usize) -> u64 {
    1 << len.min(63)
}

impl StopWords {
    pub fn new<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> StopWords {
        static GENERATION: AtomicU64 = AtomicU64::new(1);
        let mut s = StopWords {
            generation: GENERATION.fetch_add(1, Ordering::Relaxed),
            ..StopWords::default()
        };
        for w in words {
            let start = s.arena.len();
            s.arena.extend_from_slice(w.as_ref().as_bytes());
            let end = s.arena.len();
            let before = s.set.len();
            s.set.insert(&s.arena, start, end);
            if s.set.len() == before {
                s.arena.truncate(start); // held already
            } else {
                s.words.push((start, end));
            }
            s.lengths |= length_bit(end - start);
        }
        // Most tokens are looked up and not found: a sparse table ends most searches at the
        // first slot.
        let sparse = |n: usize| (16 * n).next_power_of_two().max(64);
        s.set.resize_short(sparse(s.set.short_count));
        s.set.resize_long(sparse(s.set.longs.len()));
        s
    }

    /// The distinct stopwords, in the order first given.
    pub fn tokens(&self) -> impl Iterator<Item = &str> + '_ {
        self.words.iter().map(|&(start, end)| {
            std::str::from_utf8(self.arena.get(start..end).unwrap_or(&[])).unwrap_or("")
        })
    }

    /// Whether the token of at most 8 bytes whose [`short_id`] is `id` is a stopword.
    #[inline(always)]
    pub fn contains_short(&self, id: u64) -> bool {
        self.set.contains_short(id)
    }

    /// Whether `token`, longer than 8 bytes (its [`long_hash`] `hash`), is a stopword.
    #[inline(always)]
    pub fn contains_long(&self, token: &[u8], hash: u64) -> bool {
        self.lengths & length_bit(token.len()) != 0
            && self.set.find_long(&self.arena, hash, token).1
    }

    /// Whether `token` is a stopword.
    pub fn contains(&self, token: &[u8]) -> bool {
        if token.len() <= 8 {
            self.contains_short(short_id(token, 0, token.len()))
        } else {
            self.contains_long(token, long_hash(token))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_in_place_are_the_padded_bytes() {
        let text = b"0123456789abcdefghij\0\0x";
        for start in 0..text.len() {
            for end in start..=text.len() {
                if end - start > 8 {
                    continue;
                }
                assert_eq!(
                    short_key(text, start, end),
                    load_short(&text[start..end]),
                    "{start} {end}"
                );
            }
        }
    }

    #[test]
    fn masked_words_are_the_short_ids() {
        // A token of 0 to 8 bytes at every place of a text, read as the 8 bytes from its
        // start (the text's bytes after it, or zero padding) masked and tagged.
        let text = b"0123456789abcdef\xc3\xa9ghij\0\0xyz";
        let mut padded = text.to_vec();
        padded.extend_from_slice(&[0; 8]);
        for start in 0..text.len() {
            for end in start..=(start + 8).min(text.len()) {
                let len = end - start;
                let word = u64::from_le_bytes(*padded[start..].first_chunk::<8>().unwrap());
                let (mask, tag) = SHORT_ID_BITS[len];
                assert_eq!(
                    word & mask | tag,
                    short_id(text, start, end),
                    "{start} {end}"
                );
            }
        }
    }

    #[test]
    fn short_ids_tell_every_token_apart() {
        // Tokens of 0 to 8 bytes from an alphabet of NUL, ASCII and the bytes of multi-byte
        // characters (the top byte of an 8-byte token may be any of them): equal ids exactly
        // for equal tokens, none of them the empty slot.
        use std::collections::HashMap;
        let alphabet: Vec<u8> =
            [0u8, b'a', b'z', 0x7f, 0x80, 0xbf, 0xc3, 0xe4, 0xf0, 0xf4].to_vec();
        let mut seen: HashMap<u64, Vec<u8>> = HashMap::new();
        let mut seed = 5u64;
        for _ in 0..200_000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = (seed >> 60) as usize % 9;
            let token: Vec<u8> = (0..len)
                .map(|k| alphabet[(seed >> (4 * k + 8)) as usize % alphabet.len()])
                .collect();
            // in place, after some text, and alone
            let mut text = b"0123456789".to_vec();
            text.extend_from_slice(&token);
            let id = short_id(&text, 10, text.len());
            assert_eq!(id, short_id(&token, 0, len));
            assert_ne!(id, NO_ID);
            if let Some(other) = seen.insert(id, token.clone()) {
                assert_eq!(other, token);
            }
        }
        assert_ne!(short_id(b"a", 0, 1), short_id(b"a\0", 0, 2));
        assert_ne!(short_id(b"", 0, 0), short_id(b"\0", 0, 1));
    }

    #[test]
    fn kept_stopwords_are_left_out_in_the_same_look_up() {
        // Texts of short words (some of them stopwords, some repeated) and long ones, added
        // with `insert` after `keep_stopwords`: the set holds the distinct words that are no
        // short stopwords (a long stopword is the caller's to leave out), through growth,
        // clears, and a change of stopwords; `count_shared` counts what a naive set does.
        use std::collections::HashSet;
        let first = StopWords::new(["the", "a", "of", "is", "eightchr", "a-long-stopword"]);
        let second = StopWords::new(["an", "the", "to"]);
        let vocabulary = [
            "the",
            "a",
            "of",
            "is",
            "an",
            "to",
            "eightchr",
            "eightchx",
            "x",
            "paris",
            "city",
            "of-the",
            "a-long-stopword",
            "nine-char",
            "é",
            "日本",
        ];
        let mut next = crate::testing::lcg(17);
        let mut set = TokenSet::default();
        let mut other = TokenSet::default();
        for round in 0..300 {
            let stop = if round % 7 < 4 { &first } else { &second };
            set.clear();
            set.keep_stopwords(stop);
            other.clear();
            other.keep_stopwords(stop);
            let mut text = Vec::new();
            let mut spans = Vec::new();
            // Up to 600 words: past the table's first size, with the stopwords in it.
            for k in 0..next() % 600 {
                let start = text.len();
                text.extend_from_slice(vocabulary[next() % vocabulary.len()].as_bytes());
                if next().is_multiple_of(4) {
                    text.extend_from_slice(format!("{k}").as_bytes());
                }
                spans.push((start, text.len()));
                text.push(b' ');
            }
            let is_stop = |w: &[u8]| w.len() <= 8 && stop.contains(w);
            let mut naive = HashSet::new();
            for &(a, b) in &spans {
                set.insert(&text, a, b);
                if !is_stop(&text[a..b]) {
                    naive.insert(text[a..b].to_vec());
                }
            }
            assert_eq!(set.len(), naive.len());
            let held: HashSet<Vec<u8>> = set
                .tokens(std::str::from_utf8(&text).unwrap())
                .map(|t| t.as_bytes().to_vec())
                .collect();
            assert_eq!(held, naive);
            let words = b"paris the eightchr eightchx x7 a-long-stopword nine-char";
            let mut distinct = HashSet::new();
            let mut start = 0;
            for end in (0..=words.len()).filter(|&i| i == words.len() || words[i] == b' ') {
                other.insert(words, start, end);
                if !is_stop(&words[start..end]) {
                    distinct.insert(words[start..end].to_vec());
                }
                start = end + 1;
            }
            let shared = distinct.iter().filter(|w| naive.contains(*w)).count();
            assert_eq!(other.len(), distinct.len());
            assert_eq!(set.count_shared(&text, &other, words), shared);
            assert_eq!(other.count_shared(words, &set, &text), shared);
        }
    }

    /// Short ids (from `alphabet`) whose home slots in a table of 64 slots (the size of a
    /// fresh set's first table) coincide: `n` of them.
    fn same_home(n: usize) -> Vec<Vec<u8>> {
        let mut by_home: std::collections::HashMap<usize, Vec<Vec<u8>>> = Default::default();
        for a in b'a'..=b'z' {
            for b in b'a'..=b'z' {
                let word = vec![a, b];
                let id = short_id(&word, 0, 2);
                let slot = home(id.wrapping_mul(K), 64 - 6);
                let group = by_home.entry(slot).or_default();
                group.push(word);
                if group.len() == n {
                    return group.clone();
                }
            }
        }
        unreachable!()
    }

    /// A text of `words` separated by spaces, and its tokens as the normaliser hands them over.
    fn pending_of(words: &[&[u8]]) -> (Vec<u8>, Pending) {
        let mut text = Vec::new();
        let mut pending = Pending::default();
        for w in words {
            let start = text.len();
            text.extend_from_slice(w);
            pending.push(&text, start, text.len());
            text.push(b' ');
        }
        (text, pending)
    }

    #[test]
    fn pending_tokens_whose_home_slot_is_taken_are_added_after_the_run() {
        // Three tokens with the same home slot, repeated: the second and third are set aside
        // in the run (their home slot holds the first) and added after it, once each.
        let group = same_home(3);
        let (x, y, z) = (&group[0][..], &group[1][..], &group[2][..]);
        let stop = StopWords::new(Vec::<&str>::new());
        let (text, pending) = pending_of(&[x, y, x, z, y, z, x]);
        let mut set = TokenSet::default();
        set.keep_stopwords(&stop);
        set.add_pending(&text, &pending, &stop);
        assert_eq!(set.len(), 3);
        let mut held: Vec<&str> = set.tokens(std::str::from_utf8(&text).unwrap()).collect();
        held.sort_unstable();
        let mut want: Vec<&str> = group
            .iter()
            .map(|w| std::str::from_utf8(w).unwrap())
            .collect();
        want.sort_unstable();
        assert_eq!(held, want);
        // The reference side: `y` and `z` are new there; in the response's table their home
        // slot holds `x`, so whether it holds them is looked up past it.
        type Case<'a> = (&'a [&'a [u8]], &'a [&'a [u8]], usize);
        let cases: [Case; 5] = [
            (&[x], &[y, z, y], 0),
            (&[x, z], &[y, z, y], 1),
            (&[y, x, z], &[y, z, y], 2),
            (&[x, y], &[y], 1),
            (&[x, z], &[y], 0),
        ];
        for (response, reference, shared) in cases {
            let (a_text, a_pending) = pending_of(response);
            let mut a = TokenSet::default();
            a.keep_stopwords(&stop);
            a.add_pending(&a_text, &a_pending, &stop);
            let (e_text, e_pending) = pending_of(reference);
            let mut e = TokenSet::default();
            e.keep_stopwords(&stop);
            let counted = e.add_pending_shared(&e_text, &e_pending, &stop, &a, &a_text);
            assert_eq!(counted, shared);
            assert_eq!(e.len(), reference.len().min(2));
            assert_eq!(a.count_shared(&a_text, &e, &e_text), shared);
        }
    }

    #[test]
    fn pending_tokens_make_the_sets_and_intersections_of_a_naive_set() {
        // Texts of short words (many sharing home slots in the small first tables), long words
        // and stopwords, added through `Pending` in runs across the table's growth: the sets
        // hold the distinct words that are no stopwords, and the reference side counts the
        // intersection as a naive set does.
        use std::collections::HashSet;
        let stop = StopWords::new(["the", "of", "a", "a-long-stopword"]);
        let long = ["a-long-stopword", "nine-char", "ten-chars!", "日本語の文章"];
        let mut next = crate::testing::lcg(23);
        let mut a = TokenSet::default();
        let mut e = TokenSet::default();
        let word = |next: &mut dyn FnMut() -> usize| -> Vec<u8> {
            match next() % 10 {
                0 => b"the".to_vec(),
                1 => b"of".to_vec(),
                2 => long[next() % long.len()].as_bytes().to_vec(),
                3 => format!("w{}", next() % 3000).into_bytes(),
                4 => "é".repeat(1 + next() % 4).into_bytes(),
                _ => {
                    let len = 1 + next() % 8;
                    (0..len).map(|_| b'a' + (next() % 4) as u8).collect()
                }
            }
        };
        for _ in 0..400 {
            let a_words: Vec<Vec<u8>> = (0..next() % 700).map(|_| word(&mut next)).collect();
            let e_words: Vec<Vec<u8>> = (0..next() % 40).map(|_| word(&mut next)).collect();
            let a_refs: Vec<&[u8]> = a_words.iter().map(|x| x.as_slice()).collect();
            let e_refs: Vec<&[u8]> = e_words.iter().map(|x| x.as_slice()).collect();
            let (a_text, a_pending) = pending_of(&a_refs);
            let (e_text, e_pending) = pending_of(&e_refs);
            a.clear();
            a.keep_stopwords(&stop);
            a.add_pending(&a_text, &a_pending, &stop);
            e.clear();
            e.keep_stopwords(&stop);
            let counted = e.add_pending_shared(&e_text, &e_pending, &stop, &a, &a_text);
            let naive = |words: &[Vec<u8>]| -> HashSet<Vec<u8>> {
                words
                    .iter()
                    .filter(|w| !stop.contains(w))
                    .cloned()
                    .collect()
            };
            let (a_naive, e_naive) = (naive(&a_words), naive(&e_words));
            assert_eq!(a.len(), a_naive.len());
            assert_eq!(e.len(), e_naive.len());
            let held: HashSet<Vec<u8>> = a
                .tokens(std::str::from_utf8(&a_text).unwrap())
                .map(|t| t.as_bytes().to_vec())
                .collect();
            assert_eq!(held, a_naive);
            assert_eq!(counted, a_naive.intersection(&e_naive).count());
            assert_eq!(a.count_shared(&a_text, &e, &e_text), counted);
        }
    }

    #[test]
    fn sets_hold_distinct_spans_and_stopwords_match_exactly() {
        use std::collections::HashSet;
        let mut set = TokenSet::default();
        let mut naive = HashSet::new();
        let mut text = Vec::new();
        for i in 0..900 {
            let start = text.len();
            text.extend_from_slice(format!("w{}-a-long-tail-{}", i % 3, i % 250).as_bytes());
            for end in [start + 2, start + 4 + i % 5, text.len()] {
                set.insert(&text, start, end);
                naive.insert(text[start..end].to_vec());
            }
            text.push(b' ');
        }
        assert_eq!(set.len(), naive.len());
        let held: HashSet<Vec<u8>> = set
            .tokens(std::str::from_utf8(&text).unwrap())
            .map(|t| t.as_bytes().to_vec())
            .collect();
        assert_eq!(held, naive);
        let mut other = TokenSet::default();
        let words = b"w1 zz w2-a-long-tail-2 w2-a-long-tail-1 w2-a-long-tail-1 w0-a";
        let spans = [
            (0, 2),
            (3, 5),
            (6, 22),
            (23, 39),
            (40, 56),
            (57, words.len()),
        ];
        for (s, e) in spans {
            other.insert(words, s, e);
        }
        let distinct: HashSet<&[u8]> = spans.iter().map(|&(s, e)| &words[s..e]).collect();
        let shared = distinct.iter().filter(|w| naive.contains(**w)).count();
        assert_eq!(other.len(), distinct.len());
        assert_eq!(set.count_shared(&text, &other, words), shared);
        assert_eq!(other.count_shared(words, &set, &text), shared);
        let stop = StopWords::new(["the", "a", "the", "", "a-much-longer-stopword", "é"]);
        let listed: Vec<&str> = stop.tokens().collect();
        assert_eq!(listed, ["the", "a", "", "a-much-longer-stopword", "é"]);
        for (w, yes) in [
            ("the", true),
            ("thE", false),
            ("a", true),
            ("a\0", false),
            ("", true),
            ("é", true),
            ("a-much-longer-stopword", true),
            ("a-much-longer-stopwore", false),
            ("th", false),
        ] {
            assert_eq!(stop.contains(w.as_bytes()), yes, "{w}");
        }
        set.clear();
        assert!(set.is_empty());
        assert_eq!(set.count_shared(&text, &other, words), 0);
        // After a clear the set is empty in both tables and fills again.
        for (s, e) in spans {
            set.insert(words, s, e);
        }
        assert_eq!(set.len(), distinct.len());
        assert_eq!(set.count_shared(words, &other, words), distinct.len());
    }
}
