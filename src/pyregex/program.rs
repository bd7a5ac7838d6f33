//! The program format the Python side writes (`polarscore/kernels/_regex.py`), read into a tree.
//!
//! One line of ASCII: a header `pyre1;G<groups>;F<0|1>;`, optionally `L<cp:lower,...>;` (the
//! single-character lowercase `re` uses for a case-insensitive back-reference), then one node.
//! Sets are code point ranges in hexadecimal; every other number is decimal.

use std::collections::HashMap;

/// How a repetition chooses its count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Greed {
    Greedy,
    Lazy,
    Possessive,
}

/// How a back-reference compares characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    Sensitive,
    /// `re`'s single-character lowercase of both sides.
    Unicode,
    /// ASCII letters folded only.
    Ascii,
}

/// A zero-width assertion, with Python's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assertion {
    /// `\A`, and `^` without MULTILINE.
    Start,
    /// `\Z`: the very end.
    End,
    /// `$` without MULTILINE: the end, or just before a final `\n`.
    PyEnd,
    /// `^` with MULTILINE: the start, or just after any `\n`.
    LineStart,
    /// `$` with MULTILINE: the end, or just before any `\n`.
    LineEnd,
    /// `\b` over Python's `\w`.
    Word,
    /// `\B` over Python's `\w`.
    NotWord,
    /// `\b` with ASCII: over `[0-9A-Za-z_]`.
    AsciiWord,
    /// `\B` with ASCII.
    NotAsciiWord,
}

/// A node of a pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Empty,
    /// One character of a set of code point ranges (sorted, disjoint; may be empty).
    Set(Vec<(u32, u32)>),
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
    Repeat {
        min: u32,
        /// `None`: unbounded.
        max: Option<u32>,
        greed: Greed,
        node: Box<Node>,
    },
    Group(u32, Box<Node>),
    Backref(u32, Case),
    /// A look-ahead (`behind == None`) or a look-behind of a fixed width.
    Look {
        negate: bool,
        behind: Option<u32>,
        node: Box<Node>,
    },
    /// `(?(group)yes|no)`.
    Conditional(u32, Box<Node>, Box<Node>),
    Atomic(Box<Node>),
    Assert(Assertion),
}

impl Node {
    /// Whether a linear-time engine can run the node: no back-reference, look-around,
    /// conditional, atomic group or possessive repetition anywhere in it.
    pub fn is_regular(&self) -> bool {
        match self {
            Node::Empty | Node::Set(_) | Node::Assert(_) => true,
            Node::Concat(items) | Node::Alternation(items) => items.iter().all(Node::is_regular),
            Node::Repeat { greed, node, .. } => *greed != Greed::Possessive && node.is_regular(),
            Node::Group(_, node) => node.is_regular(),
            Node::Backref(..) | Node::Look { .. } | Node::Conditional(..) | Node::Atomic(_) => {
                false
            }
        }
    }

    /// Call `f` on every assertion of the tree.
    pub fn for_each_assertion(&self, f: &mut impl FnMut(Assertion)) {
        match self {
            Node::Assert(a) => f(*a),
            Node::Empty | Node::Set(_) | Node::Backref(..) => {}
            Node::Concat(items) | Node::Alternation(items) => {
                for item in items {
                    item.for_each_assertion(f);
                }
            }
            Node::Repeat { node, .. }
            | Node::Group(_, node)
            | Node::Look { node, .. }
            | Node::Atomic(node) => node.for_each_assertion(f),
            Node::Conditional(_, yes, no) => {
                yes.for_each_assertion(f);
                no.for_each_assertion(f);
            }
        }
    }
}

/// A parsed program.
#[derive(Clone, Debug)]
pub struct Program {
    /// Capture slots: groups plus one (group 0 is the whole match), as `re` counts them.
    pub groups: u32,
    /// `re.fullmatch` instead of `re.search`.
    pub full_match: bool,
    /// `re`'s single-character lowercase, where it changes a character (case-insensitive
    /// back-references only).
    pub lower: HashMap<u32, u32>,
    pub root: Node,
}

