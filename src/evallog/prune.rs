//! A JSON document cut down to the fields a reader uses, without recursion, so that Python's
//! `json` module never meets what the reader does not read.
//!
//! Python's JSON reader recurses once per level of nesting and decodes the whole text before it
//! parses any of it: a value nested 100,000 deep, or one byte that is not UTF-8, anywhere in a
//! log, fails the whole document, even in a field nobody reads. [`prune`] walks the document
//! with an explicit stack (one frame per open array or object, on the heap) and writes it back
//! with each field the reader does not read replaced by `null`, scalars kept (a number, `true`,
//! `false`, `null`: what a reader may pick up from a key it does not name, lm-evaluation-harness'
//! metric columns). The fields the reader reads are copied byte for byte, so Python parses them
//! exactly as before, and refuses them as before when they nest too deep or are not UTF-8.
//!
//! Which fields are read is a tree of keys ([`Keep`]): at an object, the keys listed are kept
//! (their values read by the key's own tree), the others pruned; an array's items are read by
//! the array's tree (so `{"samples": {"id": All}}` reads each sample's `id`); [`Keep::All`]
//! keeps a value whole.
//!
//! The scan follows strings (and their escapes) and the nesting of objects and arrays, as
//! [`super::json::rewrite_specials`] does; tokens are copied, not checked (Python checks those
//! it reads), and text that is not JSON gives `None` (Python's error stands).

use std::collections::HashMap;

/// Which parts of a JSON value a reader reads.
#[derive(Debug, Clone, PartialEq)]
pub enum Keep {
    /// The whole value.
    All,
    /// An object's listed keys (each read by its own tree), the others pruned; an array's items
    /// read by this same tree; a scalar kept.
    Keys(HashMap<String, Keep>),
}

/// How the value at hand is written out.
#[derive(Clone, Copy)]
enum Mode<'k> {
    /// Keep the keys of this tree (see [`Keep::Keys`]).
    Keys(&'k HashMap<String, Keep>),
    /// Copy the value whole.
    Copy,
    /// Write nothing (its `null` was written when it started).
    Skip,
}

impl<'k> Mode<'k> {
    fn of(keep: &'k Keep) -> Self {
        match keep {
            Keep::All => Mode::Copy,
            Keep::Keys(keys) => Mode::Keys(keys),
        }
    }

    fn writes(self) -> bool {
        !matches!(self, Mode::Skip)
    }
}

enum State<'k> {
    /// A value is expected, read in this mode.
    Value(Mode<'k>),
    /// A key (or the end of an empty object) of the innermost object is expected.
    Key,
    /// A value ended: a comma, the innermost container's end, or the end of the text.
    After,
}

/// One open object (`true`) or array, and the mode of its content.
type Frame<'k> = (bool, Mode<'k>);

/// `text` (a JSON document) with the fields `keep` does not list replaced by `null` (numbers,
/// booleans and nulls kept); `None` when `text` is not JSON (an unbalanced bracket, a missing
/// colon, a truncated string...).
pub fn prune(text: &[u8], keep: &Keep) -> Option<Vec<u8>> {
    let text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
    let mut out = Vec::with_capacity(text.len());
    let mut stack: Vec<Frame> = Vec::new();
    let mut state = State::Value(Mode::of(keep));
    let mut i = 0;
    loop {
        i = whitespace(text, i);
        match state {
            State::Value(mode) => {
                let byte = *text.get(i)?;
                match byte {
                    b'{' | b'[' => {
                        if mode.writes() {
                            out.push(byte);
                        }
                        stack.push((byte == b'{', mode));
                        i += 1;
                        state = if byte == b'{' {
                            State::Key
                        } else {
                            let j = whitespace(text, i);
                            if text.get(j) == Some(&b']') {
                                State::After // closed below
                            } else {
                                State::Value(mode)
                            }
                        };
                    }
                    b'"' => {
                        let end = string_end(text, i)?;
                        if mode.writes() {
                            out.extend_from_slice(&text[i..end]);
                        }
                        i = end;
                        state = State::After;
                    }
                    _ => {
                        let end = literal_end(text, i)?;
                        if mode.writes() {
                            out.extend_from_slice(&text[i..end]);
                        }
                        i = end;
                        state = State::After;
                    }
                }
            }
            State::Key => {
                let &(_, mode) = stack.last()?;
                match *text.get(i)? {
                    b'}' => {
                        state = State::After; // an empty object, closed below
                        continue;
                    }
                    b'"' => {}
                    _ => return None,
                }
                let end = string_end(text, i)?;
                let key = &text[i..end];
                i = whitespace(text, end);
                if text.get(i) != Some(&b':') {
                    return None;
                }
                i = whitespace(text, i + 1);
                if mode.writes() {
                    out.extend_from_slice(key);
                    out.push(b':');
                }
                state = State::Value(match mode {
                    Mode::Keys(keys) => match key_text(key).and_then(|k| keys.get(&*k)) {
                        Some(child) => Mode::of(child),
                        None if scalar(text.get(i)?) => Mode::Copy,
                        None => {
                            out.extend_from_slice(b"null");
                            Mode::Skip
                        }
                    },
                    other => other,
                });
            }
            State::After => {
                let Some(&(object, mode)) = stack.last() else {
                    return (i == text.len()).then_some(out);
                };
                let byte = *text.get(i)?;
                match byte {
                    b',' => {
                        if mode.writes() {
                            out.push(b',');
                        }
                        i += 1;
                        state = if object {
                            State::Key
                        } else {
                            State::Value(mode)
                        };
                    }
                    b'}' | b']' if (byte == b'}') == object => {
                        stack.pop();
                        if mode.writes() {
                            out.push(byte);
                        }
                        i += 1;
                    }
                    _ => return None,
                }
            }
        }
    }
}

