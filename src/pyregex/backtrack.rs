//! The bounded path: a backtracking matcher with Python's `re` semantics and a step budget.
//!
//! Look-arounds, back-references, conditionals, atomic groups and possessive repetitions have no
//! linear-time algorithm, so these patterns are matched the way `re` matches them: depth first,
//! alternatives in order, greedy repetitions longest first, with `re`'s rule against repeating
//! an empty iteration, captures restored on backtracking. The search is a loop over an explicit
//! stack (no recursion, so no text is long enough to overflow the thread's stack), and every
//! step counts against a budget: a row that would take longer ends as [`Outcome::OverBudget`].

use std::collections::HashMap;

use super::program::{Assertion, Case, Greed, Node, Program};
use super::Outcome;

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
enum Inst {
    /// One character of set `.0`.
    Set(u32),
    /// Try `.0`, and on failure `.1`.
    Split(u32, u32),
    Jump(u32),
    /// Record the position in capture slot `.0`.
    Save(u32),
    Assert(Assertion),
    Backref(u32, Case),
    /// Reset repetition `.0` before its first iteration.
    RepeatStart(u32),
    /// Decide whether repetition `id` runs its body (the next instruction) once more or goes on
    /// at `exit`.
    RepeatCheck {
        id: u32,
        min: u32,
        max: u32,
        lazy: bool,
        exit: u32,
    },
    /// A repetition of one character of a set (`re`'s `REPEAT_ONE`).
    RepeatSet {
        set: u32,
        min: u32,
        max: u32,
        lazy: bool,
    },
    /// Start a look-around (`behind`: its width, or `NONE` ahead) or an atomic group (`atomic`);
    /// `end` is the instruction after its matching [`Inst::SubEnd`].
    SubStart {
        negate: bool,
        behind: u32,
        atomic: bool,
        end: u32,
    },
    SubEnd,
    /// Go on if group `.0` has matched, else jump to `.1`.
    IfGroup(u32, u32),
    Match,
}

/// A backtracking entry.
#[derive(Clone, Copy, Debug)]
enum Frame {
    Retry {
        pc: u32,
        pos: u32,
    },
    RestoreSlot {
        slot: u32,
        old: u32,
    },
    RestoreRepeat {
        id: u32,
        count: u32,
        last: u32,
    },
    /// Another iteration of a lazy repetition, tried when what follows it fails.
    LazyIteration {
        id: u32,
        pos: u32,
        body: u32,
    },
    /// A greedy one-character repetition at `start` that has consumed `count`: give one back.
    GiveBack {
        next: u32,
        start: u32,
        count: u32,
        min: u32,
    },
    /// A lazy one: take one more.
    TakeMore {
        next: u32,
        start: u32,
        count: u32,
        max: u32,
        set: u32,
    },
    /// A look-around or atomic group in progress, started at `pos`.
    Barrier {
        pos: u32,
        negate: bool,
        atomic: bool,
        end: u32,
    },
}

/// A compiled program for the backtracking matcher.
pub struct Backtrack {
    insts: Vec<Inst>,
    sets: Vec<Vec<(u32, u32)>>,
    slots: usize,
    repeats: usize,
    lower: HashMap<u32, u32>,
    /// Only position 0 can match (the pattern starts with `\A`, or a full match).
    anchored: bool,
}

/// Reusable buffers of the matcher.
#[derive(Default)]
pub struct Scratch {
    chars: Vec<char>,
    stack: Vec<Frame>,
    slots: Vec<u32>,
    count: Vec<u32>,
    last: Vec<u32>,
}

impl Backtrack {
    pub fn new(program: &Program) -> Result<Backtrack, String> {
        let mut c = Compiler::default();
        c.node(&program.root)?;
        if program.full_match {
            c.insts.push(Inst::Assert(Assertion::End));
        }
        c.insts.push(Inst::Match);
        if c.insts.len() >= NONE as usize {
            return Err("the pattern is too large".to_owned());
        }
        Ok(Backtrack {
            insts: c.insts,
            sets: c.sets,
            slots: 2 * program.groups.max(1) as usize,
            repeats: c.repeats as usize,
            lower: program.lower.clone(),
            anchored: program.full_match || starts_anchored(&program.root),
        })
    }