/// Deeper than Python's own parser can nest (its recursion limit stops near 500 groups).
const MAX_DEPTH: usize = 2_000;

/// Read a program; an error says what is malformed (a bug of the writer, or not a program).
pub fn parse(text: &str) -> Result<Program, String> {
    let mut p = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    p.expect_str("pyre1;G")?;
    let groups = p.number()?;
    p.expect_str(";F")?;
    let full_match = match p.next()? {
        b'0' => false,
        b'1' => true,
        other => return Err(format!("bad fullmatch flag {:?}", other as char)),
    };
    p.expect(b';')?;
    let mut lower = HashMap::new();
    if p.peek() == Some(b'L') {
        p.at += 1;
        while p.peek() != Some(b';') {
            let from = p.hex()?;
            p.expect(b':')?;
            let to = p.hex()?;
            lower.insert(from, to);
            if p.peek() == Some(b',') {
                p.at += 1;
            }
        }
        p.expect(b';')?;
    }
    let root = p.node(0)?;
    if p.at != p.bytes.len() {
        return Err(format!("trailing text at byte {}", p.at));
    }
    Ok(Program {
        groups,
        full_match,
        lower,
        root,
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Result<u8, String> {
        let b = self.peek().ok_or("the program ends too early")?;
        self.at += 1;
        Ok(b)
    }

    fn expect(&mut self, want: u8) -> Result<(), String> {
        let got = self.next()?;
        if got == want {
            Ok(())
        } else {
            Err(format!(
                "expected {:?} at byte {}, found {:?}",
                want as char,
                self.at - 1,
                got as char
            ))
        }
    }

    fn expect_str(&mut self, want: &str) -> Result<(), String> {
        want.bytes().try_for_each(|b| self.expect(b))
    }

    fn number(&mut self) -> Result<u32, String> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(b @ b'0'..=b'9') = self.peek() {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u32::from(b - b'0')))
                .ok_or("number too large")?;
            self.at += 1;
        }
        if self.at == start {
            return Err(format!("expected a number at byte {start}"));
        }
        Ok(value)
    }

    fn hex(&mut self) -> Result<u32, String> {
        let start = self.at;
        let mut value: u32 = 0;
        while let Some(b) = self.peek() {
            let digit = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                _ => break,
            };
            value = value
                .checked_mul(16)
                .and_then(|v| v.checked_add(u32::from(digit)))
                .ok_or("code point too large")?;
            self.at += 1;
        }
        if self.at == start || value > 0x10_FFFF {
            return Err(format!("expected a code point at byte {start}"));
        }
        Ok(value)
    }

    fn set(&mut self) -> Result<Vec<(u32, u32)>, String> {
        self.expect(b'[')?;
        let mut ranges = Vec::new();
        while self.peek() != Some(b']') {
            let lo = self.hex()?;
            let hi = if self.peek() == Some(b'-') {
                self.at += 1;
                self.hex()?
            } else {
                lo
            };
            if hi < lo || ranges.last().is_some_and(|&(_, last)| lo <= last) {
                return Err("set ranges out of order".to_owned());
            }
            ranges.push((lo, hi));
            if self.peek() == Some(b',') {
                self.at += 1;
            }
        }
        self.expect(b']')?;
        Ok(ranges)
    }

    fn children(&mut self, depth: usize) -> Result<Vec<Node>, String> {
        let n = self.number()?;
        self.expect(b':')?;
        let mut items = Vec::new();
        for _ in 0..n {
            items.push(self.node(depth + 1)?);
        }
        Ok(items)
    }

    fn boxed(&mut self, depth: usize) -> Result<Box<Node>, String> {
        Ok(Box::new(self.node(depth + 1)?))
    }

    fn node(&mut self, depth: usize) -> Result<Node, String> {
        if depth > MAX_DEPTH {
            return Err("the pattern nests too deeply".to_owned());
        }
        Ok(match self.next()? {
            b'e' => Node::Empty,
            b'c' => Node::Set(self.set()?),
            b'q' => Node::Concat(self.children(depth)?),
            b'a' => Node::Alternation(self.children(depth)?),
            b'r' => {
                let min = self.number()?;
                self.expect(b',')?;
                let max = if self.peek() == Some(b'*') {
                    self.at += 1;
                    None
                } else {
                    Some(self.number()?)
                };
                let greed = match self.next()? {
                    b'g' => Greed::Greedy,
                    b'l' => Greed::Lazy,
                    b'p' => Greed::Possessive,
                    other => return Err(format!("bad repetition kind {:?}", other as char)),
                };
                if max.is_some_and(|m| m < min) {
                    return Err("repetition maximum below its minimum".to_owned());
                }
                Node::Repeat {
                    min,
                    max,
                    greed,
                    node: self.boxed(depth)?,
                }
            }
            b'g' => {
                let group = self.number()?;
                self.expect(b':')?;
                Node::Group(group, self.boxed(depth)?)
            }
            b'k' => {
                let group = self.number()?;
                let case = match self.next()? {
                    b's' => Case::Sensitive,
                    b'u' => Case::Unicode,
                    b'a' => Case::Ascii,
                    other => return Err(format!("bad back-reference case {:?}", other as char)),
                };
                Node::Backref(group, case)
            }
            b'l' => {
                let (negate, behind) = match self.next()? {
                    b'a' => (false, None),
                    b'n' => (true, None),
                    kind @ (b'b' | b'c') => {
                        let width = self.number()?;
                        self.expect(b':')?;
                        (kind == b'c', Some(width))
                    }
                    other => return Err(format!("bad look-around kind {:?}", other as char)),
                };
                Node::Look {
                    negate,
                    behind,
                    node: self.boxed(depth)?,
                }
            }
            b't' => {
                let group = self.number()?;
                self.expect(b':')?;
                let yes = self.boxed(depth)?;
                Node::Conditional(group, yes, self.boxed(depth)?)
            }
            b'o' => Node::Atomic(self.boxed(depth)?),
            b'^' => Node::Assert(match self.next()? {
                b'A' => Assertion::Start,
                b'z' => Assertion::End,
                b'$' => Assertion::PyEnd,
                b'm' => Assertion::LineStart,
                b'M' => Assertion::LineEnd,
                b'b' => Assertion::Word,
                b'B' => Assertion::NotWord,
                b'x' => Assertion::AsciiWord,
                b'X' => Assertion::NotAsciiWord,
                other => return Err(format!("bad assertion {:?}", other as char)),
            }),
            other => {
                return Err(format!(
                    "unknown node {:?} at byte {}",
                    other as char,
                    self.at - 1
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_node() {
        let p = parse("pyre1;G3;F1;q4:r0,*gg1:a2:c[61-63,7a]e^$k1sr2,5lla^B").unwrap();
        assert_eq!(p.groups, 3);
        assert!(p.full_match);
        let Node::Concat(items) = &p.root else {
            panic!("{:?}", p.root)
        };
        assert_eq!(items.len(), 4);
        assert!(!p.root.is_regular());
        let p = parse("pyre1;G2;F0;L41:61,130:69;lb2:t1:o^zln^A").unwrap();
        assert_eq!(p.lower.get(&0x130), Some(&0x69));
        let regular = parse("pyre1;G1;F0;q2:r1,*l^Mc[]").unwrap();
        assert!(regular.root.is_regular());
    }

    #[test]
    fn refuses_malformed_programs() {
        for bad in [
            "",
            "pyre2;G1;F0;e",
            "pyre1;G1;F0;",
            "pyre1;G1;F0;c[62,61]",
            "pyre1;G1;F0;c[110000]",
            "pyre1;G1;F0;r5,2ge",
            "pyre1;G1;F0;q2:e",
            "pyre1;G1;F0;ee",
            "pyre1;G1;F0;r1,99999999999ge",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = format!("pyre1;G1;F0;{}e", "o".repeat(MAX_DEPTH + 5));
        assert!(parse(&deep).is_err());
    }
}