fn whitespace(text: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = text.get(i) {
        i += 1;
    }
    i
}

/// The end (past the closing quote) of the string starting at `text[start]` (a quote).
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', text.get(i..)?)?;
        if text[i] == b'"' {
            return Some(i + 1);
        }
        i += 2;
    }
}

/// The end of the number or bare word (`true`, `NaN`...) starting at `text[start]`.
fn literal_end(text: &[u8], start: usize) -> Option<usize> {
    let length = text[start..]
        .iter()
        .position(|b| b" \t\n\r,:[]{}\"".contains(b))
        .unwrap_or(text.len() - start);
    (length > 0).then_some(start + length)
}

/// Whether a value starting with `byte` is a scalar other than a string.
fn scalar(byte: &u8) -> bool {
    !matches!(byte, b'"' | b'[' | b'{')
}

/// The text of a key (its JSON string, quotes included), `None` when it is not UTF-8 or holds
/// an escape that is not a character (a lone surrogate: no key a reader names).
fn key_text(quoted: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(Into::into);
    }
    serde_json::from_slice::<String>(quoted)
        .ok()
        .map(Into::into)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(items: &[(&str, Keep)]) -> Keep {
        Keep::Keys(
            items
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
        )
    }

    fn pruned(text: &str, keep: &Keep) -> Option<String> {
        prune(text.as_bytes(), keep).map(|out| String::from_utf8(out).expect("UTF-8"))
    }

    #[test]
    fn unread_fields_become_null_and_scalars_stay() {
        let keep = keys(&[("id", Keep::All), ("output", keys(&[("text", Keep::All)]))]);
        let text = r#"{"id": [1, {"a": 2}], "meta": {"x": [1]}, "n": -1.5e3, "s": "x",
            "output": {"text": "A", "other": [[]], "ok": true}, "z": null}"#;
        assert_eq!(
            pruned(text, &keep).as_deref(),
            Some(
                r#"{"id":[1,{"a":2}],"meta":null,"n":-1.5e3,"s":null,"output":{"text":"A","other":null,"ok":true},"z":null}"#
            )
        );
    }

    #[test]
    fn arrays_read_their_items_by_the_same_tree() {
        let keep = keys(&[("samples", keys(&[("id", Keep::All)]))]);
        let text = r#"[{"samples": [{"id": 1, "deep": [[[]]]}, {"id": "2"}, [], "t", 3]}, {}]"#;
        assert_eq!(
            pruned(text, &keep).as_deref(),
            Some(r#"[{"samples":[{"id":1,"deep":null},{"id":"2"},[],"t",3]},{}]"#)
        );
    }

    #[test]
    fn deep_nesting_and_bad_bytes_in_unread_fields_are_dropped_without_recursion() {
        let keep = keys(&[("id", Keep::All)]);
        let deep = format!("{}1{}", "[{\"a\":".repeat(200_000), "}]".repeat(200_000));
        let mut text = format!(r#"{{"deep": {deep}, "bad": "@", "id": 7}}"#).into_bytes();
        let at = text.iter().position(|&b| b == b'@').expect("marker");
        text[at] = 0xff;
        let small = br#"{"deep": [{"a":[{"a":1}]}], "id": 7}"#;
        assert_eq!(
            prune(small, &keep).as_deref(),
            Some(&br#"{"deep":null,"id":7}"#[..])
        );
        let out = prune(&text, &keep).expect("pruned");
        assert_eq!(out, br#"{"deep":null,"bad":null,"id":7}"#);
        // Read, they are kept, for Python to refuse.
        let kept = prune(&text, &keys(&[("deep", Keep::All), ("bad", Keep::All)]));
        assert_eq!(kept.map(|k| k.len() > 1_000_000), Some(true));
    }

    #[test]
    fn escaped_keys_strings_and_python_tokens_are_followed() {
        let keep = keys(&[("id", Keep::All), ("a\"b", Keep::All)]);
        let text = "\u{feff}{\"\\u0069d\": NaN, \"a\\\"b\": \"}]\\\\\", \"c\": \"\\\"{[\", \"d\": -Infinity}";
        assert_eq!(
            pruned(text, &keep).as_deref(),
            Some(r#"{"\u0069d":NaN,"a\"b":"}]\\","c":null,"d":-Infinity}"#)
        );
    }

    #[test]
    fn text_that_is_not_json_gives_none() {
        let keep = keys(&[("a", Keep::All)]);
        for text in [
            "",
            "{",
            r#"{"a": 1"#,
            r#"{"a" 1}"#,
            r#"{"a": [1}"#,
            r#"{"b": [1}"#,
            r#"{"b": {"c": 1]}"#,
            r#"{"a": "x}"#,
            r#"{1: 2}"#,
            r#"{"a": 1}}"#,
            r#"{"a": 1} x"#,
            r#"[1,]x"#,
            r#"{"a": }"#,
        ] {
            assert_eq!(pruned(text, &keep), None, "{text}");
        }
        assert_eq!(pruned(" [ ] ", &keep).as_deref(), Some("[]"));
        assert_eq!(pruned("{ }", &keep).as_deref(), Some("{}"));
        assert_eq!(pruned("\"s\"", &keep).as_deref(), Some("\"s\""));
    }
}