    /// Search `text` (or match it whole), with at most `budget` steps (`None`: no limit).
    pub fn run(
        &self,
        text: &str,
        budget: Option<u64>,
        is_word: &dyn Fn(char) -> bool,
        s: &mut Scratch,
    ) -> Outcome {
        s.chars.clear();
        s.chars.extend(text.chars());
        if s.chars.len() >= NONE as usize {
            return Outcome::OverBudget;
        }
        let mut steps = Steps {
            left: budget.unwrap_or(u64::MAX),
        };
        let last_start = if self.anchored { 0 } else { s.chars.len() };
        for start in 0..=last_start {
            match self.run_at(start as u32, &mut steps, is_word, s) {
                Some(true) => return Outcome::Match,
                Some(false) => {}
                None => return Outcome::OverBudget,
            }
        }
        Outcome::NoMatch
    }

    /// One attempt at `start`: `Some(matched)`, or `None` once the budget is spent.
    fn run_at(
        &self,
        start: u32,
        steps: &mut Steps,
        is_word: &dyn Fn(char) -> bool,
        s: &mut Scratch,
    ) -> Option<bool> {
        let Scratch {
            chars,
            stack,
            slots,
            count,
            last,
        } = s;
        let text: &[char] = chars;
        stack.clear();
        slots.clear();
        slots.resize(self.slots, NONE);
        count.clear();
        count.resize(self.repeats, 0);
        last.clear();
        last.resize(self.repeats, NONE);
        let n = text.len() as u32;
        let (mut pc, mut pos) = (0u32, start);
        loop {
            steps.take(1)?;
            let ok = match self.insts.get(pc as usize).copied()? {
                Inst::Match => return Some(true),
                Inst::Set(set) => {
                    if pos < n && self.contains(set, text[pos as usize]) {
                        pos += 1;
                        pc += 1;
                        true
                    } else {
                        false
                    }
                }
                Inst::Split(first, second) => {
                    stack.push(Frame::Retry { pc: second, pos });
                    pc = first;
                    true
                }
                Inst::Jump(to) => {
                    pc = to;
                    true
                }
                Inst::Save(slot) => {
                    let old = slots.get(slot as usize).copied().unwrap_or(NONE);
                    stack.push(Frame::RestoreSlot { slot, old });
                    if let Some(s) = slots.get_mut(slot as usize) {
                        *s = pos;
                    }
                    pc += 1;
                    true
                }
                Inst::Assert(a) => {
                    pc += 1;
                    holds(a, text, pos as usize, is_word)
                }
                Inst::Backref(group, case) => {
                    match self.backref(group, case, text, slots, pos, steps) {
                        Ok(Some(end)) => {
                            pos = end;
                            pc += 1;
                            true
                        }
                        Ok(None) => false,
                        Err(()) => return None,
                    }
                }
                Inst::RepeatStart(id) => {
                    let i = id as usize;
                    stack.push(Frame::RestoreRepeat {
                        id,
                        count: count[i],
                        last: last[i],
                    });
                    count[i] = 0;
                    last[i] = NONE;
                    pc += 1;
                    true
                }
                Inst::RepeatCheck {
                    id,
                    min,
                    max,
                    lazy,
                    exit,
                } => {
                    let i = id as usize;
                    let done = count[i];
                    if done < min {
                        stack.push(Frame::RestoreRepeat {
                            id,
                            count: done,
                            last: last[i],
                        });
                        count[i] = done + 1;
                        pc += 1;
                    } else if (done < max || max == NONE) && pos != last[i] {
                        if lazy {
                            stack.push(Frame::LazyIteration {
                                id,
                                pos,
                                body: pc + 1,
                            });
                            pc = exit;
                        } else {
                            stack.push(Frame::Retry { pc: exit, pos });
                            stack.push(Frame::RestoreRepeat {
                                id,
                                count: done,
                                last: last[i],
                            });
                            count[i] = done + 1;
                            last[i] = pos;
                            pc += 1;
                        }
                    } else {
                        pc = exit;
                    }
                    true
                }
                Inst::RepeatSet {
                    set,
                    min,
                    max,
                    lazy,
                } => {
                    let limit = if max == NONE {
                        n - pos
                    } else {
                        max.min(n - pos)
                    };
                    let wanted = if lazy { min.min(limit) } else { limit };
                    let mut taken = 0;
                    while taken < wanted && self.contains(set, text[(pos + taken) as usize]) {
                        taken += 1;
                    }
                    steps.take(u64::from(taken))?;
                    if taken < min {
                        false
                    } else {
                        if lazy {
                            stack.push(Frame::TakeMore {
                                next: pc + 1,
                                start: pos,
                                count: taken,
                                max,
                                set,
                            });
                        } else if taken > min {
                            stack.push(Frame::GiveBack {
                                next: pc + 1,
                                start: pos,
                                count: taken,
                                min,
                            });
                        }
                        pos += taken;
                        pc += 1;
                        true
                    }
                }
                Inst::SubStart {
                    negate,
                    behind,
                    atomic,
                    end,
                } => {
                    if behind != NONE && pos < behind {
                        // Not enough text behind: a positive look-behind fails, a negative holds.
                        if negate {
                            pc = end;
                        }
                        negate
                    } else {
                        stack.push(Frame::Barrier {
                            pos,
                            negate,
                            atomic,
                            end,
                        });
                        if behind != NONE {
                            pos -= behind;
                        }
                        pc += 1;
                        true
                    }
                }
                Inst::SubEnd => {
                    // The sub-pattern matched: drop its alternatives, keep its undo entries.
                    let at = stack
                        .iter()
                        .rposition(|f| matches!(f, Frame::Barrier { .. }))?;
                    let Frame::Barrier {
                        pos: started,
                        negate,
                        atomic,
                        end,
                    } = stack[at]
                    else {
                        return None;
                    };
                    if negate {
                        // A negative look-around whose pattern matched fails: undo down to it.
                        while stack.len() > at {
                            if let Some(frame) = stack.pop() {
                                undo(frame, slots, count, last);
                            }
                        }
                        false
                    } else {
                        let mut kept = at;
                        for i in at + 1..stack.len() {
                            if matches!(
                                stack[i],
                                Frame::RestoreSlot { .. } | Frame::RestoreRepeat { .. }
                            ) {
                                stack[kept] = stack[i];
                                kept += 1;
                            }
                        }
                        stack.truncate(kept);
                        if !atomic {
                            pos = started;
                        }
                        pc = end;
                        true
                    }
                }
                Inst::IfGroup(group, otherwise) => {
                    let (a, b) = group_span(slots, group);
                    pc = if a != NONE && b != NONE && b >= a {
                        pc + 1
                    } else {
                        otherwise
                    };
                    true
                }
            };
            if ok {
                continue;
            }
            // Backtrack: undo entries until one offers another way.
            loop {
                let Some(frame) = stack.pop() else {
                    return Some(false);
                };
                steps.take(1)?;
                match frame {
                    Frame::Retry { pc: p, pos: q } => {
                        pc = p;
                        pos = q;
                        break;
                    }
                    Frame::LazyIteration { id, pos: q, body } => {
                        let i = id as usize;
                        stack.push(Frame::RestoreRepeat {
                            id,
                            count: count[i],
                            last: last[i],
                        });
                        count[i] += 1;
                        last[i] = q;
                        pos = q;
                        pc = body;
                        break;
                    }
                    Frame::GiveBack {
                        next,
                        start,
                        count: c,
                        min,
                    } => {
                        let c = c - 1;
                        if c > min {
                            stack.push(Frame::GiveBack {
                                next,
                                start,
                                count: c,
                                min,
                            });
                        }
                        pos = start + c;
                        pc = next;
                        break;
                    }
                    Frame::TakeMore {
                        next,
                        start,
                        count: c,
                        max,
                        set,
                    } => {
                        let at = start + c;
                        if (c < max || max == NONE)
                            && at < n
                            && self.contains(set, text[at as usize])
                        {
                            stack.push(Frame::TakeMore {
                                next,
                                start,
                                count: c + 1,
                                max,
                                set,
                            });
                            pos = at + 1;
                            pc = next;
                            break;
                        }
                    }
                    Frame::Barrier {
                        pos: q,
                        negate,
                        end,
                        ..
                    } => {
                        if negate {
                            // The pattern of a negative look-around failed: it holds.
                            pos = q;
                            pc = end;
                            break;
                        }
                    }
                    other => undo(other, slots, count, last),
                }
            }
        }
    }

    fn contains(&self, set: u32, c: char) -> bool {
        let c = c as u32;
        let Some(ranges) = self.sets.get(set as usize) else {
            return false;
        };
        let i = ranges.partition_point(|&(_, hi)| hi < c);
        ranges.get(i).is_some_and(|&(lo, _)| lo <= c)
    }

    /// Match group `group`'s text again at `pos`: `Ok(Some(end))`, `Ok(None)` (no match, or the
    /// group has not matched), `Err` once the budget is spent.
    fn backref(
        &self,
        group: u32,
        case: Case,
        text: &[char],
        slots: &[u32],
        pos: u32,
        steps: &mut Steps,
    ) -> Result<Option<u32>, ()> {
        let (a, b) = group_span(slots, group);
        if a == NONE || b == NONE || b < a {
            return Ok(None);
        }
        let len = b - a;
        if steps.take(u64::from(len)).is_none() {
            return Err(());
        }
        if (text.len() as u32) - pos < len {
            return Ok(None);
        }
        for k in 0..len {
            let (x, y) = (text[(a + k) as usize], text[(pos + k) as usize]);
            let same = match case {
                Case::Sensitive => x == y,
                Case::Ascii => x.eq_ignore_ascii_case(&y),
                Case::Unicode => self.lower_of(x) == self.lower_of(y),
            };
            if !same {
                return Ok(None);
            }
        }
        Ok(Some(pos + len))
    }

    fn lower_of(&self, c: char) -> u32 {
        let c = c as u32;
        self.lower.get(&c).copied().unwrap_or(c)
    }
}

fn group_span(slots: &[u32], group: u32) -> (u32, u32) {
    let at = 2 * group as usize;
    (
        slots.get(at).copied().unwrap_or(NONE),
        slots.get(at + 1).copied().unwrap_or(NONE),
    )
}

fn undo(frame: Frame, slots: &mut [u32], count: &mut [u32], last: &mut [u32]) {
    match frame {
        Frame::RestoreSlot { slot, old } => {
            if let Some(s) = slots.get_mut(slot as usize) {
                *s = old;
            }
        }
        Frame::RestoreRepeat {
            id,
            count: c,
            last: l,
        } => {
            if let (Some(x), Some(y)) = (count.get_mut(id as usize), last.get_mut(id as usize)) {
                *x = c;
                *y = l;
            }
        }
        _ => {}
    }
}

struct Steps {
    left: u64,
}

impl Steps {
    #[inline]
    fn take(&mut self, n: u64) -> Option<()> {
        self.left = self.left.checked_sub(n)?;
        Some(())
    }
}

fn holds(a: Assertion, text: &[char], pos: usize, is_word: &dyn Fn(char) -> bool) -> bool {
    let n = text.len();
    let before = pos.checked_sub(1).and_then(|i| text.get(i)).copied();
    let after = text.get(pos).copied();
    let ascii_word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    let word = |c: Option<char>| c.is_some_and(is_word);
    match a {
        Assertion::Start => pos == 0,
        Assertion::End => pos == n,
        Assertion::PyEnd => pos == n || (pos + 1 == n && after == Some('\n')),
        Assertion::LineStart => pos == 0 || before == Some('\n'),
        Assertion::LineEnd => pos == n || after == Some('\n'),
        Assertion::Word => word(before) != word(after),
        // `re` never finds `\B` in an empty text.
        Assertion::NotWord => n > 0 && word(before) == word(after),
        Assertion::AsciiWord => ascii_word(before) != ascii_word(after),
        Assertion::NotAsciiWord => n > 0 && ascii_word(before) == ascii_word(after),
    }
}

/// Whether every match must start at position 0 (`re` tries nowhere else).
fn starts_anchored(node: &Node) -> bool {
    match node {
        Node::Assert(Assertion::Start) => true,
        Node::Concat(items) => items.first().is_some_and(starts_anchored),
        Node::Group(_, node) | Node::Atomic(node) => starts_anchored(node),
        Node::Alternation(items) => !items.is_empty() && items.iter().all(starts_anchored),
        _ => false,
    }
}

#[derive(Default)]
struct Compiler {
    insts: Vec<Inst>,
    sets: Vec<Vec<(u32, u32)>>,
    repeats: u32,
}

impl Compiler {
    fn here(&self) -> u32 {
        self.insts.len() as u32
    }

    fn patch(&mut self, at: u32, to: u32) {
        match self.insts.get_mut(at as usize) {
            Some(Inst::Split(_, second)) => *second = to,
            Some(Inst::Jump(target)) => *target = to,
            Some(Inst::RepeatCheck { exit, .. }) => *exit = to,
            Some(Inst::SubStart { end, .. }) => *end = to,
            Some(Inst::IfGroup(_, otherwise)) => *otherwise = to,
            _ => {}
        }
    }

    fn set(&mut self, ranges: &[(u32, u32)]) -> u32 {
        self.sets.push(ranges.to_vec());
        (self.sets.len() - 1) as u32
    }

    fn node(&mut self, node: &Node) -> Result<(), String> {
        if self.insts.len() > 10_000_000 {
            return Err("the pattern is too large".to_owned());
        }
        match node {
            Node::Empty => {}
            Node::Set(ranges) => {
                let set = self.set(ranges);
                self.insts.push(Inst::Set(set));
            }
            Node::Concat(items) => {
                for item in items {
                    self.node(item)?;
                }
            }
            Node::Alternation(items) => {
                // Split(a, next) a Jump(end) Split(b, next) b Jump(end) ... last
                let mut jumps = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    if i + 1 < items.len() {
                        let split = self.here();
                        self.insts.push(Inst::Split(split + 1, NONE));
                        self.node(item)?;
                        jumps.push(self.here());
                        self.insts.push(Inst::Jump(NONE));
                        let next = self.here();
                        self.patch(split, next);
                    } else {
                        self.node(item)?;
                    }
                }
                let end = self.here();
                for j in jumps {
                    self.patch(j, end);
                }
                if items.is_empty() {
                    // An empty alternation matches nothing.
                    let never = self.set(&[]);
                    self.insts.push(Inst::Set(never));
                }
            }
            Node::Repeat {
                min,
                max,
                greed,
                node,
            } => {
                let possessive = *greed == Greed::Possessive;
                let start = self.here();
                if possessive {
                    self.insts.push(Inst::SubStart {
                        negate: false,
                        behind: NONE,
                        atomic: true,
                        end: NONE,
                    });
                }
                let lazy = *greed == Greed::Lazy;
                let max = max.unwrap_or(NONE);
                if let Node::Set(ranges) = node.as_ref() {
                    let set = self.set(ranges);
                    self.insts.push(Inst::RepeatSet {
                        set,
                        min: *min,
                        max,
                        lazy,
                    });
                } else {
                    let id = self.repeats;
                    self.repeats += 1;
                    self.insts.push(Inst::RepeatStart(id));
                    let check = self.here();
                    self.insts.push(Inst::RepeatCheck {
                        id,
                        min: *min,
                        max,
                        lazy,
                        exit: NONE,
                    });
                    self.node(node)?;
                    self.insts.push(Inst::Jump(check));
                    let exit = self.here();
                    self.patch(check, exit);
                }
                if possessive {
                    self.insts.push(Inst::SubEnd);
                    let end = self.here();
                    self.patch(start, end);
                }
            }
            Node::Group(group, node) => {
                self.insts.push(Inst::Save(2 * group));
                self.node(node)?;
                self.insts.push(Inst::Save(2 * group + 1));
            }
            Node::Backref(group, case) => self.insts.push(Inst::Backref(*group, *case)),
            Node::Look {
                negate,
                behind,
                node,
            } => {
                let start = self.here();
                self.insts.push(Inst::SubStart {
                    negate: *negate,
                    behind: behind.unwrap_or(NONE),
                    atomic: false,
                    end: NONE,
                });
                self.node(node)?;
                self.insts.push(Inst::SubEnd);
                let end = self.here();
                self.patch(start, end);
            }
            Node::Atomic(node) => {
                let start = self.here();
                self.insts.push(Inst::SubStart {
                    negate: false,
                    behind: NONE,
                    atomic: true,
                    end: NONE,
                });
                self.node(node)?;
                self.insts.push(Inst::SubEnd);
                let end = self.here();
                self.patch(start, end);
            }
            Node::Conditional(group, yes, no) => {
                let test = self.here();
                self.insts.push(Inst::IfGroup(*group, NONE));
                self.node(yes)?;
                let jump = self.here();
                self.insts.push(Inst::Jump(NONE));
                let otherwise = self.here();
                self.patch(test, otherwise);
                self.node(no)?;
                let end = self.here();
                self.patch(jump, end);
            }
            Node::Assert(a) => self.insts.push(Inst::Assert(*a)),
        }
        Ok(())
    }
}
